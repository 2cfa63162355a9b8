#include <doctest/doctest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "ge/options/dynamic_config.hpp"
#include "support/expect_error.hpp"

using ge::BuildOptions;
using ge::DynamicConfig;
using ge::ShapeMode;
using V = std::vector<std::int64_t>;
using ge::test::expect_error;

namespace {
DynamicConfig parse(const BuildOptions& o, const char* target = "cpu") {
  return ge::parse_dynamic_config(o, ge::find_target(target));
}
bool has_warning(const DynamicConfig& c, std::string_view word) {
  for (const auto& w : c.warnings)
    if (w.find(word) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("no options: a fixed config with defaults") {
  const auto c = parse(BuildOptions{});
  CHECK(c.mode == ShapeMode::fixed);
  CHECK(!c.gear_option);
  CHECK(c.input_shape.entries().empty());
  CHECK(c.input_format == ge::Format::nchw);
  CHECK(!c.ac_parallel_enable);
  CHECK(c.gears.empty());
  CHECK(c.warnings.empty());
  CHECK(c.target.name == "cpu");
  CHECK(ge::to_string(ShapeMode::gears) == "gears");
  CHECK(ge::to_string(ShapeMode::ranges) == "ranges");
  CHECK(ge::to_string(ShapeMode::fixed) == "fixed");
}

TEST_CASE("the reference examples") {
  SUBCASE("fixed shapes") {
    const auto c = parse({{"ge.inputShape", "input_0_0:16,32,208,208;input_1_0:16,64,208,208"}});
    CHECK(c.mode == ShapeMode::fixed);
    CHECK(c.input_shape.entries().size() == 2);
  }
  SUBCASE("ranges") {
    const auto c = parse({{"ge.inputShape", "input_0_0:1~10,32,208,208;input_1_0:16,64,100~208,100~208"}});
    CHECK(c.mode == ShapeMode::ranges);
    CHECK(c.gears.empty());
  }
  SUBCASE("a -1 alone is a range too") {
    CHECK(parse({{"ge.inputShape", "8~20,3,5,-1;5,3~9,10,-1"}}).mode == ShapeMode::ranges);
    CHECK(parse({{"ge.inputShape", "a:1,-1"}}).mode == ShapeMode::ranges);
  }
  SUBCASE("batch gears") {
    const auto c = parse({{"ge.inputFormat", "NHWC"},
                          {"ge.inputShape", "data:-1,3,416,416"},
                          {"ge.dynamicBatchSize", "1,2,4,8"}});
    CHECK(c.mode == ShapeMode::gears);
    CHECK(c.gear_option == ge::Option::dynamic_batch_size);
    CHECK(c.input_format == ge::Format::nhwc);
    CHECK(c.gears == std::vector<V>{{1}, {2}, {4}, {8}});
    CHECK(c.warnings.empty());
  }
  SUBCASE("batch gears with a listed scalar") {
    const auto c = parse({{"ge.inputShape", "A:-1,32,208,208;B:;C:16,64,208,208"}, {"ge.dynamicBatchSize", "1,2,4"}});
    CHECK(c.mode == ShapeMode::gears);
    CHECK(c.gears.size() == 3);
  }
  SUBCASE("image gears") {
    const auto c = parse({{"ge.inputFormat", "NCHW"},
                          {"ge.inputShape", "data:8,3,-1,-1"},
                          {"ge.dynamicImageSize", "416,416;832,832"}});
    CHECK(c.gear_option == ge::Option::dynamic_image_size);
    CHECK(c.gears == std::vector<V>{{416, 416}, {832, 832}});
  }
  SUBCASE("dims gears") {
    const auto c = parse({{"ge.inputFormat", "ND"}, {"ge.inputShape", "data:1,-1"}, {"ge.dynamicDims", "4;8;16;64"}});
    CHECK(c.gear_option == ge::Option::dynamic_dims);
    CHECK(c.input_format == ge::Format::nd);
    CHECK(c.gears == std::vector<V>{{4}, {8}, {16}, {64}});
    CHECK(c.warnings.empty());
    const auto d = parse({{"ge.inputShape", "data:1,-1,-1"}, {"ge.dynamicDims", "1,2;3,4;5,6;7,8"}});
    CHECK(d.input_format == ge::Format::nd);  // implied
    CHECK(d.gears.size() == 4);
  }
}

TEST_CASE("one gear option at most, and it needs INPUT_SHAPE") {
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "a:-1,2"}, {"ge.dynamicBatchSize", "1,2"}, {"ge.dynamicImageSize", "1,2;3,4"}});
      },
      ge::Errc::conflicting_options, "[ge.options]", "'ge.dynamicBatchSize' and 'ge.dynamicImageSize'", "at most one");
  expect_error(
      [&] {
        return parse({{"ge.dynamicImageSize", "1,2;3,4"}, {"ge.dynamicDims", "1;2"}});
      },
      ge::Errc::conflicting_options, "'ge.dynamicImageSize' and 'ge.dynamicDims'");
  expect_error(
      [&] {
        return parse({{"ge.dynamicDims", "1;2"}});
      },
      ge::Errc::missing_input_shape, "ge.dynamicDims", "'1;2'", "without ge.inputShape");
}

TEST_CASE("the target decides gears, their count, ranges and AC parallel") {
  std::string gears100 = "1";
  for (int i = 2; i <= 100; ++i) gears100 += "," + std::to_string(i);
  const std::string gears101 = gears100 + ",101";
  std::string gears257 = gears101;
  for (int i = 102; i <= 257; ++i) gears257 += "," + std::to_string(i);
  const BuildOptions b100{{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", gears100}};
  const BuildOptions b101{{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", gears101}};
  const BuildOptions b257{{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", gears257}};
  CHECK(parse(b100, "atlas_a2").gears.size() == 100);
  expect_error([&] { return parse(b101, "atlas_a2"); }, ge::Errc::bad_gear_count, "101 gears", "'atlas_a2'",
               "2 to 100");
  CHECK(parse(b101, "ascend950").gears.size() == 101);
  expect_error([&] { return parse(b257, "ascend950"); }, ge::Errc::bad_gear_count, "257 gears", "2 to 256");
  expect_error([&] { return parse(b100, "ipv350"); }, ge::Errc::gears_unsupported, "'ipv350'", "no gears");

  const BuildOptions range{{"ge.inputShape", "a:1~10,3"}};
  expect_error([&] { return parse(range, "atlas_200i_500_a2"); }, ge::Errc::ranges_unsupported, "'1~10'", "dim 0",
               "'atlas_200i_500_a2'");
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "a:1,-1"}}, "ipv350");
      },
      ge::Errc::ranges_unsupported, "'-1'", "dim 1");
  CHECK(parse(range, "atlas_a3").mode == ShapeMode::ranges);
  // Gears are static shapes, so a target without ranges accepts -1 with gears.
  CHECK(parse({{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", "1,2"}}, "atlas_200i_500_a2").mode ==
        ShapeMode::gears);
  CHECK(parse({{"ge.inputShape", "a:1,3"}}, "ipv350").mode == ShapeMode::fixed);

  const BuildOptions par{{"ge.inputShape", "a:1~10,3"}, {"ac_parallel_enable", "1"}};
  CHECK(parse(par, "atlas_a2").ac_parallel_enable);
  expect_error(
      [&] {
        return parse({{"ac_parallel_enable", "1"}}, "atlas_200i_500_a2");
      },
      ge::Errc::ac_parallel_unsupported, "'1'", "'atlas_200i_500_a2'", "expected 0");
  CHECK(!parse({{"ac_parallel_enable", "0"}}, "ipv350").ac_parallel_enable);
}

TEST_CASE("gears need -1s and no ranges") {
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "a:1,3"}, {"ge.dynamicBatchSize", "1,2"}});
      },
      ge::Errc::gear_shape_mismatch, "'a:1,3'", "no -1");
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "a:-1,1~4"}, {"ge.dynamicBatchSize", "1,2"}});
      },
      ge::Errc::bad_input_shape, "range '1~4'", "dim 1", "input 'a'");
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "1~2,-1"}, {"ge.dynamicDims", "1;2"}});
      },
      ge::Errc::bad_input_shape, "input 0 (by position)");
}

TEST_CASE("batch gears fill only -1 first dims") {
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "data:3,-1"}, {"ge.dynamicBatchSize", "1,2"}});
      },
      ge::Errc::bad_batch_dim, "input 'data'", "-1 at dim 1", "DYNAMIC_DIMS");
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "a:-1,3;b:-1,-1"}, {"ge.dynamicBatchSize", "1,2"}});
      },
      ge::Errc::bad_batch_dim, "input 'b'");
  const auto c = parse({{"ge.inputShape", "a:-1,3;b:-1,5;c:7"}, {"ge.dynamicBatchSize", "4,8"}});
  CHECK(c.gears == std::vector<V>{{4}, {8}});
}

TEST_CASE("gear values above 2048 are a warning, not an error, for every gear option") {
  const auto c = parse({{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", "1,2048,2049"}});
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].find("gear 3 has the value 2049") != std::string::npos);
  CHECK(c.warnings[0].find("2048") != std::string::npos);
  const auto i = parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "a:1,3,-1,-1"}, {"ge.dynamicImageSize", "224,224;4096,224"}});
  REQUIRE(i.warnings.size() == 1);
  CHECK(i.warnings[0].find("DYNAMIC_IMAGE_SIZE") != std::string::npos);
  const auto d = parse({{"ge.inputShape", "a:1,-1"}, {"ge.dynamicDims", "1;2;3000"}});
  CHECK(std::any_of(d.warnings.begin(), d.warnings.end(),
                    [](const std::string& w) { return w.find("value 3000") != std::string::npos; }));
}

TEST_CASE("with gears, INPUT_SHAPE dims are >= 1 or -1") {
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "a:-1,0"}, {"ge.dynamicBatchSize", "1,2"}});
      },
      ge::Errc::bad_input_shape, "dim 0 at dim 1", "expected dims >= 1");
  CHECK(parse({{"ge.inputShape", "a:0,3"}}).mode == ge::ShapeMode::fixed);  // without gears a 0 dim is fine
}

TEST_CASE("model inputs known by name only (gec --inputs)") {
  const std::vector<ge::ModelInput> model{{"A", ge::Shape::unknown_rank(), false}, {"B", ge::Shape::unknown_rank(), false}};
  const ge::BuildOptions gears{{"ge.inputShape", "A:-1,3"}, {"ge.dynamicBatchSize", "1,2"}};
  expect_error([&] { return ge::parse_dynamic_config(gears, ge::find_target("cpu"), model); },
               ge::Errc::missing_scalar_input, "'B'");
  const ge::BuildOptions fixed{{"ge.inputShape", "A:2,3"}};
  CHECK(ge::parse_dynamic_config(fixed, ge::find_target("cpu"), model).mode == ge::ShapeMode::fixed);
  const ge::BuildOptions both{{"ge.inputShape", "A:-1,3;B:"}, {"ge.dynamicBatchSize", "1,2"}};
  CHECK(ge::parse_dynamic_config(both, ge::find_target("cpu"), model).gears.size() == 2);
}

TEST_CASE("image gears: -1 at exactly H and W of a 4-D input, per INPUT_FORMAT") {
  const BuildOptions nhwc{{"ge.inputFormat", "NHWC"}, {"ge.inputShape", "x:8,-1,-1,3"},
                          {"ge.dynamicImageSize", "1,2;3,4"}};
  CHECK(parse(nhwc).input_format == ge::Format::nhwc);
  // As GE does: no default layout for image gears; INPUT_FORMAT says where H and W are.
  expect_error([&] { return parse({{"ge.inputShape", "x:8,3,-1,-1"}, {"ge.dynamicImageSize", "1,2;3,4"}}); },
               ge::Errc::bad_input_format, "DYNAMIC_IMAGE_SIZE", "'1,2;3,4'", "without ge.inputFormat (INPUT_FORMAT)",
               "expected INPUT_FORMAT NCHW or NHWC");
  CHECK(parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "x:8,3,-1,-1"}, {"ge.dynamicImageSize", "1,2;3,4"}})
            .input_format == ge::Format::nchw);
  expect_error(
      [&] {
        return parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "x:8,-1,-1,3"}, {"ge.dynamicImageSize", "1,2;3,4"}});
      },
      ge::Errc::bad_image_dims, "input 'x'", "-1 at dim 1", "NCHW puts H at dim 2 and W at dim 3");
  expect_error(
      [&] {
        return parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "x:8,3,-1,5"}, {"ge.dynamicImageSize", "1,2;3,4"}});
      },
      ge::Errc::bad_image_dims, "fixed dim '5' at dim 3");
  expect_error(
      [&] {
        return parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "x:3,-1,-1"}, {"ge.dynamicImageSize", "1,2;3,4"}});
      },
      ge::Errc::bad_image_dims, "rank 3");
  expect_error(
      [&] {
        return parse({{"ge.inputFormat", "ND"}, {"ge.inputShape", "x:8,3,-1,-1"}, {"ge.dynamicImageSize", "1,2;3,4"}});
      },
      ge::Errc::bad_input_format, "'ND'", "H and W", "NCHW or NHWC");
  // An input without -1 is left alone, whatever its rank.
  CHECK(parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "x:8,3,-1,-1;y:5"}, {"ge.dynamicImageSize", "1,2;3,4"}}).mode == ShapeMode::gears);
}

TEST_CASE("dims gears: ND, one value per -1") {
  expect_error(
      [&] {
        return parse({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "x:1,-1"}, {"ge.dynamicDims", "1;2"}});
      },
      ge::Errc::bad_input_format, "'NCHW'", "expected ND");
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "x:1,-1,-1"}, {"ge.dynamicDims", "1;2;3"}});
      },
      ge::Errc::gear_shape_mismatch, "1 dims per gear", "2 -1s");
  expect_error(
      [&] {
        return parse({{"ge.inputShape", "x:-1;y:-1"}, {"ge.dynamicDims", "1,2,3;4,5,6"}});
      },
      ge::Errc::gear_shape_mismatch, "3 dims per gear", "2 -1s");
  const auto c = parse({{"ge.inputShape", "x:-1,2;y:3,-1"}, {"ge.dynamicDims", "1,4;5,6"}});
  CHECK(c.gears == std::vector<V>{{1, 4}, {5, 6}});
  CHECK(has_warning(c, "3 to 4 gears are recommended"));
  CHECK(has_warning(parse({{"ge.inputShape", "x:-1"}, {"ge.dynamicDims", "1;2;3;4;5"}}), "has 5 gears"));
  CHECK(parse({{"ge.inputShape", "x:-1"}, {"ge.dynamicDims", "1;2;3"}}).warnings.empty());
}

TEST_CASE("AC_PARALLEL_ENABLE=1 on static shapes is a warning") {
  CHECK(has_warning(parse({{"ge.inputShape", "a:1,2"}, {"ac_parallel_enable", "1"}}), "dynamic-shape"));
  CHECK(has_warning(parse({{"ge.inputShape", "a:-1,2"}, {"ge.dynamicBatchSize", "1,2"}, {"ac_parallel_enable", "1"}}),
                    "static gears"));
  CHECK(parse({{"ge.inputShape", "a:-1,2"}, {"ac_parallel_enable", "1"}}).warnings.empty());
  CHECK(parse({{"ac_parallel_enable", "1"}}).warnings.empty());  // the model may be dynamic
}

TEST_CASE("parse_dynamic_config never changes the options") {
  const BuildOptions o{{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", "1,2"}, {"ge.dynamicDims", "1;2"}};
  const BuildOptions before = o;
  expect_error([&] { return parse(o); }, ge::Errc::conflicting_options, "conflicting");
  CHECK(o == before);
  const BuildOptions ok{{"ge.inputShape", "a:-1,3"}, {"ge.dynamicBatchSize", "1,2"}};
  const BuildOptions ok_before = ok;
  (void)parse(ok);
  CHECK(ok == ok_before);
}

TEST_CASE("checked against the model's inputs") {
  const std::vector<ge::ModelInput> model{
      {"A", ge::Shape::parse("-1,32,208,208")}, {"B", ge::Shape{}}, {"C", ge::Shape{16, 64, 208, 208}}};
  const auto& cpu = ge::default_target();

  SUBCASE("every scalar input must be listed when gears are used") {
    const BuildOptions ok{{"ge.inputShape", "A:-1,32,208,208;B:;C:16,64,208,208"}, {"ge.dynamicBatchSize", "1,2,4"}};
    CHECK(ge::parse_dynamic_config(ok, cpu, model).mode == ShapeMode::gears);
    const BuildOptions no_b{{"ge.inputShape", "A:-1,32,208,208;C:16,64,208,208"}, {"ge.dynamicBatchSize", "1,2,4"}};
    expect_error([&] { return ge::parse_dynamic_config(no_b, cpu, model); }, ge::Errc::missing_scalar_input,
                 "scalar input 'B'", "'B:'");
  }
  SUBCASE("without gears a scalar may be left out") {
    const BuildOptions o{{"ge.inputShape", "A:1~8,32,208,208"}};
    CHECK(ge::parse_dynamic_config(o, cpu, model).mode == ShapeMode::ranges);
  }
  SUBCASE("a dynamic model needs INPUT_SHAPE for its non-fixed inputs") {
    expect_error([&] { return ge::parse_dynamic_config(BuildOptions{}, cpu, model); }, ge::Errc::missing_input_shape,
                 "'A'", "'-1,32,208,208'", "is not set");
    expect_error(
        [&] {
          return ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "C:16,64,208,208"}}, cpu, model);
        },
        ge::Errc::missing_input_shape, "does not list it");
    const std::vector<ge::ModelInput> fixed{{"x", ge::Shape{1, 2}}};
    CHECK(ge::parse_dynamic_config(BuildOptions{}, cpu, fixed).mode == ShapeMode::fixed);
  }
  SUBCASE("names must be the model's inputs") {
    expect_error(
        [&] {
          return ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "a:1,32,208,208"}}, cpu, model);
        },
        ge::Errc::unknown_input, "'a'", "did you mean 'A'?", "'A' 'B' 'C'");
    expect_error(
        [&] {
          return ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "zzz_input:1"}}, cpu, model);
        },
        ge::Errc::unknown_input, "'zzz_input'");
  }
  SUBCASE("positions must be in range") {
    expect_error(
        [&] {
          return ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "1,32,208,208;;16,64,208,208;1"}}, cpu, model);
        },
        ge::Errc::unknown_input, "4 inputs by position", "the model has 3");
    // With gears GE requires names; by position is for ranges.
    const BuildOptions pos{{"ge.inputShape", "-1,32,208,208;;16,64,208,208"}, {"ge.dynamicBatchSize", "1,2"}};
    expect_error([&] { return ge::parse_dynamic_config(pos, cpu, model); }, ge::Errc::bad_input_shape,
                 "'-1,32,208,208;;16,64,208,208'", "by position", "DYNAMIC_BATCH_SIZE", "every input is named");
    const BuildOptions ranged{{"ge.inputShape", "1~4,32,208,208;;16,64,208,208"}};
    CHECK(ge::parse_dynamic_config(ranged, cpu, model).mode == ShapeMode::ranges);
  }
  SUBCASE("each entry must fit the declared shape") {
    expect_error(
        [&] {
          return ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "A:1,32,208"}}, cpu, model);
        },
        ge::Errc::bad_input_shape, "rank 3, not 4", "'-1,32,208,208'");
    expect_error(
        [&] {
          return ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "A:1,31,208,208"}}, cpu, model);
        },
        ge::Errc::bad_input_shape, "'31' at dim 1");
    const std::vector<ge::ModelInput> any{{"x", ge::Shape::unknown_rank()}};
    CHECK(ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "x:1,2,3"}}, cpu, any).mode == ShapeMode::fixed);
  }
}
