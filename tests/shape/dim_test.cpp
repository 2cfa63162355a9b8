// Tests of ge/shape/dim.hpp: construction, text form, and the dim algebra.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "support/expect_error.hpp"
#include "ge/shape/dim.hpp"
#include "ge/shape/shape.hpp"

using ge::Dim;
using ge::Errc;
using ge::test::expect_error;

TEST_CASE("dim construction") {
  const Dim fixed(5);
  CHECK(fixed.kind() == Dim::Kind::fixed);
  CHECK(fixed.is_static());
  CHECK(fixed.value() == 5);
  CHECK(Dim(0).value() == 0);

  const Dim unknown(-1);
  CHECK(unknown.is_unknown());
  CHECK(unknown.lo() == 0);
  CHECK(unknown.hi() == Dim::inf);
  CHECK_FALSE(unknown.is_bounded());
  CHECK(unknown == Dim::unknown());
  CHECK(Dim{} == Dim::unknown());

  const Dim r = Dim::range(8, 20);
  CHECK(r.is_range());
  CHECK_FALSE(r.is_static());
  CHECK(r.contains(8));
  CHECK(r.contains(20));
  CHECK_FALSE(r.contains(21));
  CHECK(Dim::at_least(3).hi() == Dim::inf);

  CHECK(Dim::interval(4, 4).kind() == Dim::Kind::fixed);
  CHECK(Dim::interval(0, Dim::inf).is_unknown());
  CHECK(Dim::interval(1, 9).is_range());

  expect_error([] { (void)Dim(-2); }, Errc::bad_dim_value, "-2");
  expect_error([] { (void)Dim(-7); }, Errc::bad_dim_value, "-7");
  expect_error([] { (void)Dim::range(3, 1); }, Errc::bad_range, "3~1");
  expect_error([] { (void)Dim::range(-1, 4); }, Errc::bad_range, "-1~4");
  expect_error([] { (void)Dim::range(1, 9).value(); }, Errc::not_static, "1~9");
}

TEST_CASE("dims are usable at compile time") {
  constexpr Dim d(3);
  static_assert(d.value() == 3);
  constexpr Dim r = Dim::range(1, 8);
  static_assert(r.lo() == 1 && r.hi() == 8);
  static_assert(ge::compatible(d, r));
  static_assert(ge::relaxes(r, d));
  static_assert(ge::refines(d, r));
  static_assert(!ge::compatible(Dim(9), r));
}

TEST_CASE("dim equality compares values, same_spelling compares text too") {
  CHECK(Dim::range(5, 5) == Dim(5));
  CHECK_FALSE(Dim::range(5, 5).same_spelling(Dim(5)));
  CHECK(Dim::range(0, Dim::inf) == Dim(-1));
  CHECK(Dim(3) != Dim(4));
  CHECK(Dim::range(1, 3) != Dim::range(1, 4));
}

TEST_CASE("dim text round trip is exact") {
  for (const char* text : {"0", "5", "9223372036854775806", "-1", "8~20", "5~5", "0~0", "8~inf",
                           "0~inf", "0~9223372036854775806"}) {
    CAPTURE(text);
    CHECK(Dim::parse(text).to_string() == text);
  }
  CHECK(Dim::parse("8~inf") == Dim::at_least(8));
  CHECK(Dim::parse("0~inf") == Dim::unknown());
  CHECK(Dim::parse("0~inf").is_range());
}

TEST_CASE("dim text: blanks around tokens are ignored, blanks inside numbers are not") {
  CHECK(Dim::parse(" 5 ") == Dim(5));
  CHECK(Dim::parse("\t8 ~ 20 ").same_spelling(Dim::range(8, 20)));
  CHECK(Dim::parse(" -1").is_unknown());
  expect_error([] { (void)Dim::parse("1 2"); }, Errc::bad_dim_text, "'1 2'", "position 2", "blank inside a number");
  expect_error([] { (void)Dim::parse("8~2 0"); }, Errc::bad_dim_text, "position 4");
}

TEST_CASE("dim text: bad text names the text and the position") {
  expect_error([] { (void)Dim::parse("3~1"); }, Errc::bad_range, "'3~1'", "position 1", "above");
  expect_error([] { (void)Dim::parse("-3"); }, Errc::bad_dim_value, "'-3'", "negative");
  expect_error([] { (void)Dim::parse("-2"); }, Errc::bad_dim_value, "unknown rank");
  expect_error([] { (void)Dim::parse("1~"); }, Errc::bad_range, "'1~'", "position 2", "high end is missing");
  expect_error([] { (void)Dim::parse("~4"); }, Errc::bad_range, "low end is missing");
  expect_error([] { (void)Dim::parse("2~-1"); }, Errc::bad_range, "'2~-1'", "position 3", "negative");
  expect_error([] { (void)Dim::parse("-1~4"); }, Errc::bad_range, "low end is negative");
  expect_error([] { (void)Dim::parse("1~2~3"); }, Errc::bad_range, "second '~'");
  expect_error([] { (void)Dim::parse("a"); }, Errc::bad_dim_text, "'a'");
  expect_error([] { (void)Dim::parse("3a"); }, Errc::bad_dim_text, "position 2", "unexpected 'a'");
  expect_error([] { (void)Dim::parse("+3"); }, Errc::bad_dim_text, "'+3'");
  expect_error([] { (void)Dim::parse("1.5"); }, Errc::bad_dim_text, "unexpected '.'");
  expect_error([] { (void)Dim::parse("-"); }, Errc::bad_dim_text, "'-'");
  expect_error([] { (void)Dim::parse("-x"); }, Errc::bad_dim_text, "'-x'");
  expect_error([] { (void)Dim::parse(""); }, Errc::bad_dim_text, "empty");
  expect_error([] { (void)Dim::parse("   "); }, Errc::bad_dim_text, "empty");
  expect_error([] { (void)Dim::parse("1~inff"); }, Errc::bad_dim_text, "unexpected 'i'");
  expect_error([] { (void)Dim::parse("9223372036854775808"); }, Errc::int_overflow, "beyond int64");
  expect_error([] { (void)Dim::parse("1~99999999999999999999"); }, Errc::int_overflow, "99999999999999999999");
  // int64's largest value is Dim::inf: written out, it is refused as a fixed dim or a range end.
  expect_error([] { (void)Dim::parse("9223372036854775807"); }, Errc::int_overflow, "largest value", "-1 or lo~inf");
  expect_error([] { (void)Dim::parse("1~9223372036854775807"); }, Errc::int_overflow, "write 'inf'");
  expect_error([] { (void)ge::Shape::parse("2,9223372036854775807"); }, Errc::int_overflow, "largest value");
  CHECK(Dim::parse("1~inf") == Dim::range(1, Dim::inf));
}

TEST_CASE("dim compatible, relaxes, refines") {
  const Dim r = Dim::range(2, 8);
  CHECK(ge::compatible(r, Dim(2)));
  CHECK(ge::compatible(r, Dim(8)));
  CHECK_FALSE(ge::compatible(r, Dim(9)));
  CHECK(ge::compatible(r, Dim::range(8, 10)));
  CHECK_FALSE(ge::compatible(r, Dim::range(9, 10)));
  CHECK(ge::compatible(Dim(-1), Dim(0)));

  CHECK(ge::relaxes(Dim(-1), r));
  CHECK(ge::relaxes(r, Dim::range(3, 4)));
  CHECK_FALSE(ge::relaxes(r, Dim::range(3, 9)));
  CHECK(ge::relaxes(Dim(4), Dim(4)));
  CHECK(ge::refines(Dim(4), r));
  CHECK_FALSE(ge::refines(Dim(-1), r));
  CHECK(ge::refines(Dim::at_least(3), Dim(-1)));
}

TEST_CASE("dim merge is the intersection") {
  CHECK(ge::merge(Dim(-1), Dim(3)).same_spelling(Dim(3)));
  CHECK(ge::merge(Dim::range(2, 8), Dim::range(4, 16)).same_spelling(Dim::range(4, 8)));
  CHECK(ge::merge(Dim::range(2, 8), Dim::range(8, 16)).same_spelling(Dim(8)));
  CHECK(ge::merge(Dim::at_least(2), Dim::range(0, 5)).same_spelling(Dim::range(2, 5)));
  CHECK(ge::merge(Dim(-1), Dim(-1)).is_unknown());
  CHECK(ge::merge(Dim(3), Dim(3)) == Dim(3));
  expect_error([] { (void)ge::merge(Dim(3), Dim(4)); }, Errc::incompatible_dims, "'3'", "'4'");
  expect_error([] { (void)ge::merge(Dim::range(1, 2), Dim::range(3, 4)); }, Errc::incompatible_dims, "'1~2'", "'3~4'");
}

TEST_CASE("dim broadcast follows numpy over sets") {
  struct Case {
    Dim a, b, want;
  };
  const Case cases[] = {
      {Dim(1), Dim(5), Dim(5)},
      {Dim(5), Dim(1), Dim(5)},
      {Dim(3), Dim(3), Dim(3)},
      {Dim(1), Dim(1), Dim(1)},
      {Dim(1), Dim(-1), Dim(-1)},
      {Dim(1), Dim(0), Dim(0)},
      {Dim::range(2, 8), Dim::range(4, 16), Dim::range(4, 8)},
      {Dim(-1), Dim(5), Dim(5)},
      {Dim(5), Dim(-1), Dim(5)},
      {Dim::range(1, 4), Dim::range(0, 2), Dim::range(0, 4)},
      {Dim(-1), Dim(-1), Dim(-1)},
      {Dim::range(0, 2), Dim(7), Dim(7)},
      {Dim::range(2, 9), Dim::range(0, 1), Dim::range(2, 9)},
      {Dim::range(1, 3), Dim::at_least(5), Dim::at_least(5)},
  };
  for (const auto& c : cases) {
    CAPTURE(c.a.to_string());
    CAPTURE(c.b.to_string());
    CHECK(ge::broadcast(c.a, c.b) == c.want);
  }
  expect_error([] { (void)ge::broadcast(Dim(3), Dim(4)); }, Errc::incompatible_dims, "broadcast", "'3'", "'4'");
  expect_error([] { (void)ge::broadcast(Dim(0), Dim(4)); }, Errc::incompatible_dims, "'0'");
  expect_error([] { (void)ge::broadcast(Dim::range(2, 3), Dim::range(4, 9)); }, Errc::incompatible_dims, "'2~3'",
               "'4~9'");
}

TEST_CASE("dim product: intervals, unbounded stays unbounded, finite overflow is int_overflow") {
  CHECK((Dim(3) * Dim(4)) == Dim(12));
  CHECK((Dim::range(1, 8) * Dim(3)) == Dim::range(3, 24));
  CHECK((Dim(-1) * Dim(3)).hi() == Dim::inf);
  CHECK((Dim(0) * Dim(-1)) == Dim(0));
  expect_error([] { (void)(Dim(Dim::inf - 1) * Dim(2)); }, Errc::int_overflow, "overflows int64", "x 2");
  expect_error([] { (void)(Dim::range(1, std::int64_t{1} << 40) * Dim::range(1, std::int64_t{1} << 40)); },
               Errc::int_overflow, "1~1099511627776");
  CHECK((Dim::range(1, std::int64_t{1} << 40) * Dim(-1)).hi() == Dim::inf);
}

TEST_CASE("dim minus, div_floor, div_ceil, scale_floor: each value mapped, unbounded stays unbounded") {
  static_assert(ge::div_floor(Dim::range(3, 9), 2) == Dim::range(1, 4));
  CHECK(ge::minus(Dim(7), 3) == Dim(4));
  CHECK(ge::minus(Dim::range(2, 9), 3) == Dim::range(0, 6));  // values below 3 have no extent: clamped
  CHECK(ge::minus(Dim::at_least(5), 2) == Dim::at_least(3));
  CHECK(ge::minus(Dim(), 2) == Dim());
  CHECK(ge::div_floor(Dim(7), 2) == Dim(3));
  CHECK(ge::div_floor(Dim::at_least(9), 4) == Dim::at_least(2));
  CHECK(ge::div_ceil(Dim(7), 2) == Dim(4));
  CHECK(ge::div_ceil(Dim::range(1, 10), 3) == Dim::range(1, 4));
  CHECK(ge::div_ceil(Dim(), 3) == Dim());
  CHECK(ge::div_ceil(Dim(Dim::inf - 1), 2) == Dim(Dim::inf / 2));
  CHECK(ge::scale_floor(Dim::range(10, 21), 1.5) == Dim::range(15, 31));
  CHECK(ge::scale_floor(Dim::at_least(3), 0.5) == Dim::at_least(1));
  CHECK(ge::scale_floor(Dim(5), 0.1) == Dim(0));
  // Each against the values one by one.
  for (std::int64_t lo = 0; lo <= 12; ++lo)
    for (std::int64_t hi = lo; hi <= 12; ++hi)
      for (std::int64_t k = 1; k <= 4; ++k) {
        const Dim d = Dim::interval(lo, hi);
        CHECK(ge::div_floor(d, k) == Dim::interval(lo / k, hi / k));
        CHECK(ge::div_ceil(d, k) == Dim::interval((lo + k - 1) / k, (hi + k - 1) / k));
        CHECK(ge::minus(d, k) == Dim::interval(std::max<std::int64_t>(lo - k, 0), std::max<std::int64_t>(hi - k, 0)));
      }
}

TEST_CASE("dim overflow: one rule for the algebra, its end helpers and scale_floor") {
  // The end helpers under `*` and `+` (and the window rule): inf stays inf, 0 * inf is 0.
  std::int64_t r = 0;
  CHECK(ge::detail::add_ends(Dim::inf, 5, r));
  CHECK(r == Dim::inf);
  CHECK(ge::detail::mul_ends(0, Dim::inf, r));
  CHECK(r == 0);
  CHECK_FALSE(ge::detail::add_ends(Dim::inf - 1, 1, r));  // lands on inf: it would read as unbounded
  CHECK_FALSE(ge::detail::mul_ends(std::int64_t{1} << 32, std::int64_t{1} << 31, r));
  expect_error([] { (void)ge::detail::mul_ends(std::int64_t{1} << 32, std::int64_t{1} << 31); }, Errc::int_overflow,
               "4294967296 x 2147483648", "overflows int64");
  expect_error([] { (void)ge::scale_floor(Dim(std::int64_t{1} << 62), 2.0); }, Errc::int_overflow, "scaled by",
               "overflows int64");
  CHECK(ge::scale_floor(Dim::at_least(std::int64_t{1} << 62), 1.5) == Dim::at_least(std::int64_t{3} << 61));
}
