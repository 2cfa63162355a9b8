// ge::fuse_depthwise_pointwise: an NHWC depthwise conv and the 1x1 conv that alone reads it
// become one FusedDepthwisePointwise node, whose outputs are the two convs'; what it leaves.
#include <doctest/doctest.h>

#include "support/expect_error.hpp"
#include "support/graph_eval.hpp"

#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/runtime/session.hpp"

using ge::DataType;
using ge::Graph;
using ge::GraphBuilder;
using ge::Value;

namespace {

using ge::test::Buffer;
using ge::test::buffer_of;
using ge::test::check_same;
using ge::test::check_unchanged;
using ge::test::count;
using ge::test::expect_error;
using ge::test::node;

Value conv(GraphBuilder& b, Value x, const std::string& name, std::int64_t out_c, std::int64_t in_c, std::int64_t k,
           ge::ConvOptions o, std::uint64_t seed) {
  o.name = name;
  return x.conv2d(b.random_weights(name + ".w", {out_c, in_c, k, k}, seed),
                  b.random_uniform(name + ".b", {out_c}, seed + 1, -0.5, 0.5), o);
}

enum class Dw { relu6, silu };

// x [N, 24, H, W] -> 1x1 to 96 -> depthwise k x k (stride s) with `act` -> 1x1 to 24 or 32
// (with the residual x where the shapes allow).
Graph block_graph(const char* dims, std::int64_t k, std::int64_t stride, Dw act, std::int64_t out_c = 24) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, dims);
  const Value e = conv(b, x, "expand", 96, 24, 1, {}, 1).clip(0.0, 6.0);
  Value d = conv(b, e, "dw", 96, 1, k, {.stride = stride, .pad = k / 2, .group = 96}, 3);
  d = act == Dw::silu ? d * d.sigmoid() : d.clip(0.0, 6.0);
  Value y = conv(b, d, "project", out_c, 96, 1, {}, 5);
  if (stride == 1 && out_c == 24) y = y + x;
  b.output(y);
  return b.build();
}

}  // namespace

TEST_CASE("fuse_depthwise_pointwise pass: the depthwise conv and its projection in one node, same outputs") {
  struct Case {
    const char* dims;
    std::int64_t k, stride;
    Dw act;
    std::int64_t out_c;
  };
  // 3x3 with the residual, 5x5 stride 2, SiLU on the depthwise conv (applied to its rows
  // before the product), a projection to 32 channels, 7-pixel rows, a batch of 3.
  for (const Case& c : {Case{"1,24,16,16", 3, 1, Dw::relu6, 24}, Case{"2,24,15,17", 5, 2, Dw::relu6, 24},
                        Case{"1,24,12,12", 3, 1, Dw::silu, 24}, Case{"3,24,7,7", 3, 1, Dw::relu6, 32}}) {
    CAPTURE(c.dims);
    CAPTURE(c.k);
    const Graph g = block_graph(c.dims, c.k, c.stride, c.act, c.out_c);
    std::vector<ge::PassStats> stats;
    const Graph o = ge::optimize(g, &stats);
    REQUIRE(stats.size() == 17);
    CHECK(stats[13].pass == "fuse_depthwise_pointwise");
    CHECK(stats[13].nodes_added == 1);
    CHECK(stats[13].nodes_removed == 2);
    const ge::Node& f = node(o, "project");
    CHECK(f.op == "FusedDepthwisePointwise");
    CHECK(f.inputs.size() == (c.stride == 1 && c.out_c == 24 ? 6u : 5u));  // (Z: the residual)
    CHECK(f.attrs.at("kernel_shape").as_ints() == std::vector<std::int64_t>{c.k, c.k});
    CHECK(count(o, "FusedConv") == 1);  // the expansion
    check_same(g, o, 1e-4);
  }
  // Compiled with batch gears; saved with the weights packed or portable, loaded: the same.
  const ge::BuildOptions gears{{"ge.inputShape", "x:-1,24,16,16"}, {"ge.dynamicBatchSize", "1,3"}};
  const auto model =
      ge::compile(block_graph("-1,24,16,16", 3, 1, Dw::silu), gears, ge::default_target(), {.keep_weights = true});
  const std::vector<std::shared_ptr<const ge::CompiledModel>> models{
      model, ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model))),
      ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model, ge::ModelWeights::portable)))};
  for (std::size_t m = 0; m < models.size(); ++m) {
    for (const std::int64_t n : {1, 3}) {
      CAPTURE(m);
      CAPTURE(n);
      const ge::Tensor x = ge::Tensor::random(DataType::f32, {n, 24, 16, 16}, 9);
      ge::Session s(models[m]);
      Buffer xb = buffer_of(x);
      const ge::RunResult r = s.run({xb.view()});
      const auto* data = static_cast<const std::byte*>(r.outputs.at(0).data);
      const ge::Tensor got(DataType::f32, r.outputs[0].dims, std::vector<std::byte>(data, data + r.outputs[0].bytes));
      const Graph fixed = block_graph(n == 1 ? "1,24,16,16" : "3,24,16,16", 3, 1, Dw::silu);
      CHECK(ge::test::relative_error({got}, ge::test::run(fixed, {{"x", x}})) <= 1e-4);
    }
  }
}

TEST_CASE("fuse_depthwise_pointwise pass leaves alone a shared depthwise output, a gate, a dense 3x3, a residual dw") {
  const auto prepared = [](const Graph& g) { return ge::layout_nhwc(ge::fuse_activations(g)); };
  SUBCASE("the depthwise output read twice, or a graph output") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,32,16,16");
    const Value d = conv(b, x, "dw", 32, 1, 3, {.pad = 1, .group = 32}, 1).relu();
    b.output(conv(b, d, "p", 16, 32, 1, {}, 3));
    b.output(d);
    const Graph g = prepared(b.build());
    check_unchanged(g, ge::fuse_depthwise_pointwise(g));
  }
  SUBCASE("a squeeze-excitation gate between them") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,32,16,16");
    const Value d = conv(b, x, "dw", 32, 1, 3, {.pad = 1, .group = 32}, 1).relu();
    const Value s = conv(b, d.global_avg_pool(), "se", 32, 32, 1, {}, 3).sigmoid();
    b.output(conv(b, d * s, "p", 16, 32, 1, {}, 5));
    const Graph g = ge::fuse_channel_gate(prepared(b.build()));
    check_unchanged(g, ge::fuse_depthwise_pointwise(g));
  }
  SUBCASE("a dense 3x3 conv after the depthwise one, or a grouped conv before the 1x1") {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "1,32,16,16");
    const Value d = conv(b, x, "dw", 32, 1, 3, {.pad = 1, .group = 32}, 1).relu();
    b.output(conv(b, d, "dense", 16, 32, 3, {.pad = 1}, 3));
    const Value gr = conv(b, x, "grouped", 32, 8, 3, {.pad = 1, .group = 4}, 5).relu();
    b.output(conv(b, gr, "p", 16, 32, 1, {}, 7));
    const Graph g = prepared(b.build());
    check_unchanged(g, ge::fuse_depthwise_pointwise(g));
  }
}

TEST_CASE("FusedDepthwisePointwise by compile_op: weights given per run are no_kernel; short biases are errors") {
  const auto t = [](std::vector<std::int64_t> d) {
    return ge::OpTensor{DataType::f32, ge::Shape(std::vector<ge::Dim>(d.begin(), d.end()))};
  };
  const ge::Tensor w1 = ge::Tensor::random(DataType::f32, {16, 1, 3, 3}, 1);
  const ge::Tensor w2 = ge::Tensor::random(DataType::f32, {8, 16, 1, 1}, 2);
  const ge::Attributes attrs{{"group", 16}, {"pads", {1, 1, 1, 1}}};
  expect_error([&] { (void)ge::compile_op("FusedDepthwisePointwise", {t({1, 6, 6, 16}), t({16, 1, 3, 3}), t({16}),
                                                                      ge::OpTensor::constant_of(w2), t({8})}, {}, attrs); },
               ge::Errc::no_kernel, "FusedDepthwisePointwise");
  const auto op = ge::compile_op("FusedDepthwisePointwise", {t({1, 6, 6, 16}), ge::OpTensor::constant_of(w1), t({16}),
                                                             ge::OpTensor::constant_of(w2), t({8})}, {}, attrs);
  CHECK(op->outputs[0].shape.to_string() == "1,6,6,8");
  const auto view = [](const ge::Tensor& x) { return buffer_of(x); };
  Buffer x = view(ge::Tensor::random(DataType::f32, {1, 6, 6, 16}, 3));
  Buffer w1b = view(w1), w2b = view(w2), y = view(ge::Tensor::random(DataType::f32, {1, 6, 6, 8}, 4));
  Buffer b1 = view(ge::Tensor::random(DataType::f32, {16}, 5)), b2 = view(ge::Tensor::random(DataType::f32, {8}, 6));
  Buffer short1 = view(ge::Tensor::random(DataType::f32, {12}, 7)), short2 = view(ge::Tensor::random(DataType::f32, {4}, 8));
  (void)ge::execute_op(*op, std::vector{x.view(), w1b.view(), b1.view(), w2b.view(), b2.view()}, std::vector{y.view()});
  // (B1 checked against the op's inputs by execute_op, B2 by the kernel: both ge::Errors)
  expect_error([&] { (void)ge::execute_op(*op, std::vector{x.view(), w1b.view(), short1.view(), w2b.view(), b2.view()},
                                          std::vector{y.view()}); },
               ge::Errc::out_of_range, "input 2", "'12'");
  expect_error([&] { (void)ge::execute_op(*op, std::vector{x.view(), w1b.view(), b1.view(), w2b.view(), short2.view()},
                                          std::vector{y.view()}); },
               ge::Errc::out_of_range, "input 4", "'4'");
}
