#pragma once
/// \file
/// `ge::cpu_isa()`: the instruction set the CPU kernels dispatch to in this process.
///
/// ```
/// std::printf("kernels: %s\n", std::string(ge::cpu_isa()).c_str());  // e.g. "avx512+amx"
/// ```

#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// The widest instruction set the CPU kernels use in this process: `"baseline"` (x86-64,
/// SSE2), `"avx2"` (AVX2 + FMA) or `"avx512"` (F, DQ, BW, VL), with `"+amx"` appended
/// where the bf16 kernels (`Precision::bf16`) run on AMX tiles, `"+bf16"` where they run
/// on AVX512-BF16 dot products without AMX. It is what the CPU has, capped
/// by the environment variable `GE_CPU_ISA` (`baseline`, `avx2` or `avx512`, read once;
/// another value is logged at warn level and ignored).
/// Model files record it: weights packed for one ISA load only where the kernels run it.
[[nodiscard]] GE_API std::string_view cpu_isa() noexcept;

}  // namespace ge
