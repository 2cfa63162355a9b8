// CPU kernels of GatherND (batch_dims), ScatterND (the reduction read at compile time),
// Compress (axis resolved per run; a condition known only at run time makes a
// data-dependent kernel), ReverseSequence and Unique (always data-dependent: it finds the
// distinct slices, asks for each output it has, then fills them).
#include <cstring>
#include <optional>
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/nd_indexing.hpp"
#include "kernels/cpu/movement/selection.hpp"

namespace ge::cpu_lower {

namespace {

cpu::ScatterReduction nd_reduction(const std::string& s) {
  if (s == "add") return cpu::ScatterReduction::add;
  if (s == "mul") return cpu::ScatterReduction::mul;
  if (s == "max") return cpu::ScatterReduction::max;
  if (s == "min") return cpu::ScatterReduction::min;
  if (s == "none") return cpu::ScatterReduction::none;
  fail(Errc::bad_attribute, "ScatterND", "reduction '" + s + "'; expected none, add, mul, max or min");
}

std::optional<std::int64_t> axis_attr(const InferContext& c) {
  return c.has("axis") ? std::optional<std::int64_t>(c.i("axis")) : std::nullopt;
}

std::optional<std::int64_t> resolved(std::string_view op, std::optional<std::int64_t> axis, const TensorView& x) {
  return axis ? std::optional<std::int64_t>(resolve_axis(op, *axis, x.rank())) : std::nullopt;
}

std::shared_ptr<const Kernel> make_unique(const KernelRequest& req) {
  const bool sorted = req.context.i("sorted") != 0;
  const std::optional<std::int64_t> axis = axis_attr(req.context);
  const std::size_t outputs = req.outputs.size();
  return make_dynamic_kernel("cpu.unique", [sorted, axis, outputs](Views in, Allocate allocate) {
    const std::optional<std::int64_t> a = resolved("Unique", axis, in[0]);
    const cpu::UniqueResult u = cpu::unique(sorted, a, in[0]);
    const auto n = static_cast<std::int64_t>(u.first.size());
    std::vector<std::int64_t> y{n};
    if (a) {
      y.assign(in[0].dims.begin(), in[0].dims.end());
      y[static_cast<std::size_t>(*a)] = n;
    }
    cpu::unique_values(a, in[0], u, TensorView{allocate(0, y), in[0].dtype, y});
    const std::vector<std::int64_t>* lists[3] = {&u.first, &u.inverse, &u.counts};
    for (std::size_t o = 1; o < outputs && o < 4; ++o) {
      const std::vector<std::int64_t>& v = *lists[o - 1];
      const std::int64_t dims[1] = {static_cast<std::int64_t>(v.size())};
      void* p = allocate(o, dims);
      if (!v.empty()) std::memcpy(p, v.data(), v.size() * sizeof(std::int64_t));
    }
  });
}

}  // namespace

void register_cpu_selection(KernelRegistry& r) {
  r.add({.op = "GatherND",
         .name = "cpu.gather_nd",
         .make = [](const KernelRequest& req) {
           const std::int64_t b = req.context.i("batch_dims");
           return make_kernel("cpu.gather_nd", [b](Views in, Views out) { cpu::gather_nd(b, in[0], in[1], out[0]); });
         }});
  r.add({.op = "ScatterND",
         .name = "cpu.scatter_nd",
         .fits = [](const KernelRequest& req) {
           return req.context.s("reduction") == "none" ||
                  input_type_in(req, 0, {DataType::f32, DataType::f64, DataType::i32, DataType::i64});
         },
         .make = [](const KernelRequest& req) {
           const cpu::ScatterReduction red = nd_reduction(req.context.s("reduction"));
           return make_kernel("cpu.scatter_nd", [red](Views in, Views out) {
             cpu::scatter_nd(red, in[0], in[1], in[2], out[0]);
           });
         }});
  r.add({.op = "Compress",
         .name = "cpu.compress",
         .make = [](const KernelRequest& req) {
           const std::optional<std::int64_t> axis = axis_attr(req.context);
           return make_shaped_kernel("cpu.compress", req, {1}, [axis](Views in, Views out) {
             cpu::compress(resolved("Compress", axis, in[0]), in[0], in[1], out[0]);
           });
         }});
  r.add({.op = "ReverseSequence",
         .name = "cpu.reverse_sequence",
         .make = [](const KernelRequest& req) {
           const std::int64_t t = req.context.i("time_axis"), b = req.context.i("batch_axis");
           return make_kernel("cpu.reverse_sequence", [t, b](Views in, Views out) {
             cpu::reverse_sequence(t, b, in[0], in[1], out[0]);
           });
         }});
  r.add({.op = "Unique", .name = "cpu.unique", .make = make_unique});
}

}  // namespace ge::cpu_lower
