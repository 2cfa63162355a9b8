#pragma once
/// \file
/// `ge::op_flops`: the floating-point operations of one op at real dims, where known
/// (the contractions: `Conv`, `FusedConv`, `ConvTranspose`, `MatMul`, `FusedMatMul`, `Gemm`), counting
/// a multiply-add as 2. Profiles and benches divide it by time for GFLOP/s.
///
/// ```
/// std::int64_t x[] = {1, 64, 56, 56}, w[] = {64, 64, 3, 3}, y[] = {1, 64, 56, 56};
/// std::span<const std::int64_t> in[] = {x, w};
/// ge::op_flops("Conv", in, y);   // 2 * 64*56*56 * 64*3*3 = 231,211,008
/// ```

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

struct Plan;

/// The FLOPs of op `op` with inputs of dims `inputs` (an omitted optional input: an
/// empty span) and first output of dims `output`; nullopt for ops whose count is not
/// modelled, or when the dims are not what the op takes (too few inputs, wrong ranks).
/// Pure arithmetic on the dims: it never throws.
[[nodiscard]] GE_API std::optional<double> op_flops(std::string_view op,
                                                    std::span<const std::span<const std::int64_t>> inputs,
                                                    std::span<const std::int64_t> output) noexcept;

/// The FLOPs of one step of a static plan (nullopt: not modelled, or the plan is not
/// static).
[[nodiscard]] GE_API std::optional<double> step_flops(const Plan& plan, std::size_t step) noexcept;

/// The sum of `step_flops` over a static plan's steps (steps not modelled count 0);
/// nullopt for a plan whose dims are only known at run time.
[[nodiscard]] GE_API std::optional<double> plan_flops(const Plan& plan) noexcept;

}  // namespace ge
