// CPU kernels of the shape and data-movement ops, any element type unless noted:
// Reshape, Flatten, Squeeze, Unsqueeze, Identity (a copy, skipped when input and output
// share memory: the output view's dims are the new shape); Transpose (perm, default
// reversed); Concat and Split (axis resolved per run; Split's sizes are the output views'
// dims, which execute_op computed from the `split` input, `num_outputs` or the output
// count); Slice (starts, ends, axes, steps captured in `make` when constant, read per run
// otherwise, clamped per ONNX against the real dims); Gather (axis; negative indices in
// the kernel); Expand; Shape (start/end of opset 15, clamped); ConstantOfShape (the `value`
// attribute, default f32 0); Pad (pads and constant_value from inputs, constant, reflect or
// edge); Resize (scales from the input or, with `sizes`, from the output's dims; nearest
// with its rounding modes, linear and cubic on f32; the coordinate modes the kernel has,
// tf_crop_and_resize's roi read per run). Where the output dims depend on a non-constant input's data (Reshape's
// shape, Slice's starts, Pad's pads, ...), the kernel is data-dependent: each run infers
// the dims from that data (`make_shaped_kernel`).
#include <algorithm>
#include <optional>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/data_movement.hpp"

namespace ge::cpu_lower {

namespace {

// `shape_slot`: the input whose data gives the output dims (Reshape's shape, the axes of
// Squeeze and Unsqueeze), or none.
void add_copy(KernelRegistry& r, const char* op, std::optional<std::size_t> shape_slot) {
  r.add({.op = op,
         .name = std::string("cpu.copy.") + op,
         .make = [op, shape_slot](const KernelRequest& req) {
           const Body body = [](Views in, Views out) {
             if (in[0].data == out[0].data) return;  // in place: the bytes are already there
             cpu::copy(in[0], out[0]);
           };
           const std::string name = std::string("cpu.copy.") + op;
           return shape_slot ? make_shaped_kernel(name, req, {*shape_slot}, body) : make_kernel(name, body);
         }});
}

// An integer input: its constant data captured in `make`, or read per run.
struct IntsInput {
  std::size_t slot = 0;
  bool given = false;
  std::optional<std::vector<std::int64_t>> constant;

  IntsInput(const InferContext& c, std::size_t i) : slot(i), given(c.has_input(i)), constant(constant_ints(c, i)) {}
  [[nodiscard]] std::vector<std::int64_t> get(std::string_view op, Views in) const {
    if (!given) return {};
    return constant ? *constant : read_ints(op, in[slot]);
  }
  // The same into `out`, allocating nothing.
  void get(std::string_view op, Views in, cpu::SmallDims& out) const {
    if (!given) out.clear();
    else if (constant) out.assign(constant->begin(), constant->end());
    else read_ints(op, in[slot], out);
  }
};

// ONNX Slice over the real dims: per axis of x, the first index and the step.
cpu::SliceParams resolve_slice(std::span<const std::int64_t> x, const cpu::SmallDims& starts, const cpu::SmallDims& ends,
                               cpu::SmallDims axes, cpu::SmallDims steps) {
  constexpr std::string_view op = "Slice";
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.resize(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(Errc::bad_op_inputs, op, "starts, ends, axes and steps have " + std::to_string(starts.size()) + ", " +
                                      std::to_string(ends.size()) + ", " + std::to_string(axes.size()) + " and " +
                                      std::to_string(steps.size()) + " values; expected equal lengths");
  cpu::SliceParams p;
  p.starts.resize(x.size(), 0);
  p.steps.resize(x.size(), 1);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const auto a = static_cast<std::size_t>(resolve_axis(op, axes[k], x.size()));
    const std::int64_t d = x[a], step = steps[k];
    if (step == 0) fail(Errc::bad_op_inputs, op, "step of axis " + std::to_string(a) + " is 0; expected non-zero steps");
    p.steps[a] = step;
    if (d == 0) continue;  // an empty axis: nothing is read
    std::int64_t s = starts[k];
    if (s < 0) s = s < -d ? 0 : s + d;  // (compared first: no overflow for huge negatives)
    s = step > 0 ? std::clamp<std::int64_t>(s, 0, d) : std::clamp<std::int64_t>(s, 0, d - 1);
    p.starts[a] = s;
  }
  return p;
}

std::optional<cpu::ResizeCoord> resize_coord(const std::string& s) {
  if (s == "half_pixel") return cpu::ResizeCoord::half_pixel;
  if (s == "asymmetric") return cpu::ResizeCoord::asymmetric;
  if (s == "align_corners") return cpu::ResizeCoord::align_corners;
  if (s == "pytorch_half_pixel") return cpu::ResizeCoord::pytorch_half_pixel;
  if (s == "tf_half_pixel_for_nn") return cpu::ResizeCoord::tf_half_pixel_for_nn;
  if (s == "tf_crop_and_resize") return cpu::ResizeCoord::tf_crop_and_resize;
  return std::nullopt;  // half_pixel_symmetric: no kernel
}

cpu::ResizeNearest resize_nearest(const std::string& s) {
  if (s == "round_prefer_ceil") return cpu::ResizeNearest::round_prefer_ceil;
  if (s == "floor") return cpu::ResizeNearest::floor;
  if (s == "ceil") return cpu::ResizeNearest::ceil;
  return cpu::ResizeNearest::round_prefer_floor;
}

bool resize_fits(const KernelRequest& r) {
  const InferContext& c = r.context;
  if (!resize_coord(c.s("coordinate_transformation_mode"))) return false;
  return c.s("mode") == "nearest" || input_type_in(r, 0, {DataType::f32});
}

// A one-element input as double (any type: cast through the kernel).
double scalar_value(const TensorView& t) {
  double v = 0;
  const std::int64_t one[] = {1};
  cpu::cast(TensorView{t.data, t.dtype, one}, TensorView{&v, DataType::f64, one});
  return v;
}

// Transpose, Concat and Split: whole tensors rearranged.
void add_rearranging(KernelRegistry& r) {
  r.add({.op = "Transpose",
         .name = "cpu.transpose",
         .make = [](const KernelRequest& req) {
           const bool has_perm = req.context.has("perm");
           const std::vector<std::int64_t> perm = req.context.ints("perm");
           return make_kernel("cpu.transpose", [has_perm, perm](Views in, Views out) {
             if (has_perm) return cpu::transpose(perm, in[0], out[0]);
             std::vector<std::int64_t> reversed(in[0].rank());
             for (std::size_t i = 0; i < reversed.size(); ++i) reversed[i] = static_cast<std::int64_t>(reversed.size() - 1 - i);
             cpu::transpose(reversed, in[0], out[0]);
           });
         }});
  r.add({.op = "Concat",
         .name = "cpu.concat",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel("cpu.concat", [axis](Views in, Views out) {
             cpu::concat(resolve_axis("Concat", axis, out[0].rank()), in, out[0]);
           });
         }});
  r.add({.op = "Split",
         .name = "cpu.split",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_shaped_kernel("cpu.split", req, {1}, [axis](Views in, Views out) {
             cpu::split(resolve_axis("Split", axis, in[0].rank()), in[0], out);
           });
         }});
}

// Slice, Gather and Expand: parts of a tensor, or one broadcast.
void add_indexing(KernelRegistry& r) {
  r.add({.op = "Slice",
         .name = "cpu.slice",
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const IntsInput starts(c, 1), ends(c, 2), axes(c, 3), steps(c, 4);
           const auto known = [](const IntsInput& v) { return !v.given || v.constant.has_value(); };
           if (known(starts) && known(ends) && known(axes) && known(steps) && c.shape(0).is_static()) {
             // Everything known when the kernel is made: resolved once, a run allocates nothing.
             cpu::SmallDims s, e, a, st;
             starts.get("Slice", {}, s);
             ends.get("Slice", {}, e);
             axes.get("Slice", {}, a);
             steps.get("Slice", {}, st);
             const cpu::SliceParams p = resolve_slice(c.shape(0).values(), s, e, a, st);
             return make_shaped_kernel("cpu.slice", req, {1, 2, 3, 4}, [p](Views in, Views out) {
               cpu::slice(p, in[0], out[0]);
             });
           }
           return make_shaped_kernel("cpu.slice", req, {1, 2, 3, 4}, [starts, ends, axes, steps](Views in,
                                                                       Views out) {
             cpu::SmallDims s, e, a, st;
             starts.get("Slice", in, s);
             ends.get("Slice", in, e);
             axes.get("Slice", in, a);
             steps.get("Slice", in, st);
             const cpu::SliceParams p = resolve_slice(in[0].dims, s, e, a, st);
             cpu::slice(p, in[0], out[0]);
           });
         }});
  r.add({.op = "Gather",
         .name = "cpu.gather",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel("cpu.gather", [axis](Views in, Views out) {
             cpu::gather(resolve_axis("Gather", axis, in[0].rank()), in[0], in[1], out[0]);
           });
         }});
  r.add({.op = "Expand",
         .name = "cpu.expand",
         .make = [](const KernelRequest& req) {
           return make_shaped_kernel("cpu.expand", req, {1}, [](Views in, Views out) {
             cpu::expand(in[0], out[0]);
           });
         }});
}

// Shape and ConstantOfShape: a tensor's dims as data, and a tensor made from them.
void add_shape_data(KernelRegistry& r) {
  r.add({.op = "Shape",
         .name = "cpu.shape",
         .make = [](const KernelRequest& req) {
           const std::int64_t start = req.context.i("start");
           const std::optional<std::int64_t> end =
               req.context.has("end") ? std::optional<std::int64_t>(req.context.i("end")) : std::nullopt;
           return make_kernel("cpu.shape", [start, end](Views in, Views out) {
             const auto r = static_cast<std::int64_t>(in[0].rank());
             const auto clamp = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
             const std::int64_t b = clamp(start), e = end ? clamp(*end) : r;
             auto* y = out[0].as<std::int64_t>();
             for (std::int64_t i = b; i < e; ++i) y[i - b] = in[0].dims[static_cast<std::size_t>(i)];
           });
         }});
  r.add({.op = "ConstantOfShape",
         .name = "cpu.constant_of_shape",
         .make = [](const KernelRequest& req) {
           const Tensor value = req.context.attr("value").as_tensor();
           return make_shaped_kernel("cpu.constant_of_shape", req, {0}, [value](Views, Views out) {
             cpu::fill(view_of(value), out[0]);
           });
         }});
}

// Pad and Resize: a tensor grown or scaled.
void add_pad_resize(KernelRegistry& r) {
  r.add({.op = "Pad",
         .name = "cpu.pad",
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const std::string& m = c.s("mode");
           const cpu::PadMode mode = m == "reflect" ? cpu::PadMode::reflect
                                     : m == "edge"  ? cpu::PadMode::edge
                                                    : cpu::PadMode::constant;
           const IntsInput pads(c, 1);
           return make_shaped_kernel("cpu.pad", req, {1}, [mode, pads](Views in, Views out) {
             const std::vector<std::int64_t> v = pads.get("Pad", in);
             const std::size_t rank = in[0].rank();
             if (v.size() != 2 * rank)
               fail(Errc::bad_op_inputs, "Pad", "pads has " + std::to_string(v.size()) + " values; expected " +
                                                    std::to_string(2 * rank) + " for rank " + std::to_string(rank));
             cpu::PadParams p{.mode = mode,
                              .begin = std::vector<std::int64_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank)),
                              .end = std::vector<std::int64_t>(v.begin() + static_cast<std::ptrdiff_t>(rank), v.end())};
             const TensorView* value = optional_input(in, 2);
             if (value != nullptr && value->elements() == 1) p.value = scalar_value(*value);
             cpu::pad(p, in[0], out[0]);
           });
         }});
  r.add({.op = "Resize",
         .name = "cpu.resize",
         .fits = resize_fits,
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const std::string& mode = c.s("mode");
           cpu::ResizeParams base{.mode = mode == "linear"  ? cpu::ResizeMode::linear
                                          : mode == "cubic" ? cpu::ResizeMode::cubic
                                                            : cpu::ResizeMode::nearest,
                                  .coord = *resize_coord(c.s("coordinate_transformation_mode")),
                                  .nearest = resize_nearest(c.s("nearest_mode")),
                                  .cubic_a = static_cast<float>(c.f("cubic_coeff_a")),
                                  .exclude_outside = c.i("exclude_outside") != 0,
                                  .extrapolation = static_cast<float>(c.f("extrapolation_value"))};
           const Tensor* scales = c.constant(2);
           const bool scales_at_run = scales == nullptr && c.has_input(2);
           // roi is read only by tf_crop_and_resize.
           const bool roi = base.coord == cpu::ResizeCoord::tf_crop_and_resize && c.has_input(1);
           if (scales != nullptr)
             for (const double s : scales->to_doubles()) base.scales.push_back(static_cast<float>(s));
           return make_shaped_kernel("cpu.resize", req, {2, 3}, [base, scales_at_run, roi](Views in,
                                                                  Views out) {
             if (!scales_at_run && !roi) return cpu::resize(base, in[0], out[0]);
             cpu::ResizeParams p = base;
             if (scales_at_run)
               for (const double s : read_doubles("Resize", in[2])) p.scales.push_back(static_cast<float>(s));
             if (roi) p.roi = read_doubles("Resize", in[1]);
             cpu::resize(p, in[0], out[0]);  // an empty scales input (sizes given) leaves p.scales empty
           });
         }});
}

}  // namespace

void register_cpu_shape_ops(KernelRegistry& r) {
  add_copy(r, "Reshape", 1);
  add_copy(r, "Squeeze", 1);
  add_copy(r, "Unsqueeze", 1);
  add_copy(r, "Flatten", std::nullopt);
  add_copy(r, "Identity", std::nullopt);
  add_rearranging(r);
  add_indexing(r);
  add_shape_data(r);
  add_pad_resize(r);
}

}  // namespace ge::cpu_lower
