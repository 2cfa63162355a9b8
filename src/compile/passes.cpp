// Graph passes: constant folding, dead code removal, BatchNormalization folding, and
// Conv + residual Add + activation fusion into FusedConv (the fusions of exporters'
// decompositions are in fusions.cpp, the NHWC layout in layout.cpp). Each pass is a
// rewrite of the working form of pass_work.hpp: alone (`ge::fold_constants` ...) it reads
// a graph and emits one; `ge::optimize` runs them all on one working form, read once and
// emitted once.
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

#include "compile/fold.hpp"
#include "compile/pass_work.hpp"
#include "compile/shape_values.hpp"
#include "ge/compile/kernel.hpp"
#include "ge/ops/registry.hpp"

namespace ge {

using detail::attr_of;
using detail::report;
using detail::WConstant;
using detail::WNode;
using detail::Work;

namespace {


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
  static const std::unordered_set<std::string_view> keeps_batch{
      "Conv",        "FusedConv",   "FusedPointwiseDepthwise", "FusedDepthwisePointwise",
      "MaxPool",     "AveragePool", "GlobalAveragePool"};
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

// HardSigmoid's slope and offset on node `n` (ONNX's defaults where absent).
std::pair<double, double> hard_sigmoid_params(const WNode& n) {
  const auto alpha = n.attrs.find("alpha");
  const auto beta = n.attrs.find("beta");
  return {alpha != n.attrs.end() ? alpha->second.as_float() : 0.2, beta != n.attrs.end() ? beta->second.as_float() : 0.5};
}

// The activation of node `n` reading `v` as FusedConv attributes, when it is a Relu, a
// Sigmoid, a HardSwish, a HardSigmoid, a LeakyRelu, a Gelu (erf or tanh) or a Clip with
// constant f32 one-element bounds (or none).
std::optional<Attributes> activation_of(const Work& w, const WNode& n, ValueId v) {
  if (n.outputs.size() != 1 || n.inputs.empty() || n.inputs[0] != v) return std::nullopt;
  if (n.inputs.size() == 1 && (n.op == "Relu" || n.op == "Sigmoid" || n.op == "HardSwish"))
    return Attributes{{"activation", n.op}};
  if (n.op == "Gelu" && n.inputs.size() == 1) {
    const auto approx = n.attrs.find("approximate");
    const bool tanh = approx != n.attrs.end() && approx->second.as_string() == "tanh";
    return Attributes{{"activation", tanh ? "GeluTanh" : "Gelu"}};
  }
  if (n.op == "LeakyRelu" && n.inputs.size() == 1) {
    const auto alpha = n.attrs.find("alpha");
    return Attributes{{"activation", "LeakyRelu"}, {"alpha", alpha != n.attrs.end() ? alpha->second.as_float() : 0.01}};
  }
  if (n.op == "HardSigmoid" && n.inputs.size() == 1) {
    const auto [alpha, beta] = hard_sigmoid_params(n);
    return Attributes{{"activation", "HardSigmoid"}, {"alpha", alpha}, {"beta", beta}};
  }
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

// A gated activation of `v`: its only two readers a Sigmoid (or a HardSigmoid of slope 1/6
// and offset 1/2) g and a Mul of v by g's output, which nothing else reads: Silu (HardSwish)
// as FusedConv attributes, with the two nodes. `first` holds each value's first reader.
struct Gate {
  Attributes attrs;
  WNode* gate = nullptr;
  WNode* mul = nullptr;
};
std::optional<Gate> gate_of(Work& w, const Work::Readers& readers, const std::vector<std::size_t>& first, ValueId v) {
  if (readers.count[v] != 2 || w.is_output(v) || first[v] == readers.node[v]) return std::nullopt;
  WNode* a = &w.nodes[first[v]];
  WNode* b = &w.nodes[readers.node[v]];
  if (a->op == "Mul") std::swap(a, b);
  if (!a->alive || !b->alive || b->op != "Mul" || a->inputs.size() != 1 || a->outputs.size() != 1 ||
      b->inputs.size() != 2 || b->outputs.size() != 1)
    return std::nullopt;
  const ValueId g = a->outputs[0];
  if (readers.count[g] != 1 || w.is_output(g) ||
      !((b->inputs[0] == v && b->inputs[1] == g) || (b->inputs[0] == g && b->inputs[1] == v)))
    return std::nullopt;
  if (a->op == "Sigmoid") return Gate{{{"activation", "Silu"}}, a, b};
  if (a->op != "HardSigmoid") return std::nullopt;
  const auto [alpha, beta] = hard_sigmoid_params(*a);
  if (std::abs(alpha - 1.0 / 6.0) > 1e-6 || beta != 0.5) return std::nullopt;
  return Gate{{{"activation", "HardSwish"}}, a, b};
}

}  // namespace

namespace detail {
// A node that stays: its outputs' dims inferred again from what is known now (inputs
// folded to constants before it, dims refined by the nodes before it), kept where that is
// more precise than the dims recorded at import. Without it a Reshape whose shape input
// only now became a constant (torch's Shape -> Gather -> Concat of a dynamic export)
// kept unknown dims, so the Shape of its output did not fold, and so on down the graph
// (ShuffleNet's every block: the layout pass then saw no channel shuffle to run NHWC).
void refine_outputs(Work& w, const OpSchema& schema, const WNode& n, std::span<const TensorDesc> descs,
                    std::span<const Tensor* const> consts) {
  std::vector<TensorDesc> out;
  try {
    out = infer_outputs(schema, n.name, descs, consts, n.attrs, n.outputs.size());
  } catch (const Error&) {
    return;  // (inference checked this node already; a refined input it rejects: keep what was recorded)
  }
  for (std::size_t k = 0; k < out.size() && k < n.outputs.size(); ++k) {
    TensorDesc& d = w.values[n.outputs[k]].desc;
    if (out[k].dtype != d.dtype || !compatible(out[k].shape, d.shape)) continue;
    d.shape = merge(out[k].shape, d.shape);
  }
}

void fold_constants(Work& w, PassStats& s) {
  const OpRegistry& registry = OpRegistry::global();
  ShapeValues known;  // shape tensors that did not fold, element by element
  std::vector<TensorDesc> descs, recorded;
  std::vector<const Tensor*> consts;
  for (const std::size_t i : w.order) {
    WNode& n = w.nodes[i];
    descs.clear();
    consts.clear();
    recorded.clear();
    for (const ValueId v : n.inputs) {
      descs.push_back(v == no_value ? TensorDesc{} : w.desc(v));
      consts.push_back(w.constant(v));
    }
    for (const ValueId v : n.outputs) recorded.push_back(w.desc(v));
    std::optional<std::vector<Tensor>> folded;
    if (n.op == "Shape" && n.inputs.size() == 1 && n.outputs.size() == 1) {
      if (auto t = detail::shape_constant(n.attrs, descs[0].shape)) folded = std::vector<Tensor>{std::move(*t)};
    } else if (detail::all_inputs_constant(consts, descs)) {
      folded = detail::evaluate({registry.find(n.op), n.name, descs, consts, n.attrs, n.outputs.size(), recorded});
    }
    if (!folded)
      if (auto t = shape_value(w, n, known)) folded = std::vector<Tensor>{std::move(*t)};
    if (!folded || folded->size() != n.outputs.size()) {
      if (auto scales = resize_scales(w, n, known)) {
        n.inputs[2] = w.add_constant(n.name + ".scales", std::move(*scales));
        n.inputs.pop_back();
        descs[2] = w.desc(n.inputs[2]);
        consts[2] = w.constant(n.inputs[2]);
        descs.pop_back();
        consts.pop_back();
      }
      refine_outputs(w, registry.find(n.op), n, descs, consts);
      if (const auto dims = reshape_dims(w, n, known)) {
        TensorDesc& d = w.values[n.outputs[0]].desc;
        if (compatible(*dims, d.shape)) d.shape = merge(*dims, d.shape);
      }
      continue;
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) w.make_constant(n.outputs[k], std::move((*folded)[k]));
    n.alive = false;
    ++s.nodes_removed;
    s.constants_added += n.outputs.size();
  }
}
}  // namespace detail

Graph fold_constants(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fold_constants", detail::fold_constants);
}

namespace detail {
void remove_dead_code(Work& w, PassStats& s) {
  std::unordered_map<ValueId, std::size_t> producer;
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    if (w.nodes[i].alive)
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
    if (w.nodes[i].alive && !live_node[i]) {
      w.nodes[i].alive = false;
      ++s.nodes_removed;
    }
  for (WConstant& c : w.constants)
    if (c.alive && !live_value[c.value]) {
      c.alive = false;
      w.constant_by_value.erase(c.value);
      ++s.constants_removed;
    }
}
}  // namespace detail

Graph remove_dead_code(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "remove_dead_code", detail::remove_dead_code);
}

namespace detail {
// An inference BatchNormalization on an f32 image that no conv's weights took (DenseNet's
// pre-activation: norm, ReLU, then the conv) becomes what it computes, a per-channel
// scale and shift: a depthwise 1x1 Conv, which then takes the ReLU as its activation
// (`fuse_activations`: one pass over the image, not two) and runs in an NHWC chain
// (`layout_nhwc`) instead of ending one.
void batch_norm_to_depthwise(Work& w, PassStats& s) {
  for (const std::size_t i : w.order) {
    WNode& bn = w.nodes[i];
    if (!bn.alive || bn.op != "BatchNormalization" || bn.outputs.size() != 1 || bn.inputs.size() != 5) continue;
    if (const auto mode = attr_of(bn, "training_mode"); mode && mode->as_int() != 0) continue;
    const TensorDesc& x = w.desc(bn.inputs[0]);
    if (x.dtype != DataType::f32 || !x.shape.rank_known() || x.shape.rank() != 4 || !x.shape[1].is_static() ||
        x.shape[1].value() < 1)
      continue;
    const std::int64_t c = x.shape[1].value();
    const auto scale = f32_values(w, bn.inputs[1], c);
    const auto shift = f32_values(w, bn.inputs[2], c);
    const auto mean = f32_values(w, bn.inputs[3], c);
    const auto var = f32_values(w, bn.inputs[4], c);
    if (!scale || !shift || !mean || !var) continue;
    const auto eps_attr = attr_of(bn, "epsilon");
    const double eps = eps_attr ? eps_attr->as_float() : 1e-5;
    std::vector<float> wt(static_cast<std::size_t>(c)), b(static_cast<std::size_t>(c));
    for (std::size_t o = 0; o < wt.size(); ++o) {
      const double f = (*scale)[o] / std::sqrt((*var)[o] + eps);
      wt[o] = static_cast<float>(f);
      b[o] = static_cast<float>((*shift)[o] - (*mean)[o] * f);
    }
    const ValueId wid = w.add_constant(bn.name + ".weight.depthwise", Tensor::from<float>({c, 1, 1, 1}, wt));
    const ValueId bid = w.add_constant(bn.name + ".bias.depthwise", Tensor::from<float>({c}, b));
    WNode& n = w.nodes[i];  // (add_constant leaves the nodes where they are)
    n.op = "Conv";
    n.inputs = {n.inputs[0], wid, bid};
    n.attrs = Attributes{{"group", c}, {"kernel_shape", std::vector<std::int64_t>{1, 1}}};
    s.constants_added += 2;
  }
}

// With `release`, the working form holds the only references to the weights, and each
// folded Conv's old weights go as soon as the folded ones exist (when nothing else reads
// them), so that the weights are not all in memory twice; `constants_removed` counts them.
void fold_batch_norm(Work& w, PassStats& s, bool release) {
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
  batch_norm_to_depthwise(w, s);
}
}  // namespace detail

Graph fold_batch_norm(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fold_batch_norm",
                          [](Work& w, PassStats& s) { detail::fold_batch_norm(w, s, false); });
}

namespace detail {
void fuse_activations(Work& w, PassStats& s) {
  const Work::Readers readers = w.readers();
  const DimOrigins origins = dim_origins(w);
  std::vector<std::size_t> first_reader(w.values.size(), 0);  // each value's first alive reader
  for (std::size_t i = w.nodes.size(); i-- > 0;)
    if (w.nodes[i].alive)
      for (const ValueId v : w.nodes[i].inputs)
        if (v != no_value) first_reader[v] = i;
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
    WNode* next = sole_reader(y);  // null: no single reader (a gate's two are looked for below)

    std::vector<WNode*> fused;
    ValueId residual = no_value;
    ValueId last = y;
    if (next != nullptr && next->op == "Add" && next->inputs.size() == 2 && next->outputs.size() == 1) {
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
    } else if (auto gate = gate_of(w, readers, first_reader, last)) {
      for (const auto& [k, v] : gate->attrs) attrs.insert_or_assign(k, v);
      fused.push_back(gate->gate);
      fused.push_back(gate->mul);
      last = gate->mul->outputs[0];
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
}
}  // namespace detail

Graph fold_transposes(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fold_transposes", detail::fold_transposes);
}

Graph trim_conv_taps(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "trim_conv_taps", detail::trim_conv_taps);
}

Graph conv_frames(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "conv_frames", detail::conv_frames);
}

Graph fuse_activations(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_activations", detail::fuse_activations);
}

namespace {

Graph optimize_impl(Graph g, std::vector<PassStats>* stats, bool release, bool dense_chains) {
  using detail::WorkPass;
  const WorkPass passes[] = {
      {"fold_qdq_pairs", detail::fold_qdq_pairs},
      {"fold_constants", detail::fold_constants},
      {"trim_conv_taps", detail::trim_conv_taps},
      {"fold_batch_norm", [release](Work& w, PassStats& s) { detail::fold_batch_norm(w, s, release); }},
      {"fuse_layer_norm", detail::fuse_layer_norm},
      {"fuse_gelu", detail::fuse_gelu},
      {"fuse_attention", detail::fuse_attention},
      {"conv_frames", detail::conv_frames},
      {"fuse_activations", detail::fuse_activations},
      {"fuse_matmul_epilogue", detail::fuse_matmul_epilogue},
      {"layout_nhwc", [dense_chains](Work& w, PassStats& s) { detail::layout_nhwc(w, s, dense_chains); }},
      {"quantize_products", detail::quantize_products},
      // Not where the convs run in bf16 on AMX: the fused kernel is f32.
      {"fuse_pointwise_depthwise",
       [dense_chains](Work& w, PassStats& s) {
         if (dense_chains) detail::fuse_pointwise_depthwise(w, s);
       }},
      {"fuse_depthwise_pointwise",
       [dense_chains](Work& w, PassStats& s) {
         if (dense_chains) detail::fuse_depthwise_pointwise(w, s);
       }},
      {"fuse_channel_gate", detail::fuse_channel_gate},
      {"fold_transposes", detail::fold_transposes},
      {"remove_dead_code", detail::remove_dead_code},
  };
  return detail::run_passes(std::move(g), passes, stats, release);
}

}  // namespace

Graph optimize(const Graph& g, std::vector<PassStats>* stats) { return optimize_impl(g, stats, false, true); }

namespace detail {

// Declared in src/compile/compile.cpp, its one user.
Graph optimize_owned(Graph g, std::vector<PassStats>* stats, bool dense_chains) {
  return optimize_impl(std::move(g), stats, true, dense_chains);
}

}  // namespace detail

}  // namespace ge
