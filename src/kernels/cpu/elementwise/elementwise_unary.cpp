// The unary elementwise kernels (`unary`: float maps, the vector math of vmath.hpp for
// e^x, sigmoid, SiLU and the rest, integer ops) and `clip_int`; the binary ones are in
// elementwise.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/elementwise/elementwise.hpp"
#include "kernels/cpu/elementwise/unary_table.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

namespace ge::cpu {

namespace {

std::string_view unary_name(UnaryOp op) {
  constexpr std::string_view names[] = {
      "Sqrt",     "Exp",   "Log",   "Neg",      "Abs",      "Erf",      "Tanh",  "Sigmoid", "Relu",
      "Clip",     "LeakyRelu", "Gelu", "Gelu", "HardSwish", "Reciprocal", "Sin", "Cos", "Tan",
      "Asin",     "Acos",  "Atan",  "Sinh",     "Cosh",     "Asinh",    "Acosh", "Atanh",   "Softplus",
      "Softsign", "Mish",  "Round", "Floor",    "Ceil",     "Sign",     "Elu",   "Selu",    "Celu",
      "ThresholdedRelu", "Shrink"};
  static_assert(std::size(names) == static_cast<std::size_t>(UnaryOp::shrink) + 1);
  return names[static_cast<std::size_t>(op)];
}

template <class T, class F>
void map(const TensorView& x, const TensorView& y, F f) {
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  const std::int64_t n = x.elements();
  parallel_for(n, 1 << 14, [&](std::int64_t b, std::int64_t e) {
    // x and y may be the same buffer (in place); element i reads only x[i] before writing y[i].
    const T* xx = px + b;
    T* yy = py + b;
    if (xx == yy) {
      T* __restrict yr = yy;
      for_lanes(e - b, [&](std::int64_t i) { yr[i] = f(yr[i]); });
    } else {
      const T* __restrict xr = xx;
      T* __restrict yr = yy;
      for_lanes(e - b, [&](std::int64_t i) { yr[i] = f(xr[i]); });
    }
  });
}

// A float map through the vector code of vmath.hpp, chunked over the session's threads.
void map_vm(vm::Map f, const TensorView& x, const TensorView& y) {
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  parallel_for(x.elements(), 1 << 13, [&](std::int64_t b, std::int64_t e) { vm::map(f, px + b, py + b, e - b); });
}

template <class T>
void unary_int(const UnaryParams& p, const TensorView& x, const TensorView& y) {
  using U = std::make_unsigned_t<T>;
  switch (p.op) {
    case UnaryOp::neg: return map<T>(x, y, [](T v) { return static_cast<T>(U{0} - static_cast<U>(v)); });
    case UnaryOp::abs:
      return map<T>(x, y, [](T v) { return v < 0 ? static_cast<T>(U{0} - static_cast<U>(v)) : v; });
    case UnaryOp::relu: return map<T>(x, y, [](T v) { return v > 0 ? v : T{0}; });
    case UnaryOp::sign: return map<T>(x, y, [](T v) { return static_cast<T>((v > 0) - (v < 0)); });
    default:
      fail(Errc::unsupported, unary_name(p.op),
           "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32");
  }
}

}  // namespace

void unary(const UnaryParams& p, const TensorView& x, const TensorView& y) {
  const std::string_view name = unary_name(p.op);
  check_dtype(name, "Y", y, x.dtype);
  check_data(name, "X", x);
  check_dims(name, "Y", y, x.dims);
  if (x.elements() == 0) return;
  if (p.op == UnaryOp::celu && p.alpha == 0.0f)
    fail(Errc::invalid_argument, name, "alpha is 0; expected a non-zero alpha (Celu divides by it)");
  if (x.dtype == DataType::i32) return unary_int<std::int32_t>(p, x, y);
  if (x.dtype == DataType::i64) return unary_int<std::int64_t>(p, x, y);
  if (x.dtype == DataType::f32 && detail::with_unary_fn<float>(p, [&](auto f) { map<float>(x, y, f); })) return;
  if (x.dtype == DataType::f64 && detail::with_unary_fn<double>(p, [&](auto f) { map<double>(x, y, f); })) return;
  if (x.dtype != DataType::f32) {
    fail(Errc::unsupported, name, "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32");
  }
  switch (p.op) {
    case UnaryOp::sqrt: return map<float>(x, y, [](float v) { return std::sqrt(v); });
    case UnaryOp::exp: return map_vm(vm::Map::exp, x, y);
    case UnaryOp::log: return map<float>(x, y, [](float v) { return std::log(v); });
    case UnaryOp::neg: return map<float>(x, y, [](float v) { return -v; });
    case UnaryOp::abs: return map<float>(x, y, [](float v) { return std::fabs(v); });
    case UnaryOp::erf: return map<float>(x, y, [](float v) { return std::erf(v); });
    case UnaryOp::tanh: return map_vm(vm::Map::tanh, x, y);
    case UnaryOp::sigmoid: return map_vm(vm::Map::sigmoid, x, y);
    case UnaryOp::relu: return map<float>(x, y, [](float v) { return v > 0.0f ? v : 0.0f; });
    case UnaryOp::clip: {
      const float lo = p.lo, hi = p.hi;
      return map<float>(x, y, [lo, hi](float v) {
        const float t = v < lo ? lo : v;  // min(max(v, lo), hi): hi wins when lo > hi
        return t > hi ? hi : t;
      });
    }
    case UnaryOp::leaky_relu: {
      const float alpha = p.alpha;
      return map<float>(x, y, [alpha](float v) { return v >= 0.0f ? v : alpha * v; });
    }
    case UnaryOp::gelu:
      // 0.5 v (1 + erf(v / sqrt 2)) = v (1 - erfc(v / sqrt 2) / 2).
      return map_vm(vm::Map::gelu, x, y);
    case UnaryOp::gelu_tanh:
      return map_vm(vm::Map::gelu_tanh, x, y);
    case UnaryOp::hard_swish:
      return map<float>(x, y, [](float v) {
        const float t = v * (1.0f / 6.0f) + 0.5f;
        return v * (t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t));
      });
    default: break;  // the table's ops, handled above
  }
}

namespace {

template <class T>
void clip_typed(std::int64_t lo, std::int64_t hi, const TensorView& x, const TensorView& y) {
  // The bounds in T: clamped to T's range (u64 bounds come in as int64, so at most 2^63 - 1).
  const auto in_t = [](std::int64_t v) {
    if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(std::clamp<std::int64_t>(v, std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()));
    } else {
      if (v <= 0) return T{0};
      if constexpr (sizeof(T) < sizeof(std::int64_t))
        return static_cast<T>(std::min<std::int64_t>(v, std::numeric_limits<T>::max()));
      return static_cast<T>(v);
    }
  };
  const T l = in_t(lo), h = in_t(hi);
  // An upper bound above T's range leaves x as it is.
  const bool no_hi = std::is_unsigned_v<T> && sizeof(T) == sizeof(std::int64_t) &&
                     hi == std::numeric_limits<std::int64_t>::max();
  map<T>(x, y, [l, h, no_hi](T v) {
    const T t = v < l ? l : v;
    return !no_hi && t > h ? h : t;
  });
}

}  // namespace

void clip_int(std::int64_t lo, std::int64_t hi, const TensorView& x, const TensorView& y) {
  check_dtype("Clip", "output", y, x.dtype);
  check_data("Clip", "input", x);
  check_dims("Clip", "output", y, x.dims);
  if (x.elements() == 0) return;
  visit(x.dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      clip_typed<T>(lo, hi, x, y);
    else
      fail(Errc::unsupported, "Clip", "type '" + std::string(to_string(x.dtype)) + "' is not an integer type");
  });
}

}  // namespace ge::cpu
