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
#include "ge/compile/cost.hpp"

namespace ge {

/// Measures this machine's speeds with `threads` host threads (0: every core), as a
/// `Session` with that many threads would run. Throws `Errc::invalid_argument` for
/// `threads` < 0.
[[nodiscard]] MachineSpeed calibrate(int threads = 0);

}  // namespace ge
