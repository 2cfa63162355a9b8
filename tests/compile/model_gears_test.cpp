// Tests of ge::batch_gears (options from the graph's declared inputs) and
// CompiledModel::gear_for (the gear for real dims, exact or rounded up).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;
using Dims = std::vector<std::vector<std::int64_t>>;

namespace {
ge::Graph relu_graph(const char* shape) {
  ge::GraphBuilder b;
  b.output(b.op("Relu", {b.input("x", DataType::f32, shape)}, {}, "y"));
  return b.build();
}
}  // namespace

TEST_CASE("batch_gears: gears over the graph's own -1 batch, no shape text") {
  const ge::Graph g = relu_graph("-1,4");
  const ge::BuildOptions opts = ge::batch_gears(g, {1, 2, 4, 8});
  CHECK(opts.text(ge::Option::input_shape) == "x:-1,4");
  CHECK(opts.text(ge::Option::dynamic_batch_size) == "1,2,4,8");
  const auto model = ge::compile(g, opts);
  CHECK(model->mode() == ge::ShapeMode::gears);
  REQUIRE(model->plans().size() == 4);
  // A graph without a -1 has nowhere to put the gears: the options' own error.
  CHECK(ge::test::error_of([] { (void)ge::compile(relu_graph("2,4"), ge::batch_gears(relu_graph("2,4"), {1, 2})); })
            .code() != Errc::ok);
}

TEST_CASE("gear_for: the exact gear, or the smallest one to pad into") {
  const ge::Graph g = relu_graph("-1,4");
  const auto model = ge::compile(g, ge::batch_gears(g, {8, 1, 4}));
  CHECK(model->gear_for(Dims{{1, 4}}) == 1);
  CHECK(model->gear_for(Dims{{4, 4}}) == 2);
  CHECK_FALSE(model->gear_for(Dims{{3, 4}}).has_value());
  CHECK(model->gear_for(Dims{{3, 4}}, true) == 2);  // batch 4, not 8
  CHECK(model->gear_for(Dims{{5, 4}}, true) == 0);
  CHECK_FALSE(model->gear_for(Dims{{9, 4}}, true).has_value());
  CHECK_FALSE(model->gear_for(Dims{{2, 5}}, true).has_value());  // no gear has 5 columns
  ge::test::expect_error([&] { (void)model->gear_for(Dims{{2, 4}, {1}}); }, Errc::bad_tensor, "2 inputs given");
  ge::test::expect_error([&] { (void)model->gear_for(Dims{{2, 4, 1}}); }, Errc::bad_tensor, "input 'x' has rank 3");
  // A model without gears has none to give.
  CHECK_FALSE(ge::compile(relu_graph("2,4"))->gear_for(Dims{{2, 4}}).has_value());
}

TEST_CASE("image_gears and dims_gears: the other gear options over the graph's own -1 dims") {
  ge::GraphBuilder b;
  b.output(b.op("Relu", {b.input("img", DataType::f32, "1,3,-1,-1")}, {}, "y"));
  const ge::Graph g = b.build();
  const std::vector<std::vector<std::int64_t>> sizes{{32, 32}, {48, 64}};
  const ge::BuildOptions image = ge::image_gears(g, sizes);
  CHECK(image.text(ge::Option::dynamic_image_size) == "32,32;48,64");
  const auto m = ge::compile(g, image);
  CHECK(m->gear_for(Dims{{1, 3, 48, 64}}) == 1);
  const ge::BuildOptions dims = ge::dims_gears(g, sizes);
  CHECK(dims.text(ge::Option::input_shape) == "img:1,3,-1,-1");
  CHECK(dims.text(ge::Option::dynamic_dims) == "32,32;48,64");
  CHECK(ge::compile(g, dims)->plans().size() == 2);
  // A gear with the wrong count of values: the option's own error.
  const std::vector<std::vector<std::int64_t>> bad{{32}};
  CHECK(ge::test::error_of([&] { (void)ge::compile(g, ge::image_gears(g, bad)); }).code() != Errc::ok);
}

// A gear of 2^61 overflows the input's bytes and is refused; int64's largest value is
// Dim::inf and once compiled as an unbounded "static" gear. Both are int_overflow.
TEST_CASE("batch gears of 2^61 and of int64's largest value are int_overflow, through every way in") {
  const ge::Graph g = relu_graph("-1,4");
  for (const char* big : {"2305843009213693952", "9223372036854775807"}) {
    CAPTURE(big);
    ge::test::expect_error([&] {
      const ge::BuildOptions opts{{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", std::string("1,") + big}};
      (void)ge::compile(g, opts);
    }, Errc::int_overflow);
  }
  ge::test::expect_error([&] { (void)ge::batch_gears(g, {1, INT64_MAX}); }, Errc::int_overflow);
  ge::test::expect_error([&] { (void)ge::dims_gears(g, Dims{{1}, {INT64_MAX}}); }, Errc::int_overflow);
}
