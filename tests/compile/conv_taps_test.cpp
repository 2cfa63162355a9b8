// Tests of trim_conv_taps (ge/compile/passes.hpp): the outer taps of a Conv that only
// read padding go, the kernel, pads and dilations follow, the outputs stay; convs whose
// every tap reads the image, or whose trim would need a negative pad, stay as they are.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "support/graph_eval.hpp"

#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"

using ge::DataType;
using ge::Graph;
using ge::GraphBuilder;
using ge::Value;
using ge::test::check_same;
using ge::test::check_unchanged;
using ge::test::node;

namespace {

struct ConvCase {
  std::string x = "1,4,14,14";
  std::vector<std::int64_t> w{6, 4, 3, 3};
  std::vector<std::int64_t> dilations{36, 36};
  std::vector<std::int64_t> pads{36, 36, 36, 36};
  std::vector<std::int64_t> strides{1, 1};
  std::int64_t group = 1;
  bool bias = true;
  std::string auto_pad = "NOTSET";
  bool weight_input = false;  // the weights a graph input, not a constant
};

Graph conv_graph(const ConvCase& c) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, c.x);
  const Value w = c.weight_input ? b.input("w", DataType::f32, ge::Shape(std::vector<ge::Dim>(c.w.begin(), c.w.end()))) : b.random_weights("w", c.w, 3);
  std::vector<Value> in{x, w};
  if (c.bias) in.push_back(b.random_uniform("b", {c.w[0]}, 4, -1, 1));
  ge::Attributes a{{"dilations", c.dilations}, {"strides", c.strides}, {"group", c.group}, {"auto_pad", c.auto_pad}};
  if (c.auto_pad == "NOTSET") a.emplace("pads", c.pads);
  b.output(b.op("Conv", in, a, "conv"));
  return b.build();
}

std::vector<std::int64_t> ints(const ge::Node& n, const std::string& name) { return n.attrs.at(name).as_ints(); }

const ge::Tensor& weight(const Graph& g) {
  const ge::Tensor* t = g.constant_of(node(g, "conv").inputs[1]);
  REQUIRE(t != nullptr);
  return *t;
}

}  // namespace

TEST_CASE("trim_conv_taps: a rate-36 3x3 conv over 14x14 is a 1x1 conv") {
  const Graph g = conv_graph({});
  ge::PassStats st;
  const Graph t = ge::trim_conv_taps(g, &st);
  CHECK(st.pass == "trim_conv_taps");
  CHECK(st.constants_added == 1);
  const ge::Node& n = node(t, "conv");
  CHECK(ints(n, "kernel_shape") == std::vector<std::int64_t>{1, 1});
  CHECK(ints(n, "pads") == std::vector<std::int64_t>{0, 0, 0, 0});
  CHECK(ints(n, "dilations") == std::vector<std::int64_t>{1, 1});
  CHECK(weight(t).dims() == std::vector<std::int64_t>{6, 4, 1, 1});
  CHECK(t.value(n.inputs[1]).name == "conv.weight.trimmed");
  check_same(g, t, 1e-5);
}

TEST_CASE("trim_conv_taps keeps the live box: 5x5 at rate 2 over 4x4, and a strided grouped 1-D conv") {
  // Taps at offsets -4, -2, 0, 2, 4 over 4 rows and columns: the outer two never land inside.
  const Graph g = conv_graph({.x = "2,4,4,4", .w = {6, 4, 5, 5}, .dilations = {2, 2}, .pads = {4, 4, 4, 4}});
  const Graph t = ge::trim_conv_taps(g);
  const ge::Node& n = node(t, "conv");
  CHECK(ints(n, "kernel_shape") == std::vector<std::int64_t>{3, 3});
  CHECK(ints(n, "pads") == std::vector<std::int64_t>{2, 2, 2, 2});
  CHECK(ints(n, "dilations") == std::vector<std::int64_t>{2, 2});
  check_same(g, t, 1e-5);
  // 1-D, stride 2, two groups, pads 8 before and none after: tap 0 reads -8, -6, -4 only.
  const Graph g1 = conv_graph(
      {.x = "1,4,6", .w = {4, 2, 3}, .dilations = {4}, .pads = {8, 0}, .strides = {2}, .group = 2, .bias = false});
  const Graph t1 = ge::trim_conv_taps(g1);
  const ge::Node& n1 = node(t1, "conv");
  CHECK(ints(n1, "kernel_shape") == std::vector<std::int64_t>{2});
  CHECK(ints(n1, "pads") == std::vector<std::int64_t>{4, 0});
  CHECK(ints(n1, "dilations") == std::vector<std::int64_t>{4});
  check_same(g1, t1, 1e-5);
}

TEST_CASE("trim_conv_taps decides on a ranged dim's upper bound, and the trim holds below it") {
  const Graph g = conv_graph({.x = "1,4,10~14,10~14"});
  const Graph t = ge::trim_conv_taps(g);
  CHECK(ints(node(t, "conv"), "kernel_shape") == std::vector<std::int64_t>{1, 1});
  check_same(g, t, 1e-5);  // at the upper bound
  const std::map<std::string, ge::Tensor> small{{"x", ge::Tensor::random(DataType::f32, {1, 4, 10, 12}, 9)}};
  CHECK(ge::test::relative_error(ge::test::run(t, small), ge::test::run(g, small)) <= 1e-5);
}

TEST_CASE("trim_conv_taps leaves a conv alone when every tap is live or a condition fails") {
  for (const ConvCase& c : {
           ConvCase{.x = "1,4,8,8", .dilations = {1, 1}, .pads = {1, 1, 1, 1}},  // every tap reads the image
           ConvCase{.x = "1,4,-1,-1"},                                           // no upper bound
           ConvCase{.x = "1,4,14~inf,14"},
           ConvCase{.auto_pad = "SAME_UPPER"},
           ConvCase{.weight_input = true},
           // Only the middle tap reads row 1 of 2, but dropping tap 0 would take pad 2 to -1.
           ConvCase{.x = "1,4,2,2", .dilations = {3, 3}, .pads = {2, 2, 3, 3}},
       }) {
    CAPTURE(c.x);
    const Graph g = conv_graph(c);
    const Graph t = ge::trim_conv_taps(g);
    check_unchanged(g, t);
    CHECK(ints(node(t, "conv"), "dilations") == c.dilations);
  }
}

TEST_CASE("optimize trims before it fuses: the trimmed conv still takes its BatchNormalization and Relu") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,8,14,14");
  const Value y = b.op("Conv", {x, b.random_weights("w", {8, 8, 3, 3}, 5)},
                       {{"dilations", {24, 24}}, {"pads", {24, 24, 24, 24}}}, "conv");
  const Value bn = b.op("BatchNormalization",
                        {y, b.random_uniform("s", {8}, 1, 0.5, 1.5), b.random_uniform("bb", {8}, 2, -1, 1),
                         b.random_uniform("m", {8}, 3, -1, 1), b.random_uniform("v", {8}, 4, 0.5, 1.5)},
                        {}, "bn");
  b.output(bn.relu("act"));
  const Graph g = b.build();
  std::vector<ge::PassStats> stats;
  const Graph o = ge::optimize(g, &stats);
  REQUIRE(o.nodes().size() == 1);
  CHECK(o.nodes()[0].op == "FusedConv");
  CHECK(ints(o.nodes()[0], "kernel_shape") == std::vector<std::int64_t>{1, 1});
  CHECK(stats.at(2).pass == "trim_conv_taps");
  check_same(g, o, 1e-4);
}
