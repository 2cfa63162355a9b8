// CPU kernels of Hardmax (f32, f64; axis resolved per run), EyeLike (k), OneHot (axis;
// a depth known only at run time makes a data-dependent kernel), and of the ops that pass
// data through: Dropout (a copy unless in place, the mask all true; training with a ratio
// above 0 is refused when it runs) and CastLike (Cast's kernel).
#include <cstring>
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/movement/one_hot.hpp"

namespace ge::cpu_lower {

namespace {

// Dropout's training_mode and ratio inputs: training with a ratio above 0 is random,
// which ge does not do.
void check_inference(Views in) {
  const TensorView* training = optional_input(in, 2);
  if (training == nullptr || training->elements() != 1 || *training->as<const std::uint8_t>() == 0) return;
  const TensorView* ratio = optional_input(in, 1);
  const double r = ratio == nullptr ? 0.5 : read_doubles("Dropout", *ratio).at(0);
  if (r != 0)
    fail(Errc::unsupported, "Dropout",
         "training_mode is true with ratio " + std::to_string(r) + "; ge runs Dropout for inference only (or ratio 0)");
}

void add_passthrough(KernelRegistry& r) {
  r.add({.op = "Dropout",
         .name = "cpu.dropout",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.dropout", [](Views in, Views out) {
             check_inference(in);
             if (in[0].data != out[0].data) cpu::copy(in[0], out[0]);
             if (out.size() > 1 && out[1].elements() > 0)
               std::memset(out[1].data, 1, static_cast<std::size_t>(out[1].elements()));
           });
         }});
  r.add({.op = "CastLike",
         .name = "cpu.cast_like",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.cast_like", [](Views in, Views out) { cpu::cast(in[0], out[0]); });
         }});
}

}  // namespace

void register_cpu_one_hot(KernelRegistry& r) {
  r.add({.op = "Hardmax",
         .name = "cpu.hardmax",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32, DataType::f64}); },
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel("cpu.hardmax", [axis](Views in, Views out) {
             cpu::hardmax(resolve_axis("Hardmax", axis, in[0].rank()), in[0], out[0]);
           });
         }});
  r.add({.op = "EyeLike",
         .name = "cpu.eye_like",
         .make = [](const KernelRequest& req) {
           const std::int64_t k = req.context.i("k");
           return make_kernel("cpu.eye_like", [k](Views, Views out) { cpu::eye_like(k, out[0]); });
         }});
  r.add({.op = "OneHot",
         .name = "cpu.one_hot",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_shaped_kernel("cpu.one_hot", req, {1}, [axis](Views in, Views out) {
             cpu::one_hot(resolve_axis("OneHot", axis, in[0].rank() + 1), in[0], in[1], in[2], out[0]);
           });
         }});
  add_passthrough(r);
}

}  // namespace ge::cpu_lower
