#pragma once
/// \file
/// What a shape will cost, before it runs: `CompiledModel::cost` (declared in
/// ge/compile/compile.hpp) with the types it uses here. Which plan serves the input dims
/// (a gear, padded to one, the range plan, or a plan per signature still to be made, with
/// the time making it takes, measured), its arena and the bytes a run holds, the padding
/// waste, the FLOPs, and the expected latency from a per-step model over this machine's
/// measured speeds (`ge::calibrate`, ge/runtime/calibrate.hpp; `gec calibrate`).
///
/// ```
/// const ge::MachineSpeed speed = ge::calibrate(2);          // about 0.3 s, once
/// std::vector<std::vector<std::int64_t>> dims{{3, 128}};
/// ge::ShapeCost c = model->cost(dims, speed, {.pad_to_gear = true});
/// // c.plan == ge::PlanKind::gear, c.gear == 1, c.padding_waste == 0.25, c.expected_ms ...
/// ```
///
/// The model: each step of the plan that would run costs the larger of its FLOPs at the
/// measured matrix-product rate and its bytes (inputs and outputs, weights included) at
/// the measured streaming rate, plus a fixed cost per step; where the first runs were
/// learned from (`learn_speed`), each kernel's steps scaled by how they really ran. A range plan is costed from
/// its steps at these dims (the plan for them is made to read them) plus the fixed cost
/// of the steps it runs beyond that plan's. `bench/dynamic.cpp` prints the estimate
/// against measured runs.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ge/compile/plan.hpp"
#include "ge/core/api.hpp"

namespace ge {

/// What the steps of one kernel took, against what the model gives them (`learn_speed`,
/// ge/runtime/calibrate.hpp: from traced runs).
struct KernelTimes {
  double measured_s = 0;   ///< the steps' kernel time, summed
  double modelled_s = 0;   ///< the model's time for the same steps (without the step cost)
  std::int64_t steps = 0;  ///< how many steps were timed
};

/// This machine's speeds, as the cost model uses them. Plain data; `to_text` and
/// `parse` give it a one-line text form (what `gec calibrate -o FILE` writes).
struct GE_API MachineSpeed {
  double gemm_gflops = 0;  ///< f32 matrix products, GFLOP/s
  double stream_gbs = 0;   ///< element-wise work, GB/s of bytes read and written
  double step_us = 0;      ///< the fixed cost of one step, microseconds
  int threads = 0;         ///< the threads they were measured with
  /// Per kernel (by its name), what its steps took in runs learned from: the model
  /// scales a step of that kernel by `measured_s / modelled_s` (a depthwise conv runs far
  /// below the product rate, a fused conv near it). Empty: the three rates alone.
  std::map<std::string, KernelTimes, std::less<>> kernels{};

  /// How much slower (> 1) or faster than the model the steps of `kernel` ran; 1 when
  /// none was learned.
  [[nodiscard]] double scale(std::string_view kernel) const;
  /// `gemm_gflops=210.5 stream_gbs=18.2 step_us=1.9 threads=2`, then one
  /// `kernel.<name>=<measured_s>/<modelled_s>/<steps>` per learned kernel.
  [[nodiscard]] std::string to_text() const;
  /// The text `to_text` writes. Throws `Errc::invalid_argument` naming what is missing
  /// or not a positive number.
  [[nodiscard]] static MachineSpeed parse(std::string_view text);
};

/// The model's seconds for step `s` of `plan` at its dims (a static plan): the larger of
/// its FLOPs at the product rate and its bytes at the streaming rate, scaled by what was
/// learned of its kernel; the fixed step cost is not included. Throws
/// `Errc::invalid_argument` for a plan without static shapes.
[[nodiscard]] GE_API double step_seconds(const Plan& plan, std::size_t s, const MachineSpeed& speed,
                                         bool learned = true);

/// How `CompiledModel::cost` picks the plan, as a session with these options would.
struct CostOptions {
  bool pad_to_gear = false;        ///< as `SessionOptions::pad_to_gear`
  bool specialize_ranges = true;   ///< as `SessionOptions::specialize_ranges` (with room in its cache)
};

/// What one set of input dims will cost.
struct ShapeCost {
  PlanKind plan = PlanKind::fixed;  ///< which kind of plan serves them
  std::int32_t gear = -1;           ///< the gear (`plan` is `gear`), else -1
  bool plan_made = true;            ///< false: a per-signature plan a session makes at its first run
  double build_ms = 0;              ///< making that plan here took this long (0 when it is made)
  double padding_waste = 0;         ///< share of the gear's input elements that are padding
  std::int64_t arena_bytes = 0;     ///< the plan's arena
  std::int64_t io_bytes = 0;        ///< the inputs' and outputs' bytes at these dims (padded where padded)
  std::int64_t total_bytes = 0;     ///< arena + io_bytes: what a run holds besides the weights
  double flops = 0;                 ///< the contractions' FLOPs the run computes (padding included)
  std::size_t steps = 0;            ///< the steps that run
  double expected_ms = 0;           ///< the cost model's latency
};

}  // namespace ge
