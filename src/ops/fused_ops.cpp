// Ops that the graph passes make by fusing what exporters emit (src/compile/fusions.cpp,
// src/compile/layout.cpp): FusedMatMul, FusedAttention, FusedPointwiseDepthwise and
// FusedDepthwisePointwise.
// (FusedConv lives beside Conv in nn.cpp.)
#include <algorithm>
#include <utility>

#include "common.hpp"

namespace ge::ops {

namespace {

constexpr bool has_heads(const std::string& layout) { return layout == "bhsd" || layout == "bshd"; }

// [batch, heads, seq, dim] of input `i` held as `layout` (heads 1 for the rank-3 layouts).
std::vector<Dim> logical(const InferContext& c, std::size_t i, const std::string& layout) {
  const Shape& s = c.shape(i);
  const std::size_t rank = has_heads(layout) ? 4 : 3;
  if (!s.rank_known()) return {Dim::unknown(), rank == 4 ? Dim::unknown() : Dim(1), Dim::unknown(), Dim::unknown()};
  if (s.rank() != rank)
    c.fail(Errc::bad_op_inputs, c.input_name(i) + " [" + s.to_string() + "] must have rank " + std::to_string(rank) +
                                    " (" + layout + ")");
  const auto& d = s.dims();
  if (layout == "bsd") return {d[0], Dim(1), d[1], d[2]};
  if (layout == "sbd") return {d[1], Dim(1), d[0], d[2]};
  if (layout == "bhsd") return {d[0], d[1], d[2], d[3]};
  return {d[0], d[2], d[1], d[3]};  // bshd
}

// The mask's dims against the scores [B, H, Sq, Sk] (no H without heads): numpy's
// broadcasting from the right, or a batch dim that divides B (the kernel reads batch
// b mod it).
void check_mask(const InferContext& c, const std::vector<Dim>& scores, bool heads) {
  const Shape& m = c.shape(3);
  if (!m.rank_known()) return;
  const std::vector<Dim> axes = heads ? scores : std::vector<Dim>{scores[0], scores[2], scores[3]};
  const auto bad = [&] {
    c.fail(Errc::bad_op_inputs, "Mask [" + m.to_string() + "] does not broadcast to the scores [" +
                                    Shape(axes).to_string() + "]");
  };
  if (m.rank() > axes.size()) bad();
  const std::size_t skip = axes.size() - m.rank();
  for (std::size_t i = 0; i < m.rank(); ++i) {
    const Dim& md = m.dims()[i];
    const Dim& sd = axes[skip + i];
    if (broadcastable(md, sd)) continue;
    const bool periodic = skip + i == 0 && md.is_static() && sd.is_static() && md.value() > 0 &&
                          sd.value() % md.value() == 0;
    if (!periodic) bad();
  }
}

OpSchema fused_attention() {
  OpSchema s;
  s.name = "FusedAttention";
  s.doc = "Y[b,h] = softmax(scale * Q[b,h] K[b,h]^T + Mask) V[b,h] per batch (and head), each tensor [batch, seq, dim] "
          "(bsd), [seq, batch, dim] (sbd), [batch, heads, seq, dim] (bhsd) or [batch, seq, heads, dim] (bshd); Mask "
          "broadcasts to the scores, or its batch dim divides the batch (batch b reads b mod it)";
  s.inputs = {arg("Q", "T"), arg("K", "T"), arg("V", "T"), opt("Mask", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet{DataType::f32}}};
  const auto layout = [](const char* name) { return attr(name, "bsd", one_of({"bsd", "sbd", "bhsd", "bshd"})); };
  s.attrs = {attr("scale", 1.0), layout("q_layout"), layout("k_layout"), layout("v_layout"), layout("out_layout")};
  s.infer = [](const InferContext& c) {
    const bool heads = has_heads(c.s("q_layout"));
    for (const char* a : {"k_layout", "v_layout", "out_layout"})
      if (has_heads(c.s(a)) != heads)
        c.fail(Errc::bad_op_inputs, std::string("q_layout ") + c.s("q_layout") + " and " + a + " " + c.s(a) +
                                        " must both have heads or neither");
    const auto q = logical(c, 0, c.s("q_layout")), k = logical(c, 1, c.s("k_layout")), v = logical(c, 2, c.s("v_layout"));
    const auto fit = [&](const Dim& a, const Dim& b, const std::string& what) {
      if (!compatible(a, b))
        c.fail(Errc::bad_op_inputs, what + " differ: Q [" + c.shape(0).to_string() + "], K [" + c.shape(1).to_string() +
                                        "], V [" + c.shape(2).to_string() + "]");
      return merge(a, b);
    };
    const Dim batch = fit(fit(q[0], k[0], "the batches"), v[0], "the batches");
    const Dim h = fit(fit(q[1], k[1], "the heads"), v[1], "the heads");
    (void)fit(q[3], k[3], "the feature dims of Q and K");
    (void)fit(k[2], v[2], "the sequence lengths of K and V");
    if (c.has_input(3)) check_mask(c, {batch, h, q[2], k[2]}, heads);
    const std::string& out = c.s("out_layout");
    const std::vector<Dim> y = out == "bsd"    ? std::vector<Dim>{batch, q[2], v[3]}
                               : out == "sbd"  ? std::vector<Dim>{q[2], batch, v[3]}
                               : out == "bhsd" ? std::vector<Dim>{batch, h, q[2], v[3]}
                                               : std::vector<Dim>{batch, q[2], h, v[3]};
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

// Two NHWC FusedConvs in one node, both with a bias, the value between them never stored
// (made by the layout pass's fusions on an inverted-residual block). The depthwise conv
// has FusedConv's attributes; the pointwise one stride 1, no pads, and its epilogue in
// pointwise_activation / pointwise_clip_min / ... (kPointwiseAttrs).
// FusedPointwiseDepthwise: Y1 = act1(conv1x1(X, W1) + B1), then Y = act(dwconv(Y1, W2) +
// B2 + Z). FusedDepthwisePointwise: Y1 = act(dwconv(X, W1) + B1), then Y =
// act2(conv1x1(Y1, W2) + B2 + Z).
OpSchema fused_two_convs(const OpSchema& conv, bool pointwise_first) {
  OpSchema s;
  s.name = pointwise_first ? "FusedPointwiseDepthwise" : "FusedDepthwisePointwise";
  s.doc = pointwise_first ? "NHWC pointwise FusedConv then depthwise FusedConv on its output, in one pass (made "
                            "by the layout pass)"
                          : "NHWC depthwise FusedConv then pointwise FusedConv on its output, in one pass (made "
                            "by ge::fuse_depthwise_pointwise)";
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
  s.infer = [conv, pointwise_first](const InferContext& c) {
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
    const std::vector<TensorDesc> mid = stage({0, 1, 2}, {desc(0), desc(1), desc(2)}, pointwise_first ? pw : dw);
    std::vector<TensorDesc> second{mid[0], desc(3), desc(4)};
    if (c.has_input(5)) second.push_back(desc(5));
    return stage({c.input_count(), 3, 4, 5}, second, pointwise_first ? dw : pw);
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
  add_op(r, internal_op(), fused_two_convs(r.find("FusedConv"), true));
  add_op(r, internal_op(), fused_two_convs(r.find("FusedConv"), false));
}

}  // namespace ge::ops
