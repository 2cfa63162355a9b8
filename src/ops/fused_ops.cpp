// Ops that the graph passes make by fusing what exporters emit (src/compile/fusions.cpp,
// src/compile/layout.cpp): FusedMatMul, FusedAttention and FusedPointwiseDepthwise.
// (FusedConv lives beside Conv in nn.cpp.)
#include <algorithm>
#include <utility>

#include "common.hpp"

namespace ge::ops {

namespace {

// [batch, seq, dim] of a rank-3 input held as `layout` ("bsd" or "sbd").
std::vector<Dim> logical(const InferContext& c, std::size_t i, const std::string& layout) {
  const Shape& s = c.shape(i);
  if (!s.rank_known()) return {Dim::unknown(), Dim::unknown(), Dim::unknown()};
  if (s.rank() != 3)
    c.fail(Errc::bad_op_inputs, c.input_name(i) + " [" + s.to_string() + "] must have rank 3 ([batch, seq, dim] as " +
                                    layout + ")");
  const auto& d = s.dims();
  return layout == "bsd" ? std::vector<Dim>{d[0], d[1], d[2]} : std::vector<Dim>{d[1], d[0], d[2]};
}

OpSchema fused_attention() {
  OpSchema s;
  s.name = "FusedAttention";
  s.doc = "Y[b] = softmax(scale * Q[b] K[b]^T) V[b] per batch, each tensor [batch, seq, dim] (bsd) or [seq, batch, dim] (sbd)";
  s.inputs = {arg("Q", "T"), arg("K", "T"), arg("V", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet{DataType::f32}}};
  const auto layout = [](const char* name) { return attr(name, "bsd", one_of({"bsd", "sbd"})); };
  s.attrs = {attr("scale", 1.0), layout("q_layout"), layout("k_layout"), layout("v_layout"), layout("out_layout")};
  s.infer = [](const InferContext& c) {
    const auto q = logical(c, 0, c.s("q_layout")), k = logical(c, 1, c.s("k_layout")), v = logical(c, 2, c.s("v_layout"));
    const auto fit = [&](const Dim& a, const Dim& b, const std::string& what) {
      if (!compatible(a, b))
        c.fail(Errc::bad_op_inputs, what + " differ: Q [" + c.shape(0).to_string() + "], K [" + c.shape(1).to_string() +
                                        "], V [" + c.shape(2).to_string() + "]");
      return merge(a, b);
    };
    const Dim batch = fit(fit(q[0], k[0], "the batches"), v[0], "the batches");
    (void)fit(q[2], k[2], "the feature dims of Q and K");
    (void)fit(k[1], v[1], "the sequence lengths of K and V");
    const std::vector<Dim> y = c.s("out_layout") == "bsd" ? std::vector<Dim>{batch, q[1], v[2]}
                                                            : std::vector<Dim>{q[1], batch, v[2]};
    return std::vector<TensorDesc>{{c.input(0).dtype, Shape(y)}};
  };
  return s;
}

// The attributes of the pointwise conv of a FusedPointwiseDepthwise, by the names
// FusedConv gives them.
constexpr std::pair<const char*, const char*> kPointwiseAttrs[] = {
    {"pointwise_activation", "activation"},
    {"pointwise_clip_min", "clip_min"},
    {"pointwise_clip_max", "clip_max"},
    {"pointwise_alpha", "alpha"},
    {"pointwise_beta", "beta"},
    {"pointwise_x_scale", "x_scale"},  // an int8 pointwise conv (compile/qdq.cpp)
    {"pointwise_x_zero_point", "x_zero_point"},
    {"pointwise_y_scale", "y_scale"},
    {"pointwise_y_zero_point", "y_zero_point"},
    {"pointwise_y_qmin", "y_qmin"},
    {"pointwise_y_qmax", "y_qmax"}};

// Two NHWC FusedConvs in one node (made by `ge::layout_nhwc` on an inverted-residual
// block): a pointwise conv Y1 = act1(conv1x1(X, W1) + B1), then a depthwise one
// Y = act(dwconv(Y1, W2) + B2 + Z), the expanded Y1 never stored; both with a bias. The depthwise conv has
// FusedConv's attributes; the pointwise one stride 1, no pads, and its activation in
// pointwise_activation / pointwise_clip_min / pointwise_clip_max.
OpSchema fused_pointwise_depthwise(const OpSchema& conv) {
  OpSchema s;
  s.name = "FusedPointwiseDepthwise";
  s.doc = "NHWC pointwise FusedConv then depthwise FusedConv on its output, in one pass (made by the layout pass)";
  s.inputs = {arg("X", "T"), arg("W1", "T"), arg("B1", "T"), arg("W2", "T"), arg("B2", "T"), opt("Z", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet{DataType::f32}}};
  s.attrs = conv.attrs;
  for (AttrSpec& a : s.attrs)
    if (a.name == "layout") a = attr("layout", "NHWC", one_of({"NHWC"}));
  for (const auto& [name, conv_name] : kPointwiseAttrs)
    for (const AttrSpec& a : conv.attrs)
      if (a.name == conv_name) {
        AttrSpec copy = a;
        copy.name = name;
        s.attrs.push_back(std::move(copy));
      }
  std::sort(s.attrs.begin(), s.attrs.end(), [](const AttrSpec& a, const AttrSpec& b) { return a.name < b.name; });
  s.infer = [conv](const InferContext& c) {
    // Each conv by FusedConv's rule, on its inputs and attributes.
    const auto stage = [&](std::vector<std::size_t> slots, const std::vector<TensorDesc>& descs, const Attributes& attrs) {
      std::vector<TensorDesc> ins = descs;
      std::vector<const Tensor*> constants(ins.size(), nullptr);
      for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[i] < c.input_count()) constants[i] = c.constant(slots[i]);
      const Attributes resolved = conv.with_defaults(attrs);
      return conv.infer(InferContext(conv, c.node(), ins, constants, resolved, 1));
    };
    const auto desc = [&](std::size_t i) { return i < c.input_count() ? c.input(i) : TensorDesc{}; };
    Attributes pw{{"layout", Attribute("NHWC")}};
    Attributes dw = c.attrs();
    for (const auto& [name, conv_name] : kPointwiseAttrs) {
      if (const auto it = dw.find(name); it != dw.end()) pw.insert_or_assign(conv_name, it->second);
      dw.erase(name);
    }
    const std::vector<TensorDesc> mid = stage({0, 1, 2}, {desc(0), desc(1), desc(2)}, pw);
    std::vector<TensorDesc> dw_in{mid[0], desc(3), desc(4)};
    if (c.has_input(5)) dw_in.push_back(desc(5));
    return stage({c.input_count(), 3, 4, 5}, dw_in, dw);
  };
  return s;
}

}  // namespace

void add_fused_ops(OpRegistry& r) {
  OpSchema s;
  s.name = "FusedMatMul";
  s.doc = "Y = act(MatMul(A, B) + bias) + residual: a MatMul with its epilogue (activation none, Relu, Gelu or GeluTanh)";
  s.inputs = {arg("A", "T"), arg("B", "T"), opt("bias", "T"), opt("residual", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet{DataType::f32}}};
  // x_scale > 0: A quantized to u8 (x_scale, x_zero_point) and the product in int8, as
  // FusedConv's (compile/qdq.cpp).
  s.attrs = {attr("activation", "none", one_of({"none", "Relu", "Gelu", "GeluTanh"})), attr("x_scale", 0.0),
             attr("x_zero_point", std::int64_t{0})};
  const InferFn product = r.find("MatMul").infer;
  s.infer = [product](const InferContext& c) {
    std::vector<TensorDesc> out = product(c);
    const Shape& y = out[0].shape;
    if (c.has_input(2) && c.shape(2).rank_known() && y.rank_known() && !y.dims().empty()) {
      const Shape& b = c.shape(2);
      const Dim n = y.dims().back();
      if (b.rank() != 1 || !compatible(b.dims()[0], n))
        c.fail(Errc::bad_op_inputs, "input 2 (bias) [" + b.to_string() + "] must be one value per column: [" +
                                        n.to_string() + "]");
    }
    if (c.has_input(3)) out[0].shape = broadcast_shapes(c, y, c.shape(3));
    return out;
  };
  add_op(r, internal_op(), std::move(s));
  add_op(r, internal_op(), fused_attention());
  add_op(r, internal_op(), fused_pointwise_depthwise(r.find("FusedConv")));
}

}  // namespace ge::ops
