// CPU kernels of GatherElements, ScatterElements (axis resolved per run; the reduction
// read at compile time) and Size.
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/indexing.hpp"

namespace ge::cpu_lower {

namespace {

cpu::ScatterReduction reduction_of(const std::string& s) {
  if (s == "add") return cpu::ScatterReduction::add;
  if (s == "mul") return cpu::ScatterReduction::mul;
  if (s == "max") return cpu::ScatterReduction::max;
  if (s == "min") return cpu::ScatterReduction::min;
  if (s == "none") return cpu::ScatterReduction::none;
  fail(Errc::bad_attribute, "ScatterElements", "reduction '" + s + "'; expected none, add, mul, max or min");
}

}  // namespace

void register_cpu_indexing(KernelRegistry& r) {
  r.add({.op = "GatherElements",
         .name = "cpu.gather_elements",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel("cpu.gather_elements", [axis](Views in, Views out) {
             cpu::gather_elements(resolve_axis("GatherElements", axis, in[0].rank()), in[0], in[1], out[0]);
           });
         }});
  r.add({.op = "ScatterElements",
         .name = "cpu.scatter_elements",
         .fits = [](const KernelRequest& req) {
           return req.context.s("reduction") == "none" ||
                  input_type_in(req, 0, {DataType::f32, DataType::f64, DataType::i32, DataType::i64});
         },
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           const cpu::ScatterReduction red = reduction_of(req.context.s("reduction"));
           return make_kernel("cpu.scatter_elements", [axis, red](Views in, Views out) {
             const cpu::ScatterParams p{.axis = resolve_axis("ScatterElements", axis, in[0].rank()), .reduction = red};
             cpu::scatter_elements(p, in[0], in[1], in[2], out[0]);
           });
         }});
  r.add({.op = "Size",
         .name = "cpu.size",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.size", [](Views in, Views out) { *out[0].as<std::int64_t>() = in[0].elements(); });
         }});
}

}  // namespace ge::cpu_lower
