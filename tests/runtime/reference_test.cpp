// Tests of the reference interpreter (support/reference.hpp: plain loops, ONNX
// semantics): each op against small hand-computed values, and a ResNet-50 run.
#include "support/reference.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/graph/builder.hpp"
#include "support/op_cases.hpp"

namespace {

using ge::Attributes;
using ge::DataType;
using ge::ref::RefTensor;

// One input of a one-node test graph: a graph input, or a constant.
using Arg = ge::test::CaseInput;
Arg in(RefTensor t) { return {std::move(t), false}; }
Arg cst(RefTensor t) { return {std::move(t), true}; }
RefTensor f32(std::vector<std::int64_t> dims, std::vector<float> v) { return RefTensor::of<float>(std::move(dims), v); }
RefTensor i64(std::vector<std::int64_t> dims, std::vector<std::int64_t> v) {
  return RefTensor::of<std::int64_t>(std::move(dims), v);
}

// Runs the reference on a graph of one `op` node (nullopt: an omitted optional input),
// built through the GraphBuilder so that shape inference checks the reference's output
// dims too. `outputs`: how many outputs the node has (0: the default).
std::vector<RefTensor> run_op(std::string_view op, std::vector<std::optional<Arg>> args, Attributes attrs = {},
                              std::size_t outputs = 0) {
  ge::test::OpCase c;
  c.op = std::string(op);
  c.inputs = std::move(args);
  c.attrs = std::move(attrs);
  c.outputs = outputs;
  return ge::ref::run_reference(c.graph(), c.feeds());
}

// The one output of a one-node graph.
RefTensor run1(std::string_view op, std::vector<std::optional<Arg>> args, Attributes attrs = {}) {
  auto out = run_op(op, std::move(args), std::move(attrs));
  REQUIRE(out.size() == 1);
  return out[0];
}

// Checks dims and values (within 1e-5 relative + 1e-6 absolute, or `tol` absolute).
void check(const RefTensor& got, std::vector<std::int64_t> dims, std::vector<double> want, double tol = 1e-6) {
  CHECK(got.dims == dims);
  const std::vector<double> v = got.to_doubles();
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) CHECK_MESSAGE(std::fabs(v[i] - want[i]) <= tol + 1e-5 * std::fabs(want[i]), "element " << i << ": got " << v[i] << ", want " << want[i]);
}

const RefTensor x3x3 = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});

}  // namespace

TEST_CASE("reference: Conv 1x1x3x3 with pads, strides, bias, groups, dilations, auto_pad") {
  const RefTensor ones = f32({1, 1, 3, 3}, std::vector<float>(9, 1.f));
  SUBCASE("3x3 ones kernel, pad 1: sums of the neighbourhoods") {
    check(run1("Conv", {in(x3x3), cst(ones)}, {{"pads", {1, 1, 1, 1}}}), {1, 1, 3, 3},
          {12, 21, 16, 27, 45, 33, 24, 39, 28});
  }
  SUBCASE("stride 2 with a bias") {
    check(run1("Conv", {in(x3x3), cst(ones), cst(f32({1}, {0.5f}))}, {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}),
          {1, 1, 2, 2}, {12.5, 16.5, 24.5, 28.5});
  }
  SUBCASE("correlation, not convolution: the kernel picks the right neighbour") {
    const RefTensor right = f32({1, 1, 3, 3}, {0, 0, 0, 0, 0, 1, 0, 0, 0});
    check(run1("Conv", {in(x3x3), cst(right)}, {{"pads", {1, 1, 1, 1}}}), {1, 1, 3, 3}, {2, 3, 0, 5, 6, 0, 8, 9, 0});
  }
  SUBCASE("channels are summed; depthwise groups are not") {
    const RefTensor x = f32({1, 2, 1, 2}, {1, 2, 3, 4});
    check(run1("Conv", {in(x), cst(f32({1, 2, 1, 1}, {10, 100}))}), {1, 1, 1, 2}, {310, 420});
    check(run1("Conv", {in(x), cst(f32({2, 1, 1, 1}, {10, 100}))}, {{"group", 2}}), {1, 2, 1, 2}, {10, 20, 300, 400});
    // 2 groups, 2 output channels each: outputs 0, 1 read channel 0; outputs 2, 3 channel 1.
    check(run1("Conv", {in(x), cst(f32({4, 1, 1, 1}, {1, -1, 2, -2}))}, {{"group", 2}}), {1, 4, 1, 2},
          {1, 2, -1, -2, 6, 8, -6, -8});
  }
  SUBCASE("dilation") {
    check(run1("Conv", {in(f32({1, 1, 1, 5}, {1, 2, 3, 4, 5})), cst(f32({1, 1, 1, 2}, {1, 1}))}, {{"dilations", {1, 2}}}),
          {1, 1, 1, 3}, {4, 6, 8});
  }
  SUBCASE("auto_pad SAME_UPPER pads at the end, SAME_LOWER at the begin; VALID not at all") {
    const RefTensor x = f32({1, 1, 1, 4}, {1, 2, 3, 4});
    const RefTensor w = f32({1, 1, 1, 2}, {1, 10});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "SAME_UPPER"}}), {1, 1, 1, 4}, {21, 32, 43, 4});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "SAME_LOWER"}}), {1, 1, 1, 4}, {10, 21, 32, 43});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "VALID"}}), {1, 1, 1, 3}, {21, 32, 43});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "SAME_UPPER"}, {"strides", {1, 2}}}), {1, 1, 1, 2}, {21, 43});
  }
  SUBCASE("1-D convolution and a batch of 2") {
    check(run1("Conv", {in(f32({2, 1, 4}, {1, 2, 3, 4, 0, 0, 0, 1})), cst(f32({1, 1, 2}, {1, 10}))}, {{"pads", {1, 0}}}),
          {2, 1, 4}, {10, 21, 32, 43, 0, 0, 0, 10});
  }
}

TEST_CASE("reference: MaxPool with pads (pads never win), indices, ceil_mode") {
  const Attributes a{{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}};
  const auto out = run_op("MaxPool", {in(x3x3)}, a, 2);
  REQUIRE(out.size() == 2);
  check(out[0], {1, 1, 2, 2}, {5, 6, 8, 9});
  check(out[1], {1, 1, 2, 2}, {4, 5, 7, 8});
  CHECK(out[1].dtype == DataType::i64);
  const RefTensor neg = f32({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  check(run1("MaxPool", {in(neg)}, a), {1, 1, 2, 2}, {-1, -2, -4, -5});
  const RefTensor row = f32({1, 1, 1, 5}, {1, 2, 3, 4, 5});
  const Attributes k2{{"kernel_shape", {1, 2}}, {"strides", {1, 2}}};
  check(run1("MaxPool", {in(row)}, k2), {1, 1, 1, 2}, {2, 4});
  Attributes ceil = k2;
  ceil["ceil_mode"] = 1;
  check(run1("MaxPool", {in(row)}, ceil), {1, 1, 1, 3}, {2, 4, 5});
}

TEST_CASE("reference: AveragePool with and without count_include_pad") {
  Attributes a{{"kernel_shape", {2, 2}}, {"pads", {1, 1, 1, 1}}};
  const RefTensor y = run1("AveragePool", {in(x3x3)}, a);
  CHECK(y.dims == std::vector<std::int64_t>{1, 1, 4, 4});
  const auto v = y.to_doubles();
  CHECK(v[0] == doctest::Approx(1.0));    // only x(0,0) is inside
  CHECK(v[1] == doctest::Approx(1.5));    // x(0,0), x(0,1)
  CHECK(v[5] == doctest::Approx(3.0));    // (1 + 2 + 4 + 5) / 4
  CHECK(v[15] == doctest::Approx(9.0));
  a["count_include_pad"] = 1;
  const auto w = run1("AveragePool", {in(x3x3)}, a).to_doubles();
  CHECK(w[0] == doctest::Approx(0.25));
  CHECK(w[1] == doctest::Approx(0.75));
  CHECK(w[5] == doctest::Approx(3.0));
  // Stride 2, no pads: the mean of each 2x2 block.
  check(run1("AveragePool", {in(f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}))}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}),
        {1, 1, 1, 2}, {3.5, 5.5});
}

TEST_CASE("reference: GlobalAveragePool and Flatten") {
  check(run1("GlobalAveragePool", {in(f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}))}), {1, 2, 1, 1}, {2.5, 6.5});
  const RefTensor x = RefTensor::random(DataType::f32, {2, 3, 4}, 3);
  const std::vector<double> v = x.to_doubles();
  check(run1("Flatten", {in(x)}), {2, 12}, v);
  check(run1("Flatten", {in(x)}, {{"axis", 0}}), {1, 24}, v);
  check(run1("Flatten", {in(x)}, {{"axis", -1}}), {6, 4}, v);
  check(run1("Flatten", {in(x)}, {{"axis", 3}}), {24, 1}, v);
}

TEST_CASE("reference: Gemm with transA, transB, alpha, beta and a broadcast C") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const RefTensor b = f32({2, 3}, {1, 0, 1, 0, 1, 0});
  check(run1("Gemm", {in(a), cst(b)}, {{"transB", 1}}), {2, 2}, {4, 2, 10, 5});
  check(run1("Gemm", {in(a), cst(b), cst(f32({2}, {0.5f, -1.f}))}, {{"transB", 1}, {"alpha", 2.0}, {"beta", 0.5}}),
        {2, 2}, {8.25, 3.5, 20.25, 9.5});
  // transA: A is [K, M] = [3, 2].
  check(run1("Gemm", {in(f32({3, 2}, {1, 4, 2, 5, 3, 6})), cst(b)}, {{"transA", 1}, {"transB", 1}}), {2, 2}, {4, 2, 10, 5});
  // Plain A [2, 2] x B [2, 2] + C [2, 1] (broadcast along N).
  check(run1("Gemm", {in(f32({2, 2}, {1, 2, 3, 4})), cst(f32({2, 2}, {5, 6, 7, 8})), cst(f32({2, 1}, {1, 2}))}),
        {2, 2}, {20, 23, 45, 52});
}

TEST_CASE("reference: MatMul 2-D, batched with broadcasting, and 1-D operands") {
  const RefTensor a = f32({2, 2}, {1, 2, 3, 4});
  const RefTensor b = f32({2, 2}, {5, 6, 7, 8});
  check(run1("MatMul", {in(a), in(b)}), {2, 2}, {19, 22, 43, 50});
  // [2, 1, 2] x [2, 2] -> [2, 1, 2]: B broadcasts over the batch.
  check(run1("MatMul", {in(f32({2, 1, 2}, {1, 0, 0, 1})), in(b)}), {2, 1, 2}, {5, 6, 7, 8});
  // [2, 2, 2] x [1, 2, 1]
  check(run1("MatMul", {in(f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})), in(f32({1, 2, 1}, {1, -1}))}), {2, 2, 1},
        {-1, -1, -1, -1});
  check(run1("MatMul", {in(f32({2}, {1, 1})), in(b)}), {2}, {12, 14});
  check(run1("MatMul", {in(a), in(f32({2}, {1, 1}))}), {2}, {3, 7});
  check(run1("MatMul", {in(f32({2}, {1, 2})), in(f32({2}, {3, 4}))}), {}, {11});
}

TEST_CASE("reference: Softmax and LogSoftmax") {
  check(run1("Softmax", {in(f32({2, 3}, {1, 2, 3, 0, 0, 0}))}), {2, 3},
        {0.09003057317038046, 0.24472847105479767, 0.6652409557748219, 1 / 3., 1 / 3., 1 / 3.});
  check(run1("Softmax", {in(f32({2, 2}, {0, 0, std::log(3.f), 0}))}, {{"axis", 0}}), {2, 2}, {0.25, 0.5, 0.75, 0.5});
  // Large values: no overflow.
  check(run1("Softmax", {in(f32({2}, {1000, 1000}))}), {2}, {0.5, 0.5});
  check(run1("LogSoftmax", {in(f32({2}, {0, 0}))}), {2}, {-std::log(2.0), -std::log(2.0)});
}

TEST_CASE("reference: LayerNormalization of a row, with Mean and InvStdDev outputs") {
  const RefTensor x = f32({1, 4}, {1, 2, 3, 4});
  const auto out = run_op("LayerNormalization", {in(x), cst(f32({4}, {1, 2, 1, 2})), cst(f32({4}, {0, 0, 1, 1}))}, {}, 3);
  REQUIRE(out.size() == 3);
  check(out[0], {1, 4}, {-1.3416354199689269, -0.894423613312618, 1.447211806656309, 3.6832708399378538});
  check(out[1], {1, 1}, {2.5});
  check(out[2], {1, 1}, {0.894423613312618});
  // axis 0 over [2, 2]: all four elements form one group; no bias.
  check(run1("LayerNormalization", {in(f32({2, 2}, {1, 2, 3, 4})), cst(f32({2, 2}, {1, 1, 1, 1}))}, {{"axis", 0}, {"epsilon", 1e-3}}),
        {2, 2}, {-1.5 / std::sqrt(1.251), -0.5 / std::sqrt(1.251), 0.5 / std::sqrt(1.251), 1.5 / std::sqrt(1.251)});
}

TEST_CASE("reference: BatchNormalization (inference)") {
  const RefTensor x = f32({1, 2, 1, 2}, {1, 2, 3, 4});
  check(run1("BatchNormalization",
             {in(x), cst(f32({2}, {1, 2})), cst(f32({2}, {0, 1})), cst(f32({2}, {1, 3})), cst(f32({2}, {4, 0.25f}))}),
        {1, 2, 1, 2}, {0, 1 / std::sqrt(4.00001), 1, 4.99992000239992});
  check(run1("BatchNormalization",
             {in(x), cst(f32({2}, {1, 1})), cst(f32({2}, {0, 0})), cst(f32({2}, {0, 0})), cst(f32({2}, {1, 1}))},
             {{"epsilon", 0.25}}),
        {1, 2, 1, 2}, {1 / std::sqrt(1.25), 2 / std::sqrt(1.25), 3 / std::sqrt(1.25), 4 / std::sqrt(1.25)});
}

TEST_CASE("reference: Add, Sub, Mul, Div, Pow with broadcasting; f32 and i64") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check(run1("Add", {in(a), in(f32({3}, {10, 20, 30}))}), {2, 3}, {11, 22, 33, 14, 25, 36});
  check(run1("Sub", {in(f32({}, {1})), in(a)}), {2, 3}, {0, -1, -2, -3, -4, -5});
  check(run1("Mul", {in(f32({2, 1}, {1, 2})), in(f32({1, 3}, {1, 2, 3}))}), {2, 3}, {1, 2, 3, 2, 4, 6});
  check(run1("Div", {in(a), in(f32({2, 1}, {2, 4}))}), {2, 3}, {0.5, 1, 1.5, 1, 1.25, 1.5});
  const RefTensor q = run1("Div", {in(i64({4}, {7, -7, 6, 1})), in(i64({}, {2}))});
  CHECK(q.dtype == DataType::i64);
  CHECK(q.to_int64s() == std::vector<std::int64_t>{3, -3, 3, 0});
  CHECK(run1("Add", {in(i64({2}, {1, 2})), in(i64({2}, {40, 3000000000}))}).to_int64s() ==
        std::vector<std::int64_t>{41, 3000000002});
  check(run1("Pow", {in(f32({3}, {2, 3, 4})), in(f32({}, {2}))}), {3}, {4, 9, 16});
  CHECK_THROWS_WITH_AS(run1("Div", {in(i64({1}, {1})), in(i64({1}, {0}))}), doctest::Contains("division by zero"),
                       std::runtime_error);
}

TEST_CASE("reference: Equal, Less, Greater, Where") {
  const RefTensor a = f32({3}, {1, 2, 3});
  const RefTensor b = f32({3}, {2, 2, 2});
  CHECK(run1("Equal", {in(a), in(b)}).to_int64s() == std::vector<std::int64_t>{0, 1, 0});
  CHECK(run1("Less", {in(a), in(b)}).to_int64s() == std::vector<std::int64_t>{1, 0, 0});
  const RefTensor gt = run1("Greater", {in(a), in(b)});
  CHECK(gt.dtype == DataType::boolean);
  CHECK(gt.to_int64s() == std::vector<std::int64_t>{0, 0, 1});
  const RefTensor cond = RefTensor::of<bool>({2, 1}, {true, false});
  check(run1("Where", {in(cond), in(a), in(f32({}, {-1}))}), {2, 3}, {1, 2, 3, -1, -1, -1});
}

TEST_CASE("reference: unary ops: Relu, Clip, Sigmoid, Tanh, Sqrt, Exp, Log, Neg, Abs, Erf, LeakyRelu, HardSwish, Identity") {
  const RefTensor x = f32({4}, {-1, 0, 0.5f, 7});
  check(run1("Relu", {in(x)}), {4}, {0, 0, 0.5, 7});
  check(run1("Clip", {in(x), cst(f32({}, {0})), cst(f32({}, {6}))}), {4}, {0, 0, 0.5, 6});
  check(run1("Clip", {in(x), std::nullopt, cst(f32({}, {0.25f}))}), {4}, {-1, 0, 0.25, 0.25});
  check(run1("Clip", {in(x)}), {4}, {-1, 0, 0.5, 7});
  CHECK(run1("Clip", {in(i64({3}, {-5, 3, 9})), cst(i64({}, {0})), cst(i64({}, {6}))}).to_int64s() ==
        std::vector<std::int64_t>{0, 3, 6});
  check(run1("Sigmoid", {in(f32({2}, {0, 1}))}), {2}, {0.5, 0.7310585786300049});
  check(run1("Tanh", {in(f32({2}, {0, 0.5f}))}), {2}, {0, 0.46211715726000974});
  check(run1("Sqrt", {in(f32({2}, {4, 2}))}), {2}, {2, std::sqrt(2.0)});
  check(run1("Exp", {in(f32({2}, {0, 1}))}), {2}, {1, std::exp(1.0)});
  check(run1("Log", {in(f32({2}, {1, 4}))}), {2}, {0, std::log(4.0)});
  check(run1("Neg", {in(x)}), {4}, {1, 0, -0.5, -7});
  CHECK(run1("Neg", {in(i64({2}, {3, -4}))}).to_int64s() == std::vector<std::int64_t>{-3, 4});
  check(run1("Abs", {in(x)}), {4}, {1, 0, 0.5, 7});
  check(run1("Erf", {in(f32({2}, {0, 1}))}), {2}, {0, std::erf(1.0)});
  check(run1("LeakyRelu", {in(x)}), {4}, {-0.01, 0, 0.5, 7});
  check(run1("LeakyRelu", {in(x)}, {{"alpha", 0.5}}), {4}, {-0.5, 0, 0.5, 7});
  check(run1("HardSwish", {in(f32({4}, {-4, 0, 1, 4}))}), {4}, {0, 0, 1 * (1 / 6. + 0.5), 4});
  check(run1("Identity", {in(x)}), {4}, {-1, 0, 0.5, 7});
}

TEST_CASE("reference: Gelu, exact and tanh-approximated") {
  const RefTensor x = f32({4}, {-1, 0, 1, 2});
  check(run1("Gelu", {in(x)}), {4}, {-0.15865525393145707, 0, 0.8413447460685429, 1.9544997361036416});
  check(run1("Gelu", {in(x)}, {{"approximate", "none"}}), {4},
        {-0.15865525393145707, 0, 0.8413447460685429, 1.9544997361036416});
  check(run1("Gelu", {in(x)}, {{"approximate", "tanh"}}), {4},
        {-0.15880800939172324, 0, 0.8411919906082768, 1.954597694087775});
}

TEST_CASE("reference: Cast between i64, f32, i32 and bool") {
  const RefTensor f = run1("Cast", {in(i64({3}, {1, -2, 3000000000}))}, {{"to", "f32"}});
  CHECK(f.dtype == DataType::f32);
  check(f, {3}, {1, -2, 3e9});
  const RefTensor i = run1("Cast", {in(f32({3}, {1.7f, -1.7f, 0}))}, {{"to", "i64"}});
  CHECK(i.dtype == DataType::i64);
  CHECK(i.to_int64s() == std::vector<std::int64_t>{1, -1, 0});
  const RefTensor b = run1("Cast", {in(f32({3}, {0, 0.5f, -2}))}, {{"to", "bool"}});
  CHECK(b.dtype == DataType::boolean);
  CHECK(b.to_int64s() == std::vector<std::int64_t>{0, 1, 1});
  const RefTensor k = run1("Cast", {in(RefTensor::of<bool>({2}, {true, false}))}, {{"to", "i32"}});
  CHECK(k.as<std::int32_t>()[0] == 1);
  CHECK(k.as<std::int32_t>()[1] == 0);
}

TEST_CASE("reference: Reshape with 0 and -1, allowzero; Squeeze, Unsqueeze") {
  const RefTensor x = RefTensor::random(DataType::f32, {2, 3, 4}, 5);
  const std::vector<double> v = x.to_doubles();
  check(run1("Reshape", {in(x), cst(i64({2}, {0, -1}))}), {2, 12}, v);
  check(run1("Reshape", {in(x), cst(i64({3}, {0, 0, -1}))}), {2, 3, 4}, v);
  check(run1("Reshape", {in(x), cst(i64({2}, {-1, 2}))}), {12, 2}, v);
  check(run1("Reshape", {in(x), cst(i64({4}, {1, 0, 2, -1}))}), {1, 3, 2, 4}, v);
  // allowzero: a 0 is a real 0 dim.
  check(run1("Reshape", {in(f32({0, 3}, {})), cst(i64({2}, {3, 0}))}, {{"allowzero", 1}}), {3, 0}, {});
  check(run1("Unsqueeze", {in(f32({3}, {1, 2, 3})), cst(i64({2}, {0, 2}))}), {1, 3, 1}, {1, 2, 3});
  check(run1("Unsqueeze", {in(f32({3}, {1, 2, 3})), cst(i64({1}, {-1}))}), {3, 1}, {1, 2, 3});
  check(run1("Squeeze", {in(f32({1, 3, 1}, {1, 2, 3}))}), {3}, {1, 2, 3});
  check(run1("Squeeze", {in(f32({1, 3, 1}, {1, 2, 3})), cst(i64({1}, {-1}))}), {1, 3}, {1, 2, 3});
}

TEST_CASE("reference: Transpose, Concat, Split, Slice, Gather, Expand, Shape") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check(run1("Transpose", {in(a)}), {3, 2}, {1, 4, 2, 5, 3, 6});
  check(run1("Transpose", {in(f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}))}, {{"perm", {0, 2, 1}}}), {1, 3, 2}, {1, 4, 2, 5, 3, 6});
  check(run1("Transpose", {in(f32({2, 1, 2}, {1, 2, 3, 4}))}, {{"perm", {2, 0, 1}}}), {2, 2, 1}, {1, 3, 2, 4});
  check(run1("Concat", {in(a), in(f32({2, 1}, {7, 8}))}, {{"axis", 1}}), {2, 4}, {1, 2, 3, 7, 4, 5, 6, 8});
  check(run1("Concat", {in(a), in(f32({1, 3}, {7, 8, 9}))}, {{"axis", -2}}), {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const auto parts = run_op("Split", {in(a), cst(i64({2}, {1, 2}))}, {{"axis", 1}}, 2);
  REQUIRE(parts.size() == 2);
  check(parts[0], {2, 1}, {1, 4});
  check(parts[1], {2, 2}, {2, 3, 5, 6});
  check(run1("Slice", {in(a), cst(i64({1}, {1})), cst(i64({1}, {100})), cst(i64({1}, {1}))}), {2, 2}, {2, 3, 5, 6});
  check(run1("Slice", {in(a), cst(i64({2}, {-1, -1})), cst(i64({2}, {-100, -100})), std::nullopt, cst(i64({2}, {-1, -2}))}),
        {2, 2}, {6, 4, 3, 1});
  check(run1("Gather", {in(a), cst(i64({2}, {2, -3}))}, {{"axis", 1}}), {2, 2}, {3, 1, 6, 4});
  check(run1("Gather", {in(a), cst(i64({}, {1}))}), {3}, {4, 5, 6});
  check(run1("Expand", {in(f32({2, 1}, {1, 2})), cst(i64({3}, {2, 1, 3}))}), {2, 2, 3},
        {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  CHECK(run1("Shape", {in(a)}).to_int64s() == std::vector<std::int64_t>{2, 3});
  CHECK(run1("Shape", {in(a)}, {{"start", -1}}).to_int64s() == std::vector<std::int64_t>{3});
}

TEST_CASE("reference: ReduceMean, ReduceSum, ReduceMax, ArgMax") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 9});
  check(run1("ReduceMean", {in(a)}, {{"axes", {1}}}), {2, 1}, {2, 6});
  check(run1("ReduceMean", {in(a), cst(i64({1}, {0}))}, {{"keepdims", 0}}), {3}, {2.5, 3.5, 6});
  check(run1("ReduceMean", {in(a)}, {{"keepdims", 0}}), {}, {4});
  check(run1("ReduceSum", {in(a)}, {{"axes", {-1}}, {"keepdims", 0}}), {2}, {6, 18});
  check(run1("ReduceMax", {in(a)}, {{"axes", {0}}}), {1, 3}, {4, 5, 9});
  CHECK(run1("ArgMax", {in(a)}, {{"axis", 1}, {"keepdims", 0}}).to_int64s() == std::vector<std::int64_t>{2, 2});
}

TEST_CASE("reference: unimplemented ops, attributes and wrong inputs throw, naming the op") {
  CHECK_THROWS_WITH_AS(run1("Einsum", {in(x3x3)}, {{"equation", "abcd->dcba"}}), doctest::Contains("op 'Einsum'"),
                       std::runtime_error);
  // An attribute the reference does not know (a graph built without validation).
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f32, ge::Shape{2});
  const auto y = g.declare_value("y", {DataType::f32, ge::Shape{2}});
  g.add_node("r", "Relu", {x}, {y}, {{"slope", 2}});
  g.add_output(y);
  CHECK_THROWS_WITH_AS((void)ge::ref::run_reference(g, {f32({2}, {1, 2})}),
                       doctest::Contains("node 'r' (Relu): attribute 'slope'"), std::runtime_error);
  // An element type the reference does not do: the error still names the node.
  ge::GraphBuilder h;
  h.output(h.input("x", DataType::f16, "2").relu("half_relu"));
  RefTensor half(DataType::f16, {2});
  CHECK_THROWS_WITH_AS((void)ge::ref::run_reference(h.build(), {half}), doctest::Contains("node 'half_relu' (Relu)"),
                       std::runtime_error);
  // Inputs that do not fit the graph inputs.
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, "2,3").relu());
  const ge::Graph relu = b.build();
  CHECK_THROWS_AS((void)ge::ref::run_reference(relu, {f32({3, 2}, {1, 2, 3, 4, 5, 6})}), std::runtime_error);
  CHECK_THROWS_AS((void)ge::ref::run_reference(relu, {i64({2, 3}, {1, 2, 3, 4, 5, 6})}), std::runtime_error);
  CHECK_THROWS_AS((void)ge::ref::run_reference(relu, {}), std::runtime_error);
}

TEST_CASE("reference: all_close compares within atol + rtol * |expected|, exactly for integers") {
  const RefTensor e = f32({2, 2}, {1, 2, 100, std::nanf("")});
  std::vector<float> a{1.0005f, 2, 100.05f, std::nanf("")};
  std::string why;
  CHECK(ge::ref::all_close(e, a.data(), 4, 1e-3, 1e-3, &why));
  a[2] = 100.5f;
  CHECK_FALSE(ge::ref::all_close(e, a.data(), 4, 1e-3, 1e-3, &why));
  CHECK(why.find("at [1,0]") != std::string::npos);
  CHECK_FALSE(ge::ref::all_close(e, a.data(), 3, 1, 1, &why));
  a[3] = 0;
  CHECK_FALSE(ge::ref::all_close(e, a.data(), 4, 1, 1));
  const RefTensor n = i64({2}, {3, 4});
  const std::vector<float> exact{3, 4}, off{3, 4.0001f};
  CHECK(ge::ref::all_close(n, exact.data(), 2, 0.1, 0.1));
  CHECK_FALSE(ge::ref::all_close(n, off.data(), 2, 0.1, 0.1));
  CHECK(ge::ref::all_close(n, i64({2}, {3, 4}), 0, 0));
  CHECK_FALSE(ge::ref::all_close(n, i64({1, 2}, {3, 4}), 0, 0, &why));
  CHECK(ge::ref::max_abs_diff(f32({2}, {1, 2}), f32({2}, {1.5f, 2})) == doctest::Approx(0.5));
}

TEST_CASE("reference: RefTensor helpers") {
  const RefTensor t = f32({2, 2}, {1, 2, 3, 4});
  CHECK(t.elements() == 4);
  CHECK(t.describe() == "f32[2,2]");
  const ge::Tensor gt = t.to_tensor();
  CHECK(gt.dims() == std::vector<std::int64_t>{2, 2});
  const RefTensor back = RefTensor::from(gt);
  CHECK(back.bytes == t.bytes);
  CHECK(back.as<float>()[3] == 4.f);
  CHECK_THROWS_AS((void)t.as<double>(), std::runtime_error);
  CHECK(RefTensor(DataType::i32, {3}).to_int64s() == std::vector<std::int64_t>{0, 0, 0});
  CHECK(RefTensor::of<bool>({2}, {true, false}).as<std::uint8_t>()[0] == 1);
}

namespace {
bool all_finite(const RefTensor& t) {
  for (double v : t.to_doubles())
    if (!std::isfinite(v)) return false;
  return true;
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

TEST_CASE("reference: ResNet-50 at 1x3x64x64 gives finite [1, 1000] logits") {
  const ge::Graph g = ge::models::resnet50("1,3,64,64");
  const auto t0 = std::chrono::steady_clock::now();
  const auto out = ge::ref::run_reference(g, {RefTensor::random(DataType::f32, {1, 3, 64, 64}, 11)});
  MESSAGE("ResNet-50 1x3x64x64 reference run: " << seconds_since(t0) << " s");
  REQUIRE(out.size() == 1);
  CHECK(out[0].dtype == DataType::f32);
  CHECK(out[0].dims == std::vector<std::int64_t>{1, 1000});
  CHECK(all_finite(out[0]));
  // Not all equal: the logits depend on the input.
  const auto v = out[0].to_doubles();
  CHECK(*std::max_element(v.begin(), v.end()) > *std::min_element(v.begin(), v.end()));
}

TEST_CASE("reference: MobileNetV2 and the BERT encoder run and give finite outputs") {
  {
    const ge::Graph g = ge::models::mobilenet_v2("2,3,64,64");
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = ge::ref::run_reference(g, {RefTensor::random(DataType::f32, {2, 3, 64, 64}, 12)});
    MESSAGE("MobileNetV2 2x3x64x64 reference run: " << seconds_since(t0) << " s");
    REQUIRE(out.size() == 1);
    CHECK(out[0].dims == std::vector<std::int64_t>{2, 1000});
    CHECK(all_finite(out[0]));
  }
  {
    const ge::Graph g = ge::models::bert_encoder("2", "8");
    const RefTensor mask = i64({2, 8}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0});
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = ge::ref::run_reference(g, {RefTensor::random(DataType::f32, {2, 8, 256}, 13), mask});
    MESSAGE("BERT encoder 2x8 reference run: " << seconds_since(t0) << " s");
    REQUIRE(out.size() == 1);
    CHECK(out[0].dims == std::vector<std::int64_t>{2, 8, 256});
    CHECK(all_finite(out[0]));
    // Post-norm output: each row has mean ~ mean(norm bias) and is not constant.
    const auto v = out[0].to_doubles();
    CHECK(*std::max_element(v.begin(), v.begin() + 256) > *std::min_element(v.begin(), v.begin() + 256));
  }
}
