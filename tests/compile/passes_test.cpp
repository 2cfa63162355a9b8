// Tests of ge/compile/passes.hpp (fold_constants, remove_dead_code, fold_batch_norm,
// fuse_activations, optimize) and of the FusedConv op they produce. Each pass runs on
// small graphs: what changed, that the result validates, and that it computes what the
// input graph computes, through a node-by-node evaluator over compile_op/execute_op.
#include <doctest/doctest.h>

#include "support/expect_error.hpp"
#include "support/graph_eval.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/compile/passes.hpp"
#include "ge/core/error.hpp"
#include "ge/graph/builder.hpp"

using ge::DataType;
using ge::Errc;
using ge::Graph;
using ge::GraphBuilder;
using ge::OpTensor;
using ge::Shape;
using ge::Tensor;
using ge::TensorView;
using ge::Value;

namespace {

using ge::test::Buffer;
using ge::test::buffer_of;
using ge::test::check_same;
using ge::test::check_unchanged;
using ge::test::count;
using ge::test::node;
using ge::test::random_inputs;
using ge::test::relative_error;
using ge::test::run;

using ge::test::expect_error;

// A conv block's weights: [out_c, in_c, k, k] and bias.
struct ConvWeights {
  Value w, b;
};
ConvWeights conv_weights(GraphBuilder& b, const std::string& name, std::int64_t out_c, std::int64_t in_c,
                         std::int64_t k, std::uint64_t seed) {
  return {b.random_weights(name + ".w", {out_c, in_c, k, k}, seed),
          b.random_uniform(name + ".b", {out_c}, seed + 100, -0.5, 0.5)};
}

Value batch_norm(GraphBuilder& b, Value x, const std::string& name, std::int64_t c, std::uint64_t seed) {
  return x.batch_norm(b.random_uniform(name + ".scale", {c}, seed, 0.5, 1.5),
                      b.random_uniform(name + ".bias", {c}, seed + 1, -0.2, 0.2),
                      b.random_uniform(name + ".mean", {c}, seed + 2, -0.2, 0.2),
                      b.random_uniform(name + ".var", {c}, seed + 3, 0.5, 1.5), 1e-3, name);
}

// ---- FusedConv vs Conv, Add, activation run one by one --------------------------------

struct FusedCase {
  const char* name;
  std::vector<std::int64_t> x, w;
  ge::Attributes conv_attrs;
  bool bias, residual, constant_w;
  std::string activation;  // "", "Relu", "Clip"
};

std::vector<float> floats(const Buffer& b) {
  std::vector<float> v(b.bytes.size() / sizeof(float));
  std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

Buffer empty_like(const ge::TensorDesc& d) {
  Buffer b;
  b.dtype = d.dtype;
  b.dims = d.shape.values();
  std::int64_t n = 1;
  for (auto x : b.dims) n *= x;
  b.bytes.resize(static_cast<std::size_t>(n * 4));
  return b;
}

OpTensor described(const Buffer& b) {
  return OpTensor{b.dtype, Shape(std::vector<ge::Dim>(b.dims.begin(), b.dims.end()))};
}

}  // namespace

TEST_CASE("FusedConv equals Conv, then Add, then Relu or Clip, each run by compile_op") {
  const std::vector<FusedCase> cases{
      {"3x3 pad 1, bias, residual, relu", {2, 4, 7, 7}, {6, 4, 3, 3}, {{"pads", {1, 1, 1, 1}}}, true, true, true, "Relu"},
      {"3x3 stride 2, clip", {1, 3, 9, 8}, {5, 3, 3, 3}, {{"strides", {2, 2}}}, true, false, true, "Clip"},
      {"1x1 pointwise, residual, no activation", {2, 8, 5, 5}, {8, 8, 1, 1}, {}, false, true, true, ""},
      {"grouped, residual, clip", {1, 4, 6, 6}, {4, 2, 3, 3}, {{"group", 2}, {"pads", {1, 1, 1, 1}}}, true, true, true,
       "Clip"},
      {"runtime weights, residual, relu", {1, 3, 5, 5}, {4, 3, 3, 3}, {}, true, true, false, "Relu"},
      {"1-D conv, residual, relu", {2, 3, 10}, {4, 3, 3}, {{"pads", {1, 1}}}, true, true, true, "Relu"},
      {"SAME_UPPER, depthwise, residual, relu", {1, 4, 7, 7}, {4, 1, 3, 3}, {{"group", 4}, {"auto_pad", "SAME_UPPER"}},
       false, true, true, "Relu"},
  };
  std::uint64_t seed = 1;
  for (const FusedCase& c : cases) {
    CAPTURE(c.name);
    Buffer x = buffer_of(Tensor::random(DataType::f32, c.x, seed++, -2, 2));
    const Tensor wt = Tensor::random(DataType::f32, c.w, seed++);
    Buffer w = buffer_of(wt);
    const Tensor bt = Tensor::random(DataType::f32, {c.w[0]}, seed++);
    Buffer bias = buffer_of(bt);
    const OpTensor w_desc = c.constant_w ? OpTensor::constant_of(wt) : described(w);
    const OpTensor b_desc = c.bias ? OpTensor::constant_of(bt) : OpTensor::undefined();
    const TensorView b_view = c.bias ? bias.view() : TensorView{};

    // Conv alone.
    const auto conv = ge::compile_op("Conv", {described(x), w_desc, b_desc}, {}, c.conv_attrs);
    Buffer y = empty_like(conv->outputs[0]);
    (void)ge::execute_op(*conv, std::vector{x.view(), w.view(), b_view}, std::vector{y.view()});
    Buffer z = buffer_of(Tensor::random(DataType::f32, y.dims, seed++, -1, 1));
    Buffer want = y;
    if (c.residual) {
      const auto add = ge::compile_op("Add", {described(y), described(z)}, {});
      (void)ge::execute_op(*add, std::vector{y.view(), z.view()}, std::vector{want.view()});
    }
    Buffer acted = want;
    ge::Attributes fused_attrs = c.conv_attrs;
    if (c.activation == "Relu") {
      const auto relu = ge::compile_op("Relu", {described(want)}, {});
      (void)ge::execute_op(*relu, std::vector{want.view()}, std::vector{acted.view()});
      fused_attrs.emplace("activation", "Relu");
    } else if (c.activation == "Clip") {
      const Tensor lo = Tensor::scalar(-0.25f), hi = Tensor::scalar(0.5f);
      Buffer lob = buffer_of(lo), hib = buffer_of(hi);
      const auto clip = ge::compile_op("Clip", {described(want), OpTensor::constant_of(lo), OpTensor::constant_of(hi)}, {});
      (void)ge::execute_op(*clip, std::vector{want.view(), lob.view(), hib.view()}, std::vector{acted.view()});
      fused_attrs.emplace("activation", "Clip");
      fused_attrs.emplace("clip_min", -0.25);
      fused_attrs.emplace("clip_max", 0.5);
    }

    // FusedConv in one go.
    std::vector<OpTensor> fin{described(x), w_desc, b_desc};
    std::vector<TensorView> fviews{x.view(), w.view(), b_view};
    if (c.residual) {
      fin.push_back(described(z));
      fviews.push_back(z.view());
    }
    const auto fused = ge::compile_op("FusedConv", fin, {}, fused_attrs);
    CHECK(fused->kernel->name().find("fused_conv2d") != std::string_view::npos);
    Buffer got = empty_like(fused->outputs[0]);
    (void)ge::execute_op(*fused, fviews, std::vector{got.view()});
    const auto a = floats(got), b = floats(acted);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-5).scale(1.0));
  }
}

TEST_CASE("FusedConv picks the pointwise kernel for a 1x1 conv and refuses a residual of another shape") {
  const auto f32 = [](const char* s) { return OpTensor{DataType::f32, Shape::parse(s)}; };
  const auto pw = ge::compile_op("FusedConv", {f32("1,8,4,4"), f32("16,8,1,1")}, {}, {{"activation", "Relu"}});
  CHECK(pw->kernel->name() == "cpu.fused_conv2d.pointwise");
  const auto general = ge::compile_op("FusedConv", {f32("1,8,4,4"), f32("16,8,3,3")}, {}, {{"activation", "Relu"}});
  CHECK(general->kernel->name() == "cpu.fused_conv2d");
  // The residual's shape must be the output's; the error names the op and Z.
  const OpTensor no_bias = OpTensor::undefined();
  const auto fused = [&](std::vector<OpTensor> in, ge::Attributes attrs = {}) {
    return ge::compile_op("FusedConv", std::move(in), {}, std::move(attrs));
  };
  expect_error(
      [&] {
        (void)fused({f32("1,8,4,4"), f32("16,8,3,3"), no_bias, f32("1,16,4,4")});
      },
      Errc::bad_op_inputs, "input 3 (Z)");
  expect_error(
      [&] {
        (void)fused({f32("1,8,4,4"), f32("16,8,1,1"), no_bias, f32("1,16,4")});
      },
      Errc::bad_op_inputs, "FusedConv");
  expect_error(
      [&] {
        (void)fused({f32("1,8,4,4"), f32("16,8,1,1")}, {{"activation", "Tanh"}});
      },
      Errc::bad_attribute, "activation");
  // Ranges: the residual narrows the output.
  const auto ranged = fused({f32("1~4,8,4,4"), f32("16,8,1,1"), no_bias, f32("2,16,4,4")});
  CHECK(ranged->outputs[0].shape.to_string() == "2,16,4,4");
  // In a graph, the error names the node.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,8,4,4");
  const Value z = b.input("z", DataType::f32, "1,8,4,4");
  const Value w = b.random_weights("w", {16, 8, 1, 1}, 1);
  expect_error([&] { (void)b.op("FusedConv", {x, w, Value{}, z}, {}, "my_fused"); }, Errc::bad_op_inputs, "my_fused");
}

// ---- fold_constants ------------------------------------------------------------------------

TEST_CASE("fold_constants pass evaluates constant subgraphs and static Shape nodes") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,3,4");
  const Value c1 = b.random_uniform("c1", {3, 4}, 1, -1, 1);
  const Value c2 = b.random_uniform("c2", {4}, 2, -1, 1);
  const Value folded = ((c1 + c2) * 2.0).relu("folded_relu");  // Add, Mul, Relu: all constant
  const Value y = (x * folded).reshape({2, 12}, "y");
  b.output(y);
  // Shape of a static input, then used as data: Shape -> Cast -> output.
  const Value s = x.shape_of("x_shape");
  b.output(s.cast(DataType::f32, "shape_f"));
  const Graph g = b.build();

  ge::PassStats st;
  const Graph f = ge::fold_constants(g, &st);
  CHECK(st.pass == "fold_constants");
  CHECK(st.nodes_removed == 5);  // Add, Mul, Relu, Shape, Cast
  CHECK(st.constants_added == 5);
  CHECK(count(f, "Relu") == 0);
  CHECK(count(f, "Shape") == 0);
  CHECK(count(f, "Mul") == 1);  // x * folded stays
  CHECK(f.nodes().size() == g.nodes().size() - st.nodes_removed);
  // Folded values keep their names and become constants.
  const auto relu = f.find_value("folded_relu");
  REQUIRE(relu.has_value());
  CHECK(f.constant_of(*relu) != nullptr);
  const auto shape = f.find_value("x_shape");
  REQUIRE(shape.has_value());
  REQUIRE(f.constant_of(*shape) != nullptr);
  CHECK(f.constant_of(*shape)->to_int64s() == std::vector<std::int64_t>{2, 3, 4});
  // A graph output may be a folded constant.
  CHECK(f.value(f.outputs()[1]).name == "shape_f");
  CHECK(f.constant_of(f.outputs()[1]) != nullptr);
  check_same(g, f);
  // Folding again changes nothing.
  ge::PassStats again;
  (void)ge::fold_constants(f, &again);
  CHECK(again.nodes_removed == 0);
}

TEST_CASE("fold_constants pass leaves ranged Shapes, huge outputs, kernel-less ops and graph inputs alone") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~4,3");
  b.output(x.shape_of("ranged_shape").cast(DataType::f32, "shape_f"));  // not static: stays
  // 5000 x 5000 f32 = 100 MB > 64 MiB: stays.
  const Value big = b.scalar(1.0).expand({5000, 5000}, "big");
  b.output(big.reduce_sum({0, 1}, false, "big_sum"));
  // Conv over 4 spatial dims has no CPU kernel: stays, even with constant inputs.
  const Value xd = b.constant("xd", Tensor::full(DataType::f32, {1, 1, 3, 3, 3, 3}, 1.0));
  const Value wd = b.constant("wd", Tensor::full(DataType::f32, {1, 1, 2, 2, 2, 2}, 1.0));
  b.output(xd.conv2d(wd, {.name = "conv_4d"}));
  const Graph g = b.build();

  ge::PassStats st;
  const Graph f = ge::fold_constants(g, &st);
  f.validate();
  CHECK(st.nodes_removed == 0);
  CHECK(count(f, "Shape") == 1);
  CHECK(count(f, "Expand") == 1);
  CHECK(count(f, "Conv") == 1);
  check_unchanged(g, f);
}

TEST_CASE("fold_constants pass folds host-engine and data-dependent ops (TopK, NonZero) with exact shapes") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "3");
  const Value c = b.constant("c", Tensor::from<float>({6}, {0.f, 3.f, 0.f, 1.f, 5.f, 0.f}));
  const auto top = c.topk(2, -1, "top");
  const Value nz = c.nonzero("nz");  // i64 [1, 3]: data-dependent
  b.output(x + top[0].slice({0}, {1}) * 1.0);
  b.output(nz);
  const Graph g = b.build();
  const Graph f = ge::fold_constants(g);
  CHECK(count(f, "TopK") == 0);
  CHECK(count(f, "NonZero") == 0);
  const auto nzv = f.find_value("nz");
  REQUIRE(nzv.has_value());
  REQUIRE(f.constant_of(*nzv) != nullptr);
  CHECK(f.constant_of(*nzv)->dims() == std::vector<std::int64_t>{1, 3});
  CHECK(f.constant_of(*nzv)->to_int64s() == std::vector<std::int64_t>{1, 3, 4});
  CHECK(f.value(*nzv).desc.shape.to_string() == "1,3");
  check_same(g, f);
}

TEST_CASE("fold_constants pass folds a Shape whose start/end select static dims of a ranged input") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "-1,3,5");
  const Value tail = b.op("Shape", {x}, {{"start", 1}}, "tail");  // [3, 5]: folds
  const Value all = b.op("Shape", {x}, {{"end", -1}}, "head");    // [-1, 3]: stays
  b.output(tail.cast(DataType::f32, "tail_f"));
  b.output(all);
  const Graph g = b.build();
  ge::PassStats st;
  const Graph f = ge::fold_constants(g, &st);
  CHECK(st.nodes_removed == 2);  // Shape "tail" and its Cast
  CHECK(count(f, "Shape") == 1);
  REQUIRE(f.constant_of(*f.find_value("tail")) != nullptr);
  CHECK(f.constant_of(*f.find_value("tail"))->to_int64s() == std::vector<std::int64_t>{3, 5});
  f.validate();
}

TEST_CASE("fold_constants pass follows a dynamic export's shape arithmetic: static dims fold, Reshapes get their dims") {
  // torch's x.view(n, 2, c // 2, h, w) then .view(n, -1, h * w), n the free batch.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~8,6,4,5");
  const Value s = x.shape_of("s");
  const auto dim = [&](std::int64_t i) {
    return s.gather(b.scalar(static_cast<double>(i), DataType::i64), 0, "g" + std::to_string(i));
  };
  const Value n = dim(0), c = dim(1), h = dim(2), w = dim(3);
  const Value shape5 =
      ge::concat({n.unsqueeze({0}), b.int64s({2}), (c / 2.0).unsqueeze({0}), h.unsqueeze({0}), w.unsqueeze({0})}, 0);
  const Value r5 = b.op("Reshape", {x, shape5}, {}, "r5");
  const Value shape3 = ge::concat({n.unsqueeze({0}), b.int64s({-1}), (h * w).unsqueeze({0})}, 0);
  b.output(b.op("Reshape", {r5, shape3}, {}, "r3").relu("y"));
  const Graph g = b.build();
  CHECK(g.value(node(g, "r5").outputs[0]).desc.shape.rank_known());
  const Graph f = ge::fold_constants(g);
  f.validate();
  CHECK(f.value(node(f, "r5").outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{ge::Dim::range(1, 8), 2, 3, 4, 5}));
  CHECK(f.value(node(f, "r3").outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{ge::Dim::range(1, 8), 6, 20}));
  CHECK(f.value(node(f, "y").outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{ge::Dim::range(1, 8), 6, 20}));
  CHECK(count(f, "Div") == 0);  // c // 2 and h * w: c, h and w are static
  CHECK(count(f, "Mul") == 0);
  CHECK(count(f, "Gather") == 1);  // the batch's
  // The folded graph runs (the original's unbounded Reshapes do not plan): y = relu(x).
  const Tensor in = Tensor::random(DataType::f32, {3, 6, 4, 5}, 5);
  const std::vector<Tensor> out = run(f, {{"x", in}});
  REQUIRE(out.size() == 1);
  CHECK(out[0].dims() == std::vector<std::int64_t>{3, 6, 20});
  const std::vector<double> xs = in.to_doubles(), ys = out[0].to_doubles();
  REQUIRE(xs.size() == ys.size());
  for (std::size_t i = 0; i < xs.size(); ++i) CHECK(ys[i] == std::max(xs[i], 0.0));
}

TEST_CASE("fold_constants pass: a Resize to Shape(x)[0:2] and whole multiples of H, W gets constant scales") {
  // torch's F.interpolate(x, size=(h, w)) under a free batch: sizes = Concat(Shape(x)[0:2],
  // [h, w]). Where h and w are whole multiples of x's H and W, scales [1, 1, h / H, w / W]
  // give the same extents and coordinates, and the output's dims are known; else, or with
  // the sizes' batch another input's, the Resize keeps its sizes.
  struct Case {
    std::int64_t h, w;
    bool other_batch;
    bool scaled;
  };
  for (const Case k : {Case{12, 15, false, true}, Case{6, 10, false, true}, Case{13, 15, false, false},
                       Case{12, 15, true, false}}) {
    CAPTURE(k.h);
    CAPTURE(k.other_batch);
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1~3,4,6,5");
    const Value z = b.input("z", DataType::f32, "1~3,4,6,5");
    const Value s = (k.other_batch ? z : x).shape_of("s");
    const Value head = b.op("Slice", {s, b.int64s({0}), b.int64s({2})}, {}, "head");
    const Value sizes = ge::concat({head, b.int64s({k.h, k.w})}, 0, "sizes");
    const Value r = b.op("Resize",
                         {x, b.constant("roi", Tensor::from<float>({0}, {})),
                          b.constant("scales", Tensor::from<float>({0}, {})), sizes},
                         {{"mode", std::string("linear")}}, "resize");
    b.output(r.relu("y"));
    b.output(z.relu("zy"));
    const Graph g = b.build();
    const Graph f = ge::fold_constants(g);
    f.validate();
    const ge::Node& rs = node(f, "resize");
    CHECK(rs.inputs.size() == (k.scaled ? 3U : 4U));
    if (k.scaled) {
      REQUIRE(f.constant_of(rs.inputs[2]) != nullptr);
      CHECK(f.constant_of(rs.inputs[2])->to_doubles() ==
            std::vector<double>{1, 1, static_cast<double>(k.h / 6), static_cast<double>(k.w / 5)});
      CHECK(f.value(rs.outputs[0]).desc.shape == ge::Shape(std::vector<ge::Dim>{ge::Dim::range(1, 3), 4, k.h, k.w}));
      // The same floats as a Resize to constant sizes (the same coordinates).
      GraphBuilder rb;
      const Value rx = rb.input("x", DataType::f32, "3,4,6,5");
      const Value rz = rb.input("z", DataType::f32, "3,4,6,5");
      const Value rr = rb.op("Resize",
                             {rx, rb.constant("roi", Tensor::from<float>({0}, {})),
                              rb.constant("scales", Tensor::from<float>({0}, {})), rb.int64s({3, 4, k.h, k.w})},
                             {{"mode", std::string("linear")}}, "resize");
      rb.output(rr.relu("y"));
      rb.output(rz.relu("zy"));
      const Graph ref = rb.build();
      const auto in = random_inputs(ref);  // (batch 3: within x's 1~3)
      CHECK(relative_error(run(f, in), run(ref, in)) == 0.0);
    } else {
      CHECK_FALSE(f.value(rs.outputs[0]).desc.shape[2].is_static());
    }
  }
}

TEST_CASE("fold_constants pass: a Reshape's -1 is not worked out from another input's free dim of the same range") {
  // x [N, 6] reshaped by [M, -1] with M y's batch: both 1~8, but not the same quantity, so
  // the -1 is not 6 (N = 4, M = 2 gives 12).
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~8,6");
  const Value y = b.input("y", DataType::f32, "1~8,3");
  const Value m = y.shape_of().gather(b.scalar(0, DataType::i64), 0, "m");
  const Value r = b.op("Reshape", {x, ge::concat({m.unsqueeze({0}), b.int64s({-1})}, 0)}, {}, "r");
  b.output(r.shape_of().gather(b.scalar(1, DataType::i64), 0, "width"));
  b.output(y.relu());
  const Graph g = b.build();
  const Graph f = ge::fold_constants(g);
  CHECK_FALSE(f.value(node(f, "r").outputs[0]).desc.shape[1].is_static());
  const auto width = f.find_value("width");
  REQUIRE(width.has_value());
  CHECK(f.constant_of(*width) == nullptr);  // not folded to 6
  CHECK(count(f, "Reshape") == 1);
}

// ---- remove_dead_code ------------------------------------------------------------------------

TEST_CASE("remove_dead_code pass drops what no output needs and keeps every graph input") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,4");
  const Value unused_in = b.input("unused", DataType::f32, "3");
  const Value w = b.random_uniform("w", {4}, 1, -1, 1);
  const Value dead_w = b.random_uniform("dead_w", {4}, 2, -1, 1);
  (void)(x * dead_w).relu("dead_relu");  // a dead branch: Mul + Relu
  (void)unused_in.sigmoid("dead_sigmoid");
  const auto parts = (x + w).split({1, 1}, 0, "split");  // one output used: the node stays
  b.output(parts[0].tanh("y"));
  const Graph g = b.build();

  ge::PassStats st;
  const Graph d = ge::remove_dead_code(g, &st);
  CHECK(st.pass == "remove_dead_code");
  CHECK(st.nodes_removed == 3);
  CHECK(st.constants_removed == 1);
  CHECK(count(d, "Relu") == 0);
  CHECK(count(d, "Sigmoid") == 0);
  CHECK(count(d, "Split") == 1);
  CHECK(d.find_value("dead_w") == std::nullopt);
  CHECK(d.find_value("w").has_value());
  CHECK(d.inputs().size() == 2);
  CHECK(d.inputs()[1].name == "unused");
  const auto in = random_inputs(g);
  CHECK(relative_error(run(d, in), run(g, in)) == 0.0);
  // Nothing left to remove.
  ge::PassStats again;
  (void)ge::remove_dead_code(d, &again);
  CHECK(again.nodes_removed == 0);
  CHECK(again.constants_removed == 0);
}

// ---- fold_batch_norm ----------------------------------------------------------------------------

TEST_CASE("fold_batch_norm pass folds BN into the Conv before it, with and without a bias") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,3,8,8");
  const auto c1 = conv_weights(b, "c1", 6, 3, 3, 1);
  Value y = batch_norm(b, x.conv2d(c1.w, c1.b, {.pad = 1, .name = "c1"}), "bn1", 6, 10).relu("r1");
  const auto c2 = conv_weights(b, "c2", 8, 3, 3, 2);  // grouped, no bias
  y = batch_norm(b, y.conv2d(c2.w, {.stride = 2, .group = 2, .name = "c2"}), "bn2", 8, 20);
  b.output(y);
  const Graph g = b.build();

  ge::PassStats st;
  const Graph f = ge::fold_batch_norm(g, &st);
  CHECK(st.pass == "fold_batch_norm");
  CHECK(st.nodes_removed == 2);
  CHECK(st.constants_added == 4);
  CHECK(count(f, "BatchNormalization") == 0);
  CHECK(count(f, "Conv") == 2);
  const ge::Node& conv = node(f, "c1");
  REQUIRE(conv.inputs.size() == 3);
  CHECK(f.value(conv.inputs[1]).name == "c1.weight.bn_folded");
  CHECK(f.value(conv.inputs[2]).name == "c1.bias.bn_folded");
  CHECK(f.value(conv.outputs[0]).name == "bn1");  // the BN's output value lives on
  CHECK(f.value(node(f, "c2").inputs[2]).name == "c2.bias.bn_folded");
  check_same(g, f);
  // The old weights are dead now; remove_dead_code drops them.
  ge::PassStats dead;
  const Graph d = ge::remove_dead_code(f, &dead);
  CHECK(dead.constants_removed == 4 + 8);  // c1.w, c1.b, c2.w, c2.b (never read) and 4 BN params each
  check_same(g, d);
}

TEST_CASE("fold_batch_norm pass derives unique names when the derived one is taken") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,2,4,4");
  (void)b.constant("c.weight.bn_folded", Tensor::full(DataType::f32, {1}, 0.0));
  const auto c = conv_weights(b, "c", 2, 2, 1, 3);
  b.output(batch_norm(b, x.conv2d(c.w, {.name = "c"}), "bn", 2, 4));
  const Graph g = b.build();
  const Graph f = ge::fold_batch_norm(g);
  CHECK(f.value(node(f, "c").inputs[1]).name == "c.weight.bn_folded.1");
  check_same(g, f);
}

// The BN that stays after a conv that could not take it: its own depthwise 1x1 Conv
// (scale and shift per channel), named as the BN, its output the BN's; the conv untouched.
void check_bn_depthwise(const Graph& g, const Graph& f, std::int64_t channels) {
  CHECK(count(f, "BatchNormalization") == 0);
  CHECK(count(f, "Conv") == 2);
  CHECK(node(f, "c").inputs == node(g, "c").inputs);
  const ge::Node& dw = node(f, "bn");
  CHECK(dw.op == "Conv");
  CHECK(dw.attrs.at("group").as_int() == channels);
  REQUIRE(dw.inputs.size() == 3);
  CHECK(f.value(dw.inputs[1]).name == "bn.weight.depthwise");
  CHECK(f.value(dw.inputs[2]).name == "bn.bias.depthwise");
  CHECK(f.value(dw.outputs[0]).name == g.value(node(g, "bn").outputs[0]).name);
  check_same(g, f);
}

TEST_CASE("fold_batch_norm pass: where a Conv cannot take the BN, the BN becomes a depthwise 1x1 Conv") {
  SUBCASE("the Conv's output is read twice") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const auto c = conv_weights(b, "c", 4, 2, 3, 1);
    const Value y = x.conv2d(c.w, {.name = "c"});
    b.output(batch_norm(b, y, "bn", 4, 5));
    b.output(y.relu("other_reader"));
    const Graph g = b.build();
    ge::PassStats st;
    check_bn_depthwise(g, ge::fold_batch_norm(g, &st), 4);
    CHECK(st.nodes_removed == 0);
    CHECK(st.constants_added == 2);
  }
  SUBCASE("the Conv's output is a graph output") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const auto c = conv_weights(b, "c", 4, 2, 3, 1);
    const Value y = x.conv2d(c.w, {.name = "c"});
    b.output(y);
    b.output(batch_norm(b, y, "bn", 4, 5));
    const Graph g = b.build();
    check_bn_depthwise(g, ge::fold_batch_norm(g), 4);
  }
  SUBCASE("the Conv's weights are not a constant") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value w = b.input("w", DataType::f32, "4,2,3,3");
    b.output(batch_norm(b, x.conv2d(w, {.name = "c"}), "bn", 4, 5));
    const Graph g = b.build();
    check_bn_depthwise(g, ge::fold_batch_norm(g), 4);
  }
  SUBCASE("pre-activation: BN and ReLU before a conv (DenseNet), over a Concat") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,3,6,6");
    const auto c = conv_weights(b, "c", 4, 3, 3, 1);
    const Value y = x.conv2d(c.w, c.b, {.pad = 1, .name = "c"});
    const Value cat = ge::concat({x, y}, 1, "cat");
    const auto c2 = conv_weights(b, "c2", 5, 7, 1, 2);
    b.output(batch_norm(b, cat, "bn", 7, 6).relu("r").conv2d(c2.w, c2.b, {.name = "c2"}));
    const Graph g = b.build();
    const Graph f = ge::fold_batch_norm(g);
    CHECK(node(f, "bn").op == "Conv");
    CHECK(node(f, "bn").attrs.at("group").as_int() == 7);
    check_same(g, f);
    // The whole: the ReLU goes into the depthwise conv, which runs in the NHWC chain.
    const Graph o = ge::optimize(g);
    CHECK(count(o, "Relu") == 0);
    CHECK(count(o, "BatchNormalization") == 0);
    check_same(g, o);
  }
}

TEST_CASE("fold_batch_norm pass leaves the graph alone when a condition fails") {
  SUBCASE("the BN's mean is not a constant") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value mean = b.input("mean", DataType::f32, "4");
    const auto c = conv_weights(b, "c", 4, 2, 3, 1);
    b.output(x.conv2d(c.w, {.name = "c"})
                 .batch_norm(b.full("s", {4}, 1.0), b.full("bb", {4}, 0.0), mean, b.full("v", {4}, 1.0)));
    const Graph g = b.build();
    check_unchanged(g, ge::fold_batch_norm(g));
  }
  SUBCASE("a BN over rank-2 rows (BatchNorm1d), no image") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "3,4");
    b.output(batch_norm(b, x, "bn", 4, 5));
    const Graph g = b.build();
    check_unchanged(g, ge::fold_batch_norm(g));
  }
  SUBCASE("a BN over an image of unknown channels") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,-1,5,5");
    b.output(batch_norm(b, x, "bn", 4, 5));
    const Graph g = b.build();
    check_unchanged(g, ge::fold_batch_norm(g));
  }
}

// ---- fuse_activations -----------------------------------------------------------------------------

TEST_CASE("fuse_activations pass: Conv + Add + Relu, Conv + Clip, Conv + Relu, Conv + Add") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,4,6,6");
  const Value z = b.input("z", DataType::f32, "2,4,6,6");
  const auto c1 = conv_weights(b, "c1", 4, 4, 3, 1);
  const Value r1 = (x.conv2d(c1.w, c1.b, {.pad = 1, .name = "c1"}) + z).relu("r1");   // Conv + Add + Relu
  const auto c2 = conv_weights(b, "c2", 4, 4, 3, 2);
  const Value r2 = r1.conv2d(c2.w, {.pad = 1, .name = "c2"}).clip(0.0, 0.5, "r2");   // Conv + Clip
  const auto c3 = conv_weights(b, "c3", 4, 4, 1, 3);
  const Value r3 = (r1 + r2.conv2d(c3.w, c3.b, {.name = "c3"})).relu("r3");           // Add(z, conv) + Relu
  const auto c4 = conv_weights(b, "c4", 4, 4, 3, 4);
  const Value r4 = r3.conv2d(c4.w, {.pad = 1, .name = "c4"}) + x;                     // Conv + Add
  const auto c5 = conv_weights(b, "c5", 8, 4, 3, 5);
  b.output(r4.conv2d(c5.w, c5.b, {.stride = 2, .name = "c5"}).relu("out"));           // Conv + Relu
  const Graph g = b.build();

  ge::PassStats st;
  const Graph f = ge::fuse_activations(g, &st);
  CHECK(st.pass == "fuse_activations");
  CHECK(st.nodes_added == 5);
  CHECK(st.nodes_removed == 3 + 2 + 3 + 2 + 2);
  CHECK(f.nodes().size() == 5);
  CHECK(count(f, "FusedConv") == 5);
  CHECK(node(f, "c1").attrs.at("activation").as_string() == "Relu");
  CHECK(f.value(node(f, "c1").outputs[0]).name == "r1");
  CHECK(f.value(node(f, "c1").inputs[3]).name == "z");
  CHECK(node(f, "c2").attrs.at("activation").as_string() == "Clip");
  CHECK(node(f, "c2").attrs.at("clip_min").as_float() == 0.0);
  CHECK(node(f, "c2").attrs.at("clip_max").as_float() == 0.5);
  CHECK(node(f, "c2").inputs.size() == 2);  // no bias, no residual
  CHECK(f.value(node(f, "c3").inputs[3]).name == "r1");
  CHECK(node(f, "c4").attrs.count("activation") == 0);
  REQUIRE(node(f, "c4").inputs.size() == 4);
  CHECK(node(f, "c4").inputs[2] == ge::no_value);
  CHECK(node(f, "c5").attrs.at("strides").as_ints() == std::vector<std::int64_t>{2, 2});
  CHECK(f.value(f.outputs()[0]).name == "out");
  check_same(g, f);
}

TEST_CASE("fuse_activations pass leaves the graph alone when a condition fails") {
  SUBCASE("the Conv's output is read twice") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value y = x.conv2d(b.random_weights("w", {2, 2, 3, 3}, 1), {.pad = 1, .name = "c"});
    b.output(y.relu("r") + y);
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_activations(g));
  }
  SUBCASE("the Add's output is read twice: Conv + Add fuses, the Relu stays") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value s = x.conv2d(b.random_weights("w", {2, 2, 3, 3}, 1), {.pad = 1, .name = "c"}) + x;
    b.output(s.relu("r"));
    b.output(s.sigmoid("other"));
    const Graph g = b.build();
    const Graph f = ge::fuse_activations(g);
    CHECK(count(f, "FusedConv") == 1);
    CHECK(count(f, "Relu") == 1);
    CHECK(count(f, "Add") == 0);
    check_same(g, f);
  }
  SUBCASE("Clip with bounds that are not constants") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value lo = b.input("lo", DataType::f32, Shape{});
    const Value hi = b.input("hi", DataType::f32, Shape{});
    b.output(b.op("Clip", {x.conv2d(b.random_weights("w", {2, 2, 3, 3}, 1), {.name = "c"}), lo, hi}, {}, "clip"));
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_activations(g));
  }
  SUBCASE("a residual that broadcasts, or whose shape is not sure to match") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value bias = b.input("bias", DataType::f32, "2,1,1");
    b.output((x.conv2d(b.random_weights("w", {2, 2, 3, 3}, 1), {.pad = 1, .name = "c"}) + bias).relu("r"));
    const Value xr = b.input("xr", DataType::f32, "1~4,2,5,5");
    const Value zr = b.input("zr", DataType::f32, "1~4,2,5,5");  // 1 broadcasts: not sure
    b.output((xr.conv2d(b.random_weights("w2", {2, 2, 3, 3}, 2), {.pad = 1, .name = "c2"}) + zr).relu("r2"));
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_activations(g));
  }
  SUBCASE("the Conv's output is a graph output, or its type has no fused kernel") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,2,5,5");
    const Value y = x.conv2d(b.random_weights("w", {2, 2, 3, 3}, 1), {.name = "c"});
    b.output(y);
    b.output(y.relu("r"));
    const Value xd = b.input("xd", DataType::f64, "1,2,5,5");
    const Value wd = b.constant("wd", Tensor::full(DataType::f64, {2, 2, 3, 3}, 0.5));
    b.output(xd.conv2d(wd, {.name = "c64"}).relu("r64"));
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_activations(g));
  }
}

TEST_CASE("fuse_activations pass fuses residuals over equal ranges that exclude 1") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2~4,2,5,5");
  const Value y = x.conv2d(b.random_weights("w", {2, 2, 3, 3}, 1), {.pad = 1, .name = "c"});
  b.output((y + x).relu("r"));
  const Graph g = b.build();
  const Graph f = ge::fuse_activations(g);
  CHECK(count(f, "FusedConv") == 1);
  CHECK(f.nodes().size() == 1);
  check_same(g, f);  // at the upper end, batch 4
}

TEST_CASE("fuse_activations pass: Sigmoid, HardSigmoid, HardSwish, LeakyRelu, Gelu, and the SiLU and HardSwish gates of either spelling") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,4,6,6");
  const auto conv = [&](Value in, const char* name, std::uint64_t seed) {
    const auto c = conv_weights(b, name, 4, 4, 3, seed);
    return in.conv2d(c.w, c.b, {.pad = 1, .name = name});
  };
  const Value c1 = conv(x, "c1", 1);
  const Value r1 = c1 * c1.sigmoid();                                           // SiLU
  const Value c2 = conv(r1, "c2", 2);
  const Value r2 = b.op("HardSigmoid", {c2}, {{"alpha", 1.0 / 6.0}, {"beta", 0.5}}) * c2;  // HardSwish, gate first
  const Value r3 = conv(r2, "c3", 3).hard_swish();                              // HardSwish op
  const Value s4 = conv(r3, "c4", 4) + r1;                                      // residual, then SiLU
  const Value r4 = s4.sigmoid() * s4;
  const Value r5 = b.op("HardSigmoid", {conv(r4, "c5", 5)}, {{"alpha", 0.25}, {"beta", 0.4}});
  const Value r6 = b.op("LeakyRelu", {conv(r5, "c6", 6)}, {{"alpha", 0.1}});
  const Value r7 = b.op("LeakyRelu", {conv(r6, "c7", 7)});  // ONNX's default slope, 0.01
  const Value r8 = b.op("Gelu", {conv(r7, "c8", 8)});                           // erf Gelu
  const Value r9 = b.op("Gelu", {conv(r8, "c9", 9)}, {{"approximate", std::string("tanh")}});
  b.output(conv(r9, "c10", 10).sigmoid("out"));
  const Graph g = b.build();
  ge::PassStats st;
  const Graph f = ge::fuse_activations(g, &st);
  CHECK(f.nodes().size() == 10);
  CHECK(count(f, "FusedConv") == 10);
  CHECK(node(f, "c1").attrs.at("activation").as_string() == "Silu");
  CHECK(node(f, "c2").attrs.at("activation").as_string() == "HardSwish");
  CHECK(node(f, "c3").attrs.at("activation").as_string() == "HardSwish");
  CHECK(node(f, "c4").attrs.at("activation").as_string() == "Silu");
  REQUIRE(node(f, "c4").inputs.size() == 4);
  CHECK(node(f, "c5").attrs.at("activation").as_string() == "HardSigmoid");
  CHECK(node(f, "c5").attrs.at("alpha").as_float() == 0.25);
  CHECK(node(f, "c6").attrs.at("activation").as_string() == "LeakyRelu");
  CHECK(node(f, "c6").attrs.at("alpha").as_float() == doctest::Approx(0.1));
  CHECK(node(f, "c7").attrs.at("alpha").as_float() == doctest::Approx(0.01));
  CHECK(node(f, "c8").attrs.at("activation").as_string() == "Gelu");
  CHECK(node(f, "c9").attrs.at("activation").as_string() == "GeluTanh");
  CHECK(node(f, "c10").attrs.at("activation").as_string() == "Sigmoid");
  CHECK(f.value(f.outputs()[0]).name == "out");
  check_same(g, f, 1e-5);
  // The same net through every pass: the NHWC kernels apply the activations too.
  check_same(g, ge::optimize(g), 1e-4);
}

TEST_CASE("fuse_activations pass leaves gates alone that are not SiLU or HardSwish, or are read elsewhere") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1,2,5,5");
  const auto conv = [&](const char* name, std::uint64_t seed) {
    return x.conv2d(b.random_weights(std::string(name) + ".w", {2, 2, 3, 3}, seed), {.pad = 1, .name = name});
  };
  const Value a = conv("a", 1);
  b.output(b.op("HardSigmoid", {a}, {{"alpha", 0.2}, {"beta", 0.5}}) * a);  // not HardSwish's slope
  const Value c = conv("c", 2);
  const Value g = c.sigmoid("gate");
  b.output(c * g);
  b.output(g);  // the gate is read elsewhere
  const Value d = conv("d", 3);
  b.output(d * d.tanh());  // Mish-like: no fused kind
  const Value e = conv("e", 4);
  b.output(e * e);  // one node reads the Conv twice
  const Graph graph = b.build();
  check_unchanged(graph, ge::fuse_activations(graph));
}

// ---- optimize and bad input ---------------------------------------------------------------------

TEST_CASE("optimize pass pipeline on ResNet-50 removes every BatchNormalization and Relu, same outputs") {
  const Graph g = ge::models::resnet50("1,3,32,32");
  std::vector<ge::PassStats> stats;
  const Graph o = ge::optimize(g, &stats);
  REQUIRE(stats.size() == 17);
  CHECK(stats[0].pass == "fold_qdq_pairs");
  CHECK(stats[0].nodes_added == 0);  // no QuantizeLinear/DequantizeLinear pairs
  CHECK(stats[1].pass == "fold_constants");
  CHECK(stats[2].pass == "trim_conv_taps");
  CHECK(stats[2].constants_added == 3);  // the last stage's three 3x3 convs see 1x1 images: centre taps only
  CHECK(stats[3].pass == "fold_batch_norm");
  CHECK(stats[3].nodes_removed == 53);
  CHECK(stats[4].pass == "fuse_layer_norm");
  CHECK(stats[5].pass == "fuse_gelu");
  CHECK(stats[6].pass == "fuse_attention");
  CHECK(stats[7].pass == "conv_frames");
  CHECK(stats[7].nodes_added == 0);  // no 3-D convs
  CHECK(stats[8].pass == "fuse_activations");
  CHECK(stats[8].nodes_added == 49);  // every Conv but the 4 projection shortcuts, which feed a fused Add as Z
  CHECK(stats[9].pass == "fuse_matmul_epilogue");
  CHECK(stats[10].pass == "layout_nhwc");
  CHECK(stats[10].nodes_added == 2);  // NHWC from the stem on: a Transpose of the input, the pool's mean
  CHECK(stats[11].pass == "quantize_products");
  CHECK(stats[11].nodes_added == 0);  // nothing quantized
  CHECK(stats[12].pass == "fuse_pointwise_depthwise");
  CHECK(stats[12].nodes_added == 0);  // no depthwise convs
  CHECK(stats[13].pass == "fuse_depthwise_pointwise");
  CHECK(stats[13].nodes_added == 0);
  CHECK(stats[14].pass == "fuse_channel_gate");
  CHECK(stats[14].nodes_removed == 0);  // no gates
  CHECK(stats[15].pass == "fold_transposes");
  CHECK(stats[16].pass == "remove_dead_code");
  CHECK(count(o, "BatchNormalization") == 0);
  CHECK(count(o, "Relu") == 0);
  CHECK(count(o, "Add") == 0);
  CHECK(count(o, "Conv") == 0);
  CHECK(count(o, "FusedConv") == 53);  // 49 fused, and the 4 projection shortcuts as NHWC FusedConvs
  CHECK(count(o, "Transpose") == 0);  // (the stem reads the NCHW input: fold_transposes)
  CHECK(count(o, "GlobalAveragePool") == 0);  // a ReduceMean over NHWC's H, W and a Reshape instead
  CHECK(o.nodes().size() == 53 + 4 + 1);  // + MaxPool, the pool's Reshape, Flatten, Gemm; ReduceMean
  // Only folded weights and the classifier's remain.
  for (const ge::Constant& c : o.constants())
    CHECK_MESSAGE((c.name.find("bn_folded") != std::string::npos || c.name.rfind("fc.", 0) == 0 ||
                   c.tensor.dtype() != DataType::f32 || c.tensor.element_count() <= 1),
                  c.name);
  CHECK(o.value(node(o, "layer1.0.conv1").outputs[0]).name == "layer1.0.conv1.relu.nhwc");
  CHECK(o.value(node(o, "layer1.0.conv3").outputs[0]).name == "layer1.0.out.nhwc");
  CHECK(o.value(node(o, "layer1.0.conv3").inputs[3]).name == "layer1.0.downsample.bn.nhwc");
  CHECK(node(o, "layer1.0.downsample").op == "FusedConv");
  CHECK(node(o, "conv1").attrs.at("layout").as_string() == "NHWC");  // the stem and MaxPool join the chain
  check_same(g, o, 1e-4);
}

TEST_CASE("every pass refuses a graph that is not valid") {
  Graph no_output;
  const auto x = no_output.add_input("x", DataType::f32, Shape{2});
  const auto y = no_output.declare_value("y", {DataType::f32, Shape{2}});
  no_output.add_node("r", "Relu", {x}, {y});

  Graph cycle;
  const auto a = cycle.declare_value("a", {DataType::f32, Shape{2}});
  const auto c = cycle.declare_value("c", {DataType::f32, Shape{2}});
  cycle.add_node("n1", "Relu", {a}, {c});
  cycle.add_node("n2", "Relu", {c}, {a});
  cycle.add_output(c);

  Graph wrong_shape;
  const auto i = wrong_shape.add_input("x", DataType::f32, Shape{2});
  const auto o = wrong_shape.declare_value("y", {DataType::f32, Shape{3}});
  wrong_shape.add_node("r", "Relu", {i}, {o});
  wrong_shape.add_output(o);

  for (const auto& pass : std::vector<Graph (*)(const Graph&, ge::PassStats*)>{
           &ge::fold_constants, &ge::remove_dead_code, &ge::fold_batch_norm, &ge::fuse_activations}) {
    expect_error([&] { (void)pass(no_output, nullptr); }, Errc::bad_graph, "no output");
    expect_error([&] { (void)pass(cycle, nullptr); }, Errc::bad_graph, "cycle");
    expect_error([&] { (void)pass(wrong_shape, nullptr); }, Errc::incompatible_shapes, "'r'");
  }
  expect_error([&] { (void)ge::optimize(cycle); }, Errc::bad_graph, "cycle");
}

TEST_CASE("fuse_activations fuses residual Adds over a dynamic batch when both sides carry the input's batch") {
  // The batch range includes 1, so only the dims' common origin (the input's batch) proves
  // that the Add cannot broadcast.
  for (const char* shape : {"-1,3,32,32", "1~8,3,32,32"}) {
    const Graph o = ge::optimize(ge::models::resnet50(shape));
    CHECK(count(o, "Add") == 0);
    CHECK(count(o, "Relu") == 0);
    CHECK(count(o, "FusedConv") == 53);  // 49 fused + the 4 shortcuts, on NHWC (layout_nhwc)
  }
  // Two different inputs of batch 1~8: their batches may differ, so no residual fusion.
  GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "1~8,4,6,6");
  const auto z = b.input("z", DataType::f32, "1~8,4,6,6");
  const auto y = x.conv2d(b.random_weights("w", {4, 4, 3, 3}, 1), {.pad = 1});
  b.output(y + z);
  const Graph g = ge::optimize(b.build());
  CHECK(count(g, "Add") == 1);
  CHECK(count(g, "FusedConv") == 0);
}

namespace {
// A graph as text: every node (op, name, inputs, outputs with their descriptions, the
// attributes' names), the constants and the outputs, in order.
std::string graph_text(const Graph& g) {
  std::string out;
  const auto value = [&](ge::ValueId v) {
    return v == ge::no_value ? std::string("-") : g.value(v).name + ":" + g.value(v).desc.shape.to_string();
  };
  for (const ge::Node& n : g.nodes()) {
    out += n.op + " " + n.name + " (";
    for (const ge::ValueId v : n.inputs) out += value(v) + " ";
    out += ") -> (";
    for (const ge::ValueId v : n.outputs) out += value(v) + " ";
    out += ")";
    for (const auto& [k, a] : n.attrs) out += " " + k + "=" + a.to_string();
    out += "\n";
  }
  for (const ge::Constant& c : g.constants()) out += "const " + value(c.value) + "\n";
  for (const ge::ValueId v : g.outputs()) out += "output " + value(v) + "\n";
  return out;
}
}  // namespace

TEST_CASE("optimize runs the passes on one working form, as the passes one after another would") {
  const std::vector<std::pair<const char*, Graph>> models{{"resnet50", ge::models::resnet50("1~4,3,32,32")},
                                                         {"mobilenet_v2", ge::models::mobilenet_v2("-1,3,32,32")},
                                                         {"bert_encoder", ge::models::bert_encoder("1~2", "16")}};
  for (const auto& [model, g] : models) {
    INFO(model);
    std::vector<ge::PassStats> stats;
    const Graph once = ge::optimize(g, &stats);
    Graph step = g;
    std::vector<ge::PassStats> step_stats(17);
    step = ge::fold_qdq_pairs(step, &step_stats[0]);
    step = ge::fold_constants(step, &step_stats[1]);
    step = ge::trim_conv_taps(step, &step_stats[2]);
    step = ge::fold_batch_norm(step, &step_stats[3]);
    step = ge::fuse_layer_norm(step, &step_stats[4]);
    step = ge::fuse_gelu(step, &step_stats[5]);
    step = ge::fuse_attention(step, &step_stats[6]);
    step = ge::conv_frames(step, &step_stats[7]);
    step = ge::fuse_activations(step, &step_stats[8]);
    step = ge::fuse_matmul_epilogue(step, &step_stats[9]);
    step = ge::layout_nhwc(step, &step_stats[10]);
    step = ge::quantize_products(step, &step_stats[11]);
    step = ge::fuse_pointwise_depthwise(step, &step_stats[12]);
    step = ge::fuse_depthwise_pointwise(step, &step_stats[13]);
    step = ge::fuse_channel_gate(step, &step_stats[14]);
    step = ge::fold_transposes(step, &step_stats[15]);
    step = ge::remove_dead_code(step, &step_stats[16]);
    REQUIRE(stats.size() == step_stats.size());
    for (std::size_t i = 0; i < stats.size(); ++i) {
      CHECK(stats[i].pass == step_stats[i].pass);
      CHECK(stats[i].nodes_removed == step_stats[i].nodes_removed);
      CHECK(stats[i].nodes_added == step_stats[i].nodes_added);
      CHECK(stats[i].constants_added == step_stats[i].constants_added);
      CHECK(stats[i].constants_removed == step_stats[i].constants_removed);
    }
    CHECK(graph_text(once) == graph_text(step));
  }
}
