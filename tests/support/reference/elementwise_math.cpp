// The reference's element-wise math and activation family: trigonometric and hyperbolic
// maps, rounding, Sign, Reciprocal, the activations with attributes, IsNaN and IsInf,
// PRelu, And/Or/Xor, LessOrEqual/GreaterOrEqual, BitShift, Sum and Mean. Each written
// from the ONNX formula, in double (integers in int64).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// Round half to even, spelled out.
double round_even(double v) {
  if (!std::isfinite(v)) return v;
  const double r = std::floor(v);
  const double d = v - r;
  if (d > 0.5) return r + 1;
  if (d < 0.5) return r;
  return std::fmod(r, 2.0) == 0.0 ? r : r + 1;
}

Outs sign(const Ctx& c) {
  const RefTensor& x = c.in(0);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    if (is_floating(x.dtype)) {
      const double v = get_f(x, i);
      set_f(y, i, std::isnan(v) ? v : (v > 0) - (v < 0));
    } else {
      const std::int64_t v = get_i(x, i);
      set_i(y, i, (v > 0) - (v < 0));
    }
  }
  return {y};
}

Outs float_test(const Ctx& c, bool inf) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const bool neg = c.i("detect_negative", 1) != 0, pos = c.i("detect_positive", 1) != 0;
  RefTensor y(DataType::boolean, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const double v = get_f(x, i);
    const bool hit = inf ? std::isinf(v) && ((v < 0 && neg) || (v > 0 && pos)) : std::isnan(v);
    set_i(y, i, hit ? 1 : 0);
  }
  return {y};
}

// y[i] = f(a at i, b at i) over the broadcast of a and b (same type), y of type `out`.
template <class F>
Outs broadcast2(const Ctx& c, DataType out, F f) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  if (a.dtype != b.dtype) c.error("inputs " + a.describe() + " and " + b.describe() + " differ in type");
  const auto dims = broadcast_dims(a.dims, b.dims);
  if (!dims) c.error("inputs " + a.describe() + " and " + b.describe() + " do not broadcast");
  RefTensor y(out, *dims);
  const Dims ia = broadcast_index(*dims, a.dims), ib = broadcast_index(*dims, b.dims);
  for (std::int64_t i = 0; i < y.elements(); ++i) f(y, i, ia[static_cast<std::size_t>(i)], ib[static_cast<std::size_t>(i)]);
  return {y};
}

Outs prelu(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const RefTensor& slope = c.in(1);
  Outs y = broadcast2(c, x.dtype, [&](RefTensor& out, std::int64_t i, std::int64_t ka, std::int64_t kb) {
    const double v = get_f(x, ka);
    set_f(out, i, v < 0 ? get_f(slope, kb) * v : v);
  });
  if (y[0].dims != x.dims) c.error("slope " + slope.describe() + " does not broadcast to X " + x.describe());
  return y;
}

Outs logic(const Ctx& c, char op) {
  if (c.in(0).dtype != DataType::boolean) c.error("input 0 is " + c.in(0).describe() + "; expected bool");
  return broadcast2(c, DataType::boolean, [&](RefTensor& y, std::int64_t i, std::int64_t ka, std::int64_t kb) {
    const bool u = get_i(c.in(0), ka) != 0, v = get_i(c.in(1), kb) != 0;
    set_i(y, i, op == '&' ? (u && v) : op == '|' ? (u || v) : (u != v));
  });
}

Outs ordered(const Ctx& c, bool less) {
  const bool fl = is_floating(c.in(0).dtype);
  return broadcast2(c, DataType::boolean, [&](RefTensor& y, std::int64_t i, std::int64_t ka, std::int64_t kb) {
    if (fl) {
      const double u = get_f(c.in(0), ka), v = get_f(c.in(1), kb);
      set_i(y, i, less ? u <= v : u >= v);
    } else {
      const std::int64_t u = get_i(c.in(0), ka), v = get_i(c.in(1), kb);
      set_i(y, i, less ? u <= v : u >= v);
    }
  });
}

Outs bit_shift(const Ctx& c) {
  const DataType t = c.in(0).dtype;
  if (t != DataType::u8 && t != DataType::u16 && t != DataType::u32 && t != DataType::u64)
    c.error("input 0 is " + c.in(0).describe() + "; expected an unsigned integer type");
  const std::string dir = c.s("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") c.error("direction '" + dir + "' is not LEFT or RIGHT");
  const auto bits = static_cast<std::uint64_t>(size_of(t)) * 8;
  return broadcast2(c, t, [&](RefTensor& y, std::int64_t i, std::int64_t ka, std::int64_t kb) {
    // get_i of a u64 above 2^63 is negative; the cast back restores the bits.
    const auto u = static_cast<std::uint64_t>(get_i(c.in(0), ka)), v = static_cast<std::uint64_t>(get_i(c.in(1), kb));
    std::uint64_t r = 0;
    if (v < bits) r = dir == "LEFT" ? u << v : u >> v;
    set_i(y, i, static_cast<std::int64_t>(r));  // narrower types keep the low bits
  });
}

// Sum and Mean of 1..N inputs with broadcasting, in double.
Outs sum_mean(const Ctx& c, bool mean) {
  if (c.input_count() == 0) c.error("no inputs");
  c.require_float(0);
  Dims dims = c.in(0).dims;
  for (std::size_t k = 1; k < c.input_count(); ++k) {
    const auto d = broadcast_dims(dims, c.in(k).dims);
    if (!d || c.in(k).dtype != c.in(0).dtype) c.error("input " + std::to_string(k) + " " + c.in(k).describe() + " does not fit");
    dims = *d;
  }
  RefTensor y(c.in(0).dtype, dims);
  std::vector<double> acc(static_cast<std::size_t>(y.elements()), 0.0);
  for (std::size_t k = 0; k < c.input_count(); ++k) {
    const Dims idx = broadcast_index(dims, c.in(k).dims);
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += get_f(c.in(k), idx[i]);
  }
  const double n = mean ? static_cast<double>(c.input_count()) : 1.0;
  for (std::size_t i = 0; i < acc.size(); ++i) set_f(y, static_cast<std::int64_t>(i), acc[i] / n);
  return {y};
}

double softplus(double v) { return std::log(1.0 + std::exp(v)); }

}  // namespace

void add_elementwise_math_ops(OpTable& t) {
  const auto unary_f = [&t](std::string name, double (*f)(double)) {
    t[std::move(name)] = {[f](const Ctx& c) { return map_float(c, f); }, {}};
  };
  unary_f("Reciprocal", [](double v) { return 1.0 / v; });
  unary_f("Sin", [](double v) { return std::sin(v); });
  unary_f("Cos", [](double v) { return std::cos(v); });
  unary_f("Tan", [](double v) { return std::tan(v); });
  unary_f("Asin", [](double v) { return std::asin(v); });
  unary_f("Acos", [](double v) { return std::acos(v); });
  unary_f("Atan", [](double v) { return std::atan(v); });
  unary_f("Sinh", [](double v) { return std::sinh(v); });
  unary_f("Cosh", [](double v) { return std::cosh(v); });
  unary_f("Asinh", [](double v) { return std::asinh(v); });
  unary_f("Acosh", [](double v) { return std::acosh(v); });
  unary_f("Atanh", [](double v) { return std::atanh(v); });
  unary_f("Softplus", softplus);
  unary_f("Softsign", [](double v) { return v / (1.0 + std::fabs(v)); });
  unary_f("Mish", [](double v) { return v * std::tanh(softplus(v)); });
  unary_f("Round", round_even);
  unary_f("Floor", [](double v) { return std::floor(v); });
  unary_f("Ceil", [](double v) { return std::ceil(v); });
  t["Sign"] = {sign, {}};
  t["Elu"] = {[](const Ctx& c) {
                const double a = c.f("alpha", 1.0);
                return map_float(c, [a](double v) { return v < 0 ? a * (std::exp(v) - 1) : v; });
              },
              {"alpha"}};
  t["Selu"] = {[](const Ctx& c) {
                 const double a = c.f("alpha", 1.67326319217681884765625), g = c.f("gamma", 1.05070102214813232421875);
                 return map_float(c, [a, g](double v) { return v <= 0 ? g * (a * std::exp(v) - a) : g * v; });
               },
               {"alpha", "gamma"}};
  t["Celu"] = {[](const Ctx& c) {
                 const double a = c.f("alpha", 1.0);
                 if (a == 0) c.error("alpha is 0");
                 return map_float(c, [a](double v) { return std::max(0.0, v) + std::min(0.0, a * (std::exp(v / a) - 1)); });
               },
               {"alpha"}};
  t["ThresholdedRelu"] = {[](const Ctx& c) {
                            const double a = c.f("alpha", 1.0);
                            return map_float(c, [a](double v) { return v > a ? v : 0.0; });
                          },
                          {"alpha"}};
  t["Shrink"] = {[](const Ctx& c) {
                   const double l = c.f("lambd", 0.5), b = c.f("bias", 0.0);
                   return map_float(c, [l, b](double v) { return v < -l ? v + b : (v > l ? v - b : 0.0); });
                 },
                 {"lambd", "bias"}};
  t["IsNaN"] = {[](const Ctx& c) { return float_test(c, false); }, {}};
  t["IsInf"] = {[](const Ctx& c) { return float_test(c, true); }, {"detect_negative", "detect_positive"}};
  t["PRelu"] = {prelu, {}};
  t["And"] = {[](const Ctx& c) { return logic(c, '&'); }, {}};
  t["Or"] = {[](const Ctx& c) { return logic(c, '|'); }, {}};
  t["Xor"] = {[](const Ctx& c) { return logic(c, '^'); }, {}};
  t["LessOrEqual"] = {[](const Ctx& c) { return ordered(c, true); }, {}};
  t["GreaterOrEqual"] = {[](const Ctx& c) { return ordered(c, false); }, {}};
  t["BitShift"] = {bit_shift, {"direction"}};
  t["Sum"] = {[](const Ctx& c) { return sum_mean(c, false); }, {}};
  t["Mean"] = {[](const Ctx& c) { return sum_mean(c, true); }, {}};
}

}  // namespace ge::ref::detail
