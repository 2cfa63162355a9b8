#pragma once
/// \file
/// The window rule: the output extent of one spatial axis of a convolution or a pool
/// over intervals, constexpr, so that the ops' shape inference (`Conv`, `MaxPool` ...) and
/// the typed face (`ge::typed::conv2d`) run the same code.
///
/// For an input extent `x` and a kernel extent `k` on an axis with pads `b`, `e`,
/// stride `s` and dilation `d`, the kernel covers `span = d * (k - 1) + 1` and
///
/// | mode                     | output extent                                          |
/// |--------------------------|--------------------------------------------------------|
/// | explicit pads (or VALID) | `(x + b + e - span) / s + 1` (floor)                   |
/// | `ceil_mode` (pools)      | ceil instead of floor; windows start inside the input or the begin pad |
/// | SAME_UPPER / SAME_LOWER  | `ceil(x / s)` (the pads follow from x)                 |
///
/// A pair (x, k) fits when its output extent is >= 1. Over intervals `in`, `k` the
/// result is the smallest interval holding the outputs of every pair that fits:
///
/// ```
/// constexpr ge::WindowAxis w{.pad_begin = 1, .pad_end = 1};             // 3x3, pad 1
/// static_assert(ge::window_out(ge::Dim(56), ge::Dim(3), w) == ge::Dim(56));
/// static_assert(ge::window_out(ge::Dim(), ge::Dim(3), {}) == ge::Dim::at_least(1));
/// ```

#include <cstdint>
#include <utility>

#include "ge/shape/dim.hpp"

namespace ge {

/// One spatial axis of a sliding window, its attributes fixed.
struct WindowAxis {
  std::int64_t pad_begin = 0;
  std::int64_t pad_end = 0;
  std::int64_t stride = 1;    ///< >= 1
  std::int64_t dilation = 1;  ///< >= 1
  bool same = false;          ///< auto_pad SAME_*: the output is ceil(x / stride)
  bool ceil_mode = false;     ///< pools: a last partial window counts
};

namespace detail {
constexpr std::int64_t add_sat(std::int64_t x, std::int64_t y) noexcept {
  std::int64_t r = 0;
  return x == Dim::inf || y == Dim::inf || __builtin_add_overflow(x, y, &r) ? Dim::inf : r;
}
constexpr std::int64_t mul_sat(std::int64_t x, std::int64_t y) noexcept {
  if (x == 0 || y == 0) return 0;
  std::int64_t r = 0;
  return x == Dim::inf || y == Dim::inf || __builtin_mul_overflow(x, y, &r) ? Dim::inf : r;
}
constexpr std::int64_t ceil_div(std::int64_t x, std::int64_t s) noexcept { return x / s + (x % s != 0 ? 1 : 0); }
}  // namespace detail

/// The extent `dilation * (k - 1) + 1` a kernel of size k >= 1 covers (saturating at inf).
[[nodiscard]] constexpr std::int64_t window_span(std::int64_t k, std::int64_t dilation) noexcept {
  return k == Dim::inf ? Dim::inf : detail::add_sat(detail::mul_sat(dilation, k - 1), 1);
}

/// The output extent for a padded input extent `padded` (x + pads; finite) and kernel k
/// under explicit pads; < 1 when the kernel does not fit.
[[nodiscard]] constexpr std::int64_t window_out_padded(std::int64_t padded, std::int64_t k,
                                                       const WindowAxis& w) noexcept {
  const std::int64_t span = window_span(k, w.dilation);
  if (padded < span) return 0;
  if (!w.ceil_mode) return (padded - span) / w.stride + 1;
  // Windows must start inside the input or the begin pad: the rounding up adds at most
  // one that does not, and an empty input without a begin pad has none.
  if (padded - w.pad_end <= 0) return 0;
  std::int64_t out = detail::ceil_div(padded - span, w.stride) + 1;
  if ((out - 1) * w.stride >= padded - w.pad_end) --out;
  return out;
}

/// The output extent for input extent x and kernel k (both finite); < 1 when they do not fit.
[[nodiscard]] constexpr std::int64_t window_out(std::int64_t x, std::int64_t k, const WindowAxis& w) noexcept {
  if (w.same) return detail::ceil_div(x, w.stride);
  return window_out_padded(detail::add_sat(detail::add_sat(x, w.pad_begin), w.pad_end), k, w);
}

/// Some input extent of `in` and kernel extent of `k` (taken >= 1) fit.
[[nodiscard]] constexpr bool window_fits(const Dim& in, const Dim& k, const WindowAxis& w) noexcept {
  if (w.same) return in.hi() >= 1;
  // The output grows with the input: the largest input and the smallest kernel decide.
  const std::int64_t top = detail::add_sat(detail::add_sat(in.hi(), w.pad_begin), w.pad_end);
  return top == Dim::inf || window_out_padded(top, detail::max(k.lo(), 1), w) >= 1;
}

/// The output extents of every pair of `in` and `k` that fits, as the smallest interval
/// holding them; given `window_fits(in, k, w)`. For one kernel the output grows with the
/// input, and for one input it shrinks as the kernel grows. So the largest output comes
/// from the largest input and the smallest kernel; the smallest is 1 when some kernel
/// fits a larger input but not the smallest one (the first input it fits gives 1), else
/// it comes from the smallest input and the largest kernel that fits it.
[[nodiscard]] constexpr Dim window_out(const Dim& in, const Dim& k, const WindowAxis& w) {
  if (w.same) {
    const std::int64_t hi = in.hi() == Dim::inf ? Dim::inf : detail::ceil_div(in.hi(), w.stride);
    return Dim::interval(detail::max(detail::ceil_div(in.lo(), w.stride), 1), hi);
  }
  const std::int64_t pads = detail::add_sat(w.pad_begin, w.pad_end);
  const std::int64_t k_lo = detail::max(k.lo(), 1);
  const std::int64_t k_hi = detail::max(k.hi(), 1);
  const std::int64_t top = detail::add_sat(in.hi(), pads);
  // Under ceil_mode without a begin pad, an empty input has no window (each would start
  // in the end pad): the smallest input that can fit is 1.
  const std::int64_t first = w.ceil_mode && w.pad_begin == 0 ? detail::max(in.lo(), 1) : in.lo();
  const std::int64_t bottom = detail::add_sat(first, pads);
  const std::int64_t hi = top == Dim::inf ? Dim::inf : window_out_padded(top, k_lo, w);
  if (bottom == Dim::inf) return Dim::interval(hi, hi);
  // The largest kernel the smallest input fits (0: none), and the next one.
  const std::int64_t k_fit = bottom >= 1 ? detail::min(k_hi, (bottom - 1) / w.dilation + 1) : 0;
  const std::int64_t next = detail::max(k_fit + 1, k_lo);
  const bool next_fits = next <= k_hi && window_span(next, w.dilation) <= top;
  const std::int64_t lo = next_fits || k_fit < k_lo ? 1 : window_out_padded(bottom, k_fit, w);
  return Dim::interval(lo, hi);
}

/// The pads (begin, end) of one axis under auto_pad SAME_UPPER (`upper`) or SAME_LOWER for
/// input extent x and kernel k: the output is ceil(x / stride); the odd pad goes at the end
/// (upper) or at the beginning (lower).
[[nodiscard]] constexpr std::pair<std::int64_t, std::int64_t> same_pads(std::int64_t x, std::int64_t k,
                                                                        const WindowAxis& w, bool upper) noexcept {
  const std::int64_t out = detail::ceil_div(x, w.stride);
  const std::int64_t total = detail::max(0, (out - 1) * w.stride + window_span(k, w.dilation) - x);
  const std::int64_t begin = upper ? total / 2 : total - total / 2;
  return {begin, total - begin};
}

/// The output extents of a transposed convolution over `in` with kernel k (fixed, >= 1):
/// `stride * (x - 1) + output_padding + span - pads`, or `x * stride` under SAME; the low
/// end is clamped at 0 and an unbounded end stays unbounded.
[[nodiscard]] constexpr Dim window_transpose_out(const Dim& in, std::int64_t k, const WindowAxis& w,
                                                 std::int64_t output_padding) noexcept {
  // Attribute values are small (the schemas cap them), so `base` cannot overflow.
  const std::int64_t base = output_padding + window_span(k, w.dilation) - w.pad_begin - w.pad_end;
  const auto f = [&](std::int64_t x) -> std::int64_t {
    if (x == Dim::inf) return Dim::inf;
    if (w.same) return detail::mul_sat(x, w.stride);
    if (x == 0) return detail::max(base - w.stride, 0);
    const std::int64_t grown = detail::mul_sat(w.stride, x - 1);
    const std::int64_t r = detail::add_sat(grown, detail::max(base, 0));
    return r == Dim::inf ? Dim::inf : detail::max(r + detail::min(base, 0), 0);
  };
  return Dim::interval(f(in.lo()), f(in.hi()));
}

}  // namespace ge
