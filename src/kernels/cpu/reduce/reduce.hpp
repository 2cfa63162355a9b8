#pragma once
/// \file
/// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare,
/// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp over a set of axes; ArgMax, ArgMin; CumSum.
///
/// The input's dims are grouped into runs of kept and reduced axes; a reduction over the
/// trailing axes sums contiguous rows, one over leading or middle axes adds whole rows of
/// the kept inner axes at a time (both vectorised), and outputs are split across threads.
/// The other reductions walk the input once in order, accumulating into the output slot
/// of each element (ReduceLogSumExp twice: the maximum first, for a stable sum).
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
  min,          ///< ReduceMin (f32, f64, i32, i64)
  prod,         ///< ReduceProd (f32, f64, i32, i64; integers wrap)
  sum_square,   ///< ReduceSumSquare (f32, f64, i32, i64; integers wrap)
  l1,           ///< ReduceL1: the sum of magnitudes (f32, f64, i32, i64)
  l2,           ///< ReduceL2: the root of the sum of squares (f32, f64)
  log_sum,      ///< ReduceLogSum: the log of the sum (f32, f64)
  log_sum_exp,  ///< ReduceLogSumExp: the log of the sum of exponentials (f32, f64)
};

/// Resolved attributes of a Reduce op. Keepdims only shapes `y.dims`.
struct ReduceParams {
  ReduceOp op = ReduceOp::sum;     ///< which reduction
  std::vector<std::int64_t> axes{};  ///< distinct non-negative axes; empty reduces nothing (a copy)
};

/// Reduces `x` over `p.axes` into `y`, whose dims are x's with the reduced axes either
/// set to 1 (keepdims) or removed. Reducing an empty axis gives 0 (sum, sum_square, l1,
/// l2), NaN (mean), the lowest value (max), the highest (min), 1 (prod) or -inf (log_sum,
/// log_sum_exp). Raises `Errc::type_mismatch`, `Errc::unsupported`,
/// `Errc::bad_attribute` (axes out of range or repeated), `Errc::bad_op_inputs` (y dims).
void reduce(const ReduceParams& p, const TensorView& x, const TensorView& y);

/// Resolved attributes of ArgMax and ArgMin.
struct ArgMaxParams {
  std::int64_t axis = 0;           ///< non-negative axis
  bool select_last_index = false;  ///< on ties, the last index instead of the first
  bool min = false;                ///< ArgMin: the index of the smallest entry
};

/// ArgMax (ArgMin with `p.min`) of f32, i32 or i64 `x` along `p.axis` into int64 `y` (x's
/// dims with the axis set to 1 or removed). A NaN wins over any number either way. Raises `Errc::type_mismatch`,
/// `Errc::unsupported`, `Errc::bad_attribute`, `Errc::bad_op_inputs` (y dims, empty axis).
void arg_max(const ArgMaxParams& p, const TensorView& x, const TensorView& y);

/// Resolved attributes of CumSum.
struct CumSumParams {
  std::int64_t axis = 0;   ///< non-negative axis
  bool exclusive = false;  ///< each sum leaves out its own element
  bool reverse = false;    ///< sums run from the end of the axis
};

/// Running sums of f32, f64, i32 or i64 `x` along `p.axis` into `y` (x's dims and type;
/// integers wrap). Raises `Errc::type_mismatch`, `Errc::unsupported`, `Errc::bad_attribute`
/// (axis outside x), `Errc::bad_op_inputs` (y dims).
void cum_sum(const CumSumParams& p, const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
