// Detection ops: NonMaxSuppression (its count known only at run time: a range up to every
// (batch, class, box) triple), RoiAlign and GridSample.
#include "common.hpp"

namespace ge::ops {

namespace {

// A one-element input (scalar or [1]).
void require_scalar(const InferContext& c, std::size_t i) {
  if (!c.has_input(i) || !c.shape(i).rank_known()) return;
  const Shape& s = c.shape(i);
  if (s.rank() > 1 || (s.rank() == 1 && !s[0].contains(1)))
    c.fail(Errc::bad_op_inputs, c.input_name(i) + " is [" + s.to_string() + "]; expected one element");
}

OpSchema non_max_suppression() {
  return schema("NonMaxSuppression", "the boxes kept by greedy non-maximum suppression per batch entry and class, as "
                "(batch, class, box) rows, highest score first",
                {arg("boxes", "f32"), arg("scores", "f32"), opt("max_output_boxes_per_class", "i64"),
                 opt("iou_threshold", "f32"), opt("score_threshold", "f32")},
                {arg("selected_indices", "i64")}, {}, {attr("center_point_box", 0, int_in(0, 1))},
                [](const InferContext& c) {
                  require_rank(c, 0, 3, 3);
                  require_rank(c, 1, 3, 3);
                  for (const std::size_t i : {2, 3, 4}) require_scalar(c, i);
                  const Shape& b = c.shape(0);
                  const Shape& s = c.shape(1);
                  if (b.rank_known()) (void)merge_dims(c, b[2], Dim(4), "input 0 (boxes) dim 2 (4 coordinates)");
                  if (b.rank_known() && s.rank_known()) {
                    (void)merge_dims(c, b[0], s[0], "boxes and scores batch dims");
                    (void)merge_dims(c, b[1], s[2], "boxes dim 1 and scores dim 2 (the box count)");
                  }
                  Dim most = Dim::unknown();
                  if (s.rank_known()) most = s[0] * s[1] * s[2];
                  return std::vector<TensorDesc>{{DataType::i64, Shape{Dim::interval(0, most.hi()), Dim(3)}}};
                });
}

OpSchema roi_align() {
  return schema("RoiAlign", "per box (x1, y1, x2, y2) of rois on image batch_indices[r]: an output_height x "
                "output_width grid of bins, each the average (or max) of bilinear samples",
                {arg("X", "T"), arg("rois", "T"), arg("batch_indices", "i64")}, {arg("Y", "T")},
                {{"T", TypeSet{DataType::f32}}},
                {attr("coordinate_transformation_mode", "half_pixel", one_of({"half_pixel", "output_half_pixel"})),
                 attr("mode", "avg", one_of({"avg", "max"})), attr("output_height", 1, int_in(1, max_attr)),
                 attr("output_width", 1, int_in(1, max_attr)), attr("sampling_ratio", 0, int_in(0, max_attr)),
                 attr("spatial_scale", 1.0, float_at_least(0, true))},
                [](const InferContext& c) {
                  require_rank(c, 0, 4, 4);
                  require_rank(c, 1, 2, 2);
                  require_rank(c, 2, 1, 1);
                  const Shape& x = c.shape(0);
                  const Shape& rois = c.shape(1);
                  Dim r = c.shape(2).rank_known() ? c.shape(2)[0] : Dim::unknown();
                  if (rois.rank_known()) {
                    (void)merge_dims(c, rois[1], Dim(4), "input 1 (rois) dim 1 (4 coordinates)");
                    r = merge_dims(c, r, rois[0], "rois and batch_indices counts");
                  }
                  return std::vector<TensorDesc>{{DataType::f32, Shape{r, x.rank_known() ? x[1] : Dim::unknown(),
                                                                         Dim(c.i("output_height")), Dim(c.i("output_width"))}}};
                });
}

OpSchema grid_sample() {
  return schema("GridSample", "X [N,C,H,W] sampled at grid [N,HO,WO,2] ((x, y) normalised to [-1, 1]): bilinear, "
                "nearest or bicubic, zeros, border or reflection padding",
                {arg("X", "T1"), arg("grid", "T2")}, {arg("Y", "T1")},
                {{"T1", TypeSet{DataType::f32}}, {"T2", TypeSet{DataType::f32}}},
                {attr("align_corners", 0, int_in(0, 1)), attr("mode", "bilinear", one_of({"bilinear", "nearest", "bicubic"})),
                 attr("padding_mode", "zeros", one_of({"zeros", "border", "reflection"}))},
                [](const InferContext& c) {
                  require_rank(c, 0, 4, 4);
                  require_rank(c, 1, 4, 4);
                  const Shape& x = c.shape(0);
                  const Shape& g = c.shape(1);
                  if (!g.rank_known()) return std::vector<TensorDesc>{{c.input(0).dtype, unknown_dims(4)}};
                  (void)merge_dims(c, g[3], Dim(2), "input 1 (grid) dim 3 (x and y)");
                  Dim n = g[0];
                  if (x.rank_known()) n = merge_dims(c, x[0], g[0], "X and grid batch dims");
                  return std::vector<TensorDesc>{{c.input(0).dtype, Shape{n, x.rank_known() ? x[1] : Dim::unknown(), g[1], g[2]}}};
                });
}

}  // namespace

void add_detection_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), non_max_suppression());
  add_op(r, onnx_op(16), roi_align());
  add_op(r, onnx_op(16), grid_sample());
}

}  // namespace ge::ops
