#include "ge/shape/dim.hpp"

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

namespace detail {

void no_common_value(const char* what, const Dim& a, const Dim& b) {
  raise(Errc::incompatible_dims, std::string("[ge.shape] cannot ") + what + " dims '" + a.to_string() + "' and '" +
                                     b.to_string() + "': they have no value in common");
}

void dim_overflows_int64(char op, const Dim& a, const Dim& b, std::int64_t x, std::int64_t y) {
  raise(Errc::int_overflow, std::string("[ge.shape] the ") + (op == '*' ? "product" : "sum") + " of dims " +
                                a.to_string() + " and " + b.to_string() + " overflows int64 (" + std::to_string(x) +
                                " " + (op == '*' ? "x" : "+") + " " + std::to_string(y) + ")");
}

void dim_scale_overflows_int64(const Dim& a, double s) {
  raise(Errc::int_overflow, "[ge.shape] dim " + a.to_string() + " scaled by " + std::to_string(s) + " overflows int64");
}

void ends_overflow_int64(char op, std::int64_t x, std::int64_t y) {
  raise(Errc::int_overflow, std::string("[ge.shape] the extent ") + std::to_string(x) + (op == '*' ? " x " : " + ") +
                                std::to_string(y) + " overflows int64");
}

}  // namespace detail

}  // namespace ge
