// Ops that the graph passes make by fusing what exporters emit (src/compile/fusions.cpp):
// FusedMatMul and FusedAttention. (FusedConv lives beside Conv in nn.cpp.)
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

}  // namespace

void add_fused_ops(OpRegistry& r) {
  OpSchema s;
  s.name = "FusedMatMul";
  s.doc = "Y = act(MatMul(A, B) + bias) + residual: a MatMul with its epilogue (activation none, Relu, Gelu or GeluTanh)";
  s.inputs = {arg("A", "T"), arg("B", "T"), opt("bias", "T"), opt("residual", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet{DataType::f32}}};
  s.attrs = {attr("activation", "none", one_of({"none", "Relu", "Gelu", "GeluTanh"}))};
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
  r.add(std::move(s));
  r.add(fused_attention());
}

}  // namespace ge::ops
