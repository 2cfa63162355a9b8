#pragma once
// Private: the working form the graph passes share (src/compile/passes.cpp,
// src/compile/fusions.cpp, src/compile/layout.cpp): a graph as editable data, rewritten in place and emitted once
// as a fresh `Graph` (inputs in order, the constants still alive, the nodes still alive
// in a topological order that keeps the working order on ties, the outputs in order).
// Settling (between passes) and emitting re-infer every node's outputs and keep the
// tighter of the recorded and the inferred description, so that a folded value's exact
// shape reaches its readers. `ge::optimize` runs every pass on one working form
// (`run_passes`): the graph is read once and emitted once.

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ge/compile/passes.hpp"
#include "ge/graph/graph.hpp"

namespace ge::detail {

[[noreturn]] void pass_fail(Errc code, const std::string& what);

struct WValue {
  std::string name;
  TensorDesc desc;
};
struct WConstant {
  Tensor tensor;
  ValueId value = no_value;
  bool alive = true;
};
struct WNode {
  std::string name;
  std::string op;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attributes attrs;
  bool alive = true;
};

// A graph as editable data. Value ids are the source graph's, then new ones appended.
struct Work {
  std::vector<WValue> values;
  std::vector<GraphInput> inputs;
  std::vector<WConstant> constants;
  std::vector<WNode> nodes;
  std::vector<ValueId> outputs;
  std::unordered_map<ValueId, std::size_t> constant_by_value;  // alive constants
  std::unordered_set<std::string> names;
  std::vector<std::size_t> order;  // the source graph's topological order of nodes

  explicit Work(const Graph& g) {
    for (const ValueInfo& v : g.values()) {
      values.push_back({v.name, v.desc});
      names.insert(v.name);
    }
    inputs = g.inputs();
    for (const Constant& c : g.constants()) {
      constant_by_value[c.value] = constants.size();
      constants.push_back({c.tensor, c.value, true});
    }
    for (const Node& n : g.nodes()) nodes.push_back({n.name, n.op, n.inputs, n.outputs, n.attrs, true});
    outputs = g.outputs();
    order = g.topological_order();
  }

  // The constant data of a value, or nullptr.
  [[nodiscard]] const Tensor* constant(ValueId v) const {
    if (v == no_value) return nullptr;
    const auto it = constant_by_value.find(v);
    return it == constant_by_value.end() ? nullptr : &constants[it->second].tensor;
  }
  [[nodiscard]] const TensorDesc& desc(ValueId v) const { return values.at(v).desc; }

  // `base`, or `base.1`, `base.2`, ... : a value name not taken yet.
  [[nodiscard]] std::string unique_name(const std::string& base) const {
    if (!names.contains(base)) return base;
    for (std::size_t i = 1;; ++i) {
      std::string n = base + "." + std::to_string(i);
      if (!names.contains(n)) return n;
    }
  }
  // A new value (a node's output to be), named `base` or the first free `base.k`.
  ValueId add_value(const std::string& base, TensorDesc desc) {
    const std::string name = unique_name(base);
    names.insert(name);
    const auto id = static_cast<ValueId>(values.size());
    values.push_back({name, std::move(desc)});
    return id;
  }
  // A new constant value.
  ValueId add_constant(const std::string& base, Tensor tensor) {
    const std::string name = unique_name(base);
    names.insert(name);
    const auto id = static_cast<ValueId>(values.size());
    values.push_back({name, tensor.desc()});
    constant_by_value[id] = constants.size();
    constants.push_back({std::move(tensor), id, true});
    return id;
  }
  // Value `v` (a node's output) becomes a constant of the same name.
  void make_constant(ValueId v, Tensor tensor) {
    values[v].desc = tensor.desc();
    constant_by_value[v] = constants.size();
    constants.push_back({std::move(tensor), v, true});
  }
  [[nodiscard]] bool is_output(ValueId v) const {
    return std::find(outputs.begin(), outputs.end(), v) != outputs.end();
  }

  // Per value: how many input slots of alive nodes read it, and the last such node.
  struct Readers {
    std::vector<std::size_t> count;
    std::vector<std::size_t> node;
  };
  [[nodiscard]] Readers readers() const {
    Readers r{std::vector<std::size_t>(values.size(), 0), std::vector<std::size_t>(values.size(), 0)};
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!nodes[i].alive) continue;
      for (const ValueId v : nodes[i].inputs)
        if (v != no_value) {
          ++r.count[v];
          r.node[v] = i;
        }
    }
    return r;
  }

  // The alive nodes in a topological order (the working order on ties) and every value's
  // description, each node's outputs re-inferred in that order (the tighter of the
  // recorded and the inferred one). Throws `Errc::internal` naming `pass` when the
  // rewrite broke the graph (a read of nothing, a cycle, an output nobody makes).
  struct Settled {
    std::vector<std::size_t> order;
    std::vector<TensorDesc> desc;
  };
  [[nodiscard]] Settled settled(std::string_view pass) const;
  // After a rewrite: `order` and the descriptions settled, for the next pass.
  void settle(std::string_view pass);
  // The graph (see the file comment). Throws `Errc::internal` when the rewrite broke it.
  [[nodiscard]] Graph emit(std::string_view pass) const;
};

// A pass on the working form.
struct WorkPass {
  const char* name;
  std::function<void(Work&, PassStats&)> run;
};

// `passes` in order on one working form made from `g`, settled after each, the graph
// emitted once; each pass's stats appended to `stats`. With `release`, the working form
// holds the only references to `g`'s weights, so that a pass dropping a constant frees it.
[[nodiscard]] Graph run_passes(Graph g, std::span<const WorkPass> passes, std::vector<PassStats>* stats, bool release);

// The passes on the working form (`ge::fold_constants` ... are `run_pass` over them).
void fold_constants(Work& w, PassStats& s);
void remove_dead_code(Work& w, PassStats& s);
void trim_conv_taps(Work& w, PassStats& s);
void fold_batch_norm(Work& w, PassStats& s, bool release);
void conv_frames(Work& w, PassStats& s);  // compile/conv_frames.cpp
void fuse_activations(Work& w, PassStats& s);
void fuse_layer_norm(Work& w, PassStats& s);
void fuse_gelu(Work& w, PassStats& s);
void fuse_matmul_epilogue(Work& w, PassStats& s);
void fuse_attention(Work& w, PassStats& s);
void layout_nhwc(Work& w, PassStats& s, bool dense_chains);
void fuse_pointwise_depthwise(Work& w, PassStats& s);
void fuse_depthwise_pointwise(Work& w, PassStats& s);
void fuse_channel_gate(Work& w, PassStats& s);  // compile/channel_gate.cpp
void fold_transposes(Work& w, PassStats& s);
void fold_qdq_pairs(Work& w, PassStats& s);     // compile/qdq.cpp
void quantize_products(Work& w, PassStats& s);  // compile/qdq.cpp

inline void report(PassStats* stats, PassStats s) {
  if (stats != nullptr) *stats = std::move(s);
}

// An attribute as set on the node, else the schema's default, else nullopt.
std::optional<Attribute> attr_of(const WNode& n, std::string_view name);


// A pass over the working form: validates `g`, lets `rewrite(work, stats)` edit it, and
// emits the graph once, with the stats.
template <class Rewrite>
[[nodiscard]] Graph run_pass(const Graph& g, PassStats* stats, const char* name, Rewrite&& rewrite) {
  g.validate();
  Work w(g);
  PassStats s{.pass = name};
  rewrite(w, s);
  Graph out = w.emit(s.pass);
  report(stats, std::move(s));
  return out;
}

}  // namespace ge::detail
