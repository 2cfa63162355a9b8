// Further network ops: LRN, MeanVarianceNormalization, the window functions
// (BlackmanWindow, HammingWindow, HannWindow), Det and MaxUnpool.
#include <set>

#include "common.hpp"
#include "ops/window_attrs.hpp"

namespace ge::ops {

namespace {

OpSchema lrn() {
  return schema("LRN", "x / (bias + alpha / size * sum of x^2 over the size channels around)^beta",
                {arg("X", "T")}, {arg("Y", "T")}, {{"T", TypeSet::floats()}},
                {attr("alpha", 1e-4), attr("beta", 0.75), attr("bias", 1.0), attr_req("size", AttrKind::integer, int_in(1, max_attr))},
                [](const InferContext& c) {
                  require_rank(c, 0, 3, static_cast<std::size_t>(-1));
                  return std::vector<TensorDesc>{c.input(0)};
                });
}

OpSchema mvn() {
  return schema("MeanVarianceNormalization", "(x - mean) / (stddev + 1e-9) over axes (default 0, 2, 3)",
                {arg("X", "T")}, {arg("Y", "T")}, {{"T", TypeSet::floats()}},
                {attr("axes", std::vector<std::int64_t>{0, 2, 3})}, [](const InferContext& c) {
                  const Shape& x = c.shape(0);
                  if (x.rank_known()) {
                    const auto r = static_cast<std::int64_t>(x.rank());
                    std::set<std::int64_t> seen;
                    for (const std::int64_t a : c.ints("axes"))
                      if (!seen.insert(norm_axis(c, a, r, "axes")).second)
                        c.fail(Errc::bad_attribute, "attribute 'axes' is " + ints_text(c.ints("axes")) +
                                                        "; expected each axis once");
                  }
                  return std::vector<TensorDesc>{c.input(0)};
                });
}

// output_datatype numbers a type as ONNX does: 1 (f32) or 11 (f64) here.
std::string window_type_check(const Attribute& a) {
  return a.as_int() == 1 || a.as_int() == 11 ? std::string() : "1 (float) or 11 (double)";
}

OpSchema window_fn(std::string name, std::string doc) {
  return schema(std::move(name), std::move(doc), {arg("size", "T1")}, {arg("output", "T2")},
                {{"T1", TypeSet::indices()}, {"T2", TypeSet{DataType::f32, DataType::f64}}},
                {attr("output_datatype", 1, window_type_check), attr("periodic", 1, int_in(0, 1))},
                [](const InferContext& c) {
                  require_rank(c, 0, 0, 0);
                  Dim n = Dim::unknown();
                  if (const auto v = const_ints(c, 0); v && v->size() == 1) {
                    if (v->at(0) < 0 || v->at(0) > max_attr)
                      c.fail(Errc::bad_op_inputs, "input 0 (size) is " + std::to_string(v->at(0)) +
                                                      "; expected a length in [0, 2^31]");
                    n = Dim(v->at(0));
                  }
                  return std::vector<TensorDesc>{{c.i("output_datatype") == 11 ? DataType::f64 : DataType::f32, Shape{n}}};
                });
}

OpSchema det() {
  return schema("Det", "the determinant of each square matrix of the last two dims", {arg("X", "T")}, {arg("Y", "T")},
                {{"T", TypeSet::floats()}}, {}, [](const InferContext& c) {
                  require_rank(c, 0, 2, static_cast<std::size_t>(-1));
                  const Shape& x = c.shape(0);
                  if (!x.rank_known()) return std::vector<TensorDesc>{{c.input(0).dtype, Shape::unknown_rank()}};
                  const std::size_t r = x.rank();
                  if (!compatible(x[static_cast<std::ptrdiff_t>(r - 1)], x[static_cast<std::ptrdiff_t>(r - 2)]))
                    c.fail(Errc::bad_op_inputs, "input 0 (X) is [" + x.to_string() + "]; expected square matrices");
                  return std::vector<TensorDesc>{
                      {c.input(0).dtype, Shape(std::vector<Dim>(x.dims().begin(), x.dims().end() - 2))}};
                });
}

OpSchema max_unpool() {
  return schema(
      "MaxUnpool", "zeros of the pooled input's size with X's values put at the flat positions I",
      {arg("X", "T1"), arg("I", "T2"), opt("output_shape", "T2")}, {arg("output", "T1")},
      {{"T1", TypeSet::floats()}, {"T2", TypeSet{DataType::i64}}},
      {attr_req("kernel_shape", AttrKind::integers, ints_at_least(1)), attr_opt("pads", AttrKind::integers, ints_at_least(0)),
       attr_opt("strides", AttrKind::integers, ints_at_least(1))},
      [](const InferContext& c) {
        const std::size_t n = c.ints("kernel_shape").size();
        require_rank(c, 0, n + 2, n + 2);
        require_rank(c, 1, n + 2, n + 2);
        const WindowAttrs w = WindowAttrs::from(c, n);
        const Shape& x = c.shape(0);
        if (!compatible(x, c.shape(1)))
          c.fail(Errc::bad_op_inputs, "input 1 (I) is [" + c.shape(1).to_string() + "], input 0 (X) is [" +
                                          x.to_string() + "]; expected equal shapes");
        const Shape xs = x.rank_known() ? x : unknown_dims(n + 2);
        const DataType t = c.input(0).dtype;
        if (c.has_input(2)) {
          require_rank(c, 2, 1, 1);
          if (const auto v = const_ints(c, 2)) {
            if (v->size() != n + 2 || std::any_of(v->begin(), v->end(), [](std::int64_t d) { return d < 0; }))
              c.fail(Errc::bad_op_inputs, "input 2 (output_shape) is " + ints_text(*v) + "; expected " +
                                              std::to_string(n + 2) + " extents >= 0");
            std::vector<Dim> d;
            for (const std::int64_t e : *v) d.emplace_back(e);
            return std::vector<TensorDesc>{{t, Shape(std::move(d))}};
          }
          return std::vector<TensorDesc>{{t, unknown_dims(n + 2)}};
        }
        std::vector<Dim> out{xs[0], xs[1]};
        // Pooling's window rule run backwards: (x - 1) * stride + kernel - pads.
        for (std::size_t i = 0; i < n; ++i)
          out.push_back(window_transpose_out(xs[static_cast<std::ptrdiff_t>(i + 2)], w.kernel[i], w.axis(i), 0));
        return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
      });
}

}  // namespace

void add_nn_more_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), lrn());
  add_op(r, onnx_op(13), mvn());
  add_op(r, onnx_op(17), window_fn("BlackmanWindow", "0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N), N = size (periodic) or size - 1"));
  add_op(r, onnx_op(17), window_fn("HammingWindow", "25/46 - 21/46 cos(2 pi n / N), N = size (periodic) or size - 1"));
  add_op(r, onnx_op(17), window_fn("HannWindow", "0.5 - 0.5 cos(2 pi n / N), N = size (periodic) or size - 1"));
  add_op(r, onnx_op(11), det());
  add_op(r, onnx_op(11), max_unpool());
}

}  // namespace ge::ops
