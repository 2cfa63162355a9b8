// Specialising a compiled graph for one set of input shapes (see specialize.hpp).
#include "compile/specialize.hpp"

#include "compile/fold.hpp"
#include "ge/ops/registry.hpp"

namespace ge::detail {

Specialized specialize(const Graph& g, const std::vector<Shape>& input_shapes, const std::vector<std::size_t>& order,
                       bool fold) {
  Specialized sp;
  const std::size_t nv = g.values().size();
  sp.desc.resize(nv);
  sp.folded.resize(nv);
  sp.live.assign(g.nodes().size(), false);
  sp.new_constants.assign(g.nodes().size(), false);
  for (std::size_t i = 0; i < g.inputs().size(); ++i) sp.desc[g.inputs()[i].value] = {g.inputs()[i].dtype, input_shapes[i]};
  for (const Constant& c : g.constants()) sp.desc[c.value] = c.tensor.desc();

  const OpRegistry& ops = OpRegistry::global();
  std::vector<TensorDesc> in, recorded;
  std::vector<const Tensor*> constants;
  std::vector<bool> evaluated(g.nodes().size(), false);
  for (const std::size_t n : order) {
    const Node& node = g.nodes()[n];
    const OpSchema& schema = ops.find(node.op);
    in.assign(node.inputs.size(), TensorDesc{});
    constants.assign(node.inputs.size(), nullptr);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId v = node.inputs[i];
      if (v == no_value) continue;
      in[i] = sp.desc[v];
      if (sp.folded[v]) {
        constants[i] = &*sp.folded[v];
        sp.new_constants[n] = true;
      } else {
        constants[i] = g.constant_of(v);
      }
    }
    if (fold) {
      std::optional<std::vector<Tensor>> out;
      if (node.op == "Shape" && node.inputs.size() == 1 && node.outputs.size() == 1) {
        if (auto t = shape_constant(node.attrs, in[0].shape)) out = std::vector<Tensor>{std::move(*t)};
      } else if (sp.new_constants[n] && all_inputs_constant(constants, in)) {
        recorded.clear();
        for (const ValueId v : node.outputs) recorded.push_back(g.values()[v].desc);
        out = evaluate({schema, node.name, in, constants, node.attrs, node.outputs.size(), recorded});
      }
      if (out && out->size() == node.outputs.size()) {
        for (std::size_t o = 0; o < node.outputs.size(); ++o) {
          sp.desc[node.outputs[o]] = (*out)[o].desc();
          sp.folded[node.outputs[o]] = std::move((*out)[o]);
        }
        evaluated[n] = true;
        ++sp.folded_nodes;
        continue;
      }
    }
    auto out = infer_outputs(schema, node.name, in, constants, node.attrs, node.outputs.size());
    for (std::size_t o = 0; o < node.outputs.size(); ++o) sp.desc[node.outputs[o]] = std::move(out[o]);
  }

  // Live nodes: those some graph output needs, through values not folded.
  std::vector<std::size_t> producer(nv, g.nodes().size());
  for (std::size_t n = 0; n < g.nodes().size(); ++n)
    for (const ValueId v : g.nodes()[n].outputs) producer[v] = n;
  std::vector<ValueId> stack(g.outputs().begin(), g.outputs().end());
  std::vector<bool> seen(nv, false);
  while (!stack.empty()) {
    const ValueId v = stack.back();
    stack.pop_back();
    if (seen[v] || sp.folded[v]) continue;
    seen[v] = true;
    const std::size_t n = producer[v];
    if (n == g.nodes().size() || evaluated[n] || sp.live[n]) continue;
    sp.live[n] = true;
    for (const ValueId u : g.nodes()[n].inputs)
      if (u != no_value) stack.push_back(u);
  }
  return sp;
}

}  // namespace ge::detail
