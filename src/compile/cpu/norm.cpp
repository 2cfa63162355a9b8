// CPU kernels of the normalisations, f32: Softmax and LogSoftmax (the axis, negative
// counting from the end, resolved per run), LayerNormalization (axis and epsilon; a Scale
// or B that broadcasts over the normalised dims is expanded per run; the optional Mean
// and InvStdDev outputs are computed when asked for) and BatchNormalization (inference
// only: training_mode 1 has no kernel).
#include <cmath>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/reduce/norm.hpp"

namespace ge::cpu_lower {

namespace {

bool all_f32(const KernelRequest& r) {
  for (std::size_t i = 0; i < r.context.input_count(); ++i)
    if (r.context.has_input(i) && r.context.input(i).dtype != DataType::f32) return false;
  return true;
}

void add_softmax(KernelRegistry& r, const char* op, bool log) {
  r.add({.op = op,
         .name = std::string("cpu.") + (log ? "log_softmax" : "softmax"),
         .fits = all_f32,
         .make = [op, log](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel(std::string("cpu.") + (log ? "log_softmax" : "softmax"),
                              [op, log, axis](Views in, Views out) {
                                const cpu::SoftmaxParams p{.axis = resolve_axis(op, axis, in[0].rank()), .log = log};
                                cpu::softmax(p, in[0], out[0]);
                              });
         }});
}

// A Scale or B of the layer norm with exactly `norm` (the normalised dims) elements: the
// view itself, or its broadcast into `storage`.
TensorView full_param(const TensorView& t, std::span<const std::int64_t> norm, std::vector<float>& storage) {
  if (t.elements() == count_of(norm)) return t;
  storage.resize(static_cast<std::size_t>(count_of(norm)));
  const TensorView full{storage.data(), DataType::f32, norm};
  cpu::expand(t, full);
  return full;
}

// Mean and 1 / sqrt(var + epsilon) of each normalised row.
void layer_norm_stats(const TensorView& x, std::int64_t axis, float epsilon, const TensorView* mean,
                      const TensorView* inv_std) {
  const std::int64_t d = count_of(x.dims.subspan(static_cast<std::size_t>(axis)));
  const std::int64_t rows = d == 0 ? 0 : x.elements() / d;
  const float* px = x.as<const float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0, sq = 0;
    for (std::int64_t i = 0; i < d; ++i) sum += px[r * d + i];
    const double m = sum / static_cast<double>(d);
    for (std::int64_t i = 0; i < d; ++i) sq += (px[r * d + i] - m) * (px[r * d + i] - m);
    const double var = sq / static_cast<double>(d);
    if (mean != nullptr) mean->as<float>()[r] = static_cast<float>(m);
    if (inv_std != nullptr) inv_std->as<float>()[r] = static_cast<float>(1.0 / std::sqrt(var + epsilon));
  }
}

}  // namespace

void register_cpu_norm(KernelRegistry& r) {
  add_softmax(r, "Softmax", false);
  add_softmax(r, "LogSoftmax", true);
  r.add({.op = "LayerNormalization",
         .name = "cpu.layer_norm",
         .fits = [](const KernelRequest& req) {
           for (const TensorDesc& o : req.outputs)
             if (o.dtype != DataType::f32) return false;
           return all_f32(req);
         },
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           const auto epsilon = static_cast<float>(req.context.f("epsilon"));
           return make_kernel("cpu.layer_norm", [axis, epsilon](Views in,
                                                                Views out) {
             const std::int64_t a = resolve_axis("LayerNormalization", axis, in[0].rank());
             const auto norm = in[0].dims.subspan(static_cast<std::size_t>(a));
             std::vector<float> scale_storage, bias_storage;
             const TensorView scale = full_param(in[1], norm, scale_storage);
             const TensorView* b = optional_input(in, 2);
             TensorView bias{};
             if (b != nullptr) bias = full_param(*b, norm, bias_storage);
             // The statistics first: Y may share X's memory.
             const TensorView* mean = out.size() > 1 ? &out[1] : nullptr;
             const TensorView* inv_std = out.size() > 2 ? &out[2] : nullptr;
             if (mean != nullptr || inv_std != nullptr) layer_norm_stats(in[0], a, epsilon, mean, inv_std);
             cpu::layer_norm({.axis = a, .epsilon = epsilon}, in[0], scale, b != nullptr ? &bias : nullptr, out[0]);
           });
         }});
  r.add({.op = "BatchNormalization",
         .name = "cpu.batch_norm",
         .fits = [](const KernelRequest& req) { return req.context.i("training_mode") == 0 && all_f32(req); },
         .make = [](const KernelRequest& req) {
           const cpu::BatchNormParams p{.epsilon = static_cast<float>(req.context.f("epsilon"))};
           return make_kernel("cpu.batch_norm", [p](Views in, Views out) {
             cpu::batch_norm(p, in[0], in[1], in[2], in[3], in[4], out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
