#pragma once
/// \file
/// Indexing by tuples: GatherND and ScatterND. Each index tuple (the last dim of indices,
/// length k) names a slice of data, copied whole: O(rank + slice) per tuple. Negative
/// indices count from the end; any other index outside its dim is an
/// `Errc::index_out_of_range`.
///
/// ```
/// ge::cpu::gather_nd(0, data, indices, y);   // y[i] = data[indices[i][0], indices[i][1], ...]
/// ge::cpu::scatter_nd(ScatterReduction::add, data, indices, updates, y);
/// ```

#include <cstdint>

#include "kernels/cpu/movement/indexing.hpp"

namespace ge::cpu {

/// y[b..., i...] = the slice of data at (b..., indices[b..., i..., :]) for `batch_dims`
/// leading dims shared by data and indices (i64); any element type. Raises
/// `Errc::bad_op_inputs` (dims), `Errc::bad_attribute` (batch_dims),
/// `Errc::index_out_of_range`, `Errc::type_mismatch`.
void gather_nd(std::int64_t batch_dims, const TensorView& data, const TensorView& indices, const TensorView& y);

/// y = data with each slice of `updates` combined into the slice of data its index tuple
/// names (later duplicates win for `none`). Replacing takes any element type; the
/// reductions f32, f64, i32, i64. Raises as `gather_nd`, and `Errc::unsupported` for a
/// reduction on another type.
void scatter_nd(ScatterReduction reduction, const TensorView& data, const TensorView& indices,
                const TensorView& updates, const TensorView& y);

}  // namespace ge::cpu
