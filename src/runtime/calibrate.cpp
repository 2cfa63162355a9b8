// ge::calibrate: the machine's speeds for the cost model, measured with ge's own kernels
// (see ge/runtime/calibrate.hpp).
#include "ge/runtime/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"

namespace ge {

namespace {

// The median seconds of `runs` runs of `model` on `inputs`, after one warm-up run.
double median_seconds(const std::shared_ptr<const CompiledModel>& model, std::vector<TensorView> inputs, int threads,
                      int runs) {
  Session s(model, {.threads = threads});
  // The output in memory of our own, so that the runs time the kernels, not the first
  // touches of a fresh output's pages.
  const RunResult first = s.run(inputs);
  std::vector<std::byte> out(static_cast<std::size_t>(first.outputs[0].bytes));
  const std::vector<TensorView> outputs{TensorView{out.data(), first.outputs[0].dtype, first.outputs[0].dims}};
  (void)s.run(inputs, outputs);
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)s.run(inputs, outputs);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

MachineSpeed calibrate(int threads) {
  if (threads < 0)
    raise(Errc::invalid_argument, "[ge.runtime] calibrate: threads " + std::to_string(threads) + "; expected >= 0");
  MachineSpeed speed;
  {
    constexpr std::int64_t m = 512, k = 1024, n = 1024;
    GraphBuilder b;
    b.output(b.op("MatMul", {b.input("a", DataType::f32, "512,1024"), b.random_weights("w", {k, n}, 1)}, {}, "y"));
    std::vector<float> a(static_cast<std::size_t>(m * k), 0.5f);
    const double s = median_seconds(compile(b.build()), {TensorView{a.data(), DataType::f32, {m, k}}}, threads, 7);
    speed.gemm_gflops = 2.0 * m * n * k / s / 1e9;
  }
  {
    constexpr std::int64_t n = std::int64_t{4} << 20;
    GraphBuilder b;
    b.output(b.op("Add", {b.input("a", DataType::f32, "4194304"), b.input("b", DataType::f32, "4194304")}, {}, "y"));
    std::vector<float> a(static_cast<std::size_t>(n), 1.f), c(static_cast<std::size_t>(n), 2.f);
    const double s = median_seconds(compile(b.build()),
                                    {TensorView{a.data(), DataType::f32, {n}}, TensorView{c.data(), DataType::f32, {n}}},
                                    threads, 7);
    speed.stream_gbs = 3.0 * 4.0 * static_cast<double>(n) / s / 1e9;
  }
  {
    constexpr int chain = 200;
    GraphBuilder b;
    Value v = b.input("x", DataType::f32, "16");
    // Softmax: no pass fuses a chain of them, so each is one step of the plan.
    for (int i = 0; i < chain; ++i) v = b.op("Softmax", {v});
    b.output(b.op("Identity", {v}, {}, "y"));
    std::vector<float> x(16, 1.f);
    const double s = median_seconds(compile(b.build(), {}, default_target(), {.optimize = false}),
                                    {TensorView{x.data(), DataType::f32, {16}}}, threads, 9);
    speed.step_us = s / (chain + 1) * 1e6;
  }
  speed.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return speed;
}

std::size_t learn_speed(MachineSpeed& speed, const RunTrace& trace) {
  if (!(speed.gemm_gflops > 0) || !(speed.stream_gbs > 0) || !(speed.step_us >= 0))
    raise(Errc::invalid_argument, "[ge.runtime] learn_speed: the machine speed is not calibrated (" + speed.to_text() +
                                      "); expected ge::calibrate's figures first");
  if (!trace.plan || trace.steps.size() != trace.plan->steps.size())
    raise(Errc::invalid_argument, "[ge.runtime] learn_speed: the trace has no plan, or not a step per plan step");
  const Plan& plan = *trace.plan;
  if (!plan.static_shapes) return 0;
  // Steps on parallel streams overlap (each then runs with fewer threads, and longer): their
  // times are scaled down so that they add up to no more than the run's wall time, which
  // is what the model, summing steps, stands for.
  double busy = 0;
  for (const StepTiming& t : trace.steps) busy += static_cast<double>(std::max<std::int64_t>(t.end - t.start, 0));
  const double wall = static_cast<double>(trace.end - trace.start);
  const double overlap = busy > wall && busy > 0 ? wall / busy : 1.0;
  std::size_t learned = 0;
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    const StepTiming& t = trace.steps[s];
    if (!step.kernel || t.end <= t.start) continue;
    const double took =
        std::max(static_cast<double>(t.end - t.start) * overlap * 1e-9 - speed.step_us * 1e-6, 0.0);
    KernelTimes& k = speed.kernels[std::string(step.kernel->name())];
    k.measured_s += took;
    k.modelled_s += step_seconds(plan, s, speed, false);
    ++k.steps;
    ++learned;
  }
  return learned;
}

}  // namespace ge
