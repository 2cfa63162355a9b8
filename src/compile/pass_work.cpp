// The passes' working form (see pass_work.hpp).
#include "compile/pass_work.hpp"

#include <functional>
#include <queue>

#include "ge/ops/registry.hpp"

namespace ge::detail {

namespace {
std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }
}  // namespace

void pass_fail(Errc code, const std::string& what) { raise(code, "[ge.passes] " + what); }

std::optional<Attribute> attr_of(const WNode& n, std::string_view name) {
  return OpRegistry::global().find(n.op).attr(n.attrs, name);
}

Graph Work::emit(std::string_view pass) const {
  const auto broken = [&](const std::string& what) {
    pass_fail(Errc::internal, "pass " + std::string(pass) + " produced a broken graph: " + what);
  };
  Graph g;
  std::vector<ValueId> map(values.size(), no_value);
  for (const GraphInput& in : inputs) map[in.value] = g.add_input(in.name, in.dtype, in.shape, in.format);
  for (const WConstant& c : constants)
    if (c.alive) map[c.value] = g.add_constant(values[c.value].name, c.tensor);

  // Kahn's algorithm over the alive nodes, smallest working index first.
  std::unordered_map<ValueId, std::size_t> producer;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].alive)
      for (const ValueId v : nodes[i].outputs) producer[v] = i;
  std::vector<std::size_t> pending(nodes.size(), 0);
  std::vector<std::vector<std::size_t>> readers_of(nodes.size());
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  std::size_t alive = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].alive) continue;
    ++alive;
    for (const ValueId v : nodes[i].inputs) {
      if (v == no_value || map[v] != no_value) continue;
      const auto it = producer.find(v);
      if (it == producer.end())
        broken("node " + q(nodes[i].name) + " reads value " + q(values[v].name) + ", which nothing produces");
      ++pending[i];
      readers_of[it->second].push_back(i);
    }
    if (pending[i] == 0) ready.push(i);
  }
  const OpRegistry& registry = OpRegistry::global();
  std::size_t emitted = 0;
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    const WNode& n = nodes[i];
    std::vector<TensorDesc> in;
    std::vector<const Tensor*> consts;
    std::vector<ValueId> ins;
    for (const ValueId v : n.inputs) {
      ins.push_back(v == no_value ? no_value : map[v]);
      in.push_back(v == no_value ? TensorDesc{} : g.value(map[v]).desc);
      consts.push_back(v == no_value ? nullptr : g.constant_of(map[v]));
    }
    // Keep the tighter of the recorded and the inferred description.
    std::vector<TensorDesc> inferred;
    try {
      inferred = infer_outputs(registry.find(n.op), n.name, in, consts, n.attrs, n.outputs.size());
    } catch (const Error& e) {
      broken(e.what());
    }
    std::vector<ValueId> outs;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      TensorDesc d = values[n.outputs[k]].desc;
      if (k < inferred.size() && inferred[k].dtype == d.dtype && compatible(d.shape, inferred[k].shape))
        d.shape = merge(d.shape, inferred[k].shape);
      map[n.outputs[k]] = g.declare_value(values[n.outputs[k]].name, d);
      outs.push_back(map[n.outputs[k]]);
    }
    g.add_node(n.name, n.op, std::move(ins), std::move(outs), n.attrs);
    ++emitted;
    for (const std::size_t r : readers_of[i])
      if (--pending[r] == 0) ready.push(r);
  }
  if (emitted != alive) broken("the nodes form a cycle");
  for (const ValueId v : outputs) {
    if (map[v] == no_value) broken("graph output " + q(values[v].name) + " is produced by nothing");
    g.add_output(map[v]);
  }
  try {
    g.validate();
  } catch (const Error& e) {
    broken(e.what());
  }
  return g;
}

}  // namespace ge::detail
