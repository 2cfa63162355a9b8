// Elementwise ops: unary math and activations, binary arithmetic and comparisons with
// numpy broadcasting, Where, Clip, Cast, Softmax, LogSoftmax.
#include "common.hpp"

namespace ge::ops {

namespace {

const TypeSet signed_numeric = TypeSet::floats() | TypeSet{DataType::i8, DataType::i16, DataType::i32, DataType::i64};


OpSchema binary(std::string name, std::string doc, TypeSet types, bool to_bool) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = {arg("A", "T"), arg("B", "T")};
  s.outputs = {arg("C", to_bool ? "bool" : "T")};
  s.types = {{"T", types}};
  if (!to_bool) s.in_place = {{0, 0}, {0, 1}};
  s.infer = [to_bool](const InferContext& c) {
    return std::vector<TensorDesc>{
        {to_bool ? DataType::boolean : c.input(0).dtype, broadcast_shapes(c, c.shape(0), c.shape(1))}};
  };
  return s;
}

OpSchema softmax(std::string name, std::string doc) {
  OpSchema s = unary(std::move(name), std::move(doc), TypeSet::floats(), {attr("axis", -1)});
  s.infer = [](const InferContext& c) {
    require_rank(c, 0, 1, static_cast<std::size_t>(-1));
    if (c.shape(0).rank_known())
      (void)norm_axis(c, c.i("axis"), static_cast<std::int64_t>(c.shape(0).rank()), "axis");
    return std::vector<TensorDesc>{c.input(0)};
  };
  return s;
}

}  // namespace

OpSchema unary(std::string name, std::string doc, TypeSet types, std::vector<AttrSpec> attrs) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = {arg("X", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", types}};
  s.attrs = std::move(attrs);
  s.in_place = {{0, 0}};
  s.infer = [](const InferContext& c) { return std::vector<TensorDesc>{c.input(0)}; };
  return s;
}

void add_elementwise_ops(OpRegistry& r) {
  const TypeSet f = TypeSet::floats();
  add_op(r, onnx_op(13), unary("Sqrt", "Y = sqrt(X)", f));
  add_op(r, onnx_op(13), unary("Exp", "Y = exp(X)", f));
  add_op(r, onnx_op(13), unary("Log", "Y = log(X)", f));
  add_op(r, onnx_op(13), unary("Erf", "Y = erf(X)", f));
  add_op(r, onnx_op(13), unary("Tanh", "Y = tanh(X)", f));
  add_op(r, onnx_op(13), unary("Sigmoid", "Y = 1 / (1 + exp(-X))", f));
  add_op(r, onnx_op(14), unary("HardSwish", "Y = X * max(0, min(1, X / 6 + 1 / 2))", f));
  add_op(r, onnx_op(13), unary("Neg", "Y = -X", signed_numeric));
  add_op(r, onnx_op(13), unary("Abs", "Y = |X|", TypeSet::numeric()));
  add_op(r, onnx_op(13), unary("Relu", "Y = max(0, X)", signed_numeric));
  add_op(r, onnx_op(13), unary("LeakyRelu", "Y = X >= 0 ? X : alpha * X", f, {attr("alpha", 0.01)}));
  add_op(r, onnx_op(20),
         unary("Gelu", "Y = X * Phi(X), exact (erf) or tanh-approximated", f,
               {attr("approximate", "none", one_of({"none", "tanh"}))}));
  {
    OpSchema s = unary("Identity", "Y = X", TypeSet::all());
    s.inputs = {arg("input", "T")};
    s.outputs = {arg("output", "T")};
    add_op(r, onnx_op(13), std::move(s));
  }
  add_op(r, onnx_op(13), softmax("Softmax", "Y = exp(X) / sum(exp(X)) along axis"));
  add_op(r, onnx_op(13), softmax("LogSoftmax", "Y = log(softmax(X)) along axis"));

  add_op(r, onnx_op(13), binary("Add", "C = A + B (numpy broadcasting)", TypeSet::numeric(), false));
  add_op(r, onnx_op(13), binary("Sub", "C = A - B (numpy broadcasting)", TypeSet::numeric(), false));
  add_op(r, onnx_op(13), binary("Mul", "C = A * B (numpy broadcasting)", TypeSet::numeric(), false));
  add_op(r, onnx_op(13), binary("Div", "C = A / B (numpy broadcasting)", TypeSet::numeric(), false));
  add_op(r, onnx_op(13), binary("Equal", "C = (A == B) (numpy broadcasting)", TypeSet::all(), true));
  add_op(r, onnx_op(13), binary("Less", "C = (A < B) (numpy broadcasting)", TypeSet::numeric(), true));
  add_op(r, onnx_op(13), binary("Greater", "C = (A > B) (numpy broadcasting)", TypeSet::numeric(), true));
  {
    OpSchema s = binary("Pow", "Z = X ^ Y (numpy broadcasting)", TypeSet::numeric(), false);
    s.inputs = {arg("X", "T"), arg("Y", "T1")};
    s.outputs = {arg("Z", "T")};
    s.types = {{"T", TypeSet::numeric()}, {"T1", TypeSet::numeric()}};
    s.in_place = {{0, 0}};
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s;
    s.name = "Where";
    s.doc = "output = condition ? X : Y (numpy broadcasting of all three)";
    s.inputs = {arg("condition", "bool"), arg("X", "T"), arg("Y", "T")};
    s.outputs = {arg("output", "T")};
    s.types = {{"T", TypeSet::all()}};
    s.in_place = {{0, 1}, {0, 2}};
    s.infer = [](const InferContext& c) {
      const Shape xy = broadcast_shapes(c, c.shape(1), c.shape(2));
      return std::vector<TensorDesc>{{c.input(1).dtype, broadcast_shapes(c, c.shape(0), xy)}};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s;
    s.name = "Clip";
    s.doc = "output = min(max(input, min), max); min and max are optional scalars";
    s.inputs = {arg("input", "T"), opt("min", "T"), opt("max", "T")};
    s.outputs = {arg("output", "T")};
    s.types = {{"T", TypeSet::numeric()}};
    s.in_place = {{0, 0}};
    s.infer = [](const InferContext& c) {
      for (std::size_t i = 1; i < 3; ++i) {
        if (!c.has_input(i) || !c.shape(i).rank_known()) continue;
        const Dim n = element_count(c.shape(i));
        if (!n.contains(1))
          c.fail(Errc::bad_op_inputs, c.input_name(i) + " has shape [" + c.shape(i).to_string() +
                                          "]; expected a scalar (one element)");
      }
      return std::vector<TensorDesc>{c.input(0)};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s;
    s.name = "Cast";
    s.doc = "output = input converted to the data type 'to'";
    s.inputs = {arg("input", "T1")};
    s.outputs = {arg("output", "T2")};
    s.types = {{"T1", TypeSet::all()}, {"T2", TypeSet::all()}};
    s.attrs = {attr_req("to", AttrKind::string, [](const Attribute& a) -> std::string {
      try {
        if (parse_data_type(a.as_string()) != DataType::undefined) return {};
      } catch (const Error&) {
      }
      return "a data type name (f32, f16, i64, bool, ...)";
    })};
    s.infer = [](const InferContext& c) {
      return std::vector<TensorDesc>{{parse_data_type(c.s("to")), c.shape(0)}};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
}

}  // namespace ge::ops
