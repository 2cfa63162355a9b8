#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ge/options/gears.hpp"
#include "support/expect_error.hpp"

using ge::BuildOptions;
using ge::test::expect_error;

namespace {
// Each gear's shapes as text, "s1 s2" per gear.
std::vector<std::string> shapes_of(const BuildOptions& o) {
  std::vector<std::string> out;
  for (const ge::Gear& g : ge::enumerate_gears(ge::parse_dynamic_config(o, ge::default_target()))) {
    std::string s;
    for (const ge::Shape& sh : g.shapes) {
      CHECK(sh.is_static());
      s += (s.empty() ? "" : " ") + sh.to_string();
    }
    out.push_back(s);
  }
  return out;
}
using S = std::vector<std::string>;
}  // namespace

TEST_CASE("the reference's DYNAMIC_DIMS examples") {
  CHECK(shapes_of({{"ge.inputFormat", "ND"}, {"ge.inputShape", "data:1,-1"}, {"ge.dynamicDims", "4;8;16;64"}}) ==
        S{"1,4", "1,8", "1,16", "1,64"});
  CHECK(shapes_of({{"ge.inputFormat", "ND"}, {"ge.inputShape", "data:1,-1,-1"}, {"ge.dynamicDims", "1,2;3,4;5,6;7,8"}}) ==
        S{"1,1,2", "1,3,4", "1,5,6", "1,7,8"});
}

TEST_CASE("batch gears fill every -1 first dim; other inputs stay") {
  CHECK(shapes_of({{"ge.inputShape", "data:-1,3,416,416"}, {"ge.dynamicBatchSize", "1,2,4,8"}}) ==
        S{"1,3,416,416", "2,3,416,416", "4,3,416,416", "8,3,416,416"});
  CHECK(shapes_of({{"ge.inputShape", "A:-1,32;B:;C:16,64"}, {"ge.dynamicBatchSize", "4,8"}}) ==
        S{"4,32  16,64", "8,32  16,64"});
  CHECK(shapes_of({{"ge.inputShape", "a:-1,3;b:-1,5"}, {"ge.dynamicBatchSize", "4,8"}}) == S{"4,3 4,5", "8,3 8,5"});
}

TEST_CASE("image gears fill H and W by format") {
  CHECK(shapes_of({{"ge.inputFormat", "NCHW"}, {"ge.inputShape", "data:8,3,-1,-1"}, {"ge.dynamicImageSize", "416,416;832,640"}}) ==
        S{"8,3,416,416", "8,3,832,640"});
  CHECK(shapes_of({{"ge.inputFormat", "NHWC"}, {"ge.inputShape", "data:8,-1,-1,3"},
                   {"ge.dynamicImageSize", "100,200;300,400"}}) == S{"8,100,200,3", "8,300,400,3"});
}

TEST_CASE("dims gears fill the -1s in order across inputs") {
  CHECK(shapes_of({{"ge.inputShape", "a:-1,2;b:3,-1"}, {"ge.dynamicDims", "1,4;5,6"}}) == S{"1,2 3,4", "5,2 3,6"});
  CHECK(shapes_of({{"ge.inputShape", "a:-1,-1;b:7;c:-1"}, {"ge.dynamicDims", "1,2,3;4,5,6"}}) == S{"1,2 7 3", "4,5 7 6"});
}

TEST_CASE("gear records carry their index and values") {
  const auto cfg = ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "x:-1"}, {"ge.dynamicBatchSize", "3,9"}},
                                            ge::default_target());
  const auto gears = ge::enumerate_gears(cfg);
  REQUIRE(gears.size() == 2);
  CHECK(gears[1].index == 1);
  CHECK(gears[1].values == std::vector<std::int64_t>{9});
  CHECK(gears[1].shapes.at(0) == ge::Shape{9});
}

TEST_CASE("no gears unless the mode is gears") {
  CHECK(ge::enumerate_gears(ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "x:1~4"}}, ge::default_target()))
            .empty());
  CHECK(ge::enumerate_gears(ge::parse_dynamic_config(BuildOptions{}, ge::default_target())).empty());
}

TEST_CASE("a hand-made config with too few dims per gear is refused, not read past") {
  auto cfg = ge::parse_dynamic_config(BuildOptions{{"ge.inputShape", "x:-1,-1"}, {"ge.dynamicDims", "1,2;3,4"}},
                                      ge::default_target());
  cfg.gears[1].pop_back();
  expect_error([&] { return ge::enumerate_gears(cfg); }, ge::Errc::gear_shape_mismatch, "gear 2");
}
