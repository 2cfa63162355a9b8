// CPU kernels of the elementwise ops: unary activations and binary arithmetic and
// comparisons with numpy broadcasting.
#include <cmath>
#include <limits>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/elementwise.hpp"

namespace ge::cpu_lower {

namespace {

void add_unary(KernelRegistry& r, const char* op, cpu::UnaryOp kind) {
  r.add({.op = op,
         .name = std::string("cpu.unary.") + op,
         .engines = engines(Engine::vector, Engine::host),
         .make = [kind, op](const KernelRequest& req) {
           cpu::UnaryParams p{.op = kind};
           const InferContext& c = req.context;
           if (kind == cpu::UnaryOp::leaky_relu) p.alpha = static_cast<float>(c.f("alpha"));
           if (kind == cpu::UnaryOp::gelu && c.has("approximate") && c.s("approximate") == "tanh")
             p.op = cpu::UnaryOp::gelu_tanh;
           return make_kernel(std::string("cpu.unary.") + op,
                              [p](std::span<const TensorView> in, std::span<const TensorView> out) {
                                cpu::unary(p, in[0], out[0]);
                              });
         }});
}

// Clip's bounds are optional inputs (opset 11+), read per run: they may be computed.
float bound(const TensorView* t, float fallback) {
  if (t == nullptr || t->data == nullptr) return fallback;
  switch (t->dtype) {
    case DataType::f32: return *t->as<const float>();
    case DataType::f64: return static_cast<float>(*t->as<const double>());
    case DataType::i32: return static_cast<float>(*t->as<const std::int32_t>());
    case DataType::i64: return static_cast<float>(*t->as<const std::int64_t>());
    default: return fallback;
  }
}

void add_binary(KernelRegistry& r, const char* op, cpu::BinaryOp kind) {
  r.add({.op = op,
         .name = std::string("cpu.binary.") + op,
         .engines = engines(Engine::vector, Engine::host),
         .make = [kind, op](const KernelRequest&) {
           return make_kernel(std::string("cpu.binary.") + op,
                              [kind](std::span<const TensorView> in, std::span<const TensorView> out) {
                                cpu::binary(kind, in[0], in[1], out[0]);
                              });
         }});
}

}  // namespace

void register_cpu_elementwise(KernelRegistry& r) {
  add_unary(r, "Relu", cpu::UnaryOp::relu);
  add_unary(r, "Sigmoid", cpu::UnaryOp::sigmoid);
  add_unary(r, "Tanh", cpu::UnaryOp::tanh);
  add_unary(r, "Exp", cpu::UnaryOp::exp);
  add_unary(r, "Log", cpu::UnaryOp::log);
  add_unary(r, "Sqrt", cpu::UnaryOp::sqrt);
  add_unary(r, "Neg", cpu::UnaryOp::neg);
  add_unary(r, "Abs", cpu::UnaryOp::abs);
  add_unary(r, "Erf", cpu::UnaryOp::erf);
  add_unary(r, "Gelu", cpu::UnaryOp::gelu);
  add_unary(r, "HardSwish", cpu::UnaryOp::hard_swish);
  add_unary(r, "LeakyRelu", cpu::UnaryOp::leaky_relu);
  r.add({.op = "Clip",
         .name = "cpu.unary.Clip",
         .engines = engines(Engine::vector, Engine::host),
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.unary.Clip", [](std::span<const TensorView> in, std::span<const TensorView> out) {
             cpu::UnaryParams p{.op = cpu::UnaryOp::clip};
             p.lo = bound(optional_input(in, 1), -std::numeric_limits<float>::infinity());
             p.hi = bound(optional_input(in, 2), std::numeric_limits<float>::infinity());
             cpu::unary(p, in[0], out[0]);
           });
         }});
  add_binary(r, "Add", cpu::BinaryOp::add);
  add_binary(r, "Sub", cpu::BinaryOp::sub);
  add_binary(r, "Mul", cpu::BinaryOp::mul);
  add_binary(r, "Div", cpu::BinaryOp::div);
  add_binary(r, "Pow", cpu::BinaryOp::pow);
  add_binary(r, "Equal", cpu::BinaryOp::equal);
  add_binary(r, "Less", cpu::BinaryOp::less);
  add_binary(r, "Greater", cpu::BinaryOp::greater);
}

}  // namespace ge::cpu_lower
