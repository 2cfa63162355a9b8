// CPU kernels of the reductions: ReduceSum, ReduceMean, ReduceMax (f32, i32, i64), ReduceMin,
// ReduceProd, ReduceSumSquare, ReduceL1 (and f64), ReduceL2, ReduceLogSum, ReduceLogSumExp (f32, f64) over the
// `axes` attribute (opset < 18) or the `axes` input (ReduceSum opset 13; captured in `make`
// when constant, read per run otherwise: then the kernel is data-dependent), negative axes resolved per run; no axes reduce
// every axis unless noop_with_empty_axes (a copy); keepdims only shapes the output view.
// ArgMax, ArgMin (host engine): axis and select_last_index. CumSum (f32, f64, i32, i64): its axis
// input captured when constant, read per run otherwise.
#include <optional>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/reduce/reduce.hpp"

namespace ge::cpu_lower {

namespace {

bool reduce_types(const KernelRequest& r) { return input_type_in(r, 0, {DataType::f32, DataType::i32, DataType::i64}); }
bool math_types(const KernelRequest& r) {
  return input_type_in(r, 0, {DataType::f32, DataType::f64, DataType::i32, DataType::i64});
}
bool float_types(const KernelRequest& r) { return input_type_in(r, 0, {DataType::f32, DataType::f64}); }

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

void add_reduce(KernelRegistry& r, const char* op, cpu::ReduceOp kind, bool (*fits)(const KernelRequest&)) {
  const std::string name = std::string("cpu.reduce.") + op;
  r.add({.op = op,
         .name = name,
         .fits = fits,
         .make = [op, kind, name](const KernelRequest& req) {
           const InferContext& c = req.context;
           const bool noop = c.i("noop_with_empty_axes") != 0;
           // Known now: the attribute, a constant input, or no axes at all.
           std::optional<std::vector<std::int64_t>> axes;
           if (c.has("axes")) axes = c.ints("axes");
           else if (!c.has_input(1)) axes = std::vector<std::int64_t>{};
           else axes = constant_ints(c, 1);
           if (axes && c.shape(0).rank_known()) {
             // Known when the kernel is made: the axes resolved once, a run allocates nothing.
             const cpu::ReduceParams p{.op = kind, .axes = resolve_axes(op, *axes, noop, c.shape(0).rank())};
             return make_shaped_kernel(name, req, {1}, [p](Views in, Views out) { cpu::reduce(p, in[0], out[0]); });
           }
           return make_shaped_kernel(name, req, {1}, [op, kind, noop, axes](Views in, Views out) {
             const std::vector<std::int64_t> given = axes ? *axes : read_ints(op, in[1]);
             const cpu::ReduceParams p{.op = kind, .axes = resolve_axes(op, given, noop, in[0].rank())};
             cpu::reduce(p, in[0], out[0]);
           });
         }});
}

void add_arg(KernelRegistry& r, const char* op, bool min) {
  const std::string name = min ? "cpu.arg_min" : "cpu.arg_max";
  r.add({.op = op,
         .name = name,
         .fits = reduce_types,
         .make = [op, min, name](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           const bool last = req.context.i("select_last_index") != 0;
           return make_kernel(name, [op, axis, last, min](Views in, Views out) {
             const cpu::ArgMaxParams p{
                 .axis = resolve_axis(op, axis, in[0].rank()), .select_last_index = last, .min = min};
             cpu::arg_max(p, in[0], out[0]);
           });
         }});
}

void add_cum_sum(KernelRegistry& r) {
  r.add({.op = "CumSum",
         .name = "cpu.cum_sum",
         .fits = [](const KernelRequest& req) {
           return input_type_in(req, 0, {DataType::f32, DataType::f64, DataType::i32, DataType::i64});
         },
         .make = [](const KernelRequest& req) {
           const bool exclusive = req.context.i("exclusive") != 0, reverse = req.context.i("reverse") != 0;
           const std::optional<std::vector<std::int64_t>> axis = constant_ints(req.context, 1);
           return make_kernel("cpu.cum_sum", [exclusive, reverse, axis](Views in, Views out) {
             const std::vector<std::int64_t> a = axis ? *axis : read_ints("CumSum", in[1]);
             if (a.size() != 1)
               fail(Errc::bad_op_inputs, "CumSum", "axis has " + std::to_string(a.size()) + " values; expected 1");
             const cpu::CumSumParams p{
                 .axis = resolve_axis("CumSum", a[0], in[0].rank()), .exclusive = exclusive, .reverse = reverse};
             cpu::cum_sum(p, in[0], out[0]);
           });
         }});
}

}  // namespace

void register_cpu_reduce(KernelRegistry& r) {
  using cpu::ReduceOp;
  add_reduce(r, "ReduceSum", ReduceOp::sum, reduce_types);
  add_reduce(r, "ReduceMean", ReduceOp::mean, reduce_types);
  add_reduce(r, "ReduceMax", ReduceOp::max, reduce_types);
  add_reduce(r, "ReduceMin", ReduceOp::min, math_types);
  add_reduce(r, "ReduceProd", ReduceOp::prod, math_types);
  add_reduce(r, "ReduceSumSquare", ReduceOp::sum_square, math_types);
  add_reduce(r, "ReduceL1", ReduceOp::l1, math_types);
  add_reduce(r, "ReduceL2", ReduceOp::l2, float_types);
  add_reduce(r, "ReduceLogSum", ReduceOp::log_sum, float_types);
  add_reduce(r, "ReduceLogSumExp", ReduceOp::log_sum_exp, float_types);
  add_arg(r, "ArgMax", false);
  add_arg(r, "ArgMin", true);
  add_cum_sum(r);
}

}  // namespace ge::cpu_lower
