// Tests of conv_frames (ge/compile/passes.hpp): 3-D convs one frame deep become 2-D convs
// of the frames, elementwise ops between them follow, only a chain's ends move data; the
// outputs stay. Convs deeper than a frame, with depth pads or strides, or with weights
// that are not constants stay 3-D. Also through `ge::compile`, against the unoptimized
// graph.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "support/graph_eval.hpp"

#include "ge/compile/compile.hpp"
#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"

using ge::DataType;
using ge::Graph;
using ge::GraphBuilder;
using ge::Value;
using ge::test::check_same;
using ge::test::check_unchanged;
using ge::test::count;

namespace {

Value conv3(GraphBuilder& b, Value x, const std::string& name, std::vector<std::int64_t> w,
            std::vector<std::int64_t> pads, std::vector<std::int64_t> strides, std::uint64_t seed) {
  const Value k = b.random_weights(name + ".w", w, seed);
  const Value bias = b.random_uniform(name + ".b", {w[0]}, seed + 1, -1, 1);
  return b.op("Conv", {x, k, bias}, {{"pads", std::move(pads)}, {"strides", std::move(strides)}}, name);
}

// mc3's residual block on a volume of 3 frames: two 1x3x3 convs, the first with ReLU,
// the second summed with a 1x1x1 stride-(1, 2, 2) projection of the input, then ReLU.
Graph block_graph(const std::string& x_shape) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, x_shape);
  const Value a = b.op("Relu", {conv3(b, x, "conv1", {8, 4, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {1, 2, 2}, 11)}, {}, "relu1");
  const Value c = conv3(b, a, "conv2", {8, 8, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, 13);
  const Value p = conv3(b, x, "proj", {8, 4, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 2, 2}, 15);
  b.output(b.op("Relu", {b.op("Add", {c, p}, {}, "add")}, {}, "relu2"));
  return b.build();
}

std::size_t rank5_convs(const Graph& g) {
  std::size_t n = 0;
  for (const ge::Node& node : g.nodes())
    if ((node.op == "Conv" || node.op == "FusedConv") && g.value(node.inputs[0]).desc.shape.rank() == 5) ++n;
  return n;
}

}  // namespace

TEST_CASE("conv_frames: a residual block of 1x3x3 convs runs on frames, moved in once and out once") {
  // A batch that may be 1 leaves the residual Add on the volume (it could broadcast, as
  // far as the dims tell): a third Transpose, the sum's ReLU after it.
  const std::vector<std::pair<std::string, int>> cases = {
      {"2,4,3,10,10", 2}, {"1,4,5,7,9", 2}, {"2~4,4,3,10,10", 2}, {"1~3,4,3,10,10", 3}};
  for (const auto& [shape, transposes] : cases) {
    CAPTURE(shape);
    const Graph g = block_graph(shape);
    ge::PassStats st;
    const Graph t = ge::conv_frames(g, &st);
    CHECK(st.pass == "conv_frames");
    CHECK(rank5_convs(t) == 0);
    CHECK(count(t, "Conv") == 3);
    CHECK(count(t, "Transpose") == transposes);  // the input to frames, the output back
    CHECK(count(t, "Relu") == 2);
    if (transposes == 2)
      for (const ge::Node& n : t.nodes())
        if (n.op != "Transpose" && n.op != "Reshape") CHECK(t.value(n.outputs[0]).desc.shape.rank() == 4);
    check_same(g, t, 1e-5);
  }
}

TEST_CASE("conv_frames: compiled with every pass, the block gives the unoptimized graph's outputs") {
  const Graph g = block_graph("2,4,3,10,10");
  const std::vector<std::int64_t> dims{2, 4, 3, 10, 10};
  std::vector<float> x(2 * 4 * 3 * 10 * 10);
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (float& v : x) v = u(gen);
  const auto run = [&](const ge::CompileSettings& s) {
    ge::Session session(ge::compile(g, {}, ge::default_target(), s), {.threads = 2});
    const auto r = session.run({ge::TensorView{x.data(), DataType::f32, dims}});
    const auto v = r.outputs.at(0).values<float>();
    return std::vector<float>(v.begin(), v.end());
  };
  const auto plain = run({.optimize = false}), all = run({});
  REQUIRE(plain.size() == all.size());
  for (std::size_t i = 0; i < plain.size(); ++i) CHECK(all[i] == doctest::Approx(plain[i]).epsilon(1e-4));
  const Graph o = ge::optimize(g);
  CHECK(rank5_convs(o) == 0);
  CHECK(count(o, "Conv") + count(o, "FusedConv") == 3);
}

TEST_CASE("conv_frames leaves 3-D convs that are not one frame deep, and ops that do not read frames") {
  const auto one = [](std::vector<std::int64_t> w, std::vector<std::int64_t> pads, std::vector<std::int64_t> strides) {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,4,4,6,6");
    b.output(b.op("Relu", {conv3(b, x, "conv", std::move(w), std::move(pads), std::move(strides), 3)}, {}, "relu"));
    return b.build();
  };
  check_unchanged(one({8, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}), ge::conv_frames(one({8, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1})));
  const Graph pad_d = one({8, 4, 1, 3, 3}, {1, 1, 1, 0, 1, 1}, {1, 1, 1});
  check_unchanged(pad_d, ge::conv_frames(pad_d));
  const Graph stride_d = one({8, 4, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {2, 1, 1});
  check_unchanged(stride_d, ge::conv_frames(stride_d));
  // Weights given at run time: no constant to view as 2-D.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,4,4,6,6");
  const Value w = b.input("w", DataType::f32, "8,4,1,3,3");
  b.output(b.op("Conv", {x, w}, {{"pads", std::vector<std::int64_t>{0, 1, 1, 0, 1, 1}}}, "conv"));
  const Graph runtime_w = b.build();
  check_unchanged(runtime_w, ge::conv_frames(runtime_w));
  // A frames conv whose output a 3-D conv reads: the way back stays, the Relu between
  // them runs on frames.
  GraphBuilder c;
  const Value y = c.input("x", DataType::f32, "1,4,4,6,6");
  const Value r = c.op("Relu", {conv3(c, y, "a", {4, 4, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, 7)}, {}, "relu");
  c.output(conv3(c, r, "b", {4, 4, 3, 1, 1}, {1, 0, 0, 1, 0, 0}, {1, 1, 1}, 9));
  const Graph mixed = c.build();
  const Graph t = ge::conv_frames(mixed);
  CHECK(rank5_convs(t) == 1);
  CHECK(count(t, "Transpose") == 2);
  check_same(mixed, t, 1e-5);
}
