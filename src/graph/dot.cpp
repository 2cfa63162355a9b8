#include "ge/graph/dot.hpp"

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

std::string value_label(const ValueInfo& v) { return to_string(v.desc); }

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
  return {};
}

std::size_t residual_input(std::string_view op) noexcept {
  if (op == "FusedConv") return 3;
  if (op == "FusedPointwiseDepthwise") return 5;
  return SIZE_MAX;
}

std::string to_dot(const Graph& g, const DotOptions& o) {
  std::string out = "digraph " + quoted(o.name) + " {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
                    "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  const auto id_of = [&](const ValueInfo& v) -> std::string {
    switch (v.source) {
      case ValueSource::input: return "in" + std::to_string(v.producer);
      case ValueSource::constant: return "c" + std::to_string(v.producer);
      case ValueSource::node: return "n" + std::to_string(v.producer);
      case ValueSource::none: break;
    }
    return {};
  };
  for (const GraphInput& in : g.inputs())
    out += "  in" + std::to_string(in.index) + " [shape=ellipse, style=filled, fillcolor=\"#dbeafe\", label=" +
           quoted(in.name + "\n" + value_label(g.values()[in.value])) + "];\n";
  if (o.show_constants)
    for (std::size_t i = 0; i < g.constants().size(); ++i) {
      const Constant& c = g.constants()[i];
      out += "  c" + std::to_string(i) + " [shape=box, style=dashed, fontsize=8, label=" +
             quoted(c.name + "\n" + to_string(c.tensor.desc())) + "];\n";
    }
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    const std::size_t z = residual_input(n.op);
    const bool residual = z < n.inputs.size() && n.inputs[z] != no_value;
    const std::string fused = fused_ops(n.op, n.attrs, residual);
    std::string label = n.name + "\n" + n.op + (fused.empty() ? "" : ": " + fused);
    const int stream = i < o.node_streams.size() ? o.node_streams[i] : -1;
    if (stream >= 0) label += "\nstream " + std::to_string(stream);
    out += "  n" + std::to_string(i) + " [shape=box, style=\"rounded,filled" + (fused.empty() ? "" : ",bold") +
           "\", fillcolor=\"" + std::string(stream_colour(stream)) + "\"" +
           (fused.empty() ? "" : ", peripheries=2, color=\"#b45309\"") + ", label=" + quoted(label) + "];\n";
  }
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    for (ValueId v : n.inputs) {
      if (v == no_value || v >= g.values().size()) continue;
      const ValueInfo& info = g.values()[v];
      if (info.source == ValueSource::none) continue;
      if (info.source == ValueSource::constant && !o.show_constants) continue;
      out += "  " + id_of(info) + " -> n" + std::to_string(i) + " [label=" + quoted(value_label(info)) + "];\n";
    }
  }
  for (std::size_t k = 0; k < g.outputs().size(); ++k) {
    const ValueInfo& info = g.values()[g.outputs()[k]];
    out += "  out" + std::to_string(k) + " [shape=ellipse, style=filled, fillcolor=\"#dcfce7\", label=" +
           quoted(info.name) + "];\n";
    if (info.source != ValueSource::none)
      out += "  " + id_of(info) + " -> out" + std::to_string(k) + " [label=" + quoted(value_label(info)) + "];\n";
  }
  return out + "}\n";
}

}  // namespace ge
