#include <doctest/doctest.h>

#include <string>

#include "ge/options/gear_list.hpp"
#include "support/expect_error.hpp"

using V = std::vector<std::int64_t>;
using ge::test::expect_error;

TEST_CASE("DYNAMIC_BATCH_SIZE: comma-separated gears") {
  CHECK(ge::parse_batch_gears("1,2,4,8") == V{1, 2, 4, 8});
  CHECK(ge::parse_batch_gears(" 8 , 1 ") == V{8, 1});
  CHECK(ge::parse_batch_gears("1,4096") == V{1, 4096});  // above 2048 is a warning, later
}

TEST_CASE("DYNAMIC_IMAGE_SIZE: h,w gears separated by ';'") {
  const auto g = ge::parse_image_gears("416,416;832,640");
  REQUIRE(g.size() == 2);
  CHECK(g[0] == ge::ImageGear{416, 416});
  CHECK(g[1].h == 832);
  CHECK(g[1].w == 640);
}

TEST_CASE("DYNAMIC_DIMS: gears separated by ';', dims by ','") {
  CHECK(ge::parse_dims_gears("4;8;16;64") == std::vector<V>{{4}, {8}, {16}, {64}});
  CHECK(ge::parse_dims_gears("1,2;3,4;5,6;7,8") == std::vector<V>{{1, 2}, {3, 4}, {5, 6}, {7, 8}});
}

TEST_CASE("gear values are integers >= 1") {
  expect_error([&] { return ge::parse_batch_gears("1,0,4"); }, ge::Errc::bad_gear_value, "[ge.options]",
               "DYNAMIC_BATCH_SIZE", "'1,0,4' at position 3", "zero", "expected an integer >= 1");
  expect_error([&] { return ge::parse_batch_gears("1,-1"); }, ge::Errc::bad_gear_value, "sign");
  expect_error([&] { return ge::parse_batch_gears("+1,2"); }, ge::Errc::bad_gear_value, "sign");
  expect_error([&] { return ge::parse_batch_gears("1,x"); }, ge::Errc::bad_gear_value, "unexpected 'x'");
  expect_error([&] { return ge::parse_batch_gears("1,2.5"); }, ge::Errc::bad_gear_value, "unexpected '.'");
  expect_error([&] { return ge::parse_batch_gears("1,,2"); }, ge::Errc::bad_gear_value, "empty");
  expect_error([&] { return ge::parse_batch_gears("1,2,,"); }, ge::Errc::bad_gear_value, "empty", "position 5");
  expect_error([&] { return ge::parse_dims_gears("1;;2"); }, ge::Errc::bad_gear_value, "empty", "position 3");
  expect_error([&] { return ge::parse_batch_gears("1,"); }, ge::Errc::bad_gear_count, "has 1");
  expect_error([&] { return ge::parse_batch_gears("1,2 3"); }, ge::Errc::bad_gear_value, "blank");
  expect_error([&] { return ge::parse_batch_gears("1;2"); }, ge::Errc::bad_gear_value, "unexpected ';'");
  expect_error([&] { return ge::parse_batch_gears("1,99999999999999999999"); }, ge::Errc::int_overflow, "beyond int64");
  expect_error([&] { return ge::parse_image_gears("416,0;1,1"); }, ge::Errc::bad_gear_value, "DYNAMIC_IMAGE_SIZE",
               "zero");
  expect_error([&] { return ge::parse_dims_gears("1,a;2,3"); }, ge::Errc::bad_gear_value, "DYNAMIC_DIMS");
}

TEST_CASE("one trailing separator is tolerated") {
  using V = std::vector<std::int64_t>;
  CHECK(ge::parse_batch_gears("1,2,4,") == V{1, 2, 4});
  CHECK(ge::parse_batch_gears("1,2, ") == V{1, 2});
  CHECK(ge::parse_dims_gears("1,2;3,4;").size() == 2);
  CHECK(ge::parse_image_gears("416,416;832,832;").size() == 2);
}

TEST_CASE("at least 2 gears") {
  expect_error([&] { return ge::parse_batch_gears("4"); }, ge::Errc::bad_gear_count, "'4'", "has 1", "at least 2");
  expect_error([&] { return ge::parse_batch_gears(""); }, ge::Errc::bad_gear_count, "has 0");
  expect_error([&] { return ge::parse_batch_gears("  "); }, ge::Errc::bad_gear_count, "has 0");
  expect_error([&] { return ge::parse_image_gears("416,416"); }, ge::Errc::bad_gear_count, "DYNAMIC_IMAGE_SIZE",
               "has 1");
  expect_error([&] { return ge::parse_dims_gears("1,2"); }, ge::Errc::bad_gear_count, "DYNAMIC_DIMS", "has 1");
  expect_error([&] { return ge::parse_dims_gears(""); }, ge::Errc::bad_gear_count, "has 0");
}

TEST_CASE("no gear twice; the first repeat is named") {
  expect_error([&] { return ge::parse_batch_gears("1,2,4,2,1"); }, ge::Errc::duplicate_gear,
               "gear 4 (2) repeats gear 2");
  expect_error([&] { return ge::parse_batch_gears("3,3,3"); }, ge::Errc::duplicate_gear, "gear 2 (3) repeats gear 1");
  expect_error([&] { return ge::parse_image_gears("1,2;2,1;1,2"); }, ge::Errc::duplicate_gear,
               "gear 3 (1,2) repeats gear 1");
  expect_error([&] { return ge::parse_dims_gears("1,2;3,4;3,4"); }, ge::Errc::duplicate_gear,
               "gear 3 (3,4) repeats gear 2");
  CHECK(ge::parse_image_gears("1,2;2,1").size() == 2);  // order matters: h,w
}

TEST_CASE("an image gear is exactly h,w; dims gears agree in length") {
  expect_error([&] { return ge::parse_image_gears("416;832,832"); }, ge::Errc::bad_option_value, "'416' has 1 value",
               "expected h,w");
  expect_error([&] { return ge::parse_image_gears("416,416,3;832,832"); }, ge::Errc::bad_option_value, "has 3 values");
  expect_error([&] { return ge::parse_image_gears("416,416,832,832"); }, ge::Errc::bad_option_value, "has 4 values");
  expect_error([&] { return ge::parse_dims_gears("1,2;3;4,5"); }, ge::Errc::gear_shape_mismatch,
               "gear 2 '3' has 1 dims", "gear 1 has 2");
}

// int64's largest value is Dim::inf: as a gear it made an unbounded "static" dim whose
// products never overflow, so DYNAMIC_BATCH_SIZE=1,9223372036854775807 compiled while
// 2^61 was refused. Each gear option refuses it as int_overflow; one below is a number.
TEST_CASE("gear values: int64's largest value (Dim::inf) is int_overflow in every gear option") {
  expect_error([&] { return ge::parse_batch_gears("1,9223372036854775807"); }, ge::Errc::int_overflow,
               "9223372036854775807", "unbounded");
  expect_error([&] { return ge::parse_image_gears("4,4;9223372036854775807,4"); }, ge::Errc::int_overflow,
               "DYNAMIC_IMAGE_SIZE");
  expect_error([&] { return ge::parse_image_gears("4,4;4,9223372036854775807"); }, ge::Errc::int_overflow,
               "DYNAMIC_IMAGE_SIZE");
  expect_error([&] { return ge::parse_dims_gears("1,2;3,9223372036854775807"); }, ge::Errc::int_overflow, "DYNAMIC_DIMS");
  CHECK(ge::parse_batch_gears("1,9223372036854775806") == V{1, 9223372036854775806});
}
