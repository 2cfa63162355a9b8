#pragma once
// The command-line parser shared by gec's commands: `--key value` and `--key=value`,
// flags without a value (`--help`), and positional arguments. Unknown flags are an error
// that names the flag and, when one is close, the flag that was probably meant.
//
//   static constexpr gec::Flag flags[] = {{"target", true, "the target"}, {"help", false, "usage"}};
//   gec::Args a = gec::parse_args(args, flags);       // throws gec::UsageError
//   if (a.has("help")) ...;  std::string t = a.get("target").value_or("cpu");

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gec {

/// A bad command line: main prints it and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One flag a command accepts, written `--name`.
struct Flag {
  std::string_view name;  ///< without the leading `--`
  bool takes_value;       ///< `--name value` / `--name=value`, else a switch (`--help`)
  std::string_view help;  ///< one line for the command's usage text
};

/// The parsed command line.
struct Args {
  std::vector<std::pair<std::string, std::string>> values;  ///< flag name, value (empty for a switch), in order
  std::vector<std::string> positionals;                     ///< the other arguments, in order

  /// True when the flag was given.
  [[nodiscard]] bool has(std::string_view name) const;
  /// The value of a flag, or nullopt when it was not given.
  [[nodiscard]] std::optional<std::string> get(std::string_view name) const;
};

/// gec's flags are spelled as GE's options are, with underscores (`--input_shape`,
/// `--plan_svg`); a dash inside a name is read as an underscore (`--plan-svg`).
/// `flag_spelling("--plan-svg=a-b.svg") == "--plan_svg=a-b.svg"` (the value is kept).
[[nodiscard]] std::string flag_spelling(std::string_view written);

/// Parses `args` against `flags`. `-h` means `--help` and `-o` `--output`; `--` ends the
/// flags; a flag's dashes read as underscores (`flag_spelling`). Throws `UsageError` for an unknown flag (with "did you mean"), a flag given
/// twice, a missing value, or a value given to a switch.
[[nodiscard]] Args parse_args(std::span<const std::string> args, std::span<const Flag> flags);

/// The integer value of --`flag` (`text`, whole, >= `lo`); `UsageError` naming the flag otherwise.
[[nodiscard]] std::int64_t parse_int(const std::string& flag, const std::string& text, std::int64_t lo);

/// The usage lines of `flags`: `  --name VALUE   help`, one per flag.
[[nodiscard]] std::string describe_flags(std::span<const Flag> flags);

}  // namespace gec
