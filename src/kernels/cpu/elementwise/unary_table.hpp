#pragma once
// Private to src/kernels/cpu/elementwise/elementwise.cpp: the unary maps without vector code of their
// own, as one table: each op is one functor over float or double, and the one map loop
// of elementwise.cpp runs whichever the table hands it.

#include <algorithm>
#include <cmath>

#include "kernels/cpu/elementwise/elementwise.hpp"

namespace ge::cpu::detail {

// log(1 + e^v) without overflow for large v.
template <class T>
T softplus(T v) noexcept {
  return v > T(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}

// Calls `run(f)` with the functor of `p.op` over T (float or double) and returns true;
// false when the op is not in the table.
template <class T, class Run>
bool with_unary_fn(const UnaryParams& p, Run&& run) {
  const T a = static_cast<T>(p.alpha), b = static_cast<T>(p.beta), g = static_cast<T>(p.gamma);
  switch (p.op) {
    case UnaryOp::reciprocal: run([](T v) { return T(1) / v; }); break;
    case UnaryOp::sin: run([](T v) { return std::sin(v); }); break;
    case UnaryOp::cos: run([](T v) { return std::cos(v); }); break;
    case UnaryOp::tan: run([](T v) { return std::tan(v); }); break;
    case UnaryOp::asin: run([](T v) { return std::asin(v); }); break;
    case UnaryOp::acos: run([](T v) { return std::acos(v); }); break;
    case UnaryOp::atan: run([](T v) { return std::atan(v); }); break;
    case UnaryOp::sinh: run([](T v) { return std::sinh(v); }); break;
    case UnaryOp::cosh: run([](T v) { return std::cosh(v); }); break;
    case UnaryOp::asinh: run([](T v) { return std::asinh(v); }); break;
    case UnaryOp::acosh: run([](T v) { return std::acosh(v); }); break;
    case UnaryOp::atanh: run([](T v) { return std::atanh(v); }); break;
    case UnaryOp::softplus: run([](T v) { return softplus(v); }); break;
    case UnaryOp::softsign: run([](T v) { return v / (T(1) + std::fabs(v)); }); break;
    case UnaryOp::mish: run([](T v) { return v * std::tanh(softplus(v)); }); break;
    case UnaryOp::round: run([](T v) { return std::nearbyint(v); }); break;  // halves to even
    case UnaryOp::floor: run([](T v) { return std::floor(v); }); break;
    case UnaryOp::ceil: run([](T v) { return std::ceil(v); }); break;
    case UnaryOp::sign: run([](T v) { return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v); }); break;
    case UnaryOp::elu: run([a](T v) { return v < T(0) ? a * std::expm1(v) : v; }); break;
    case UnaryOp::selu: run([a, g](T v) { return g * (v <= T(0) ? a * std::expm1(v) : v); }); break;
    case UnaryOp::celu:
      run([a](T v) { return std::max(T(0), v) + std::min(T(0), a * std::expm1(v / a)); });
      break;
    case UnaryOp::thresholded_relu: run([a](T v) { return v > a ? v : T(0); }); break;
    case UnaryOp::shrink: run([a, b](T v) { return v < -a ? v + b : (v > a ? v - b : T(0)); }); break;
    default: return false;
  }
  return true;
}

}  // namespace ge::cpu::detail
