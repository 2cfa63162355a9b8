// Tests of CompiledModel::cost (ge/compile/cost.hpp): which plan serves input dims and
// what it takes, before anything runs; MachineSpeed's text form; every bad input as a
// clear ge::Error.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;
using Dims = std::vector<std::vector<std::int64_t>>;

namespace {

// x [-1, 64]: relu(x W) with W [64, 64], then a softmax over the rows (`axis`).
ge::Graph mlp(std::int64_t axis = 1) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,64");
  const auto h = b.op("Relu", {b.op("MatMul", {x, b.random_weights("w", {64, 64}, 3)})});
  b.output(b.op("Softmax", {h}, {{"axis", axis}}, "y"));
  return b.build();
}

const ge::MachineSpeed speed{100.0, 10.0, 2.0, 1};

ge::BuildOptions gears(const char* list, bool hybrid = false) {
  ge::BuildOptions o{{"ge.inputShape", "x:-1,64"}, {"ge.dynamicBatchSize", list}};
  if (hybrid) o.set("ge.compileHybridMode", "1");
  return o;
}

}  // namespace

TEST_CASE("MachineSpeed: one line of text and back; bad text named") {
  const ge::MachineSpeed s{412.5, 21.75, 1.5, 2};
  const ge::MachineSpeed t = ge::MachineSpeed::parse(s.to_text() + "\n");
  CHECK(t.gemm_gflops == doctest::Approx(412.5));
  CHECK(t.stream_gbs == doctest::Approx(21.75));
  CHECK(t.step_us == doctest::Approx(1.5));
  CHECK(t.threads == 2);
  ge::test::expect_error([] { (void)ge::MachineSpeed::parse("gemm_gflops=1 stream_gbs=2 threads=2"); },
                         Errc::invalid_argument, "has no step_us");
  ge::test::expect_error([] { (void)ge::MachineSpeed::parse("gemm_gflops=-1 stream_gbs=2 step_us=1 threads=2"); },
                         Errc::invalid_argument, "gemm_gflops='-1'", "positive number");
  ge::test::expect_error([] { (void)ge::MachineSpeed::parse(""); }, Errc::invalid_argument, "gemm_gflops");
}

TEST_CASE("cost: a gear, padded to a gear, the hybrid range plan, a plan per signature, a fixed plan") {
  const auto model = ge::compile(mlp(), gears("1,4,8", true));
  const ge::ShapeCost g = model->cost(Dims{{4, 64}}, speed);
  CHECK(g.plan == ge::PlanKind::gear);
  CHECK(g.gear == 1);
  CHECK(g.plan_made);
  CHECK(g.padding_waste == 0);
  CHECK(g.flops == doctest::Approx(2.0 * 4 * 64 * 64));
  CHECK(g.io_bytes == 2 * 4 * 64 * 4);
  CHECK(g.arena_bytes == model->plans()[1]->arena_bytes());
  CHECK(g.total_bytes == g.arena_bytes + g.io_bytes);
  CHECK(g.steps == model->plans()[1]->steps.size());
  CHECK(g.expected_ms > 0);

  // Batch 3: a static plan made for it (a default session), the range plan itself
  // (hybrid, specialize_ranges off), or gear 4 padded.
  const ge::ShapeCost made = model->cost(Dims{{3, 64}}, speed);
  CHECK(made.plan == ge::PlanKind::signature);
  CHECK(made.gear == -1);
  CHECK(made.flops == doctest::Approx(2.0 * 3 * 64 * 64));
  const ge::ShapeCost r = model->cost(Dims{{3, 64}}, speed, {.specialize_ranges = false});
  CHECK(r.plan == ge::PlanKind::range);
  CHECK(r.gear == -1);
  CHECK(r.flops == doctest::Approx(2.0 * 3 * 64 * 64));
  CHECK(r.arena_bytes == model->plans().back()->arena_bytes());
  const ge::ShapeCost p = model->cost(Dims{{3, 64}}, speed, {.pad_to_gear = true});
  CHECK(p.plan == ge::PlanKind::gear);
  CHECK(p.gear == 1);
  CHECK(p.padding_waste == doctest::Approx(0.25));
  CHECK(p.flops == doctest::Approx(2.0 * 4 * 64 * 64));  // the padded work
  // More work costs more: batch 8 against batch 1.
  CHECK(model->cost(Dims{{8, 64}}, speed).expected_ms > model->cost(Dims{{1, 64}}, speed).expected_ms);

  const auto open = ge::compile(mlp(), {{"ge.inputShape", "x:1~inf,64"}});
  const ge::ShapeCost s = open->cost(Dims{{100, 64}}, speed);
  CHECK(s.plan == ge::PlanKind::signature);
  CHECK_FALSE(s.plan_made);
  CHECK(s.build_ms > 0);
  CHECK(s.flops == doctest::Approx(2.0 * 100 * 64 * 64));

  const auto fixed = ge::compile(mlp(), {{"ge.inputShape", "x:2,64"}});
  CHECK(fixed->cost(Dims{{2, 64}}, speed).plan == ge::PlanKind::fixed);
}

TEST_CASE("cost: the expected latency is the per-step model over the speeds given") {
  ge::GraphBuilder b;
  b.output(b.op("MatMul", {b.input("x", DataType::f32, "256,256"), b.random_weights("w", {256, 256}, 1)}, {}, "y"));
  const auto model = ge::compile(b.build());
  // One step: 2 * 256^3 FLOPs at 100 GFLOP/s = 0.3355 ms against 3 * 256 KiB at 10 GB/s =
  // 0.0786 ms, plus 2 us for the step.
  const ge::ShapeCost c = model->cost(Dims{{256, 256}}, speed);
  REQUIRE(c.steps == 1);
  CHECK(c.expected_ms == doctest::Approx(2.0 * 256 * 256 * 256 / 100e9 * 1e3 + 0.002));
  const ge::ShapeCost slow = model->cost(Dims{{256, 256}}, {100.0, 0.1, 2.0, 1});  // memory-bound now
  CHECK(slow.expected_ms == doctest::Approx(3.0 * 256 * 256 * 4 / 0.1e9 * 1e3 + 0.002));
}

TEST_CASE("cost: bad input as clear errors, as a run would give them") {
  const auto model = ge::compile(mlp(), gears("1,4,8"));
  ge::test::expect_error([&] { (void)model->cost(Dims{{3, 64}}, speed); }, Errc::no_matching_gear, "x:3,64",
                         "match no gear");
  ge::test::expect_error([&] { (void)model->cost(Dims{{9, 64}}, speed, {.pad_to_gear = true}); }, Errc::no_matching_gear,
                         "x:9,64");
  ge::test::expect_error([&] { (void)model->cost(Dims{{3, 64, 1}}, speed); }, Errc::bad_tensor, "rank 3");
  ge::test::expect_error([&] { (void)model->cost(Dims{{3, 64}, {1}}, speed); }, Errc::bad_tensor, "2 inputs given");
  ge::test::expect_error([&] { (void)model->cost(Dims{{4, 64}}, ge::MachineSpeed{}); }, Errc::invalid_argument,
                         "not calibrated");
  const auto across = ge::compile(mlp(0), gears("1,4,8"));
  ge::test::expect_error([&] { (void)across->cost(Dims{{3, 64}}, speed, {.pad_to_gear = true}); }, Errc::padding_unsafe,
                         "(Softmax)");
  const auto ranged = ge::compile(mlp(), {{"ge.inputShape", "x:1~8,64"}});
  ge::test::expect_error([&] { (void)ranged->cost(Dims{{9, 64}}, speed); }, Errc::out_of_range, "x:9,64", "x:1~8,64");
}
