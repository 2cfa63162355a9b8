// Tests of `CompileSettings::precision` (ge/compile/kernel.hpp's `Precision`): bf16 puts
// the convs and constant-weight matrix products on the bf16 kernels (AMX or AVX512-BF16)
// where the CPU has them, close to f32; elsewhere (or with them forbidden) the model runs
// f32 exactly, with a notice; a bf16 model file keeps its bf16 packing; the single-op
// cache keys on the precision.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../../examples/models/resnet50.hpp"
#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::test::expect_error;

// conv 3x3 + relu, conv 1x1 + the residual, global average pool, a constant MatMul and
// a Gemm: every kind of kernel that bf16 changes.
ge::Graph small_net() {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,8,12,12");
  const auto c1 = x.conv2d(b.random_weights("w1", {32, 8, 3, 3}, 1), b.random_weights("b1", {32}, 2), {.pad = 1}).relu();
  const auto c2 = c1.conv2d(b.random_weights("w2", {32, 32, 1, 1}, 3)) + c1;
  const auto f = c2.global_avg_pool().flatten();
  const auto m = f.matmul(b.random_weights("w3", {32, 40}, 4)).relu();
  b.output(m.gemm(b.random_weights("w4", {40, 10}, 5), b.random_weights("b4", {10}, 6)));
  return b.build();
}

std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& model, std::vector<float> x) {
  ge::Session s(model, {.threads = 2});
  const std::int64_t dims[] = {2, 8, 12, 12};
  const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

std::vector<float> input() {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(2 * 8 * 12 * 12);
  for (float& e : v) e = d(gen);
  return v;
}

int bf16_kernels(const ge::CompiledModel& m) {
  int n = 0;
  for (const auto& k : m.kernels())
    if (k && std::string(k->name()).ends_with(".bf16")) ++n;
  return n;
}

bool has_precision_notice(const ge::CompiledModel& m) {
  return std::any_of(m.config().warnings.begin(), m.config().warnings.end(),
                     [](const std::string& w) { return w.find("precision bf16") != std::string::npos; });
}

}  // namespace

TEST_CASE("precision: names parse and print; anything else is invalid_argument") {
  CHECK(ge::parse_precision("f32") == ge::Precision::f32);
  CHECK(ge::parse_precision("bf16") == ge::Precision::bf16);
  CHECK(ge::to_string(ge::Precision::bf16) == "bf16");
  CHECK(ge::to_string(ge::Precision::f32) == "f32");
  for (const char* bad : {"", "fp16", "BF16", "f32 "}) {
    CAPTURE(bad);
    expect_error([&] { (void)ge::parse_precision(bad); }, ge::Errc::invalid_argument);
  }
}

TEST_CASE("precision bf16: convs and constant matmuls on AMX, close to f32; f32 exactly without AMX") {
  const ge::Graph g = small_net();
  const auto f32 = ge::compile(g);
  const auto bf16 = ge::compile(g, {}, ge::default_target(), {.precision = ge::Precision::bf16});
  CHECK(bf16_kernels(*f32) == 0);
  CHECK_FALSE(has_precision_notice(*f32));
  const std::vector<float> x = input();
  const std::vector<float> want = run(f32, x);
  const std::vector<float> got = run(bf16, x);
  REQUIRE(got.size() == want.size());
  if (ge::bf16_supported()) {
    CHECK(bf16_kernels(*bf16) == 4);  // two convs, the MatMul and the Gemm
    CHECK_FALSE(has_precision_notice(*bf16));
    float err = 0.0f, top = 0.0f;
    for (std::size_t i = 0; i < got.size(); ++i) {
      err = std::max(err, std::fabs(got[i] - want[i]));
      top = std::max(top, std::fabs(want[i]));
    }
    MESSAGE("bf16 vs f32: max error " << err / top << " of the output's max");
    CHECK(err <= 2e-2f * top);
    CHECK(got != want);  // it did run in bf16
  } else {
    MESSAGE("skipped the bf16 comparison: this CPU has neither AVX512-BF16 nor AMX-BF16");
    CHECK(bf16_kernels(*bf16) == 0);
    CHECK(has_precision_notice(*bf16));
    CHECK(got == want);
  }

  // bf16 kernels forbidden (as on a CPU without them): f32 kernels, the notice, f32's results.
  const auto fallback = [&] {
    const ge::cpu::Bf16KernelsCap cap(ge::cpu::Bf16Kernels::none);
    return ge::compile(g, {}, ge::default_target(), {.precision = ge::Precision::bf16});
  }();
  CHECK(bf16_kernels(*fallback) == 0);
  CHECK(has_precision_notice(*fallback));
  CHECK(run(fallback, x) == want);
}

TEST_CASE("precision bf16: a model file keeps the bf16 packing and runs as the model it was saved from") {
  // ResNet-50's convs: NHWC GEMMs over patches, Winograd and 1x1 products with
  // AVX512-BF16, NCHW convs on AMX; the classifier's MatMul.
  const ge::Graph g = ge::models::resnet50("1,3,32,32");
  const auto model = ge::compile(g, {}, ge::default_target(), {.precision = ge::Precision::bf16});
  const auto back = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model)));
  CHECK(bf16_kernels(*back) == bf16_kernels(*model));
  // (at 32x32 a few convs read mostly padding, or few channels: f32 kernels take them)
  if (ge::bf16_supported()) CHECK(bf16_kernels(*model) >= 45);
  // The 3x3 convs of the first stage (8x8) by Winograd with bf16 products: U packed in bf16.
  const auto winograd_bf16 = [](const ge::CompiledModel& m) {
    return std::count_if(m.kernels().begin(), m.kernels().end(), [](const auto& k) {
      return k && std::string(k->name()) == "cpu.fused_conv2d.nhwc_winograd.bf16";
    });
  };
  CHECK(winograd_bf16(*back) == winograd_bf16(*model));
  if (ge::bf16_supported()) CHECK(winograd_bf16(*model) >= 1);
  std::vector<float> x(3 * 32 * 32);
  std::mt19937 gen(4);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (float& e : x) e = d(gen);
  const auto run_one = [&](const std::shared_ptr<const ge::CompiledModel>& m) {
    ge::Session s(m);
    const std::int64_t dims[] = {1, 3, 32, 32};
    const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
    const auto v = r.outputs.at(0).values<float>();
    return std::vector<float>(v.begin(), v.end());
  };
  CHECK(run_one(back) == run_one(model));
}

TEST_CASE("precision: the single-op cache keys on it") {
  ge::OpCompiler compiler(8);
  ge::OpCompileRequest r;
  r.op_type = "MatMul";
  std::vector<float> w(16 * 8, 0.5f);
  r.inputs = {ge::OpTensor{ge::DataType::f32, ge::Shape::parse("-1,16")},
              ge::OpTensor::constant_of(ge::Tensor::from<float>({16, 8}, w))};
  const auto a = compiler.compile(r);
  r.precision = ge::Precision::bf16;
  const auto b = compiler.compile(r);
  CHECK(a->key != b->key);
  CHECK(compiler.stats().size == 2);
  CHECK(compiler.compile(r) == b);  // a hit
  CHECK(std::string(b->kernel->name()).ends_with(".bf16") == ge::bf16_supported());
}
