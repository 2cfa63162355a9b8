// CumSum: running sums along one axis, forward or reversed, inclusive or exclusive; each
// (outer, inner) line is walked once, so the cost is linear in the element count.
#include <type_traits>

#include "kernels/cpu/reduce/reduce.hpp"

namespace ge::cpu {
namespace {

template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <class T>
void cum_sum_typed(const CumSumParams& p, const TensorView& x, const TensorView& y) {
  const auto axis = static_cast<std::size_t>(p.axis);
  const std::int64_t outer = product(x.dims, 0, axis);
  const std::int64_t len = x.dims[axis];
  const std::int64_t inner = product(x.dims, axis + 1, x.rank());
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  parallel_for(outer * inner, grain_for(len), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t base = (t / inner) * len * inner + t % inner;
      T acc{0};
      for (std::int64_t k = 0; k < len; ++k) {
        const std::int64_t at = base + (p.reverse ? len - 1 - k : k) * inner;
        const T v = px[at];
        if (!p.exclusive) acc = add(acc, v);
        py[at] = acc;
        if (p.exclusive) acc = add(acc, v);
      }
    }
  });
}

}  // namespace

void cum_sum(const CumSumParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "CumSum";
  check_dtype(op, "y", y, x.dtype);
  check_data(op, "x", x);
  if (p.axis < 0 || p.axis >= static_cast<std::int64_t>(x.rank())) {
    fail(Errc::bad_attribute, op, "axis " + std::to_string(p.axis) + " is outside x " + bracketed(x.dims));
  }
  check_dims(op, "y", y, x.dims);
  if (y.elements() == 0) return;
  switch (x.dtype) {
    case DataType::f32: return cum_sum_typed<float>(p, x, y);
    case DataType::f64: return cum_sum_typed<double>(p, x, y);
    case DataType::i32: return cum_sum_typed<std::int32_t>(p, x, y);
    case DataType::i64: return cum_sum_typed<std::int64_t>(p, x, y);
    default:
      fail(Errc::unsupported, op,
           "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32, f64, i32 or i64");
  }
}

}  // namespace ge::cpu
