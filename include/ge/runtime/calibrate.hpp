#pragma once
/// \file
/// `ge::calibrate`: this machine's speeds for the cost model (`CompiledModel::cost`,
/// ge/compile/cost.hpp), measured through ge's own kernels and runtime: an f32 matrix
/// product (512 x 1024 by 1024 x 1024), an element-wise Add streaming 48 MB, and a chain
/// of 200 tiny Softmax steps for the fixed cost of one. About 0.3 s; `gec calibrate -o FILE`
/// keeps the result (`MachineSpeed::to_text`) for `gec cost --calibration FILE`.
///
/// ```
/// const ge::MachineSpeed speed = ge::calibrate(2);
/// std::printf("%s\n", speed.to_text().c_str());   // gemm_gflops=... stream_gbs=... step_us=... threads=2
/// ```
///
/// `ge::learn_speed` then learns from a session's first runs (traced,
/// `SessionOptions::trace`): what each kernel's steps really took against what the three
/// rates say, so that `cost` scales that kernel's steps (a depthwise conv, which runs far
/// below the product rate the model charges it, or a Softmax over a long row).
///
/// ```
/// ge::MachineSpeed speed = ge::calibrate(2);
/// ge::Session s(model, {.threads = 2, .trace = true});
/// for (int i = 0; i < 3; ++i) ge::learn_speed(speed, *s.run(inputs).trace);
/// model->cost(other_dims, speed).expected_ms;   // the learned kernels scaled
/// ```
#include "ge/compile/cost.hpp"
#include "ge/core/api.hpp"
#include "ge/runtime/trace.hpp"

namespace ge {

/// Measures this machine's speeds with `threads` host threads (0: every core), as a
/// `Session` with that many threads would run. Throws `Errc::invalid_argument` for
/// `threads` < 0.
[[nodiscard]] GE_API MachineSpeed calibrate(int threads = 0);

/// Adds what the steps of a traced run took to `speed.kernels`, per kernel: each step's
/// kernel time (less the fixed step cost; where steps on parallel streams overlapped,
/// scaled so that they add up to the run's wall time) against the model's time for it. Learns from
/// runs of static plans (gears, fixed shapes, plans per signature); a run of a range plan
/// teaches nothing (its dims vary per step). Returns the steps learned from. Throws
/// `Errc::invalid_argument` for an uncalibrated speed or a trace without its plan.
GE_API std::size_t learn_speed(MachineSpeed& speed, const RunTrace& trace);

}  // namespace ge
