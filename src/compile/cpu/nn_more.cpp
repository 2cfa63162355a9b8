// CPU kernels of further network ops: BatchNormalization with training_mode 1 (its
// running_mean and running_var outputs written when asked for), LRN,
// MeanVarianceNormalization, the window functions (their length an input: data-dependent
// unless constant), Det and MaxUnpool (output_shape an input: likewise).
#include <string>
#include <utility>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/nn/nn_more.hpp"
#include "ops/window_attrs.hpp"

namespace ge::cpu_lower {

namespace {

bool inputs_f32(const KernelRequest& r) {
  const InferContext& c = r.context;
  for (std::size_t i = 0; i < c.input_count(); ++i)
    if (c.has_input(i) && c.input(i).dtype != DataType::f32) return false;
  return c.input_count() > 0;
}

}  // namespace

void register_cpu_nn_more(KernelRegistry& r) {
  r.add({.op = "BatchNormalization",
         .name = "cpu.batch_norm_training",
         .fits = [](const KernelRequest& req) { return req.context.i("training_mode") == 1 && inputs_f32(req); },
         .make = [](const KernelRequest& req) {
           const cpu::BatchNormTrainParams p{.epsilon = static_cast<float>(req.context.f("epsilon")),
                                             .momentum = static_cast<float>(req.context.f("momentum"))};
           return make_kernel("cpu.batch_norm_training", [p](Views in, Views out) {
             cpu::batch_norm_training(p, in[0], in[1], in[2], in[3], in[4], out[0], optional_input(out, 1),
                                      optional_input(out, 2));
           });
         }});
  r.add({.op = "LRN",
         .name = "cpu.lrn",
         .fits = inputs_f32,
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const cpu::LrnParams p{.alpha = static_cast<float>(c.f("alpha")), .beta = static_cast<float>(c.f("beta")),
                                  .bias = static_cast<float>(c.f("bias")), .size = c.i("size")};
           return make_kernel("cpu.lrn", [p](Views in, Views out) { cpu::lrn(p, in[0], out[0]); });
         }});
  r.add({.op = "MeanVarianceNormalization",
         .name = "cpu.mean_variance_normalization",
         .fits = inputs_f32,
         .make = [](const KernelRequest& req) {
           const std::vector<std::int64_t> axes = req.context.ints("axes");
           return make_kernel("cpu.mean_variance_normalization", [axes](Views in, Views out) {
             std::vector<std::int64_t> a = axes;
             for (std::int64_t& v : a) v = resolve_axis("MeanVarianceNormalization", v, in[0].rank());
             cpu::mean_variance_normalization(a, in[0], out[0]);
           });
         }});
  for (const auto& entry : {std::pair{"BlackmanWindow", cpu::WindowFn::blackman},
                            std::pair{"HammingWindow", cpu::WindowFn::hamming},
                            std::pair{"HannWindow", cpu::WindowFn::hann}}) {
    const char* const op = entry.first;
    const cpu::WindowFn kind = entry.second;  // (a structured binding: clang 14 cannot capture it)
    const std::string name = std::string("cpu.") + op;
    r.add({.op = op,
           .name = name,
           .make = [name, kind](const KernelRequest& req) {
             const bool periodic = req.context.i("periodic") != 0;
             return make_shaped_kernel(name, req, {0}, [kind, periodic](Views, Views out) {
               cpu::window_function(kind, periodic, out[0]);
             });
           }});
  }
  r.add({.op = "Det",
         .name = "cpu.det",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.det", [](Views in, Views out) { cpu::det(in[0], out[0]); });
         }});
  r.add({.op = "MaxUnpool",
         .name = "cpu.max_unpool",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32}); },
         .make = [](const KernelRequest& req) {
           const ops::WindowAttrs w = ops::WindowAttrs::from(req.context, req.context.ints("kernel_shape").size());
           return make_shaped_kernel("cpu.max_unpool", req, {2}, [w](Views in, Views out) {
             // The unpooled dims the attributes give: I's indices number positions in them.
             const std::size_t n = w.rank();
             std::vector<std::int64_t> pooled{in[0].dims[0], in[0].dims[1]};
             for (std::size_t d = 0; d < n && d + 2 < in[0].rank(); ++d)
               pooled.push_back(window_transpose_out(in[0].dims[d + 2], w.kernel[d], w.axis(d), 0));
             cpu::max_unpool(in[0], in[1], pooled, out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
