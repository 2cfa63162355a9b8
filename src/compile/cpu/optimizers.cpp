// CPU kernels of the training-domain optimizers Adagrad, Momentum and Adam (f32, f64):
// the attributes resolved once into cpu::OptimizerParams.
#include "compile/cpu/lower.hpp"
#include "kernels/cpu/nn/optimizers.hpp"

namespace ge::cpu_lower {

namespace {

cpu::OptimizerParams params(const InferContext& c, cpu::Optimizer kind) {
  cpu::OptimizerParams p;
  p.kind = kind;
  p.norm_coefficient = c.f("norm_coefficient");
  if (kind == cpu::Optimizer::adagrad) {
    p.decay_factor = c.f("decay_factor");
    p.epsilon = c.f("epsilon");
  } else {
    p.alpha = c.f("alpha");
    p.beta = c.f("beta");
  }
  if (kind == cpu::Optimizer::momentum) p.nesterov = c.s("mode") == "nesterov";
  if (kind == cpu::Optimizer::adam) {
    p.epsilon = c.f("epsilon");
    p.norm_coefficient_post = c.f("norm_coefficient_post");
  }
  return p;
}

void add(KernelRegistry& r, const char* op, const char* name, cpu::Optimizer kind) {
  r.add({.op = op,
         .name = name,
         .fits = [](const KernelRequest& req) { return input_type_in(req, 2, {DataType::f32, DataType::f64}); },
         .make = [kind, name](const KernelRequest& req) {
           const cpu::OptimizerParams p = params(req.context, kind);
           return make_kernel(name, [p](Views in, Views out) { cpu::optimizer_step(p, in, out); });
         }});
}

}  // namespace

void register_cpu_optimizers(KernelRegistry& r) {
  add(r, "Adagrad", "cpu.adagrad", cpu::Optimizer::adagrad);
  add(r, "Momentum", "cpu.momentum", cpu::Optimizer::momentum);
  add(r, "Adam", "cpu.adam", cpu::Optimizer::adam);
}

}  // namespace ge::cpu_lower
