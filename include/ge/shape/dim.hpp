#pragma once
/// \file
/// `ge::Dim`: one dimension of a runtime shape: a fixed value, a range, or unknown.
///
/// A dim is the set of values a tensor's extent may take, always an interval
/// `[lo, hi]` with `0 <= lo <= hi`, where `hi` may be `Dim::inf` (unbounded).
/// It also remembers how it was written, so that the text round trip is exact:
///
/// | text      | kind    | lo | hi   | notes                                  |
/// |-----------|---------|----|------|----------------------------------------|
/// | `5`       | fixed   | 5  | 5    |                                        |
/// | `8~20`    | range   | 8  | 20   | `5~5` stays `5~5` in text, == `5`      |
/// | `8~inf`   | range   | 8  | inf  | unbounded above                        |
/// | `-1`      | unknown | 0  | inf  | any value >= 0                         |
///
/// Equality (`==`) compares the sets of values, not the spelling: `5~5 == 5` and
/// `0~inf == -1`. `same_spelling()` compares the spelling too.
///
/// Rules of the algebra (each a constexpr free function below, so that the typed face,
/// `ge/shape/typed_dim.hpp`, runs the very same code at compile time; `a`, `b` dims):
/// - `compatible(a, b)`: some value lies in both (the intervals meet).
/// - `merge(a, b)`: the intersection; throws `Errc::incompatible_dims` if empty.
/// - `relaxes(a, b)`: every value of `b` is a value of `a` (a ⊇ b).
/// - `refines(a, b)`: every value of `a` is a value of `b` (a ⊆ b).
/// - `hull(a, b)`: the smallest interval holding both.
/// - `a * b`, `a + b`: interval product and sum.
/// - `minus(a, k)`, `div_floor(a, k)`, `div_ceil(a, k)`, `scale_floor(a, s)`: the image of
///   `a` under `v - k` (clamped at 0), `floor(v / k)`, `ceil(v / k)`, `floor(v * s)`.
///
/// Overflow, one rule for the whole algebra (`ge/shape/window.hpp` follows it too): an
/// unbounded end stays unbounded; finite ends whose result leaves int64 (or lands on
/// `Dim::inf`, which would read as unbounded) throw `Errc::int_overflow`. A result is
/// never a wrong finite number, and never silently unbounded.
/// - `broadcast(a, b)`: numpy's rule (1 stretches to the other; else equal), over sets:
///
/// | a       | b       | broadcast | why                                    |
/// |---------|---------|-----------|----------------------------------------|
/// | `1`     | `b`     | `b`       | 1 stretches                            |
/// | `3`     | `3`     | `3`       | equal                                  |
/// | `3`     | `4`     | error     | neither is 1                           |
/// | `2~8`   | `4~16`  | `4~8`     | no 1 in either: they must be equal     |
/// | `-1`    | `5`     | `5`       | -1 is 1 (gives 5) or 5                 |
/// | `1~4`   | `0~2`   | `0~4`     | both may be 1: the hull                |
/// | `-1`    | `-1`    | `-1`      |                                        |

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "ge/core/api.hpp"
#include "ge/core/error.hpp"

namespace ge {

/// One dimension: fixed, ranged or unknown. See the file comment for the rules.
class GE_API Dim {
 public:
  /// The value of an unbounded upper end.
  static constexpr std::int64_t inf = std::numeric_limits<std::int64_t>::max();

  /// How the dim was written.
  enum class Kind : std::uint8_t { fixed, range, unknown };

  /// Unknown (`-1`): any value >= 0.
  constexpr Dim() noexcept = default;

  /// A fixed value; `-1` makes an unknown dim (the option text convention).
  /// Throws `Errc::bad_dim_value` for other negatives.
  constexpr Dim(std::int64_t value) {  // NOLINT(google-explicit-constructor): dims read as numbers
    if (value == -1) return;
    if (value < 0) bad_value(value);
    kind_ = Kind::fixed;
    lo_ = hi_ = value;
  }

  /// The range `lo~hi` (`hi` may be `inf`). Throws `Errc::bad_range` unless 0 <= lo <= hi.
  [[nodiscard]] static constexpr Dim range(std::int64_t lo, std::int64_t hi) {
    if (lo < 0 || hi < lo) bad_range_values(lo, hi);
    Dim d;
    d.kind_ = Kind::range;
    d.lo_ = lo;
    d.hi_ = hi;
    return d;
  }
  /// `lo~inf`.
  [[nodiscard]] static constexpr Dim at_least(std::int64_t lo) { return range(lo, inf); }
  /// `-1`.
  [[nodiscard]] static constexpr Dim unknown() noexcept { return Dim{}; }
  /// The canonical dim for the interval [lo, hi]: fixed if lo == hi, unknown if it is
  /// [0, inf], a range otherwise.
  [[nodiscard]] static constexpr Dim interval(std::int64_t lo, std::int64_t hi) {
    if (lo == hi) return Dim(lo);
    if (lo == 0 && hi == inf) return Dim{};
    return range(lo, hi);
  }

  /// Parses one dim: `5`, `8~20`, `8~inf`, `-1`. Blanks around the text and around `~`
  /// are ignored; anything else throws (`bad_dim_text`, `bad_dim_value`, `bad_range`,
  /// `int_overflow`) with the text and the position in the message.
  [[nodiscard]] static Dim parse(std::string_view text);

  [[nodiscard]] constexpr Kind kind() const noexcept { return kind_; }
  [[nodiscard]] constexpr std::int64_t lo() const noexcept { return lo_; }
  [[nodiscard]] constexpr std::int64_t hi() const noexcept { return hi_; }
  /// True when the dim has exactly one value (`5`, or `5~5`).
  [[nodiscard]] constexpr bool is_static() const noexcept { return lo_ == hi_; }
  /// True when the upper end is finite.
  [[nodiscard]] constexpr bool is_bounded() const noexcept { return hi_ != inf; }
  /// True when written as `-1`.
  [[nodiscard]] constexpr bool is_unknown() const noexcept { return kind_ == Kind::unknown; }
  /// True when written as `lo~hi`.
  [[nodiscard]] constexpr bool is_range() const noexcept { return kind_ == Kind::range; }
  /// True when `v` is one of the dim's values.
  [[nodiscard]] constexpr bool contains(std::int64_t v) const noexcept { return lo_ <= v && v <= hi_; }
  /// The value of a static dim. Throws `Errc::not_static` otherwise.
  [[nodiscard]] constexpr std::int64_t value() const {
    if (!is_static()) not_static(*this);
    return lo_;
  }

  /// The text form: `5`, `8~20`, `8~inf`, `-1`.
  [[nodiscard]] std::string to_string() const;

  /// Same set of values.
  friend constexpr bool operator==(const Dim& a, const Dim& b) noexcept {
    return a.lo_ == b.lo_ && a.hi_ == b.hi_;
  }
  /// Same set of values and the same spelling.
  [[nodiscard]] constexpr bool same_spelling(const Dim& b) const noexcept {
    return *this == b && kind_ == b.kind_;
  }

 private:
  [[noreturn]] static void bad_value(std::int64_t value);
  [[noreturn]] static void bad_range_values(std::int64_t lo, std::int64_t hi);
  [[noreturn]] static void not_static(const Dim& d);

  Kind kind_ = Kind::unknown;
  std::int64_t lo_ = 0;
  std::int64_t hi_ = inf;
};

/// Some value lies in both.
[[nodiscard]] constexpr bool compatible(const Dim& a, const Dim& b) noexcept {
  return a.lo() <= b.hi() && b.lo() <= a.hi();
}
/// a ⊇ b: `a` allows every value `b` allows.
[[nodiscard]] constexpr bool relaxes(const Dim& a, const Dim& b) noexcept {
  return a.lo() <= b.lo() && b.hi() <= a.hi();
}
/// a ⊆ b: `a` allows only values `b` allows.
[[nodiscard]] constexpr bool refines(const Dim& a, const Dim& b) noexcept { return relaxes(b, a); }
/// `broadcast(a, b)` does not throw: one side may be 1, or the two have a value in common.
[[nodiscard]] constexpr bool broadcastable(const Dim& a, const Dim& b) noexcept {
  return a.contains(1) || b.contains(1) || compatible(a, b);
}

namespace detail {
/// The dim for [lo, hi]: `a` or `b` when one of them already is it (its spelling kept),
/// else the canonical one.
constexpr Dim pick(const Dim& a, const Dim& b, std::int64_t lo, std::int64_t hi) {
  if (a.lo() == lo && a.hi() == hi) return a;
  if (b.lo() == lo && b.hi() == hi) return b;
  return Dim::interval(lo, hi);
}
constexpr std::int64_t min(std::int64_t a, std::int64_t b) noexcept { return a < b ? a : b; }
constexpr std::int64_t max(std::int64_t a, std::int64_t b) noexcept { return a < b ? b : a; }
/// Throws `Errc::incompatible_dims`: `what` ("merge", "broadcast") of a and b is empty.
/// Not constexpr: reached in a constant expression, it is the compile error.
[[noreturn]] GE_API void no_common_value(const char* what, const Dim& a, const Dim& b);
/// Throws `Errc::int_overflow`: finite ends of a and b combine (`op` '*' or '+') past
/// int64. Not constexpr: in a constant expression, the name is the compile error.
[[noreturn]] GE_API void dim_overflows_int64(char op, const Dim& a, const Dim& b, std::int64_t x, std::int64_t y);
/// The same for a dim scaled by s (`scale_floor`).
[[noreturn]] GE_API void dim_scale_overflows_int64(const Dim& a, double s);
/// The same for two extents x and y (`op` '*' or '+'), where there are no dims to quote.
[[noreturn]] GE_API void ends_overflow_int64(char op, std::int64_t x, std::int64_t y);
/// The sum of two interval ends into `r` under the overflow rule (file comment): an
/// unbounded end gives `Dim::inf`; false when finite ends leave int64 or land on `Dim::inf`.
constexpr bool add_ends(std::int64_t x, std::int64_t y, std::int64_t& r) noexcept {
  if (x == Dim::inf || y == Dim::inf) {
    r = Dim::inf;
    return true;
  }
  return !__builtin_add_overflow(x, y, &r) && r != Dim::inf;
}
/// The product likewise; a zero end gives 0, even against an unbounded one.
constexpr bool mul_ends(std::int64_t x, std::int64_t y, std::int64_t& r) noexcept {
  if (x == 0 || y == 0) {
    r = 0;
    return true;
  }
  if (x == Dim::inf || y == Dim::inf) {
    r = Dim::inf;
    return true;
  }
  return !__builtin_mul_overflow(x, y, &r) && r != Dim::inf;
}
/// x + y under the overflow rule, throwing `Errc::int_overflow` where it breaks.
constexpr std::int64_t add_ends(std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (!add_ends(x, y, r)) ends_overflow_int64('+', x, y);
  return r;
}
/// x * y likewise.
constexpr std::int64_t mul_ends(std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (!mul_ends(x, y, r)) ends_overflow_int64('*', x, y);
  return r;
}
}  // namespace detail

/// The intersection. Throws `Errc::incompatible_dims` naming both when it is empty.
/// When one side already is the intersection, it is returned with its spelling.
[[nodiscard]] constexpr Dim merge(const Dim& a, const Dim& b) {
  if (!compatible(a, b)) detail::no_common_value("merge", a, b);
  return detail::pick(a, b, detail::max(a.lo(), b.lo()), detail::min(a.hi(), b.hi()));
}

/// Numpy broadcasting of one dim pair over sets (see the table in the file comment).
/// Throws `Errc::incompatible_dims` naming both when no value pair can broadcast.
[[nodiscard]] constexpr Dim broadcast(const Dim& a, const Dim& b) {
  const Dim one(1);
  if (a.same_spelling(one)) return b;
  if (b.same_spelling(one)) return a;
  const bool a1 = a.contains(1);
  const bool b1 = b.contains(1);
  if (a1 && b1) return detail::pick(a, b, detail::min(a.lo(), b.lo()), detail::max(a.hi(), b.hi()));
  if (a1) return b;  // a is 1 (gives b) or equals b (a subset of b)
  if (b1) return a;
  if (!compatible(a, b)) detail::no_common_value("broadcast", a, b);
  return detail::pick(a, b, detail::max(a.lo(), b.lo()), detail::min(a.hi(), b.hi()));
}

/// The hull: the smallest interval holding both (one side's spelling when it is it).
[[nodiscard]] constexpr Dim hull(const Dim& a, const Dim& b) {
  return detail::pick(a, b, detail::min(a.lo(), b.lo()), detail::max(a.hi(), b.hi()));
}

/// Interval product: an unbounded end stays unbounded; finite ends whose product does not
/// fit in int64 throw `Errc::int_overflow`, quoting both dims.
[[nodiscard]] constexpr Dim operator*(const Dim& a, const Dim& b) {
  const auto mul = [&](std::int64_t x, std::int64_t y) -> std::int64_t {
    std::int64_t r = 0;
    if (!detail::mul_ends(x, y, r)) detail::dim_overflows_int64('*', a, b, x, y);
    return r;
  };
  return Dim::interval(mul(a.lo(), b.lo()), mul(a.hi(), b.hi()));
}

/// Interval sum: an unbounded end stays unbounded; finite ends whose sum does not fit in
/// int64 throw `Errc::int_overflow`, quoting both dims.
[[nodiscard]] constexpr Dim operator+(const Dim& a, const Dim& b) {
  const auto add = [&](std::int64_t x, std::int64_t y) -> std::int64_t {
    std::int64_t r = 0;
    if (!detail::add_ends(x, y, r)) detail::dim_overflows_int64('+', a, b, x, y);
    return r;
  };
  return Dim::interval(add(a.lo(), b.lo()), add(a.hi(), b.hi()));
}

/// The values `v - k` (k >= 0) of `a`, clamped at 0: an extent `k` shorter. A value
/// below k has no extent; the caller checks that some value reaches k where it matters.
[[nodiscard]] constexpr Dim minus(const Dim& a, std::int64_t k) {
  const std::int64_t hi = a.is_bounded() ? detail::max(a.hi() - k, 0) : Dim::inf;
  return Dim::interval(detail::max(a.lo() - k, 0), hi);
}

/// `floor(v / k)` over the values of `a` (k >= 1): an unbounded end stays unbounded.
[[nodiscard]] constexpr Dim div_floor(const Dim& a, std::int64_t k) {
  return Dim::interval(a.lo() / k, a.is_bounded() ? a.hi() / k : Dim::inf);
}

/// `ceil(v / k)` over the values of `a` (k >= 1): an unbounded end stays unbounded.
[[nodiscard]] constexpr Dim div_ceil(const Dim& a, std::int64_t k) {
  const auto up = [k](std::int64_t v) { return v / k + (v % k != 0 ? 1 : 0); };
  return Dim::interval(up(a.lo()), a.is_bounded() ? up(a.hi()) : Dim::inf);
}

/// `floor(v * s)` over the values of `a` (s finite, > 0): an unbounded end stays unbounded;
/// a finite end whose product leaves int64 throws `Errc::int_overflow`.
[[nodiscard]] constexpr Dim scale_floor(const Dim& a, double s) {
  const auto f = [&](std::int64_t v) -> std::int64_t {
    if (v == Dim::inf) return Dim::inf;
    const double r = static_cast<double>(v) * s;  // >= 0: truncation is the floor
    if (!(r < 9223372036854775807.0)) detail::dim_scale_overflows_int64(a, s);
    return static_cast<std::int64_t>(r);
  };
  return Dim::interval(f(a.lo()), f(a.hi()));
}

}  // namespace ge
