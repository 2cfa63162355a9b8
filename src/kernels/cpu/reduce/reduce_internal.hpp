#pragma once
// Shared between the reduction kernels: the reductions other than sum, mean and max,
// run after `reduce` has checked x, y and the axes.
#include <bitset>
#include <string_view>

#include "kernels/cpu/common.hpp"

#include "kernels/cpu/reduce/reduce.hpp"

namespace ge::cpu::detail {

/// Which axes of x a reduction reduces (held in place: a run allocates nothing).
using ReducedAxes = std::bitset<SmallDims::kMax>;

/// Reduces x over the axes marked in `reduced` into y (checked dims and type) for the ops
/// other than sum, mean and max.
void reduce_math(std::string_view name, ReduceOp op, const TensorView& x, const ReducedAxes& reduced, const TensorView& y);

}  // namespace ge::cpu::detail
