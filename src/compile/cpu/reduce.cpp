// CPU kernels of the reductions: ReduceSum, ReduceMean, ReduceMax (f32, i32, i64) over the
// `axes` attribute (opset < 18) or the `axes` input (ReduceSum opset 13; captured in `make`
// when constant, read per run otherwise: then the kernel is data-dependent), negative axes resolved per run; no axes reduce
// every axis unless noop_with_empty_axes (a copy); keepdims only shapes the output view.
// ArgMax (host engine): axis and select_last_index.
#include <optional>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/reduce.hpp"

namespace ge::cpu_lower {

namespace {

bool reduce_types(const KernelRequest& r) { return input_type_in(r, 0, {DataType::f32, DataType::i32, DataType::i64}); }

// The distinct non-negative axes of one run.
std::vector<std::int64_t> resolve_axes(std::string_view op, const std::vector<std::int64_t>& given, bool noop,
                                       std::size_t rank) {
  std::vector<std::int64_t> axes;
  if (given.empty()) {
    if (noop) return axes;
    for (std::size_t i = 0; i < rank; ++i) axes.push_back(static_cast<std::int64_t>(i));
    return axes;
  }
  for (const std::int64_t a : given) {
    const std::int64_t k = resolve_axis(op, a, rank);
    for (const std::int64_t seen : axes)
      if (seen == k) fail(Errc::bad_attribute, op, "axes name axis " + std::to_string(k) + " twice");
    axes.push_back(k);
  }
  return axes;
}

void add_reduce(KernelRegistry& r, const char* op, cpu::ReduceOp kind) {
  const std::string name = std::string("cpu.reduce.") + op;
  r.add({.op = op,
         .name = name,
         .engines = engines(Engine::vector, Engine::host),
         .fits = reduce_types,
         .make = [op, kind, name](const KernelRequest& req) {
           const InferContext& c = req.context;
           const bool noop = c.i("noop_with_empty_axes") != 0;
           // Known now: the attribute, a constant input, or no axes at all.
           std::optional<std::vector<std::int64_t>> axes;
           if (c.has("axes")) axes = c.ints("axes");
           else if (!c.has_input(1)) axes = std::vector<std::int64_t>{};
           else axes = constant_ints(c, 1);
           return make_shaped_kernel(name, req, {1}, [op, kind, noop, axes](Views in, Views out) {
             const std::vector<std::int64_t> given = axes ? *axes : read_ints(op, in[1]);
             const cpu::ReduceParams p{.op = kind, .axes = resolve_axes(op, given, noop, in[0].rank())};
             cpu::reduce(p, in[0], out[0]);
           });
         }});
}

}  // namespace

void register_cpu_reduce(KernelRegistry& r) {
  add_reduce(r, "ReduceSum", cpu::ReduceOp::sum);
  add_reduce(r, "ReduceMean", cpu::ReduceOp::mean);
  add_reduce(r, "ReduceMax", cpu::ReduceOp::max);
  r.add({.op = "ArgMax",
         .name = "cpu.arg_max",
         .engines = engines(Engine::vector, Engine::host),
         .fits = reduce_types,
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           const bool last = req.context.i("select_last_index") != 0;
           return make_kernel("cpu.arg_max", [axis, last](Views in, Views out) {
             const cpu::ArgMaxParams p{.axis = resolve_axis("ArgMax", axis, in[0].rank()), .select_last_index = last};
             cpu::arg_max(p, in[0], out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
