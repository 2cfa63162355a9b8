// Fusions of what ONNX exporters decompose: LayerNormalization (opset < 17 spells it as
// ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add), Gelu (Div/Erf/Add/Mul/Mul),
// MatMul by constant weights with its bias Add, activation and residual Add folded into
// the product's epilogue (FusedMatMul) (attention: compile/attention.cpp). Each pattern is matched on the graph's structure
// (ops, edges, constants), never on names, and only where the fused op computes the
// same function: the constants must be the ones the formula needs (within 1e-4
// relative), the axes the last dim, every intermediate value read by the pattern only.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "compile/matcher.hpp"
#include "compile/pass_work.hpp"
#include "ge/compile/passes.hpp"

namespace ge {

using detail::attr_of;
using detail::Matcher;
using detail::report;
using detail::WNode;
using detail::Work;

namespace {

bool near(std::optional<double> x, double want) { return x && std::abs(*x - want) <= 1e-4 * std::abs(want); }

// The last dim of `v`, when its rank is known and that dim static.
std::optional<std::int64_t> last_dim(const Work& w, ValueId v) {
  const Shape& s = w.desc(v).shape;
  if (!s.rank_known() || s.rank() == 0 || !s.dims().back().is_static()) return std::nullopt;
  return s.dims().back().value();
}

// A ReduceMean over the last dim only, keeping dims.
bool mean_over_last(const Work& w, const WNode& n) {
  if (n.op != "ReduceMean" || n.inputs.empty() || n.inputs.size() > 2 || n.outputs.size() != 1) return false;
  const auto keep = attr_of(n, "keepdims");
  if (keep && keep->as_int() == 0) return false;
  const Shape& s = w.desc(n.inputs[0]).shape;
  if (!s.rank_known() || s.rank() == 0) return false;
  std::vector<std::int64_t> axes;
  if (n.inputs.size() == 2) {
    const Tensor* t = w.constant(n.inputs[1]);
    if (t == nullptr || !t->has_data()) return false;
    axes = t->to_int64s();
  } else if (const auto it = n.attrs.find("axes"); it != n.attrs.end()) {
    axes = it->second.as_ints();
  }
  const auto r = static_cast<std::int64_t>(s.rank());
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == r - 1);
}

// An f32 constant of `d` elements whose dims are [d] or [1, ..., d].
bool per_channel(const Work& w, ValueId v, std::int64_t d) {
  const Tensor* t = w.constant(v);
  if (t == nullptr || !t->has_data() || t->dtype() != DataType::f32 || t->element_count() != d) return false;
  const auto& dims = t->dims();
  for (std::size_t i = 0; i + 1 < dims.size(); ++i)
    if (dims[i] != 1) return false;
  return !dims.empty() && dims.back() == d;
}

// Reshapes constant `v` to [d] under a new name (Scale and B of LayerNormalization, the
// bias of FusedMatMul are 1-D).
ValueId as_vector(Work& w, ValueId v, std::int64_t d, const std::string& name) {
  const Tensor* t = w.constant(v);
  if (t->dims().size() == 1) return v;
  return w.add_constant(name, Tensor(DataType::f32, {d}, std::vector<std::byte>(t->bytes().begin(), t->bytes().end())));
}

void kill(std::initializer_list<WNode*> nodes, PassStats& s) {
  for (WNode* n : nodes) {
    n->alive = false;
    ++s.nodes_removed;
  }
}

}  // namespace

namespace detail {
void fuse_layer_norm(Work& w, PassStats& s) {
  Matcher m(w);
  for (const std::size_t i : w.order) {
    WNode& mean = w.nodes[i];
    if (!mean.alive || !mean_over_last(w, mean)) continue;
    const ValueId x = mean.inputs[0];
    const auto d = last_dim(w, x);
    if (!m.f32(x) || !d) continue;
    WNode* sub = m.sole_op(mean.outputs[0], "Sub", 2);
    if (sub == nullptr || sub->inputs[0] != x) continue;
    const ValueId diff = sub->outputs[0];
    // `diff` has two readers: the square and the division.
    if (m.readers.of[diff].size() != 2 || w.is_output(diff)) continue;
    WNode* sq = nullptr;
    WNode* div = nullptr;
    for (const std::size_t r : m.readers.of[diff]) {
      WNode& n = w.nodes[r];
      if (n.op == "Pow" && n.inputs.size() == 2 && n.inputs[0] == diff && near(m.scalar(n.inputs[1]), 2.0)) sq = &n;
      else if (n.op == "Mul" && n.inputs.size() == 2 && n.inputs[0] == diff && n.inputs[1] == diff) sq = &n;
      else if (n.op == "Div" && n.inputs.size() == 2 && n.inputs[0] == diff) div = &n;
    }
    if (sq == nullptr || div == nullptr || sq == div) continue;
    WNode* var = m.sole(sq->outputs[0]);
    if (var == nullptr || !mean_over_last(w, *var)) continue;
    WNode* add = m.sole_op(var->outputs[0], "Add", 2);
    const auto eps = add ? m.scalar_beside(*add, var->outputs[0]) : std::nullopt;
    if (!eps || *eps < 0) continue;
    WNode* sqrt = m.sole_op(add->outputs[0], "Sqrt", 1);
    if (sqrt == nullptr || m.sole(sqrt->outputs[0]) != div || div->inputs[1] != sqrt->outputs[0]) continue;
    // The affine part: Mul by a per-channel Scale, then Add of a per-channel B.
    ValueId out = div->outputs[0];
    ValueId scale = no_value;
    ValueId bias = no_value;
    WNode* mul = m.sole_op(out, "Mul", 2);
    WNode* shift = nullptr;
    if (mul != nullptr) {
      const auto o = Matcher::other(*mul, out);
      if (o && per_channel(w, *o, *d)) {
        scale = *o;
        out = mul->outputs[0];
        shift = m.sole_op(out, "Add", 2);
        const auto b = shift ? Matcher::other(*shift, out) : std::nullopt;
        if (b && per_channel(w, *b, *d)) {
          bias = *b;
          out = shift->outputs[0];
        } else {
          shift = nullptr;
        }
      } else {
        mul = nullptr;
      }
    }
    const std::string base = div->name;
    scale = scale == no_value ? w.add_constant(base + ".scale", Tensor::full(DataType::f32, {*d}, 1.0))
                              : as_vector(w, scale, *d, base + ".scale");
    if (bias != no_value) bias = as_vector(w, bias, *d, base + ".bias");
    // The LayerNormalization replaces the ReduceMean (its first node), named as the Div.
    kill({sub, sq, var, add, sqrt, div}, s);
    if (mul != nullptr) kill({mul}, s);
    if (shift != nullptr) kill({shift}, s);
    mean.name = base;
    mean.op = "LayerNormalization";
    mean.inputs = {x, scale, bias};
    mean.outputs = {out};
    mean.attrs = {{"axis", std::int64_t{-1}}, {"epsilon", *eps}};
    ++s.nodes_removed;
    ++s.nodes_added;
  }
}
}  // namespace detail

Graph fuse_layer_norm(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_layer_norm", detail::fuse_layer_norm);
}

namespace detail {
void fuse_gelu(Work& w, PassStats& s) {
  Matcher m(w);
  const double rsqrt2 = 1.0 / std::sqrt(2.0);
  for (const std::size_t i : w.order) {
    WNode& scale = w.nodes[i];  // x / sqrt(2), or x * (1 / sqrt(2))
    if (!scale.alive || scale.inputs.size() != 2 || scale.outputs.size() != 1) continue;
    const ValueId x = scale.inputs[0];
    if (!m.f32(x)) continue;
    const bool ok = (scale.op == "Div" && near(m.scalar(scale.inputs[1]), std::sqrt(2.0))) ||
                    (scale.op == "Mul" && near(m.scalar(scale.inputs[1]), rsqrt2));
    if (!ok) continue;
    WNode* erf = m.sole_op(scale.outputs[0], "Erf", 1);
    WNode* plus = erf ? m.sole_op(erf->outputs[0], "Add", 2) : nullptr;
    if (plus == nullptr || !near(m.scalar_beside(*plus, erf->outputs[0]), 1.0)) continue;
    // x * (1 + erf) * 0.5, in either order of the two products.
    WNode* times = m.sole_op(plus->outputs[0], "Mul", 2);
    if (times == nullptr) continue;
    const auto other = Matcher::other(*times, plus->outputs[0]);
    WNode* half = nullptr;
    ValueId out = no_value;
    if (other && *other == x) {  // (x * (1 + erf)) * 0.5
      half = m.sole_op(times->outputs[0], "Mul", 2);
      if (half == nullptr || !near(m.scalar_beside(*half, times->outputs[0]), 0.5)) continue;
      out = half->outputs[0];
    } else if (other) {  // (x * 0.5) * (1 + erf)
      const auto it = std::find_if(w.nodes.begin(), w.nodes.end(), [&](const WNode& n) {
        return n.alive && n.outputs.size() == 1 && n.outputs[0] == *other;
      });
      if (it == w.nodes.end() || it->op != "Mul" || m.sole(*other) != times) continue;
      const auto hx = Matcher::other(*it, x);
      if (!hx || !near(m.scalar(*hx), 0.5)) continue;
      half = &*it;
      out = times->outputs[0];
    } else {
      continue;
    }
    const std::string name = (half->outputs[0] == out ? half : times)->name;  // the node that made `out`
    kill({erf, plus, times, half}, s);
    scale.name = name;
    scale.op = "Gelu";
    scale.inputs = {x};
    scale.outputs = {out};
    scale.attrs = {};
    ++s.nodes_removed;
    ++s.nodes_added;
  }
}
}  // namespace detail

Graph fuse_gelu(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_gelu", detail::fuse_gelu);
}

namespace detail {
void fuse_matmul_epilogue(Work& w, PassStats& s) {
  Matcher m(w);
  for (const std::size_t i : w.order) {
    WNode& mm = w.nodes[i];
    if (!mm.alive || mm.op != "MatMul" || mm.inputs.size() != 2 || mm.outputs.size() != 1) continue;
    const Tensor* b = w.constant(mm.inputs[1]);
    if (b == nullptr || b->dims().size() != 2 || b->dtype() != DataType::f32 || !m.f32(mm.inputs[0])) continue;
    const Shape& a = w.desc(mm.inputs[0]).shape;
    if (!a.rank_known() || a.rank() < 2) continue;
    const std::int64_t n = b->dims()[1];
    ValueId out = mm.outputs[0];
    std::vector<WNode*> fused;
    ValueId bias = no_value;
    ValueId residual = no_value;
    std::string activation;
    WNode* next = m.sole(out);
    const bool add = next != nullptr && next->op == "Add" && next->outputs.size() == 1;
    if (const auto o = add ? Matcher::other(*next, out) : std::nullopt; o && per_channel(w, *o, n)) {
      bias = as_vector(w, *o, n, mm.name + ".bias");
      fused.push_back(next);
      out = next->outputs[0];
      next = m.sole(out);
    }
    if (next != nullptr && (next->op == "Relu" || next->op == "Gelu") && next->inputs.size() == 1 &&
        next->outputs.size() == 1) {
      const auto approx = attr_of(*next, "approximate");
      activation = next->op == "Gelu" && approx && approx->as_string() == "tanh" ? "GeluTanh" : next->op;
      fused.push_back(next);
      out = next->outputs[0];
      next = m.sole(out);
    }
    // A residual added last: in the epilogue when it has the output's dims at run time,
    // else added after the product with broadcasting.
    if (activation.empty() && next != nullptr && next->op == "Add" && next->outputs.size() == 1) {
      const auto o = Matcher::other(*next, out);
      const Shape& rs = o ? w.desc(*o).shape : w.desc(out).shape;
      if (o && w.constant(*o) == nullptr && m.f32(*o) && rs.rank_known() && w.desc(out).shape.rank_known() &&
          rs.rank() == w.desc(out).shape.rank()) {
        residual = *o;
        fused.push_back(next);
        out = next->outputs[0];
      }
    }
    if (fused.empty()) continue;
    for (WNode* f : fused) f->alive = false;
    s.nodes_removed += fused.size() + 1;
    ++s.nodes_added;
    mm.op = "FusedMatMul";
    mm.inputs = {mm.inputs[0], mm.inputs[1], bias, residual};
    while (mm.inputs.back() == no_value) mm.inputs.pop_back();
    mm.outputs = {out};
    mm.attrs = {};
    if (!activation.empty()) mm.attrs.emplace("activation", activation);
  }
}
}  // namespace detail

Graph fuse_matmul_epilogue(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_matmul_epilogue", detail::fuse_matmul_epilogue);
}

}  // namespace ge
