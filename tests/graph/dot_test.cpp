// ge::to_dot: Graphviz text with op types, shapes, streams (as colours); names quoted
// and escaped; fused nodes marked with what they fused.
#include <doctest/doctest.h>

#include <string>

#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"
#include "ge/graph/dot.hpp"

namespace {
bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("to_dot shows inputs, nodes with op types, edges with shapes, outputs") {
  ge::GraphBuilder b;
  auto x = b.input("data", ge::DataType::f32, "1~8,16");
  auto w = b.random_weights("w", {16, 4}, 1);
  b.output(x.matmul(w, "mm").relu("act"));
  const ge::Graph g = b.build();
  const std::string dot = ge::to_dot(g);
  CHECK(dot.rfind("digraph \"ge\" {", 0) == 0);
  CHECK(dot.back() == '\n');
  CHECK(has(dot, "}\n"));
  CHECK(has(dot, "in0 [shape=ellipse"));
  CHECK(has(dot, "label=\"data\\nf32[1~8,16]\""));
  CHECK(has(dot, "n0 [shape=box"));
  CHECK(has(dot, "label=\"mm\\nMatMul\""));
  CHECK(has(dot, "label=\"act\\nRelu\""));
  CHECK(has(dot, "in0 -> n0 [label=\"f32[1~8,16]\"]"));
  CHECK(has(dot, "n0 -> n1 [label=\"f32[1~8,4]\"]"));
  CHECK(has(dot, "n1 -> out0"));
  CHECK_FALSE(has(dot, "c0"));  // constants hidden by default
  CHECK_FALSE(has(dot, "stream"));

  const std::string full = ge::to_dot(g, {.node_streams = {1, -1}, .show_constants = true, .name = "my \"model\""});
  CHECK(has(full, "digraph \"my \\\"model\\\"\""));
  CHECK(has(full, "c0 [shape=box, style=dashed"));
  CHECK(has(full, "c0 -> n0 [label=\"f32[16,4]\"]"));
  CHECK(has(full, "label=\"mm\\nMatMul\\nstream 1\""));
  CHECK_FALSE(has(full, "stream -1"));
}

TEST_CASE("to_dot escapes names with quotes, backslashes and newlines") {
  ge::GraphBuilder b;
  auto x = b.input("a\"b\\c\nd", ge::DataType::f32, "2");
  b.output(x.relu("r\"1"));
  const std::string dot = ge::to_dot(b.build());
  CHECK(has(dot, "label=\"a\\\"b\\\\c\\nd\\nf32[2]\""));
  CHECK(has(dot, "label=\"r\\\"1\\nRelu\""));
  // Every quote inside a label is escaped: the count of unescaped quotes is even.
  std::size_t quotes = 0;
  for (std::size_t i = 0; i < dot.size(); ++i)
    if (dot[i] == '"' && (i == 0 || dot[i - 1] != '\\')) ++quotes;
  CHECK(quotes % 2 == 0);
}

TEST_CASE("to_dot fills nodes with their stream's colour") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "4");
  b.output(x.relu("a").sigmoid("b").tanh("c"));
  const std::string dot = ge::to_dot(b.build(), {.node_streams = {0, 1, -1}});
  CHECK(ge::stream_colour(0) != ge::stream_colour(1));
  CHECK(ge::stream_colour(-1) == "#f3f4f6");
  CHECK(ge::stream_colour(3) == ge::stream_colour(13));  // the palette repeats
  CHECK(has(dot, "n0 [shape=box, style=\"rounded,filled\", fillcolor=\"" + std::string(ge::stream_colour(0)) + "\""));
  CHECK(has(dot, "n1 [shape=box, style=\"rounded,filled\", fillcolor=\"" + std::string(ge::stream_colour(1)) + "\""));
  CHECK(has(dot, "n2 [shape=box, style=\"rounded,filled\", fillcolor=\"#f3f4f6\""));
  CHECK_FALSE(has(dot, "peripheries"));  // nothing fused
}

TEST_CASE("fused_ops names what a FusedConv stands for") {
  CHECK(ge::fused_ops("FusedConv", {{"activation", "Relu"}}, true) == "Conv+Add+Relu");
  CHECK(ge::fused_ops("FusedConv", {{"activation", "Relu"}}, false) == "Conv+Relu");
  CHECK(ge::fused_ops("FusedConv", {}, true) == "Conv+Add");
  CHECK(ge::fused_ops("FusedConv", {{"activation", "Clip"}, {"clip_min", 0.0}, {"clip_max", 6.0}}, false) ==
        "Conv+Clip(0,6)");
  CHECK(ge::fused_ops("FusedConv", {{"activation", "Clip"}, {"clip_max", 6.0}}, false) == "Conv+Clip(-inf,6)");
  CHECK(ge::fused_ops("FusedConv", {{"activation", "Clip"}}, false) == "Conv+Clip");
  CHECK(ge::fused_ops("Conv", {{"activation", "Relu"}}, false).empty());
  CHECK(ge::fused_ops("Relu", {}, false).empty());
  CHECK(ge::fused_ops("FusedPointwiseDepthwise",
                      {{"pointwise_activation", "Clip"}, {"pointwise_clip_min", 0.0}, {"pointwise_clip_max", 6.0},
                       {"activation", "Relu"}},
                      true) == "Conv+Clip(0,6)+Conv+Add+Relu");
  CHECK(ge::residual_input("FusedConv") == 3);
  CHECK(ge::residual_input("FusedPointwiseDepthwise") == 5);
  CHECK(ge::residual_input("Conv") == SIZE_MAX);
}

TEST_CASE("to_dot marks the nodes fuse_activations made, with what they fused") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "1,4,8,8");
  auto y = x.conv2d(b.random_weights("w1", {4, 4, 3, 3}, 1), {.pad = 1, .name = "c1"}).relu("r1");
  auto z = y.conv2d(b.random_weights("w2", {4, 4, 3, 3}, 2), {.pad = 1, .name = "c2"});
  auto s = (z + y).relu("r2");
  auto t = s.conv2d(b.random_weights("w3", {4, 4, 1, 1}, 3), {.name = "c3"}).clip(0, 6, "r6");
  b.output(t.conv2d(b.random_weights("w4", {4, 4, 1, 1}, 4), {.name = "c4"}));
  const ge::Graph fused = ge::fuse_activations(b.build());
  const std::string dot = ge::to_dot(fused, {.node_streams = {0, 1, 0, 0}});
  CHECK(has(dot, "label=\"c1\\nFusedConv: Conv+Relu\\nstream 0\""));
  CHECK(has(dot, "label=\"c2\\nFusedConv: Conv+Add+Relu\\nstream 1\""));
  CHECK(has(dot, "label=\"c3\\nFusedConv: Conv+Clip(0,6)\\nstream 0\""));
  CHECK(has(dot, "label=\"c4\\nConv\\nstream 0\""));  // nothing after it to fuse
  CHECK(has(dot, "style=\"rounded,filled,bold\", fillcolor=\"" + std::string(ge::stream_colour(1)) +
                     "\", peripheries=2, color=\"#b45309\", label=\"c2"));
  std::size_t marked = 0;
  for (std::size_t at = dot.find("peripheries=2"); at != std::string::npos; at = dot.find("peripheries=2", at + 1)) ++marked;
  CHECK(marked == 3);
}

TEST_CASE("to_dot labels values with the descriptions given (one plan's dims)") {
  ge::GraphBuilder b;
  auto x = b.input("data", ge::DataType::f32, "1~8,16");
  b.output(x.relu("act").sigmoid("sig"));
  const ge::Graph g = b.build();
  std::vector<ge::TensorDesc> descs;
  for (const ge::ValueInfo& v : g.values()) descs.push_back({v.desc.dtype, ge::Shape::parse("4,16")});
  descs.pop_back();  // the last value keeps the graph's description
  const std::string dot = ge::to_dot(g, {.value_descs = descs});
  CHECK(has(dot, "label=\"data\\nf32[4,16]\""));
  CHECK(has(dot, "in0 -> n0 [label=\"f32[4,16]\"]"));
  CHECK(has(dot, "n1 -> out0 [label=\"f32[1~8,16]\"]"));
  CHECK_FALSE(has(dot, "1~8,16]\"]\n  n0 -> n1"));
}

TEST_CASE("to_dot draws big graphs compact: blocks as columns, shapes in the nodes") {
  // Two blocks of three nodes (names as exporters write them) and one node of its own.
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "2,8");
  auto y = x.relu("/layers/layer.0/a/Relu").sigmoid("/layers/layer.0/b/Sigmoid").tanh("/layers/layer.0/Tanh");
  y = y.relu("/layers/layer.1/a/Relu").sigmoid("/layers/layer.1/b/Sigmoid").tanh("/layers/layer.1/Tanh");
  b.output(y.abs("head"));
  const ge::Graph g = b.build();
  CHECK_FALSE(has(ge::to_dot(g), "cluster"));  // 7 nodes: drawn as before
  const std::string dot = ge::to_dot(g, {.compact_above = 5});
  CHECK(has(dot, "subgraph \"cluster_0\" {\n    label=\"/layers/layer.0\""));
  CHECK(has(dot, "subgraph \"cluster_1\" {\n    label=\"/layers/layer.1\""));
  // Inside a block a node shows the rest of its name, its op and its output; the whole name is its tooltip.
  CHECK(has(dot, "tooltip=\"/layers/layer.0/a/Relu\", label=\"a/Relu\\nRelu\\nf32[2,8]\""));
  CHECK(has(dot, "label=\"head\\nAbs\\nf32[2,8]\""));
  // The edge between the blocks does not rank; edges carry no labels.
  CHECK(has(dot, "n2 -> n3 [constraint=false];"));
  CHECK(has(dot, "n0 -> n1;"));
  CHECK(has(dot, "in0 -> n0;"));
  CHECK_FALSE(has(dot, "-> n1 [label="));
  // A block of one node is no cluster.
  CHECK_FALSE(has(dot, "label=\"head\";"));
}
