// The reference's elementwise ops: unary maps, binary ops with broadcasting, Where,
// Clip, Cast, Softmax, Max, Min, Mod, Not.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// ---- elementwise ----

// y = f(x) in double for floating x, g(x) in int64 for integer x.
template <class F, class G>
Outs map_numeric(const Ctx& c, F f, G g) {
  const RefTensor& x = c.in(0);
  RefTensor y(x.dtype, x.dims);
  if (is_floating(x.dtype)) {
    for (std::int64_t i = 0; i < x.elements(); ++i) set_f(y, i, f(get_f(x, i)));
  } else {
    if (x.dtype == DataType::boolean) c.error("input 0 is " + x.describe() + "; a bool input is not implemented");
    for (std::int64_t i = 0; i < x.elements(); ++i) set_i(y, i, g(get_i(x, i)));
  }
  return {y};
}

enum class Bin { add, sub, mul, div, pow, equal, less, greater };

// op on x and z in V (double or int64; not pow); a comparison gives 0 or 1.
template <class V>
V apply(const Ctx& c, Bin op, V x, V z) {
  switch (op) {
    case Bin::add: return x + z;
    case Bin::sub: return x - z;
    case Bin::mul: return x * z;
    case Bin::div:
      if (std::is_integral_v<V> && z == 0) c.error("integer division by zero");
      return x / z;  // integers: truncates toward zero
    case Bin::equal: return x == z;
    case Bin::less: return x < z;
    case Bin::greater: return x > z;
    case Bin::pow: break;
  }
  return V{};
}

// y[i] = f(y, i, ka, kb) over the broadcast of a and b (numpy rules), y of type `out`;
// a and b must have the same type unless `mixed`.
template <class F>
RefTensor broadcast_map(const Ctx& c, const RefTensor& a, const RefTensor& b, DataType out, bool mixed, F f) {
  if (!mixed && a.dtype != b.dtype) c.error("inputs " + a.describe() + " and " + b.describe() + " differ in type");
  const auto dims = broadcast_dims(a.dims, b.dims);
  if (!dims) c.error("inputs " + a.describe() + " and " + b.describe() + " do not broadcast");
  RefTensor y(out, *dims);
  const Dims ia = broadcast_index(*dims, a.dims), ib = broadcast_index(*dims, b.dims);
  for (std::int64_t i = 0; i < y.elements(); ++i)
    f(y, i, ia[static_cast<std::size_t>(i)], ib[static_cast<std::size_t>(i)]);
  return y;
}

Outs binary(const Ctx& c, Bin op) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  const bool compare = op == Bin::equal || op == Bin::less || op == Bin::greater;
  const bool floating = is_floating(a.dtype) || (op == Bin::pow && is_floating(b.dtype));
  return {broadcast_map(c, a, b, compare ? DataType::boolean : a.dtype, op == Bin::pow,
                        [&](RefTensor& y, std::int64_t i, std::int64_t ka, std::int64_t kb) {
                          if (op == Bin::pow)
                            set_f(y, i, std::pow(get_f(a, ka), get_f(b, kb)));
                          else if (floating)
                            set_f(y, i, apply<double>(c, op, get_f(a, ka), get_f(b, kb)));
                          else
                            set_i(y, i, apply<std::int64_t>(c, op, get_i(a, ka), get_i(b, kb)));
                        })};
}

Outs where(const Ctx& c) {
  const RefTensor& cond = c.in(0);
  const RefTensor& x = c.in(1);
  const RefTensor& y = c.in(2);
  if (cond.dtype != DataType::boolean) c.error("input 0 is " + cond.describe() + "; expected bool");
  if (x.dtype != y.dtype) c.error("inputs 1 and 2 differ in type: " + x.describe() + ", " + y.describe());
  auto dims = broadcast_dims(x.dims, y.dims);
  if (dims) dims = broadcast_dims(cond.dims, *dims);
  if (!dims) c.error("inputs " + cond.describe() + ", " + x.describe() + ", " + y.describe() + " do not broadcast");
  const Dims ic = broadcast_index(*dims, cond.dims), ix = broadcast_index(*dims, x.dims),
             iy = broadcast_index(*dims, y.dims);
  RefTensor out(x.dtype, *dims);
  const auto es = static_cast<std::size_t>(size_of(x.dtype));
  for (std::size_t i = 0; i < ic.size(); ++i) {
    const bool pick_x = get_i(cond, ic[i]) != 0;
    const RefTensor& src = pick_x ? x : y;
    const std::int64_t k = pick_x ? ix[i] : iy[i];
    std::memcpy(out.bytes.data() + i * es, src.bytes.data() + static_cast<std::size_t>(k) * es, es);
  }
  return {out};
}

// A one-element optional input as double (Clip's min and max).
std::optional<double> scalar_input(const Ctx& c, std::size_t k) {
  if (!c.has_input(k)) return std::nullopt;
  if (c.in(k).elements() != 1)
    c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; expected one element");
  return get_f(c.in(k), 0);
}

Outs clip(const Ctx& c) {
  const auto lo = scalar_input(c, 1), hi = scalar_input(c, 2);
  const auto f = [&](double v) {
    if (lo && v < *lo) v = *lo;
    if (hi && v > *hi) v = *hi;
    return v;
  };
  if (!is_floating(c.in(0).dtype))
    for (std::size_t k = 1; k < 3; ++k)
      if (c.has_input(k) && c.in(k).dtype != c.in(0).dtype) c.error("min/max differ in type from the input");
  return map_numeric(c, f, [&](std::int64_t v) { return static_cast<std::int64_t>(f(static_cast<double>(v))); });
}

// The type named by Cast's 'to': a ge type name, or an ONNX TensorProto code.
DataType cast_target(const Ctx& c) {
  const auto it = c.node.attrs.find("to");
  if (it == c.node.attrs.end()) c.error("attribute 'to' is missing");
  if (it->second.kind() == AttrKind::string) return parse_data_type(it->second.as_string());
  switch (it->second.as_int()) {
    case 1: return DataType::f32;
    case 2: return DataType::u8;
    case 3: return DataType::i8;
    case 4: return DataType::u16;
    case 5: return DataType::i16;
    case 6: return DataType::i32;
    case 7: return DataType::i64;
    case 9: return DataType::boolean;
    case 11: return DataType::f64;
    case 12: return DataType::u32;
    case 13: return DataType::u64;
    default: c.error("attribute 'to' is " + it->second.to_string() + ", a type that is not implemented");
  }
}

Outs cast(const Ctx& c) {
  const RefTensor& x = c.in(0);
  RefTensor y(cast_target(c), x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    if (is_floating(x.dtype))
      set_f(y, i, get_f(x, i));  // to integers: truncation toward zero
    else
      set_i(y, i, get_i(x, i));
  }
  return {y};
}

Outs softmax(const Ctx& c, bool log_softmax) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  if (r == 0) c.error("input 0 is a scalar; expected rank >= 1");
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r, "axis"));
  const std::int64_t outer = product(x.dims, 0, axis), n = x.dims[axis], inner = product(x.dims, axis + 1);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      const auto at = [&](std::int64_t k) { return (o * n + k) * inner + in; };
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t k = 0; k < n; ++k) mx = std::max(mx, get_f(x, at(k)));
      double sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += std::exp(get_f(x, at(k)) - mx);
      for (std::int64_t k = 0; k < n; ++k) {
        const double v = get_f(x, at(k)) - mx;
        set_f(y, at(k), log_softmax ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  return {y};
}

// Max and Min of any number of inputs with broadcasting (numeric: in double for floating
// types, in int64 for integers).
Outs extremum(const Ctx& c, bool is_max) {
  if (c.input_count() == 0) c.error("no inputs");
  RefTensor acc = c.in(0);
  for (std::size_t k = 1; k < c.input_count(); ++k) {
    const RefTensor& b = c.in(k);
    RefTensor y = broadcast_map(
        c, acc, b, acc.dtype, false, [&](RefTensor& out, std::int64_t i, std::int64_t ka, std::int64_t kb) {
          if (is_floating(acc.dtype)) {
            const double x = get_f(acc, ka), z = get_f(b, kb);
            set_f(out, i, std::isnan(x) || std::isnan(z) ? std::nan("") : is_max ? std::max(x, z) : std::min(x, z));
          } else {
            const std::int64_t x = get_i(acc, ka), z = get_i(b, kb);
            set_i(out, i, is_max ? std::max(x, z) : std::min(x, z));
          }
        });
    acc = std::move(y);
  }
  return {acc};
}

// Mod: fmod=1 as C's fmod (the dividend's sign), fmod=0 the divisor's sign (integers).
Outs mod(const Ctx& c) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  const bool fmod = c.i("fmod", 0) != 0;
  if (is_floating(a.dtype) && !fmod) c.error("fmod=0 on floating inputs");
  return {broadcast_map(c, a, b, a.dtype, false, [&](RefTensor& y, std::int64_t i, std::int64_t ka, std::int64_t kb) {
    if (is_floating(a.dtype)) return set_f(y, i, std::fmod(get_f(a, ka), get_f(b, kb)));
    const std::int64_t x = get_i(a, ka), z = get_i(b, kb);
    if (z == 0) c.error("integer modulo by zero");
    std::int64_t r = x % z;  // the dividend's sign
    if (!fmod && r != 0 && (r < 0) != (z < 0)) r += z;
    set_i(y, i, r);
  })};
}

Outs not_op(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (x.dtype != DataType::boolean) c.error("input 0 is " + x.describe() + "; expected bool");
  RefTensor y(DataType::boolean, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) set_i(y, i, get_i(x, i) == 0 ? 1 : 0);
  return {y};
}

}  // namespace

void add_elementwise_ops(OpTable& t) {
  const auto unary_f = [&t](std::string name, double (*f)(double)) {
    t[std::move(name)] = {[f](const Ctx& c) { return map_float(c, f); }, {}};
  };
  unary_f("Sqrt", [](double v) { return std::sqrt(v); });
  unary_f("Exp", [](double v) { return std::exp(v); });
  unary_f("Log", [](double v) { return std::log(v); });
  unary_f("Erf", [](double v) { return std::erf(v); });
  unary_f("Tanh", [](double v) { return std::tanh(v); });
  unary_f("Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  unary_f("HardSwish", [](double v) { return v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0); });
  t["Relu"] = {[](const Ctx& c) {
                 return map_numeric(
                     c, [](double v) { return v < 0 ? 0.0 : v; },
                     [](std::int64_t v) { return v < 0 ? std::int64_t{0} : v; });
               },
               {}};
  t["Neg"] = {[](const Ctx& c) {
                return map_numeric(
                    c, [](double v) { return -v; }, [](std::int64_t v) { return -v; });
              },
              {}};
  t["Abs"] = {[](const Ctx& c) {
                return map_numeric(
                    c, [](double v) { return std::fabs(v); }, [](std::int64_t v) { return v < 0 ? -v : v; });
              },
              {}};
  t["LeakyRelu"] = {[](const Ctx& c) {
                      const double alpha = c.f("alpha", 0.01);
                      return map_float(c, [alpha](double v) { return v < 0 ? alpha * v : v; });
                    },
                    {"alpha"}};
  t["Gelu"] = {[](const Ctx& c) {
                 const std::string approx = c.s("approximate", "none");
                 if (approx == "none")
                   return map_float(c, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
                 if (approx != "tanh") c.error("approximate '" + approx + "' is not implemented");
                 return map_float(c, [](double v) {
                   const double k = std::sqrt(2.0 / 3.14159265358979323846);
                   return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
                 });
               },
               {"approximate"}};
  t["HardSigmoid"] = {[](const Ctx& c) {
                        const double alpha = c.f("alpha", 0.2), beta = c.f("beta", 0.5);
                        return map_float(c, [=](double v) { return std::clamp(alpha * v + beta, 0.0, 1.0); });
                      },
                      {"alpha", "beta"}};
  t["Max"] = {[](const Ctx& c) { return extremum(c, true); }, {}};
  t["Min"] = {[](const Ctx& c) { return extremum(c, false); }, {}};
  t["Mod"] = {mod, {"fmod"}};
  t["Not"] = {not_op, {}};
  t["Identity"] = {[](const Ctx& c) { return Outs{c.in(0)}; }, {}};
  t["Clip"] = {clip, {}};
  t["Cast"] = {cast, {"to"}};
  t["Softmax"] = {[](const Ctx& c) { return softmax(c, false); }, {"axis"}};
  t["LogSoftmax"] = {[](const Ctx& c) { return softmax(c, true); }, {"axis"}};
  const auto bin = [&t](std::string name, Bin op) {
    t[std::move(name)] = {[op](const Ctx& c) { return binary(c, op); }, {}};
  };
  bin("Add", Bin::add);
  bin("Sub", Bin::sub);
  bin("Mul", Bin::mul);
  bin("Div", Bin::div);
  bin("Pow", Bin::pow);
  bin("Equal", Bin::equal);
  bin("Less", Bin::less);
  bin("Greater", Bin::greater);
  t["Where"] = {where, {}};
}

}  // namespace ge::ref::detail
