// Padding to a gear: which gear values no op mixes across (see ge/compile/padding.hpp).
//
// For one value of the gears the graph is specialised at two sizes of it (the smallest
// gear's value and the largest one's, the other values held), and each value of the
// graph gets a state: free (no padded element reaches it), carried (one axis holds the
// padded dim: that axis is outer * dim * inner, an element's index along it
// (p * dim + n) * inner + q, so rows of different n stay apart), size (data
// computed from the dim's size: allowed only as the shape of a Reshape or Expand), or
// mixed (padding would change it: the first reason is kept). Each op keeps the dim apart
// by a rule of its kind; every claim a rule makes about an output is checked against the
// two specialisations' dims (exactly one axis scales with the dim, by the same factor).
#include "compile/padding_analysis.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "compile/specialize.hpp"
#include "ge/core/error.hpp"

namespace ge::detail {

namespace {

enum class Kind : std::uint8_t { free, carried, size, mixed };

struct State {
  Kind kind = Kind::free;
  std::int32_t axis = -1;
  std::int64_t outer = 1, inner = 1;  // carried: the axis is outer * dim * inner
  std::string reason{};               // mixed: why
};

const std::set<std::string, std::less<>> elementwise{
    "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization", "BitShift", "Cast",
    "CastLike", "Ceil", "Celu", "Clip", "Cos", "Cosh", "DequantizeLinear", "Div", "Dropout", "Elu", "Equal", "Erf",
    "Exp", "Expand", "Floor", "Gelu", "Greater", "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity", "IsInf",
    "IsNaN", "LeakyRelu", "Less", "LessOrEqual", "Log", "Max", "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or",
    "Pow", "PRelu", "QuantizeLinear", "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh",
    "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Where", "Xor"};

// Ops whose only independent axis is the batch (axis 0) of the listed inputs.
const std::vector<std::pair<std::string_view, std::vector<std::size_t>>> batch_ops{
    {"Conv", {0}}, {"ConvTranspose", {0}}, {"ConvInteger", {0}}, {"FusedConv", {0, 3}},
    {"FusedPointwiseDepthwise", {0, 5}}, {"FusedDepthwisePointwise", {0, 5}}, {"MaxPool", {0}}, {"AveragePool", {0}},
    {"LpPool", {0}},
    {"GlobalAveragePool", {0}}, {"GlobalMaxPool", {0}}, {"GlobalLpPool", {0}}, {"InstanceNormalization", {0}},
    {"GroupNormalization", {0}}, {"LRN", {0}}, {"DepthToSpace", {0}}, {"SpaceToDepth", {0}}, {"Resize", {0}},
    {"Upsample", {0}}, {"GridSample", {0, 1}}};

const std::set<std::string, std::less<>> reshapes{"Reshape", "Flatten", "Squeeze", "Unsqueeze"};

std::int64_t product(const std::vector<std::int64_t>& d, std::size_t n) {
  std::int64_t p = 1;
  for (std::size_t i = 0; i < n && i < d.size(); ++i) p *= d[i];
  return p;
}

class Analysis {
 public:
  Analysis(const Graph& g, const Specialized& a, const Specialized& b, std::int64_t va, std::int64_t vb)
      : g_(g), a_(a), b_(b), va_(va), vb_(vb), state_(g.values().size()) {}

  void carry_input(ValueId v, std::int32_t axis) { state_[v] = {Kind::carried, axis, 1, 1, {}}; }

  void node(const Node& n, bool live, bool evaluated) {
    if (evaluated) {
      for (const ValueId o : n.outputs) folded(o, n);
      return;
    }
    if (!live) return;
    const State* mixed = nullptr;
    bool any = false;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const ValueId v = n.inputs[k];
      if (v == no_value) continue;
      const State& s = state_[v];
      if (s.kind == Kind::mixed && !mixed) mixed = &s;
      if (s.kind == Kind::size && !((n.op == "Reshape" || n.op == "Expand") && k == 1))
        return mix(n, "node '" + n.name + "' (" + n.op + ") reads the size of the padded dim as data (input " +
                          std::to_string(k) + ")");
      any = any || s.kind == Kind::carried;
    }
    if (mixed) {
      const std::string why = mixed->reason;
      return mix(n, why);
    }
    if (!any) return;  // outputs free
    rule(n);
  }

  [[nodiscard]] const State& operator[](ValueId v) const { return state_[v]; }

 private:
  void mix(const Node& n, const std::string& why) {
    for (const ValueId o : n.outputs) state_[o] = {Kind::mixed, -1, 1, 1, why};
  }

  // The axis of `v` that scales with the dim (`inner`: its size over the dim's), or
  // nullopt when none or several do.
  [[nodiscard]] std::optional<State> scaled(ValueId v) const {
    const Shape& sa = a_.desc[v].shape;
    const Shape& sb = b_.desc[v].shape;
    if (!sa.is_static() || !sb.is_static() || sa.rank() != sb.rank()) return std::nullopt;
    const std::vector<std::int64_t> da = sa.values(), db = sb.values();
    std::optional<State> found;
    for (std::size_t i = 0; i < da.size(); ++i) {
      if (da[i] == db[i]) continue;
      if (found || da[i] % va_ != 0 || db[i] % vb_ != 0 || da[i] / va_ != db[i] / vb_) return std::nullopt;
      found = State{Kind::carried, static_cast<std::int32_t>(i), 1, da[i] / va_, {}};
    }
    return found;
  }

  // Output `o` of `n` carries the dim at `expected` (or anywhere, -1) laid out as `like`
  // (its outer and inner sizes; null: outermost in its axis); else the node mixes it.
  bool claim(const Node& n, ValueId o, std::int32_t expected, const State* like) {
    auto s = scaled(o);
    if (s && like) {
      if (s->inner % like->inner != 0 || s->inner / like->inner != like->outer) s.reset();
      else s->outer = like->outer, s->inner = like->inner;
    }
    if (!s || (expected >= 0 && s->axis != expected)) {
      mix(n, "node '" + n.name + "' (" + n.op + ") does not keep the padded dim on one axis of its output '" +
                 g_.values()[o].name + "'");
      return false;
    }
    state_[o] = *s;
    return true;
  }

  void folded(ValueId v, const Node& n) {
    const auto& ta = a_.folded[v];
    const auto& tb = b_.folded[v];
    if (!ta || !tb) return mix(n, "the value '" + g_.values()[v].name + "' is computed at compile time for one size only");
    if (ta->dims() == tb->dims()) {
      const bool same = ta->bytes().size() == tb->bytes().size() &&
                        std::equal(ta->bytes().begin(), ta->bytes().end(), tb->bytes().begin());
      state_[v] = same ? State{} : State{Kind::size, -1, 1, {}};
      return;
    }
    const auto s = scaled(v);
    if (!s) return mix(n, "the value '" + g_.values()[v].name + "' made at compile time grows with the padded dim on several axes");
    // The smaller size's data must be the leading slices of the larger's.
    const auto& d = ta->dims();
    const auto axis = static_cast<std::size_t>(s->axis);
    const std::int64_t outer = product(d, axis);
    const std::size_t inner = ta->bytes().size() / static_cast<std::size_t>(std::max<std::int64_t>(outer, 1));
    const std::size_t inner_b = tb->bytes().size() / static_cast<std::size_t>(std::max<std::int64_t>(outer, 1));
    for (std::int64_t i = 0; i < outer; ++i)
      if (std::memcmp(ta->bytes().data() + i * inner, tb->bytes().data() + i * inner_b, inner) != 0)
        return mix(n, "the value '" + g_.values()[v].name + "' made at compile time depends on the padded dim's size");
    state_[v] = *s;
  }

  [[nodiscard]] std::int32_t rank(ValueId v) const { return static_cast<std::int32_t>(a_.desc[v].shape.rank()); }
  [[nodiscard]] const State& in(const Node& n, std::size_t k) const { return state_[n.inputs[k]]; }
  [[nodiscard]] bool carried(const Node& n, std::size_t k) const {
    return k < n.inputs.size() && n.inputs[k] != no_value && in(n, k).kind == Kind::carried;
  }
  [[nodiscard]] std::int64_t int_attr(const Node& n, std::string_view name, std::int64_t otherwise) const {
    const auto it = n.attrs.find(name);
    return it == n.attrs.end() ? otherwise : it->second.as_int();
  }
  // An axis attribute (or constant input) normalised to [0, rank).
  [[nodiscard]] std::int32_t norm(std::int64_t axis, std::int32_t r) const {
    return static_cast<std::int32_t>(axis < 0 ? axis + r : axis);
  }
  // The data of input `k` as this plan knows it (a constant or a value folded for it).
  [[nodiscard]] std::optional<std::vector<std::int64_t>> ints(const Node& n, std::size_t k) const {
    if (k >= n.inputs.size() || n.inputs[k] == no_value) return std::nullopt;
    if (a_.folded[n.inputs[k]]) return a_.folded[n.inputs[k]]->to_int64s();
    if (const Tensor* t = g_.constant_of(n.inputs[k]); t && t->has_data()) return t->to_int64s();
    return std::nullopt;
  }

  // The ops whose mixing axes come from attributes: the axes they reduce or normalise over.
  [[nodiscard]] std::optional<std::vector<std::int32_t>> mixing_axes(const Node& n, std::int32_t r) const {
    const std::string& op = n.op;
    std::vector<std::int32_t> m;
    const auto from = [&](std::int32_t first) {
      for (std::int32_t i = first; i < r; ++i) m.push_back(i);
    };
    if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax" || op == "LayerNormalization") {
      from(norm(int_attr(n, "axis", -1), r));
    } else if (op == "TopK" || op == "CumSum" || op == "Concat" || op == "Split" || op == "ArgMax" ||
               op == "ArgMin" || op == "GatherElements" || op == "LpNormalization") {
      std::int64_t axis = int_attr(n, "axis", op == "TopK" || op == "LpNormalization" ? -1 : 0);
      if (op == "CumSum") {
        const auto v = ints(n, 1);
        if (!v || v->empty()) return std::nullopt;
        axis = v->front();
      }
      m.push_back(norm(axis, r));
    } else if (op.starts_with("Reduce") || op == "MeanVarianceNormalization") {
      std::vector<std::int64_t> axes;
      if (const auto it = n.attrs.find("axes"); it != n.attrs.end()) axes = it->second.as_ints();
      else if (const auto v = ints(n, 1)) axes = *v;
      else if (op == "MeanVarianceNormalization") axes = {0, 2, 3};
      if (axes.empty() && int_attr(n, "noop_with_empty_axes", 0) == 0) from(0);
      for (const std::int64_t a : axes) m.push_back(norm(a, r));
    } else if (op == "Slice" || op == "Pad" || op == "Tile" || op == "Trilu" || op == "OneHot" || op == "Gather") {
      // axes checked by the dims of the output (Slice, Pad, Tile: the factor must hold)
    } else {
      return std::nullopt;
    }
    return m;
  }

  void rule(const Node& n) {
    const std::string& op = n.op;
    const ValueId out = n.outputs.empty() ? no_value : n.outputs[0];
    if (elementwise.contains(op)) {
      std::int32_t expected = -1;
      const State* like = nullptr;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (!carried(n, k)) continue;
        const std::int32_t e = in(n, k).axis + rank(out) - rank(n.inputs[k]);
        if ((expected >= 0 && e != expected) || (like && (like->outer != in(n, k).outer || like->inner != in(n, k).inner)))
          return mix(n, "node '" + n.name + "' (" + op + ") lines the padded dims of two inputs up differently");
        expected = e;
        like = &in(n, k);
      }
      for (const ValueId o : n.outputs)
        if (!claim(n, o, expected, like)) return;
      return;
    }
    for (const auto& [name, allowed] : batch_ops) {
      if (op != name) continue;
      const State* like = nullptr;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (!carried(n, k)) continue;
        if (in(n, k).axis != 0 || std::find(allowed.begin(), allowed.end(), k) == allowed.end())
          return mix(n, "node '" + n.name + "' (" + op + ") mixes elements across the padded dim (input " +
                            std::to_string(k) + ", axis " + std::to_string(in(n, k).axis) + "; only the batch is kept apart)");
        like = &in(n, k);
      }
      for (const ValueId o : n.outputs)
        if (o != no_value && !claim(n, o, 0, like)) return;
      return;
    }
    if (reshapes.contains(op)) {
      // The flat order is kept: the dim's digit has the same stride (its inner size times
      // the sizes after its axis) and must fall inside one axis of the output.
      const State s = in(n, 0);
      if (!carried(n, 0) || !claim(n, out, -1, nullptr)) return;
      const auto layout = [&](const Specialized& sp, std::int64_t v) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
        const std::vector<std::int64_t> din = sp.desc[n.inputs[0]].shape.values(), dout = sp.desc[out].shape.values();
        const auto b = static_cast<std::size_t>(state_[out].axis);
        std::int64_t stride = s.inner;
        for (std::size_t i = static_cast<std::size_t>(s.axis) + 1; i < din.size(); ++i) stride *= din[i];
        std::int64_t after = 1;
        for (std::size_t i = b + 1; i < dout.size(); ++i) after *= dout[i];
        if (stride % after != 0 || dout[b] % (v * (stride / after)) != 0) return std::nullopt;
        return std::pair{dout[b] / (v * (stride / after)), stride / after};
      };
      const auto la = layout(a_, va_), lb = layout(b_, vb_);
      if (!la || la != lb)
        return mix(n, "node '" + n.name + "' (" + op + ") spreads the padded dim over two axes of its output");
      state_[out].outer = la->first;
      state_[out].inner = la->second;
      return;
    }
    if (op == "Transpose") {
      const std::int32_t r = rank(out);
      std::vector<std::int64_t> perm;
      if (const auto it = n.attrs.find("perm"); it != n.attrs.end()) perm = it->second.as_ints();
      for (std::int32_t i = 0; perm.empty() && i < r; ++i) perm.insert(perm.begin(), i);
      const auto at = std::find(perm.begin(), perm.end(), in(n, 0).axis);
      claim(n, out, static_cast<std::int32_t>(at - perm.begin()), &in(n, 0));
      return;
    }
    if (op == "MatMul" || op == "FusedMatMul" || op == "MatMulInteger") return matmul(n);
    if (op == "Gemm") return gemm(n);
    if (op == "LSTM" || op == "GRU" || op == "RNN") return recurrent(n);
    if (op == "FusedAttention") return attention(n);
    if (op == "Gather" && carried(n, 1)) {
      if (carried(n, 0)) return mix(n, "node '" + n.name + "' (Gather) gathers padded data with padded indices");
      claim(n, out, norm(int_attr(n, "axis", 0), rank(n.inputs[0])) + in(n, 1).axis, &in(n, 1));
      return;
    }
    const auto m = mixing_axes(n, rank(n.inputs[0]));
    if (!m) return mix(n, "node '" + n.name + "' (" + op + ") is not known to keep the padded dim apart");
    const State* like = nullptr;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      if (!carried(n, k)) continue;
      if (std::find(m->begin(), m->end(), in(n, k).axis) != m->end())
        return mix(n, "node '" + n.name + "' (" + op + ") mixes elements across the padded dim (axis " +
                          std::to_string(in(n, k).axis) + " of input " + std::to_string(k) + ")");
      like = &in(n, k);
    }
    for (const ValueId o : n.outputs)
      if (o != no_value && !claim(n, o, -1, like)) return;
  }

  void matmul(const Node& n) {
    const ValueId out = n.outputs[0];
    const std::int32_t ro = rank(out);
    std::int32_t expected = -1;
    const State* like = nullptr;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      if (!carried(n, k)) continue;
      const std::int32_t r = rank(n.inputs[k]), a = in(n, k).axis;
      std::int32_t e = -1;
      if (k == 0 && r >= 2 && a != r - 1) e = a == r - 2 ? ro - 2 : a + ro - r;
      if (k == 1 && r >= 2 && a != r - 2) e = a == r - 1 ? ro - 1 : a + ro - r;
      if (k == 3 && n.op == "FusedMatMul") e = a + ro - r;  // the residual, element-wise
      if (e < 0 || (expected >= 0 && e != expected))
        return mix(n, "node '" + n.name + "' (" + n.op + ") contracts or mixes over the padded dim (input " +
                          std::to_string(k) + ", axis " + std::to_string(a) + ")");
      expected = e;
      like = &in(n, k);
    }
    claim(n, out, expected, like);
  }

  void gemm(const Node& n) {
    std::int32_t expected = -1;
    const State* like = nullptr;
    for (std::size_t k = 0; k < n.inputs.size() && k < 3; ++k) {
      if (!carried(n, k)) continue;
      const std::int32_t a = in(n, k).axis;
      std::int32_t e = -1;
      if (k == 0) e = a == (int_attr(n, "transA", 0) ? 1 : 0) ? 0 : -1;
      if (k == 1) e = a == (int_attr(n, "transB", 0) ? 0 : 1) ? 1 : -1;
      if (k == 2) e = a + 2 - rank(n.inputs[2]);
      if (e < 0 || (expected >= 0 && e != expected))
        return mix(n, "node '" + n.name + "' (Gemm) contracts over the padded dim (input " + std::to_string(k) + ")");
      expected = e;
      like = &in(n, k);
    }
    claim(n, n.outputs[0], expected, like);
  }

  void recurrent(const Node& n) {
    const bool batch_first = int_attr(n, "layout", 0) != 0;
    const std::int32_t x_axis = batch_first ? 0 : 1;
    const State* like = nullptr;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      if (!carried(n, k)) continue;
      like = &in(n, k);
      const std::int32_t want = k == 0 ? x_axis : k == 4 ? 0 : k >= 5 ? x_axis : -1;
      if (in(n, k).axis != want)
        return mix(n, "node '" + n.name + "' (" + n.op + ") runs across the padded dim (input " + std::to_string(k) +
                          ", axis " + std::to_string(in(n, k).axis) + "; only the batch is kept apart)");
    }
    for (std::size_t o = 0; o < n.outputs.size(); ++o)
      if (n.outputs[o] != no_value && !claim(n, n.outputs[o], o == 0 ? (batch_first ? 0 : 2) : x_axis, like)) return;
  }

  void attention(const Node& n) {
    const auto batch_axis = [&](const char* attr) {
      const auto it = n.attrs.find(attr);
      return it != n.attrs.end() && it->second.as_string() == "sbd" ? 1 : 0;
    };
    const char* layouts[] = {"q_layout", "k_layout", "v_layout"};
    const State* like = nullptr;
    for (std::size_t k = 0; k < n.inputs.size() && k < 3; ++k) {
      if (!carried(n, k)) continue;
      if (in(n, k).axis != batch_axis(layouts[k]) ||
          (like && (like->outer != in(n, k).outer || like->inner != in(n, k).inner)))
        return mix(n, "node '" + n.name + "' (FusedAttention) attends across the padded dim (input " + std::to_string(k) + ")");
      like = &in(n, k);
    }
    claim(n, n.outputs[0], batch_axis("out_layout"), like);
  }

  const Graph& g_;
  const Specialized& a_;
  const Specialized& b_;
  std::int64_t va_, vb_;
  std::vector<State> state_;
};

}  // namespace

std::vector<GearPadding> analyse_padding(const Graph& g, const std::vector<std::size_t>& order, const DynamicConfig& cfg,
                                         const std::vector<Gear>& gears,
                                         const std::vector<std::vector<Shape>>& gear_shapes) {
  std::vector<GearPadding> out;
  if (gears.empty()) return out;
  // (input, axis) of each gear value.
  const auto& entries = cfg.input_shape.entries();
  const auto hw = hw_index(cfg.input_format);
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> slots(gears.front().values.size());
  std::size_t next = 0;
  for (const InputShapeEntry& e : entries) {
    std::size_t input = g.inputs().size();
    for (std::size_t i = 0; i < g.inputs().size(); ++i)
      if (g.inputs()[i].name == e.name) input = i;
    for (std::size_t d = 0; d < e.shape.dims().size(); ++d) {
      if (!cfg.gear_slot(e.shape.dims()[d])) continue;
      std::size_t j = 0;
      if (cfg.gear_option == Option::dynamic_image_size) j = hw && static_cast<int>(d) == hw->w ? 1 : 0;
      if (cfg.gear_option == Option::dynamic_dims) j = next++;
      if (input < g.inputs().size() && j < slots.size()) slots[j].emplace_back(input, d);
    }
  }
  for (std::size_t j = 0; j < slots.size(); ++j) {
    GearPadding p;
    p.value = j;
    p.dims = slots[j];
    std::size_t lo = 0, hi = 0;
    for (std::size_t k = 0; k < gears.size(); ++k) {
      if (gears[k].values[j] < gears[lo].values[j]) lo = k;
      if (gears[k].values[j] > gears[hi].values[j]) hi = k;
    }
    const std::int64_t va = gears[lo].values[j];
    const std::int64_t vb = gears[hi].values[j] > va ? gears[hi].values[j] : va + 1;
    std::vector<Shape> sa = gear_shapes[lo], sb = sa;
    for (const auto& [input, axis] : slots[j]) {
      std::vector<Dim> dims = sb[input].dims();
      dims[axis] = Dim(vb);
      sb[input] = Shape(std::move(dims));
    }
    try {
      const Specialized a = specialize(g, sa, order, true);
      const Specialized b = specialize(g, sb, order, true);
      Analysis an(g, a, b, va, vb);
      for (const auto& [input, axis] : slots[j]) an.carry_input(g.inputs()[input].value, static_cast<std::int32_t>(axis));
      for (const std::size_t n : order) {
        const bool evaluated = !a.live[n] && !g.nodes()[n].outputs.empty() && a.folded[g.nodes()[n].outputs[0]].has_value();
        if (a.live[n] != b.live[n]) {
          p.reason = "node '" + g.nodes()[n].name + "' runs at one size of the padded dim and not at the other";
          break;
        }
        an.node(g.nodes()[n], a.live[n], evaluated);
      }
      if (p.reason.empty()) {
        p.independent = true;
        for (const ValueId v : g.outputs()) {
          const auto& s = an[v];
          if (s.kind == Kind::mixed || s.kind == Kind::size) {
            p.independent = false;
            p.reason = s.kind == Kind::mixed ? s.reason
                                             : "the output '" + g.values()[v].name + "' is computed from the padded dim's size";
            break;
          }
          if (s.kind == Kind::carried && s.outer != 1) {
            p.independent = false;
            p.reason = "the output '" + g.values()[v].name + "' holds the padded dim inside another dim of its axis " +
                       std::to_string(s.axis) + ", so its real part is no leading slice";
            break;
          }
          p.output_axis.push_back(s.kind == Kind::carried ? s.axis : -1);
          p.output_factor.push_back(s.kind == Kind::carried ? s.inner : 1);
        }
      }
    } catch (const Error& e) {
      p.reason = std::string("the graph could not be specialised at a second size of the dim: ") + e.what();
    }
    if (!p.independent) {
      p.output_axis.clear();
      p.output_factor.clear();
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace ge::detail
