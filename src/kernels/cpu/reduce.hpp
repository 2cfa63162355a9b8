#pragma once
/// \file
/// Reductions: ReduceSum, ReduceMean, ReduceMax over a set of axes, and ArgMax.
///
/// The input's dims are grouped into runs of kept and reduced axes; a reduction over the
/// trailing axes sums contiguous rows, one over leading or middle axes adds whole rows of
/// the kept inner axes at a time (both vectorised), and outputs are split across threads.
///
/// ```
/// ge::cpu::reduce({.op = ge::cpu::ReduceOp::mean, .axes = {2, 3}}, x, y);  // y [N, C, 1, 1] or [N, C]
/// ge::cpu::arg_max({.axis = 1}, x, y);                                    // int64 indices
/// ```

#include <cstdint>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Which reduction.
enum class ReduceOp : std::uint8_t {
  sum,   ///< ReduceSum (f32, i32, i64)
  mean,  ///< ReduceMean (f32; i32, i64 truncating)
  max,   ///< ReduceMax (f32, i32, i64)
};

/// Resolved attributes of a Reduce op. Keepdims only shapes `y.dims`.
struct ReduceParams {
  ReduceOp op = ReduceOp::sum;     ///< which reduction
  std::vector<std::int64_t> axes{};  ///< distinct non-negative axes; empty reduces nothing (a copy)
};

/// Reduces `x` over `p.axes` into `y`, whose dims are x's with the reduced axes either
/// set to 1 (keepdims) or removed. Reducing an empty axis gives 0 (sum), NaN (mean) or
/// the lowest value (max). Raises `Errc::type_mismatch`, `Errc::unsupported`,
/// `Errc::bad_attribute` (axes out of range or repeated), `Errc::bad_op_inputs` (y dims).
void reduce(const ReduceParams& p, const TensorView& x, const TensorView& y);

/// Resolved attributes of ArgMax.
struct ArgMaxParams {
  std::int64_t axis = 0;           ///< non-negative axis
  bool select_last_index = false;  ///< on ties, the last index instead of the first
};

/// ArgMax of f32, i32 or i64 `x` along `p.axis` into int64 `y` (x's dims with the axis set
/// to 1 or removed). NaN counts as the largest value. Raises `Errc::type_mismatch`,
/// `Errc::unsupported`, `Errc::bad_attribute`, `Errc::bad_op_inputs` (y dims, empty axis).
void arg_max(const ArgMaxParams& p, const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
