#pragma once
/// \file
/// Outputs of one value at chosen places and another elsewhere: Hardmax, EyeLike and
/// OneHot. Each writes every output element once.
///
/// ```
/// ge::cpu::hardmax(1, x, y);                   // y[i][j] = j is the first argmax of x[i]
/// ge::cpu::eye_like(1, y);                     // ones on the diagonal above the main one
/// ge::cpu::one_hot(0, indices, depth, values, y);
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// y = 1 at the first maximum of x along `axis` (non-negative), 0 elsewhere; f32 or f64.
/// Raises `Errc::type_mismatch`, `Errc::bad_attribute` (axis), `Errc::bad_op_inputs`.
void hardmax(std::int64_t axis, const TensorView& x, const TensorView& y);

/// y (2-D, any element type) = 1 where column - row == k, 0 elsewhere. Raises
/// `Errc::rank_mismatch` unless y is 2-D.
void eye_like(std::int64_t k, const TensorView& y);

/// y = values[1] where an index (any numeric type, truncated; negative counts from the
/// end of depth) equals the position along the new axis `axis` (non-negative, at most
/// indices' rank) of length depth (a one-element numeric tensor), values[0] elsewhere;
/// an index outside [-depth, depth) gives a row of values[0]. Raises `Errc::bad_op_inputs`
/// (depth below 1, values not two elements, dims), `Errc::type_mismatch`.
void one_hot(std::int64_t axis, const TensorView& indices, const TensorView& depth, const TensorView& values,
             const TensorView& y);

/// The depth a OneHot depth tensor holds (one element, any numeric type, truncated);
/// raises `Errc::bad_op_inputs` unless it has one element of at least 1.
[[nodiscard]] std::int64_t one_hot_depth(const TensorView& depth);

}  // namespace ge::cpu
