// widen_half_floats: f16 and bf16 as storage types at a graph's edges. The CPU kernels
// compute in f32 (and f64); a graph that holds f16 or bf16 values between its ops (an
// f16 export, a bf16 checkpoint) computes in f32 instead: its half-float inputs and
// outputs keep their types, with one Cast at each, and everything between is f32.
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "compile/widen.hpp"
#include "ge/compile/passes.hpp"
#include "ge/core/error.hpp"
#include "kernels/cpu/movement/data_movement.hpp"

namespace ge {

namespace detail {

Tensor widened(const Tensor& t) {
  if (!t.has_data()) return Tensor::without_data(DataType::f32, t.dims());
  std::vector<std::byte> bytes(static_cast<std::size_t>(t.element_count()) * sizeof(float));
  const TensorView in{const_cast<std::byte*>(t.bytes().data()), t.dtype(), t.dims()};
  const TensorView out{bytes.data(), DataType::f32, t.dims()};
  cpu::cast(in, out);
  return Tensor(DataType::f32, t.dims(), std::move(bytes));
}

// A half type named by a string attribute (`Cast.to`, `EyeLike.dtype`, ...) becomes f32,
// and a half tensor attribute (`ConstantOfShape.value`) is widened.
Attributes widened(const Attributes& attrs) {
  Attributes out = attrs;
  for (auto& [name, a] : out) {
    if (const auto* s = std::get_if<std::string>(&a.value())) {
      if ((name == "to" || name == "dtype") && (*s == "f16" || *s == "bf16")) a = std::string("f32");
    } else if (const auto* t = std::get_if<Tensor>(&a.value())) {
      if (is_half(t->dtype())) a = widened(*t);
    }
  }
  return out;
}

}  // namespace detail

namespace {

using detail::is_half;
using detail::widened;

// True when some node other than a Cast reads or produces a half-float value: then the
// graph needs f32 kernels that it names in half types. (A Cast to or from f16 at the
// graph's edges runs as it is.)
bool computes_in_half(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (n.op == "Cast") continue;
    for (const ValueId v : n.inputs)
      if (v != no_value && is_half(g.values()[v].desc.dtype)) return true;
    for (const ValueId v : n.outputs)
      if (is_half(g.values()[v].desc.dtype)) return true;
  }
  return false;
}

// A value name not yet used in `g` nor in `taken`, from `base`.
std::string fresh_name(const Graph& g, std::unordered_set<std::string>& taken, const std::string& base) {
  std::string name = base;
  for (int k = 1; g.find_value(name) || taken.contains(name); ++k) name = base + "." + std::to_string(k);
  taken.insert(name);
  return name;
}

std::string fresh_node(const Graph& g, std::unordered_set<std::string>& taken, const std::string& base) {
  std::string name = base;
  for (int k = 1; g.find_node(name) || taken.contains(name); ++k) name = base + "." + std::to_string(k);
  taken.insert(name);
  return name;
}

}  // namespace

Graph widen_half_floats(const Graph& g, PassStats* stats) {
  g.validate();
  PassStats st{.pass = "widen_half_floats"};
  if (!computes_in_half(g)) {
    if (stats) *stats = st;
    return g;
  }
  std::unordered_set<ValueId> outputs(g.outputs().begin(), g.outputs().end());
  std::unordered_set<std::string> taken_values, taken_nodes;
  Graph out;
  std::vector<ValueId> map(g.values().size(), no_value);   // what readers read
  std::vector<ValueId> keep(g.values().size(), no_value);  // the value under its own name
  std::size_t casts = 0;
  const auto cast = [&](ValueId from, const std::string& value_base, const std::string& node_base, DataType to,
                        const Shape& shape) {
    const ValueId v = out.declare_value(fresh_name(g, taken_values, value_base), TensorDesc{to, shape});
    out.add_node(fresh_node(g, taken_nodes, node_base), "Cast", {from}, {v},
                 Attributes{{"to", std::string(to_string(to))}});
    return v;
  };

  for (const GraphInput& in : g.inputs()) {
    const ValueId v = out.add_input(in.name, in.dtype, in.shape, in.format);
    keep[in.value] = map[in.value] = v;
    if (is_half(in.dtype)) {
      map[in.value] = cast(v, in.name + ".f32", in.name + ".to_f32", DataType::f32, in.shape);
      ++casts;
    }
  }
  for (const Constant& c : g.constants()) {
    if (!is_half(c.tensor.dtype())) {
      keep[c.value] = map[c.value] = out.add_constant(c.name, c.tensor);
      continue;
    }
    if (outputs.contains(c.value)) {  // a half constant the graph returns keeps its type
      keep[c.value] = out.add_constant(c.name, c.tensor);
      map[c.value] = out.add_constant(fresh_name(g, taken_values, c.name + ".f32"), widened(c.tensor));
    } else {
      keep[c.value] = map[c.value] = out.add_constant(c.name, widened(c.tensor));
    }
    ++st.constants_added;
    ++st.constants_removed;
  }
  for (const std::size_t i : g.topological_order()) {
    const Node& n = g.nodes()[i];
    std::vector<ValueId> ins;
    for (const ValueId v : n.inputs) ins.push_back(v == no_value ? no_value : map[v]);
    // A Cast to a half type whose result the graph returns stays as it is.
    const bool edge_cast = n.op == "Cast" && n.outputs.size() == 1 && outputs.contains(n.outputs[0]);
    std::vector<ValueId> outs;
    std::vector<std::pair<ValueId, ValueId>> back;  // (f32 value, original output) for a Cast back
    for (const ValueId v : n.outputs) {
      const ValueInfo& info = g.values()[v];
      if (!is_half(info.desc.dtype) || edge_cast) {
        outs.push_back(keep[v] = map[v] = out.declare_value(info.name, info.desc));
      } else if (outputs.contains(v)) {
        const ValueId wide = out.declare_value(fresh_name(g, taken_values, info.name + ".f32"),
                                               TensorDesc{DataType::f32, info.desc.shape});
        outs.push_back(map[v] = wide);
        back.emplace_back(wide, v);
      } else {
        outs.push_back(keep[v] = map[v] = out.declare_value(info.name, TensorDesc{DataType::f32, info.desc.shape}));
      }
    }
    out.add_node(n.name, n.op, std::move(ins), std::move(outs), edge_cast ? n.attrs : widened(n.attrs));
    for (const auto& [wide, v] : back) {
      const ValueInfo& info = g.values()[v];
      keep[v] = out.declare_value(info.name, info.desc);
      out.add_node(fresh_node(g, taken_nodes, info.name + ".to_" + std::string(to_string(info.desc.dtype))), "Cast",
                   {wide}, {keep[v]}, Attributes{{"to", std::string(to_string(info.desc.dtype))}});
      ++casts;
    }
  }
  for (const ValueId v : g.outputs()) out.add_output(keep[v]);
  st.nodes_added = casts;
  try {
    out.validate();
  } catch (const Error& e) {
    raise(Errc::unsupported, std::string("[ge.passes] widen_half_floats: the graph holds f16/bf16 values between its ops, "
                                         "and computing them in f32 broke it: ") + e.what());
  }
  if (stats) *stats = st;
  return out;
}

}  // namespace ge
