// Graph passes: constant folding, dead code removal, BatchNormalization folding, and
// Conv + residual Add + activation fusion into FusedConv.
//
// Each pass copies the graph into a `Work` (values, inputs, constants and nodes as
// editable data), rewrites it, and emits a fresh `Graph`: inputs in order, the constants
// still alive, the nodes still alive in a topological order (stable: ties keep the
// working order), the outputs in order. Emitting re-infers every node's outputs and
// keeps the tighter of the recorded and inferred descriptions, so that a folded value's
// exact shape reaches its readers.
#include "ge/compile/passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/ops/registry.hpp"

namespace ge {

namespace {

[[noreturn]] void fail(Errc code, const std::string& what) { raise(code, "[ge.passes] " + what); }
std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }

/// Outputs of a node bigger than this (all together) are not folded.
constexpr std::int64_t max_fold_bytes = std::int64_t{64} << 20;

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

  // The graph: see the file comment. Throws `Errc::internal` when the rewrite broke it.
  [[nodiscard]] Graph emit(std::string_view pass) const {
    const auto broken = [&](const std::string& what) {
      fail(Errc::internal, "pass " + std::string(pass) + " produced a broken graph: " + what);
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
};

void report(PassStats* stats, PassStats s) {
  if (stats != nullptr) *stats = std::move(s);
}

// An attribute as set on the node, else the schema's default, else nullopt.
std::optional<Attribute> attr_of(const WNode& n, std::string_view name) {
  if (const auto it = n.attrs.find(name); it != n.attrs.end()) return it->second;
  const OpSchema& s = OpRegistry::global().find(n.op);
  for (const AttrSpec& a : s.attrs)
    if (a.name == name) return a.default_value;
  return std::nullopt;
}

// ---- constant folding ---------------------------------------------------------------

// The output of a Shape node: dims[start, end) of its input as i64, when the input's
// rank is known and those dims are static.
std::optional<Tensor> shape_constant(const WNode& n, const Shape& shape) {
  if (!shape.rank_known()) return std::nullopt;
  const auto r = static_cast<std::int64_t>(shape.rank());
  const auto clampi = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
  const auto start = attr_of(n, "start");
  const auto end = attr_of(n, "end");
  const std::int64_t b = clampi(start ? start->as_int() : 0);
  const std::int64_t e = end ? clampi(end->as_int()) : r;
  std::vector<std::int64_t> v;
  for (std::int64_t i = b; i < e; ++i) {
    const Dim& d = shape.dims()[static_cast<std::size_t>(i)];
    if (!d.is_static()) return std::nullopt;
    v.push_back(d.value());
  }
  return Tensor::from<std::int64_t>({static_cast<std::int64_t>(v.size())}, v);
}

// Runs node `n` on its constant inputs with the CPU kernel that compile would pick.
// nullopt when its outputs are too big or unbounded, no kernel fits, or it fails.
std::optional<std::vector<Tensor>> evaluate(const Work& w, const WNode& n) {
  try {
    const OpSchema& schema = OpRegistry::global().find(n.op);
    std::vector<TensorDesc> descs;
    std::vector<const Tensor*> consts;
    for (const ValueId v : n.inputs) {
      descs.push_back(v == no_value ? TensorDesc{} : w.desc(v));
      consts.push_back(w.constant(v));
    }
    const std::vector<TensorDesc> out = infer_outputs(schema, n.name, descs, consts, n.attrs, n.outputs.size());
    // The worst case of every output, within the limit.
    std::int64_t total = 0;
    std::vector<std::vector<std::int64_t>> cap(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      Shape s = out[k].shape;
      if (k < n.outputs.size() && compatible(s, w.desc(n.outputs[k]).shape)) s = merge(s, w.desc(n.outputs[k]).shape);
      if (!s.rank_known() || !s.is_bounded()) return std::nullopt;
      cap[k] = upper_bound(s).values();
      std::int64_t count = 1;
      for (const std::int64_t d : cap[k]) {
        if (d != 0 && count > max_fold_bytes / d) return std::nullopt;
        count *= d;
      }
      total += count * size_of(out[k].dtype);
      if (total > max_fold_bytes) return std::nullopt;
    }
    Attributes attrs = n.attrs;
    for (const AttrSpec& a : schema.attrs)
      if (a.default_value && attrs.find(a.name) == attrs.end()) attrs.emplace(a.name, *a.default_value);
    const InferContext context(schema, n.name, descs, consts, attrs, n.outputs.size());
    const Engine engine = schema.engines.has(Engine::vector) ? Engine::vector : Engine::host;
    const KernelRequest request{context, out, engine};
    const auto impl = KernelRegistry::global().select(request);
    if (!impl) return std::nullopt;
    const auto kernel = impl->make(request);

    std::vector<TensorView> in_views(n.inputs.size());
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const Tensor* t = consts[i];
      if (t == nullptr) continue;  // an omitted optional input: null data, undefined type
      in_views[i] = TensorView{const_cast<std::byte*>(t->bytes().data()), t->dtype(), t->dims()};
    }
    std::vector<std::vector<std::byte>> buffers(out.size());
    std::vector<std::vector<std::int64_t>> dims = cap;
    for (std::size_t k = 0; k < out.size(); ++k) {
      std::int64_t count = 1;
      for (const std::int64_t d : cap[k]) count *= d;
      buffers[k].resize(static_cast<std::size_t>(count * size_of(out[k].dtype)));
    }
    if (kernel->data_dependent()) {
      kernel->run_dynamic(in_views, [&](std::size_t k, std::span<const std::int64_t> d) -> void* {
        std::int64_t count = 1;
        for (const std::int64_t x : d) count *= x;
        if (k >= buffers.size() || count * size_of(out[k].dtype) > static_cast<std::int64_t>(buffers[k].size()))
          fail(Errc::internal, "node " + q(n.name) + ": the kernel asked for more than the inferred bound");
        dims[k].assign(d.begin(), d.end());
        return buffers[k].data();
      });
    } else {
      for (const TensorDesc& d : out)
        if (!d.shape.is_static()) return std::nullopt;
      std::vector<TensorView> out_views;
      for (std::size_t k = 0; k < out.size(); ++k)
        out_views.push_back(TensorView{buffers[k].data(), out[k].dtype, dims[k]});
      kernel->run(in_views, out_views);
    }
    std::vector<Tensor> result;
    for (std::size_t k = 0; k < out.size(); ++k) {
      std::int64_t count = 1;
      for (const std::int64_t x : dims[k]) count *= x;
      buffers[k].resize(static_cast<std::size_t>(count * size_of(out[k].dtype)));
      result.emplace_back(out[k].dtype, dims[k], std::move(buffers[k]));
    }
    return result;
  } catch (const Error&) {
    return std::nullopt;  // left for run time, where the same failure is reported
  }
}

// ---- batch-norm folding ---------------------------------------------------------------

// The f32 constant behind `v` with `count` elements, as doubles; nullopt otherwise.
std::optional<std::vector<double>> f32_values(const Work& w, ValueId v, std::int64_t count) {
  const Tensor* t = w.constant(v);
  if (t == nullptr || t->dtype() != DataType::f32 || t->element_count() != count) return std::nullopt;
  return t->to_doubles();
}

// ---- activation fusion ----------------------------------------------------------------

// Where each non-fixed dim of each value comes from: the same non-zero id on two dims
// means they are equal in every run (both are one graph input's dim, carried through
// ops that keep it). 0: unknown. Fixed dims need no id.
using DimOrigins = std::vector<std::vector<std::int64_t>>;

DimOrigins dim_origins(const Work& w) {
  DimOrigins o(w.values.size());
  for (std::size_t i = 0; i < w.inputs.size(); ++i) {
    const Shape& s = w.inputs[i].shape;
    if (!s.rank_known()) continue;
    auto& d = o[w.inputs[i].value];
    for (std::size_t k = 0; k < s.rank(); ++k) d.push_back(static_cast<std::int64_t>(i * 1024 + k + 1));
  }
  static const std::unordered_set<std::string_view> keeps_shape{
      "Relu", "Clip", "Sigmoid", "Tanh", "Gelu", "LeakyRelu", "HardSwish", "Exp", "Log", "Sqrt", "Neg", "Abs",
      "Erf", "Identity", "Cast", "BatchNormalization", "LayerNormalization", "Softmax", "LogSoftmax", "Dropout"};
  static const std::unordered_set<std::string_view> keeps_batch{"Conv", "FusedConv", "MaxPool", "AveragePool",
                                                                "GlobalAveragePool"};
  static const std::unordered_set<std::string_view> binary{"Add", "Sub", "Mul", "Div", "Pow"};
  for (const std::size_t n : w.order) {
    const WNode& node = w.nodes[n];
    if (node.outputs.empty() || node.inputs.empty() || node.inputs[0] == no_value) continue;
    const ValueId y = node.outputs[0];
    const Shape& ys = w.desc(y).shape;
    if (!ys.rank_known()) continue;
    auto& out = o[y];
    out.assign(ys.rank(), 0);
    const auto& in0 = o[node.inputs[0]];
    if (keeps_shape.contains(node.op)) {
      if (in0.size() == out.size()) out = in0;
    } else if (keeps_batch.contains(node.op)) {
      if (!in0.empty()) out[0] = in0[0];
    } else if (binary.contains(node.op) && node.inputs.size() == 2 && node.inputs[1] != no_value) {
      // Per output dim: the origin both sides agree on, or the one side that has the dim
      // while the other is a fixed 1 or lacks it.
      const ValueId sides[2] = {node.inputs[0], node.inputs[1]};
      for (std::size_t k = 0; k < out.size(); ++k) {
        std::int64_t id = -1;
        bool ok = true;
        for (const ValueId v : sides) {
          const Shape& vs = w.desc(v).shape;
          if (!vs.rank_known()) { ok = false; break; }
          const std::size_t lead = out.size() - vs.rank();
          if (k < lead) continue;
          const Dim& d = vs.dims()[k - lead];
          if (d.is_static() && d.value() == 1) continue;
          const auto& ov = o[v];
          const std::int64_t here = ov.size() == vs.rank() ? ov[k - lead] : 0;
          if (here == 0 || (id != -1 && id != here)) { ok = false; break; }
          id = here;
        }
        out[k] = ok && id > 0 ? id : 0;
      }
    }
  }
  return o;
}

// True when values `a` and `b` are sure to have equal shapes whenever an Add of them
// runs: equal ranks, and per dim equal fixed values, the same origin (`dim_origins`),
// or equal ranges that exclude 1 (so neither side can broadcast and the Add needs them
// equal).
bool same_shape_for_sure(const Work& w, const DimOrigins& origins, ValueId va, ValueId vb) {
  const Shape& a = w.desc(va).shape;
  const Shape& b = w.desc(vb).shape;
  if (!a.rank_known() || !b.rank_known() || a.rank() != b.rank()) return false;
  const auto& oa = origins[va];
  const auto& ob = origins[vb];
  for (std::size_t i = 0; i < a.rank(); ++i) {
    const Dim& x = a.dims()[i];
    const Dim& y = b.dims()[i];
    if (x.is_static() && y.is_static() && x.value() == y.value()) continue;
    if (oa.size() == a.rank() && ob.size() == b.rank() && oa[i] != 0 && oa[i] == ob[i]) continue;
    if (!(x == y) || x.lo() <= 1) return false;
  }
  return true;
}

// The activation of node `n` reading `v` as FusedConv attributes, when it is a Relu or a
// Clip with constant f32 one-element bounds (or none).
std::optional<Attributes> activation_of(const Work& w, const WNode& n, ValueId v) {
  if (n.outputs.size() != 1 || n.inputs.empty() || n.inputs[0] != v) return std::nullopt;
  if (n.op == "Relu" && n.inputs.size() == 1) return Attributes{{"activation", "Relu"}};
  if (n.op != "Clip") return std::nullopt;
  Attributes a{{"activation", "Clip"}};
  for (std::size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i] == no_value) continue;
    const Tensor* t = w.constant(n.inputs[i]);
    if (t == nullptr || t->dtype() != DataType::f32 || t->element_count() != 1) return std::nullopt;
    a.emplace(i == 1 ? "clip_min" : "clip_max", t->to_doubles()[0]);
  }
  return a;
}

}  // namespace

Graph fold_constants(const Graph& g, PassStats* stats) {
  g.validate();
  Work w(g);
  PassStats s{.pass = "fold_constants"};
  for (const std::size_t i : w.order) {
    WNode& n = w.nodes[i];
    std::optional<std::vector<Tensor>> folded;
    const std::optional<Tensor> shape = n.op == "Shape" && n.inputs.size() == 1 && n.outputs.size() == 1
                                            ? shape_constant(n, w.desc(n.inputs[0]).shape)
                                            : std::nullopt;
    if (shape) {
      folded = std::vector<Tensor>{*shape};
    } else {
      bool all_constant = false;
      for (const ValueId v : n.inputs) {
        if (v == no_value) continue;
        all_constant = w.constant(v) != nullptr;
        if (!all_constant) break;
      }
      if (!all_constant) continue;
      folded = evaluate(w, n);
    }
    if (!folded || folded->size() != n.outputs.size()) continue;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) w.make_constant(n.outputs[k], std::move((*folded)[k]));
    n.alive = false;
    ++s.nodes_removed;
    s.constants_added += n.outputs.size();
  }
  Graph out = w.emit(s.pass);
  report(stats, std::move(s));
  return out;
}

Graph remove_dead_code(const Graph& g, PassStats* stats) {
  g.validate();
  Work w(g);
  PassStats s{.pass = "remove_dead_code"};
  std::unordered_map<ValueId, std::size_t> producer;
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    for (const ValueId v : w.nodes[i].outputs) producer[v] = i;
  std::vector<bool> live_value(w.values.size(), false);
  std::vector<bool> live_node(w.nodes.size(), false);
  std::vector<ValueId> stack(w.outputs.begin(), w.outputs.end());
  while (!stack.empty()) {
    const ValueId v = stack.back();
    stack.pop_back();
    if (live_value[v]) continue;
    live_value[v] = true;
    const auto it = producer.find(v);
    if (it == producer.end() || live_node[it->second]) continue;
    live_node[it->second] = true;
    for (const ValueId in : w.nodes[it->second].inputs)
      if (in != no_value) stack.push_back(in);
  }
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    if (!live_node[i]) {
      w.nodes[i].alive = false;
      ++s.nodes_removed;
    }
  for (WConstant& c : w.constants)
    if (!live_value[c.value]) {
      c.alive = false;
      ++s.constants_removed;
    }
  Graph out = w.emit(s.pass);
  report(stats, std::move(s));
  return out;
}

namespace {

// fold_batch_norm; with `release`, the pass owns `g` and drops each folded Conv's old
// weights as soon as the folded ones exist (when nothing else reads them), so that the
// weights are not all in memory twice; `constants_removed` counts them.
Graph fold_batch_norm_impl(Graph g, PassStats* stats, bool release) {
  g.validate();
  Work w(g);
  if (release) g = Graph{};  // the Work holds the only references now
  PassStats s{.pass = "fold_batch_norm"};
  const Work::Readers readers = w.readers();
  for (const std::size_t i : w.order) {
    WNode& conv = w.nodes[i];
    if (!conv.alive || conv.op != "Conv" || conv.outputs.size() != 1 || conv.inputs.size() < 2) continue;
    const ValueId y = conv.outputs[0];
    if (readers.count[y] != 1 || w.is_output(y)) continue;
    WNode& bn = w.nodes[readers.node[y]];
    if (!bn.alive || bn.op != "BatchNormalization" || bn.outputs.size() != 1 || bn.inputs.size() != 5 ||
        bn.inputs[0] != y)
      continue;
    if (const auto mode = attr_of(bn, "training_mode"); mode && mode->as_int() != 0) continue;
    if (w.desc(conv.inputs[0]).dtype != DataType::f32 || w.desc(y).dtype != DataType::f32) continue;
    const Tensor* wt = w.constant(conv.inputs[1]);
    if (wt == nullptr || wt->dtype() != DataType::f32 || wt->dims().size() < 3 || wt->dims()[0] < 1) continue;
    const std::int64_t m = wt->dims()[0];
    std::vector<double> bias(static_cast<std::size_t>(m), 0.0);
    if (conv.inputs.size() > 2 && conv.inputs[2] != no_value) {
      const auto b = f32_values(w, conv.inputs[2], m);
      if (!b) continue;
      bias = *b;
    }
    const auto scale = f32_values(w, bn.inputs[1], m);
    const auto shift = f32_values(w, bn.inputs[2], m);
    const auto mean = f32_values(w, bn.inputs[3], m);
    const auto var = f32_values(w, bn.inputs[4], m);
    if (!scale || !shift || !mean || !var) continue;
    const auto eps_attr = attr_of(bn, "epsilon");
    const double eps = eps_attr ? eps_attr->as_float() : 1e-5;

    // Straight from the f32 bytes into the new tensor's: no wider or second copy.
    const std::span<const std::byte> wb = wt->bytes();
    const std::size_t count = wb.size() / sizeof(float);
    const std::size_t per = count / static_cast<std::size_t>(m);
    std::vector<std::byte> w2(wb.size());
    std::vector<float> b2(static_cast<std::size_t>(m));
    for (std::size_t o = 0; o < static_cast<std::size_t>(m); ++o) {
      const double f = (*scale)[o] / std::sqrt((*var)[o] + eps);
      for (std::size_t k = 0; k < per; ++k) {
        float x = 0;
        std::memcpy(&x, wb.data() + (o * per + k) * sizeof(float), sizeof(float));
        x = static_cast<float>(x * f);
        std::memcpy(w2.data() + (o * per + k) * sizeof(float), &x, sizeof(float));
      }
      b2[o] = static_cast<float>((bias[o] - (*mean)[o]) * f + (*shift)[o]);
    }
    const std::vector<ValueId> old{conv.inputs[1], conv.inputs.size() > 2 ? conv.inputs[2] : no_value};
    const ValueId wid = w.add_constant(conv.name + ".weight.bn_folded", Tensor(DataType::f32, wt->dims(), std::move(w2)));
    const ValueId bid = w.add_constant(conv.name + ".bias.bn_folded", Tensor::from<float>({m}, b2));
    if (release)
      for (const ValueId v : old) {
        const auto it = v == no_value ? w.constant_by_value.end() : w.constant_by_value.find(v);
        if (it == w.constant_by_value.end() || readers.count[v] != 1 || w.is_output(v)) continue;
        WConstant& c = w.constants[it->second];
        c.alive = false;
        c.tensor = Tensor();
        w.constant_by_value.erase(it);
        ++s.constants_removed;
      }
    conv.inputs.resize(3);
    conv.inputs[1] = wid;
    conv.inputs[2] = bid;
    conv.outputs[0] = bn.outputs[0];
    bn.alive = false;
    ++s.nodes_removed;
    s.constants_added += 2;
  }
  Graph out = w.emit(s.pass);
  report(stats, std::move(s));
  return out;
}

}  // namespace

Graph fold_batch_norm(const Graph& g, PassStats* stats) { return fold_batch_norm_impl(g, stats, false); }

Graph fuse_activations(const Graph& g, PassStats* stats) {
  g.validate();
  Work w(g);
  PassStats s{.pass = "fuse_activations"};
  const Work::Readers readers = w.readers();
  const DimOrigins origins = dim_origins(w);
  // The one alive reader of `v` when nothing else reads it and it is no graph output.
  const auto sole_reader = [&](ValueId v) -> WNode* {
    if (readers.count[v] != 1 || w.is_output(v)) return nullptr;
    WNode* r = &w.nodes[readers.node[v]];
    return r->alive ? r : nullptr;
  };
  for (const std::size_t i : w.order) {
    WNode& conv = w.nodes[i];
    if (!conv.alive || conv.op != "Conv" || conv.outputs.size() != 1 || conv.inputs.size() < 2) continue;
    const TensorDesc& x = w.desc(conv.inputs[0]);
    if (x.dtype != DataType::f32 || !x.shape.rank_known() || (x.shape.rank() != 3 && x.shape.rank() != 4)) continue;
    const ValueId y = conv.outputs[0];
    WNode* next = sole_reader(y);
    if (next == nullptr) continue;

    std::vector<WNode*> fused;
    ValueId residual = no_value;
    ValueId last = y;
    if (next->op == "Add" && next->inputs.size() == 2 && next->outputs.size() == 1) {
      const bool first = next->inputs[0] == y;
      const ValueId z = first ? next->inputs[1] : next->inputs[0];
      const ValueId sum = next->outputs[0];
      if (z != y && z != no_value && w.desc(z).dtype == DataType::f32 &&
          same_shape_for_sure(w, origins, z, y) && same_shape_for_sure(w, origins, sum, y)) {
        residual = z;
        fused.push_back(next);
        last = sum;
        next = sole_reader(sum);
      } else {
        next = nullptr;
      }
    }
    Attributes attrs = conv.attrs;
    if (next != nullptr) {
      if (const auto act = activation_of(w, *next, last)) {
        for (const auto& [k, v] : *act) attrs.insert_or_assign(k, v);
        fused.push_back(next);
        last = next->outputs[0];
      }
    }
    if (fused.empty()) continue;

    std::vector<ValueId> ins = conv.inputs;
    if (residual != no_value) {
      ins.resize(4, no_value);
      ins[3] = residual;
    }
    conv.op = "FusedConv";
    conv.inputs = std::move(ins);
    conv.outputs = {last};
    conv.attrs = std::move(attrs);
    for (WNode* n : fused) n->alive = false;
    s.nodes_removed += fused.size() + 1;  // the Conv is replaced too
    ++s.nodes_added;
  }
  Graph out = w.emit(s.pass);
  report(stats, std::move(s));
  return out;
}

namespace {

Graph optimize_impl(Graph g, std::vector<PassStats>* stats, bool release) {
  PassStats s;
  g = fold_constants(g, &s);
  if (stats != nullptr) stats->push_back(s);
  g = fold_batch_norm_impl(std::move(g), &s, release);
  if (stats != nullptr) stats->push_back(s);
  g = fuse_activations(g, &s);
  if (stats != nullptr) stats->push_back(s);
  g = remove_dead_code(g, &s);
  if (stats != nullptr) stats->push_back(s);
  return g;
}

}  // namespace

Graph optimize(const Graph& g, std::vector<PassStats>* stats) { return optimize_impl(g, stats, false); }

namespace detail {

// Declared in src/compile/compile.cpp, its one user.
Graph optimize_owned(Graph g, std::vector<PassStats>* stats) { return optimize_impl(std::move(g), stats, true); }

}  // namespace detail

}  // namespace ge
