#pragma once
// Shared between the reduction kernels: the reductions other than sum, mean and max,
// run after `reduce` has checked x, y and the axes.
#include <string_view>
#include <vector>

#include "kernels/cpu/reduce.hpp"

namespace ge::cpu::detail {

/// Reduces x over the axes marked in `reduced` into y (checked dims and type) for the ops
/// other than sum, mean and max.
void reduce_math(std::string_view name, ReduceOp op, const TensorView& x, const std::vector<bool>& reduced, const TensorView& y);

}  // namespace ge::cpu::detail
