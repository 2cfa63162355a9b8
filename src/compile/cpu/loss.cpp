// CPU kernels of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (f32, f64): the
// reduction and ignore_index read at compile time.
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/nn/loss.hpp"

namespace ge::cpu_lower {

namespace {

cpu::LossParams loss_params(std::string_view op, const InferContext& c) {
  cpu::LossParams p;
  const std::string& r = c.s("reduction");
  if (r == "none") p.reduction = cpu::LossReduction::none;
  else if (r == "sum") p.reduction = cpu::LossReduction::sum;
  else if (r == "mean") p.reduction = cpu::LossReduction::mean;
  else fail(Errc::bad_attribute, op, "reduction '" + r + "'; expected none, sum or mean");
  if (c.has("ignore_index")) p.ignore_index = c.i("ignore_index");
  return p;
}

bool loss_fits(const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32, DataType::f64}); }

}  // namespace

void register_cpu_loss(KernelRegistry& r) {
  r.add({.op = "NegativeLogLikelihoodLoss",
         .name = "cpu.nll_loss",
         .fits = loss_fits,
         .make = [](const KernelRequest& req) {
           const cpu::LossParams p = loss_params("NegativeLogLikelihoodLoss", req.context);
           return make_kernel("cpu.nll_loss", [p](Views in, Views out) {
             cpu::nll_loss(p, in[0], in[1], optional_input(in, 2), out[0]);
           });
         }});
  r.add({.op = "SoftmaxCrossEntropyLoss",
         .name = "cpu.softmax_cross_entropy",
         .fits = loss_fits,
         .make = [](const KernelRequest& req) {
           const cpu::LossParams p = loss_params("SoftmaxCrossEntropyLoss", req.context);
           return make_kernel("cpu.softmax_cross_entropy", [p](Views in, Views out) {
             cpu::softmax_cross_entropy(p, in[0], in[1], optional_input(in, 2), out[0], out.size() > 1 ? &out[1] : nullptr);
           });
         }});
}

}  // namespace ge::cpu_lower
