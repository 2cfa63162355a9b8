// Tests of ge::quantize_qdq (include/ge/runtime/quantize.hpp): the QDQ rewrite's structure
// (nodes, axes, types, zero points), the int8 weights against a hand computation, the
// activation parameters against the calibration range (min-max and percentile), the QDQ
// graph run in ge against the f32 graph, the round trip through ge::onnx, random
// calibration sets, skipped nodes and every bad option.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/quantize.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#if defined(GE_WITH_ONNX)
#include "ge/onnx.hpp"
#endif

using ge::DataType;
using ge::Errc;
using ge::Tensor;
using Ints = std::vector<std::int64_t>;

namespace {

// x [2,3,8,8] -> conv1 (bias) -> relu r -> {conv2 (bias, stride 2), conv3 (group 2, 1x1,
// stride 2, no bias)} -> add -> flatten -> gemm (transB=1, bias) -> matmul [10,5] -> y;
// and mean = ReduceMean(r), a reader of r that is not quantized.
ge::Graph small_cnn() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "2,3,8,8");
  const Ints k3{3, 3}, pad1{1, 1, 1, 1}, s2{2, 2};
  const auto c1 = b.op("Conv", {x, b.random_weights("w1", {4, 3, 3, 3}, 1), b.random_weights("b1", {4}, 2)},
                       {{"kernel_shape", k3}, {"pads", pad1}}, "conv1");
  const auto r = b.op("Relu", {c1}, {}, "relu");
  const auto c2 = b.op("Conv", {r, b.random_weights("w2", {6, 4, 3, 3}, 3), b.random_weights("b2", {6}, 4)},
                       {{"kernel_shape", k3}, {"pads", pad1}, {"strides", s2}}, "conv2");
  const auto c3 = b.op("Conv", {r, b.random_weights("w3", {6, 2, 1, 1}, 5)},
                       {{"kernel_shape", Ints{1, 1}}, {"strides", s2}, {"group", std::int64_t{2}}}, "conv3");
  const auto f = b.op("Flatten", {b.op("Add", {c2, c3}, {}, "add")}, {}, "flatten");
  const auto g = b.op("Gemm", {f, b.random_weights("w4", {10, 96}, 6), b.random_weights("b4", {10}, 7)},
                      {{"transB", std::int64_t{1}}}, "gemm");
  b.output(b.op("MatMul", {g, b.random_weights("w5", {10, 5}, 8)}, {}, "matmul"));
  b.output(b.op("ReduceMean", {r}, {{"axes", Ints{1, 2, 3}}}, "mean"));
  return b.build();
}

std::vector<std::vector<Tensor>> sets_of(const std::vector<Ints>& dims, int count, std::uint64_t seed = 10) {
  std::vector<std::vector<Tensor>> sets;
  for (int s = 0; s < count; ++s) {
    sets.emplace_back();
    for (const Ints& d : dims) sets.back().push_back(Tensor::random(DataType::f32, d, seed + static_cast<std::uint64_t>(s) * 7, -1, 1));
  }
  return sets;
}

const ge::Node& node(const ge::Graph& g, std::string_view name) {
  const auto i = g.find_node(name);
  REQUIRE_MESSAGE(i.has_value(), "no node ", std::string(name));
  return g.nodes()[*i];
}

// The node producing value `v` (which must be a node's output).
const ge::Node& producer(const ge::Graph& g, ge::ValueId v) {
  const ge::ValueInfo& info = g.value(v);
  REQUIRE(info.source == ge::ValueSource::node);
  return g.nodes()[info.producer];
}

const Tensor& constant(const ge::Graph& g, ge::ValueId v) {
  const Tensor* t = g.constant_of(v);
  REQUIRE_MESSAGE(t != nullptr, g.value(v).name, " is not a constant");
  return *t;
}

template <class T>
std::vector<T> values(const Tensor& t) {
  REQUIRE(t.dtype() == ge::data_type_of<T>());
  std::vector<T> v(static_cast<std::size_t>(t.element_count()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(T));
  return v;
}

std::size_t count_op(const ge::Graph& g, std::string_view op) {
  return static_cast<std::size_t>(std::count_if(g.nodes().begin(), g.nodes().end(), [&](const ge::Node& n) { return n.op == op; }));
}

// The outputs of `g` on `inputs` as floats.
std::vector<std::vector<float>> run(const ge::Graph& g, const std::vector<Tensor>& inputs) {
  ge::Session s(ge::compile(g), {.threads = 1});
  std::vector<ge::TensorView> views;
  for (const Tensor& t : inputs) views.emplace_back(const_cast<std::byte*>(t.bytes().data()), t.dtype(), t.dims());
  const ge::RunResult r = s.run(views);
  std::vector<std::vector<float>> out;
  for (const ge::Output& o : r.outputs) out.emplace_back(o.values<float>().begin(), o.values<float>().end());
  return out;
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (const float a : v) m = std::max(m, std::abs(a));
  return m;
}

// The QuantizeLinear -> DequantizeLinear pair in front of input 0 of node `name`: checks
// its form and returns {scale, zero point}.
std::pair<float, std::uint8_t> activation_pair(const ge::Graph& g, std::string_view name, std::string_view value) {
  const ge::Node& dq = producer(g, node(g, name).inputs[0]);
  CHECK(dq.op == "DequantizeLinear");
  const ge::Node& q = producer(g, dq.inputs[0]);
  CHECK(q.op == "QuantizeLinear");
  CHECK(g.value(q.inputs[0]).name == value);
  CHECK(g.value(dq.inputs[0]).desc.dtype == DataType::u8);
  const Tensor& s = constant(g, q.inputs[1]);
  const Tensor& zp = constant(g, q.inputs[2]);
  CHECK(s.dtype() == DataType::f32);
  CHECK(s.dims().empty());
  CHECK(zp.dtype() == DataType::u8);
  CHECK(zp.dims().empty());
  CHECK(constant(g, dq.inputs[1]) == s);  // the same values in Q and DQ
  CHECK(constant(g, dq.inputs[2]) == zp);
  return {values<float>(s)[0], values<std::uint8_t>(zp)[0]};
}

// The DequantizeLinear of the weight (input `i`) of node `name`: checks axis and types.
const ge::Node& weight_dq(const ge::Graph& g, std::string_view name, std::size_t i, std::int64_t axis, DataType q,
                          std::int64_t channels) {
  const ge::Node& dq = producer(g, node(g, name).inputs[i]);
  CHECK(dq.op == "DequantizeLinear");
  REQUIRE(dq.attrs.count("axis") == 1);
  CHECK(dq.attrs.at("axis").as_int() == axis);
  CHECK(constant(g, dq.inputs[0]).dtype() == q);
  CHECK(constant(g, dq.inputs[1]).dims() == Ints{channels});
  CHECK(constant(g, dq.inputs[1]).dtype() == DataType::f32);
  const Tensor& zp = constant(g, dq.inputs[2]);
  CHECK(zp.dtype() == q);
  CHECK(zp.dims() == Ints{channels});
  CHECK(std::all_of(zp.bytes().begin(), zp.bytes().end(), [](std::byte c) { return c == std::byte{0}; }));
  return dq;
}

// The expected u8 parameters of a range, as the header states them.
std::pair<float, std::uint8_t> expected_params(float lo_v, float hi_v) {
  const double lo = std::min(0.0, double{lo_v}), hi = std::max(0.0, double{hi_v});
  if (hi == lo) return {1.f, 0};
  const auto scale = static_cast<float>((hi - lo) / 255.0);
  return {scale, static_cast<std::uint8_t>(std::nearbyint(-lo / double{scale}))};
}

}  // namespace

TEST_CASE("quantize_qdq: the rewrite's nodes, axes, types and zero points") {
  const ge::Graph f = small_cnn();
  ge::QuantizeOptions o;
  o.calibration = sets_of({{2, 3, 8, 8}}, 3);
  ge::QuantizeReport rep;
  const ge::Graph q = ge::quantize_qdq(f, o, &rep);

  CHECK(rep.quantized.at("Conv") == 3);
  CHECK(rep.quantized.at("Gemm") == 1);
  CHECK(rep.quantized.at("MatMul") == 1);
  CHECK(rep.quantized_nodes() == 5);
  CHECK(rep.skipped.empty());
  CHECK(rep.weights == 5);
  CHECK(rep.biases == 3);  // conv1, conv2, gemm
  CHECK(rep.calibration_sets == 3);
  CHECK_FALSE(rep.random_calibration);
  // One pair per quantized value: x, relu (read by conv2 and conv3), flatten, gemm.
  REQUIRE(rep.activations.size() == 4);
  CHECK(count_op(q, "QuantizeLinear") == 4);
  CHECK(count_op(q, "DequantizeLinear") == 4 + 5 + 3);
  // Every original node is there under its name with its op; nothing else was added.
  for (const ge::Node& n : f.nodes()) CHECK(node(q, n.name).op == n.op);
  CHECK(q.nodes().size() == f.nodes().size() + 4 + 12);
  CHECK(q.outputs().size() == 2);
  CHECK(q.value(q.outputs()[0]).name == f.value(f.outputs()[0]).name);

  activation_pair(q, "conv1", "x");
  const auto relu_pair = activation_pair(q, "conv2", "relu");
  CHECK(node(q, "conv2").inputs[0] == node(q, "conv3").inputs[0]);  // shared
  CHECK(q.value(node(q, "mean").inputs[0]).name == "relu");          // the f32 value
  activation_pair(q, "gemm", "flatten");
  activation_pair(q, "matmul", "gemm");
  CHECK(relu_pair.second == 0);  // a ReLU output: lo = 0

  weight_dq(q, "conv1", 1, 0, DataType::i8, 4);
  weight_dq(q, "conv2", 1, 0, DataType::i8, 6);
  weight_dq(q, "conv3", 1, 0, DataType::i8, 6);
  weight_dq(q, "gemm", 1, 0, DataType::i8, 10);   // transB = 1: [N, K]
  weight_dq(q, "matmul", 1, 1, DataType::i8, 5);  // [K, N]
  weight_dq(q, "conv1", 2, 0, DataType::i32, 4);
  weight_dq(q, "conv2", 2, 0, DataType::i32, 6);
  weight_dq(q, "gemm", 2, 0, DataType::i32, 10);
  CHECK(node(q, "conv3").inputs.size() == 2);
  // The f32 weights are gone; names derive from the quantized values.
  CHECK_FALSE(q.find_value("w1").has_value());
  CHECK(q.find_value("w1_quantized").has_value());
  CHECK(q.find_value("x_quantized").has_value());
  CHECK(q.find_node("w1_dq").has_value());
  CHECK(q.find_node("x_quantize").has_value());
}

TEST_CASE("quantize_qdq: int8 weights and int32 biases against a hand computation") {
  const ge::Graph f = small_cnn();
  ge::QuantizeOptions o;
  o.calibration = sets_of({{2, 3, 8, 8}}, 2);
  const ge::Graph q = ge::quantize_qdq(f, o);

  // conv1's weight, channel 1: 27 values, scale max|w| / 127.
  const std::vector<float> w = values<float>(constant(f, *f.find_value("w1")));
  const ge::Node& dq = producer(q, node(q, "conv1").inputs[1]);
  const std::vector<std::int8_t> wq = values<std::int8_t>(constant(q, dq.inputs[0]));
  const std::vector<float> scales = values<float>(constant(q, dq.inputs[1]));
  float m = 0;
  for (int i = 27; i < 54; ++i) m = std::max(m, std::abs(w[static_cast<std::size_t>(i)]));
  const auto scale = static_cast<float>(double{m} / 127.0);
  CHECK(scales[1] == scale);
  int extremes = 0;
  for (std::size_t i = 27; i < 54; ++i) {
    const auto expect = static_cast<std::int8_t>(std::nearbyint(double{w[i]} / double{scale}));
    CHECK(wq[i] == expect);
    extremes += std::abs(wq[i]) == 127;
  }
  CHECK(extremes >= 1);
  // MatMul's [10, 5] weight is per column (axis 1): column 3's scale.
  const std::vector<float> w5 = values<float>(constant(f, *f.find_value("w5")));
  float m5 = 0;
  for (std::size_t k = 0; k < 10; ++k) m5 = std::max(m5, std::abs(w5[k * 5 + 3]));
  const ge::Node& dq5 = producer(q, node(q, "matmul").inputs[1]);
  CHECK(values<float>(constant(q, dq5.inputs[1]))[3] == static_cast<float>(double{m5} / 127.0));

  // conv1's bias: scale x_scale * w_scale, zero point 0.
  const auto [x_scale, x_zp] = activation_pair(q, "conv1", "x");
  const ge::Node& bdq = producer(q, node(q, "conv1").inputs[2]);
  const std::vector<float> b = values<float>(constant(f, *f.find_value("b1")));
  const std::vector<std::int32_t> bq = values<std::int32_t>(constant(q, bdq.inputs[0]));
  const std::vector<float> bs = values<float>(constant(q, bdq.inputs[1]));
  for (std::size_t c = 0; c < 4; ++c) {
    CHECK(bs[c] == static_cast<float>(double{x_scale} * double{scales[c]}));
    CHECK(bq[c] == static_cast<std::int32_t>(std::nearbyint(double{b[c]} / double{bs[c]})));
  }
}

TEST_CASE("quantize_qdq: activation parameters from the calibration range") {
  const ge::Graph f = small_cnn();
  ge::QuantizeOptions o;
  o.calibration = sets_of({{2, 3, 8, 8}}, 3);
  ge::QuantizeReport rep;
  const ge::Graph q = ge::quantize_qdq(f, o, &rep);

  // x is the graph input: its range is the sets' own min and max.
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (const auto& set : o.calibration)
    for (const float a : values<float>(set[0])) lo = std::min(lo, a), hi = std::max(hi, a);
  CHECK(rep.activations[0].value == "x");
  CHECK(rep.activations[0].min == lo);
  CHECK(rep.activations[0].max == hi);
  const auto [s, zp] = activation_pair(q, "conv1", "x");
  CHECK(std::make_pair(s, zp) == expected_params(lo, hi));
  CHECK(zp > 100);  // a range about [-1, 1]
  CHECK(zp < 155);

  // relu, an inner value: its range over the f32 graph's runs.
  ge::Graph probe = f;
  probe.add_output(*f.find_value("relu"));
  float rhi = 0;
  for (const auto& set : o.calibration) rhi = std::max(rhi, max_abs(run(probe, set)[2]));
  const auto it = std::find_if(rep.activations.begin(), rep.activations.end(), [](const auto& a) { return a.value == "relu"; });
  REQUIRE(it != rep.activations.end());
  CHECK(it->min == 0.f);
  CHECK(it->max == rhi);
  CHECK(activation_pair(q, "conv3", "relu") == expected_params(0.f, rhi));
  CHECK(it->scale == expected_params(0.f, rhi).first);
}

TEST_CASE("quantize_qdq: the QDQ graph runs in ge within quantization error of the f32 graph") {
  const ge::Graph f = small_cnn();
  ge::QuantizeOptions o;
  o.calibration = sets_of({{2, 3, 8, 8}}, 4);
  const ge::Graph q = ge::quantize_qdq(f, o);
  // On a calibration set: no value leaves its calibrated range (an input outside it would
  // add the error of clipping, not only of rounding).
  const auto input = o.calibration[1];
  const auto yf = run(f, input);
  const auto yq = run(q, input);
  REQUIRE(yq.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    REQUIRE(yq[k].size() == yf[k].size());
    float err = 0;
    for (std::size_t i = 0; i < yf[k].size(); ++i) err = std::max(err, std::abs(yq[k][i] - yf[k][i]));
    CHECK_MESSAGE(err < 5e-2f * max_abs(yf[k]), "output ", k, ": max error ", err, " of max |y| ", max_abs(yf[k]));
  }
  CHECK(yq[0] != yf[0]);  // the quantized path did change the numbers

#if defined(GE_WITH_ONNX)
  // It saves (opset 13 or later: per-channel DequantizeLinear) and loads back the same.
  CHECK(ge::onnx::save_opset(q) >= 13);
  const ge::Graph back = ge::onnx::load_bytes(ge::onnx::save_bytes(q));
  CHECK(back.nodes().size() == q.nodes().size());
  CHECK(count_op(back, "QuantizeLinear") == 4);
  CHECK(producer(back, node(back, "matmul").inputs[1]).attrs.at("axis").as_int() == 1);
  CHECK(run(back, input) == yq);
#endif
}

TEST_CASE("quantize_qdq: percentile ranges clip outliers") {
  // x [1, 1000]: 5 outliers of |x| = 1000, 50 values 0.5, the rest within +-0.4.
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<double>(i % 81) / 100.0 - 0.4);
  for (std::size_t i = 0; i < 50; ++i) x[100 + i] = 0.5f;
  x[7] = x[300] = x[600] = 1000.f;
  x[9] = x[900] = -1000.f;
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, "1,1000").matmul(b.random_weights("w", {1000, 2}, 3), "mm"));
  const ge::Graph f = b.build();
  ge::QuantizeOptions o;
  o.calibration = {{Tensor::from<float>({1, 1000}, x)}};
  ge::QuantizeReport rep;

  o.method = ge::CalibrationMethod::percentile;
  o.percentile = 99.0;  // 10 values above the 990th
  (void)ge::quantize_qdq(f, o, &rep);
  REQUIRE(rep.activations.size() == 1);
  CHECK(rep.activations[0].min == -0.5f);
  CHECK(rep.activations[0].max == 0.5f);
  CHECK(rep.activations[0].scale == expected_params(-0.5f, 0.5f).first);
  CHECK(rep.activations[0].zero_point == expected_params(-0.5f, 0.5f).second);

  o.percentile = 100.0;  // the largest |x|: min-max
  (void)ge::quantize_qdq(f, o, &rep);
  CHECK(rep.activations[0].min == -1000.f);
  CHECK(rep.activations[0].max == 1000.f);

  o.method = ge::CalibrationMethod::min_max;
  (void)ge::quantize_qdq(f, o, &rep);
  CHECK(rep.activations[0].min == -1000.f);
  CHECK(rep.activations[0].max == 1000.f);
}

TEST_CASE("quantize_qdq: random calibration sets, integer inputs, Gemm with transB = 0") {
  // ids [-1, 4] (i64) -> Gather on a [100, 8] table -> Gemm [8, 3] (transB 0) + C -> y
  ge::GraphBuilder b;
  const auto ids = b.input("ids", DataType::i64, "-1,4");
  const auto e = b.op("Gather", {b.random_weights("table", {100, 8}, 1), ids}, {}, "embed");
  const auto flat = b.op("Reshape", {e, b.int64s({-1, 8})}, {}, "rows");
  b.output(b.op("Gemm", {flat, b.random_weights("w", {8, 3}, 2), b.random_weights("c", {3}, 3)}, {}, "gemm"));
  const ge::Graph f = b.build();
  ge::QuantizeOptions o;
  o.random_samples = 3;
  o.seed = 5;
  ge::QuantizeReport rep;
  const ge::Graph q = ge::quantize_qdq(f, o, &rep);
  CHECK(rep.random_calibration);
  CHECK(rep.calibration_sets == 3);
  CHECK(rep.quantized.at("Gemm") == 1);
  CHECK(rep.biases == 1);
  weight_dq(q, "gemm", 1, 1, DataType::i8, 3);  // transB = 0: [K, N], axis 1
  weight_dq(q, "gemm", 2, 0, DataType::i32, 3);
  CHECK(rep.activations[0].value == "rows");
  CHECK(rep.activations[0].max > rep.activations[0].min);
  // The same seed gives the same model; another seed other ranges.
  ge::QuantizeReport again;
  (void)ge::quantize_qdq(f, o, &again);
  CHECK(again.activations[0].scale == rep.activations[0].scale);
  // alpha != 1: the bias stays f32 (an integer kernel could not add it as it is).
  ge::GraphBuilder b2;
  const auto x = b2.input("x", DataType::f32, "2,8");
  b2.output(x.gemm(b2.random_weights("w", {8, 3}, 2), b2.random_weights("c", {3}, 3), {.alpha = 2.0, .name = "g"}));
  const ge::Graph q2 = ge::quantize_qdq(b2.build(), o, &rep);
  CHECK(rep.biases == 0);
  CHECK(q2.value(node(q2, "g").inputs[2]).name == "c");
}

TEST_CASE("quantize_qdq: nodes without a constant weight are skipped; nothing to quantize is no error") {
  ge::GraphBuilder b;
  const auto a = b.input("a", DataType::f32, "2,4");
  const auto w = b.input("w", DataType::f32, "4,3");
  const auto m = b.op("MatMul", {a, w}, {}, "dynamic");
  b.output(b.op("Relu", {m}, {}, "relu"));
  const ge::Graph f = b.build();
  ge::QuantizeReport rep;
  const ge::Graph q = ge::quantize_qdq(f, {}, &rep);
  CHECK(rep.quantized_nodes() == 0);
  CHECK(rep.calibration_sets == 0);  // nothing ran
  REQUIRE(rep.skipped.size() == 1);
  CHECK(rep.skipped[0].node == "dynamic");
  CHECK(rep.skipped[0].reason == "its weight 'w' is not a constant");
  CHECK(rep.to_string().find("skipped 'dynamic' (MatMul): its weight 'w' is not a constant") != std::string::npos);
  CHECK(q.nodes().size() == f.nodes().size());
  CHECK(count_op(q, "QuantizeLinear") == 0);

  // Only the op types asked for: Conv alone leaves the MatMul and Gemm in f32.
  ge::QuantizeOptions o;
  o.calibration = sets_of({{2, 3, 8, 8}}, 1);
  o.op_types = {"Conv"};
  const ge::Graph c = ge::quantize_qdq(small_cnn(), o, &rep);
  CHECK(rep.quantized_nodes() == 3);
  CHECK(c.value(node(c, "matmul").inputs[1]).name == "w5");
  CHECK(c.value(node(c, "gemm").inputs[0]).name == "flatten");
}

TEST_CASE("quantize_qdq: bad options and calibration sets throw ge::Error") {
  const ge::Graph f = small_cnn();
  const auto quantize = [&](const ge::QuantizeOptions& o) { return [&f, o] { (void)ge::quantize_qdq(f, o); }; };
  ge::QuantizeOptions o;
  o.calibration = sets_of({{2, 3, 8, 8}}, 1);

  for (const double p : {0.0, -1.0, 100.5, std::nan("")}) {
    ge::QuantizeOptions bad = o;
    bad.method = ge::CalibrationMethod::percentile;
    bad.percentile = p;
    ge::test::expect_error(quantize(bad), Errc::invalid_argument, "[ge.quantize] percentile", "expected a value in (0, 100]");
  }
  ge::QuantizeOptions ops = o;
  ops.op_types = {"Conv", "Relu"};
  ge::test::expect_error(quantize(ops), Errc::invalid_argument, "op type 'Relu' cannot be quantized", "Conv, MatMul or Gemm");
  ge::QuantizeOptions none;
  none.random_samples = 0;
  ge::test::expect_error(quantize(none), Errc::invalid_argument, "random_samples 0");

  ge::QuantizeOptions count = o;
  count.calibration[0].push_back(count.calibration[0][0]);
  ge::test::expect_error(quantize(count), Errc::bad_tensor, "calibration set 0 has 2 tensors", "1 ('x')");
  ge::QuantizeOptions type = o;
  type.calibration.push_back({Tensor::random(DataType::f64, {2, 3, 8, 8}, 1)});
  ge::test::expect_error(quantize(type), Errc::bad_tensor, "calibration set 1, input 'x' is f64; the input is f32");
  ge::QuantizeOptions dims = o;
  dims.calibration = sets_of({{2, 3, 8}}, 1);
  ge::test::expect_error(quantize(dims), Errc::bad_tensor, "input 'x' has dims [2,3,8]; the input allows [2,3,8,8]");
  ge::QuantizeOptions data = o;
  data.calibration = {{Tensor::without_data(DataType::f32, {2, 3, 8, 8})}};
  ge::test::expect_error(quantize(data), Errc::bad_tensor, "input 'x' has no data");

  // Random sets need a rank and a type they can be made of.
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, "-2").matmul(b.random_weights("w", {4, 3}, 1)));
  ge::test::expect_error([&] { (void)ge::quantize_qdq(b.build()); }, Errc::unsupported, "input 'x' has an unknown rank",
                         "give calibration sets");
}

TEST_CASE("quantize_qdq: sets of different dims on a dynamic graph; names already taken") {
  // x [-1, 8] -> MatMul [8, 4] -> Mul by a constant named x_scale (the name the pair's
  // scale would take).
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,8");
  const auto m = x.matmul(b.random_weights("w", {8, 4}, 1), "mm");
  b.output(b.op("Mul", {m, b.constant("x_scale", Tensor::scalar(2.f))}, {}, "scaled"));
  ge::QuantizeOptions o;
  o.calibration = {{Tensor::from<float>({1, 8}, std::vector<float>(8, 0.25f))},
                   {Tensor::from<float>({3, 8}, std::vector<float>(24, -3.f))}};
  ge::QuantizeReport rep;
  const ge::Graph q = ge::quantize_qdq(b.build(), o, &rep);
  CHECK(rep.calibration_sets == 2);
  REQUIRE(rep.activations.size() == 1);
  CHECK(rep.activations[0].min == -3.f);  // from the [3, 8] set
  CHECK(rep.activations[0].max == 0.25f);  // from the [1, 8] set
  CHECK(rep.activations[0].zero_point == expected_params(-3.f, 0.25f).second);
  const ge::Node& quant = producer(q, producer(q, node(q, "mm").inputs[0]).inputs[0]);
  CHECK(q.value(quant.inputs[1]).name == "x_scale_1");
  CHECK(values<float>(constant(q, *q.find_value("x_scale"))) == std::vector<float>{2.f});  // the graph's own
  const auto y = run(q, {Tensor::from<float>({3, 8}, std::vector<float>(24, -3.f))});
  CHECK(y[0].size() == 12);
}
