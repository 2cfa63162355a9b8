#include "ge/graph/graph.hpp"

#include <algorithm>

#include "ge/core/text.hpp"
#include "ge/ops/registry.hpp"
#include "ops/subgraph.hpp"

namespace ge {

namespace {
[[noreturn]] void fail(Errc code, const std::string& what) { raise(code, "[ge.graph] " + what); }
}  // namespace

std::string Graph::describe(ValueId id) const {
  const ValueInfo& v = values_[id];
  switch (v.source) {
    case ValueSource::input: return "input " + quoted(v.name);
    case ValueSource::constant: return "constant " + quoted(v.name);
    case ValueSource::node:
      return "output " + std::to_string(v.output) + " of node " + quoted(nodes_[v.producer].name) + " (" +
             nodes_[v.producer].op + ")";
    case ValueSource::none: break;
  }
  return "value " + quoted(v.name) + " (declared, not produced yet)";
}

ValueId Graph::new_value(std::string name, TensorDesc desc, ValueSource source, std::size_t producer) {
  if (name.empty()) fail(Errc::invalid_argument, "a value with an empty name; expected a non-empty name");
  if (const auto it = value_by_name_.find(name); it != value_by_name_.end())
    fail(Errc::duplicate_name, "duplicate name " + quoted(name) + ": it already names " + describe(it->second) +
                                   "; expected unique value names");
  if (values_.size() >= no_value) fail(Errc::invalid_argument, "too many values in one graph");
  const auto id = static_cast<ValueId>(values_.size());
  values_.push_back(ValueInfo{std::move(name), std::move(desc), source, producer, 0});
  value_by_name_.emplace(values_.back().name, id);
  return id;
}

ValueId Graph::add_input(std::string name, DataType dtype, Shape shape, Format format) {
  if (dtype == DataType::undefined)
    fail(Errc::invalid_argument, "input " + quoted(name) + " has type 'undefined'; expected a real data type");
  const ValueId id = new_value(name, TensorDesc{dtype, shape}, ValueSource::input, inputs_.size());
  inputs_.push_back(GraphInput{std::move(name), dtype, format, std::move(shape), inputs_.size(), id});
  return id;
}

ValueId Graph::add_constant(std::string name, Tensor tensor) {
  const ValueId id = new_value(name, tensor.desc(), ValueSource::constant, constants_.size());
  constants_.push_back(Constant{std::move(name), std::move(tensor), id});
  return id;
}

ValueId Graph::declare_value(std::string name, TensorDesc desc) {
  return new_value(std::move(name), std::move(desc), ValueSource::none, 0);
}

std::size_t Graph::add_node(std::string name, std::string op, std::vector<ValueId> inputs,
                            std::vector<ValueId> outputs, Attributes attrs) {
  if (name.empty()) fail(Errc::invalid_argument, "a node of op '" + op + "' with an empty name; expected a name");
  if (const auto it = node_by_name_.find(name); it != node_by_name_.end())
    fail(Errc::duplicate_name, "duplicate node name " + quoted(name) + ": node " + std::to_string(it->second) + " (" +
                                   nodes_[it->second].op + ") has it already; the new one is a " + op +
                                   "; expected unique node names");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] != no_value && inputs[i] >= values_.size())
      fail(Errc::bad_graph, "node " + quoted(name) + " input " + std::to_string(i) + " is value id " +
                                std::to_string(inputs[i]) + ", which does not exist; expected an id below " +
                                std::to_string(values_.size()));
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const ValueId o = outputs[k];
    if (o >= values_.size())
      fail(Errc::bad_graph, "node " + quoted(name) + " output " + std::to_string(k) + " is value id " +
                                std::to_string(o) + ", which does not exist; expected a declared value");
    if (values_[o].source != ValueSource::none)
      fail(Errc::bad_graph, "node " + quoted(name) + " output " + std::to_string(k) + " is value " +
                                quoted(values_[o].name) + ", already " + describe(o) + "; expected a value nothing produces");
    if (std::count(outputs.begin(), outputs.end(), o) > 1)
      fail(Errc::bad_graph, "node " + quoted(name) + " names value " + quoted(values_[o].name) +
                                " as two of its outputs; expected distinct outputs");
  }
  if (std::any_of(attrs.begin(), attrs.end(), [](const auto& a) { return a.second.kind() == AttrKind::graph; }))
    detail::install_subgraph_inference();
  const std::size_t index = nodes_.size();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    values_[outputs[k]].source = ValueSource::node;
    values_[outputs[k]].producer = index;
    values_[outputs[k]].output = k;
  }
  node_by_name_.emplace(name, index);
  nodes_.push_back(Node{std::move(name), std::move(op), std::move(inputs), std::move(outputs), std::move(attrs)});
  return index;
}

void Graph::add_output(ValueId value) {
  if (value >= values_.size())
    fail(Errc::bad_graph, "graph output is value id " + std::to_string(value) + ", which does not exist");
  if (std::find(outputs_.begin(), outputs_.end(), value) != outputs_.end())
    fail(Errc::bad_graph, "value " + quoted(values_[value].name) + " is already a graph output");
  outputs_.push_back(value);
}

const ValueInfo& Graph::value(ValueId id) const {
  if (id >= values_.size())
    fail(Errc::bad_graph, "value id " + std::to_string(id) + " does not exist; the graph has " +
                              std::to_string(values_.size()) + " values");
  return values_[id];
}

std::optional<ValueId> Graph::find_value(std::string_view name) const {
  const auto it = value_by_name_.find(std::string(name));
  if (it == value_by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::size_t> Graph::find_node(std::string_view name) const {
  const auto it = node_by_name_.find(std::string(name));
  if (it == node_by_name_.end()) return std::nullopt;
  return it->second;
}

const Tensor* Graph::constant_of(ValueId id) const noexcept {
  if (id >= values_.size() || values_[id].source != ValueSource::constant) return nullptr;
  return &constants_[values_[id].producer].tensor;
}

std::vector<std::size_t> Graph::topological_order() const {
  const std::size_t n = nodes_.size();
  // Node dependencies: a node waits for the nodes producing its inputs.
  std::vector<std::size_t> waiting(n, 0);
  std::vector<std::vector<std::size_t>> readers(n);
  for (std::size_t i = 0; i < n; ++i)
    for (ValueId v : nodes_[i].inputs)
      if (v != no_value && v < values_.size() && values_[v].source == ValueSource::node) {
        ++waiting[i];
        readers[values_[v].producer].push_back(i);
      }
  // Kahn's algorithm with a min-heap on the index, so that ties keep insertion order.
  std::vector<std::size_t> ready, order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push_back(i);
  std::make_heap(ready.begin(), ready.end(), std::greater<>{});
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<>{});
    const std::size_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (std::size_t r : readers[i])
      if (--waiting[r] == 0) {
        ready.push_back(r);
        std::push_heap(ready.begin(), ready.end(), std::greater<>{});
      }
  }
  if (order.size() == n) return order;
  // Walk back from a node left waiting along inputs still waiting until one repeats.
  std::size_t at = 0;
  while (waiting[at] == 0) ++at;
  std::vector<std::size_t> path;
  std::vector<std::size_t> seen_at(n, n);
  while (seen_at[at] == n) {
    seen_at[at] = path.size();
    path.push_back(at);
    for (ValueId v : nodes_[at].inputs)
      if (v != no_value && values_[v].source == ValueSource::node && waiting[values_[v].producer] != 0) {
        at = values_[v].producer;
        break;
      }
  }
  // The walk went against the data flow; print it along the flow, closing the loop.
  std::string cycle;
  for (std::size_t k = path.size(); k-- > seen_at[at];) cycle += quoted(nodes_[path[k]].name) + " -> ";
  cycle += quoted(nodes_[path.back()].name);
  fail(Errc::bad_graph, "the graph has a cycle: " + cycle + "; expected an acyclic graph");
}

void Graph::validate(const OpRegistry* ops) const {
  // Every node input is produced by something.
  for (const Node& node : nodes_)
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId v = node.inputs[i];
      if (v != no_value && values_[v].source == ValueSource::none)
        fail(Errc::bad_graph, "node " + quoted(node.name) + " (" + node.op + ") input " + std::to_string(i) +
                                  " reads value " + quoted(values_[v].name) +
                                  ", which no input, constant or node produces; expected a produced value");
    }
  const std::vector<std::size_t> order = topological_order();
  // Each node against its schema, in order, from the recorded input descriptions.
  const OpRegistry& registry = ops != nullptr ? *ops : OpRegistry::global();
  for (std::size_t index : order) {
    const Node& node = nodes_[index];
    const OpSchema* schema = registry.try_find(node.op);
    if (schema == nullptr) (void)registry.find(node.op);  // throws unknown_op with a suggestion
    std::vector<TensorDesc> in;
    std::vector<const Tensor*> consts;
    for (ValueId v : node.inputs) {
      in.push_back(v == no_value ? TensorDesc{} : values_[v].desc);
      consts.push_back(v == no_value ? nullptr : constant_of(v));
    }
    const auto out = infer_outputs(*schema, node.name, in, consts, node.attrs, node.outputs.size());
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      const ValueInfo& rec = values_[node.outputs[k]];
      if (rec.desc.dtype != out[k].dtype)
        fail(Errc::type_mismatch, "node " + quoted(node.name) + " (" + node.op + ") output " + std::to_string(k) + " " +
                                      quoted(rec.name) + " is recorded as " + std::string(to_string(rec.desc.dtype)) +
                                      "; the schema gives " + std::string(to_string(out[k].dtype)));
      if (!compatible(rec.desc.shape, out[k].shape))
        fail(Errc::incompatible_shapes, "node " + quoted(node.name) + " (" + node.op + ") output " + std::to_string(k) +
                                            " " + quoted(rec.name) + " is recorded as [" + rec.desc.shape.to_string() +
                                            "]; the schema gives [" + out[k].shape.to_string() + "]");
    }
  }
  if (outputs_.empty()) fail(Errc::bad_graph, "the graph has no output; expected at least one");
  for (ValueId v : outputs_)
    if (values_[v].source == ValueSource::none)
      fail(Errc::bad_graph, "graph output " + quoted(values_[v].name) + " is produced by nothing");
}

}  // namespace ge
