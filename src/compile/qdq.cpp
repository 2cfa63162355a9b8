// Quantized (QDQ) models: a model says where values are quantized with QuantizeLinear then
// DequantizeLinear pairs on activations and DequantizeLinear on constant int8 weights.
// Two passes run it well:
//
// - `fold_qdq_pairs` (first, before constants fold): each DequantizeLinear fed by a
//   QuantizeLinear of the same constant per-tensor scale and zero point becomes one
//   FakeQuant (f32 in, f32 out: the pair's round trip in one pass over memory, no u8
//   tensor between). The weights' DequantizeLinear folds into f32 constants as usual.
// - `quantize_products` (after the layout pass): an NHWC FusedConv (one group) or a
//   MatMul / FusedMatMul / Gemm (made a FusedMatMul) by constant weights whose input is
//   a FakeQuant over the u8 (or
//   i8) range, and whose weights lie on a per-channel int8 grid (`cpu::int8_grid`: the
//   dequantized int8 weights, also with a BatchNormalization folded in), reads the
//   FakeQuant's input instead and carries its scale and zero point (x_scale,
//   x_zero_point): its kernel quantizes the input as it makes the product's operand and
//   runs the product in int8 (kernels/cpu/int8/int8.hpp), which gives the model's values (the
//   i32 sums are exact). Only where the CPU has the int8 kernels (AVX512-VNNI): elsewhere
//   the FakeQuant stays and the product runs in f32 on the same values.
#include <cstdint>
#include <optional>
#include <vector>

#include "compile/pass_work.hpp"
#include "ge/compile/passes.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge::detail {

namespace {

// A constant holding one number (rank 0 or [1]) as a double, or nullopt.
std::optional<double> scalar_of(const Work& w, ValueId v) {
  const Tensor* t = w.constant(v);
  if (t == nullptr || t->element_count() != 1 || !t->has_data()) return std::nullopt;
  return t->to_doubles().front();
}

struct Quant {
  double scale = 1.0;
  std::int64_t zero_point = 0, lo = 0, hi = 255;
};

// The per-tensor quantization a QuantizeLinear or DequantizeLinear node's constant scale
// and zero point say (zero point absent: u8 0), or nullopt.
std::optional<Quant> quant_of(const Work& w, const WNode& n) {
  if (n.inputs.size() < 2) return std::nullopt;
  const auto scale = scalar_of(w, n.inputs[1]);
  if (!scale || !(*scale > 0.0)) return std::nullopt;
  Quant q{*scale, 0, 0, 255};
  if (n.inputs.size() > 2 && n.inputs[2] != no_value) {
    const Tensor* zp = w.constant(n.inputs[2]);
    const auto z = scalar_of(w, n.inputs[2]);
    if (zp == nullptr || !z) return std::nullopt;
    if (zp->dtype() == DataType::i8) {
      q.lo = -128;
      q.hi = 127;
    } else if (zp->dtype() != DataType::u8) {
      return std::nullopt;
    }
    q.zero_point = static_cast<std::int64_t>(*z);
  }
  return q;
}

// A Gemm by constant weights `b` (alpha 1, beta 1, A not transposed, C absent or a
// constant of one value per column) whose weights lie on an int8 grid becomes a
// FusedMatMul by B (B^T of transB made a new constant) with C as its bias. False (and
// the node as it was) otherwise.
bool gemm_as_matmul(Work& w, WNode& n, const Tensor& b) {
  const auto number = [&](const char* name, double def) {
    const auto a = attr_of(n, name);
    return a ? (a->kind() == AttrKind::floating ? a->as_float() : static_cast<double>(a->as_int())) : def;
  };
  if (number("alpha", 1.0) != 1.0 || number("beta", 1.0) != 1.0 || number("transA", 0) != 0) return false;
  const bool trans = number("transB", 0) != 0;
  if (b.dims().size() != 2) return false;
  const std::int64_t k = trans ? b.dims()[1] : b.dims()[0], cols = trans ? b.dims()[0] : b.dims()[1];
  const auto* data = reinterpret_cast<const float*>(b.bytes().data());
  if (!cpu::int8_grid(k, cols, data, b.dims()[1], trans)) return false;
  std::vector<float> bias;
  if (n.inputs.size() > 2 && n.inputs[2] != no_value) {
    const Tensor* c = w.constant(n.inputs[2]);
    if (c == nullptr || c->dtype() != DataType::f32 || !c->has_data()) return false;
    const std::int64_t count = c->element_count();
    const auto& cd = c->dims();
    if (count != 1 && (count != cols || cd.empty() || cd.back() != cols)) return false;
    const auto* cv = reinterpret_cast<const float*>(c->bytes().data());
    for (std::int64_t j = 0; j < cols; ++j) bias.push_back(cv[count == 1 ? 0 : j]);
  }
  std::vector<float> kn(static_cast<std::size_t>(k * cols));
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < cols; ++j)
      kn[static_cast<std::size_t>(p * cols + j)] = trans ? data[j * k + p] : data[p * cols + j];
  std::vector<ValueId> ins{n.inputs[0], w.add_constant(n.name + ".weights", Tensor::from({k, cols}, kn))};
  if (!bias.empty()) ins.push_back(w.add_constant(n.name + ".bias", Tensor::from({cols}, bias)));
  n.op = "FusedMatMul";
  n.inputs = std::move(ins);
  n.attrs = {};
  return true;
}

// Per value, the alive node that makes it (`w.nodes.size()`: none).
std::vector<std::size_t> producers(const Work& w) {
  std::vector<std::size_t> producer(w.values.size(), w.nodes.size());
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    if (w.nodes[i].alive)
      for (const ValueId v : w.nodes[i].outputs)
        if (v != no_value) producer[v] = i;
  return producer;
}

}  // namespace

void fold_qdq_pairs(Work& w, PassStats& s) {
  const std::vector<std::size_t> producer = producers(w);
  for (const std::size_t i : w.order) {
    WNode& dq = w.nodes[i];
    if (!dq.alive || dq.op != "DequantizeLinear" || dq.inputs.empty() || dq.outputs.size() != 1) continue;
    const ValueId qv = dq.inputs[0];
    if (qv == no_value || producer[qv] == w.nodes.size()) continue;
    const WNode& q = w.nodes[producer[qv]];
    if (q.op != "QuantizeLinear" || q.inputs.empty() || w.desc(q.inputs[0]).dtype != DataType::f32) continue;
    const auto a = quant_of(w, q), b = quant_of(w, dq);
    if (!a || !b || a->scale != b->scale || a->zero_point != b->zero_point || a->lo != b->lo) continue;
    const ValueId x = q.inputs[0];
    dq.op = "FakeQuant";
    dq.inputs = {x};
    dq.attrs = {{"scale", Attribute(a->scale)},
                {"zero_point", Attribute(a->zero_point)},
                {"qmin", Attribute(a->lo)},
                {"qmax", Attribute(a->hi)}};
    ++s.nodes_removed;  // the DequantizeLinear
    ++s.nodes_added;
  }
  // A QuantizeLinear nothing reads now goes here, not at the end: until then the layout
  // pass would see each of its inputs leave the conv chains.
  const Work::Readers readers = w.readers();
  for (WNode& q : w.nodes)
    if (q.alive && q.op == "QuantizeLinear" && q.outputs.size() == 1 && readers.count[q.outputs[0]] == 0 &&
        !w.is_output(q.outputs[0])) {
      q.alive = false;
      ++s.nodes_removed;
    }
}

void quantize_products(Work& w, PassStats& s) {
  if (!cpu::int8_usable()) return;
  const std::vector<std::size_t> producer = producers(w);
  for (const std::size_t i : w.order) {
    WNode& n = w.nodes[i];
    if (!n.alive || n.inputs.size() < 2 || n.outputs.size() != 1) continue;
    const bool conv = n.op == "FusedConv", matmul = n.op == "MatMul" || n.op == "FusedMatMul", gemm = n.op == "Gemm";
    if (!conv && !matmul && !gemm) continue;
    const ValueId x = n.inputs[0];
    if (x == no_value || producer[x] == w.nodes.size()) continue;
    const WNode& fq = w.nodes[producer[x]];
    if (!fq.alive || fq.op != "FakeQuant") continue;
    const auto lo = attr_of(fq, "qmin"), hi = attr_of(fq, "qmax"), zp = attr_of(fq, "zero_point"),
               scale = attr_of(fq, "scale");
    if (!lo || !hi || !zp || !scale || hi->as_int() - lo->as_int() != 255) continue;
    const Tensor* wt = w.constant(n.inputs[1]);
    if (wt == nullptr || wt->dtype() != DataType::f32 || !wt->has_data()) continue;
    const auto* data = reinterpret_cast<const float*>(wt->bytes().data());
    const auto& d = wt->dims();
    if (conv) {
      const auto layout = attr_of(n, "layout"), group = attr_of(n, "group");
      if (!layout || layout->as_string() != "NHWC" || (group && group->as_int() != 1) || d.size() != 4) continue;
      const std::int64_t k = d[1] * d[2] * d[3];
      if (!cpu::int8_grid(k, d[0], data, k, true)) continue;
    } else if (gemm) {
      if (!gemm_as_matmul(w, n, *wt)) continue;
    } else {
      if (d.size() != 2 || !cpu::int8_grid(d[0], d[1], data, d[1], false)) continue;
      if (n.op == "MatMul") {
        n.op = "FusedMatMul";
        n.attrs = {};
      }
    }
    n.inputs[0] = fq.inputs[0];
    n.attrs.insert_or_assign("x_scale", *scale);
    n.attrs.insert_or_assign("x_zero_point", Attribute(zp->as_int() - lo->as_int()));
    ++s.nodes_added;
  }
  // An int8 conv whose one reader is a FakeQuant (a depthwise conv's quantized input, that
  // conv staying f32) requantizes in its epilogue, after an activation that is applied on
  // store (none, Relu, Clip): no pass over the image of its own.
  const Work::Readers readers = w.readers();
  for (const std::size_t i : w.order) {
    WNode& n = w.nodes[i];
    if (!n.alive || n.op != "FusedConv" || n.outputs.size() != 1) continue;
    const auto xs = attr_of(n, "x_scale");
    const auto act = attr_of(n, "activation");
    if (!xs || !(xs->as_float() > 0.0)) continue;
    if (act && act->as_string() != "" && act->as_string() != "Relu" && act->as_string() != "Clip") continue;
    const ValueId y = n.outputs[0];
    if (readers.count[y] != 1 || w.is_output(y)) continue;
    WNode& fq = w.nodes[readers.node[y]];
    if (!fq.alive || fq.op != "FakeQuant" || fq.outputs.size() != 1) continue;
    for (const auto& [from, to] : {std::pair{"scale", "y_scale"}, std::pair{"zero_point", "y_zero_point"},
                                   std::pair{"qmin", "y_qmin"}, std::pair{"qmax", "y_qmax"}})
      if (const auto a = attr_of(fq, from)) n.attrs.insert_or_assign(to, *a);
    n.outputs = {fq.outputs[0]};
    fq.alive = false;
    ++s.nodes_removed;
  }
}

}  // namespace ge::detail

namespace ge {

Graph fold_qdq_pairs(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fold_qdq_pairs", detail::fold_qdq_pairs);
}

Graph quantize_products(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "quantize_products", detail::quantize_products);
}

}  // namespace ge
