// ge::quantize_qdq (include/ge/runtime/quantize.hpp): which nodes to quantize, then the
// graph rebuilt node by node in topological order with QuantizeLinear/DequantizeLinear on
// their data inputs and DequantizeLinear on their int8 weights and int32 biases. The
// calibration is in quantize_calibrate.cpp.
#include "ge/runtime/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "ge/core/error.hpp"
#include "ge/core/text.hpp"
#include "runtime/quantize_calibrate.hpp"

namespace ge {

namespace {

const std::string area = "[ge.quantize] ";

// A node to quantize: its index, its weight's channel axis, whether its bias is quantized.
struct Target {
  std::size_t node = 0;
  std::int64_t axis = 0;
  bool bias = false;
};

std::int64_t int_attr(const Node& n, std::string_view name, std::int64_t fallback) {
  const auto it = n.attrs.find(name);
  return it == n.attrs.end() ? fallback : it->second.as_int();
}

double float_attr(const Node& n, std::string_view name, double fallback) {
  const auto it = n.attrs.find(name);
  return it == n.attrs.end() ? fallback : it->second.as_float();
}

// A 1-D f32 constant of `length` elements at input `i` of `n`.
bool is_bias(const Graph& g, const Node& n, std::size_t i, std::int64_t length) {
  if (n.inputs.size() <= i || n.inputs[i] == no_value) return false;
  const Tensor* t = g.constant_of(n.inputs[i]);
  return t != nullptr && t->has_data() && t->dtype() == DataType::f32 && t->dims() == std::vector<std::int64_t>{length};
}

// Whether node `n` is quantized; the reason it is not in `why`.
std::optional<Target> target_of(const Graph& g, std::size_t index, std::string& why) {
  const Node& n = g.nodes()[index];
  if (n.inputs.size() < 2 || n.inputs[0] == no_value || n.inputs[1] == no_value) {
    why = "it lacks a data input or a weight";
    return std::nullopt;
  }
  const ValueInfo& x = g.value(n.inputs[0]);
  const ValueInfo& wv = g.value(n.inputs[1]);
  const Tensor* w = g.constant_of(n.inputs[1]);
  if (x.desc.dtype != DataType::f32) {
    why = "its data input " + quoted(x.name) + " is " + std::string(to_string(x.desc.dtype)) + ", not f32";
  } else if (x.source == ValueSource::constant) {
    why = "its data input " + quoted(x.name) + " is a constant";
  } else if (w == nullptr || !w->has_data()) {
    why = "its weight " + quoted(wv.name) + " is not a constant";
  } else if (w->dtype() != DataType::f32) {
    why = "its weight " + quoted(wv.name) + " is " + std::string(to_string(w->dtype())) + ", not f32";
  } else if (n.op == "Conv" && w->dims().size() < 3) {
    why = "its weight " + quoted(wv.name) + " has rank " + std::to_string(w->dims().size()) + "; expected 3 or more";
  } else if (n.op != "Conv" && w->dims().size() != 2) {
    why = "its weight " + quoted(wv.name) + " is " + std::to_string(w->dims().size()) + "-D; only 2-D weights are quantized";
  } else if (w->element_count() == 0) {
    why = "its weight " + quoted(wv.name) + " is empty";
  } else if (n.op == "Conv") {
    return Target{index, 0, is_bias(g, n, 2, w->dims()[0])};
  } else if (n.op == "MatMul") {
    return Target{index, 1, false};
  } else {  // Gemm
    const bool trans_b = int_attr(n, "transB", 0) != 0;
    const std::int64_t axis = trans_b ? 0 : 1;
    const bool plain = float_attr(n, "alpha", 1.0) == 1.0 && float_attr(n, "beta", 1.0) == 1.0;
    return Target{index, axis, plain && is_bias(g, n, 2, w->dims()[static_cast<std::size_t>(axis)])};
  }
  return std::nullopt;
}

std::vector<float> floats_of(const Tensor& t) {
  std::vector<float> v(static_cast<std::size_t>(t.element_count()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(float));
  return v;
}

// u8 per-tensor parameters of the range [lo, hi] widened to hold 0.
QuantizeReport::Activation activation_params(const std::string& name, detail::ValueRange r) {
  const double lo = std::min(0.0, static_cast<double>(r.min));
  const double hi = std::max(0.0, static_cast<double>(r.max));
  QuantizeReport::Activation a{name, r.min, r.max, 1.f, 0};
  if (hi > lo) {
    a.scale = static_cast<float>((hi - lo) / 255.0);
    a.zero_point = static_cast<std::uint8_t>(std::clamp(std::nearbyint(-lo / static_cast<double>(a.scale)), 0.0, 255.0));
  }
  return a;
}

// The new graph, made node by node from the old one.
class Rewriter {
 public:
  // `replaced[c]`: constant c is read only where a quantized copy replaces it (it is
  // added only if something still reads it).
  Rewriter(const Graph& g, const std::vector<bool>& replaced, QuantizeReport& report)
      : g_(g), report_(report), map_(g.values().size(), no_value) {
    for (const ValueInfo& v : g.values()) values_.insert(v.name);
    for (const Node& n : g.nodes()) nodes_.insert(n.name);
    for (const GraphInput& in : g.inputs()) map_[in.value] = out_.add_input(in.name, in.dtype, in.shape, in.format);
    for (std::size_t c = 0; c < g.constants().size(); ++c)
      if (!replaced[c]) (void)get(g.constants()[c].value);
  }

  // Node `n` as it was, reading the new graph's values.
  void copy(const Node& n) { add(n, mapped(n.inputs)); }

  // Node `t.node` reading its data input, weight and bias through DequantizeLinear.
  void quantize(const Target& t, const QuantizeReport::Activation& x) {
    const Node& n = g_.nodes()[t.node];
    std::vector<ValueId> inputs(n.inputs.size(), no_value);
    inputs[0] = activation(n.inputs[0], x);
    const auto& [wq, w_scales] = weight(n.inputs[1], t.axis);
    inputs[1] = wq;
    if (t.bias) {
      const auto b = bias(n.inputs[2], x.scale, w_scales);
      inputs[2] = b ? *b : get(n.inputs[2]);
    }
    for (std::size_t i = t.bias ? 3 : 2; i < n.inputs.size(); ++i) inputs[i] = get(n.inputs[i]);
    add(n, std::move(inputs));
  }

  Graph finish() {
    for (const ValueId o : g_.outputs()) out_.add_output(get(o));
    out_.validate();
    return std::move(out_);
  }

 private:
  ValueId get(ValueId old) {
    if (old == no_value) return no_value;
    if (map_[old] == no_value) {  // a constant: added where first read
      const ValueInfo& info = g_.value(old);
      map_[old] = out_.add_constant(info.name, g_.constants()[info.producer].tensor);
    }
    return map_[old];
  }
  std::vector<ValueId> mapped(const std::vector<ValueId>& ids) {
    std::vector<ValueId> out;
    for (const ValueId v : ids) out.push_back(get(v));
    return out;
  }
  void add(const Node& n, std::vector<ValueId> inputs) {
    std::vector<ValueId> outputs;
    for (const ValueId o : n.outputs) outputs.push_back(map_[o] = out_.declare_value(g_.value(o).name, g_.value(o).desc));
    out_.add_node(n.name, n.op, std::move(inputs), std::move(outputs), n.attrs);
  }
  static std::string unique(std::unordered_set<std::string>& used, const std::string& base) {
    std::string name = base;
    for (int i = 1; used.contains(name); ++i) name = base + "_" + std::to_string(i);
    used.insert(name);
    return name;
  }
  ValueId constant(const std::string& base, Tensor t) { return out_.add_constant(unique(values_, base), std::move(t)); }
  ValueId node(const std::string& base, const std::string& op, std::vector<ValueId> inputs, const std::string& out_base,
               TensorDesc desc, Attributes attrs = {}) {
    const ValueId y = out_.declare_value(unique(values_, out_base), std::move(desc));
    out_.add_node(unique(nodes_, base), op, std::move(inputs), {y}, std::move(attrs));
    return y;
  }

  // The one QuantizeLinear -> DequantizeLinear pair of value `old`.
  ValueId activation(ValueId old, const QuantizeReport::Activation& a) {
    if (const auto it = activations_.find(old); it != activations_.end()) return it->second;
    const ValueInfo& info = g_.value(old);
    const ValueId s = constant(info.name + "_scale", Tensor::scalar<float>(a.scale));
    const ValueId zp = constant(info.name + "_zero_point", Tensor::scalar<std::uint8_t>(a.zero_point));
    const ValueId q = node(info.name + "_quantize", "QuantizeLinear", {get(old), s, zp}, info.name + "_quantized",
                           {DataType::u8, info.desc.shape});
    const ValueId dq = node(info.name + "_dq", "DequantizeLinear", {q, s, zp}, info.name + "_dequantized",
                            {DataType::f32, info.desc.shape});
    report_.activations.push_back(a);
    return activations_[old] = dq;
  }

  // The int8 weight of `old` per channel of `axis`, behind its DequantizeLinear; and its scales.
  const std::pair<ValueId, std::vector<float>>& weight(ValueId old, std::int64_t axis) {
    const auto key = std::make_pair(old, axis);
    if (const auto it = weights_.find(key); it != weights_.end()) return it->second;
    const ValueInfo& info = g_.value(old);
    const Tensor& t = *g_.constant_of(old);
    const std::vector<float> w = floats_of(t);
    const auto& dims = t.dims();
    const auto a = static_cast<std::size_t>(axis);
    std::size_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < a; ++i) outer *= static_cast<std::size_t>(dims[i]);
    for (std::size_t i = a + 1; i < dims.size(); ++i) inner *= static_cast<std::size_t>(dims[i]);
    const auto channels = static_cast<std::size_t>(dims[a]);
    const auto at = [&](std::size_t o, std::size_t c, std::size_t i) { return (o * channels + c) * inner + i; };
    std::vector<float> scales(channels, 0.f);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t c = 0; c < channels; ++c)
        for (std::size_t i = 0; i < inner; ++i) scales[c] = std::max(scales[c], std::abs(w[at(o, c, i)]));
    for (float& s : scales) s = s > 0.f && std::isfinite(s) ? static_cast<float>(static_cast<double>(s) / 127.0) : 1.f;
    std::vector<std::int8_t> q(w.size());
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t c = 0; c < channels; ++c)
        for (std::size_t i = 0; i < inner; ++i) {
          const double r = std::nearbyint(static_cast<double>(w[at(o, c, i)]) / static_cast<double>(scales[c]));
          q[at(o, c, i)] = static_cast<std::int8_t>(std::isnan(r) ? 0.0 : std::clamp(r, -127.0, 127.0));
        }
    const auto c64 = static_cast<std::int64_t>(channels);
    const ValueId wq = constant(info.name + "_quantized", Tensor::from<std::int8_t>(dims, q));
    const ValueId s = constant(info.name + "_scale", Tensor::from<float>({c64}, scales));
    const ValueId zp = constant(info.name + "_zero_point", Tensor::from<std::int8_t>({c64}, std::vector<std::int8_t>(channels, 0)));
    const ValueId dq = node(info.name + "_dq", "DequantizeLinear", {wq, s, zp}, info.name + "_dequantized",
                            {DataType::f32, info.desc.shape}, {{"axis", axis}});
    ++report_.weights;
    return weights_[key] = {dq, std::move(scales)};
  }

  // The int32 bias of `old` (scale x_scale * w_scale per channel), or nullopt when a
  // scale underflows (the bias stays f32).
  std::optional<ValueId> bias(ValueId old, float x_scale, const std::vector<float>& w_scales) {
    const ValueInfo& info = g_.value(old);
    const std::vector<float> b = floats_of(*g_.constant_of(old));
    std::vector<float> scales(b.size());
    std::vector<std::int32_t> q(b.size());
    for (std::size_t c = 0; c < b.size(); ++c) {
      scales[c] = static_cast<float>(static_cast<double>(x_scale) * static_cast<double>(w_scales[c]));
      if (!std::isnormal(scales[c])) return std::nullopt;
      const double r = std::nearbyint(static_cast<double>(b[c]) / static_cast<double>(scales[c]));
      q[c] = static_cast<std::int32_t>(std::isnan(r) ? 0.0 : std::clamp(r, -2147483648.0, 2147483647.0));
    }
    const auto n = static_cast<std::int64_t>(b.size());
    const ValueId bq = constant(info.name + "_quantized", Tensor::from<std::int32_t>({n}, q));
    const ValueId s = constant(info.name + "_scale", Tensor::from<float>({n}, scales));
    const ValueId zp = constant(info.name + "_zero_point", Tensor::from<std::int32_t>({n}, std::vector<std::int32_t>(b.size(), 0)));
    ++report_.biases;
    return node(info.name + "_dq", "DequantizeLinear", {bq, s, zp}, info.name + "_dequantized",
                {DataType::f32, info.desc.shape}, {{"axis", std::int64_t{0}}});
  }

  const Graph& g_;
  QuantizeReport& report_;
  Graph out_;
  std::vector<ValueId> map_;
  std::unordered_set<std::string> values_, nodes_;
  std::map<ValueId, ValueId> activations_;
  std::map<std::pair<ValueId, std::int64_t>, std::pair<ValueId, std::vector<float>>> weights_;
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void check_options(const QuantizeOptions& o) {
  if (!(o.percentile > 0.0 && o.percentile <= 100.0))
    raise(Errc::invalid_argument, area + "percentile " + number(o.percentile) + "; expected a value in (0, 100]");
  if (o.calibration.empty() && o.random_samples == 0)
    raise(Errc::invalid_argument, area + "random_samples 0 with no calibration sets; expected 1 or more");
  if (o.threads < 0) raise(Errc::invalid_argument, area + "threads " + std::to_string(o.threads) + "; expected 0 or more");
  if (o.op_types.empty()) raise(Errc::invalid_argument, area + "no op types to quantize; expected some of Conv, MatMul, Gemm");
  for (const std::string& op : o.op_types)
    if (op != "Conv" && op != "MatMul" && op != "Gemm")
      raise(Errc::invalid_argument, area + "op type " + quoted(op) + " cannot be quantized; expected Conv, MatMul or Gemm");
}

// Which constants only quantized nodes' weights and biases read (a graph with subgraphs,
// which read outer values by name, keeps every constant).
std::vector<bool> replaced_constants(const Graph& g, const std::vector<std::optional<Target>>& targets) {
  std::vector<bool> replaced(g.constants().size(), false), kept(g.constants().size(), false);
  const auto mark = [&](ValueId v, bool replace) {
    const ValueInfo& info = g.value(v);
    if (info.source != ValueSource::constant) return;
    (replace ? replaced : kept)[info.producer] = true;
  };
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    for (const auto& [name, a] : n.attrs)
      if (a.kind() == AttrKind::graph) return std::vector<bool>(g.constants().size(), false);
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] != no_value) mark(n.inputs[k], targets[i] && (k == 1 || (k == 2 && targets[i]->bias)));
  }
  for (const ValueId o : g.outputs()) mark(o, false);
  for (std::size_t c = 0; c < replaced.size(); ++c) replaced[c] = replaced[c] && !kept[c];
  return replaced;
}

}  // namespace

std::size_t QuantizeReport::quantized_nodes() const noexcept {
  std::size_t n = 0;
  for (const auto& [op, count] : quantized) n += count;
  return n;
}

std::string QuantizeReport::to_string() const {
  std::string s = "quantized " + std::to_string(quantized_nodes()) + " nodes";
  std::string sep = ": ";
  for (const auto& [op, count] : quantized) {
    s += sep + op + " " + std::to_string(count);
    sep = ", ";
  }
  s += "\n";
  if (quantized_nodes() > 0) {
    s += "Q/DQ pairs " + std::to_string(activations.size()) + " (u8, per tensor), weights " + std::to_string(weights) +
         " (i8, per channel), biases " + std::to_string(biases) + " (i32)\n";
    s += "calibration " + std::to_string(calibration_sets) + (random_calibration ? " random" : "") + " set" +
         (calibration_sets == 1 ? "" : "s") + (random_calibration ? " (seed " + std::to_string(seed) + ")" : "") + ", " +
         ranges + "\n";
  }
  for (const Skipped& k : skipped) s += "skipped " + quoted(k.node) + " (" + k.op + "): " + k.reason + "\n";
  return s;
}

Graph quantize_qdq(const Graph& f32_model, const QuantizeOptions& options, QuantizeReport* report) {
  check_options(options);
  QuantizeReport local;
  QuantizeReport& r = report != nullptr ? *report : local;
  r = {};
  const std::vector<std::vector<Tensor>> sets = detail::calibration_sets(f32_model, options);
  r.random_calibration = options.calibration.empty();
  r.seed = options.seed;
  r.ranges = options.method == CalibrationMethod::percentile ? "percentile " + number(options.percentile) + " of |x|"
                                                              : "min-max";

  const std::set<std::string, std::less<>> ops(options.op_types.begin(), options.op_types.end());
  std::vector<std::optional<Target>> targets(f32_model.nodes().size());
  std::vector<ValueId> values;  // the data inputs to calibrate, each once
  for (std::size_t i = 0; i < f32_model.nodes().size(); ++i) {
    const Node& n = f32_model.nodes()[i];
    if (!ops.contains(n.op)) continue;
    std::string why;
    targets[i] = target_of(f32_model, i, why);
    if (!targets[i]) {
      r.skipped.push_back({n.name, n.op, why});
      continue;
    }
    if (std::find(values.begin(), values.end(), n.inputs[0]) == values.end()) values.push_back(n.inputs[0]);
  }
  if (values.empty()) return f32_model;

  const std::vector<detail::ValueRange> ranges = detail::calibrate(f32_model, values, sets, options);
  r.calibration_sets = sets.size();
  Rewriter rw(f32_model, replaced_constants(f32_model, targets), r);
  for (const std::size_t i : f32_model.topological_order()) {
    const Node& n = f32_model.nodes()[i];
    if (!targets[i]) {
      rw.copy(n);
      continue;
    }
    const auto v = static_cast<std::size_t>(std::find(values.begin(), values.end(), n.inputs[0]) - values.begin());
    rw.quantize(*targets[i], activation_params(f32_model.value(n.inputs[0]).name, ranges[v]));
    ++r.quantized[n.op];
  }
  return rw.finish();
}

}  // namespace ge
