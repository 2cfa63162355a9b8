#pragma once
// The calibration half of ge::quantize_qdq (include/ge/runtime/quantize.hpp): the sets
// checked or made, the graph run on them, each calibrated value's range recorded.
#include <cstddef>
#include <vector>

#include "ge/graph/graph.hpp"
#include "ge/runtime/quantize.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge::detail {

/// A calibrated value's range.
struct ValueRange {
  float min = 0, max = 0;
};

/// `options.calibration` checked against `graph`'s inputs (count, type, dims, data), or
/// `options.random_samples` seeded sets. Throws `bad_tensor` / `unsupported` (see
/// quantize_qdq).
[[nodiscard]] std::vector<std::vector<Tensor>> calibration_sets(const Graph& graph, const QuantizeOptions& options);

/// The range of each of `values` (f32 values of `graph`) over `sets`, by `options.method`.
[[nodiscard]] std::vector<ValueRange> calibrate(const Graph& graph, const std::vector<ValueId>& values,
                                                const std::vector<std::vector<Tensor>>& sets,
                                                const QuantizeOptions& options);

}  // namespace ge::detail
