#pragma once
/// \file
/// ge's log: what the library decides on its own (the kernel chosen per node, plans made
/// at run time, options that have no effect, a precision this CPU cannot run), by level,
/// to one process-wide sink.
///
/// ```
/// ge::set_log_level(ge::LogLevel::debug);                 // or GE_LOG_LEVEL=debug
/// ge::set_log_sink([](ge::LogLevel level, std::string_view message) {
///   my_app_log(ge::to_string(level), message);  // "debug", "[ge.compile] node 'conv1' (Conv): kernel ..."
/// });
/// ge::set_log_sink(nullptr);                               // back to stderr
/// ```
///
/// The level starts as `GE_LOG_LEVEL` says (`off`, `error`, `warn`, `info`, `debug`; read
/// at the first message), else `warn`: only warnings and errors reach stderr. A message
/// is written when its level is at or above the threshold (`error` most severe). Messages
/// read `[ge.<area>] ...`; the default sink writes `ge <level>: <message>` lines.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

#include "ge/core/api.hpp"

namespace ge {

/// How much ge logs: a threshold for `set_log_level`, a severity for `log`. `off` as a
/// threshold writes nothing; no message has it.
enum class LogLevel : std::uint8_t {
  off = 0,
  error,  ///< something failed that the caller will not see as an exception
  warn,   ///< advice: an option without effect, a fallback to a slower path
  info,   ///< what ge decided for the model: plans made at run time
  debug,  ///< per node: the kernel chosen
};

/// The level's name: "off", "error", "warn", "info" or "debug".
[[nodiscard]] GE_API std::string_view to_string(LogLevel level) noexcept;

/// The level `text` names ("off", "error", "warn", "info", "debug"). Throws
/// `Errc::bad_option_value` for any other text.
[[nodiscard]] GE_API LogLevel parse_log_level(std::string_view text);

/// The level the environment variable `GE_LOG_LEVEL` asks for, `warn` when it is unset or
/// empty. Throws `Errc::bad_option_value` naming the variable for a value that is no level.
/// (At its first message ge reads it itself; a bad value is then logged as a warning and
/// the level stays `warn`.)
[[nodiscard]] GE_API LogLevel log_level_from_env();

/// The threshold now: the last `set_log_level`, else `GE_LOG_LEVEL`, else `warn`.
[[nodiscard]] GE_API LogLevel log_level();

/// Sets the threshold for the whole process. Throws `Errc::invalid_argument` for a value
/// outside the enum.
GE_API void set_log_level(LogLevel level);

/// Sets the threshold from its name (`parse_log_level`).
GE_API void set_log_level(std::string_view level);

/// Receives every message at or above the threshold. Calls are serialised (one at a time,
/// on the thread that logs); an exception the sink throws reaches the call that logged.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

/// Sends the messages to `sink` from now on; an empty sink restores the default (stderr).
GE_API void set_log_sink(LogSink sink);

/// Whether a message of `level` would be written now.
[[nodiscard]] GE_API bool log_enabled(LogLevel level);

/// Writes `message` at `level` when `log_enabled(level)`. (Not `ge::log`: that name
/// would hide `::log` from <cmath> in code inside namespace ge.)
GE_API void log_message(LogLevel level, std::string_view message);

/// Writes `make_message()` at `level`, calling it only when `log_enabled(level)`: debug
/// messages cost nothing while the level is above debug.
template <class F>
  requires std::is_invocable_r_v<std::string, F&>
void log_message(LogLevel level, F&& make_message) {
  if (log_enabled(level)) log_message(level, std::string_view(std::string(make_message())));
}

}  // namespace ge
