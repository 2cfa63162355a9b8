// CPU kernel of Einsum (f32, f64): the equation is parsed once when the kernel is made; each
// run fits it to the real ranks (an ellipsis may stand for a different number of dims
// per shape) and hands the labels per dim to the kernel.
#include <memory>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/sequence/einsum.hpp"
#include "ops/einsum_equation.hpp"

namespace ge::cpu_lower {

void register_cpu_einsum(KernelRegistry& r) {
  r.add({.op = "Einsum",
         .name = "cpu.einsum",
         .fits = [](const KernelRequest& req) {
           for (std::size_t i = 0; i < req.context.input_count(); ++i)
             if (!input_type_in(req, i, {DataType::f32, DataType::f64})) return false;
           return true;
         },
         .make = [](const KernelRequest& req) {
           const std::string text = req.context.s("equation");
           auto eq = std::make_shared<ops::EinsumEquation>();
           if (std::string why = ops::parse_einsum(text, *eq); !why.empty())
             fail(Errc::bad_attribute, "Einsum", "equation '" + text + "' does not parse: " + why);
           return make_kernel("cpu.einsum", [eq, text](Views in, Views out) {
             std::vector<std::size_t> ranks;
             for (const TensorView& v : in) ranks.push_back(v.rank());
             ops::EinsumLabels labels;
             if (std::string why = ops::resolve_einsum(*eq, ranks, labels); !why.empty())
               fail(Errc::bad_op_inputs, "Einsum", "equation '" + text + "' does not fit the inputs: " + why);
             cpu::einsum({.inputs = std::move(labels.inputs), .output = std::move(labels.output)}, in, out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
