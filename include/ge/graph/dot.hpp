#pragma once
/// \file
/// `ge::to_dot`: a graph as Graphviz text, so that a user can look at it
/// (`dot -Tsvg model.dot > model.svg`).
///
/// Inputs are ellipses, constants small boxes (shown when `show_constants`), nodes boxes
/// labelled with name, op type and (after compile) stream; edges carry the value's data
/// type and shape (`f32[1~8,64,56,56]`). Names are quoted and escaped, so any name is
/// valid DOT.
///
/// ```
/// std::string text = ge::to_dot(graph, {.node_streams = plan_streams});
/// ```

#include <string>
#include <vector>

#include "ge/graph/graph.hpp"

namespace ge {

/// Options of `to_dot`.
struct DotOptions {
  /// The stream of each node by node index (e.g. from a compiled plan); -1 or missing
  /// entries: none shown.
  std::vector<int> node_streams{};
  /// Draw constants (weights) as boxes; off by default, which keeps big models readable.
  bool show_constants = false;
  /// The graph's title.
  std::string name = "ge";
};

/// The Graphviz text of `graph`.
[[nodiscard]] std::string to_dot(const Graph& graph, const DotOptions& options = {});

}  // namespace ge
