// Tests of ge/shape/shape.hpp: text form, accessors and the shape algebra.
#include <doctest/doctest.h>

#include <string>

#include "support/expect_error.hpp"
#include "ge/shape/shape.hpp"

using ge::DataType;
using ge::Dim;
using ge::Errc;
using ge::Shape;
using ge::test::expect_error;

namespace {
Shape S(const char* text) { return Shape::parse(text); }
}  // namespace

TEST_CASE("shape text round trip is exact") {
  for (const char* text : {"8~20,3,5,-1", "-2", "", "1", "0", "1,3,224,224", "1~10,32,208,208",
                           "16,64,100~208,100~208", "-1,-1", "5~5,8~inf", "0,0"}) {
    CAPTURE(text);
    CHECK(Shape::parse(text).to_string() == text);
  }
}

TEST_CASE("shape text: kinds") {
  CHECK(S("").is_scalar());
  CHECK(S("").rank() == 0);
  CHECK(S("  ").is_scalar());
  CHECK_FALSE(S("-2").rank_known());
  CHECK(S("-2") == Shape::unknown_rank());
  CHECK(S(" -2 ") == Shape::unknown_rank());
  const Shape s = S("8~20,3,5,-1");
  CHECK(s.rank() == 4);
  CHECK(s[0].same_spelling(Dim::range(8, 20)));
  CHECK(s[1] == Dim(3));
  CHECK(s[-1].is_unknown());
  CHECK(s == Shape{Dim::range(8, 20), 3, 5, -1});
  CHECK(S("1, 3 ,224") == Shape{1, 3, 224});
}

TEST_CASE("shape text: bad text names the text and the position") {
  expect_error([] { (void)S("3~1,4"); }, Errc::bad_range, "'3~1,4'", "position 1");
  expect_error([] { (void)S("4,3~1"); }, Errc::bad_range, "'4,3~1'", "position 3");
  expect_error([] { (void)S("1,-3"); }, Errc::bad_dim_value, "position 3", "negative");
  expect_error([] { (void)S("1~"); }, Errc::bad_range, "'1~'");
  expect_error([] { (void)S("a,b"); }, Errc::bad_dim_text, "'a,b'", "position 1");
  expect_error([] { (void)S("1,b"); }, Errc::bad_dim_text, "position 3");
  expect_error([] { (void)S("2~-1"); }, Errc::bad_range, "'2~-1'");
  expect_error([] { (void)S("1,,2"); }, Errc::bad_dim_text, "position 3", "empty");
  expect_error([] { (void)S("1,2,"); }, Errc::bad_dim_text, "position 5", "empty");
  expect_error([] { (void)S(",1"); }, Errc::bad_dim_text, "position 1", "empty");
  expect_error([] { (void)S("1,-2"); }, Errc::bad_dim_value, "unknown rank", "whole shape");
  expect_error([] { (void)S("1 2,3"); }, Errc::bad_dim_text, "blank inside a number");
  expect_error([] { (void)S("1;2"); }, Errc::bad_dim_text, "unexpected ';'");
  expect_error([] { (void)S("1,99999999999999999999"); }, Errc::int_overflow, "beyond int64");
}

TEST_CASE("shape accessors") {
  Shape s{1, 3, 4};
  s.set(-1, Dim::range(1, 9));
  CHECK(s.to_string() == "1,3,1~9");
  s.push_back(7);
  CHECK(s.rank() == 4);
  CHECK(Shape{2, 3}.values() == std::vector<std::int64_t>{2, 3});
  CHECK(Shape{2, 3}.is_static());
  CHECK_FALSE(S("2,-1").is_static());
  CHECK(S("2,1~4").is_bounded());
  CHECK_FALSE(S("2,-1").is_bounded());
  CHECK_FALSE(Shape::unknown_rank().is_static());
  expect_error([&] { (void)s[4]; }, Errc::index_out_of_range, "index 4", "rank 4");
  expect_error([&] { (void)s[-5]; }, Errc::index_out_of_range, "index -5");
  expect_error([] { (void)Shape::unknown_rank().rank(); }, Errc::unknown_rank, "-2");
  expect_error([] { (void)Shape::unknown_rank()[0]; }, Errc::unknown_rank);
  expect_error([] { Shape::unknown_rank().push_back(1); }, Errc::unknown_rank);
  expect_error([] { (void)S("2,-1").values(); }, Errc::not_static, "'2,-1'");
}

TEST_CASE("shape compatible, relaxes, refines") {
  CHECK(ge::compatible(S("-1,3"), S("4,3")));
  CHECK(ge::compatible(S("-2"), S("4,3")));
  CHECK(ge::compatible(S("4,3"), S("-2")));
  CHECK_FALSE(ge::compatible(S("4,3"), S("4,3,1")));
  CHECK_FALSE(ge::compatible(S("4,3"), S("4,2")));
  CHECK(ge::compatible(S(""), S("")));
  CHECK_FALSE(ge::compatible(S(""), S("1")));

  CHECK(ge::relaxes(S("-2"), S("1,2")));
  CHECK_FALSE(ge::relaxes(S("1,2"), S("-2")));
  CHECK(ge::relaxes(S("-1,1~4"), S("7,2")));
  CHECK_FALSE(ge::relaxes(S("-1,1~4"), S("7,5")));
  CHECK_FALSE(ge::relaxes(S("-1"), S("7,5")));
  CHECK(ge::refines(S("7,2"), S("-1,1~4")));
  CHECK(ge::refines(S("1,2"), S("-2")));
}

TEST_CASE("shape merge") {
  CHECK(ge::merge(S("-1,3"), S("4,-1")) == S("4,3"));
  CHECK(ge::merge(S("1~8,3"), S("4~16,3")).to_string() == "4~8,3");
  CHECK(ge::merge(S("-2"), S("4,3")) == S("4,3"));
  CHECK(ge::merge(S("4,3"), S("-2")) == S("4,3"));
  CHECK(ge::merge(S("-2"), S("-2")) == Shape::unknown_rank());
  CHECK(ge::merge(S(""), S("")).is_scalar());
  expect_error([] { (void)ge::merge(S("4,3"), S("4,3,1")); }, Errc::rank_mismatch, "'4,3'", "'4,3,1'", "rank 2 vs 3");
  expect_error([] { (void)ge::merge(S("4,3"), S("4,2")); }, Errc::incompatible_shapes, "dim 1", "'3' vs '2'");
}

TEST_CASE("shape broadcast") {
  CHECK(ge::broadcast(S("-1,3,1"), S("1,224")).to_string() == "-1,3,224");
  CHECK(ge::broadcast(S("8,1,6,1"), S("7,1,5")) == S("8,7,6,5"));
  CHECK(ge::broadcast(S(""), S("2,3")) == S("2,3"));
  CHECK(ge::broadcast(S("2,3"), S("")) == S("2,3"));
  CHECK(ge::broadcast(S("1~8,3"), S("3")).to_string() == "1~8,3");
  CHECK(ge::broadcast(S("-2"), S("3")) == Shape::unknown_rank());
  CHECK(ge::broadcast(S("3"), S("-2")) == Shape::unknown_rank());
  CHECK(ge::broadcast(S("-1"), S("4")) == S("4"));
  expect_error([] { (void)ge::broadcast(S("2,3"), S("4,3")); }, Errc::incompatible_shapes, "'2,3'", "'4,3'",
               "'2' vs '4'");
}

TEST_CASE("element count and byte size as intervals") {
  CHECK(ge::element_count(S("")) == Dim(1));
  CHECK(ge::element_count(S("2,3,4")) == Dim(24));
  CHECK(ge::element_count(S("1~8,3")) == Dim::range(3, 24));
  CHECK(ge::element_count(S("0,-1")) == Dim(0));
  CHECK_FALSE(ge::element_count(S("2,-1")).is_bounded());
  CHECK(ge::element_count(S("-2")).is_unknown());
  CHECK(ge::byte_size(S("1~8,3,224,224"), DataType::f32) == Dim::range(602112, 4816896));
  CHECK(ge::byte_size(S("2,2"), DataType::boolean) == Dim(4));
  CHECK(ge::byte_size(S("2,2"), DataType::i64) == Dim(32));
  CHECK(ge::byte_size(S("2,2"), DataType::undefined) == Dim(0));
  CHECK_THROWS_AS((void)ge::element_count(S("4294967296,4294967296")), ge::Error);
  // 2^61 floats: the bytes overflow.
  expect_error([] { (void)ge::byte_size(S("2305843009213693952"), DataType::f32); }, ge::Errc::int_overflow);
}

TEST_CASE("upper and lower bound shapes") {
  CHECK(ge::upper_bound(S("1~8,3,100~208")) == S("8,3,208"));
  CHECK(ge::lower_bound(S("1~8,3,100~208")) == S("1,3,100"));
  CHECK(ge::lower_bound(S("-1,3")) == S("0,3"));
  CHECK(ge::upper_bound(S("")).is_scalar());
  CHECK(ge::upper_bound(S("1~8,3")).is_static());
  expect_error([] { (void)ge::upper_bound(S("2,-1")); }, Errc::unbounded, "'2,-1'", "dim 1");
  expect_error([] { (void)ge::upper_bound(S("2,4~inf")); }, Errc::unbounded, "'4~inf'");
  expect_error([] { (void)ge::upper_bound(S("-2")); }, Errc::unknown_rank);
  expect_error([] { (void)ge::lower_bound(S("-2")); }, Errc::unknown_rank);
}
