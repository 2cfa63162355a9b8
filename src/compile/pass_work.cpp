// The passes' working form (see pass_work.hpp).
#include "compile/pass_work.hpp"

#include <functional>
#include <queue>

#include "ge/core/text.hpp"
#include "ge/ops/registry.hpp"

namespace ge::detail {

namespace {
}  // namespace

void pass_fail(Errc code, const std::string& what) { raise(code, "[ge.passes] " + what); }

std::optional<Attribute> attr_of(const WNode& n, std::string_view name) {
  return OpRegistry::global().find(n.op).attr(n.attrs, name);
}

namespace {
[[noreturn]] void broken(std::string_view pass, const std::string& what) {
  pass_fail(Errc::internal, "pass " + std::string(pass) + " produced a broken graph: " + what);
}
}  // namespace

Work::Settled Work::settled(std::string_view pass) const {
  // Kahn's algorithm over the alive nodes, smallest working index first.
  std::vector<bool> available(values.size(), false);
  for (const GraphInput& in : inputs) available[in.value] = true;
  for (const WConstant& c : constants)
    if (c.alive) available[c.value] = true;
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
      if (v == no_value || available[v]) continue;
      const auto it = producer.find(v);
      if (it == producer.end())
        broken(pass, "node " + quoted(nodes[i].name) + " reads value " + quoted(values[v].name) + ", which nothing produces");
      ++pending[i];
      readers_of[it->second].push_back(i);
    }
    if (pending[i] == 0) ready.push(i);
  }
  Settled out;
  out.desc.reserve(values.size());
  for (const WValue& v : values) out.desc.push_back(v.desc);
  const OpRegistry& registry = OpRegistry::global();
  std::vector<TensorDesc> in;
  std::vector<const Tensor*> consts;
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    const WNode& n = nodes[i];
    out.order.push_back(i);
    in.clear();
    consts.clear();
    for (const ValueId v : n.inputs) {
      in.push_back(v == no_value ? TensorDesc{} : out.desc[v]);
      consts.push_back(constant(v));
    }
    // Keep the tighter of the recorded and the inferred description.
    std::vector<TensorDesc> inferred;
    try {
      inferred = infer_outputs(registry.find(n.op), n.name, in, consts, n.attrs, n.outputs.size());
    } catch (const Error& e) {
      broken(pass, e.what());
    }
    for (std::size_t k = 0; k < n.outputs.size() && k < inferred.size(); ++k) {
      TensorDesc& d = out.desc[n.outputs[k]];
      if (inferred[k].dtype == d.dtype && compatible(d.shape, inferred[k].shape)) d.shape = merge(d.shape, inferred[k].shape);
    }
    for (const std::size_t r : readers_of[i])
      if (--pending[r] == 0) ready.push(r);
  }
  if (out.order.size() != alive) broken(pass, "the nodes form a cycle");
  for (const ValueId v : outputs)
    if (!available[v] && !producer.contains(v))
      broken(pass, "graph output " + quoted(values[v].name) + " is produced by nothing");
  return out;
}

void Work::settle(std::string_view pass) {
  Settled s = settled(pass);
  order = std::move(s.order);
  for (std::size_t v = 0; v < values.size(); ++v) values[v].desc = std::move(s.desc[v]);
}

Graph Work::emit(std::string_view pass) const {
  const Settled s = settled(pass);
  Graph g;
  std::vector<ValueId> map(values.size(), no_value);
  for (const GraphInput& in : inputs) map[in.value] = g.add_input(in.name, in.dtype, in.shape, in.format);
  for (const WConstant& c : constants)
    if (c.alive) map[c.value] = g.add_constant(values[c.value].name, c.tensor);
  for (const std::size_t i : s.order) {
    const WNode& n = nodes[i];
    std::vector<ValueId> ins, outs;
    for (const ValueId v : n.inputs) ins.push_back(v == no_value ? no_value : map[v]);
    for (const ValueId v : n.outputs) {
      map[v] = g.declare_value(values[v].name, s.desc[v]);
      outs.push_back(map[v]);
    }
    g.add_node(n.name, n.op, std::move(ins), std::move(outs), n.attrs);
  }
  for (const ValueId v : outputs) g.add_output(map[v]);
  try {
    g.validate();
  } catch (const Error& e) {
    broken(pass, e.what());
  }
  return g;
}

// The passes, run on one working form: the graph is read once and emitted once.
Graph run_passes(Graph g, std::span<const WorkPass> passes, std::vector<PassStats>* stats, bool release) {
  g.validate();
  Work w(g);
  if (release) g = Graph{};  // the Work holds the only references to the weights now
  for (const WorkPass& p : passes) {
    PassStats s{.pass = p.name};
    p.run(w, s);
    w.settle(s.pass);
    if (stats != nullptr) stats->push_back(std::move(s));
  }
  return w.emit("optimize");
}

}  // namespace ge::detail
