// CPU kernels of NonMaxSuppression (always data-dependent: the kept count is known once
// it has run), RoiAlign and GridSample.
#include <cstring>
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/nn/detection.hpp"

namespace ge::cpu_lower {

namespace {

// A one-element input as double, or `none` when omitted.
double scalar_or(Views in, std::size_t i, double none) {
  const TensorView* t = optional_input(in, i);
  if (t == nullptr) return none;
  const std::vector<double> v = read_doubles("NonMaxSuppression", *t);
  if (v.size() != 1)
    fail(Errc::bad_op_inputs, "NonMaxSuppression", "input " + std::to_string(i) + " has " + std::to_string(v.size()) +
                                                       " elements; expected one");
  return v[0];
}

// max_output_boxes_per_class, read as an integer: exporters write INT64_MAX for "no
// limit", which a double rounds past the int64 range.
std::int64_t max_per_class(Views in) {
  const TensorView* t = optional_input(in, 2);
  if (t == nullptr) return 0;
  const std::vector<std::int64_t> v = read_ints("NonMaxSuppression", *t);
  if (v.size() != 1)
    fail(Errc::bad_op_inputs, "NonMaxSuppression", "input 2 has " + std::to_string(v.size()) + " elements; expected one");
  return v[0];
}

std::shared_ptr<const Kernel> make_nms(const KernelRequest& req) {
  const bool center = req.context.i("center_point_box") != 0;
  return make_dynamic_kernel("cpu.non_max_suppression", [center](Views in, Allocate allocate) {
    cpu::NmsParams p{.max_per_class = max_per_class(in),
                     .iou_threshold = static_cast<float>(scalar_or(in, 3, 0)),
                     .has_score_threshold = optional_input(in, 4) != nullptr,
                     .score_threshold = static_cast<float>(scalar_or(in, 4, 0)),
                     .center_point_box = center};
    const std::vector<std::int64_t> sel = cpu::non_max_suppression(p, in[0], in[1]);
    const std::int64_t dims[2] = {static_cast<std::int64_t>(sel.size() / 3), 3};
    void* y = allocate(0, dims);
    if (!sel.empty()) std::memcpy(y, sel.data(), sel.size() * sizeof(std::int64_t));
  });
}

}  // namespace

void register_cpu_detection(KernelRegistry& r) {
  r.add({.op = "RoiAlign",
         .name = "cpu.roi_align",
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const cpu::RoiAlignParams p{.max = c.s("mode") == "max",
                                       .half_pixel = c.s("coordinate_transformation_mode") == "half_pixel",
                                       .sampling_ratio = c.i("sampling_ratio"),
                                       .spatial_scale = static_cast<float>(c.f("spatial_scale"))};
           return make_kernel("cpu.roi_align", [p](Views in, Views out) { cpu::roi_align(p, in[0], in[1], in[2], out[0]); });
         }});
  r.add({.op = "GridSample",
         .name = "cpu.grid_sample",
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const std::string& m = c.s("mode");
           const std::string& pad = c.s("padding_mode");
           const cpu::GridMode mode = m == "nearest" ? cpu::GridMode::nearest
                                      : m == "bicubic" ? cpu::GridMode::bicubic
                                                       : cpu::GridMode::bilinear;
           const cpu::GridPadding padding = pad == "border"       ? cpu::GridPadding::border
                                            : pad == "reflection" ? cpu::GridPadding::reflection
                                                                  : cpu::GridPadding::zeros;
           const bool align = c.i("align_corners") != 0;
           return make_kernel("cpu.grid_sample", [mode, padding, align](Views in, Views out) {
             cpu::grid_sample(mode, padding, align, in[0], in[1], out[0]);
           });
         }});
  r.add({.op = "NonMaxSuppression",
         .name = "cpu.non_max_suppression",
         .make = make_nms});
}

}  // namespace ge::cpu_lower
