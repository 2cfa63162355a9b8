#pragma once
// Private to src/ops and src/graph: how the control-flow ops (If, Loop, Scan) infer what
// their subgraphs give. A subgraph is a ge::Graph, which the ops layer only names: the
// graph layer, which can walk one, installs the rule (src/graph/subgraph.cpp) before
// any graph exists.

#include <span>
#include <string_view>
#include <vector>

#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge::detail {

// The descriptions of `g`'s outputs when its inputs are `inputs` (constants: per input,
// its data where known, else null; may be empty). Throws the inner node's error with
// `where` (e.g. "then_branch of node 'If_3'") in front.
using SubgraphInference = std::vector<TensorDesc> (*)(const Graph& g, std::span<const TensorDesc> inputs,
                                                      std::span<const Tensor* const> constants, std::string_view where);

void set_subgraph_inference(SubgraphInference rule) noexcept;
// Installs the graph layer's rule (src/graph/subgraph.cpp); Graph::add_node calls it for
// every node that holds a graph.
void install_subgraph_inference() noexcept;

// The installed rule applied; Errc::internal when none is installed.
std::vector<TensorDesc> infer_subgraph(const Graph& g, std::span<const TensorDesc> inputs,
                                       std::span<const Tensor* const> constants, std::string_view where);

}  // namespace ge::detail
