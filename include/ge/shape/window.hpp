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
///
/// The integer forms (`window_span`, `window_count`, `window_out`, `same_pads`,
/// `window_transpose_out`, `transpose_pads`, `window_tap_outputs`) are the one copy of the
/// rule: op inference, the lowerings and the CPU kernels (which may include this header
/// and `dim.hpp`, nothing else of the shape layer) all call them.
///
/// Overflow follows the algebra's one rule (`ge/shape/dim.hpp`): an unbounded end
/// (`Dim::inf`) stays unbounded; finite extents whose sum or product leaves int64 throw
/// `Errc::int_overflow` (in a constant expression: a compile error), never a wrong finite
/// number and never a silent `inf`.

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
constexpr std::int64_t ceil_div(std::int64_t x, std::int64_t s) noexcept { return x / s + (x % s != 0 ? 1 : 0); }
}  // namespace detail

/// The extent `dilation * (k - 1) + 1` a kernel of size k >= 1 covers (`inf` for an unbounded k).
[[nodiscard]] constexpr std::int64_t window_span(std::int64_t k, std::int64_t dilation) {
  return k == Dim::inf ? Dim::inf : detail::add_ends(detail::mul_ends(dilation, k - 1), 1);
}

/// How many windows of extent `span` at stride s lie in a padded extent `padded` (both
/// finite): floor: those inside it; `ceil`: the division rounded up instead, one more
/// where a remainder is left (ONNX's ceil formula, before ceil_mode's rule on where a
/// window may start: `window_out_padded`); 0 when none fits.
[[nodiscard]] constexpr std::int64_t window_count(std::int64_t padded, std::int64_t span, std::int64_t stride,
                                                  bool ceil) noexcept {
  if (padded < span) return 0;
  return (ceil ? detail::ceil_div(padded - span, stride) : (padded - span) / stride) + 1;
}

/// The output extent for a padded input extent `padded` (x + pads; finite) and kernel k
/// under explicit pads; < 1 when the kernel does not fit.
[[nodiscard]] constexpr std::int64_t window_out_padded(std::int64_t padded, std::int64_t k, const WindowAxis& w) {
  const std::int64_t span = window_span(k, w.dilation);
  if (padded < span || !w.ceil_mode) return window_count(padded, span, w.stride, false);
  // Windows must start inside the input or the begin pad: the rounding up adds at most
  // one that does not, and an empty input without a begin pad has none.
  if (padded - w.pad_end <= 0) return 0;
  std::int64_t out = window_count(padded, span, w.stride, true);
  if ((out - 1) * w.stride >= padded - w.pad_end) --out;
  return out;
}

/// The output extent for input extent x and kernel k (both finite); < 1 when they do not fit.
[[nodiscard]] constexpr std::int64_t window_out(std::int64_t x, std::int64_t k, const WindowAxis& w) {
  if (w.same) return detail::ceil_div(x, w.stride);
  return window_out_padded(detail::add_ends(detail::add_ends(x, w.pad_begin), w.pad_end), k, w);
}

/// The outputs [lo, hi) of `out` whose tap at offset `off` (`tap * dilation - pad_begin`)
/// reads inside an input of extent `in` at stride s: `0 <= o * s + off < in`. An empty
/// range has lo == hi (lo may then pass `out`).
[[nodiscard]] constexpr std::pair<std::int64_t, std::int64_t> window_tap_outputs(std::int64_t in, std::int64_t out,
                                                                                 std::int64_t s,
                                                                                 std::int64_t off) noexcept {
  const std::int64_t lo = off >= 0 ? 0 : (s - 1 - off) / s;
  const std::int64_t hi = in - off <= 0 ? 0 : detail::min(out, (in - off - 1) / s + 1);
  return {lo, detail::max(hi, lo)};
}

/// Some input extent of `in` and kernel extent of `k` (taken >= 1) fit.
[[nodiscard]] constexpr bool window_fits(const Dim& in, const Dim& k, const WindowAxis& w) {
  if (w.same) return in.hi() >= 1;
  // The output grows with the input: the largest input and the smallest kernel decide.
  const std::int64_t top = detail::add_ends(detail::add_ends(in.hi(), w.pad_begin), w.pad_end);
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
  const std::int64_t pads = detail::add_ends(w.pad_begin, w.pad_end);
  const std::int64_t k_lo = detail::max(k.lo(), 1);
  const std::int64_t k_hi = detail::max(k.hi(), 1);
  const std::int64_t top = detail::add_ends(in.hi(), pads);
  // Under ceil_mode without a begin pad, an empty input has no window (each would start
  // in the end pad): the smallest input that can fit is 1.
  const std::int64_t first = w.ceil_mode && w.pad_begin == 0 ? detail::max(in.lo(), 1) : in.lo();
  const std::int64_t bottom = detail::add_ends(first, pads);
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
                                                                        const WindowAxis& w, bool upper) {
  const std::int64_t out = detail::ceil_div(x, w.stride);
  const std::int64_t total = detail::max(0, (out - 1) * w.stride + window_span(k, w.dilation) - x);
  const std::int64_t begin = upper ? total / 2 : total - total / 2;
  return {begin, total - begin};
}

/// The output extent of a transposed convolution over input extent x (finite, or `inf`:
/// unbounded) with kernel k >= 1: `stride * (x - 1) + output_padding + span - pads`, or
/// `x * stride` under SAME; clamped at 0.
[[nodiscard]] constexpr std::int64_t window_transpose_out(std::int64_t x, std::int64_t k, const WindowAxis& w,
                                                          std::int64_t output_padding) {
  if (x == Dim::inf) return Dim::inf;
  if (w.same) return detail::mul_ends(x, w.stride);
  // Attribute values are small (the schemas cap them at 2^31), so `base` cannot overflow.
  const std::int64_t base = output_padding + window_span(k, w.dilation) - w.pad_begin - w.pad_end;
  if (x == 0) return detail::max(base - w.stride, 0);
  const std::int64_t r = detail::add_ends(detail::mul_ends(w.stride, x - 1), detail::max(base, 0));
  return detail::max(r + detail::min(base, 0), 0);
}

/// The output extents of a transposed convolution over `in` with kernel k (fixed, >= 1):
/// `window_transpose_out` of each end; an unbounded end stays unbounded.
[[nodiscard]] constexpr Dim window_transpose_out(const Dim& in, std::int64_t k, const WindowAxis& w,
                                                 std::int64_t output_padding) {
  return Dim::interval(window_transpose_out(in.lo(), k, w, output_padding),
                       window_transpose_out(in.hi(), k, w, output_padding));
}

/// A transposed convolution's pads on one axis whose output extent `out` is given
/// (output_shape, or x * stride under SAME_*).
struct TransposePads {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t extra = 0;  ///< output positions past the full extent (a negative total)
  friend constexpr bool operator==(const TransposePads&, const TransposePads&) = default;
};

/// The pads of one axis of a transposed convolution (input extent x, kernel k, stride and
/// dilation of `w`, its pads ignored) for the output extent `out`, as ONNX defines them:
/// `total = stride * (x - 1) + output_padding + span - out`, split with the odd one at the
/// end under SAME_UPPER (`upper`) and at the beginning otherwise (SAME_LOWER, and pads
/// from output_shape). A negative total (the output is longer than the full transposed
/// extent) pads nothing: the `-total` positions past it come at the end (`extra`, more
/// output padding), taps reach none of them and they hold the bias alone, as in
/// onnxruntime. The 2-D and N-D kernels both take their pads from here.
[[nodiscard]] constexpr TransposePads transpose_pads(std::int64_t x, std::int64_t k, const WindowAxis& w,
                                                     std::int64_t output_padding, std::int64_t out, bool upper) {
  const WindowAxis full{.stride = w.stride, .dilation = w.dilation};
  const std::int64_t total = window_transpose_out(x, k, full, output_padding) - out;
  if (total < 0) return {.extra = -total};
  const std::int64_t begin = upper ? total / 2 : total - total / 2;
  return {.begin = begin, .end = total - begin};
}

}  // namespace ge
