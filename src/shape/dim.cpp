#include "ge/shape/dim.hpp"

#include <algorithm>

#include "ge/core/error.hpp"
#include "ge/shape/detail/parse.hpp"

namespace ge {

void Dim::bad_value(std::int64_t value) {
  raise(Errc::bad_dim_value, "[ge.shape] bad dim: '" + std::to_string(value) +
                                 "'; expected a value >= 0, or -1 for unknown");
}

void Dim::bad_range_values(std::int64_t lo, std::int64_t hi) {
  const std::string text =
      std::to_string(lo) + "~" + (hi == inf ? std::string("inf") : std::to_string(hi));
  raise(Errc::bad_range, "[ge.shape] bad range: '" + text + "'; expected lo~hi with 0 <= lo <= hi");
}

void Dim::not_static(const Dim& d) {
  raise(Errc::not_static,
        "[ge.shape] dim '" + d.to_string() + "' has no single value; expected a fixed dim");
}

Dim Dim::parse(std::string_view text) { return detail::parse_dim(text, 0, text.size()); }

std::string Dim::to_string() const {
  switch (kind_) {
    case Kind::unknown: return "-1";
    case Kind::fixed: return std::to_string(lo_);
    case Kind::range:
      return std::to_string(lo_) + "~" + (hi_ == inf ? std::string("inf") : std::to_string(hi_));
  }
  return "-1";
}

namespace {
// Keeps the spelling of an input that already is the result.
Dim pick(const Dim& a, const Dim& b, std::int64_t lo, std::int64_t hi) {
  if (a.lo() == lo && a.hi() == hi) return a;
  if (b.lo() == lo && b.hi() == hi) return b;
  return Dim::interval(lo, hi);
}

[[noreturn]] void incompatible(const char* what, const Dim& a, const Dim& b) {
  raise(Errc::incompatible_dims, std::string("[ge.shape] cannot ") + what + " dims '" +
                                     a.to_string() + "' and '" + b.to_string() +
                                     "': they have no value in common");
}
}  // namespace

Dim merge(const Dim& a, const Dim& b) {
  if (!compatible(a, b)) incompatible("merge", a, b);
  return pick(a, b, std::max(a.lo(), b.lo()), std::min(a.hi(), b.hi()));
}

Dim broadcast(const Dim& a, const Dim& b) {
  const Dim one(1);
  if (a.same_spelling(one)) return b;
  if (b.same_spelling(one)) return a;
  const bool a1 = a.contains(1);
  const bool b1 = b.contains(1);
  if (a1 && b1) return pick(a, b, std::min(a.lo(), b.lo()), std::max(a.hi(), b.hi()));
  if (a1) return b;  // a is 1 (gives b) or equals b (a subset of b)
  if (b1) return a;
  if (!compatible(a, b)) incompatible("broadcast", a, b);
  return pick(a, b, std::max(a.lo(), b.lo()), std::min(a.hi(), b.hi()));
}

Dim operator*(const Dim& a, const Dim& b) {
  // An unbounded end stays unbounded; two finite ends whose product leaves int64 are an
  // error, not "unbounded": such a tensor cannot exist.
  const auto mul = [&](std::int64_t x, std::int64_t y) -> std::int64_t {
    if (x == 0 || y == 0) return 0;
    if (x == Dim::inf || y == Dim::inf) return Dim::inf;
    std::int64_t r = 0;
    if (__builtin_mul_overflow(x, y, &r) || r == Dim::inf)
      raise(Errc::int_overflow, "[ge.shape] the product of dims " + a.to_string() + " and " + b.to_string() +
                                    " overflows int64 (" + std::to_string(x) + " x " + std::to_string(y) + ")");
    return r;
  };
  return Dim::interval(mul(a.lo(), b.lo()), mul(a.hi(), b.hi()));
}

}  // namespace ge
