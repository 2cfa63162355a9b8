// Math ops beyond the element-wise basics: HardSigmoid, Not, Mod, variadic Min, Max, Sum
// and Mean,
// InstanceNormalization, Trilu, and Range (whose length is known only when its three
// scalar inputs are constants; otherwise it is unknown and the kernel is data-dependent).
#include <cmath>
#include <limits>

#include "common.hpp"

namespace ge::ops {

namespace {

const TypeSet range_types{DataType::f32, DataType::f64, DataType::i16, DataType::i32, DataType::i64};

// Input i must hold one element (a scalar, or a 1-element tensor as exporters write).
void require_scalar(const InferContext& c, std::size_t i) {
  require_rank(c, i, 0, 1);
  if (c.shape(i).rank_known() && !element_count(c.shape(i)).contains(1))
    c.fail(Errc::bad_op_inputs, c.input_name(i) + " has shape [" + c.shape(i).to_string() + "]; expected a scalar");
}

// ceil((limit - start) / delta), at least 0, over the integers; bad_op_inputs when the
// difference overflows.
std::int64_t int_range_length(const InferContext& c, std::int64_t start, std::int64_t limit, std::int64_t delta) {
  std::int64_t span = 0;
  if (__builtin_sub_overflow(limit, start, &span))
    c.fail(Errc::bad_op_inputs, "limit - start (" + std::to_string(limit) + " - " + std::to_string(start) +
                                    ") overflows int64");
  return std::max<std::int64_t>(ceil_div(span, delta), 0);
}

std::int64_t float_range_length(const InferContext& c, double start, double limit, double delta) {
  const double n = std::ceil((limit - start) / delta);
  if (!std::isfinite(n) || n > static_cast<double>(huge))
    c.fail(Errc::bad_op_inputs, "start " + std::to_string(start) + ", limit " + std::to_string(limit) + ", delta " +
                                    std::to_string(delta) + " give no finite length");
  return n < 0 ? 0 : static_cast<std::int64_t>(n);
}

// Range: [ceil((limit - start) / delta)], exact when all three inputs are constants.
std::vector<TensorDesc> infer_range(const InferContext& c) {
  for (std::size_t i = 0; i < 3; ++i) require_scalar(c, i);
  const DataType t = c.input(0).dtype;
  const bool ints = t == DataType::i16 || t == DataType::i32 || t == DataType::i64;
  const Tensor* k[3] = {c.constant(0), c.constant(1), c.constant(2)};
  if (k[2] != nullptr && k[2]->element_count() == 1 && k[2]->to_doubles()[0] == 0.0)
    c.fail(Errc::invalid_argument, "input 2 (delta) is 0; expected a non-zero step");
  if (k[0] == nullptr || k[1] == nullptr || k[2] == nullptr) return {{t, Shape{Dim::unknown()}}};
  std::int64_t n = 0;
  if (ints) {
    n = int_range_length(c, k[0]->to_int64s().at(0), k[1]->to_int64s().at(0), k[2]->to_int64s().at(0));
  } else {
    n = float_range_length(c, k[0]->to_doubles().at(0), k[1]->to_doubles().at(0), k[2]->to_doubles().at(0));
  }
  return {{t, Shape{Dim(n)}}};
}

// Min, Max, Sum and Mean: 1..N inputs of one type, broadcast together.
OpSchema variadic(std::string name, std::string doc, std::string out_name, TypeSet types = TypeSet::numeric()) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = {many("data_0", "T")};
  s.outputs = {arg(std::move(out_name), "T")};
  s.types = {{"T", types}};
  s.in_place = {{0, 0}, {0, 1}};  // the kernel reads inputs 0 and 1 only where it writes
  s.infer = [](const InferContext& c) {
    Shape y = c.shape(0);
    for (std::size_t i = 1; i < c.input_count(); ++i) y = broadcast_shapes(c, y, c.shape(i));
    return std::vector<TensorDesc>{{c.input(0).dtype, y}};
  };
  return s;
}

OpSchema mod() {
  OpSchema s;
  s.name = "Mod";
  s.doc = "C = A mod B (numpy broadcasting): fmod=0 takes the divisor's sign (integers), fmod=1 the dividend's";
  s.inputs = {arg("A", "T"), arg("B", "T")};
  s.outputs = {arg("C", "T")};
  s.types = {{"T", TypeSet::numeric()}};
  s.attrs = {attr("fmod", 0, int_in(0, 1))};
  s.in_place = {{0, 0}, {0, 1}};
  s.infer = [](const InferContext& c) {
    const DataType t = c.input(0).dtype;
    if (c.i("fmod") == 0 && TypeSet::floats().contains(t))
      c.fail(Errc::bad_attribute, "attribute 'fmod' is 0 (integer modulus) but the inputs are " +
                                      std::string(to_string(t)) + "; expected fmod=1 for floating-point inputs");
    return std::vector<TensorDesc>{{t, broadcast_shapes(c, c.shape(0), c.shape(1))}};
  };
  return s;
}

OpSchema instance_norm() {
  OpSchema s;
  s.name = "InstanceNormalization";
  s.doc = "y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], mean and var per (n, c) over the spatial dims";
  s.inputs = {arg("input", "T"), arg("scale", "T"), arg("B", "T")};
  s.outputs = {arg("output", "T")};
  s.types = {{"T", TypeSet::floats()}};
  s.attrs = {attr("epsilon", 1e-5, float_at_least(0, false))};
  s.in_place = {{0, 0}};
  s.infer = [](const InferContext& c) {
    require_rank(c, 0, 3, static_cast<std::size_t>(-1));
    const Shape& x = c.shape(0);
    Dim ch = x.rank_known() ? x[1] : Dim::unknown();
    for (std::size_t i = 1; i < 3; ++i) {
      require_rank(c, i, 1, 1);
      if (!c.shape(i).rank_known()) continue;
      if (!compatible(ch, c.shape(i)[0]))
        c.fail(Errc::bad_op_inputs, c.input_name(i) + " has length " + c.shape(i)[0].to_string() + ", input 0 (input) [" +
                                        x.to_string() + "] has " + ch.to_string() +
                                        " channels; expected one value per channel");
      ch = merge(ch, c.shape(i)[0]);
    }
    if (!x.rank_known()) return std::vector<TensorDesc>{c.input(0)};
    std::vector<Dim> dims = x.dims();
    dims[1] = ch;
    return std::vector<TensorDesc>{{c.input(0).dtype, Shape(std::move(dims))}};
  };
  return s;
}

OpSchema trilu() {
  OpSchema s;
  s.name = "Trilu";
  s.doc = "the upper (upper=1) or lower triangle of the last two dims from diagonal k; the rest zero";
  s.inputs = {arg("input", "T"), opt("k", "i64")};
  s.outputs = {arg("output", "T")};
  s.types = {{"T", TypeSet::all()}};
  s.attrs = {attr("upper", 1, int_in(0, 1))};
  s.in_place = {{0, 0}};
  s.infer = [](const InferContext& c) {
    require_rank(c, 0, 2, static_cast<std::size_t>(-1));
    if (c.has_input(1)) require_scalar(c, 1);
    return std::vector<TensorDesc>{c.input(0)};
  };
  return s;
}

}  // namespace

void add_math_ops(OpRegistry& r) {
  add_op(r, onnx_op(13),
         unary("HardSigmoid", "Y = max(0, min(1, alpha * X + beta))", TypeSet::floats(),
                  {attr("alpha", 0.2), attr("beta", 0.5)}));
  {
    OpSchema s = unary("Not", "Y = !X (bool)", TypeSet{DataType::boolean});
    s.inputs = {arg("X", "bool")};
    s.outputs = {arg("Y", "bool")};
    s.types = {};
    add_op(r, onnx_op(13), std::move(s));
  }
  add_op(r, onnx_op(13), mod());
  add_op(r, onnx_op(13), variadic("Min", "min = the element-wise minimum of the inputs (numpy broadcasting)", "min"));
  add_op(r, onnx_op(13), variadic("Max", "max = the element-wise maximum of the inputs (numpy broadcasting)", "max"));
  add_op(r, onnx_op(13), variadic("Sum", "sum = the element-wise sum of the inputs (numpy broadcasting)", "sum", TypeSet::floats()));
  add_op(r, onnx_op(13), variadic("Mean", "mean = the element-wise mean of the inputs (numpy broadcasting)", "mean", TypeSet::floats()));
  add_op(r, onnx_op(13), instance_norm());
  add_op(r, onnx_op(14), trilu());
  {
    OpSchema s;
    s.name = "Range";
    s.doc = "output[i] = start + i * delta for i < ceil((limit - start) / delta); scalar inputs";
    s.inputs = {arg("start", "T"), arg("limit", "T"), arg("delta", "T")};
    s.outputs = {arg("output", "T")};
    s.types = {{"T", range_types}};
    s.engines = engines(Engine::host);
    s.infer = infer_range;
    add_op(r, onnx_op(13), std::move(s));
  }
  add_einsum_op(r);
}

}  // namespace ge::ops
