// CPU kernels of element-wise ops on f16 and bf16 that compute in f32: Min, Max and Mod
// (fmod 1). Each input is widened to f32, the f32 kernel runs, and the result is rounded
// back (to nearest even) into the output: exact for Min and Max, and for Mod as exact as
// f32's fmod of the widened values.
#include <string>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/elementwise/math.hpp"

namespace ge::cpu_lower {

namespace {

bool all_half(const KernelRequest& r) {
  const InferContext& c = r.context;
  if (c.input_count() == 0) return false;
  const DataType t = c.input(0).dtype;
  if (t != DataType::f16 && t != DataType::bf16) return false;
  for (std::size_t i = 0; i < c.input_count(); ++i)
    if (c.has_input(i) && c.input(i).dtype != t) return false;
  return true;
}

// Runs `f32_body(inputs, output)` on f32 copies of `in` and writes its result into `out`.
template <class Body>
void through_f32(Views in, const TensorView& out, Body f32_body) {
  std::vector<std::vector<float>> bufs(in.size() + 1);
  std::vector<TensorView> wide(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i].dtype == DataType::undefined) continue;
    bufs[i].resize(static_cast<std::size_t>(in[i].elements()));
    wide[i] = TensorView{bufs[i].data(), DataType::f32, in[i].dims};
    cpu::cast(in[i], wide[i]);
  }
  bufs.back().resize(static_cast<std::size_t>(out.elements()));
  const TensorView y{bufs.back().data(), DataType::f32, out.dims};
  f32_body(Views(wide), y);
  cpu::cast(y, out);
}

}  // namespace

void register_cpu_half(KernelRegistry& r) {
  for (const auto& entry : {std::pair{"Min", cpu::Variadic::min}, std::pair{"Max", cpu::Variadic::max}}) {
    const char* const op = entry.first;
    const cpu::Variadic kind = entry.second;  // (a structured binding: clang 14 cannot capture it)
    const std::string name = std::string("cpu.") + op + ".half";
    r.add({.op = op,
           .name = name,
           .fits = all_half,
           .make = [name, kind](const KernelRequest&) {
             return make_kernel(name, [kind](Views in, Views out) {
               through_f32(in, out[0], [kind](Views x, const TensorView& y) { cpu::variadic(kind, x, y); });
             });
           }});
  }
  r.add({.op = "Mod",
         .name = "cpu.mod.half",
         .fits = [](const KernelRequest& req) { return all_half(req) && req.context.i("fmod") == 1; },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.mod.half", [](Views in, Views out) {
             through_f32(in, out[0], [](Views x, const TensorView& y) { cpu::mod(true, x[0], x[1], y); });
           });
         }});
}

}  // namespace ge::cpu_lower
