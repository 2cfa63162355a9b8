// Ops that select or reorder elements by data: Compress (a bool condition along an axis,
// or over the flattened input), ReverseSequence (the first lens[b] steps of each batch
// entry reversed) and Unique (sorted or in order of first occurrence). The counts of
// Compress and Unique are ranges unless the data is constant.
#include "common.hpp"

namespace ge::ops {

namespace {

// The length `n` may keep after the condition (input 1) selects from its first elements.
Dim selected(const InferContext& c, const Dim& n) {
  const Tensor* cond = c.constant(1);
  if (cond == nullptr || !n.is_static()) {
    const Dim len = c.shape(1).rank_known() ? c.shape(1)[0] : Dim::unknown();
    return Dim::interval(0, std::min(n.hi(), len.hi()));
  }
  const std::vector<double> v = cond->to_doubles();
  std::int64_t count = 0;
  for (std::size_t i = 0; i < v.size() && static_cast<std::int64_t>(i) < n.value(); ++i) count += v[i] != 0 ? 1 : 0;
  return Dim(count);
}

OpSchema compress() {
  return schema("Compress", "the slices along axis (or elements of the flattened input) whose condition is true; "
                "a condition shorter than the input selects from its first ones",
                {arg("input", "T"), arg("condition", "bool")}, {arg("output", "T")}, {{"T", TypeSet::all()}},
                {attr_opt("axis", AttrKind::integer)}, [](const InferContext& c) {
                  require_rank(c, 1, 1, 1);
                  const Shape& x = c.shape(0);
                  const DataType t = c.input(0).dtype;
                  if (!c.has("axis")) return std::vector<TensorDesc>{{t, Shape{selected(c, element_count(x))}}};
                  if (!x.rank_known()) return std::vector<TensorDesc>{{t, x}};
                  require_rank(c, 0, 1, static_cast<std::size_t>(-1));
                  const std::int64_t axis = norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis");
                  std::vector<Dim> out = x.dims();
                  out[static_cast<std::size_t>(axis)] = selected(c, out[static_cast<std::size_t>(axis)]);
                  return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
                });
}

OpSchema reverse_sequence() {
  return schema("ReverseSequence", "for each batch entry b, its first sequence_lens[b] steps along time_axis reversed",
                {arg("input", "T"), arg("sequence_lens", "i64")}, {arg("Y", "T")}, {{"T", TypeSet::all()}},
                {attr("time_axis", 0, int_in(0, 1)), attr("batch_axis", 1, int_in(0, 1))}, [](const InferContext& c) {
                  if (c.i("time_axis") == c.i("batch_axis"))
                    c.fail(Errc::bad_attribute, "attributes 'time_axis' and 'batch_axis' are both " +
                                                    std::to_string(c.i("time_axis")) + "; expected 0 and 1 in either order");
                  require_rank(c, 0, 2, static_cast<std::size_t>(-1));
                  require_rank(c, 1, 1, 1);
                  const Shape& x = c.shape(0);
                  if (x.rank_known() && c.shape(1).rank_known())
                    (void)merge_dims(c, x[static_cast<std::size_t>(c.i("batch_axis"))], c.shape(1)[0],
                                     "sequence_lens (one per batch entry)");
                  return std::vector<TensorDesc>{c.input(0)};
                });
}

OpSchema unique() {
  return schema("Unique", "the distinct elements (or slices along axis), sorted or in order of first occurrence; their "
                "first indices, each input's index into them, and their counts",
                {arg("X", "T")}, {arg("Y", "T"), opt("indices", "i64"), opt("inverse_indices", "i64"), opt("counts", "i64")},
                {{"T", TypeSet::all()}}, {attr("sorted", 1, int_in(0, 1)), attr_opt("axis", AttrKind::integer)},
                [](const InferContext& c) {
                  const Shape& x = c.shape(0);
                  const DataType t = c.input(0).dtype;
                  Dim n = element_count(x);
                  Shape y{Dim::interval(0, n.hi())};
                  if (c.has("axis") && x.rank_known()) {
                    require_rank(c, 0, 1, static_cast<std::size_t>(-1));
                    const auto axis = static_cast<std::size_t>(
                        norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis"));
                    n = x[axis];
                    std::vector<Dim> d = x.dims();
                    d[axis] = Dim::interval(0, n.hi());
                    y = Shape(std::move(d));
                  } else if (c.has("axis")) {
                    y = x;
                  }
                  const Shape u{Dim::interval(0, n.hi())};
                  return std::vector<TensorDesc>{{t, y}, {DataType::i64, u}, {DataType::i64, Shape{n}}, {DataType::i64, u}};
                });
}

}  // namespace

void add_selection_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), compress());
  add_op(r, onnx_op(13), reverse_sequence());
  add_op(r, onnx_op(13), unique());
}

}  // namespace ge::ops
