#include "ge/graph/dot.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace ge {

namespace {

// A DOT double-quoted string: backslash and quote escaped, newlines as \n.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

// A Clip bound as short text: `0`, `6`, `-inf`.
std::string bound(const Attributes& attrs, std::string_view key, std::string_view none) {
  const auto it = attrs.find(key);
  if (it == attrs.end() || (it->second.kind() != AttrKind::floating && it->second.kind() != AttrKind::integer))
    return std::string(none);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", it->second.as_float());
  return buf;
}

}  // namespace

std::string_view stream_colour(int stream) noexcept {
  static constexpr std::string_view colours[] = {"#bfdbfe", "#fed7aa", "#bbf7d0", "#fecaca", "#ddd6fe",
                                                 "#fde68a", "#a5f3fc", "#fbcfe8", "#d9f99d", "#e7e5e4"};
  if (stream < 0) return "#f3f4f6";
  return colours[static_cast<std::size_t>(stream) % std::size(colours)];
}

namespace {

// `Conv`, `+Add` for a residual, then the activation under `prefix`.
std::string conv_ops(const Attributes& attrs, bool has_residual, const std::string& prefix) {
  std::string out = "Conv";
  if (has_residual) out += "+Add";
  const auto act = attrs.find(prefix + "activation");
  if (act != attrs.end() && act->second.kind() == AttrKind::string && !act->second.as_string().empty()) {
    out += "+" + act->second.as_string();
    if (act->second.as_string() == "Clip" && (attrs.contains(prefix + "clip_min") || attrs.contains(prefix + "clip_max")))
      out += "(" + bound(attrs, prefix + "clip_min", "-inf") + "," + bound(attrs, prefix + "clip_max", "inf") + ")";
  }
  return out;
}

}  // namespace

std::string fused_ops(std::string_view op, const Attributes& attrs, bool has_residual) {
  if (op == "FusedConv") return conv_ops(attrs, has_residual, "");
  if (op == "FusedPointwiseDepthwise") return conv_ops(attrs, false, "pointwise_") + "+" + conv_ops(attrs, has_residual, "");
  if (op == "FusedDepthwisePointwise")
    return conv_ops(attrs, false, "") + "+" + conv_ops(attrs, has_residual, "pointwise_");
  return {};
}

std::size_t residual_input(std::string_view op) noexcept {
  if (op == "FusedConv") return 3;
  if (op == "FusedPointwiseDepthwise" || op == "FusedDepthwisePointwise") return 5;
  return SIZE_MAX;
}

namespace {

// The block of a node's name: the first two components of a path
// (`/encoder/layer.3/attention/self/MatMul` -> `/encoder/layer.3`), else what precedes
// the first '.' (`block3.expand` -> `block3`); empty when there is none.
std::string block_of(std::string_view name) {
  if (name.starts_with('/')) {
    const std::size_t a = name.find('/', 1);
    const std::size_t b = a == std::string_view::npos ? a : name.find('/', a + 1);
    return b == std::string_view::npos ? std::string() : std::string(name.substr(0, b));
  }
  const std::size_t dot = name.find('.');
  return dot == std::string_view::npos || dot == 0 ? std::string() : std::string(name.substr(0, dot));
}

// The value ids `to_dot` draws from: its producer's DOT id.
std::string id_of(const ValueInfo& v) {
  switch (v.source) {
    case ValueSource::input: return "in" + std::to_string(v.producer);
    case ValueSource::constant: return "c" + std::to_string(v.producer);
    case ValueSource::node: return "n" + std::to_string(v.producer);
    case ValueSource::none: break;
  }
  return {};
}

}  // namespace

std::string to_dot(const Graph& g, const DotOptions& o) {
  const bool compact = g.nodes().size() > o.compact_above;
  const auto label_of = [&](ValueId v) {
    return to_string(v < o.value_descs.size() ? o.value_descs[v] : g.values()[v].desc);
  };
  std::string out = "digraph " + quoted(o.name) + " {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
                    "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  if (compact) out += "  ranksep=0.3;\n  nodesep=0.2;\n";
  // Compact: the blocks of two or more nodes, in the order of their first node.
  std::vector<std::string> blocks;
  std::vector<int> cluster(g.nodes().size(), -1);
  if (compact) {
    std::vector<std::string> key(g.nodes().size());
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < g.nodes().size(); ++i) {
      key[i] = block_of(g.nodes()[i].name);
      if (key[i].empty()) continue;
      const auto it = std::find(blocks.begin(), blocks.end(), key[i]);
      if (it == blocks.end()) {
        blocks.push_back(key[i]);
        members.push_back(1);
      } else {
        ++members[static_cast<std::size_t>(it - blocks.begin())];
      }
    }
    std::vector<std::string> kept;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (members[b] >= 2) kept.push_back(blocks[b]);
    blocks = std::move(kept);
    for (std::size_t i = 0; i < g.nodes().size(); ++i) {
      const auto it = std::find(blocks.begin(), blocks.end(), key[i]);
      if (!key[i].empty() && it != blocks.end()) cluster[i] = static_cast<int>(it - blocks.begin());
    }
  }
  for (const GraphInput& in : g.inputs())
    out += "  in" + std::to_string(in.index) + " [shape=ellipse, style=filled, fillcolor=\"#dbeafe\", label=" +
           quoted(in.name + "\n" + label_of(in.value)) + "];\n";
  if (o.show_constants)
    for (std::size_t i = 0; i < g.constants().size(); ++i) {
      const Constant& c = g.constants()[i];
      out += "  c" + std::to_string(i) + " [shape=box, style=dashed, fontsize=8, label=" +
             quoted(c.name + "\n" + to_string(c.tensor.desc())) + "];\n";
    }
  const auto node_line = [&](std::size_t i, std::string_view indent) {
    const Node& n = g.nodes()[i];
    const std::size_t z = residual_input(n.op);
    const bool residual = z < n.inputs.size() && n.inputs[z] != no_value;
    const std::string fused = fused_ops(n.op, n.attrs, residual);
    std::string name = n.name;
    if (cluster[i] >= 0) {  // within its block: the rest of the name
      name = n.name.substr(blocks[static_cast<std::size_t>(cluster[i])].size());
      if (name.size() > 1 && (name[0] == '/' || name[0] == '.')) name.erase(0, 1);
    }
    std::string label = name + "\n" + n.op + (fused.empty() ? "" : ": " + fused);
    if (compact && !n.outputs.empty()) label += "\n" + label_of(n.outputs[0]);
    const int stream = i < o.node_streams.size() ? o.node_streams[i] : -1;
    if (stream >= 0) label += "\nstream " + std::to_string(stream);
    return std::string(indent) + "n" + std::to_string(i) + " [shape=box, style=\"rounded,filled" +
           (fused.empty() ? "" : ",bold") + "\", fillcolor=\"" + std::string(stream_colour(stream)) + "\"" +
           (fused.empty() ? "" : ", peripheries=2, color=\"#b45309\"") +
           (compact ? ", tooltip=" + quoted(n.name) : std::string()) + ", label=" + quoted(label) + "];\n";
  };
  for (std::size_t i = 0; i < g.nodes().size(); ++i)
    if (cluster[i] < 0) out += node_line(i, "  ");
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    out += "  subgraph " + quoted("cluster_" + std::to_string(b)) + " {\n    label=" + quoted(blocks[b]) +
           ";\n    style=rounded;\n    color=\"#9ca3af\";\n    fontname=\"Helvetica\";\n    fontsize=11;\n";
    for (std::size_t i = 0; i < g.nodes().size(); ++i)
      if (cluster[i] == static_cast<int>(b)) out += node_line(i, "    ");
    out += "  }\n";
  }
  // Compact: no edge labels (the producer shows its output), and an edge between two
  // blocks does not rank its ends, so that each block starts a column of its own.
  const auto edge = [&](const ValueInfo& info, ValueId v, const std::string& to, int to_cluster) {
    std::string attrs;
    if (!compact) attrs = "label=" + quoted(label_of(v));
    const int from_cluster = info.source == ValueSource::node ? cluster[info.producer] : -1;
    if (compact && from_cluster >= 0 && to_cluster >= 0 && from_cluster != to_cluster) attrs = "constraint=false";
    return "  " + id_of(info) + " -> " + to + (attrs.empty() ? "" : " [" + attrs + "]") + ";\n";
  };
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    for (ValueId v : n.inputs) {
      if (v == no_value || v >= g.values().size()) continue;
      const ValueInfo& info = g.values()[v];
      if (info.source == ValueSource::none) continue;
      if (info.source == ValueSource::constant && !o.show_constants) continue;
      out += edge(info, v, "n" + std::to_string(i), cluster[i]);
    }
  }
  for (std::size_t k = 0; k < g.outputs().size(); ++k) {
    const ValueId v = g.outputs()[k];
    const ValueInfo& info = g.values()[v];
    out += "  out" + std::to_string(k) + " [shape=ellipse, style=filled, fillcolor=\"#dcfce7\", label=" +
           quoted(info.name + (compact ? "\n" + label_of(v) : std::string())) + "];\n";
    if (info.source != ValueSource::none) out += edge(info, v, "out" + std::to_string(k), -1);
  }
  return out + "}\n";
}

}  // namespace ge
