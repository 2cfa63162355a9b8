// The element-wise math and activation family beyond the basics: trigonometric and
// hyperbolic maps, rounding, Sign, Reciprocal, the activations with attributes (Elu,
// Selu, Celu, ThresholdedRelu, Shrink, Softplus, Softsign, Mish), IsNaN and IsInf, PRelu
// (slope broadcast to X), the bool logic ops, the ordered comparisons and BitShift.
#include "common.hpp"

namespace ge::ops {

namespace {

const TypeSet unsigned_ints{DataType::u8, DataType::u16, DataType::u32, DataType::u64};

// A binary op of one type T with numpy broadcasting, writing `out` (a type name or "T").
OpSchema broadcast_binary(std::string name, std::string doc, TypeSet types, std::string out,
                          std::vector<AttrSpec> attrs = {}) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = {arg("A", "T"), arg("B", "T")};
  s.outputs = {arg("C", out)};
  s.types = {{"T", types}};
  s.attrs = std::move(attrs);
  const bool same = out == "T";
  if (same) s.in_place = {{0, 0}, {0, 1}};
  s.infer = [same, out](const InferContext& c) {
    const DataType t = same ? c.input(0).dtype : parse_data_type(out);
    return std::vector<TensorDesc>{{t, broadcast_shapes(c, c.shape(0), c.shape(1))}};
  };
  return s;
}

// IsNaN and IsInf: X floating, Y bool of X's shape.
OpSchema float_test(std::string name, std::string doc, std::vector<AttrSpec> attrs) {
  OpSchema s = unary(std::move(name), std::move(doc), TypeSet::floats(), std::move(attrs));
  s.inputs = {arg("X", "T1")};
  s.outputs = {arg("Y", "bool")};
  s.types = {{"T1", TypeSet::floats()}};
  s.in_place = {};
  s.infer = [](const InferContext& c) { return std::vector<TensorDesc>{{DataType::boolean, c.shape(0)}}; };
  return s;
}

// PRelu: Y = X < 0 ? slope * X : X, slope broadcast to X's shape (one way only).
OpSchema prelu() {
  OpSchema s;
  s.name = "PRelu";
  s.doc = "Y = X < 0 ? slope * X : X; slope broadcasts to X (numpy rules, one way)";
  s.inputs = {arg("X", "T"), arg("slope", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet::floats()}};
  s.in_place = {{0, 0}};
  s.infer = [](const InferContext& c) {
    const Shape& x = c.shape(0);
    const Shape& slope = c.shape(1);
    const Shape b = broadcast_shapes(c, x, slope);
    if (x.rank_known() && slope.rank_known()) {
      bool one_way = slope.rank() <= x.rank();
      for (std::size_t i = 0; one_way && i < b.rank(); ++i) {
        const Dim& xd = x[i];
        one_way = !(xd.is_static() && xd.value() == 1 && !b[i].contains(1));
      }
      if (!one_way)
        c.fail(Errc::incompatible_shapes, "slope [" + slope.to_string() + "] does not broadcast to X [" +
                                              x.to_string() + "]; expected a slope of X's shape or broadcastable to it");
    }
    return std::vector<TensorDesc>{{c.input(0).dtype, x}};
  };
  return s;
}

Check non_zero() {
  return [](const Attribute& a) -> std::string { return a.as_float() != 0.0 ? std::string() : "a non-zero value"; };
}

}  // namespace

void add_elementwise_math_ops(OpRegistry& r) {
  const TypeSet f = TypeSet::floats();
  const char* maps[][2] = {
      {"Reciprocal", "Y = 1 / X"},   {"Sin", "Y = sin(X)"},         {"Cos", "Y = cos(X)"},
      {"Tan", "Y = tan(X)"},         {"Asin", "Y = asin(X)"},       {"Acos", "Y = acos(X)"},
      {"Atan", "Y = atan(X)"},       {"Sinh", "Y = sinh(X)"},       {"Cosh", "Y = cosh(X)"},
      {"Asinh", "Y = asinh(X)"},     {"Acosh", "Y = acosh(X)"},     {"Atanh", "Y = atanh(X)"},
      {"Softplus", "Y = log(1 + exp(X))"}, {"Softsign", "Y = X / (1 + |X|)"},
      {"Round", "Y = X rounded to the nearest integer, halves to even"}, {"Floor", "Y = floor(X)"},
      {"Ceil", "Y = ceil(X)"}};
  for (const auto& [name, doc] : maps) add_op(r, onnx_op(13), unary(name, doc, f));
  add_op(r, onnx_op(18), unary("Mish", "Y = X * tanh(softplus(X))", f));
  add_op(r, onnx_op(13), unary("Sign", "Y = -1, 0 or 1 by the sign of X", TypeSet::numeric()));
  add_op(r, onnx_op(13), unary("Elu", "Y = X < 0 ? alpha * (exp(X) - 1) : X", f, {attr("alpha", 1.0)}));
  add_op(r, onnx_op(13),
         unary("Selu", "Y = gamma * (X <= 0 ? alpha * (exp(X) - 1) : X)", f,
               {attr("alpha", 1.67326319217681884765625), attr("gamma", 1.05070102214813232421875)}));
  add_op(r, onnx_op(13), unary("Celu", "Y = max(0, X) + min(0, alpha * (exp(X / alpha) - 1))", f, {attr("alpha", 1.0, non_zero())}));
  add_op(r, onnx_op(13), unary("ThresholdedRelu", "Y = X > alpha ? X : 0", f, {attr("alpha", 1.0)}));
  add_op(r, onnx_op(13),
         unary("Shrink", "Y = X < -lambd ? X + bias : X > lambd ? X - bias : 0", f,
               {attr("bias", 0.0), attr("lambd", 0.5)}));
  add_op(r, onnx_op(13), float_test("IsNaN", "Y = isnan(X)", {}));
  add_op(r, onnx_op(13),
         float_test("IsInf", "Y = X is -inf (detect_negative) or +inf (detect_positive)",
                    {attr("detect_negative", 1, int_in(0, 1)), attr("detect_positive", 1, int_in(0, 1))}));
  add_op(r, onnx_op(13), prelu());
  const TypeSet b{DataType::boolean};
  add_op(r, onnx_op(13), broadcast_binary("And", "C = A && B (numpy broadcasting)", b, "bool"));
  add_op(r, onnx_op(13), broadcast_binary("Or", "C = A || B (numpy broadcasting)", b, "bool"));
  add_op(r, onnx_op(13), broadcast_binary("Xor", "C = A != B (numpy broadcasting)", b, "bool"));
  add_op(r, onnx_op(13), broadcast_binary("LessOrEqual", "C = (A <= B) (numpy broadcasting)", TypeSet::numeric(), "bool"));
  add_op(r, onnx_op(13), broadcast_binary("GreaterOrEqual", "C = (A >= B) (numpy broadcasting)", TypeSet::numeric(), "bool"));
  add_op(r, onnx_op(13),
         broadcast_binary("BitShift", "Z = direction LEFT ? X << Y : X >> Y (numpy broadcasting; unsigned)",
                          unsigned_ints, "T", {attr_req("direction", AttrKind::string, one_of({"LEFT", "RIGHT"}))}));
}

}  // namespace ge::ops
