#pragma once
/// \file
/// `ge::Format`: the memory layout of a tensor, which says which dims are N, C, H, W.

#include <cstdint>
#include <optional>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// A tensor layout. `nd` is "no particular meaning of the dims".
enum class Format : std::uint8_t { undefined, nd, nchw, nhwc };

/// The upper-case name, e.g. `"NCHW"`.
[[nodiscard]] GE_API std::string_view to_string(Format f) noexcept;

/// Parses `NCHW`, `NHWC`, `ND` (case-sensitive, as the options write them);
/// nullopt for anything else.
[[nodiscard]] GE_API std::optional<Format> parse_format(std::string_view text) noexcept;

/// Index of the H and W dims of a 4-D tensor in this format; nullopt for ND/undefined.
struct HwIndex {
  int h;
  int w;
};
[[nodiscard]] constexpr std::optional<HwIndex> hw_index(Format f) noexcept {
  if (f == Format::nchw) return HwIndex{2, 3};
  if (f == Format::nhwc) return HwIndex{1, 2};
  return std::nullopt;
}

}  // namespace ge
