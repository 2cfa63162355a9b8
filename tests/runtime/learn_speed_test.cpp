// ge::learn_speed (ge/runtime/calibrate.hpp): the cost model learns from a session's
// first traced runs what each kernel's steps take; MachineSpeed keeps it in its text.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;

namespace {

// x [-1, 64]: softmax(relu(x W)) with W [64, 64].
ge::Graph mlp() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,64");
  const auto h = b.op("Relu", {b.op("MatMul", {x, b.random_weights("w", {64, 64}, 3)})});
  b.output(b.op("Softmax", {h}, {{"axis", std::int64_t{1}}}, "y"));
  return b.build();
}

const ge::MachineSpeed speed{100.0, 10.0, 2.0, 1};

}  // namespace

TEST_CASE("learn_speed: the cost of the shape learned from equals what its steps took") {
  const auto model = ge::compile(mlp(), {{"ge.inputShape", "x:-1,64"}, {"ge.dynamicBatchSize", "4,32"}});
  ge::Session s(model, {.threads = 1, .trace = true});
  std::vector<float> x(32 * 64, 0.25f);
  const ge::TensorView in{x.data(), DataType::f32, {32, 64}};
  (void)s.run({in});
  ge::MachineSpeed learned = speed;
  double took_ms = 0;  // the steps' time less the step cost, as learn_speed counts it
  std::size_t steps = 0;
  const int runs = 3;
  for (int i = 0; i < runs; ++i) {
    const ge::RunResult r = s.run({in});
    REQUIRE(r.trace);
    steps = ge::learn_speed(learned, *r.trace);
    CHECK(steps == r.trace->plan->steps.size());
    for (const ge::StepTiming& t : r.trace->steps)
      took_ms += std::max(static_cast<double>(t.end - t.start) * 1e-6 - speed.step_us * 1e-3, 0.0);
  }
  CHECK_FALSE(learned.kernels.empty());
  for (const auto& [name, k] : learned.kernels) {
    CAPTURE(name);
    CHECK(k.steps % runs == 0);
    CHECK(k.modelled_s > 0);
    CHECK(learned.scale(name) == doctest::Approx(k.measured_s / k.modelled_s));
  }
  CHECK(learned.scale("no such kernel") == 1.0);
  // At the dims learned from, the model now says what the steps took (plus the step cost).
  const std::vector<std::vector<std::int64_t>> dims{{32, 64}};
  const ge::ShapeCost c = model->cost(dims, learned);
  CHECK(c.expected_ms == doctest::Approx(took_ms / runs + static_cast<double>(steps) * speed.step_us * 1e-3).epsilon(1e-6));
  // Elsewhere each kernel's steps scale by what was learned of it.
  CHECK(model->cost({{{4, 64}}}, learned).expected_ms != doctest::Approx(model->cost({{{4, 64}}}, speed).expected_ms));
  // The text keeps it.
  const ge::MachineSpeed back = ge::MachineSpeed::parse(learned.to_text());
  REQUIRE(back.kernels.size() == learned.kernels.size());
  for (const auto& [name, k] : learned.kernels) {
    CAPTURE(name);
    CHECK(back.scale(name) == doctest::Approx(learned.scale(name)).epsilon(1e-6));
    CHECK(back.kernels.at(name).steps == k.steps);
  }
}

TEST_CASE("learn_speed: a range plan's run teaches nothing; bad input is a clear error") {
  const auto model = ge::compile(mlp(), {{"ge.inputShape", "x:1~8,64"}});
  ge::Session s(model, {.threads = 1, .trace = true, .specialize_ranges = false});
  std::vector<float> x(3 * 64, 0.25f);
  const ge::RunResult r = s.run({ge::TensorView{x.data(), DataType::f32, {3, 64}}});
  REQUIRE(r.plan == ge::PlanKind::range);
  ge::MachineSpeed learned = speed;
  CHECK(ge::learn_speed(learned, *r.trace) == 0);
  CHECK(learned.kernels.empty());
  ge::MachineSpeed none;
  ge::test::expect_error([&] { (void)ge::learn_speed(none, *r.trace); }, Errc::invalid_argument, "not calibrated");
  ge::test::expect_error([&] { (void)ge::learn_speed(learned, ge::RunTrace{}); }, Errc::invalid_argument, "no plan");
  ge::test::expect_error([] { (void)ge::MachineSpeed::parse("gemm_gflops=1 stream_gbs=2 step_us=1 threads=2 kernel.x=abc"); },
                         Errc::invalid_argument, "kernel.x=abc", "expected kernel.<name>");
  ge::test::expect_error([] { (void)ge::MachineSpeed::parse("gemm_gflops=1 stream_gbs=2 step_us=1 threads=2 kernel.y=1/-2/3"); },
                         Errc::invalid_argument, "kernel.y=1/-2/3");
  for (const char* bad : {"kernel.z=inf/1/1", "kernel.z=1e999/1/1", "kernel.z=1/nan/1", "kernel.z=1/1/99999999999999999999",
                          "kernel.z=1/1/2x", "kernel.z=1/1", "kernel.=1/1/1"}) {
    CAPTURE(bad);
    ge::test::expect_error([&] { (void)ge::MachineSpeed::parse(std::string("gemm_gflops=1 stream_gbs=2 step_us=1 threads=2 ") + bad); },
                           Errc::invalid_argument, "expected kernel.<name>");
  }
  // A name may hold '=' (split at the last one); kernel items before the base fields are fine.
  const ge::MachineSpeed odd = ge::MachineSpeed::parse("kernel.a=b=1/2/3 gemm_gflops=1 stream_gbs=2 step_us=1 threads=2");
  REQUIRE(odd.kernels.count("a=b") == 1);
  CHECK(odd.scale("a=b") == doctest::Approx(0.5));
  CHECK(odd.gemm_gflops == 1.0);
}
