#pragma once
// Private: the dim algebra of src/shape/dim.cpp as constexpr functions on `ge::Dim`, so
// that the typed face (typed_dim.hpp) evaluates the very same rules at compile time.
// `ge::merge`, `ge::broadcast` and `ge::operator*` are compiled out of line, so the
// compiler cannot run them; these mirror them step for step, spelling included, and
// tests/shape/typed_dim_test.cpp compares the two on every pair of a table of dims.
// Also: the window rule of a convolution over intervals, for typed_conv2d.hpp.

#include <cstdint>

#include "ge/shape/dim.hpp"

namespace ge::typed::detail {

constexpr std::int64_t min(std::int64_t a, std::int64_t b) noexcept { return a < b ? a : b; }
constexpr std::int64_t max(std::int64_t a, std::int64_t b) noexcept { return a < b ? b : a; }

/// `x * y` for x, y >= 0, saturating at `Dim::inf` (as `operator*` in dim.cpp).
constexpr std::int64_t mul_sat(std::int64_t x, std::int64_t y) noexcept {
  if (x == 0 || y == 0) return 0;
  if (x == Dim::inf || y == Dim::inf) return Dim::inf;
  std::int64_t r = 0;
  return __builtin_mul_overflow(x, y, &r) ? Dim::inf : r;
}
/// `x + y` for x, y >= 0, saturating at `Dim::inf`.
constexpr std::int64_t add_sat(std::int64_t x, std::int64_t y) noexcept {
  std::int64_t r = 0;
  return __builtin_add_overflow(x, y, &r) ? Dim::inf : r;
}

/// The dim for [lo, hi]: `a` or `b` when one of them already is it (its spelling kept),
/// else the canonical one. `pick` of dim.cpp.
constexpr Dim pick(const Dim& a, const Dim& b, std::int64_t lo, std::int64_t hi) {
  if (a.lo() == lo && a.hi() == hi) return a;
  if (b.lo() == lo && b.hi() == hi) return b;
  return Dim::interval(lo, hi);
}

/// `ge::merge(a, b)` does not throw.
constexpr bool can_merge(const Dim& a, const Dim& b) noexcept { return ge::compatible(a, b); }
/// `ge::merge(a, b)`, given `can_merge(a, b)`.
constexpr Dim merge(const Dim& a, const Dim& b) {
  return pick(a, b, max(a.lo(), b.lo()), min(a.hi(), b.hi()));
}

/// `ge::broadcast(a, b)` does not throw: one side may be 1, or the two may be equal.
constexpr bool can_broadcast(const Dim& a, const Dim& b) noexcept {
  return a.contains(1) || b.contains(1) || ge::compatible(a, b);
}
/// `ge::broadcast(a, b)`, given `can_broadcast(a, b)`.
constexpr Dim broadcast(const Dim& a, const Dim& b) {
  const Dim one(1);
  if (a.same_spelling(one)) return b;
  if (b.same_spelling(one)) return a;
  const bool a1 = a.contains(1);
  const bool b1 = b.contains(1);
  if (a1 && b1) return pick(a, b, min(a.lo(), b.lo()), max(a.hi(), b.hi()));
  if (a1) return b;
  if (b1) return a;
  return detail::merge(a, b);
}

/// Reached only when two finite dims' product leaves int64: not a constant expression,
/// so the typed product of such dims does not compile (this name in the error), as
/// `ge::Dim`'s `operator*` throws `Errc::int_overflow` at run time.
inline void dim_product_overflows_int64() {}

/// `x * y` for x, y >= 0: an unbounded factor gives `Dim::inf`; finite ones must fit.
constexpr std::int64_t mul_checked(std::int64_t x, std::int64_t y) {
  if (x == 0 || y == 0) return 0;
  if (x == Dim::inf || y == Dim::inf) return Dim::inf;
  std::int64_t r = 0;
  if (__builtin_mul_overflow(x, y, &r) || r == Dim::inf) dim_product_overflows_int64();
  return r;
}

/// `a * b`: the interval product, as `ge::Dim`'s `operator*`.
constexpr Dim mul(const Dim& a, const Dim& b) {
  return Dim::interval(mul_checked(a.lo(), b.lo()), mul_checked(a.hi(), b.hi()));
}

/// One spatial axis of a convolution: total padding, stride, dilation (all fixed).
struct Window {
  std::int64_t pad = 0;  // begin + end
  std::int64_t stride = 1;
  std::int64_t dilation = 1;
};

/// The extent `dilation * (k - 1) + 1` a kernel of size k >= 1 covers, saturating.
constexpr std::int64_t covered(std::int64_t k, const Window& w) noexcept {
  return k == Dim::inf ? Dim::inf : add_sat(mul_sat(w.dilation, k - 1), 1);
}

/// Some input size `in` and kernel size `k` (taken >= 1) fit: the padded input covers
/// the dilated kernel at least once.
constexpr bool conv_fits(const Dim& in, const Dim& k, const Window& w) noexcept {
  return add_sat(in.hi(), w.pad) >= covered(max(k.lo(), 1), w);
}

/// The output sizes `(in + pad - covered(k)) / stride + 1` over every pair of `in` and
/// `k` that fit, as the smallest interval holding them; given `conv_fits(in, k, w)`.
/// For one kernel the output grows with the input, so: the largest output comes from
/// the largest input and the smallest kernel; the smallest is 1 when some kernel fits
/// a larger input but not the smallest one (the first input it fits gives 1), else it
/// comes from the smallest input and the largest kernel.
constexpr Dim conv_out(const Dim& in, const Dim& k, const Window& w) {
  const std::int64_t k_lo = max(k.lo(), 1);
  const std::int64_t k_hi = max(k.hi(), 1);
  const std::int64_t top = add_sat(in.hi(), w.pad);
  const std::int64_t bottom = add_sat(in.lo(), w.pad);
  const std::int64_t hi = top == Dim::inf ? Dim::inf : (top - covered(k_lo, w)) / w.stride + 1;
  if (bottom == Dim::inf) return Dim::interval(hi, hi);
  // The largest kernel the smallest input fits (0: none), and the next one.
  const std::int64_t k_fit = bottom >= 1 ? min(k_hi, (bottom - 1) / w.dilation + 1) : 0;
  const std::int64_t next = max(k_fit + 1, k_lo);
  const bool next_fits = next <= k_hi && covered(next, w) <= top;
  const std::int64_t lo = next_fits ? 1 : (bottom - covered(k_fit, w)) / w.stride + 1;
  return Dim::interval(lo, hi);
}

}  // namespace ge::typed::detail
