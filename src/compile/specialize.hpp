#pragma once
// Private: a compiled graph specialised for one set of input shapes (a gear, a range, one
// real input signature). Shapes are propagated from the inputs; every node whose inputs
// are then all known (a `Shape` of static dims, shape arithmetic on such values: Gather,
// Unsqueeze, Concat, Cast, Add, Mul, Div ..., ConstantOfShape, Range) is evaluated now and
// its outputs become constants of the plan; nodes that no graph output needs any more
// are dropped. The graph itself is not changed: one compiled graph serves every plan,
// with its weights and kernels shared.

#include <cstddef>
#include <optional>
#include <vector>

#include "ge/graph/graph.hpp"

namespace ge::detail {

struct Specialized {
  std::vector<TensorDesc> desc;               ///< per value of the graph
  std::vector<std::optional<Tensor>> folded;  ///< per value: data computed for this plan
  std::vector<bool> live;                     ///< per node: runs in this plan
  std::vector<bool> new_constants;            ///< per node: reads a value folded for this plan
  std::size_t folded_nodes = 0;               ///< nodes evaluated at compile time
};

/// Specialises `g` for `input_shapes` (one per graph input), visiting nodes in `order`
/// (a topological order). With `fold` false, only the shapes are propagated.
[[nodiscard]] Specialized specialize(const Graph& g, const std::vector<Shape>& input_shapes,
                                     const std::vector<std::size_t>& order, bool fold);

}  // namespace ge::detail
