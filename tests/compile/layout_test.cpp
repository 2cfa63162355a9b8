// Tests of ge::layout_nhwc (ge/compile/passes.hpp): which convs run on NHWC images,
// where the Transposes go, and that the graph computes what it computed (node by node
// through compile_op/execute_op, and compiled as a whole at several batch sizes).
#include <doctest/doctest.h>

#include "support/expect_error.hpp"
#include "support/graph_eval.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "kernels/cpu/common.hpp"

using ge::DataType;
using ge::Graph;
using ge::GraphBuilder;
using ge::Value;

namespace {

using ge::test::Buffer;
using ge::test::buffer_of;
using ge::test::check_same;
using ge::test::check_unchanged;
using ge::test::expect_error;
using ge::test::count;
using ge::test::node;

Value weights(GraphBuilder& b, const std::string& name, std::int64_t out_c, std::int64_t in_c, std::int64_t k,
              std::uint64_t seed) {
  return b.random_weights(name + ".w", {out_c, in_c, k, k}, seed);
}

Value bias(GraphBuilder& b, const std::string& name, std::int64_t c, std::uint64_t seed) {
  return b.random_uniform(name + ".b", {c}, seed, -0.5, 0.5);
}

std::size_t nhwc_convs(const Graph& g) {
  std::size_t n = 0;
  for (const ge::Node& x : g.nodes()) {
    if (x.op == "FusedPointwiseDepthwise" || x.op == "FusedDepthwisePointwise") n += 2;  // (NHWC only)
    if (x.op == "FusedConv" && x.attrs.contains("layout") && x.attrs.at("layout").as_string() == "NHWC") ++n;
  }
  return n;
}

// An inverted residual block's convs: expand 1x1 + ReLU6, depthwise 3x3 + ReLU6,
// project 1x1, the residual added.
Value block(GraphBuilder& b, Value x, const std::string& name, std::int64_t c, std::int64_t wide, std::uint64_t seed) {
  const Value e = x.conv2d(weights(b, name + ".expand", wide, c, 1, seed), bias(b, name + ".expand", wide, seed + 1),
                           {.name = name + ".expand"})
                      .clip(0.0, 6.0);
  const Value d = e.conv2d(weights(b, name + ".dw", wide, 1, 3, seed + 2), bias(b, name + ".dw", wide, seed + 3),
                           {.pad = 1, .group = wide, .name = name + ".dw"})
                      .clip(0.0, 6.0);
  return d.conv2d(weights(b, name + ".project", c, wide, 1, seed + 4), bias(b, name + ".project", c, seed + 5),
                  {.name = name + ".project"}) +
         x;
}

}  // namespace

TEST_CASE("layout_nhwc pass: a chain of dense, pointwise and depthwise convs runs NHWC between two Transposes") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,8,10,12");
  const Value stem = x.conv2d(weights(b, "stem", 16, 8, 3, 1), {.pad = 1, .name = "stem"}).relu("stem.relu");
  const Value y = block(b, block(b, stem, "b1", 16, 40, 10), "b2", 16, 24, 20);
  b.output(y.conv2d(weights(b, "head", 8, 16, 3, 30), {.pad = 1, .name = "head"}));
  const Graph g = ge::fuse_activations(b.build());

  ge::PassStats st;
  const Graph o = ge::layout_nhwc(g, &st);
  CHECK(st.pass == "layout_nhwc");
  CHECK(nhwc_convs(o) == 8);  // the blocks' convs and the 3x3 stem and head they join
  CHECK(count(o, "Transpose") == 2);  // x in, the head's output out
  CHECK(st.nodes_added == 2);
  CHECK(node(o, "stem").attrs.at("layout").as_string() == "NHWC");
  CHECK(node(o, "b1.dw").attrs.at("layout").as_string() == "NHWC");
  CHECK(node(o, "b1.expand").op == "FusedConv");
  // The block's residual (the stem's output) comes in NHWC: the first block reads it twice.
  CHECK(o.value(node(o, "b1.project").inputs[3]).name == "stem.relu.nhwc");
  CHECK(o.value(node(o, "b1.expand").inputs[0]).name == "stem.relu.nhwc");
  CHECK(o.value(node(o, "b1.dw").outputs[0]).desc.shape.to_string() == "2,10,12,40");
  CHECK(o.value(node(o, "head").inputs[0]).name == g.value(node(g, "head").inputs[0]).name + ".nhwc");
  CHECK(o.value(o.outputs()[0]).name == g.value(g.outputs()[0]).name);  // NCHW again, same name
  check_same(g, o, 1e-4);
}

TEST_CASE("layout_nhwc pass: dense 3x3 convs without a 1x1 (ResNet-18's basic blocks) run NHWC at 4 convs per Transpose") {
  for (const int convs : {8, 7}) {
    CAPTURE(convs);
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,8,9,11");
    Value y = x;
    for (int i = 0; i < convs; ++i) {
      const std::string name = "c" + std::to_string(i);
      const Value c = y.conv2d(weights(b, name, 8, 8, 3, 40 + i), bias(b, name, 8, 60 + i), {.pad = 1, .name = name});
      y = i % 2 == 1 ? (c + y).relu() : c.relu();  // a residual sum every second conv
    }
    b.output(y);
    const Graph g = ge::fuse_activations(b.build());
    const Graph o = ge::layout_nhwc(g);
    if (convs == 7) {
      check_unchanged(g, o);  // two Transposes for 7 convs
      continue;
    }
    CHECK(nhwc_convs(o) == 8);
    CHECK(count(o, "Transpose") == 2);
    check_same(g, o, 1e-4);
  }
}

TEST_CASE("layout_nhwc pass: a Reshape that regroups pixels, channels kept, is a Reshape on NHWC (no Transpose)") {
  // [2, 8, 6, 8] -> [2, 8, 12, 4] alone; [2, 8, 6, 8] -> [1, 2, 8, 48] -> (0, 2, 1, 3) and
  // back: the frames and temporal view of conv_frames, the same floats on NHWC.
  for (const bool pair : {false, true}) {
    CAPTURE(pair);
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,8,6,8");
    Value y = x;
    for (int i = 0; i < 4; ++i) {
      const std::string name = "a" + std::to_string(i);
      y = y.conv2d(weights(b, name, 8, 8, 3, 70 + i), bias(b, name, 8, 80 + i), {.pad = 1, .name = name}).relu();
    }
    const auto shape = [&](std::vector<std::int64_t> d) {
      return b.constant("shape" + std::to_string(d.size()) + std::to_string(d[1]), ge::Tensor::from<std::int64_t>({4}, d));
    };
    if (!pair) {
      y = b.op("Reshape", {y, shape({2, 8, 12, 4})}, {}, "regroup");
    } else {
      y = b.op("Transpose", {b.op("Reshape", {y, shape({1, 2, 8, 48})}, {}, "to_view")},
               {{"perm", std::vector<std::int64_t>{0, 2, 1, 3}}}, "view");
      y = y.conv2d(weights(b, "mid", 8, 8, 1, 90), bias(b, "mid", 8, 91), {.name = "mid"});  // on [1, 8, 2, 48]
      y = b.op("Reshape", {b.op("Transpose", {y}, {{"perm", std::vector<std::int64_t>{0, 2, 1, 3}}}, "unview"),
                           shape({2, 8, 6, 8})},
               {}, "to_frames");
    }
    for (int i = 0; i < 4; ++i) {
      const std::string name = "c" + std::to_string(i);
      y = y.conv2d(weights(b, name, 8, 8, 3, 50 + i), bias(b, name, 8, 60 + i), {.pad = 1, .name = name}).relu();
    }
    b.output(y);
    const Graph g = ge::fuse_activations(b.build());
    const Graph o = ge::layout_nhwc(g);
    CHECK(nhwc_convs(o) == (pair ? 9 : 8));
    CHECK(count(o, "Transpose") == 2);  // x in, the output out
    check_same(g, o, 1e-4);
  }
}

TEST_CASE("layout_nhwc pass: values read outside the chain go back to NCHW; graph outputs keep their names") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,16,9,9");
  const Value d = x.conv2d(weights(b, "dw", 16, 1, 3, 1), {.pad = 1, .group = 16, .name = "dw"}).relu("dw.relu");
  const Value p = d.conv2d(weights(b, "pw", 12, 16, 1, 2), {.name = "pw"});
  b.output(p);                                                  // a chain value as a graph output
  b.output(d.max_pool({3, 2, 1}));                              // and read by a node outside the chain
  const Graph g = ge::fuse_activations(b.build());
  const Graph o = ge::layout_nhwc(g);
  CHECK(nhwc_convs(o) == 2);
  CHECK(count(o, "Transpose") == 3);  // x in; dw.relu and pw back
  CHECK(o.value(o.outputs()[0]).name == g.value(g.outputs()[0]).name);
  CHECK(o.value(o.outputs()[0]).desc.shape.to_string() == "1,12,9,9");
  check_same(g, o, 1e-4);
}

TEST_CASE("layout_nhwc pass leaves alone what gains nothing or does not fit") {
  SUBCASE("two 1x1 convs without a depthwise one: too short to pay for its Transposes") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,8,6,6");
    b.output(x.conv2d(weights(b, "a", 8, 8, 1, 1), {.name = "a"}).relu().conv2d(weights(b, "c", 4, 8, 1, 2)));
    const Graph g = ge::fuse_activations(b.build());
    check_unchanged(g, ge::layout_nhwc(g));
  }
  SUBCASE("a depthwise conv with auto_pad, strided and dilated 1x1s, runtime weights, grouped convs") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,8,12,12");
    const Value w = b.input("w", DataType::f32, "8,1,3,3");
    b.output(x.conv2d(weights(b, "same", 8, 1, 3, 1), {.group = 8, .auto_pad = "SAME_UPPER", .name = "same"}));
    b.output(x.conv2d(w, {.pad = 1, .group = 8, .name = "runtime_w"}));
    b.output(x.conv2d(weights(b, "grouped", 8, 2, 3, 2), {.pad = 1, .group = 4, .name = "grouped"}));
    b.output(x.conv2d(weights(b, "strided", 8, 8, 1, 3), {.stride = 2, .name = "strided"}));
    const Graph g = b.build();
    check_unchanged(g, ge::layout_nhwc(g));
  }
  SUBCASE("dense chains off (what compile asks for bf16 convs on AMX): ResNet-50 unchanged, MobileNetV2 not") {
    const Graph r = ge::fuse_activations(ge::fold_batch_norm(ge::models::resnet50("1,3,32,32")));
    check_unchanged(r, ge::layout_nhwc(r, nullptr, false));
    const Graph m = ge::fuse_activations(ge::fold_batch_norm(ge::models::mobilenet_v2("1,3,32,32")));
    CHECK(nhwc_convs(ge::layout_nhwc(m, nullptr, false)) == nhwc_convs(ge::layout_nhwc(m)));
  }
  SUBCASE("1x1 convs between NCHW ops, fewer than 4 per Transpose") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,8,6,6");
    const Value a = x.conv2d(weights(b, "a", 8, 8, 1, 1), {.name = "a"}).relu();
    const Value c = a.conv2d(weights(b, "c", 8, 8, 1, 2), {.name = "c"}).relu();
    const Value d = c.conv2d(weights(b, "d", 8, 8, 1, 3), {.name = "d"});
    b.output(d.max_pool({2, 2, 0}));
    b.output(a.max_pool({2, 2, 0}));  // read outside: a third end
    const Graph g = ge::fuse_activations(b.build());
    check_unchanged(g, ge::layout_nhwc(g));
  }
}

TEST_CASE("layout_nhwc in optimize: ResNet-50 runs NHWC in one chain, stem and MaxPool too, same outputs") {
  const Graph g = ge::models::resnet50("2,3,64,64");
  const Graph o = ge::optimize(g);
  CHECK(nhwc_convs(o) == 53);
  CHECK(count(o, "Transpose") == 0);  // the stem reads the 3-channel input NCHW; the head's pool reads NHWC
  CHECK(count(o, "GlobalAveragePool") == 0);
  CHECK(count(o, "ReduceMean") == 1);
  CHECK(node(o, "conv1").attrs.at("layout").as_string() == "NHWC");
  CHECK(node(o, "conv1").attrs.at("x_layout").as_string() == "NCHW");
  for (const ge::Node& n : o.nodes())
    if (n.op == "MaxPool") CHECK(n.attrs.at("layout").as_string() == "NHWC");
  check_same(g, o, 1e-3);
}

TEST_CASE("layout_nhwc in optimize: MobileNetV2 runs every conv NHWC, in one chain, same outputs") {
  // (tests/runtime/models_test.cpp runs the optimized model with batch gears and a batch
  // range against the reference interpreter.)
  const Graph g = ge::models::mobilenet_v2("2,3,32,32");
  std::vector<ge::PassStats> stats;
  const Graph o = ge::optimize(g, &stats);
  std::size_t convs = 0;
  for (const ge::Node& n : g.nodes()) convs += n.op == "Conv" ? 1 : 0;
  CHECK(nhwc_convs(o) == convs);
  CHECK(count(o, "Transpose") == 0);  // the stem reads the 3-channel input NCHW; the last output is pooled NHWC
  CHECK(count(o, "ReduceMean") == 1);
  CHECK(o.nodes()[0].op == "FusedConv");
  CHECK(o.nodes()[0].attrs.at("x_layout").as_string() == "NCHW");
  CHECK(o.value(o.nodes()[0].inputs[0]).name == o.inputs()[0].name);
  REQUIRE(stats.size() == 17);
  CHECK(stats[10].pass == "layout_nhwc");
  CHECK(stats[10].nodes_added == 2);
  CHECK(stats[12].pass == "fuse_pointwise_depthwise");
  CHECK(stats[12].nodes_added == 0);  // 32x32 images: every expanded image is under 1 MiB
  CHECK(stats[13].pass == "fuse_depthwise_pointwise");
  CHECK(stats[13].nodes_added == 17);  // every block's depthwise conv and projection
  CHECK(count(o, "FusedDepthwisePointwise") == 17);
  check_same(g, o, 1e-3);
}

namespace {

// An f32 [N, C, H, W] buffer as [N, H, W, C].
Buffer to_nhwc_buffer(const Buffer& b) {
  const std::int64_t n = b.dims[0], c = b.dims[1], h = b.dims[2], w = b.dims[3];
  Buffer o{b.dtype, {n, h, w, c}, std::vector<std::byte>(b.bytes.size())};
  const auto* src = reinterpret_cast<const float*>(b.bytes.data());
  auto* dst = reinterpret_cast<float*>(o.bytes.data());
  for (std::int64_t i = 0; i < n * c * h * w; ++i) {
    const std::int64_t x = i % w, y = i / w % h, ch = i / (w * h) % c, k = i / (w * h * c);
    dst[((k * h + y) * w + x) * c + ch] = src[i];
  }
  return o;
}

ge::OpTensor f32_of(const std::vector<std::int64_t>& dims) {
  return ge::OpTensor{DataType::f32, ge::Shape(std::vector<ge::Dim>(dims.begin(), dims.end()))};
}

Buffer zeros_of(const ge::TensorDesc& d) {
  Buffer b{d.dtype, d.shape.values(), {}};
  std::int64_t n = 1;
  for (const auto x : b.dims) n *= x;
  b.bytes.resize(static_cast<std::size_t>(n) * sizeof(float));
  return b;
}

}  // namespace

TEST_CASE("FusedConv NHWC kernels by compile_op, weights constant or given per run, equal the NCHW Conv") {
  struct Case {
    const char* kernel;
    std::vector<std::int64_t> x, w;
    ge::Attributes attrs;
  };
  const std::vector<Case> cases{
      {"nhwc_pointwise", {2, 8, 5, 6}, {12, 8, 1, 1}, {}},
      {"nhwc_depthwise", {2, 8, 7, 9}, {8, 1, 3, 3}, {{"group", 8}, {"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}},
      {"nhwc_direct", {1, 3, 9, 9}, {16, 3, 3, 3}, {{"pads", {1, 0, 1, 2}}, {"strides", {2, 2}}}},
      {"nhwc_gemm", {2, 8, 9, 9}, {12, 8, 3, 3}, {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}},
      {"nhwc_gemm", {1, 16, 7, 7}, {24, 16, 1, 1}, {{"strides", {2, 2}}}},
      // Winograd from 64 channels and 7x7 outputs, on AVX2 or AVX-512; else the GEMM.
      {ge::cpu::isa() == ge::cpu::Isa::baseline ? "nhwc_gemm" : "nhwc_winograd", {1, 64, 9, 9}, {64, 64, 3, 3},
       {{"pads", {1, 1, 1, 1}}}},
      // Atrous: most taps in the padding (DeepLab's rate 12 over 14x14), by taps; rate 2 by
      // Winograd over the residue classes where each is 4 pixels or more (14x14: 7x7
      // classes), else a GEMM (7x7: classes of 3 and 4).
      {"nhwc_taps", {1, 16, 14, 14}, {24, 16, 3, 3}, {{"pads", {12, 12, 12, 12}}, {"dilations", {12, 12}}}},
      {ge::cpu::isa() == ge::cpu::Isa::baseline ? "nhwc_gemm" : "nhwc_winograd", {1, 16, 14, 14}, {32, 16, 3, 3},
       {{"pads", {2, 2, 2, 2}}, {"dilations", {2, 2}}}},
      {"nhwc_gemm", {1, 16, 7, 7}, {24, 16, 3, 3}, {{"pads", {2, 2, 2, 2}}, {"dilations", {2, 2}}}},
      // Grouped (RegNetX-like: 4 groups of 8), and a depthwise conv of more than 49 taps.
      {"nhwc_grouped", {2, 32, 9, 9}, {32, 8, 3, 3}, {{"group", 4}, {"pads", {1, 1, 1, 1}}}},
      {"nhwc_grouped", {1, 16, 12, 12}, {16, 1, 9, 9}, {{"group", 16}, {"pads", {4, 4, 4, 4}}}},
  };
  std::uint64_t seed = 50;
  for (const Case& c : cases)
    for (const bool constant : {true, false}) {
      CAPTURE(c.kernel);
      CAPTURE(constant);
      const ge::Tensor xt = ge::Tensor::random(DataType::f32, c.x, seed++), wt = ge::Tensor::random(DataType::f32, c.w, seed++);
      const ge::Tensor bt = ge::Tensor::random(DataType::f32, {c.w[0]}, seed++);
      Buffer x = buffer_of(xt), w = buffer_of(wt), b = buffer_of(bt);
      const ge::OpTensor w_desc = constant ? ge::OpTensor::constant_of(wt) : f32_of(wt.dims());
      const auto conv = ge::compile_op("Conv", {f32_of(xt.dims()), w_desc,
                                                ge::OpTensor::constant_of(bt)}, {}, c.attrs);
      Buffer want = zeros_of(conv->outputs[0]);
      (void)ge::execute_op(*conv, std::vector{x.view(), w.view(), b.view()}, std::vector{want.view()});
      Buffer xn = to_nhwc_buffer(x);
      ge::Attributes attrs = c.attrs;
      attrs.emplace("layout", "NHWC");
      const auto fused = ge::compile_op("FusedConv", {f32_of(xn.dims), w_desc,
                                                      ge::OpTensor::constant_of(bt)}, {}, attrs);
      CHECK(fused->kernel->name().find(c.kernel) != std::string_view::npos);
      Buffer got = zeros_of(fused->outputs[0]);
      (void)ge::execute_op(*fused, std::vector{xn.view(), w.view(), b.view()}, std::vector{got.view()});
      const Buffer wn = to_nhwc_buffer(want);
      REQUIRE(got.dims == wn.dims);
      const auto* g = reinterpret_cast<const float*>(got.bytes.data());
      const auto* e = reinterpret_cast<const float*>(wn.bytes.data());
      for (std::size_t i = 0; i < got.bytes.size() / sizeof(float); ++i) CHECK(g[i] == doctest::Approx(e[i]).epsilon(1e-4));
    }
}

TEST_CASE("FusedConv x_layout NCHW by compile_op: the few-channel kernel reads NCHW; another conv has no kernel") {
  const ge::Tensor xt = ge::Tensor::random(DataType::f32, {2, 3, 11, 13}, 70);
  const ge::Tensor wt = ge::Tensor::random(DataType::f32, {16, 3, 3, 3}, 71);
  Buffer x = buffer_of(xt), w = buffer_of(wt);
  const ge::Attributes conv_attrs{{"strides", std::vector<std::int64_t>{2, 2}}, {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}};
  const auto conv = ge::compile_op("Conv", {f32_of(xt.dims()), ge::OpTensor::constant_of(wt)}, {}, conv_attrs);
  Buffer want = zeros_of(conv->outputs[0]);
  (void)ge::execute_op(*conv, std::vector{x.view(), w.view()}, std::vector{want.view()});
  ge::Attributes attrs = conv_attrs;
  attrs.emplace("layout", "NHWC");
  attrs.emplace("x_layout", "NCHW");
  const auto fused = ge::compile_op("FusedConv", {f32_of(xt.dims()), ge::OpTensor::constant_of(wt)}, {}, attrs);
  CHECK(fused->kernel->name() == "cpu.fused_conv2d.nhwc_direct.nchw_in");
  Buffer got = zeros_of(fused->outputs[0]);
  (void)ge::execute_op(*fused, std::vector{x.view(), w.view()}, std::vector{got.view()});
  const Buffer wn = to_nhwc_buffer(want);
  REQUIRE(got.dims == wn.dims);
  const auto* g = reinterpret_cast<const float*>(got.bytes.data());
  const auto* e = reinterpret_cast<const float*>(wn.bytes.data());
  for (std::size_t i = 0; i < got.bytes.size() / sizeof(float); ++i) CHECK(g[i] == doctest::Approx(e[i]).epsilon(1e-4));
  // Over 8 channels no NHWC kernel reads an NCHW image: a clear error, not a wrong read.
  const ge::Tensor w8 = ge::Tensor::random(DataType::f32, {16, 8, 3, 3}, 72);
  expect_error([&] { (void)ge::compile_op("FusedConv", {f32_of({2, 8, 11, 13}), ge::OpTensor::constant_of(w8)}, {}, attrs); },
               ge::Errc::no_kernel, "no vector-engine kernel fits");
}

// ---- fuse_pointwise_depthwise -------------------------------------------------------------------

namespace {

// Expand 1x1 + ReLU6 to `wide` channels, depthwise 3x3 (stride `stride`) + ReLU6,
// project 1x1: MobileNetV2's blocks, at an image size where the expanded image is
// 32 * 32 * 256 * 4 bytes = 1 MiB per image at the first one.
Graph expand_depthwise_graph(const char* shape) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, shape);
  Value y = x;
  std::uint64_t seed = 100;
  for (const std::int64_t stride : {1, 2, 1}) {
    const std::string name = "s" + std::to_string(seed);
    const Value e = y.conv2d(weights(b, name + ".expand", 256, 16, 1, seed), bias(b, name + ".expand", 256, seed + 1),
                             {.name = name + ".expand"})
                        .clip(0.0, 6.0);
    const Value d = e.conv2d(weights(b, name + ".dw", 256, 1, 3, seed + 2), bias(b, name + ".dw", 256, seed + 3),
                             {.stride = stride, .pad = 1, .group = 256, .name = name + ".dw"})
                        .clip(0.0, 6.0);
    y = d.conv2d(weights(b, name + ".project", 16, 256, 1, seed + 4), bias(b, name + ".project", 16, seed + 5),
                 {.name = name + ".project"});
    seed += 10;
  }
  b.output(y);
  return b.build();
}

}  // namespace

TEST_CASE("fuse_pointwise_depthwise pass: expand and depthwise convs on large images in one node, same outputs") {
  const Graph g = expand_depthwise_graph("2,16,32,32");
  std::vector<ge::PassStats> stats;
  const Graph o = ge::optimize(g, &stats);
  REQUIRE(stats.size() == 17);
  CHECK(stats[12].pass == "fuse_pointwise_depthwise");
  // The first two blocks (32x32 images): the third reads 16x16 ones, 256 KiB expanded.
  CHECK(count(o, "FusedPointwiseDepthwise") == 2);
  CHECK(stats[12].nodes_removed == 4);
  CHECK(stats[12].nodes_added == 2);
  const ge::Node& f = node(o, "s100.dw");
  CHECK(f.op == "FusedPointwiseDepthwise");
  CHECK(f.attrs.at("pointwise_activation").as_string() == "Clip");
  CHECK(f.attrs.at("activation").as_string() == "Clip");
  CHECK(node(o, "s110.dw").attrs.at("strides").as_ints() == std::vector<std::int64_t>{2, 2});
  CHECK(node(o, "s120.expand").op == "FusedConv");
  CHECK(o.value(f.outputs[0]).desc.shape.to_string() == "2,32,32,256");
  check_same(g, o, 1e-4);
  // Compiled as a whole with batch gears: each gear's plan runs the fused kernel; saved
  // with its weights packed or portable, loaded, it runs the same.
  const ge::BuildOptions gears{{"ge.inputShape", "x:-1,16,32,32"}, {"ge.dynamicBatchSize", "1,3"}};
  const auto model = ge::compile(expand_depthwise_graph("-1,16,32,32"), gears, ge::default_target(), {.keep_weights = true});
  const std::vector<std::shared_ptr<const ge::CompiledModel>> models{
      model, ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model))),
      ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model, ge::ModelWeights::portable)))};
  for (std::size_t m = 0; m < models.size(); ++m)
  for (const std::int64_t n : {1, 3}) {
    CAPTURE(m);
    CAPTURE(n);
    const ge::Tensor x = ge::Tensor::random(DataType::f32, {n, 16, 32, 32}, 9);
    ge::Session s(models[m]);
    Buffer xb = buffer_of(x);
    const ge::RunResult r = s.run({xb.view()});
    const auto* data = static_cast<const std::byte*>(r.outputs.at(0).data);
    const ge::Tensor got(DataType::f32, r.outputs[0].dims, std::vector<std::byte>(data, data + r.outputs[0].bytes));
    const Graph fixed = expand_depthwise_graph(n == 1 ? "1,16,32,32" : "3,16,32,32");
    CHECK(ge::test::relative_error({got}, ge::test::run(fixed, {{"x", x}})) <= 1e-4);
  }
}

TEST_CASE("fuse_pointwise_depthwise pass leaves alone small images, shared or residual expansions") {
  SUBCASE("an expanded image under 1 MiB stays two convs") {
    const Graph g = ge::layout_nhwc(ge::fuse_activations(expand_depthwise_graph("1,16,16,16")));
    check_unchanged(g, ge::fuse_pointwise_depthwise(g));
  }
  SUBCASE("rows narrower than 32 pixels stay two convs, however large the image") {
    // 128 x 16 x 256 floats: 2 MiB expanded, but the fused kernel's per-row products of 16
    // pixels would not pay (EfficientNet's late stages at 300 x 300).
    const Graph g = ge::layout_nhwc(ge::fuse_activations(expand_depthwise_graph("1,16,128,16")));
    check_unchanged(g, ge::fuse_pointwise_depthwise(g));
  }
  SUBCASE("the expansion read twice, or a graph output") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,16,32,32");
    const Value e = x.conv2d(weights(b, "e", 256, 16, 1, 1), bias(b, "e", 256, 2), {.name = "e"}).relu("e.relu");
    const Value d = e.conv2d(weights(b, "d", 256, 1, 3, 3), bias(b, "d", 256, 4), {.pad = 1, .group = 256, .name = "d"});
    b.output(d.conv2d(weights(b, "p", 16, 256, 1, 5), {.name = "p"}));
    b.output(e);
    const Graph g = ge::layout_nhwc(ge::fuse_activations(b.build()));
    check_unchanged(g, ge::fuse_pointwise_depthwise(g));
  }
  SUBCASE("a pointwise conv without a bias") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,16,32,32");
    const Value e = x.conv2d(weights(b, "e", 256, 16, 1, 1), {.name = "e"}).relu("e.relu");
    const Value d = e.conv2d(weights(b, "d", 256, 1, 3, 3), bias(b, "d", 256, 4), {.pad = 1, .group = 256, .name = "d"});
    b.output(d.conv2d(weights(b, "p", 16, 256, 1, 5), {.name = "p"}));
    const Graph g = ge::layout_nhwc(ge::fuse_activations(b.build()));
    check_unchanged(g, ge::fuse_pointwise_depthwise(g));
  }
}

TEST_CASE("FusedPointwiseDepthwise by compile_op: weights given per run are no_kernel, a short B1 out_of_range") {
  const auto t = [](std::vector<std::int64_t> d) { return f32_of(d); };
  const ge::Tensor w1 = ge::Tensor::random(DataType::f32, {32, 8, 1, 1}, 1), w2 = ge::Tensor::random(DataType::f32, {32, 1, 3, 3}, 2);
  const ge::Attributes attrs{{"group", 32}, {"pads", {1, 1, 1, 1}}};
  expect_error([&] { (void)ge::compile_op("FusedPointwiseDepthwise", {t({1, 6, 6, 8}), t({32, 8, 1, 1}), t({32}),
                                                                          ge::OpTensor::constant_of(w2), t({32})}, {}, attrs); },
               ge::Errc::no_kernel, "FusedPointwiseDepthwise");
  const auto op = ge::compile_op("FusedPointwiseDepthwise", {t({1, 6, 6, 8}), ge::OpTensor::constant_of(w1), t({32}),
                                                             ge::OpTensor::constant_of(w2), t({32})}, {}, attrs);
  CHECK(op->outputs[0].shape.to_string() == "1,6,6,32");
  Buffer x = buffer_of(ge::Tensor::random(DataType::f32, {1, 6, 6, 8}, 3));
  Buffer w1b = buffer_of(w1), w2b = buffer_of(w2);
  Buffer b1 = buffer_of(ge::Tensor::random(DataType::f32, {16}, 4)), b2 = buffer_of(ge::Tensor::random(DataType::f32, {32}, 5));
  Buffer y = zeros_of(op->outputs[0]);
  expect_error([&] { (void)ge::execute_op(*op, std::vector{x.view(), w1b.view(), b1.view(), w2b.view(), b2.view()},
                                          std::vector{y.view()}); },
               ge::Errc::out_of_range, "input 2", "'16'");
}

namespace {

Value conv1x1(GraphBuilder& b, Value x, const std::string& name, std::int64_t out_c, std::int64_t in_c, std::uint64_t seed) {
  return x.conv2d(weights(b, name, out_c, in_c, 1, seed), bias(b, name, out_c, seed + 1), {.name = name});
}

Value silu(Value x) { return x * x.sigmoid(); }

// Squeeze and excitation: the image's channels scaled by a gate computed from its mean.
Value squeeze_excite(GraphBuilder& b, Value x, const std::string& name, std::int64_t c, std::uint64_t seed) {
  const Value s = conv1x1(b, x.global_avg_pool(name + ".pool"), name + ".reduce", c / 4, c, seed).relu();
  return x * conv1x1(b, s, name + ".expand", c, c / 4, seed + 2).sigmoid();
}

// An EfficientNet / MobileNetV3-like net: a SiLU stem, blocks with HardSwish and SiLU,
// depthwise convs, squeeze-and-excitation gates, residual sums, a Concat of two
// branches and a HardSwish head. `image_out`: the last image is a graph output too.
Graph gated_net(const char* dims, bool image_out) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, dims);
  const Value stem = silu(x.conv2d(weights(b, "stem", 16, 3, 3, 1), bias(b, "stem", 16, 2), {.pad = 1, .name = "stem"}));
  Value y = stem;
  for (int i = 0; i < 2; ++i) {
    const std::string n = "b" + std::to_string(i);
    const std::uint64_t seed = 100 + 20 * static_cast<std::uint64_t>(i);
    const Value e = conv1x1(b, y, n + ".expand", 32, 16, seed).hard_swish();
    const Value d = silu(e.conv2d(weights(b, n + ".dw", 32, 1, 3, seed + 2), bias(b, n + ".dw", 32, seed + 3),
                                  {.pad = 1, .group = 32, .name = n + ".dw"}));
    y = conv1x1(b, squeeze_excite(b, d, n + ".se", 32, seed + 4), n + ".project", 16, 32, seed + 8) + y;
  }
  const Value left = conv1x1(b, y, "left", 8, 16, 300).relu();
  const Value right = conv1x1(b, y.conv2d(weights(b, "right.dw", 16, 1, 3, 302), bias(b, "right.dw", 16, 303),
                                           {.pad = 1, .group = 16, .name = "right.dw"}),
                              "right", 8, 16, 304);
  const Value joined = ge::concat({left, right}, 1, "join");
  const Value head = conv1x1(b, joined, "head", 24, 16, 310).hard_swish();
  b.output(head.global_avg_pool("pool").flatten(1, "flat"));
  if (image_out) b.output(joined);
  return b.build();
}

}  // namespace

TEST_CASE("layout_nhwc pass: SiLU, HardSwish, squeeze-excitation gates, residuals and a Concat run NHWC, no Transpose between") {
  for (const bool optimized : {false, true}) {
    CAPTURE(optimized);
    const Graph g = gated_net("2,3,12,12", false);
    const Graph o = optimized ? ge::optimize(g) : ge::layout_nhwc(ge::fuse_activations(g));
    // The 3-channel input in (read NCHW by the stem after fold_transposes, in optimize); the
    // head's pool reads NHWC.
    CHECK(count(o, "Transpose") == (optimized ? 0 : 1));
    CHECK(count(o, "GlobalAveragePool") == 0);
    CHECK(count(o, "ReduceMean") == 3);  // two gates and the head
    CHECK(node(o, "join").attrs.at("axis").as_int() == 3);
    // SiLU, HardSwish and the gates' Sigmoid are the convs' epilogues; the gates' Muls are
    // the projection convs' gates (fuse_channel_gate, in optimize).
    CHECK(count(o, "Sigmoid") == 0);
    CHECK(count(o, "HardSwish") == 0);
    CHECK(count(o, "Mul") == (optimized ? 0 : 2));
    for (const ge::Node& n : o.nodes()) {
      if (n.op != "FusedConv") continue;
      CAPTURE(n.name);
      // the gates' 1x1 convs read [N, C, 1, 1] means: the same floats either way; they stay NCHW
      const bool gate = n.name.find(".se.") != std::string::npos;
      CHECK((n.attrs.contains("layout") && n.attrs.at("layout").as_string() == "NHWC") == !gate);
    }
    check_same(g, o, 1e-4);
  }
  SUBCASE("an image the graph gives out goes back through one Transpose") {
    const Graph g = gated_net("2,3,12,12", true);
    const Graph o = ge::optimize(g);
    CHECK(count(o, "Transpose") == 1);
    check_same(g, o, 1e-4);
  }
  SUBCASE("a dynamic batch") {
    const Graph g = gated_net("1~3,3,12,12", false);
    const Graph o = ge::optimize(g);
    CHECK(count(o, "Transpose") == 0);
    check_same(g, o, 1e-4);
  }
}

// ---- fuse_channel_gate -------------------------------------------------------------------------

namespace {

// A depthwise conv, a squeeze-excitation gate on its output, a 1x1 projection to `out_c`
// channels (`project` reads the gated image; `twice`: the gated image is an output too).
Graph gate_graph(const char* dims, std::int64_t c, std::int64_t out_c, bool twice = false, std::int64_t k = 1) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, dims);
  const Value d = x.conv2d(weights(b, "dw", c, 1, 3, 1), bias(b, "dw", c, 2), {.pad = 1, .group = c, .name = "dw"}).relu();
  const Value gated = squeeze_excite(b, d, "se", c, 10);
  b.output(gated.conv2d(weights(b, "project", out_c, c, k, 20), bias(b, "project", out_c, 21),
                        {.pad = k / 2, .name = "project"}));
  if (twice) b.output(gated);
  return b.build();
}

}  // namespace

TEST_CASE("fuse_channel_gate pass: a squeeze-excitation gate becomes the projection conv's input G, same outputs") {
  // 8x8 images: 64 pixels. 16 outputs: the weights are scaled per image; 96: the image is.
  for (const std::int64_t out_c : {16, 96}) {
    for (const char* dims : {"1,8,8,8", "3,8,8,8", "1~4,8,8,8"}) {
      CAPTURE(out_c);
      CAPTURE(dims);
      const Graph g = gate_graph(dims, 8, out_c);
      std::vector<ge::PassStats> stats;
      const Graph o = ge::optimize(g, &stats);
      REQUIRE(stats.size() == 17);
      CHECK(stats[14].pass == "fuse_channel_gate");
      CHECK(stats[14].nodes_removed == 1);
      CHECK(count(o, "Mul") == 0);
      const ge::Node& p = node(o, "project");
      REQUIRE(p.inputs.size() == 5);
      CHECK(o.value(p.inputs[4]).desc.shape.to_string() == std::string(dims).substr(0, std::string(dims).find(',')) + ",1,1,8");
      check_same(g, o, 1e-4);
    }
  }
  SUBCASE("compiled with batch gears, saved and loaded: each batch gets its own gate") {
    const ge::BuildOptions gears{{"ge.inputShape", "x:-1,8,8,8"}, {"ge.dynamicBatchSize", "1,3"}};
    const auto model = ge::compile(gate_graph("-1,8,8,8", 8, 16), gears, ge::default_target(), {.keep_weights = true});
    const auto loaded = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model)));
    const ge::Tensor x = ge::Tensor::random(DataType::f32, {3, 8, 8, 8}, 9);
    ge::Session s(loaded);
    Buffer xb = buffer_of(x);
    const ge::RunResult r = s.run({xb.view()});
    const auto* data = static_cast<const std::byte*>(r.outputs.at(0).data);
    const ge::Tensor got(DataType::f32, r.outputs[0].dims, std::vector<std::byte>(data, data + r.outputs[0].bytes));
    CHECK(ge::test::relative_error({got}, ge::test::run(gate_graph("3,8,8,8", 8, 16), {{"x", x}})) <= 1e-4);
  }
}

TEST_CASE("fuse_channel_gate pass leaves alone a gated image read twice, a 3x3 reader, a per-pixel gate") {
  SUBCASE("the gated image is a graph output too") {
    const Graph g = ge::layout_nhwc(ge::fuse_activations(gate_graph("2,8,8,8", 8, 16, true)));
    check_unchanged(g, ge::fuse_channel_gate(g));
  }
  SUBCASE("a 3x3 conv reads it") {
    const Graph g = ge::layout_nhwc(ge::fuse_activations(gate_graph("2,8,8,8", 8, 16, false, 3)));
    check_unchanged(g, ge::fuse_channel_gate(g));
  }
  SUBCASE("a gate per pixel, not per channel") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,8,8,8");
    const Value d = x.conv2d(weights(b, "dw", 8, 1, 3, 1), bias(b, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
    const Value gate = conv1x1(b, d, "attn", 1, 8, 3).sigmoid();  // [N, 1, H, W]
    b.output(conv1x1(b, d * gate, "project", 16, 8, 5));
    const Graph g = ge::layout_nhwc(ge::fuse_activations(b.build()));
    check_unchanged(g, ge::fuse_channel_gate(g));
  }
}

TEST_CASE("FusedConv's gate G: only on an NHWC 1x1 conv, shaped [N or 1, 1, 1, C]; the kernel checks its count") {
  const auto build = [](const char* g_dims, std::int64_t k, const char* layout, double x_scale = 0.0) {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,5,5,8");
    const Value gate = b.input("g", DataType::f32, g_dims);
    const Value w = b.random_weights("w", {4, 8, k, k}, 1);
    const Value y =
        b.op("FusedConv", {x, w, Value{}, Value{}, gate}, {{"layout", std::string(layout)}, {"x_scale", x_scale}});
    return b.graph().value(y.id()).desc.shape.to_string();
  };
  CHECK(build("2,1,1,8", 1, "NHWC") == "2,5,5,4");
  CHECK(build("1,1,1,8", 1, "NHWC") == "2,5,5,4");
  expect_error([&] { (void)build("2,1,1,8", 3, "NHWC"); }, ge::Errc::bad_op_inputs, "1x1 conv");
  expect_error([&] { (void)build("2,1,1,8", 1, "NCHW"); }, ge::Errc::bad_op_inputs, "NHWC");
  expect_error([&] { (void)build("2,1,1,8", 1, "NHWC", 0.1); }, ge::Errc::bad_op_inputs, "not quantized");
  expect_error([&] { (void)build("3,1,1,8", 1, "NHWC"); }, ge::Errc::bad_op_inputs, "expected G [N or 1, 1, 1, C]");
  expect_error([&] { (void)build("2,1,1,4", 1, "NHWC"); }, ge::Errc::bad_op_inputs, "expected G");
  expect_error([&] { (void)build("2,5,1,8", 1, "NHWC"); }, ge::Errc::bad_op_inputs, "expected G");
  expect_error([&] { (void)build("2,8", 1, "NHWC"); }, ge::Errc::bad_op_inputs, "expected rank 4");
  // Ranged dims: a run whose gate has neither one image nor X's images is refused when the
  // run's shapes are known, before the kernel.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~3,5,5,8");
  const Value gate = b.input("g", DataType::f32, "1~3,1,1,8");
  b.output(b.op("FusedConv", {x, b.random_weights("w", {4, 8, 1, 1}, 1), Value{}, Value{}, gate},
                {{"layout", std::string("NHWC")}}));
  const auto model = ge::compile(b.build());
  ge::Session s(model);
  Buffer xb = buffer_of(ge::Tensor::random(DataType::f32, {2, 5, 5, 8}, 1));
  Buffer gb = buffer_of(ge::Tensor::random(DataType::f32, {3, 1, 1, 8}, 2));
  expect_error([&] { (void)s.run({xb.view(), gb.view()}); }, ge::Errc::bad_op_inputs, "input 4 (G) is [3,1,1,8]");
}

TEST_CASE("layout_nhwc pass: an op that needs NCHW keeps its Transposes; per-channel and scalar operands broadcast") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,8,6,6");
  const Value d = x.conv2d(weights(b, "dw", 8, 1, 3, 1), bias(b, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
  // a [C, 1, 1] scale, a scalar shift, an [N, C, 1, 1] gate: all broadcast in NHWC
  // and a global max pool's [N, C, 1, 1] added back
  const Value scaled = (d * b.random_uniform("scale", {8, 1, 1}, 3, 0.5, 1.5) + 0.25) * d.global_avg_pool().sigmoid() +
                       b.op("GlobalMaxPool", {d}, {}, "gmp");
  // Softmax along the channel axis needs NCHW: the chain ends there
  const Value sm = b.op("Softmax", {scaled}, {{"axis", std::int64_t{1}}}, "softmax");
  const Value y = sm.conv2d(weights(b, "dw2", 8, 1, 3, 4), bias(b, "dw2", 8, 5), {.pad = 1, .group = 8, .name = "dw2"});
  b.output(y);
  const Graph g = b.build();
  const Graph o = ge::layout_nhwc(g);
  CHECK(count(o, "Transpose") == 4);  // x in, scaled out; softmax in, y out
  CHECK(count(o, "ReduceMean") == 1);
  CHECK(count(o, "ReduceMax") == 1);
  // the scale to [1, 1, 8]; both pools to [1, 8, 1, 1]; the gate and the max to [1, 1, 1, 8]
  CHECK(count(o, "Reshape") == 5);
  CHECK(o.value(node(o, "softmax").inputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{1, 8, 6, 6}));  // NCHW
  check_same(g, o, 1e-5);
}

TEST_CASE("layout_nhwc pass: an AveragePool between depthwise convs joins their chain (Inception's branch pools)") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,8,9,9");
  const Value d = x.conv2d(weights(b, "dw", 8, 1, 3, 1), bias(b, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
  const Value p = b.op("AveragePool", {d},
                       {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1}},
                       "avg");
  b.output(p.conv2d(weights(b, "dw2", 8, 1, 3, 3), bias(b, "dw2", 8, 4), {.pad = 1, .group = 8, .name = "dw2"}));
  const Graph g = b.build();
  const Graph o = ge::layout_nhwc(g);
  CHECK(count(o, "Transpose") == 2);  // x in, the result out
  CHECK(node(o, "avg").attrs.at("layout").as_string() == "NHWC");
  check_same(g, o, 1e-5);
  // Compiled, the pool runs the NHWC kernel.
  const auto model = ge::compile(g);
  bool nhwc_pool = false;
  for (const auto& plan : model->plans())
    for (const auto& step : plan->steps) nhwc_pool = nhwc_pool || step.kernel->name() == "cpu.average_pool2d.nhwc";
  CHECK(nhwc_pool);
}

TEST_CASE("layout_nhwc pass: an op between convs joins a chain only where that saves Transposes") {
  // A Concat of a chain's image and an outside one, read by an NCHW op: NHWC would take
  // three Transposes (x in, z in, the concat out), NCHW two (x in, a out).
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,8,6,6");
  const Value z = b.input("z", DataType::f32, "1,4,6,6");
  const Value a = x.conv2d(weights(b, "dw", 8, 1, 3, 1), bias(b, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
  b.output(b.op("Softmax", {ge::concat({a, z}, 1, "join")}, {{"axis", std::int64_t{1}}}, "softmax"));
  const Graph g = b.build();
  const Graph o = ge::layout_nhwc(g);
  CHECK(count(o, "Transpose") == 2);
  CHECK(node(o, "join").attrs.at("axis").as_int() == 1);
  CHECK(node(o, "dw").attrs.at("layout").as_string() == "NHWC");
  check_same(g, o, 1e-5);
}

TEST_CASE("layout_nhwc pass: a Pad between convs runs NHWC, its pads permuted") {
  for (const char* mode : {"constant", "reflect"}) {
    CAPTURE(mode);
    GraphBuilder gb;
    const Value gx = gb.input("x", DataType::f32, "2,8,6,7");
    const Value d = gx.conv2d(weights(gb, "dw", 8, 1, 3, 1), bias(gb, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
    // asymmetric pads on H and W (and none on N and C)
    const Value pads = gb.constant("pads", ge::Tensor::from<std::int64_t>({8}, {0, 0, 1, 2, 0, 0, 2, 1}));
    const Value p = gb.op("Pad", {d, pads}, {{"mode", std::string(mode)}}, "pad");
    gb.output(p.conv2d(weights(gb, "dw2", 8, 1, 3, 3), bias(gb, "dw2", 8, 4), {.group = 8, .name = "dw2"}));
    const Graph g = gb.build();
    const Graph o = ge::layout_nhwc(g);
    CHECK(count(o, "Transpose") == 2);  // x in, the output back
    const ge::Node& pad = node(o, "pad");
    CHECK(o.value(pad.outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{2, 9, 10, 8}));
    check_same(g, o, 1e-5);
  }
}

TEST_CASE("layout_nhwc pass: a Resize of H and W between convs runs NHWC, its scales or sizes permuted (LRASPP)") {
  // Linear (half_pixel, align_corners), cubic and nearest; by scales and by sizes; up and
  // down; and a Resize that scales C, which stays NCHW between Transposes.
  struct Case {
    const char* mode;
    const char* coord;
    bool sizes;
    std::vector<float> scales;
    std::vector<std::int64_t> out;
  };
  const std::vector<Case> cases = {
      {"linear", "half_pixel", false, {1, 1, 2, 2}, {2, 8, 12, 14}},
      {"linear", "align_corners", true, {}, {2, 8, 9, 5}},
      {"cubic", "half_pixel", false, {1, 1, 2, 2}, {2, 8, 12, 14}},
      {"nearest", "asymmetric", true, {}, {2, 8, 11, 15}},
  };
  for (const Case& k : cases) {
    CAPTURE(k.mode);
    CAPTURE(k.coord);
    GraphBuilder gb;
    const Value gx = gb.input("x", DataType::f32, "2,8,6,7");
    const Value d = gx.conv2d(weights(gb, "dw", 8, 1, 3, 1), bias(gb, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
    const Value roi = gb.constant("roi", ge::Tensor::from<float>({0}, {}));
    const Value scales = gb.constant("scales", ge::Tensor::from<float>({static_cast<std::int64_t>(k.scales.size())}, k.scales));
    std::vector<Value> ins{d, roi, scales};
    if (k.sizes) ins.push_back(gb.constant("sizes", ge::Tensor::from<std::int64_t>({4}, k.out)));
    const Value r = gb.op("Resize", ins, {{"mode", std::string(k.mode)}, {"coordinate_transformation_mode", std::string(k.coord)}},
                          "resize");
    gb.output(r.conv2d(weights(gb, "dw2", 8, 1, 3, 3), bias(gb, "dw2", 8, 4), {.pad = 1, .group = 8, .name = "dw2"}));
    const Graph g = gb.build();
    const Graph o = ge::layout_nhwc(g);
    CHECK(count(o, "Transpose") == 2);  // x in, the output back
    const ge::Node& rs = node(o, "resize");
    CHECK(o.value(rs.outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{2, k.out[2], k.out[3], 8}));
    check_same(g, o, 1e-5);
  }
  GraphBuilder gb;
  const Value gx = gb.input("x", DataType::f32, "1,8,6,6");
  const Value d = gx.conv2d(weights(gb, "dw", 8, 1, 3, 1), bias(gb, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
  const Value r = gb.op("Resize", {d, gb.constant("roi", ge::Tensor::from<float>({0}, {})),
                                   gb.constant("scales", ge::Tensor::from<float>({4}, {1, 2, 1, 1}))},
                        {{"mode", std::string("nearest")}}, "resize");
  gb.output(r.conv2d(weights(gb, "pw", 8, 16, 1, 3), bias(gb, "pw", 8, 4), {.name = "pw"}));
  const Graph g = gb.build();
  const Graph o = ge::layout_nhwc(g);
  CHECK(o.value(node(o, "resize").outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{1, 16, 6, 6}));
  check_same(g, o, 1e-5);
}

TEST_CASE("layout_nhwc pass: a Resize under a free batch runs NHWC when its scales keep N and C (dynamic exports)") {
  // By constant scales [1, 1, 2, 2]; and as torch exports an interpolation to a size under a
  // free batch (sizes = Concat(Shape(x)[0:2], [12, 14])), which fold_constants turns into
  // those scales first.
  for (const bool sizes : {false, true}) {
    CAPTURE(sizes);
    GraphBuilder gb;
    const Value gx = gb.input("x", DataType::f32, "1~3,8,6,7");
    const Value d =
        gx.conv2d(weights(gb, "dw", 8, 1, 3, 1), bias(gb, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
    const Value roi = gb.constant("roi", ge::Tensor::from<float>({0}, {}));
    std::vector<Value> ins{d, roi};
    if (sizes) {
      ins.push_back(gb.constant("scales", ge::Tensor::from<float>({0}, {})));
      const Value head = gb.op("Slice", {d.shape_of("s"), gb.int64s({0}), gb.int64s({2})}, {}, "head");
      ins.push_back(ge::concat({head, gb.int64s({12, 14})}, 0, "sizes"));
    } else {
      ins.push_back(gb.constant("scales", ge::Tensor::from<float>({4}, {1, 1, 2, 2})));
    }
    const Value r = gb.op("Resize", ins, {{"mode", std::string("linear")}}, "resize");
    gb.output(r.conv2d(weights(gb, "dw2", 8, 1, 3, 3), bias(gb, "dw2", 8, 4), {.pad = 1, .group = 8, .name = "dw2"}));
    const Graph g = gb.build();
    const Graph f = ge::remove_dead_code(ge::fold_constants(g));
    const Graph o = ge::layout_nhwc(f);
    CHECK(count(o, "Transpose") == 2);  // x in, the output back
    CHECK(o.value(node(o, "resize").outputs[0]).desc.shape ==
          ge::Shape(std::vector<ge::Dim>{ge::Dim::range(1, 3), 12, 14, 8}));
    check_same(f, o, 1e-5);  // (the sizes' form runs by scales once folded: the passes test checks that step)
  }
}

TEST_CASE("layout_nhwc pass: DeepLabV3's pooled branch spread by a Resize joins the chain; an upsampling at its end does not") {
  // ASPP's pooling: GlobalAveragePool, a 1x1 conv on the one pixel, a Resize back to the
  // image, concatenated with the image's branch; the one-pixel values cross by Reshapes.
  // The head's last Resize (an 8x upsampling) stays NCHW: the Transpose before it moves
  // 64 times fewer floats than one after it would.
  GraphBuilder gb;
  const Value gx = gb.input("x", DataType::f32, "2,16,8,8");
  const Value d =
      gx.conv2d(weights(gb, "c1", 16, 1, 3, 1), bias(gb, "c1", 16, 2), {.pad = 1, .group = 16, .name = "c1"}).relu();
  const Value pooled = d.global_avg_pool("pool")
                           .conv2d(weights(gb, "pc", 8, 16, 1, 3), bias(gb, "pc", 8, 4), {.name = "pc"})
                           .relu();
  const auto resize = [&](Value v, std::vector<std::int64_t> out, const std::string& name) {
    return gb.op("Resize", {v, gb.constant(name + ".roi", ge::Tensor::from<float>({0}, {})),
                            gb.constant(name + ".scales", ge::Tensor::from<float>({0}, {})),
                            gb.constant(name + ".sizes", ge::Tensor::from<std::int64_t>({4}, out))},
                 {{"mode", std::string("linear")}}, name);
  };
  const Value spread = resize(pooled, {2, 8, 8, 8}, "spread");
  const Value cat = ge::concat({d, spread}, 1, "cat");
  const Value head = cat.conv2d(weights(gb, "c2", 4, 24, 1, 5), bias(gb, "c2", 4, 6), {.name = "c2"});
  gb.output(resize(head, {2, 4, 64, 64}, "up"));
  const Graph g = gb.build();
  const Graph o = ge::layout_nhwc(g);
  CHECK(count(o, "Transpose") == 2);  // x in, the head's output back before "up"
  CHECK(o.value(node(o, "spread").outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{2, 8, 8, 8}));
  CHECK(o.value(node(o, "up").outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{2, 4, 64, 64}));
  check_same(g, o, 1e-5);
}

TEST_CASE("layout_nhwc pass: a mean, max or sum over H and W ends a chain without a Transpose (MNASNet's head)") {
  struct Case {
    const char* what;
    std::vector<std::int64_t> axes;
    bool keepdims;
    bool axes_input;  // opset 18: the axes as a constant second input
    const char* op;
    std::size_t transposes;
  };
  const Case cases[] = {
      {"mean [2, 3] without kept dims", {2, 3}, false, false, "ReduceMean", 1},
      {"mean [3, 2] with kept dims", {3, 2}, true, false, "ReduceMean", 1},
      {"max [-1, -2], axes as an input", {-1, -2}, false, true, "ReduceMax", 1},
      {"sum [2, 3] with kept dims, axes as an input", {2, 3}, true, true, "ReduceSum", 1},
      {"mean over the channels: NCHW, the image goes back", {1}, true, false, "ReduceMean", 2},
      {"mean over H alone: NCHW", {2}, false, false, "ReduceMean", 2},
  };
  for (const Case& k : cases) {
    CAPTURE(k.what);
    GraphBuilder gb;
    const Value x = gb.input("x", DataType::f32, "2,16,7,6");
    const Value d = x.conv2d(weights(gb, "dw", 16, 1, 3, 1), bias(gb, "dw", 16, 2), {.pad = 1, .group = 16, .name = "dw"})
                        .relu();
    ge::Attributes attrs{{"keepdims", std::int64_t{k.keepdims ? 1 : 0}}};
    std::vector<Value> ins{d};
    if (k.axes_input) {
      ins.push_back(gb.constant("axes", ge::Tensor::from<std::int64_t>({static_cast<std::int64_t>(k.axes.size())}, k.axes)));
    } else {
      attrs.emplace("axes", k.axes);
    }
    gb.output(gb.op(k.op, ins, attrs, "reduce"));
    const Graph g = gb.build();
    const Graph o = ge::layout_nhwc(g);
    CHECK(nhwc_convs(o) == 1);
    CHECK(count(o, "Transpose") == k.transposes);
    check_same(g, o, 1e-5);
  }
}

TEST_CASE("layout_nhwc pass: ShuffleNet's channel split and shuffle run NHWC, no Transpose between the blocks") {
  // Two ShuffleNetV2 blocks: split the channels in halves (Slice), the second half through
  // 1x1, depthwise 3x3, 1x1, Concat with the first, then the channel shuffle (Reshape to
  // 2 groups, Transpose (0, 2, 1, 3, 4), Reshape back).
  GraphBuilder gb;
  const Value x = gb.input("x", DataType::f32, "2,16,6,5");
  const auto i64 = [&](const std::string& name, std::vector<std::int64_t> v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return gb.constant(name, ge::Tensor::from<std::int64_t>({n}, v));
  };
  Value y = x.conv2d(weights(gb, "stem", 16, 1, 3, 1), bias(gb, "stem", 16, 2), {.pad = 1, .group = 16, .name = "stem"});
  for (int blk = 0; blk < 2; ++blk) {
    const std::string p = "b" + std::to_string(blk);
    const Value a = gb.op("Slice", {y, i64(p + ".s0", {0}), i64(p + ".e0", {8}), i64(p + ".ax", {1})}, {}, p + ".left");
    const Value b = gb.op("Slice", {y, i64(p + ".s1", {8}), i64(p + ".e1", {16}), i64(p + ".ax1", {1})}, {}, p + ".right");
    const Value c = b.conv2d(weights(gb, p + ".pw1", 8, 8, 1, 3), bias(gb, p + ".pw1", 8, 4), {.name = p + ".pw1"})
                        .relu()
                        .conv2d(weights(gb, p + ".dw", 8, 1, 3, 5), bias(gb, p + ".dw", 8, 6), {.pad = 1, .group = 8, .name = p + ".dw"})
                        .conv2d(weights(gb, p + ".pw2", 8, 8, 1, 7), bias(gb, p + ".pw2", 8, 8), {.name = p + ".pw2"})
                        .relu();
    const Value cat = ge::concat({a, c}, 1, p + ".cat");
    const Value g5 = gb.op("Reshape", {cat, i64(p + ".shape5", {2, 2, 8, 6, 5})}, {}, p + ".split");
    const Value t = gb.op("Transpose", {g5}, {{"perm", std::vector<std::int64_t>{0, 2, 1, 3, 4}}}, p + ".shuffle");
    y = gb.op("Reshape", {t, i64(p + ".shape4", {2, 16, 6, 5})}, {}, p + ".merge");
  }
  gb.output(y.conv2d(weights(gb, "head", 4, 16, 1, 9), bias(gb, "head", 4, 10), {.name = "head"}));
  const Graph g = gb.build();
  const Graph o = ge::layout_nhwc(g);
  CHECK(nhwc_convs(o) == 8);
  CHECK(count(o, "Transpose") == 2 + 2);  // x in and the output back; the two shuffles' own
  CHECK(node(o, "b0.shuffle").attrs.at("perm").as_ints() == std::vector<std::int64_t>{0, 1, 2, 4, 3});
  check_same(g, o, 1e-5);
  // A shuffle whose middle Transpose has another reader, or another permutation, stays NCHW.
  GraphBuilder hb;
  const Value hx = hb.input("x", DataType::f32, "1,8,4,4");
  const Value hd = hx.conv2d(weights(hb, "dw", 8, 1, 3, 1), bias(hb, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
  const Value h5 = hb.op("Reshape", {hd, hb.constant("s5", ge::Tensor::from<std::int64_t>({5}, {1, 2, 4, 4, 4}))}, {}, "split");
  const Value ht = hb.op("Transpose", {h5}, {{"perm", std::vector<std::int64_t>{0, 1, 2, 4, 3}}}, "other_perm");
  hb.output(hb.op("Reshape", {ht, hb.constant("s4", ge::Tensor::from<std::int64_t>({4}, {1, 8, 4, 4}))}, {}, "merge"));
  const Graph h = hb.build();
  const Graph ho = ge::layout_nhwc(h);
  CHECK(node(ho, "other_perm").attrs.at("perm").as_ints() == std::vector<std::int64_t>{0, 1, 2, 4, 3});
  CHECK(ho.value(node(ho, "split").inputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{1, 8, 4, 4}));
  check_same(h, ho, 1e-5);
  // A shuffle whose Reshape allows zeros in its shape stays NCHW (the NHWC shapes copy
  // dims with 0); a Slice with i32 indices gets i32 axes.
  GraphBuilder kb;
  const Value kx = kb.input("x", DataType::f32, "1,8,4,4");
  const Value kd = kx.conv2d(weights(kb, "dw", 8, 1, 3, 1), bias(kb, "dw", 8, 2), {.pad = 1, .group = 8, .name = "dw"});
  const auto i32 = [&](const std::string& name, std::vector<std::int32_t> v) {
    return kb.constant(name, ge::Tensor::from<std::int32_t>({static_cast<std::int64_t>(v.size())}, v));
  };
  const Value ks = kb.op("Slice", {kd, i32("s", {0}), i32("e", {8}), i32("a", {1})}, {}, "slice32").relu();
  const Value k5 = kb.op("Reshape", {ks, kb.constant("s5", ge::Tensor::from<std::int64_t>({5}, {1, 2, 4, 4, 4}))}, {}, "split");
  const Value kt = kb.op("Transpose", {k5}, {{"perm", std::vector<std::int64_t>{0, 2, 1, 3, 4}}}, "shuffle");
  const Value km = kb.op("Reshape", {kt, kb.constant("s4", ge::Tensor::from<std::int64_t>({4}, {1, 8, 4, 4}))},
                         {{"allowzero", std::int64_t{1}}}, "merge");
  kb.output(km.conv2d(weights(kb, "dw2", 8, 1, 3, 3), bias(kb, "dw2", 8, 4), {.pad = 1, .group = 8, .name = "dw2"}));
  const Graph k = kb.build();
  const Graph ko = ge::layout_nhwc(k);
  ko.validate();
  CHECK(node(ko, "shuffle").attrs.at("perm").as_ints() == std::vector<std::int64_t>{0, 2, 1, 3, 4});
  const ge::Node& sl = node(ko, "slice32");
  REQUIRE(sl.inputs.size() == 4);
  CHECK(ko.value(sl.inputs[3]).desc.dtype == DataType::i32);
  check_same(k, ko, 1e-5);
}

TEST_CASE("layout_nhwc pass: grouped convs of 4k outputs per group join a chain; 2 and 6 do not") {
  // A ResNeXt-style bottleneck: 1x1, grouped 3x3, 1x1, residual; the grouped conv's group
  // width decides whether the body is one NHWC chain (the NHWC grouped kernel beats the
  // NCHW per-group GEMM at widths 4k: 4, 8, 16, 24, 32, 48, 120 measured).
  const auto bottleneck = [](std::int64_t width) {
    GraphBuilder b;
    const std::int64_t groups = 4, wide = groups * width;
    const Value x = b.input("x", DataType::f32, "2,32,9,9");
    Value y = x;
    for (int k = 0; k < 3; ++k) {  // 9 convs: enough for a chain with two ends
      const std::string n = "b" + std::to_string(k);
      const Value e = y.conv2d(weights(b, n + ".a", wide, 32, 1, 10 * k + 1), bias(b, n + ".a", wide, 10 * k + 2),
                               {.name = n + ".a"})
                          .relu();
      const Value g = e.conv2d(b.random_weights(n + ".g.w", {wide, width, 3, 3}, 10 * k + 3),
                               bias(b, n + ".g", wide, 10 * k + 4), {.pad = 1, .group = groups, .name = n + ".g"})
                          .relu();
      y = (g.conv2d(weights(b, n + ".c", 32, wide, 1, 10 * k + 5), {.name = n + ".c"}) + y).relu();
    }
    b.output(y);
    return ge::fuse_activations(b.build());
  };
  for (const std::int64_t width : {4, 8, 16, 24, 32}) {
    CAPTURE(width);
    const Graph g = bottleneck(width);
    const Graph o = ge::layout_nhwc(g);
    CHECK(node(o, "b0.g").attrs.at("layout").as_string() == "NHWC");
    CHECK(nhwc_convs(o) == 9);
    CHECK(count(o, "Transpose") == 2);
    check_same(g, o, 1e-4);
  }
  for (const std::int64_t width : {2, 6}) {
    CAPTURE(width);
    const Graph o = ge::layout_nhwc(bottleneck(width));
    CHECK(count(o, "Transpose") == 0);
    CHECK(nhwc_convs(o) == 0);
  }
}
