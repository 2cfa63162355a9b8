// CPU kernels of the matrix products, f32: MatMul (numpy batching and broadcasting; a
// constant 2-D B is packed once in `make`) and Gemm (transA, transB, alpha, beta and the
// optional C resolved in `make`).
#include <memory>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/gemm.hpp"

namespace ge::cpu_lower {

namespace {

bool all_f32(const KernelRequest& r) {
  for (std::size_t i = 0; i < r.context.input_count(); ++i)
    if (r.context.has_input(i) && r.context.input(i).dtype != DataType::f32) return false;
  return true;
}

std::shared_ptr<const Kernel> make_matmul(const KernelRequest& r) {
  const Tensor* b = r.context.constant(1);
  if (b != nullptr && b->dims().size() == 2) {
    auto packed = std::make_shared<const cpu::PackedMatMulB>(cpu::pack_matmul_b(view_of(*b)));
    return make_kernel("cpu.matmul.packed_b", [packed](Views in, Views out) {
      cpu::matmul(in[0], *packed, out[0]);
    });
  }
  return make_kernel("cpu.matmul", [](Views in, Views out) {
    cpu::matmul(in[0], in[1], out[0]);
  });
}

}  // namespace

void register_cpu_matmul(KernelRegistry& r) {
  r.add({.op = "MatMul",
         .name = "cpu.matmul",
         .engines = engines(Engine::vector, Engine::host),
         .fits = all_f32,
         .make = make_matmul});
  r.add({.op = "Gemm",
         .name = "cpu.gemm",
         .engines = engines(Engine::vector, Engine::host),
         .fits = all_f32,
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const cpu::GemmParams p{.alpha = static_cast<float>(c.f("alpha")),
                                   .beta = static_cast<float>(c.f("beta")),
                                   .trans_a = c.i("transA") != 0,
                                   .trans_b = c.i("transB") != 0};
           return make_kernel("cpu.gemm", [p](Views in, Views out) {
             cpu::gemm(p, in[0], in[1], optional_input(in, 2), out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
