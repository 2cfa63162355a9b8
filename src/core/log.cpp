// ge's log (include/ge/core/log.hpp): one threshold and one sink for the process.
#include "ge/core/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "ge/core/error.hpp"

namespace ge {
namespace {

constexpr std::string_view level_names[] = {"off", "error", "warn", "info", "debug"};
constexpr int not_read = -1;  // the threshold before GE_LOG_LEVEL is read

struct LogState {
  std::atomic<int> level{not_read};
  std::mutex sink_mu;                  // guards `sink`
  std::shared_ptr<const LogSink> sink;  // null: stderr
  std::recursive_mutex write_mu;       // one sink call at a time (a sink may log)
};

LogState& state() {
  static LogState s;
  return s;
}

void write_stderr(LogLevel level, std::string_view message) {
  std::fprintf(stderr, "ge %s: %.*s\n", level_names[static_cast<int>(level)].data(), static_cast<int>(message.size()),
               message.data());
}

// Calls the sink, whatever the threshold.
void write(LogLevel level, std::string_view message) {
  LogState& s = state();
  std::shared_ptr<const LogSink> sink;
  {
    const std::lock_guard<std::mutex> lock(s.sink_mu);
    sink = s.sink;
  }
  const std::lock_guard<std::recursive_mutex> lock(s.write_mu);
  if (sink)
    (*sink)(level, message);
  else
    write_stderr(level, message);
}

// The threshold, reading GE_LOG_LEVEL the first time; a bad value is reported once.
LogLevel threshold() {
  LogState& s = state();
  int level = s.level.load(std::memory_order_acquire);
  if (level != not_read) return static_cast<LogLevel>(level);
  LogLevel from_env = LogLevel::warn;
  std::optional<std::string> problem;
  try {
    from_env = log_level_from_env();
  } catch (const Error& e) {
    problem = std::string(e.what()) + "; logging at warn";
  }
  if (s.level.compare_exchange_strong(level, static_cast<int>(from_env), std::memory_order_acq_rel) && problem)
    write(LogLevel::warn, *problem);
  return static_cast<LogLevel>(s.level.load(std::memory_order_acquire));
}

std::string expected_levels() { return "expected off, error, warn, info or debug"; }

}  // namespace

std::string_view to_string(LogLevel level) noexcept {
  const auto i = static_cast<std::size_t>(level);
  return i < std::size(level_names) ? level_names[i] : std::string_view("unknown");
}

LogLevel parse_log_level(std::string_view text) {
  for (std::size_t i = 0; i < std::size(level_names); ++i)
    if (text == level_names[i]) return static_cast<LogLevel>(i);
  raise(Errc::bad_option_value, "[ge.log] unknown log level: '" + std::string(text) + "'; " + expected_levels());
}

LogLevel log_level_from_env() {
  const char* text = std::getenv("GE_LOG_LEVEL");
  if (text == nullptr || *text == '\0') return LogLevel::warn;
  for (std::size_t i = 0; i < std::size(level_names); ++i)
    if (level_names[i] == text) return static_cast<LogLevel>(i);
  raise(Errc::bad_option_value,
        "[ge.log] GE_LOG_LEVEL='" + std::string(text) + "' is not a log level; " + expected_levels());
}

LogLevel log_level() { return threshold(); }

void set_log_level(LogLevel level) {
  if (static_cast<std::size_t>(level) >= std::size(level_names))
    raise(Errc::invalid_argument, "[ge.log] set_log_level: level " + std::to_string(static_cast<int>(level)) +
                                      " is outside LogLevel; " + expected_levels());
  state().level.store(static_cast<int>(level), std::memory_order_release);
}

void set_log_level(std::string_view level) { set_log_level(parse_log_level(level)); }

void set_log_sink(LogSink sink) {
  auto next = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
  LogState& s = state();
  const std::lock_guard<std::mutex> lock(s.sink_mu);
  s.sink = std::move(next);
}

bool log_enabled(LogLevel level) {
  return level != LogLevel::off && static_cast<int>(level) <= static_cast<int>(threshold());
}

void log_message(LogLevel level, std::string_view message) {
  if (log_enabled(level)) write(level, message);
}

}  // namespace ge
