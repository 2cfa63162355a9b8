#include <string>

#include "ge/shape/detail/parse.hpp"

namespace ge::detail {

namespace {
bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

void trim(std::string_view text, std::size_t& begin, std::size_t& end) noexcept {
  while (begin < end && is_blank(text[begin])) ++begin;
  while (end > begin && is_blank(text[end - 1])) --end;
}

std::string quote_at(std::string_view text, std::size_t pos) {
  return "'" + std::string(text) + "' at position " + std::to_string(pos + 1);
}

std::int64_t parse_uint(std::string_view text, std::size_t begin, std::size_t end,
                        std::string_view what, std::string_view area, Errc bad_text) {
  const std::string prefix = "[" + std::string(area) + "] bad " + std::string(what) + " in ";
  if (begin == end)
    raise(bad_text, prefix + quote_at(text, begin) + ": it is empty; expected a number");
  std::int64_t value = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (!is_digit(c)) {
      const std::string why = is_blank(c) ? "a blank inside a number"
                                          : "unexpected '" + std::string(1, c) + "'";
      raise(bad_text, prefix + quote_at(text, i) + ": " + why + "; expected a number");
    }
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, c - '0', &value))
      raise(Errc::int_overflow, prefix + quote_at(text, begin) + ": '" +
                                    std::string(text.substr(begin, end - begin)) +
                                    "' is beyond int64 (9223372036854775807)");
  }
  return value;
}

Dim parse_dim(std::string_view text, std::size_t begin, std::size_t end) {
  trim(text, begin, end);
  const std::string_view tok = text.substr(begin, end - begin);
  if (tok.empty())
    raise(Errc::bad_dim_text, "[ge.shape] bad dim in " + quote_at(text, begin) +
                                  ": it is empty; expected a number, -1 or lo~hi");
  const auto tilde = tok.find('~');
  if (tilde == std::string_view::npos) {
    if (tok[0] == '-') {
      if (tok.size() >= 2 && tok.find_first_not_of("0123456789", 1) == std::string_view::npos) {
        if (tok == "-1") return Dim::unknown();
        raise(Errc::bad_dim_value, "[ge.shape] bad dim in " + quote_at(text, begin) + ": '" +
                                       std::string(tok) +
                                       (tok == "-2" ? "' (unknown rank) must be the whole shape"
                                                    : "' is negative") +
                                       "; expected a value >= 0, -1 or lo~hi");
      }
      raise(Errc::bad_dim_text, "[ge.shape] bad dim in " + quote_at(text, begin) + ": '" +
                                    std::string(tok) + "'; expected a number, -1 or lo~hi");
    }
    if (!is_digit(tok[0]))
      raise(Errc::bad_dim_text, "[ge.shape] bad dim in " + quote_at(text, begin) + ": '" +
                                    std::string(tok) + "'; expected a number, -1 or lo~hi");
    const std::int64_t value = parse_uint(text, begin, end, "dim");
    if (value == Dim::inf)
      raise(Errc::int_overflow, "[ge.shape] bad dim in " + quote_at(text, begin) + ": '" + std::string(tok) +
                                    "' is int64's largest value, which ge reads as unbounded; a fixed dim must be below it "
                                    "(write -1 or lo~inf for an unbounded dim)");
    return Dim(value);
  }
  // lo~hi
  std::size_t lo_b = begin, lo_e = begin + tilde, hi_b = begin + tilde + 1, hi_e = end;
  trim(text, lo_b, lo_e);
  trim(text, hi_b, hi_e);
  const auto range_error = [&](std::size_t pos, const std::string& why) {
    raise(Errc::bad_range, "[ge.shape] bad range in " + quote_at(text, pos) + ": " + why +
                               "; expected lo~hi with 0 <= lo <= hi (hi may be inf)");
  };
  if (lo_b == lo_e) range_error(begin + tilde, "the low end is missing");
  if (hi_b == hi_e) range_error(begin + tilde, "the high end is missing");
  if (text.substr(hi_b, hi_e - hi_b).find('~') != std::string_view::npos)
    range_error(hi_b + text.substr(hi_b, hi_e - hi_b).find('~'), "a second '~'");
  if (text[lo_b] == '-') range_error(lo_b, "the low end is negative");
  if (text[hi_b] == '-') range_error(hi_b, "the high end is negative");
  const std::int64_t lo = parse_uint(text, lo_b, lo_e, "range");
  const std::string_view hi_tok = text.substr(hi_b, hi_e - hi_b);
  const std::int64_t hi = hi_tok == "inf" ? Dim::inf : parse_uint(text, hi_b, hi_e, "range");
  if (hi_tok != "inf" && hi == Dim::inf)
    raise(Errc::int_overflow, "[ge.shape] bad range in " + quote_at(text, hi_b) + ": the high end '" +
                                  std::string(hi_tok) + "' is int64's largest value, which ge reads as unbounded; "
                                  "write 'inf' for an unbounded range");
  if (lo > hi)
    range_error(lo_b, "the low end " + std::to_string(lo) + " is above the high end " +
                          std::to_string(hi));
  return Dim::range(lo, hi);
}

}  // namespace ge::detail
