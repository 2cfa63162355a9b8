#include <doctest/doctest.h>

#include <string>

#include "ge/options/input_shape.hpp"
#include "support/expect_error.hpp"

using ge::Dim;
using ge::InputShape;
using ge::Shape;
using ge::test::error_of;
using ge::test::expect_error;

TEST_CASE("named inputs: fixed shapes, ranges, unknowns, scalars") {
  const auto s = InputShape::parse("input_0_0:16,32,208,208;input_1_0:16,64,208,208");
  REQUIRE(s.entries().size() == 2);
  CHECK(s.named());
  CHECK(s.entries()[0].name == "input_0_0");
  CHECK(s.entries()[0].shape == Shape{16, 32, 208, 208});
  CHECK(s.entries()[1].shape == Shape{16, 64, 208, 208});
  CHECK(s.unknown_dim_count() == 0);
  CHECK(!s.has_range());

  const auto r = InputShape::parse("input_name1:8~20,3,5,-1;input_name2:5,3~9,10,-1");
  CHECK(r.entries()[0].shape == Shape{Dim::range(8, 20), 3, 5, -1});
  CHECK(r.entries()[1].shape == Shape{5, Dim::range(3, 9), 10, -1});
  CHECK(r.unknown_dim_count() == 2);
  CHECK(r.has_range());

  const auto sc = InputShape::parse("A:-1,5;B:;C:2,3");
  REQUIRE(sc.entries().size() == 3);
  CHECK(sc.entries()[1].name == "B");
  CHECK(sc.entries()[1].shape.is_scalar());
  CHECK(sc.find("B") == &sc.entries()[1]);
  CHECK(sc.find("D") == nullptr);
}

TEST_CASE("positional inputs: by data-node index; an empty entry is a scalar") {
  const auto s = InputShape::parse("8~20,3,5,-1;5,3~9,10,-1");
  CHECK(!s.named());
  REQUIRE(s.entries().size() == 2);
  CHECK(s.entries()[0].name.empty());
  CHECK(s.entries()[0].shape.to_string() == "8~20,3,5,-1");
  CHECK(s.find("") == nullptr);

  const auto t = InputShape::parse("1,2;;3");
  REQUIRE(t.entries().size() == 3);
  CHECK(t.entries()[1].shape.is_scalar());
  expect_error([&] { return InputShape::parse("1,2;"); }, ge::Errc::bad_input_shape, "trailing ';'", "position 4");
  expect_error([&] { return InputShape::parse("a:1,2;"); }, ge::Errc::bad_input_shape, "trailing ';'");
}

TEST_CASE("blanks are ignored; names end at the last colon") {
  const auto s = InputShape::parse("  data : 1 , 3~ 5 ,-1 ; x:0 : 7 ");
  REQUIRE(s.entries().size() == 2);
  CHECK(s.entries()[0].name == "data");
  CHECK(s.entries()[0].shape == Shape{1, Dim::range(3, 5), -1});
  CHECK(s.entries()[1].name == "x:0");
  CHECK(s.entries()[1].shape == Shape{7});
}

TEST_CASE("to_string parses back equal") {
  for (const char* text : {"data:1,3,224,224", "a:8~20,3,5,-1;b:5,3~9,10,-1", "a:;b:1", "1,2;;3~inf",
                           "x:0:1", "1"}) {
    const auto s = InputShape::parse(text);
    CHECK(s.to_string() == text);
    CHECK(InputShape::parse(s.to_string()) == s);
  }
  CHECK(InputShape::parse(" a : 1 ").to_string() == "a:1");
}

TEST_CASE("bad INPUT_SHAPE text throws with the option, the text and the position") {
  expect_error([&] { return InputShape::parse(""); }, ge::Errc::bad_input_shape, "[ge.options]", "INPUT_SHAPE",
               "empty");
  expect_error([&] { return InputShape::parse("   "); }, ge::Errc::bad_input_shape, "empty");
  expect_error([&] { return InputShape::parse(":1,2"); }, ge::Errc::bad_input_shape, "name is empty", "position 1");
  expect_error([&] { return InputShape::parse("a:1;b:2;a:3"); }, ge::Errc::duplicate_input, "'a'", "twice",
               "position 9");
  expect_error([&] { return InputShape::parse("a:1,2;3,4"); }, ge::Errc::mixed_input_forms, "'3,4'", "positional",
               "name every input or none");
  expect_error([&] { return InputShape::parse("3,4;a:1"); }, ge::Errc::mixed_input_forms, "named");
  expect_error([&] { return InputShape::parse("a:1,2,b:3"); }, ge::Errc::bad_input_shape, "a missing ';'");
  expect_error([&] { return InputShape::parse("a:-2"); }, ge::Errc::bad_input_shape, "-2", "unknown rank");
  expect_error([&] { return InputShape::parse("-2"); }, ge::Errc::bad_input_shape, "-2");
}

TEST_CASE("bad dims keep the dim's own code but speak of the option") {
  expect_error([&] { return InputShape::parse("a:1,x,3"); }, ge::Errc::bad_dim_text, "[ge.options] ge.inputShape",
               "'a:1,x,3' at position 5");
  expect_error([&] { return InputShape::parse("a:1,,3"); }, ge::Errc::bad_dim_text, "empty");
  expect_error([&] { return InputShape::parse("a:20~8"); }, ge::Errc::bad_range, "INPUT_SHAPE", "above the high end");
  expect_error([&] { return InputShape::parse("a:-3"); }, ge::Errc::bad_dim_value, "negative");
  expect_error([&] { return InputShape::parse("a:1,-2"); }, ge::Errc::bad_dim_value, "-2");
  expect_error([&] { return InputShape::parse("a:99999999999999999999"); }, ge::Errc::int_overflow, "beyond int64");
  expect_error([&] { return InputShape::parse("a:1~"); }, ge::Errc::bad_range, "high end is missing");
  CHECK(std::string(error_of([] { (void)InputShape::parse("a:1,x"); }).what()).find("[ge.shape]") == std::string::npos);
}

// int64's largest value is Dim::inf: written as a number it made a "fixed" dim that is
// unbounded. 'inf' is how a range end says unbounded.
TEST_CASE("INPUT_SHAPE: a dim or range end of 9223372036854775807 is int_overflow; 'inf' stays") {
  expect_error([&] { return InputShape::parse("a:9223372036854775807"); }, ge::Errc::int_overflow,
               "9223372036854775807", "unbounded");
  expect_error([&] { return InputShape::parse("a:1~9223372036854775807"); }, ge::Errc::int_overflow, "'inf'");
  expect_error([&] { return InputShape::parse("a:9223372036854775807~inf"); }, ge::Errc::int_overflow);
  expect_error([&] { return InputShape::parse("2,9223372036854775807"); }, ge::Errc::int_overflow);
  CHECK_NOTHROW((void)InputShape::parse("a:1~inf,9223372036854775806"));
}
