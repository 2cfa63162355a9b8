#pragma once
/// \file
/// `ge::to_dot`: a graph as Graphviz text, so that a user can look at it
/// (`dot -Tsvg model.dot > model.svg`).
///
/// Inputs are ellipses, constants small boxes (shown when `show_constants`), nodes boxes
/// labelled with name, op type and (after compile) stream; edges carry the value's data
/// type and shape (`f32[1~8,64,56,56]`, or a plan's dims: `value_descs`). Names are
/// quoted and escaped, so any name is valid DOT. Big graphs (`compact_above`) are drawn
/// as columns of blocks.
///
/// With `node_streams`, a node is filled with its stream's colour (stream 0 blue, 1
/// orange, 2 green, ...; grey without a stream). A node made by a fusion pass (`FusedConv`)
/// says what it stands for (`FusedConv: Conv+Add+Relu`) and has a bold double border.
///
/// ```
/// std::string text = ge::to_dot(graph, {.node_streams = plan_streams});
/// ```

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
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
  /// The description shown for each value, by `ValueId` (e.g. one plan's static dims,
  /// as `gec compile --dot --gear N` gives); empty, or a value past its end: the graph's.
  std::vector<TensorDesc> value_descs{};
  /// Graphs of more nodes than this are drawn compact, for 100s of nodes: each block
  /// (nodes whose names share a prefix: `/encoder/layer.3` of
  /// `/encoder/layer.3/attention/self/MatMul`, `block3` of `block3.expand`) is a
  /// cluster laid out as its own column (edges between blocks do not rank their nodes),
  /// a node shows its name within its block and its first output's description (the
  /// full name is its tooltip), and edges carry no labels. `SIZE_MAX`: never.
  std::size_t compact_above = 60;
};

/// The Graphviz text of `graph`.
[[nodiscard]] GE_API std::string to_dot(const Graph& graph, const DotOptions& options = {});

/// The fill colour `to_dot` gives stream `stream` (`#rrggbb`; streams past the palette's
/// end repeat it); grey (`#f3f4f6`) for -1.
[[nodiscard]] GE_API std::string_view stream_colour(int stream) noexcept;

/// What a node made by a fusion pass stands for, as the fused op types joined by `+`;
/// empty for any other op. A `FusedConv` (see `ge::fuse_activations`) is `Conv`, then
/// `Add` when it has the residual input (`has_residual`), then its `activation`
/// attribute: `Relu`, or `Clip` with its bounds when set (`Clip(0,6)`). A
/// `FusedPointwiseDepthwise` (see `ge::fuse_pointwise_depthwise`) is its pointwise conv
/// so, then its depthwise one (`Conv+Clip(0,6)+Conv+Clip(0,6)`). `residual_input` gives
/// the input slot of the residual of either.
///
/// ```
/// ge::fused_ops("FusedConv", {{"activation", "Relu"}}, true);   // "Conv+Add+Relu"
/// ge::fused_ops("Relu", {}, false);                             // ""
/// ```
[[nodiscard]] GE_API std::string fused_ops(std::string_view op, const Attributes& attrs, bool has_residual);

/// The input slot of a fused conv's residual (`Z`): 3 for `FusedConv`, 5 for
/// `FusedPointwiseDepthwise`; none (`SIZE_MAX`) for other ops.
[[nodiscard]] GE_API std::size_t residual_input(std::string_view op) noexcept;

}  // namespace ge
