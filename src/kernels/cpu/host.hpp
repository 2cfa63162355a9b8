#pragma once
/// \file
/// Host ops whose output size depends on the data: NonZero (two phases: count, then
/// fill) and TopK.
///
/// ```
/// const std::int64_t n = ge::cpu::nonzero_count(x);   // allocate y as [rank, n] int64
/// ge::cpu::nonzero(x, y);
/// ge::cpu::top_k({.axis = 1, .k = 5}, x, values, indices);
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// The number of non-zero elements of `x` (any numeric or bool type; NaN counts as
/// non-zero). Raises `Errc::unsupported` for `undefined`.
[[nodiscard]] std::int64_t nonzero_count(const TensorView& x);

/// NonZero: writes the indices of the non-zero elements of `x`, row-major order, into the
/// int64 `y` of dims [rank(x), nonzero_count(x)] (a scalar is rank 1: [1, count]).
/// Raises `Errc::type_mismatch`, `Errc::bad_op_inputs` (y dims), `Errc::unsupported`.
void nonzero(const TensorView& x, const TensorView& y);

/// Resolved attributes of TopK.
struct TopKParams {
  std::int64_t axis = 0;  ///< non-negative axis
  std::int64_t k = 1;     ///< how many, 0 <= k <= dims[axis]
  bool largest = true;    ///< the largest (or smallest) k
  bool sorted = true;     ///< results in order (always honoured: output is always sorted)
};

/// TopK of f32, i32 or i64 `x` along `p.axis`: `values` (x's type) and int64 `indices`,
/// both x's dims with the axis set to k, sorted best first; equal values keep the lower
/// index first; NaN is larger than every number. Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (axis, k), `Errc::bad_op_inputs` (output dims),
/// `Errc::unsupported`.
void top_k(const TopKParams& p, const TensorView& x, const TensorView& values, const TensorView& indices);

}  // namespace ge::cpu
