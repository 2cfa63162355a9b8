#pragma once
// Private to src/graph and src/compile: a subgraph's values described from the
// descriptions (and constant data) its control-flow node gives its inputs.

#include <span>
#include <string_view>
#include <vector>

#include "ge/graph/graph.hpp"

namespace ge::detail {

// Per value of `g`: its description, each node inferred in order. Throws the failing
// node's error with `where` in front; bad_model for a wrong input count, a value nothing
// produces, or subgraphs nested deeper than 64.
std::vector<TensorDesc> value_descs(const Graph& g, std::span<const TensorDesc> inputs,
                                    std::span<const Tensor* const> constants, std::string_view where);

}  // namespace ge::detail
