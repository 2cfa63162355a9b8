#pragma once
// Private to src/onnx: what a subgraph (If's branches, Loop's and Scan's body) reads
// from the graphs around it. ONNX lets a subgraph name any value of an enclosing graph;
// ge makes those reads explicit: an outer constant is copied into the subgraph, any
// other outer value becomes one of its last inputs and an input of the node.

#include <string>
#include <utility>
#include <vector>

#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"
#include "onnx/convert.hpp"

namespace ge::onnx::detail {

// What a subgraph reads from outside, as its importer adds it.
struct Scope {
  // What the node gives the subgraph's own inputs (Loop's body: iteration, cond, the
  // carried values), for inputs the file declares without a type (ONNX allows that).
  std::vector<TensorDesc> formal;
  std::vector<std::pair<std::string, TensorDesc>> captured;  // its last inputs, in this order
  std::vector<std::pair<std::string, Tensor>> constants;     // its own constants
};

// The names `g` reads that it does not make (its nodes' inputs, what its own subgraphs
// read, its outputs), each once, in the order first read. Subgraphs nested deeper than
// 64 are a bad_model.
std::vector<std::string> outer_reads(const ::onnx::GraphProto& g);

// What a Loop or Scan node gives its body's own inputs (Loop: iteration, cond, the
// carried values; Scan: the states and one slice of each scan input), any dims where
// they may change; `inputs` the node's own inputs (undefined where omitted). Empty for
// other ops.
std::vector<TensorDesc> formal_inputs(const std::string& op, const Attributes& attrs,
                                      const std::vector<TensorDesc>& inputs);

}  // namespace ge::onnx::detail
