#pragma once
/// \file
/// Element-wise indexing: GatherElements and ScatterElements.
///
/// Both walk the indices once (so they cost O(rank) per index): each index names a
/// position along `axis`, the other coordinates are the index's own. Negative indices
/// count from the end; any other index outside the axis is an `Errc::index_out_of_range`.
///
/// ```
/// ge::cpu::gather_elements(1, data, indices, y);                                // y[i][j] = data[i][indices[i][j]]
/// ge::cpu::scatter_elements({.axis = 0, .reduction = ScatterReduction::add}, data, indices, updates, y);
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// How ScatterElements combines an update with the element it lands on.
enum class ScatterReduction : std::uint8_t { none, add, mul, max, min };

/// Resolved attributes of ScatterElements.
struct ScatterParams {
  std::int64_t axis = 0;                             ///< non-negative axis
  ScatterReduction reduction = ScatterReduction::none;  ///< none replaces (the last update wins)
};

/// y = data at `indices` (i32 or i64) along `axis` (non-negative), of indices' dims: any
/// element type. Raises `Errc::type_mismatch`, `Errc::bad_attribute` (axis),
/// `Errc::bad_op_inputs` (ranks, dims), `Errc::index_out_of_range`.
void gather_elements(std::int64_t axis, const TensorView& data, const TensorView& indices, const TensorView& y);

/// y = data with `updates` written at `indices` along `p.axis` (indices and updates of one
/// shape, each dim at most data's off the axis). Replacing takes any element type; the
/// reductions f32, f64, i32, i64 (integers wrap). Raises as `gather_elements`, and
/// `Errc::unsupported` for a reduction on another type.
void scatter_elements(const ScatterParams& p, const TensorView& data, const TensorView& indices,
                      const TensorView& updates, const TensorView& y);

}  // namespace ge::cpu
