#include "ge/options/target.hpp"

#include <array>
#include <string>

#include "ge/core/error.hpp"
#include "ge/options/option.hpp"

namespace ge {

namespace {
// The product rules of GE-REFERENCE.md §2 and the seeds, one row per product family.
constexpr std::array<Target, 8> table{{
    {"cpu", "ge's CPU device (the default)", 256, true, true, true, true},
    {"ascend950", "Ascend 950PR / Ascend 950DT", 256, true, true, true, false},
    {"atlas_a3", "Atlas A3 training / inference series", 100, true, true, true, true},
    {"atlas_a2", "Atlas A2 training / inference series", 100, true, true, true, true},
    {"atlas_200i_500_a2", "Atlas 200I/500 A2 inference", 100, true, false, false, true},
    {"atlas_inference", "Atlas inference series", 100, true, true, true, true},
    {"atlas_training", "Atlas training series", 100, true, true, true, true},
    {"ipv350", "IPV350", 0, false, false, false, false},
}};
}  // namespace

std::span<const Target> targets() noexcept { return table; }

const Target& default_target() noexcept { return table[0]; }

const Target& find_target(std::string_view name) {
  std::array<std::string_view, table.size()> names{};
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name) return table[i];
    names[i] = table[i].name;
  }
  std::string msg = "[ge.options] unknown target: '" + std::string(name) + "'; ";
  if (const auto near = closest_spelling(name, names)) msg += "did you mean '" + std::string(*near) + "'? ";
  msg += "expected one of";
  for (const Target& t : table) msg += " " + std::string(t.name) + ",";
  msg.pop_back();
  raise(Errc::unknown_target, msg);
}

}  // namespace ge
