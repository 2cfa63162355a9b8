#include "args.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>

#include "ge/options/option.hpp"

namespace gec {

bool Args::has(std::string_view name) const {
  return std::any_of(values.begin(), values.end(), [&](const auto& kv) { return kv.first == name; });
}

std::optional<std::string> Args::get(std::string_view name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

namespace {

const Flag* find_flag(std::span<const Flag> flags, std::string_view name) {
  for (const Flag& f : flags)
    if (f.name == name) return &f;
  return nullptr;
}

[[noreturn]] void unknown_flag(std::span<const Flag> flags, const std::string& written) {
  std::vector<std::string> spelled;
  for (const Flag& f : flags) spelled.push_back("--" + std::string(f.name));
  std::vector<std::string_view> views(spelled.begin(), spelled.end());
  std::string msg = "unknown flag '" + written + "'";
  if (const auto near = ge::closest_spelling(written, views)) msg += "; did you mean '" + std::string(*near) + "'";
  msg += "; expected one of";
  for (const auto& s : spelled) msg += " " + s;
  throw UsageError(msg);
}

}  // namespace

std::string flag_spelling(std::string_view written) {
  std::string out(written);
  const std::size_t end = std::min(out.find('='), out.size());
  for (std::size_t i = 2; i < end; ++i)
    if (out[i] == '-') out[i] = '_';
  return out;
}

Args parse_args(std::span<const std::string> args, std::span<const Flag> flags) {
  Args out;
  bool flags_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (flags_done || a.size() < 2 || a[0] != '-' || (a[1] != '-' && a != "-h" && a != "-o")) {
      // "-1,3" and other texts that start with one dash are values, not flags.
      out.positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      flags_done = true;
      continue;
    }
    std::string name = a == "-h" ? "help" : a == "-o" ? "output" : flag_spelling(a).substr(2);
    std::optional<std::string> value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const Flag* f = find_flag(flags, name);
    if (!f) unknown_flag(flags, value ? a.substr(0, a.find('=')) : a);
    if (out.has(name)) throw UsageError("flag '--" + name + "' is given twice; expected it once");
    if (!f->takes_value) {
      if (value) throw UsageError("flag '--" + name + "' takes no value, but got '" + *value + "'");
      out.values.emplace_back(name, std::string());
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
        throw UsageError("flag '--" + name + "' needs a value; expected --" + name + " VALUE or --" + name + "=VALUE");
      value = args[++i];
    }
    out.values.emplace_back(name, *value);
  }
  return out;
}

std::int64_t parse_int(const std::string& flag, const std::string& text, std::int64_t lo) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < lo)
    throw UsageError("--" + flag + " '" + text + "' is not an integer >= " + std::to_string(lo));
  return v;
}

std::string describe_flags(std::span<const Flag> flags) {
  std::size_t width = 0;
  for (const Flag& f : flags) width = std::max(width, f.name.size() + (f.takes_value ? 6 : 0));
  std::string out;
  for (const Flag& f : flags) {
    std::string left = "  --" + std::string(f.name) + (f.takes_value ? " VALUE" : "");
    left.resize(std::max(left.size(), width + 6), ' ');
    out += left + "  " + std::string(f.help) + "\n";
  }
  return out;
}

}  // namespace gec
