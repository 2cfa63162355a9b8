// The reference interpreter: the op table, one node, a whole graph.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "support/reference.hpp"
#include "support/reference/detail.hpp"

namespace ge::ref {

using namespace detail;

namespace {

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    add_elementwise_ops(t);
    add_elementwise_math_ops(t);
    add_nn_ops(t);
    add_shape_ops(t);
    add_reduce_ops(t);
    add_indexing_ops(t);
    add_rearrange_ops(t);
    add_loss_ops(t);
    add_one_hot_ops(t);
    add_selection_ops(t);
    add_recurrent_ops(t);
    add_optimizer_ops(t);
    add_nn_more_ops(t);
    add_spectral_ops(t);
    add_quantize_ops(t);
    add_detection_ops(t);
    add_resize_ops(t);
    return t;
  }();
  return table;
}

// Whether `t` fits the description: same data type, and dims within the shape's ranges.
bool fits(const TensorDesc& d, const RefTensor& t) {
  if (d.dtype != t.dtype) return false;
  if (!d.shape.rank_known()) return true;
  if (d.shape.rank() != t.dims.size()) return false;
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    if (!d.shape.dims()[i].contains(t.dims[i])) return false;
  return true;
}

// Runs one node on its inputs (null: omitted): the op and its attributes must be
// implemented; errors name the node.
Outs run_node(const Node& node, std::vector<const RefTensor*> in) {
  const auto it = op_table().find(node.op);
  if (it == op_table().end()) fail("op '" + node.op + "' (node '" + node.name + "') is not implemented");
  for (const auto& [name, value] : node.attrs)
    if (std::find(it->second.attrs.begin(), it->second.attrs.end(), name) == it->second.attrs.end())
      fail("node '" + node.name + "' (" + node.op + "): attribute '" + name + "' is not implemented");
  try {
    return it->second.run(Ctx(node, std::move(in)));
  } catch (const std::exception& e) {
    // Helpers below the op (element access, attribute kinds) do not know the node.
    const std::string where = "node '" + node.name + "' (" + node.op + ")";
    std::string_view what = e.what();
    if (what.find(where) != std::string_view::npos) throw;
    if (what.starts_with("reference: ")) what.remove_prefix(11);
    fail(where + ": " + std::string(what));
  }
}

}  // namespace

bool implements(std::string_view op) { return op_table().contains(op); }

std::vector<std::string> implemented_ops() {
  std::vector<std::string> names;
  for (const auto& [name, impl] : op_table()) names.push_back(name);
  return names;
}

std::vector<RefTensor> run_op(std::string_view op, const std::vector<const RefTensor*>& inputs, const Attributes& attrs,
                              std::string_view name) {
  Node node;
  node.name = std::string(name);
  node.op = std::string(op);
  node.attrs = attrs;
  return run_node(node, inputs);
}

std::vector<RefTensor> run_reference(const Graph& graph, const std::vector<RefTensor>& inputs) {
  if (inputs.size() != graph.inputs().size())
    fail(std::to_string(inputs.size()) + " inputs for a graph of " + std::to_string(graph.inputs().size()));
  const auto& values = graph.values();
  std::vector<std::optional<RefTensor>> vals(values.size());
  // Uses left per value, so that a value is dropped after its last reader; graph
  // outputs keep one use that is never released.
  std::vector<std::size_t> uses(values.size(), 0);
  for (const Node& n : graph.nodes())
    for (ValueId v : n.inputs)
      if (v != no_value) ++uses[v];
  for (ValueId v : graph.outputs()) ++uses[v];

  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const GraphInput& gi = graph.inputs()[k];
    if (!fits({gi.dtype, gi.shape}, inputs[k]))
      fail("input " + std::to_string(k) + " ('" + gi.name + "') is " + inputs[k].describe() + "; the graph expects " +
           to_string(TensorDesc{gi.dtype, gi.shape}));
    vals[gi.value] = inputs[k];
  }
  // A value's tensor; constants are copied in on first use.
  const auto value_of = [&](ValueId v) -> const RefTensor& {
    if (!vals[v]) {
      const Tensor* t = graph.constant_of(v);
      if (t == nullptr) fail("value '" + values[v].name + "' is read before it is computed");
      vals[v] = RefTensor::from(*t);
    }
    return *vals[v];
  };

  for (std::size_t index : graph.topological_order()) {
    const Node& node = graph.nodes()[index];
    std::vector<const RefTensor*> in;
    for (ValueId v : node.inputs) in.push_back(v == no_value ? nullptr : &value_of(v));
    Outs outs = run_node(node, std::move(in));
    if (outs.size() < node.outputs.size())
      fail("node '" + node.name + "' (" + node.op + "): output " + std::to_string(outs.size()) + " is not implemented");
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      const ValueId v = node.outputs[k];
      if (!fits(values[v].desc, outs[k]))
        fail("node '" + node.name + "' (" + node.op + ") output " + std::to_string(k) + " ('" + values[v].name +
             "') is " + outs[k].describe() + " but the graph describes it as " + to_string(values[v].desc));
      vals[v] = std::move(outs[k]);
    }
    for (ValueId v : node.inputs)
      if (v != no_value && --uses[v] == 0) vals[v].reset();
  }
  std::vector<RefTensor> result;
  for (ValueId v : graph.outputs()) result.push_back(value_of(v));
  return result;
}

}  // namespace ge::ref
