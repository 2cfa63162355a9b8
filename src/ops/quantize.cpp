// Linear quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the
// integer products MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv. The products'
// shapes follow MatMul's and Conv's rules (their schemas are reused), their types are i32
// or the output zero point's.
#include <cmath>

#include "common.hpp"

namespace ge::ops {

namespace {

const TypeConstraint quantized_t1{"T1", TypeSet{DataType::u8, DataType::i8}};
const TypeConstraint quantized_t2{"T2", TypeSet{DataType::u8, DataType::i8}};
const TypeConstraint quantized_t3{"T3", TypeSet{DataType::u8, DataType::i8}};

// A scale or zero point (input `i`) for input `x`: one element, or with `axis` (when
// `axis` is set) one per entry of that axis of x.
void check_param(const InferContext& c, std::size_t i, std::size_t x, const std::string& axis_attr) {
  if (!c.has_input(i) || !c.shape(i).rank_known()) return;
  const Shape& p = c.shape(i);
  if (p.rank() == 0 || (p.rank() == 1 && p[0] == Dim(1))) return;
  if (axis_attr.empty() || p.rank() != 1)
    c.fail(Errc::bad_op_inputs, c.input_name(i) + " is [" + p.to_string() + "]; expected one element" +
                                    (axis_attr.empty() ? "" : " or a 1-D tensor (one per entry of axis)"));
  const Shape& xs = c.shape(x);
  if (!xs.rank_known()) return;
  const std::int64_t a = norm_axis(c, c.i(axis_attr), static_cast<std::int64_t>(xs.rank()), "axis");
  (void)merge_dims(c, xs[static_cast<std::ptrdiff_t>(a)], p[0], c.input_name(i) + " length vs X's axis " + std::to_string(a));
}

OpSchema quantize_linear() {
  return schema("QuantizeLinear", "y = saturate(rint(x / y_scale) + y_zero_point), per tensor or per entry of axis; "
                "u8 unless the zero point says i8",
                {arg("x", "T1"), arg("y_scale", "f32"), opt("y_zero_point", "T2")}, {arg("y", "T2")},
                {{"T1", TypeSet{DataType::f32, DataType::i32}}, quantized_t2}, {attr("axis", 1)},
                [](const InferContext& c) {
                  check_param(c, 1, 0, "axis");
                  check_param(c, 2, 0, "axis");
                  const DataType t = c.has_input(2) ? c.input(2).dtype : DataType::u8;
                  return std::vector<TensorDesc>{{t, c.shape(0)}};
                });
}

OpSchema dequantize_linear() {
  return schema("DequantizeLinear", "y = (x - x_zero_point) * x_scale, per tensor or per entry of axis",
                {arg("x", "T"), arg("x_scale", "f32"), opt("x_zero_point", "T")}, {arg("y", "f32")},
                {{"T", TypeSet{DataType::u8, DataType::i8, DataType::i32}}}, {attr("axis", 1)},
                [](const InferContext& c) {
                  check_param(c, 1, 0, "axis");
                  check_param(c, 2, 0, "axis");
                  return std::vector<TensorDesc>{{DataType::f32, c.shape(0)}};
                });
}

OpSchema dynamic_quantize_linear() {
  return schema("DynamicQuantizeLinear", "x quantized to u8 over its own range widened to hold 0: y, the scale and "
                "the zero point",
                {arg("x", "f32")}, {arg("y", "u8"), arg("y_scale", "f32"), arg("y_zero_point", "u8")}, {}, {},
                [](const InferContext& c) {
                  return std::vector<TensorDesc>{{DataType::u8, c.shape(0)}, {DataType::f32, Shape{}}, {DataType::u8, Shape{}}};
                });
}

// Output 0 of `base` (MatMul or Conv) on inputs `slots` of c taken as f32, typed `t`.
TensorDesc by_rule(const OpSchema& base, const InferContext& c, std::vector<std::size_t> slots, DataType t) {
  std::vector<TensorDesc> ins;
  for (const std::size_t s : slots) ins.push_back({DataType::f32, c.shape(s)});
  const std::vector<const Tensor*> constants(ins.size(), nullptr);
  const Attributes attrs = base.with_defaults(c.attrs());
  TensorDesc d = base.infer(InferContext(base, c.node(), ins, constants, attrs, 1)).at(0);
  d.dtype = t;
  return d;
}

OpSchema matmul_integer(const OpSchema& mm) {
  return schema("MatMulInteger", "Y (i32) = (A - a_zero_point) @ (B - b_zero_point); zero points per tensor, per row "
                "of A or per column of B",
                {arg("A", "T1"), arg("B", "T2"), opt("a_zero_point", "T1"), opt("b_zero_point", "T2")}, {arg("Y", "i32")},
                {quantized_t1, quantized_t2}, {}, [mm](const InferContext& c) {
                  return std::vector<TensorDesc>{by_rule(mm, c, {0, 1}, DataType::i32)};
                });
}

OpSchema qlinear_matmul(const OpSchema& mm) {
  return schema("QLinearMatMul", "y = quantize(dequantize(a) @ dequantize(b)) with y's scale and zero point",
                {arg("a", "T1"), arg("a_scale", "f32"), arg("a_zero_point", "T1"), arg("b", "T2"), arg("b_scale", "f32"),
                 arg("b_zero_point", "T2"), arg("y_scale", "f32"), arg("y_zero_point", "T3")},
                {arg("y", "T3")}, {quantized_t1, quantized_t2, quantized_t3}, {}, [mm](const InferContext& c) {
                  check_param(c, 6, 0, "");
                  check_param(c, 7, 0, "");
                  return std::vector<TensorDesc>{by_rule(mm, c, {0, 3}, c.input(7).dtype)};
                });
}

OpSchema conv_integer(const OpSchema& conv) {
  OpSchema s = schema("ConvInteger", "y (i32) = Conv(x - x_zero_point, w - w_zero_point); w's zero point per tensor "
                      "or per output channel",
                      {arg("x", "T1"), arg("w", "T2"), opt("x_zero_point", "T1"), opt("w_zero_point", "T2")},
                      {arg("y", "i32")}, {quantized_t1, quantized_t2}, conv.attrs, [conv](const InferContext& c) {
                        check_param(c, 2, 0, "");
                        return std::vector<TensorDesc>{by_rule(conv, c, {0, 1}, DataType::i32)};
                      });
  return s;
}

OpSchema qlinear_conv(const OpSchema& conv) {
  return schema("QLinearConv", "y = quantize(Conv(dequantize(x), dequantize(w)) + B * x_scale * w_scale) with y's "
                "scale and zero point; w's per tensor or per output channel",
                {arg("x", "T1"), arg("x_scale", "f32"), arg("x_zero_point", "T1"), arg("w", "T2"), arg("w_scale", "f32"),
                 arg("w_zero_point", "T2"), arg("y_scale", "f32"), arg("y_zero_point", "T3"), opt("B", "i32")},
                {arg("y", "T3")}, {quantized_t1, quantized_t2, quantized_t3}, conv.attrs, [conv](const InferContext& c) {
                  for (const std::size_t i : {1, 2, 6, 7}) check_param(c, i, 0, "");
                  return std::vector<TensorDesc>{by_rule(conv, c, {0, 3}, c.input(7).dtype)};
                });
}

}  // namespace

// A QuantizeLinear then DequantizeLinear of one scale and zero point, as one op (made by
// the compile pass that reads a QDQ model, compile/qdq.cpp): f32 in, f32 out.
OpSchema fake_quant() {
  return schema("FakeQuant", "y = (saturate(rint(x / scale) + zero_point, qmin, qmax) - zero_point) * scale: a "
                "QuantizeLinear and DequantizeLinear pair in one",
                {arg("x", "f32")}, {arg("y", "f32")}, {},
                {attr("scale", 1.0), attr("zero_point", std::int64_t{0}), attr("qmin", std::int64_t{0}),
                 attr("qmax", std::int64_t{255})},
                [](const InferContext& c) {
                  if (!(c.f("scale") > 0.0) || !std::isfinite(c.f("scale")) || c.i("qmin") < -128 ||
                      c.i("qmax") > 255 || c.i("qmin") >= c.i("qmax") || c.i("zero_point") < c.i("qmin") ||
                      c.i("zero_point") > c.i("qmax"))
                    c.fail(Errc::bad_attribute, "scale must be positive and finite, -128 <= qmin <= zero_point <= "
                                                "qmax <= 255 and qmin < qmax");
                  return std::vector<TensorDesc>{{DataType::f32, c.shape(0)}};
                });
}

void add_quantize_ops(OpRegistry& r) {
  add_op(r, internal_op(), fake_quant());
  add_op(r, onnx_op(13), quantize_linear());
  add_op(r, onnx_op(13), dequantize_linear());
  add_op(r, onnx_op(13), dynamic_quantize_linear());
  add_op(r, onnx_op(13), matmul_integer(r.find("MatMul")));
  add_op(r, onnx_op(13), qlinear_matmul(r.find("MatMul")));
  add_op(r, onnx_op(13), conv_integer(r.find("Conv")));
  add_op(r, onnx_op(13), qlinear_conv(r.find("Conv")));
}

}  // namespace ge::ops
