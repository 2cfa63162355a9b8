// CPU kernels of the host ops whose output size may depend on the data: NonZero (always
// data-dependent: counts, asks for the [rank, count] output, then fills it) and TopK
// (axis, largest, sorted; a constant K makes a static kernel, a runtime K a data-dependent
// one that sizes both outputs from K's value).
#include <algorithm>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/host.hpp"

namespace ge::cpu_lower {

namespace {

cpu::TopKParams topk_params(std::int64_t axis, bool largest, bool sorted, std::int64_t k, const TensorView& x) {
  const std::int64_t a = resolve_axis("TopK", axis, x.rank());
  const std::int64_t d = x.dims[static_cast<std::size_t>(a)];
  if (k < 0 || k > d)
    fail(Errc::bad_op_inputs, "TopK", "K is " + std::to_string(k) + " but dim " + std::to_string(a) + " of X is " +
                                          std::to_string(d) + "; expected 0 <= K <= the dim");
  return {.axis = a, .k = k, .largest = largest, .sorted = sorted};
}

std::shared_ptr<const Kernel> make_topk(const KernelRequest& req) {
  const InferContext& c = req.context;
  const std::int64_t axis = c.i("axis");
  const bool largest = c.i("largest") != 0, sorted = c.i("sorted") != 0;
  if (const auto k = constant_ints(c, 1)) {
    const std::int64_t kv = k->at(0);
    return make_kernel("cpu.top_k", [axis, largest, sorted, kv](Views in,
                                                                Views out) {
      cpu::top_k(topk_params(axis, largest, sorted, kv, in[0]), in[0], out[0], out[1]);
    });
  }
  return make_dynamic_kernel("cpu.top_k.runtime_k", [axis, largest, sorted](Views in,
                                                                           Allocate allocate) {
    const std::vector<std::int64_t> k = read_ints("TopK", in[1]);
    if (k.size() != 1) fail(Errc::bad_op_inputs, "TopK", "K has " + std::to_string(k.size()) + " values; expected one");
    const cpu::TopKParams p = topk_params(axis, largest, sorted, k[0], in[0]);
    std::vector<std::int64_t> dims(in[0].dims.begin(), in[0].dims.end());
    dims[static_cast<std::size_t>(p.axis)] = p.k;
    const TensorView values{allocate(0, dims), in[0].dtype, dims};
    const TensorView indices{allocate(1, dims), DataType::i64, dims};
    cpu::top_k(p, in[0], values, indices);
  });
}

}  // namespace

void register_cpu_host(KernelRegistry& r) {
  r.add({.op = "NonZero",
         .name = "cpu.nonzero",
         .make = [](const KernelRequest&) {
           return make_dynamic_kernel("cpu.nonzero", [](Views in, Allocate allocate) {
             const std::int64_t count = cpu::nonzero_count(in[0]);
             // A scalar counts as rank 1, as the kernel writes it.
             const std::int64_t dims[2] = {std::max<std::int64_t>(1, static_cast<std::int64_t>(in[0].rank())), count};
             cpu::nonzero(in[0], TensorView{allocate(0, dims), DataType::i64, dims});
           });
         }});
  r.add({.op = "TopK",
         .name = "cpu.top_k",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32, DataType::i32, DataType::i64}); },
         .make = make_topk});
}

}  // namespace ge::cpu_lower
