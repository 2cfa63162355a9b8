// Hardmax, EyeLike and OneHot: each output element written once, O(output) work (and
// O(input) for Hardmax's search).
#include "kernels/cpu/movement/one_hot.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {
namespace {

// The elements of a numeric view as doubles.
std::vector<double> doubles_of(const TensorView& t) {
  std::vector<double> v(static_cast<std::size_t>(t.elements()));
  with_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* p = static_cast<const T*>(t.data);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(native(p[i]));
  });
  return v;
}

// The bytes of the value 1 as an element of `t`.
std::vector<std::byte> one_of(DataType t) {
  std::vector<std::byte> b(static_cast<std::size_t>(size_of(t)));
  with_type(t, [&](auto zero) {
    const auto one = convert<decltype(zero)>(1);
    std::memcpy(b.data(), &one, b.size());
  });
  return b;
}

template <class T>
void hardmax_typed(std::int64_t outer, std::int64_t len, std::int64_t inner, const T* x, T* y) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * len * inner + i;
      std::int64_t best = 0;
      for (std::int64_t a = 1; a < len; ++a)
        if (x[base + a * inner] > x[base + best * inner]) best = a;
      for (std::int64_t a = 0; a < len; ++a) y[base + a * inner] = a == best ? T{1} : T{0};
    }
}

}  // namespace

void hardmax(std::int64_t axis, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Hardmax";
  check_data(op, "input", x);
  same_type(op, "input", x, "output", y);
  check_dims(op, "output", y, x.dims);
  if (x.dtype != DataType::f32 && x.dtype != DataType::f64)
    fail(Errc::type_mismatch, op, "input is " + type_text(x.dtype) + "; expected 'f32' or 'f64'");
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.rank()))
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside input " + bracketed(x.dims));
  const auto a = static_cast<std::size_t>(axis);
  const std::int64_t outer = product(x.dims, 0, a), len = x.dims[a], inner = product(x.dims, a + 1, x.rank());
  if (x.elements() == 0) return;
  if (x.dtype == DataType::f64) hardmax_typed(outer, len, inner, x.as<const double>(), y.as<double>());
  else hardmax_typed(outer, len, inner, x.as<const float>(), y.as<float>());
}

void eye_like(std::int64_t k, const TensorView& y) {
  constexpr std::string_view op = "EyeLike";
  check_rank(op, "output", y, 2);
  check_data(op, "output", y);
  const auto es = static_cast<std::size_t>(size_of(y.dtype));
  const std::int64_t rows = y.dims[0], cols = y.dims[1];
  if (rows * cols == 0) return;
  std::memset(y.data, 0, static_cast<std::size_t>(rows * cols) * es);
  const std::vector<std::byte> one = one_of(y.dtype);
  auto* dst = static_cast<std::byte*>(y.data);
  for (std::int64_t r = std::max<std::int64_t>(0, -k); r < rows && r + k < cols; ++r)
    std::memcpy(dst + static_cast<std::size_t>(r * cols + r + k) * es, one.data(), es);
}

std::int64_t one_hot_depth(const TensorView& depth) {
  if (depth.elements() != 1)
    fail(Errc::bad_op_inputs, "OneHot", "depth " + bracketed(depth.dims) + " has " + std::to_string(depth.elements()) +
                                            " elements; expected one");
  check_data("OneHot", "depth", depth);
  const double d = doubles_of(depth)[0];
  if (!(d >= 1) || d > static_cast<double>(std::numeric_limits<std::int32_t>::max()))
    fail(Errc::bad_op_inputs, "OneHot", "depth is " + std::to_string(d) + "; expected at least 1");
  return static_cast<std::int64_t>(d);
}

void one_hot(std::int64_t axis, const TensorView& indices, const TensorView& depth, const TensorView& values,
             const TensorView& y) {
  constexpr std::string_view op = "OneHot";
  check_data(op, "indices", indices);
  check_data(op, "values", values);
  same_type(op, "values", values, "output", y);
  if (values.elements() != 2)
    fail(Errc::bad_op_inputs, op, "values " + bracketed(values.dims) + " has " + std::to_string(values.elements()) +
                                      " elements; expected two (off, on)");
  const std::int64_t n = one_hot_depth(depth);
  if (axis < 0 || axis > static_cast<std::int64_t>(indices.rank()))
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside [0, " +
                                      std::to_string(indices.rank()) + "] for indices " + bracketed(indices.dims));
  std::vector<std::int64_t> out(indices.dims.begin(), indices.dims.end());
  out.insert(out.begin() + axis, n);
  check_dims(op, "output", y, out);
  const auto a = static_cast<std::size_t>(axis);
  const std::int64_t outer = product(indices.dims, 0, a), inner = product(indices.dims, a, indices.rank());
  const std::vector<double> idx = doubles_of(indices);
  const auto es = static_cast<std::size_t>(size_of(y.dtype));
  const auto* off = static_cast<const std::byte*>(values.data);
  const std::byte* on = off + es;
  auto* dst = static_cast<std::byte*>(y.data);
  for (std::int64_t t = 0; t < y.elements(); ++t) std::memcpy(dst + static_cast<std::size_t>(t) * es, off, es);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const double v = std::trunc(idx[static_cast<std::size_t>(o * inner + i)]);
      if (!(v >= static_cast<double>(-n) && v < static_cast<double>(n))) continue;
      const auto k = static_cast<std::int64_t>(v < 0 ? v + static_cast<double>(n) : v);
      std::memcpy(dst + static_cast<std::size_t>((o * n + k) * inner + i) * es, on, es);
    }
}

}  // namespace ge::cpu
