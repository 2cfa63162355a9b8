// Ops that the graph passes make by fusing what exporters emit (src/compile/fusions.cpp):
// FusedMatMul. (FusedConv lives beside Conv in nn.cpp.)
#include "common.hpp"

namespace ge::ops {

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
}

}  // namespace ge::ops
