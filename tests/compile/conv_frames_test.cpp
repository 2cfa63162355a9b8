// Tests of conv_frames (ge/compile/passes.hpp): 3-D convs one frame deep become 2-D convs
// of the frames, ones one pixel wide 2-D convs of the temporal view, elementwise ops
// between them follow, only a chain's ends move data; the outputs stay. Other convs, and
// convs with weights that are not constants, stay 3-D. Also through `ge::compile`, against the unoptimized
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

TEST_CASE("conv_frames leaves 3-D convs neither one frame deep nor one pixel wide, and convs with run-time weights") {
  const auto one = [](std::vector<std::int64_t> w, std::vector<std::int64_t> pads, std::vector<std::int64_t> strides) {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,4,4,6,6");
    b.output(b.op("Relu", {conv3(b, x, "conv", std::move(w), std::move(pads), std::move(strides), 3)}, {}, "relu"));
    return b.build();
  };
  check_unchanged(one({8, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}), ge::conv_frames(one({8, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1})));
  const Graph pad_d = one({8, 4, 1, 3, 3}, {1, 1, 1, 0, 1, 1}, {1, 1, 1});
  check_unchanged(pad_d, ge::conv_frames(pad_d));
  // A depth stride over 4 frames of a volume no other conv reads in a form: picking its
  // frames would take a Transpose each way that the 3-D conv does without.
  const Graph stride_d = one({8, 4, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {2, 1, 1});
  check_unchanged(stride_d, ge::conv_frames(stride_d));
  const Graph deep_wide = one({8, 4, 2, 3, 1}, {0, 1, 0, 0, 1, 0}, {1, 1, 1});  // 2 frames deep, 3 pixels tall
  check_unchanged(deep_wide, ge::conv_frames(deep_wide));
  const Graph pad_hw = one({8, 4, 3, 1, 1}, {1, 1, 0, 1, 1, 0}, {1, 1, 1});  // one pixel wide, spatial pads
  check_unchanged(pad_hw, ge::conv_frames(pad_hw));
  // Weights given at run time: no constant to view as 2-D.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,4,4,6,6");
  const Value w = b.input("w", DataType::f32, "8,4,1,3,3");
  b.output(b.op("Conv", {x, w}, {{"pads", std::vector<std::int64_t>{0, 1, 1, 0, 1, 1}}}, "conv"));
  const Graph runtime_w = b.build();
  check_unchanged(runtime_w, ge::conv_frames(runtime_w));
  // A 3x1x1 conv reading a frames conv's output runs on the temporal view: the Relu
  // between them on frames, one Transpose from frames to the view, none back.
  GraphBuilder c;
  const Value y = c.input("x", DataType::f32, "1,4,4,6,6");
  const Value r = c.op("Relu", {conv3(c, y, "a", {4, 4, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, 7)}, {}, "relu");
  c.output(conv3(c, r, "b", {4, 4, 3, 1, 1}, {1, 0, 0, 1, 0, 0}, {1, 1, 1}, 9));
  const Graph mixed = c.build();
  const Graph t = ge::conv_frames(mixed);
  CHECK(rank5_convs(t) == 0);
  CHECK(count(t, "Transpose") == 2);  // the input to frames, frames to the temporal view
  check_same(mixed, t, 1e-5);
}

namespace {

// R(2+1)D's blocks on a volume of 4 frames: 1x3x3 spatial and 3x1x1 temporal convs with
// ReLUs, the second of each block with a depth stride of 2 and summed with a 1x1x1 conv of
// stride 2 in depth (and in H and W in the first), the sum's ReLU; the second block ends at
// one frame.
Graph r2plus1d_graph(const std::string& x_shape) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, x_shape);
  const auto relu = [&](Value v, const std::string& name) { return b.op("Relu", {v}, {}, name); };
  const std::vector<std::int64_t> spatial_pads{0, 1, 1, 0, 1, 1}, temporal_pads{1, 0, 0, 1, 0, 0}, none(6, 0);
  Value y = relu(conv3(b, x, "s1", {8, 4, 1, 3, 3}, spatial_pads, {1, 1, 1}, 21), "r1");
  y = relu(conv3(b, y, "t1", {8, 8, 3, 1, 1}, temporal_pads, {1, 1, 1}, 23), "r2");
  y = relu(conv3(b, y, "s2", {8, 8, 1, 3, 3}, spatial_pads, {1, 2, 2}, 25), "r3");
  y = conv3(b, y, "t2", {8, 8, 3, 1, 1}, temporal_pads, {2, 1, 1}, 27);
  const Value p1 = conv3(b, x, "p1", {8, 4, 1, 1, 1}, none, {2, 2, 2}, 29);
  const Value a = relu(b.op("Add", {y, p1}, {}, "add1"), "r4");
  y = relu(conv3(b, a, "s3", {8, 8, 1, 3, 3}, spatial_pads, {1, 1, 1}, 31), "r5");
  y = conv3(b, y, "t3", {8, 8, 3, 1, 1}, temporal_pads, {2, 1, 1}, 33);
  const Value p2 = conv3(b, a, "p2", {8, 8, 1, 1, 1}, none, {2, 1, 1}, 35);
  b.output(relu(b.op("Add", {y, p2}, {}, "add2"), "r6"));
  return b.build();
}

std::vector<float> run_r2plus1d(const Graph& g, const ge::CompileSettings& s) {
  const std::vector<std::int64_t> dims{2, 4, 4, 6, 6};
  std::vector<float> x(2 * 4 * 4 * 6 * 6);
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (float& v : x) v = u(gen);
  ge::Session session(ge::compile(g, {}, ge::default_target(), s), {.threads = 2});
  const auto r = session.run({ge::TensorView{x.data(), DataType::f32, dims}});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("conv_frames: R(2+1)D's temporal convs run on the temporal view, depth strides pick frames, all 2-D") {
  for (const std::string shape : {"2,4,4,6,6", "1,4,4,6,6", "2~4,4,4,6,6", "1~3,4,4,6,6"}) {
    CAPTURE(shape);
    const Graph g = r2plus1d_graph(shape);
    const Graph t = ge::conv_frames(g);
    CHECK(rank5_convs(t) == 0);
    CHECK(count(t, "Conv") == 8);
    // The frames the strided 1x1x1 convs read; a batch that may be 1 leaves the first sum
    // on the volume (it could broadcast), and the second 1x1x1 conv, to one frame, reads
    // the frames stacked as channels.
    CHECK(count(t, "Slice") == (shape.starts_with("1~") ? 1 : 2));
    check_same(g, t, 1e-5);
  }
}

TEST_CASE("conv_frames with the layout pass: R(2+1)D's blocks run NHWC from end to end, one Transpose in, one out") {
  const Graph g = r2plus1d_graph("2,4,4,6,6");
  const Graph o = ge::optimize(g);
  CHECK(rank5_convs(o) == 0);
  CHECK(count(o, "Conv") + count(o, "FusedConv") == 8);
  for (const ge::Node& n : o.nodes())
    if (n.op == "FusedConv") CHECK(n.attrs.at("layout").as_string() == "NHWC");
  CHECK(count(o, "Transpose") == 2);  // frames and temporal views are the same floats on NHWC
  const auto plain = run_r2plus1d(g, {.optimize = false}), all = run_r2plus1d(g, {});
  REQUIRE(plain.size() == all.size());
  for (std::size_t i = 0; i < plain.size(); ++i) CHECK(all[i] == doctest::Approx(plain[i]).epsilon(1e-4));
}

TEST_CASE("conv_frames: 3-D convs to one frame run as 2-D convs of the frames stacked as channels (R3D's last stage)") {
  for (const std::string shape : {"2,4,2,6,6", "1~3,4,2,6,6"}) {
    CAPTURE(shape);
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, shape);
    // 3x3x3, stride 2, pads 1: frames 0 and 1 read by taps 1 and 2; the projection reads frame 0.
    const Value c = b.op("Relu", {conv3(b, x, "c", {8, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {2, 2, 2}, 41)}, {}, "relu");
    const Value p = conv3(b, x, "p", {8, 4, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {2, 2, 2}, 43);
    b.output(b.op("Add", {c, p}, {}, "add"));
    const Graph g = b.build();
    const Graph t = ge::conv_frames(g);
    CHECK(rank5_convs(t) == 0);
    CHECK(count(t, "Transpose") == 0);  // one frame: Reshapes only
    for (const ge::Node& n : t.nodes())
      if (n.op == "Conv") CHECK(t.value(n.inputs[1]).desc.shape.to_string() == (n.name == "c" ? "8,8,3,3" : "8,8,1,1"));
    check_same(g, t, 1e-5);
  }
  // One frame in four read (a depth stride of 4 over 4 frames): not stacked (3/4 of the
  // products would be zeros), the frame picked by a Slice instead.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,4,4,6,6");
  b.output(conv3(b, x, "p", {8, 4, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {4, 1, 1}, 45));
  const Graph g = b.build();
  const Graph t = ge::conv_frames(g);
  CHECK(rank5_convs(t) == 0);
  CHECK(count(t, "Slice") == 1);
  check_same(g, t, 1e-5);
}

TEST_CASE("conv_frames: a grouped, depth-dilated 3-D conv to one frame on stacked frames, its middle frame unread") {
  // 3 frames, kernel depth 2 dilated by 2: frames 0 and 2 read, frame 1 by no tap (zero weights).
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,4,3,6,6");
  const Value k = b.random_weights("k", {8, 2, 2, 3, 3}, 51);
  const Value bias = b.random_uniform("k.b", {8}, 52, -1, 1);
  b.output(b.op("Conv", {x, k, bias},
                {{"pads", std::vector<std::int64_t>{0, 1, 1, 0, 1, 1}},
                 {"dilations", std::vector<std::int64_t>{2, 1, 1}},
                 {"group", std::int64_t{2}}},
                "c"));
  const Graph g = b.build();
  const Graph t = ge::conv_frames(g);
  CHECK(rank5_convs(t) == 0);
  CHECK(count(t, "Transpose") == 0);
  for (const ge::Node& n : t.nodes())
    if (n.op == "Conv") CHECK(t.value(n.inputs[1]).desc.shape.to_string() == "8,6,3,3");
  check_same(g, t, 1e-5);
}
