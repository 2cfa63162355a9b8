// Reductions: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp; and the running sum CumSum.
//
// ONNX moved `axes` from an attribute to an optional input (ReduceSum in opset 13, the
// others in opset 18). Each op here takes both forms so that models of any of these
// opsets map one to one; giving both at once is an error.
#include "common.hpp"

namespace ge::ops {

namespace {

std::vector<TensorDesc> infer_reduce(const InferContext& c) {
  const Shape& x = c.shape(0);
  const DataType t = c.input(0).dtype;
  const bool keep = c.i("keepdims") != 0;
  const bool noop = c.i("noop_with_empty_axes") != 0;
  if (c.has_input(1) && c.has("axes"))
    c.fail(Errc::bad_op_inputs, "both input 1 (axes) and attribute 'axes' are given; expected one");
  std::optional<std::vector<std::int64_t>> axes;
  if (c.has("axes")) {
    axes = c.ints("axes");
  } else if (c.has_input(1)) {
    require_rank(c, 1, 1, 1);
    axes = const_ints(c, 1);
    if (!axes) {
      // Data-dependent axes: each dim may or may not be reduced.
      if (!x.rank_known()) return {{t, x}};
      if (keep) {
        std::vector<Dim> d;
        for (const Dim& k : x.dims()) d.push_back(hull(k, Dim(1)));
        return {{t, Shape(std::move(d))}};
      }
      const auto n = static_length(c, 1);
      if (!n) return {{t, Shape::unknown_rank()}};
      if (*n == 0 && noop) return {{t, x}};
      const std::int64_t left = *n == 0 ? 0 : static_cast<std::int64_t>(x.rank()) - *n;
      if (left < 0)
        c.fail(Errc::bad_op_inputs, "input 1 (axes) has " + std::to_string(*n) + " values for input [" + x.to_string() +
                                        "] of rank " + std::to_string(x.rank()));
      return {{t, unknown_dims(static_cast<std::size_t>(left))}};
    }
  } else {
    axes = std::vector<std::int64_t>{};
  }
  if (axes->empty() && noop) return {{t, x}};
  if (!x.rank_known()) {
    if (!keep && axes->empty()) return {{t, Shape{}}};
    return {{t, Shape::unknown_rank()}};
  }
  const auto r = static_cast<std::int64_t>(x.rank());
  std::vector<bool> reduced(x.rank(), axes->empty());
  for (std::int64_t a : *axes) {
    const std::int64_t k = norm_axis(c, a, r, "axes value");
    if (reduced[static_cast<std::size_t>(k)])
      c.fail(Errc::bad_attribute, "axes " + ints_text(*axes) + " name axis " + std::to_string(k) + " twice");
    reduced[static_cast<std::size_t>(k)] = true;
  }
  std::vector<Dim> out;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (!reduced[i]) out.push_back(x.dims()[i]);
    else if (keep) out.emplace_back(1);
  }
  return {{t, Shape(std::move(out))}};
}

OpSchema reduce(std::string name, std::string doc) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = {arg("data", "T"), opt("axes", "i64")};
  s.outputs = {arg("reduced", "T")};
  s.types = {{"T", TypeSet::numeric()}};
  s.attrs = {attr_opt("axes", AttrKind::integers), attr("keepdims", 1, int_in(0, 1)),
             attr("noop_with_empty_axes", 0, int_in(0, 1))};
  s.infer = infer_reduce;
  return s;
}

// CumSum: x's shape and type; the axis (input 1, a scalar or one value) must be in range
// when it is constant.
OpSchema cum_sum() {
  OpSchema s;
  s.name = "CumSum";
  s.doc = "running sums along axis (input 1); exclusive leaves out each element, reverse runs from the end";
  s.inputs = {arg("x", "T"), arg("axis", "Tind")};
  s.outputs = {arg("y", "T")};
  s.types = {{"T", TypeSet::numeric()}, {"Tind", TypeSet::indices()}};
  s.attrs = {attr("exclusive", 0, int_in(0, 1)), attr("reverse", 0, int_in(0, 1))};
  s.infer = [](const InferContext& c) {
    const Shape& x = c.shape(0);
    require_rank(c, 1, 0, 1);
    if (const auto axis = const_ints(c, 1)) {
      if (axis->size() != 1)
        c.fail(Errc::bad_op_inputs, "input 1 (axis) has " + std::to_string(axis->size()) + " values; expected 1");
      if (x.rank_known()) norm_axis(c, axis->front(), static_cast<std::int64_t>(x.rank()), "axis");
    }
    return std::vector<TensorDesc>{{c.input(0).dtype, x}};
  };
  return s;
}

}  // namespace

void add_reduce_ops(OpRegistry& r) {
  const char* doc = " over axes (all when none, unless noop_with_empty_axes); keepdims";
  for (const char* what : {"Mean:mean", "Sum:sum", "Max:max", "Min:min", "Prod:product", "SumSquare:sum of squares",
                           "L1:sum of magnitudes", "L2:root of the sum of squares", "LogSum:log of the sum",
                           "LogSumExp:log of the sum of exponentials"}) {
    const std::string_view w(what);
    const std::size_t colon = w.find(':');
    add_op(r, onnx_op(13), reduce("Reduce" + std::string(w.substr(0, colon)), std::string(w.substr(colon + 1)) + doc));
  }
  add_op(r, onnx_op(13), cum_sum());
}

}  // namespace ge::ops
