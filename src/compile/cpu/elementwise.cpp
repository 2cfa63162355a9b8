// CPU kernels of the elementwise ops: unary activations (LeakyRelu alpha, Gelu
// approximate), Clip (bounds read per run from its optional inputs), binary arithmetic and
// comparisons with numpy broadcasting, Where, and Cast (the `to` type is the output's).
// `fits` admits only the data types the kernels implement, so that other requests get
// `no_kernel` at compile time.
#include <cmath>
#include <limits>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/data_movement.hpp"
#include "kernels/cpu/elementwise.hpp"

namespace ge::cpu_lower {

namespace {

// neg, abs and relu have integer kernels; the others are f32 only.
bool unary_fits(cpu::UnaryOp kind, const KernelRequest& r) {
  const bool ints = kind == cpu::UnaryOp::neg || kind == cpu::UnaryOp::abs || kind == cpu::UnaryOp::relu;
  return ints ? input_type_in(r, 0, {DataType::f32, DataType::i32, DataType::i64}) : input_type_in(r, 0, {DataType::f32});
}

void add_unary(KernelRegistry& r, const char* op, cpu::UnaryOp kind) {
  r.add({.op = op,
         .name = std::string("cpu.unary.") + op,
         .engines = engines(Engine::vector, Engine::host),
         .fits = [kind](const KernelRequest& req) { return unary_fits(kind, req); },
         .make = [kind, op](const KernelRequest& req) {
           cpu::UnaryParams p{.op = kind};
           const InferContext& c = req.context;
           if (kind == cpu::UnaryOp::leaky_relu) p.alpha = static_cast<float>(c.f("alpha"));
           if (kind == cpu::UnaryOp::gelu && c.has("approximate") && c.s("approximate") == "tanh")
             p.op = cpu::UnaryOp::gelu_tanh;
           return make_kernel(std::string("cpu.unary.") + op,
                              [p](Views in, Views out) {
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

bool binary_fits(cpu::BinaryOp kind, const KernelRequest& r) {
  if (!r.context.has_input(1) || r.context.input(1).dtype != r.context.input(0).dtype) return false;
  if (kind == cpu::BinaryOp::pow) return input_type_in(r, 0, {DataType::f32});
  if (kind == cpu::BinaryOp::equal)
    return input_type_in(r, 0, {DataType::f32, DataType::i32, DataType::i64, DataType::boolean});
  return input_type_in(r, 0, {DataType::f32, DataType::i32, DataType::i64});
}

void add_binary(KernelRegistry& r, const char* op, cpu::BinaryOp kind) {
  r.add({.op = op,
         .name = std::string("cpu.binary.") + op,
         .engines = engines(Engine::vector, Engine::host),
         .fits = [kind](const KernelRequest& req) { return binary_fits(kind, req); },
         .make = [kind, op](const KernelRequest&) {
           return make_kernel(std::string("cpu.binary.") + op,
                              [kind](Views in, Views out) {
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
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32}); },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.unary.Clip", [](Views in, Views out) {
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
  r.add({.op = "Where",
         .name = "cpu.where",
         .engines = engines(Engine::vector, Engine::host),
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.where", [](Views in, Views out) {
             cpu::where(in[0], in[1], in[2], out[0]);
           });
         }});
  r.add({.op = "Cast",
         .name = "cpu.cast",
         .engines = engines(Engine::vector, Engine::host),
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.cast", [](Views in, Views out) {
             cpu::cast(in[0], out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
