// ge::GraphBuilder and ge::Value: shapes inferred at each step, errors at the bad line.
#include <doctest/doctest.h>

#include <cmath>

#include "ge/graph/builder.hpp"
#include "ge/ops/registry.hpp"
#include "ops/infer_helpers.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::expect_error;

TEST_CASE("the fluent chain of the usage example infers every step over ranges") {
  ge::GraphBuilder b;
  auto x = b.input("data", DataType::f32, "1~8,3,224,224", ge::Format::nchw);
  auto w = b.random_weights("conv1.w", {64, 3, 7, 7}, 1);
  auto c = x.conv2d(w, {.stride = 2, .pad = 3});
  CHECK(c.shape().to_string() == "1~8,64,112,112");
  auto y = c.batch_norm(b.full("g", {64}, 1.0), b.full("bb", {64}, 0.0), b.full("m", {64}, 0.0), b.full("v", {64}, 1.0))
               .relu()
               .max_pool({3, 2, 1});
  CHECK(y.shape().to_string() == "1~8,64,56,56");
  CHECK(y.dtype() == DataType::f32);
  b.output(y);
  const ge::Graph g = b.build();
  REQUIRE(g.nodes().size() == 4);
  CHECK(g.nodes()[0].name == "conv_0");
  CHECK(g.nodes()[1].name == "batch_normalization_0");
  CHECK(g.nodes()[2].name == "relu_0");
  CHECK(g.nodes()[3].name == "max_pool_0");
  CHECK(g.nodes()[0].attrs.at("strides").as_ints() == std::vector<std::int64_t>{2, 2});
  CHECK(g.nodes()[0].attrs.at("pads").as_ints() == std::vector<std::int64_t>{3, 3, 3, 3});
  CHECK(g.inputs()[0].format == ge::Format::nchw);
  CHECK(y.name() == "max_pool_0");
}

TEST_CASE("a bad step throws at that line and names the node; the graph stays as it was") {
  ge::GraphBuilder b;
  auto x = b.input("data", DataType::f32, "-1,3,32,32");
  auto w = b.random_weights("w", {16, 4, 3, 3}, 2);
  const std::size_t before = b.graph().nodes().size();
  expect_error([&] { (void)x.conv2d(w, {.name = "conv_bad"}); }, Errc::bad_op_inputs, "[ge.ops] [Conv] node 'conv_bad'",
               "input 1 (W) has 4", "input 0 (X) has 3");
  CHECK(b.graph().nodes().size() == before);
  expect_error([&] { (void)x.matmul(w); }, Errc::bad_op_inputs, "[MatMul] node 'matmul_0'", "K = 32", "K = 3 (second");
  expect_error([&] { (void)x.softmax(4); }, Errc::bad_attribute, "[Softmax] node 'softmax_0'", "axis 4");
  auto s = b.input("s", DataType::f32, "2,3");
  expect_error([&] { (void)s.reshape({5, -1}); }, Errc::bad_op_inputs, "[Reshape] node 'reshape_0'", "[2,3]");
  expect_error([&] { (void)b.op("Conv2D", {x, w}); }, Errc::unknown_op, "'Conv2D'");
  expect_error([&] { (void)b.op("Relu", {x}, {{"alpha", 1.0}}); }, Errc::bad_attribute, "node 'relu_0'", "'alpha'");
  // Node names in failed steps are not used up by nodes; the next Relu still gets relu_1 or later.
  auto r = x.relu();
  CHECK(r.shape().to_string() == "-1,3,32,32");
}

TEST_CASE("names: given, generated, duplicate") {
  ge::GraphBuilder b;
  auto x = b.input("x", DataType::f32, "2,3");
  auto a = x.relu("first");
  CHECK(a.name() == "first");
  auto c = a.relu();
  CHECK(c.name() == "relu_0");
  expect_error([&] { (void)c.relu("first"); }, Errc::duplicate_name, "'first'", "Relu");
  expect_error([&] { (void)c.relu("x"); }, Errc::duplicate_name, "'x'");
  expect_error([&] { (void)b.input("x", DataType::f32, "2"); }, Errc::duplicate_name, "'x'");
  // A generated name skips names already taken by values.
  (void)b.input("relu_1", DataType::f32, "2");
  CHECK(c.relu().name() == "relu_2");
  // Multi-output nodes name their values node:k.
  auto parts = x.split({1, 2}, 1, "sp");
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].name() == "sp:0");
  CHECK(parts[1].shape().to_string() == "2,2");
}

TEST_CASE("operators, scalars and constants") {
  ge::GraphBuilder b;
  auto x = b.input("x", DataType::f32, "1~8,4");
  auto y = b.input("y", DataType::f32, "4");
  CHECK((x + y).shape().to_string() == "1~8,4");
  CHECK((x - y).shape().to_string() == "1~8,4");
  CHECK((x * 2.0).shape().to_string() == "1~8,4");
  CHECK((1.0 - x).shape().to_string() == "1~8,4");
  CHECK((x / y + 1.0).dtype() == DataType::f32);
  auto i = b.input("i", DataType::i64, "3");
  CHECK((i * 2.0).dtype() == DataType::i64);  // the scalar takes the other side's type
  expect_error([&] { (void)(x + i); }, Errc::type_mismatch, "[Add]", "input 1 (B) is i64");
  auto k = b.int64s({1, 2, 3});
  CHECK(k.shape().to_string() == "3");
  CHECK(b.graph().constant_of(k.id())->to_int64s() == std::vector<std::int64_t>{1, 2, 3});
  CHECK(b.scalar(0.5).shape().is_scalar());
  auto w = b.random_weights("w", {8, 4}, 3);
  const auto& wt = *b.graph().constant_of(w.id());
  const double bound = std::sqrt(6.0 / 4.0);
  for (double v : wt.to_doubles()) CHECK((v >= -bound && v < bound));
  // The same seed gives the same weights.
  CHECK(wt == *b.graph().constant_of(b.random_weights("w2", {8, 4}, 3).id()));
}

TEST_CASE("Value members cover the common ops") {
  ge::GraphBuilder b;
  auto x = b.input("x", DataType::f32, "1~8,16,8,8");
  CHECK(x.sigmoid().tanh().exp().log().sqrt().neg().abs().erf().gelu("tanh").hard_swish().identity().leaky_relu(0.2)
            .shape().to_string() == "1~8,16,8,8");
  CHECK(x.clip(0, 6).shape().to_string() == "1~8,16,8,8");
  CHECK(x.avg_pool({2, 2}).shape().to_string() == "1~8,16,4,4");
  CHECK(x.global_avg_pool().shape().to_string() == "1~8,16,1,1");
  CHECK(x.flatten().shape().to_string() == "1~8,1024");
  CHECK(x.transpose({0, 2, 3, 1}).shape().to_string() == "1~8,8,8,16");
  CHECK(x.transpose().shape().to_string() == "8,8,16,1~8");
  CHECK(x.reduce_mean({2, 3}).shape().to_string() == "1~8,16,1,1");
  CHECK(x.reduce_sum({1}, false).shape().to_string() == "1~8,8,8");
  CHECK(x.reduce_max({-1}).shape().to_string() == "1~8,16,8,1");
  CHECK(x.slice({2}, {6}, {2}).shape().to_string() == "1~8,16,4,8");
  CHECK(x.slice({0}, {8}, {3}, {2}).shape().to_string() == "1~8,16,8,4");
  CHECK(x.pad({0, 0, 1, 1, 0, 0, 1, 1}).shape().to_string() == "1~8,16,10,10");
  CHECK(x.resize({1, 1, 2, 2}, "linear").shape().to_string() == "1~8,16,16,16");
  CHECK(x.unsqueeze({0}).squeeze({0}).shape().to_string() == "1~8,16,8,8");
  CHECK(x.shape_of().shape().to_string() == "4");
  CHECK(x.cast(DataType::f16).dtype() == DataType::f16);
  CHECK(x.softmax(1).log_softmax().shape().to_string() == "1~8,16,8,8");
  CHECK(x.pow(b.scalar(2.0)).shape().to_string() == "1~8,16,8,8");
  CHECK(x.equal(x).dtype() == DataType::boolean);
  CHECK(where(x.less(b.scalar(0.0)), x, x.neg()).shape().to_string() == "1~8,16,8,8");
  CHECK(x.greater(x).dtype() == DataType::boolean);
  CHECK(ge::concat({x, x}, 1).shape().to_string() == "1~8,32,8,8");
  CHECK(x.argmax(1, false).shape().to_string() == "1~8,8,8");
  auto tk = x.flatten().topk(5);
  CHECK(tk[0].shape().to_string() == "1~8,5");
  CHECK(tk[1].dtype() == DataType::i64);
  CHECK(x.nonzero().shape().to_string() == "4,0~8192");
  auto e = b.input("e", DataType::f32, "3,1");
  CHECK(e.expand({2, 3, 5}).shape().to_string() == "2,3,5");
  auto table = b.random_weights("emb", {100, 8}, 9);
  CHECK(table.gather(b.input("ids", DataType::i64, "1~8,1~64")).shape().to_string() == "1~8,1~64,8");
  auto m = b.input("m", DataType::f32, "5,16");
  CHECK(m.gemm(b.random_weights("gw", {16, 4}, 1), b.full("gb", {4}, 0.0)).shape().to_string() == "5,4");
  CHECK(m.layer_norm(b.full("ls", {16}, 1.0), b.full("lb", {16}, 0.0)).shape().to_string() == "5,16");
  auto dw = b.random_weights("dw", {16, 1, 3, 3}, 4);
  CHECK(x.conv2d(dw, b.full("dwb", {16}, 0.0), {.pad = 1, .group = 16}).shape().to_string() == "1~8,16,8,8");
  CHECK(x.conv2d(dw, {.group = 16, .auto_pad = "SAME_UPPER"}).shape().to_string() == "1~8,16,8,8");
  b.output(x.relu());
  CHECK_NOTHROW((void)b.build());
}

TEST_CASE("handles: no value, values of another builder, user ops") {
  ge::GraphBuilder b, other;
  auto x = b.input("x", DataType::f32, "2");
  auto o = other.input("o", DataType::f32, "2");
  expect_error([&] { (void)(x + o); }, Errc::invalid_argument, "another GraphBuilder", "'o'");
  expect_error([&] { (void)ge::Value{}.relu(); }, Errc::invalid_argument, "no value");
  expect_error([&] { b.output(ge::Value{}); }, Errc::invalid_argument, "no value");
  expect_error([&] { (void)b.build(); }, Errc::bad_graph, "no output");
  b.output(x);
  expect_error([&] { b.output(x); }, Errc::bad_graph, "already a graph output");

  // A user op in a registry of its own.
  auto reg = ge::OpRegistry::with_builtin_ops();
  ge::OpSchema s;
  s.name = "Swish";
  s.inputs = {{"X", "T"}};
  s.outputs = {{"Y", "T"}};
  s.types = {{"T", ge::TypeSet::floats()}};
  s.infer = [](const ge::InferContext& c) { return std::vector{c.input(0)}; };
  reg->add(std::move(s));
  ge::GraphBuilder ub(reg.get());
  auto ux = ub.input("x", DataType::f32, "1~4,8");
  auto uy = ub.op("Swish", {ux}).relu();
  CHECK(uy.shape().to_string() == "1~4,8");
  ub.output(uy);
  CHECK(ub.build().nodes()[0].op == "Swish");
  expect_error([&] { (void)b.op("Swish", {x}); }, Errc::unknown_op, "'Swish'");
}
