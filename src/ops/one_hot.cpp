// Ops whose output is one value at chosen places and another elsewhere: Hardmax (1 at
// the first maximum along an axis), EyeLike (ones on a diagonal) and OneHot.
#include "common.hpp"

namespace ge::ops {

namespace {

// A data type named by an attribute (Cast's `to`, EyeLike's `dtype`): "" when valid.
std::string data_type_name(const Attribute& a) {
  try {
    if (parse_data_type(a.as_string()) != DataType::undefined) return {};
  } catch (const Error&) {
  }
  return "a data type name (f32, f16, i64, bool, ...)";
}

OpSchema hardmax() {
  return schema("Hardmax", "1 where the input has the first maximum along axis, 0 elsewhere",
                {arg("input", "T")}, {arg("output", "T")}, {{"T", TypeSet::floats()}}, {attr("axis", -1)},
                [](const InferContext& c) {
                  require_rank(c, 0, 1, static_cast<std::size_t>(-1));
                  if (c.shape(0).rank_known())
                    (void)norm_axis(c, c.i("axis"), static_cast<std::int64_t>(c.shape(0).rank()), "axis");
                  return std::vector<TensorDesc>{c.input(0)};
                });
}

OpSchema eye_like() {
  return schema("EyeLike", "a 2-D tensor of the input's shape with ones on diagonal k and zeros elsewhere, of type "
                "dtype (default the input's)",
                {arg("input", "T1")}, {arg("output", "T2")}, {{"T1", TypeSet::all()}, {"T2", TypeSet::all()}},
                {attr_opt("dtype", AttrKind::string, data_type_name), attr("k", 0)}, [](const InferContext& c) {
                  require_rank(c, 0, 2, 2);
                  const DataType t = c.has("dtype") ? parse_data_type(c.s("dtype")) : c.input(0).dtype;
                  return std::vector<TensorDesc>{{t, c.shape(0)}};
                });
}

OpSchema one_hot() {
  return schema("OneHot", "values[1] where an index (negative from the end) equals the position along the new axis "
                "of length depth, values[0] elsewhere",
                {arg("indices", "T1"), arg("depth", "T2"), arg("values", "T3")}, {arg("output", "T3")},
                {{"T1", TypeSet::numeric()}, {"T2", TypeSet::numeric()}, {"T3", TypeSet::all()}}, {attr("axis", -1)},
                [](const InferContext& c) {
                  const Shape& x = c.shape(0);
                  if (c.shape(1).rank_known() && !element_count(c.shape(1)).contains(1))
                    c.fail(Errc::bad_op_inputs, "input 1 (depth) has shape [" + c.shape(1).to_string() +
                                                    "]; expected one element");
                  if (c.shape(2).rank_known() && !element_count(c.shape(2)).contains(2))
                    c.fail(Errc::bad_op_inputs, "input 2 (values) has shape [" + c.shape(2).to_string() +
                                                    "]; expected two elements (off, on)");
                  Dim depth = Dim::unknown();
                  if (const Tensor* d = c.constant(1); d != nullptr && d->element_count() == 1) {
                    const double v = d->to_doubles().at(0);
                    if (!(v >= 1) || v > static_cast<double>(max_attr))
                      c.fail(Errc::bad_op_inputs, "input 1 (depth) is " + std::to_string(v) + "; expected at least 1");
                    depth = Dim(static_cast<std::int64_t>(v));
                  }
                  const DataType t = c.input(2).dtype;
                  if (!x.rank_known()) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
                  const auto r = static_cast<std::int64_t>(x.rank());
                  const std::int64_t axis = norm_axis(c, c.i("axis"), r + 1, "axis");
                  std::vector<Dim> dims = x.dims();
                  dims.insert(dims.begin() + axis, depth);
                  return std::vector<TensorDesc>{{t, Shape(std::move(dims))}};
                });
}

}  // namespace

void add_one_hot_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), hardmax());
  add_op(r, onnx_op(13), eye_like());
  add_op(r, onnx_op(13), one_hot());
}

}  // namespace ge::ops
