// CPU kernels of RNN, GRU and LSTM (f32, f64): the attributes resolved once into
// cpu::RnnParams, hidden_size from R's dims when the node does not set it. On f32 with
// W and R constant, both are packed here as the GEMM's B operands (never per run).
#include <memory>
#include <string>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/packed.hpp"
#include "kernels/cpu/sequence/recurrent.hpp"

namespace ge::cpu_lower {

namespace {

cpu::RnnParams params(const KernelRequest& req, cpu::RnnCell cell) {
  const InferContext& c = req.context;
  cpu::RnnParams p;
  p.cell = cell;
  const std::string& dir = c.s("direction");
  p.directions = dir == "bidirectional" ? 2 : 1;
  p.reverse = dir == "reverse";
  p.batch_first = c.i("layout") == 1;
  if (c.has("clip")) p.clip = c.f("clip");
  if (cell == cpu::RnnCell::gru) p.linear_before_reset = c.i("linear_before_reset") != 0;
  if (cell == cpu::RnnCell::lstm) p.input_forget = c.i("input_forget") != 0;
  if (c.has("hidden_size")) {
    p.hidden = c.i("hidden_size");
  } else {
    const Shape& r = c.shape(2);
    if (!r.rank_known() || r.rank() != 3 || !r.dims()[2].is_static())
      fail(Errc::unsupported, c.schema().name, "hidden_size is not set and R's last dim is not static");
    p.hidden = r.dims()[2].lo();
  }
  const std::vector<std::string> names = c.has("activations") ? c.attr("activations").as_strings() : std::vector<std::string>{};
  const std::vector<double> alphas = c.has("activation_alpha") ? c.attr("activation_alpha").as_floats() : std::vector<double>{};
  const std::vector<double> betas = c.has("activation_beta") ? c.attr("activation_beta").as_floats() : std::vector<double>{};
  p.activations = cpu::rnn_activations(cell, p.directions, names, alphas, betas);
  return p;
}

void add(KernelRegistry& r, const char* op, const char* name, cpu::RnnCell cell) {
  r.add({.op = op,
         .name = name,
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32, DataType::f64}); },
         .make = [cell, name](const KernelRequest& req) -> std::shared_ptr<const Kernel> {
           const cpu::RnnParams p = params(req, cell);
           const InferContext& c = req.context;
           const Tensor* w = c.constant(1);
           const Tensor* r = c.constant(2);
           if (c.input(0).dtype == DataType::f32 && w != nullptr && r != nullptr) {
             const std::string packed_name = std::string(name) + ".packed";
             auto pw = packed_part<cpu::PackedMatMulB>(req, 0, packed_name, [&] { return cpu::pack_rnn_w(p, view_of(*w)); });
             auto pr = packed_part<cpu::PackedMatMulB>(req, 1, packed_name, [&] { return cpu::pack_rnn_r(p, view_of(*r)); });
             return make_packed_kernel(packed_name, [p, pw, pr](Views in, Views out) {
               cpu::recurrent(p, in, out, *pw, *pr);
             }, {1, 2}, pw, pr);
           }
           return make_kernel(name, [p](Views in, Views out) { cpu::recurrent(p, in, out); });
         }});
}

}  // namespace

void register_cpu_recurrent(KernelRegistry& r) {
  add(r, "RNN", "cpu.rnn", cpu::RnnCell::rnn);
  add(r, "GRU", "cpu.gru", cpu::RnnCell::gru);
  add(r, "LSTM", "cpu.lstm", cpu::RnnCell::lstm);
}

}  // namespace ge::cpu_lower
