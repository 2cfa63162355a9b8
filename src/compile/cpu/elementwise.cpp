// CPU kernels of the elementwise ops: unary math and activations (the attributes of
// LeakyRelu, Elu, Selu, Celu, ThresholdedRelu and Shrink, Gelu's approximate), IsNaN and
// IsInf, Clip on f32 and on the integers (bounds read per run from its optional inputs),
// Pow of integer and mixed types, binary arithmetic,
// comparisons, logic, BitShift (direction) and PRelu with numpy broadcasting, Where, and
// Cast (the `to` type is the output's). `fits` admits only the data types the kernels
// implement, so that other requests get `no_kernel` at compile time.
#include <cmath>
#include <limits>
#include <utility>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/elementwise/elementwise.hpp"

namespace ge::cpu_lower {

namespace {

// neg, abs, relu and sign have integer kernels; the table ops (from reciprocal on) f64
// ones; the others are f32 only.
bool unary_fits(cpu::UnaryOp kind, const KernelRequest& r) {
  if (kind == cpu::UnaryOp::sign)
    return input_type_in(r, 0, {DataType::f32, DataType::f64, DataType::i32, DataType::i64});
  const bool ints = kind == cpu::UnaryOp::neg || kind == cpu::UnaryOp::abs || kind == cpu::UnaryOp::relu;
  if (ints) return input_type_in(r, 0, {DataType::f32, DataType::i32, DataType::i64});
  if (kind >= cpu::UnaryOp::reciprocal) return input_type_in(r, 0, {DataType::f32, DataType::f64});
  return input_type_in(r, 0, {DataType::f32});
}

// The op's attributes into the kernel's parameters.
cpu::UnaryParams unary_params(cpu::UnaryOp kind, const InferContext& c) {
  cpu::UnaryParams p{.op = kind};
  const auto f = [&c](const char* name) { return static_cast<float>(c.f(name)); };
  switch (kind) {
    case cpu::UnaryOp::leaky_relu:
    case cpu::UnaryOp::elu:
    case cpu::UnaryOp::celu:
    case cpu::UnaryOp::thresholded_relu: p.alpha = f("alpha"); break;
    case cpu::UnaryOp::selu:
      p.alpha = f("alpha");
      p.gamma = f("gamma");
      break;
    case cpu::UnaryOp::shrink:
      p.alpha = f("lambd");
      p.beta = f("bias");
      break;
    case cpu::UnaryOp::gelu:
      if (c.has("approximate") && c.s("approximate") == "tanh") p.op = cpu::UnaryOp::gelu_tanh;
      break;
    default: break;
  }
  return p;
}

void add_unary(KernelRegistry& r, const char* op, cpu::UnaryOp kind) {
  r.add({.op = op,
         .name = std::string("cpu.unary.") + op,
         .fits = [kind](const KernelRequest& req) { return unary_fits(kind, req); },
         .make = [kind, op](const KernelRequest& req) {
           const cpu::UnaryParams p = unary_params(kind, req.context);
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

// An integer Clip bound, read per run; `fallback` when the input is omitted. A u64
// bound above int64's range is int64's largest (the kernel then leaves x unbounded).
std::int64_t int_bound(const TensorView* t, std::int64_t fallback) {
  if (t == nullptr || t->data == nullptr) return fallback;
  switch (t->dtype) {
    case DataType::i8: return *t->as<const std::int8_t>();
    case DataType::i16: return *t->as<const std::int16_t>();
    case DataType::i32: return *t->as<const std::int32_t>();
    case DataType::i64: return *t->as<const std::int64_t>();
    case DataType::u8: return *t->as<const std::uint8_t>();
    case DataType::u16: return *t->as<const std::uint16_t>();
    case DataType::u32: return *t->as<const std::uint32_t>();
    case DataType::u64: {
      const std::uint64_t v = *t->as<const std::uint64_t>();
      return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? std::numeric_limits<std::int64_t>::max()
                 : static_cast<std::int64_t>(v);
    }
    default: return fallback;
  }
}

bool binary_fits(cpu::BinaryOp kind, const KernelRequest& r) {
  using B = cpu::BinaryOp;
  constexpr auto f32 = DataType::f32, f64 = DataType::f64, i32 = DataType::i32, i64 = DataType::i64;
  constexpr auto u8 = DataType::u8, u16 = DataType::u16, u32 = DataType::u32, u64 = DataType::u64;
  if (!r.context.has_input(1) || r.context.input(1).dtype != r.context.input(0).dtype) return false;
  switch (kind) {
    case B::pow: return input_type_in(r, 0, {f32, f64});
    case B::prelu: return input_type_in(r, 0, {f32, f64});
    case B::equal: return input_type_in(r, 0, {f32, f64, i32, i64, DataType::boolean});
    case B::less:
    case B::greater:
    case B::less_equal:
    case B::greater_equal: return input_type_in(r, 0, {f32, f64, i32, i64});
    case B::logical_and:
    case B::logical_or:
    case B::logical_xor: return input_type_in(r, 0, {DataType::boolean});
    case B::shift_left:
    case B::shift_right: return input_type_in(r, 0, {u8, u16, u32, u64});
    default: return input_type_in(r, 0, {f32, f64, i32, i64, u8, u16, u32, u64});
  }
}

void add_binary(KernelRegistry& r, const char* op, cpu::BinaryOp kind) {
  r.add({.op = op,
         .name = std::string("cpu.binary.") + op,
         .fits = [kind](const KernelRequest& req) { return binary_fits(kind, req); },
         .make = [kind, op](const KernelRequest&) {
           return make_kernel(std::string("cpu.binary.") + op,
                              [kind](Views in, Views out) {
                                cpu::binary(kind, in[0], in[1], out[0]);
                              });
         }});
}

void add_clip_int(KernelRegistry& r) {
  r.add({.op = "Clip",
         .name = "cpu.clip_int",
         .fits = [](const KernelRequest& req) {
           return input_type_in(req, 0, {DataType::i8, DataType::i16, DataType::i32, DataType::i64, DataType::u8,
                                         DataType::u16, DataType::u32, DataType::u64});
         },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.clip_int", [](Views in, Views out) {
             cpu::clip_int(int_bound(optional_input(in, 1), std::numeric_limits<std::int64_t>::min()),
                           int_bound(optional_input(in, 2), std::numeric_limits<std::int64_t>::max()), in[0], out[0]);
           });
         }});
}

void add_pow_mixed(KernelRegistry& r) {
  r.add({.op = "Pow",
         .name = "cpu.pow_mixed",
         .priority = -1,  // same-type floats take the vectorised binary kernel
         .fits = [](const KernelRequest& req) {
           constexpr auto f32 = DataType::f32, f64 = DataType::f64, i32 = DataType::i32, i64 = DataType::i64;
           return input_type_in(req, 0, {f32, f64, i32, i64}) &&
                  input_type_in(req, 1, {f32, f64, i32, i64, DataType::u32, DataType::u64});
         },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.pow_mixed", [](Views in, Views out) { cpu::pow_mixed(in[0], in[1], out[0]); });
         }});
}

void add_float_tests(KernelRegistry& r) {
  for (const auto& entry : {std::pair{"IsNaN", cpu::FloatTest::nan}, std::pair{"IsInf", cpu::FloatTest::inf}}) {
    const char* const op = entry.first;  // not a structured binding: clang 14 (the fuzz build) cannot capture one
    const cpu::FloatTest test = entry.second;
    r.add({.op = op,
           .name = std::string("cpu.") + op,
           .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32, DataType::f64}); },
           .make = [op, test](const KernelRequest& req) {
             const bool inf = test == cpu::FloatTest::inf;
             const bool neg = inf && req.context.i("detect_negative") != 0;
             const bool pos = inf && req.context.i("detect_positive") != 0;
             return make_kernel(std::string("cpu.") + op,
                                [test, neg, pos](Views in, Views out) { cpu::float_test(test, neg, pos, in[0], out[0]); });
           }});
  }
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
  using U = cpu::UnaryOp;
  const std::pair<const char*, U> table[] = {
      {"Reciprocal", U::reciprocal}, {"Sin", U::sin},       {"Cos", U::cos},           {"Tan", U::tan},
      {"Asin", U::asin},             {"Acos", U::acos},     {"Atan", U::atan},         {"Sinh", U::sinh},
      {"Cosh", U::cosh},             {"Asinh", U::asinh},   {"Acosh", U::acosh},       {"Atanh", U::atanh},
      {"Softplus", U::softplus},     {"Softsign", U::softsign}, {"Mish", U::mish},     {"Round", U::round},
      {"Floor", U::floor},           {"Ceil", U::ceil},     {"Sign", U::sign},         {"Elu", U::elu},
      {"Selu", U::selu},             {"Celu", U::celu},     {"ThresholdedRelu", U::thresholded_relu},
      {"Shrink", U::shrink}};
  for (const auto& [op, kind] : table) add_unary(r, op, kind);
  add_float_tests(r);
  r.add({.op = "Clip",
         .name = "cpu.unary.Clip",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32}); },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.unary.Clip", [](Views in, Views out) {
             cpu::UnaryParams p{.op = cpu::UnaryOp::clip};
             p.lo = bound(optional_input(in, 1), -std::numeric_limits<float>::infinity());
             p.hi = bound(optional_input(in, 2), std::numeric_limits<float>::infinity());
             cpu::unary(p, in[0], out[0]);
           });
         }});
  add_clip_int(r);
  add_pow_mixed(r);
  add_binary(r, "Add", cpu::BinaryOp::add);
  add_binary(r, "Sub", cpu::BinaryOp::sub);
  add_binary(r, "Mul", cpu::BinaryOp::mul);
  add_binary(r, "Div", cpu::BinaryOp::div);
  add_binary(r, "Pow", cpu::BinaryOp::pow);
  add_binary(r, "Equal", cpu::BinaryOp::equal);
  add_binary(r, "Less", cpu::BinaryOp::less);
  add_binary(r, "Greater", cpu::BinaryOp::greater);
  add_binary(r, "LessOrEqual", cpu::BinaryOp::less_equal);
  add_binary(r, "GreaterOrEqual", cpu::BinaryOp::greater_equal);
  add_binary(r, "And", cpu::BinaryOp::logical_and);
  add_binary(r, "Or", cpu::BinaryOp::logical_or);
  add_binary(r, "Xor", cpu::BinaryOp::logical_xor);
  add_binary(r, "PRelu", cpu::BinaryOp::prelu);
  r.add({.op = "BitShift",
         .name = "cpu.binary.BitShift",
         .fits = [](const KernelRequest& req) { return binary_fits(cpu::BinaryOp::shift_left, req); },
         .make = [](const KernelRequest& req) {
           const auto kind = req.context.s("direction") == "LEFT" ? cpu::BinaryOp::shift_left : cpu::BinaryOp::shift_right;
           return make_kernel("cpu.binary.BitShift", [kind](Views in, Views out) { cpu::binary(kind, in[0], in[1], out[0]); });
         }});
  r.add({.op = "Where",
         .name = "cpu.where",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.where", [](Views in, Views out) {
             cpu::where(in[0], in[1], in[2], out[0]);
           });
         }});
  r.add({.op = "Cast",
         .name = "cpu.cast",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.cast", [](Views in, Views out) {
             cpu::cast(in[0], out[0]);
           });
         }});
}

}  // namespace ge::cpu_lower
