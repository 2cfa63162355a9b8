// Shape ops that compute or grow extents: Shape, ConstantOfShape, Pad, Resize.
#include <cmath>
#include <limits>

#include "common.hpp"

namespace ge::ops {

namespace {

// ---- Resize ----
std::vector<TensorDesc> infer_resize(const InferContext& c) {
  const Shape& x = c.shape(0);
  const DataType t = c.input(0).dtype;
  const bool has_scales = c.has_input(2) && !(c.shape(2).rank_known() && element_count(c.shape(2)) == Dim(0));
  const bool has_sizes = c.has_input(3);
  if (has_scales == has_sizes)
    c.fail(Errc::bad_op_inputs, std::string(has_scales ? "both" : "neither") +
                                    " input 2 (scales) and input 3 (sizes) are given; expected exactly one");
  const std::size_t which = has_scales ? 2 : 3;
  require_rank(c, which, 1, 1);
  if (!x.rank_known()) {
    const auto n = static_length(c, which);
    return {{t, n ? unknown_dims(static_cast<std::size_t>(*n)) : Shape::unknown_rank()}};
  }
  const std::size_t r = x.rank();
  if (const auto n = static_length(c, which); n && static_cast<std::size_t>(*n) != r)
    c.fail(Errc::bad_op_inputs, c.input_name(which) + " has " + std::to_string(*n) + " values but input 0 (X) [" +
                                    x.to_string() + "] has rank " + std::to_string(r) + "; expected one per dim");
  const Tensor* data = c.constant(which);
  if (data == nullptr) return {{t, unknown_dims(r)}};
  std::vector<Dim> out;
  if (has_scales) {
    for (std::size_t i = 0; const double sc : data->to_doubles()) {
      if (!(sc > 0) || !std::isfinite(sc))
        c.fail(Errc::bad_op_inputs, "input 2 (scales) has " + std::to_string(sc) + "; expected finite scales > 0");
      out.push_back(scale_floor(x[static_cast<std::ptrdiff_t>(i++)], sc));
    }
  } else {
    for (const std::int64_t v : data->to_int64s()) {
      if (v < 0) c.fail(Errc::bad_op_inputs, "input 3 (sizes) has " + std::to_string(v) + "; expected sizes >= 0");
      out.emplace_back(v);
    }
  }
  return {{t, Shape(std::move(out))}};
}

// Shape and ConstantOfShape: shapes as data and back.
void add_shape_data_ops(OpRegistry& r, const TypeConstraint& any) {
  {
    OpSchema s = schema("Shape", "the shape of the input as a 1-D i64 tensor (dims start..end)", {arg("data", "T")},
                        {arg("shape", "i64")}, {any}, {attr("start", 0), attr_opt("end", AttrKind::integer)},
                        [](const InferContext& c) {
                          const Shape& x = c.shape(0);
                          if (!x.rank_known()) return std::vector<TensorDesc>{{DataType::i64, Shape{Dim::unknown()}}};
                          const auto r = static_cast<std::int64_t>(x.rank());
                          const auto clampi = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
                          const std::int64_t b = clampi(c.i("start"));
                          const std::int64_t e = c.has("end") ? clampi(c.i("end")) : r;
                          return std::vector<TensorDesc>{{DataType::i64, Shape{Dim(std::max<std::int64_t>(e - b, 0))}}};
                        });
    s.engines = engines(Engine::vector, Engine::host);
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s = schema(
        "ConstantOfShape", "a tensor of the shape given by a 1-D i64 tensor, filled with 'value' (a one-element tensor)",
        {arg("input", "i64")}, {arg("output", "T2")}, {}, {attr("value", Tensor::from<float>({1}, {0.f}), [](const Attribute& a) {
          return a.as_tensor().element_count() == 1 ? std::string() : std::string("a tensor of one element");
        })},
        [](const InferContext& c) {
          require_rank(c, 0, 1, 1);
          const DataType t = c.attr("value").as_tensor().dtype();
          if (const auto v = const_ints(c, 0)) {
            std::vector<Dim> d;
            for (std::int64_t k : *v) {
              if (k < 0) c.fail(Errc::bad_op_inputs, "input 0 (input) " + ints_text(*v) + " has a negative dim");
              d.emplace_back(k);
            }
            return std::vector<TensorDesc>{{t, Shape(std::move(d))}};
          }
          const auto n = static_length(c, 0);
          return std::vector<TensorDesc>{{t, n ? unknown_dims(static_cast<std::size_t>(*n)) : Shape::unknown_rank()}};
        });
    s.types = {{"T2", TypeSet::all()}};
    s.engines = engines(Engine::vector, Engine::host);
    add_op(r, onnx_op(13), std::move(s));
  }
}

// Pad and Resize: extents grown or scaled.
void add_pad_resize_ops(OpRegistry& r, const TypeConstraint& any) {
  add_op(r, onnx_op(13),
         schema("Pad", "pads (or crops, with negative pads) each dim; pads = [x1_begin, x2_begin, ..., x1_end, x2_end, ...]",
                {arg("data", "T"), arg("pads", "i64"), opt("constant_value", "T")}, {arg("output", "T")}, {any},
                {attr("mode", "constant", one_of({"constant", "reflect", "edge"}))}, [](const InferContext& c) {
                  const Shape& x = c.shape(0);
                  const DataType t = c.input(0).dtype;
                  require_rank(c, 1, 1, 1);
                  if (!x.rank_known()) return std::vector<TensorDesc>{{t, x}};
                  const std::size_t r = x.rank();
                  const auto pads = const_ints(c, 1);
                  if (!pads) {
                    if (const auto n = static_length(c, 1); n && static_cast<std::size_t>(*n) != 2 * r)
                      c.fail(Errc::bad_op_inputs, "input 1 (pads) has " + std::to_string(*n) + " values; expected " +
                                                      std::to_string(2 * r) + " for rank " + std::to_string(r));
                    return std::vector<TensorDesc>{{t, unknown_dims(r)}};
                  }
                  if (pads->size() != 2 * r)
                    c.fail(Errc::bad_op_inputs, "input 1 (pads) " + ints_text(*pads) + " has " + std::to_string(pads->size()) +
                                                    " values; expected " + std::to_string(2 * r) + " for input [" +
                                                    x.to_string() + "]");
                  for (std::int64_t p : *pads)
                    if (p < -max_attr || p > max_attr)
                      c.fail(Errc::bad_op_inputs, "input 1 (pads) " + ints_text(*pads) + " has " + std::to_string(p) +
                                                      "; expected pads within +-2^31");
                  std::vector<Dim> out;
                  for (std::size_t i = 0; i < r; ++i) {
                    const std::int64_t p = (*pads)[i] + (*pads)[i + r];
                    const Dim& d = x.dims()[i];
                    if (p < 0 && d.is_bounded() && d.hi() + p < 0)
                      c.fail(Errc::bad_op_inputs, "input 1 (pads) " + ints_text(*pads) + " crops dim " + std::to_string(i) +
                                                      " (" + d.to_string() + ") below 0");
                    out.push_back(p >= 0 ? d + Dim(p) : minus(d, -p));
                  }
                  return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
                }));
  add_op(r, onnx_op(13),
         schema("Resize", "resizes by scales (floor(d * scale)) or to sizes; nearest, linear or cubic",
                {arg("X", "T1"), opt("roi", "T2"), opt("scales", "f32"), opt("sizes", "i64")}, {arg("Y", "T1")},
                {{"T1", TypeSet::all()}, {"T2", TypeSet::floats()}},
                {attr("mode", "nearest", one_of({"nearest", "linear", "cubic"})),
                 attr("coordinate_transformation_mode", "half_pixel",
                      one_of({"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize",
                              "half_pixel_symmetric", "tf_half_pixel_for_nn"})),
                 attr("nearest_mode", "round_prefer_floor", one_of({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})),
                 attr("cubic_coeff_a", -0.75), attr("exclude_outside", 0, int_in(0, 1)), attr("extrapolation_value", 0.0)},
                infer_resize));
}

}  // namespace

void add_shape_value_ops(OpRegistry& r) {
  const TypeConstraint any{"T", TypeSet::all()};
  add_shape_data_ops(r, any);
  add_pad_resize_ops(r, any);
}

}  // namespace ge::ops
