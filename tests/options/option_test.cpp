#include <doctest/doctest.h>

#include <array>
#include <string_view>

#include "ge/options/build_options.hpp"
#include "ge/options/option.hpp"
#include "support/expect_error.hpp"

using ge::test::error_of;
using ge::test::expect_error;

TEST_CASE("options_table lists every option once, in Option order, with its three spellings") {
  const auto t = ge::options_table();
  REQUIRE(t.size() == ge::option_count);
  for (std::size_t i = 0; i < t.size(); ++i) CHECK(static_cast<std::size_t>(t[i].id) == i);
  CHECK(ge::option_info(ge::Option::input_shape).key == "ge.inputShape");
  CHECK(ge::option_info(ge::Option::dynamic_batch_size).key == "ge.dynamicBatchSize");
  CHECK(ge::option_info(ge::Option::dynamic_image_size).key == "ge.dynamicImageSize");
  CHECK(ge::option_info(ge::Option::dynamic_dims).key == "ge.dynamicDims");
  CHECK(ge::option_info(ge::Option::input_format).key == "ge.inputFormat");
  CHECK(ge::option_info(ge::Option::ac_parallel_enable).key == "ac_parallel_enable");
  CHECK(ge::option_info(ge::Option::dynamic_dims).name == "DYNAMIC_DIMS");
  CHECK(ge::option_info(ge::Option::ac_parallel_enable).flag == "ac_parallel_enable");
  CHECK(ge::option_info(ge::Option::input_shape).flag == "input_shape");
}

TEST_CASE("lookup_option and find_option accept the key and the upper-case name, exactly") {
  CHECK(ge::lookup_option("ge.inputShape")->id == ge::Option::input_shape);
  CHECK(ge::lookup_option("INPUT_SHAPE")->id == ge::Option::input_shape);
  CHECK(ge::lookup_option("AC_PARALLEL_ENABLE")->id == ge::Option::ac_parallel_enable);
  CHECK(ge::lookup_option("ge.inputshape") == nullptr);
  CHECK(ge::lookup_option("") == nullptr);
  CHECK(ge::find_option("DYNAMIC_IMAGE_SIZE").id == ge::Option::dynamic_image_size);
  // ge::ir_option's spellings (aclgrphBuildModel's keys) too.
  CHECK(ge::find_option("input_shape").id == ge::Option::input_shape);
  CHECK(ge::find_option("input_format").id == ge::Option::input_format);
  CHECK(ge::find_option("dynamic_batch_size").id == ge::Option::dynamic_batch_size);
  CHECK(ge::BuildOptions{{"input_shape", "x:-1,3"}, {"dynamic_batch_size", "1,2"}}.dynamic_batch_size()->size() == 2);
}

TEST_CASE("a misspelt key gets 'did you mean' with the spelling family the user wrote") {
  expect_error([&] { return ge::find_option("ge.inputshape"); }, ge::Errc::unknown_option, "[ge.options]",
               "'ge.inputshape'", "did you mean 'ge.inputShape'?");
  expect_error([&] { return ge::find_option("ge.dynamicBatchsize"); }, ge::Errc::unknown_option,
               "did you mean 'ge.dynamicBatchSize'?");
  expect_error([&] { return ge::find_option("INPUT_SHAP"); }, ge::Errc::unknown_option, "did you mean 'INPUT_SHAPE'?");
  expect_error([&] { return ge::find_option("DYNAMIC_DIM"); }, ge::Errc::unknown_option,
               "did you mean 'DYNAMIC_DIMS'?");
  expect_error([&] { return ge::find_option("--input_shape"); }, ge::Errc::unknown_option,
               "did you mean 'ge.inputShape'?");
  expect_error([&] { return ge::find_option("input_shap"); }, ge::Errc::unknown_option,
               "did you mean 'ge.inputShape'?");
  expect_error([&] { return ge::find_option("ge.inputFromat"); }, ge::Errc::unknown_option,
               "did you mean 'ge.inputFormat'?");
  expect_error([&] { return ge::find_option("ac_paralel_enable"); }, ge::Errc::unknown_option,
               "did you mean 'ac_parallel_enable'?");
}

TEST_CASE("a key far from every option gets no suggestion, but the list of keys") {
  expect_error([&] { return ge::find_option("ge.precisionMode"); }, ge::Errc::unknown_option, "'ge.precisionMode'",
               "expected one of", "ge.inputShape (INPUT_SHAPE)", "ac_parallel_enable");
  CHECK(std::string_view(error_of([] { (void)ge::find_option("ge.precisionMode"); }).what()).find("did you mean") ==
        std::string_view::npos);
  CHECK(ge::nearest_option("x") == nullptr);
  CHECK(ge::nearest_option("") == nullptr);
  CHECK(ge::nearest_option("dynamic_batch") == nullptr);
}

TEST_CASE("nearest_option folds case and separators") {
  CHECK(ge::nearest_option("ge.inputshape")->id == ge::Option::input_shape);
  CHECK(ge::nearest_option("--input-shape")->id == ge::Option::input_shape);
  CHECK(ge::nearest_option("DYNAMICBATCHSIZE")->id == ge::Option::dynamic_batch_size);
  CHECK(ge::nearest_option("ge.dynamicImgSize")->id == ge::Option::dynamic_image_size);
  CHECK(ge::nearest_option("ge.dynamicDimz")->id == ge::Option::dynamic_dims);
}

TEST_CASE("spelling_distance is the optimal-string-alignment distance over folded text") {
  CHECK(ge::spelling_distance("abc", "abc") == 0);
  CHECK(ge::spelling_distance("ABC", "a_b-c.") == 0);
  CHECK(ge::spelling_distance("abc", "acb") == 1);  // a swap of neighbours
  CHECK(ge::spelling_distance("abc", "abd") == 1);
  CHECK(ge::spelling_distance("abc", "ab") == 1);
  CHECK(ge::spelling_distance("", "abc") == 3);
  CHECK(ge::spelling_distance("kitten", "sitting") == 3);
  CHECK(ge::spelling_distance("ca", "abc") == 3);  // OSA, not full Damerau
}

TEST_CASE("closest_spelling picks the nearest candidate within the limit, ties to the first") {
  constexpr std::array<std::string_view, 3> c{"--target", "--help", "--input_shape"};
  CHECK(ge::closest_spelling("--taget", c) == "--target");
  CHECK(ge::closest_spelling("--hlep", c) == "--help");
  CHECK(!ge::closest_spelling("--verbose", c));
  CHECK(!ge::closest_spelling("--taget", c, 0));
  constexpr std::array<std::string_view, 2> tie{"ab", "ac"};
  CHECK(ge::closest_spelling("aa", tie) == "ab");
  CHECK(!ge::closest_spelling("q", tie));  // a one-letter word suggests nothing two edits away
}
