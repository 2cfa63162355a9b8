// Quantized (QDQ) models (compile/qdq.cpp): QuantizeLinear/DequantizeLinear pairs become
// FakeQuant ops, and where the CPU has the int8 kernels the convs and MatMuls that read
// one run in int8 with the model's values; elsewhere the same model runs in f32 on the
// same values. The reference is the model with an Identity between each pair (no pass
// touches it: QuantizeLinear and DequantizeLinear run as the ONNX ops).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "kernels/cpu/int8/int8.hpp"
#include "support/expect_error.hpp"

namespace {

// Per-channel symmetric int8 weights of `dims` (channel axis `axis`) and their scales.
struct QWeights {
  ge::Tensor q, scale, zero;
};
QWeights int8_weights(std::vector<std::int64_t> dims, std::size_t axis, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> qd(-127, 127);
  std::int64_t count = 1;
  for (const auto d : dims) count *= d;
  std::vector<std::int8_t> q(static_cast<std::size_t>(count));
  for (auto& v : q) v = static_cast<std::int8_t>(qd(gen));
  const std::int64_t channels = dims[axis];
  // As a symmetric quantizer makes them: each channel's largest |q| is 127.
  std::int64_t inner = 1;
  for (std::size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (std::int64_t c = 0; c < channels; ++c) q[static_cast<std::size_t>(c * inner)] = c % 2 == 0 ? 127 : -127;
  std::vector<float> s(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) s[static_cast<std::size_t>(c)] = 0.004f + 0.001f * static_cast<float>(c % 7);
  return {ge::Tensor::from(dims, q), ge::Tensor::from({channels}, s),
          ge::Tensor::from({channels}, std::vector<std::int8_t>(static_cast<std::size_t>(channels), 0))};
}

ge::Value dq_weights(ge::GraphBuilder& b, const std::string& name, std::vector<std::int64_t> dims, std::size_t axis,
                     std::uint32_t seed) {
  QWeights w = int8_weights(std::move(dims), axis, seed);
  return b.op("DequantizeLinear",
              {b.constant(name + "_q", w.q), b.constant(name + "_scale", w.scale), b.constant(name + "_zp", w.zero)},
              {{"axis", static_cast<std::int64_t>(axis)}});
}

// x -> QuantizeLinear -> [Identity] -> DequantizeLinear.
ge::Value qdq(ge::GraphBuilder& b, ge::Value x, float scale, int zero_point, bool split) {
  const ge::Value s = b.constant(ge::Tensor::scalar(scale));
  const ge::Value zp = b.constant(ge::Tensor::scalar(static_cast<std::uint8_t>(zero_point)));
  ge::Value q = b.op("QuantizeLinear", {x, s, zp});
  if (split) q = b.op("Identity", {q});
  return b.op("DequantizeLinear", {q, s, zp});
}

// conv 3x3 + bias + Relu, depthwise 3x3 + Relu, conv 1x1, conv 3x3 + the 1x1's residual,
// global pool, MatMul, Gemm (B transposed): every activation quantized (u8), every weight
// per channel in int8. The depthwise conv makes the chain NHWC and stays f32: its input's
// FakeQuant goes into the first conv's epilogue.
ge::Graph qdq_net(bool split) {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,8,12,12");
  auto c1 = qdq(b, x, 4.0f / 255.0f, 128, split).conv2d(dq_weights(b, "w1", {32, 8, 3, 3}, 0, 1),
                                                          b.random_weights("b1", {32}, 2), {.pad = 1}).relu();
  auto d = qdq(b, c1, 3.0f / 255.0f, 0, split)
               .conv2d(dq_weights(b, "wd", {32, 1, 3, 3}, 0, 6), {}, {.pad = 1, .group = 32})
               .relu();
  auto c2 = qdq(b, d, 3.0f / 255.0f, 0, split).conv2d(dq_weights(b, "w2", {32, 32, 1, 1}, 0, 3));
  auto c3 = qdq(b, c2, 2.0f / 255.0f, 100, split).conv2d(dq_weights(b, "w3", {32, 32, 3, 3}, 0, 4), {}, {.pad = 1}) + c2;
  auto f = c3.relu().global_avg_pool().flatten();
  const auto m = qdq(b, f, 1.0f / 255.0f, 0, split).matmul(dq_weights(b, "w4", {32, 10}, 1, 5));
  b.output(qdq(b, m, 6.0f / 255.0f, 128, split)
               .gemm(dq_weights(b, "w5", {6, 10}, 0, 7), b.random_weights("b5", {6}, 8), {.trans_b = true}));
  return b.build();
}

std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& model) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> d(-2.f, 2.f);
  std::vector<float> x(2 * 8 * 12 * 12);
  for (float& e : x) e = d(gen);
  ge::Session s(model, {.threads = 2});
  const std::int64_t dims[] = {2, 8, 12, 12};
  const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

int kernels_named(const ge::CompiledModel& m, const std::string& suffix) {
  int n = 0;
  for (const auto& k : m.kernels())
    if (k && std::string(k->name()).ends_with(suffix)) ++n;
  return n;
}

int ops_named(const ge::Graph& g, const std::string& op) {
  return static_cast<int>(std::count_if(g.nodes().begin(), g.nodes().end(), [&](const ge::Node& n) { return n.op == op; }));
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (const float e : v) m = std::max(m, std::fabs(static_cast<double>(e)));
  return m;
}

}  // namespace

TEST_CASE("qdq: each QuantizeLinear/DequantizeLinear pair becomes one FakeQuant; a pair split apart stays") {
  const ge::Graph g = ge::optimize(qdq_net(false));
  CHECK(ops_named(g, "QuantizeLinear") == 0);
  CHECK(ops_named(g, "DequantizeLinear") == 0);  // the weights' fold into constants
  const ge::Graph split = ge::optimize(qdq_net(true));
  CHECK(ops_named(split, "QuantizeLinear") == 6);
  CHECK(ops_named(split, "DequantizeLinear") == 6);
  CHECK(ops_named(split, "FakeQuant") == 0);
}

TEST_CASE("qdq: the model's values on the int8 kernels and on f32, next to the ONNX ops' reference") {
  const std::vector<float> want = run(ge::compile(qdq_net(true)));
  const double scale = max_abs(want);
  REQUIRE(scale > 0.0);
  const auto close = [&](const std::vector<float>& got) {
    REQUIRE(got.size() == want.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
    // Equal but for the f32 order of sums, which may move a value across a rounding
    // boundary of the next quantization (one step of 1/255 of its range, rarely).
    CHECK(worst <= 2e-2 * scale);
    return worst;
  };
  {
    ge::cpu::Int8KernelsCap none(ge::cpu::Int8Kernels::none);
    const auto model = ge::compile(qdq_net(false));
    CHECK(kernels_named(*model, ".int8") == 0);
    const auto& warnings = model->config().warnings;
    CHECK(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
      return w.find("6 QuantizeLinear/DequantizeLinear pairs); this CPU has no AVX512-VNNI") != std::string::npos;
    }));
    CHECK(kernels_named(*model, "fake_quant") == 6);
    MESSAGE("f32 FakeQuant path: max |diff| " << close(run(model)) << " of max |y| " << scale);
  }
  if (!ge::cpu::int8_usable()) {
    MESSAGE("no AVX512-VNNI here: the int8 kernels were not picked (their portable loops: tests/kernels/int8_test.cpp)");
    return;
  }
  const auto model = ge::compile(qdq_net(false));
  CHECK(model->config().warnings.empty());
  CHECK(kernels_named(*model, "nhwc_int8") == 3);
  CHECK(kernels_named(*model, "fused_matmul.int8") == 2);  // the MatMul and the Gemm
  CHECK(kernels_named(*model, "fake_quant") == 0);  // the depthwise conv's input: in the first conv's epilogue
  CHECK(kernels_named(*model, "nhwc_depthwise") == 1);
  const std::vector<float> int8_out = run(model);
  MESSAGE("int8 path: max |diff| " << close(int8_out) << " of max |y| " << scale);
  // A model file keeps the int8 packing: loaded back, the same kernels, the same values.
  const auto back = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model)));
  CHECK(kernels_named(*back, "nhwc_int8") == 3);
  CHECK(run(back) == int8_out);
  {
    // The same model file on a CPU without VNNI: the int8 kernels' portable loops.
    ge::cpu::Int8KernelsCap none(ge::cpu::Int8Kernels::none);
    MESSAGE("int8 kernels, portable loops: max |diff| " << close(run(model)));
  }
}

TEST_CASE("qdq: a FakeQuant with bad attributes is a clear error") {
  for (const ge::Attributes& bad : {ge::Attributes{{"scale", 0.0}}, ge::Attributes{{"zero_point", std::int64_t{300}}},
                                     ge::Attributes{{"qmin", std::int64_t{5}}, {"qmax", std::int64_t{5}}}}) {
    ge::GraphBuilder b;
    const auto x = b.input("x", ge::DataType::f32, "4");
    ge::test::expect_error([&] { b.output(b.op("FakeQuant", {x}, bad)); }, ge::Errc::bad_attribute);
  }
}

TEST_CASE("qdq: an inverted-residual block keeps its fused pointwise-depthwise conv, the pair between in its epilogue") {
  // 64x64 images expanded to 64 channels: 1 MiB an image, rows 64 wide (fuse_pointwise_depthwise's bounds).
  const auto net = [](bool split) {
    ge::GraphBuilder b;
    const auto x = b.input("x", ge::DataType::f32, "1,16,64,64");
    auto e = qdq(b, x, 4.0f / 255.0f, 128, split)
                 .conv2d(dq_weights(b, "we", {64, 16, 1, 1}, 0, 11), b.random_weights("be", {64}, 12))
                 .clip(0.0, 6.0);
    auto d = qdq(b, e, 6.0f / 255.0f, 0, split)
                 .conv2d(dq_weights(b, "wd", {64, 1, 3, 3}, 0, 13), b.random_weights("bd", {64}, 14), {.pad = 1, .group = 64})
                 .clip(0.0, 6.0);
    b.output(qdq(b, d, 6.0f / 255.0f, 0, split).conv2d(dq_weights(b, "wp", {16, 64, 1, 1}, 0, 15)));
    return b.build();
  };
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  std::vector<float> x(16 * 64 * 64);
  for (float& v : x) v = dist(gen);
  const auto run1 = [&](const std::shared_ptr<const ge::CompiledModel>& m) {
    ge::Session s(m, {.threads = 2});
    const std::int64_t dims[] = {1, 16, 64, 64};
    const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
    const auto v = r.outputs.at(0).values<float>();
    return std::vector<float>(v.begin(), v.end());
  };
  const std::vector<float> want = run1(ge::compile(net(true)));
  const double scale = max_abs(want);
  const auto worst = [&](const std::vector<float>& got) {
    double w = 0;
    for (std::size_t i = 0; i < got.size(); ++i) w = std::max(w, std::fabs(double(got[i]) - want[i]));
    return w;
  };
  {
    ge::cpu::Int8KernelsCap none(ge::cpu::Int8Kernels::none);
    const auto model = ge::compile(net(false));
    CHECK(kernels_named(*model, "fused_pointwise_depthwise.nhwc") == 1);  // f32, the pair in its epilogue
    CHECK(kernels_named(*model, "fake_quant") == 2);                      // the first and the last conv's inputs
    CHECK(worst(run1(model)) <= 2e-2 * scale);
  }
  if (!ge::cpu::int8_usable()) return;
  const auto model = ge::compile(net(false));
  CHECK(kernels_named(*model, "fused_pointwise_depthwise.nhwc_int8") == 1);
  CHECK(kernels_named(*model, "fused_conv2d.nhwc_int8") == 1);  // the projection
  CHECK(kernels_named(*model, "fake_quant") == 0);
  const double w = worst(run1(model));
  MESSAGE("int8 block: max |diff| " << w << " of max |y| " << scale);
  CHECK(w <= 2e-2 * scale);
}

TEST_CASE("qdq: quantization attributes a file could carry are checked as the kernel is made, never narrowed") {
  const auto fused_matmul = [](ge::Attributes attrs) {
    ge::GraphBuilder b;
    const auto x = b.input("x", ge::DataType::f32, "2,8");
    b.output(b.op("FusedMatMul", {x, b.random_weights("w", {8, 4}, 1)}, std::move(attrs)));
    return b.build();
  };
  // 2^32 + 5 would be 5 as a 32-bit number.
  for (const ge::Attributes& bad :
       {ge::Attributes{{"x_scale", 0.1}, {"x_zero_point", std::int64_t{4294967301}}},
        ge::Attributes{{"x_scale", 0.1}, {"x_zero_point", std::int64_t{-1}}},
        ge::Attributes{{"x_scale", std::numeric_limits<double>::infinity()}, {"x_zero_point", std::int64_t{0}}}}) {
    ge::test::expect_error([&] { (void)ge::compile(fused_matmul(bad)); }, ge::Errc::bad_attribute);
  }
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "4");
  ge::test::expect_error(
      [&] { b.output(b.op("FakeQuant", {x}, {{"scale", 0.5}, {"qmin", std::int64_t{-4294967296}}})); },
      ge::Errc::bad_attribute);
}
