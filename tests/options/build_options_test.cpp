#include <doctest/doctest.h>

#include <string>

#include "ge/options/build_options.hpp"
#include "support/expect_error.hpp"

using ge::BuildOptions;
using ge::Option;
using ge::test::expect_error;

TEST_CASE("set by key or by upper-case name; typed views follow") {
  BuildOptions o;
  CHECK(o.empty());
  o.set("ge.inputShape", "data:-1,3,416,416").set("DYNAMIC_BATCH_SIZE", "1,2,4,8").set("INPUT_FORMAT", "NHWC");
  o.set("ac_parallel_enable", "1");
  CHECK(!o.empty());
  REQUIRE(o.input_shape());
  CHECK(o.input_shape()->entries()[0].name == "data");
  CHECK(*o.dynamic_batch_size() == std::vector<std::int64_t>{1, 2, 4, 8});
  CHECK(o.input_format() == ge::Format::nhwc);
  CHECK(o.ac_parallel_enable() == true);
  CHECK(!o.dynamic_image_size());
  CHECK(!o.dynamic_dims());
  CHECK(o.text(Option::dynamic_batch_size) == "1,2,4,8");
  CHECK(!o.text(Option::dynamic_dims));
  CHECK(o.contains(Option::input_format));
  CHECK(!o.contains(Option::dynamic_dims));

  const auto items = o.items();
  REQUIRE(items.size() == 4);
  CHECK(items[0].first == "ge.inputShape");
  CHECK(items[1].first == "ge.dynamicBatchSize");
  CHECK(items[2].first == "ge.inputFormat");
  CHECK(items[3].first == "ac_parallel_enable");
  CHECK(items[3].second == "1");
}

TEST_CASE("the initializer list sets in order; a later value replaces an earlier one") {
  BuildOptions o{{"ge.inputShape", "a:1"}, {"INPUT_SHAPE", "b:2"}, {"ge.dynamicDims", "1;2"},
                 {"ge.dynamicImageSize", "1,2;3,4"}};
  CHECK(o.input_shape()->entries()[0].name == "b");
  CHECK(o.text(Option::input_shape) == "b:2");
  CHECK(o.dynamic_dims()->size() == 2);
  CHECK(o.dynamic_image_size()->size() == 2);
  o.set(Option::ac_parallel_enable, " 0 ");
  CHECK(o.ac_parallel_enable() == false);
  o.set(Option::input_format, "ND");
  CHECK(o.input_format() == ge::Format::nd);
  o.set(Option::input_format, "NCHW");
  CHECK(o.input_format() == ge::Format::nchw);
}

TEST_CASE("unset removes one option") {
  BuildOptions o{{"ge.inputShape", "a:1"}, {"ge.dynamicDims", "1;2"}};
  CHECK(o.unset(Option::dynamic_dims));
  CHECK(!o.unset(Option::dynamic_dims));
  CHECK(!o.dynamic_dims());
  CHECK(!o.contains(Option::dynamic_dims));
  CHECK(o.input_shape());
  for (const auto& i : ge::options_table()) o.unset(i.id);
  CHECK(o.empty());
  CHECK(o == BuildOptions{});
}

TEST_CASE("an unknown key suggests the nearest one") {
  BuildOptions o;
  expect_error([&] { return o.set("ge.inputshape", "a:1"); }, ge::Errc::unknown_option,
               "did you mean 'ge.inputShape'?");
  expect_error([&] { return o.set("ge.dynamicBatchsize", "1,2"); }, ge::Errc::unknown_option,
               "did you mean 'ge.dynamicBatchSize'?");
  expect_error([&] { return o.set("DYNAMIC_IMAGESIZE", "1,2;3,4"); }, ge::Errc::unknown_option,
               "did you mean 'DYNAMIC_IMAGE_SIZE'?");
  expect_error([&] { return o.set("--input_shape", "a:1"); }, ge::Errc::unknown_option,
               "did you mean 'ge.inputShape'?");
  CHECK(o.empty());
}

TEST_CASE("bad values of each option throw their own code") {
  BuildOptions o;
  expect_error([&] { return o.set("ge.inputFormat", "nchw"); }, ge::Errc::bad_input_format, "'nchw'",
               "did you mean 'NCHW'?", "expected NCHW, NHWC or ND");
  expect_error([&] { return o.set("ge.inputFormat", "NC1HWC0"); }, ge::Errc::bad_input_format, "'NC1HWC0'");
  expect_error([&] { return o.set("ge.inputFormat", ""); }, ge::Errc::bad_input_format, "''");
  expect_error([&] { return o.set("ge.inputFormat", "UNDEFINED"); }, ge::Errc::bad_input_format, "'UNDEFINED'");
  expect_error([&] { return o.set("ac_parallel_enable", "true"); }, ge::Errc::bad_parallel_flag, "'true'",
               "expected 0 or 1");
  expect_error([&] { return o.set("ac_parallel_enable", "2"); }, ge::Errc::bad_parallel_flag, "'2'");
  expect_error([&] { return o.set("ac_parallel_enable", ""); }, ge::Errc::bad_parallel_flag, "''");
  expect_error([&] { return o.set("ge.inputShape", "a:1;a:2"); }, ge::Errc::duplicate_input, "'a'");
  expect_error([&] { return o.set("ge.dynamicBatchSize", "1"); }, ge::Errc::bad_gear_count, "at least 2");
  expect_error([&] { return o.set("ge.dynamicImageSize", "1;2"); }, ge::Errc::bad_option_value, "expected h,w");
  expect_error([&] { return o.set("ge.dynamicDims", "1,2;3"); }, ge::Errc::gear_shape_mismatch, "same number");
  CHECK(o.empty());
}

TEST_CASE("a failed set leaves the options exactly as they were") {
  BuildOptions o{{"ge.inputShape", "data:-1,3,416,416"}, {"ge.dynamicBatchSize", "1,2,4,8"},
                 {"ge.inputFormat", "NHWC"}, {"ac_parallel_enable", "1"}};
  const BuildOptions before = o;
  const auto shape_before = *o.input_shape();
  expect_error([&] { return o.set("ge.inputShape", "data:-1,x"); }, ge::Errc::bad_dim_text, "INPUT_SHAPE");
  expect_error([&] { return o.set("ge.dynamicBatchSize", "1,2,0"); }, ge::Errc::bad_gear_value, "zero");
  expect_error([&] { return o.set("ge.inputFormat", "HWCN"); }, ge::Errc::bad_input_format, "HWCN");
  expect_error([&] { return o.set("ac_parallel_enable", "yes"); }, ge::Errc::bad_parallel_flag, "yes");
  expect_error([&] { return o.set("ge.dynamicDims", "1;1"); }, ge::Errc::duplicate_gear, "repeats");
  CHECK(o == before);
  CHECK(*o.input_shape() == shape_before);
  CHECK(*o.dynamic_batch_size() == std::vector<std::int64_t>{1, 2, 4, 8});
  CHECK(o.input_format() == ge::Format::nhwc);
  CHECK(o.ac_parallel_enable() == true);
  CHECK(!o.dynamic_dims());
  CHECK(!o.contains(Option::dynamic_dims));
}

TEST_CASE("a bad item in the initializer list throws; nothing is half-built") {
  expect_error(
      [&] {
        return (BuildOptions{{"ge.inputShape", "a:1"}, {"ge.dynamicDimz", "1;2"}});
      },
      ge::Errc::unknown_option, "did you mean 'ge.dynamicDims'?");
}

TEST_CASE("validate checks across options and never changes them") {
  BuildOptions o{{"ge.dynamicBatchSize", "1,2"}, {"ge.dynamicDims", "1;2"}};
  const BuildOptions before = o;
  expect_error([&] { return o.validate(); }, ge::Errc::conflicting_options,
               "'ge.dynamicBatchSize' and 'ge.dynamicDims'");
  CHECK(o == before);
  o.unset(Option::dynamic_dims);
  expect_error([&] { return o.validate(); }, ge::Errc::missing_input_shape, "without", "INPUT_SHAPE");
  o.set("ge.inputShape", "a:-1,3");
  CHECK_NOTHROW(o.validate());
  expect_error([&] { return o.validate(ge::find_target("ipv350")); }, ge::Errc::gears_unsupported, "'ipv350'");
}
