// ReduceMin, ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum and
// ReduceLogSumExp: one ordered walk over x accumulating into each element's output slot
// (in double for f32 and f64, in the type's width with wrapping for integers).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/reduce/reduce_internal.hpp"

namespace ge::cpu::detail {
namespace {

// Calls f(i, o) for each element i of x in order, o being the output element it reduces
// into: an odometer over x's dims, so the walk costs O(1) per element.
template <class F>
void walk(const TensorView& x, const ReducedAxes& reduced, F&& f) {
  const std::size_t r = x.rank();
  SmallDims out_stride(r, 0), idx(r, 0);
  std::int64_t s = 1;
  for (std::size_t d = r; d-- > 0;) {
    if (reduced[d]) continue;
    out_stride[d] = s;
    s *= x.dims[d];
  }
  const std::int64_t n = x.elements();
  std::int64_t o = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    f(i, o);
    for (std::size_t d = r; d-- > 0;) {
      o += out_stride[d];
      if (++idx[d] < x.dims[d]) break;
      o -= out_stride[d] * x.dims[d];
      idx[d] = 0;
    }
  }
}

// Integer arithmetic that wraps in the type's width instead of overflowing.
template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

template <class T>
void reduce_int(ReduceOp op, const TensorView& x, const ReducedAxes& reduced, const TensorView& y) {
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  const T init = op == ReduceOp::min ? std::numeric_limits<T>::max() : op == ReduceOp::prod ? T{1} : T{0};
  std::fill(py, py + y.elements(), init);
  walk(x, reduced, [&](std::int64_t i, std::int64_t o) {
    const T v = px[i];
    T& a = py[o];
    switch (op) {
      case ReduceOp::min: a = v < a ? v : a; break;
      case ReduceOp::prod: a = wrap_mul(a, v); break;
      case ReduceOp::sum_square: a = wrap_add(a, wrap_mul(v, v)); break;
      default: a = wrap_add(a, v < 0 ? wrap_mul(v, T{-1}) : v); break;  // l1
    }
  });
}

double float_init(ReduceOp op) {
  switch (op) {
    case ReduceOp::min: return std::numeric_limits<double>::infinity();
    case ReduceOp::prod: return 1.0;
    case ReduceOp::log_sum_exp: return -std::numeric_limits<double>::infinity();
    default: return 0.0;
  }
}

// The float reductions, in double. LogSumExp subtracts each output's maximum first.
template <class T>
void reduce_float(ReduceOp op, const TensorView& x, const ReducedAxes& reduced, const TensorView& y) {
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  const auto n_out = static_cast<std::size_t>(y.elements());
  std::vector<double> acc(n_out, float_init(op));
  std::vector<double> top;
  if (op == ReduceOp::log_sum_exp) {
    top.assign(n_out, -std::numeric_limits<double>::infinity());
    walk(x, reduced, [&](std::int64_t i, std::int64_t o) {
      double& m = top[static_cast<std::size_t>(o)];
      const double v = px[i];
      m = (v > m || v != v) && m == m ? v : m;
    });
    std::fill(acc.begin(), acc.end(), 0.0);
  }
  walk(x, reduced, [&](std::int64_t i, std::int64_t o) {
    const double v = px[i];
    double& a = acc[static_cast<std::size_t>(o)];
    switch (op) {
      case ReduceOp::min: a = (v < a || v != v) && a == a ? v : a; break;
      case ReduceOp::prod: a *= v; break;
      case ReduceOp::sum_square:
      case ReduceOp::l2: a += v * v; break;
      case ReduceOp::l1: a += std::fabs(v); break;
      case ReduceOp::log_sum: a += v; break;
      default: {  // log_sum_exp
        const double m = top[static_cast<std::size_t>(o)];
        if (std::isfinite(m)) a += std::exp(v - m);
      }
    }
  });
  for (std::size_t o = 0; o < n_out; ++o) {
    double v = acc[o];
    if (op == ReduceOp::l2) v = std::sqrt(v);
    if (op == ReduceOp::log_sum) v = std::log(v);
    if (op == ReduceOp::log_sum_exp) v = std::isfinite(top[o]) ? top[o] + std::log(v) : top[o];
    py[o] = static_cast<T>(v);
  }
}

}  // namespace

void reduce_math(std::string_view name, ReduceOp op, const TensorView& x, const ReducedAxes& reduced, const TensorView& y) {
  const bool float_only = op == ReduceOp::l2 || op == ReduceOp::log_sum || op == ReduceOp::log_sum_exp;
  switch (x.dtype) {
    case DataType::f32: return reduce_float<float>(op, x, reduced, y);
    case DataType::f64: return reduce_float<double>(op, x, reduced, y);
    case DataType::i32:
      if (!float_only) return reduce_int<std::int32_t>(op, x, reduced, y);
      break;
    case DataType::i64:
      if (!float_only) return reduce_int<std::int64_t>(op, x, reduced, y);
      break;
    default: break;
  }
  fail(Errc::unsupported, name,
       "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected " +
           (float_only ? "f32 or f64" : "f32, f64, i32 or i64"));
}

}  // namespace ge::cpu::detail
