#include "kernels/cpu/elementwise/math.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

namespace ge::cpu {
namespace {

// The numpy broadcast of `a` and `b` into `y` as rows: `row(offsets, n, sa, sb)` per
// collapsed row, offsets[0..2] for y, a, b and sa, sb the inner strides of a and b
// (0 or 1). Rows run in parallel.
template <class Row>
void broadcast_rows(std::string_view op, const TensorView& a, const TensorView& b, const TensorView& y, Row&& row) {
  const Collapsed c = collapse(y.dims, {strides_of(y.dims), broadcast_strides(op, "A", a.dims, y.dims),
                                        broadcast_strides(op, "B", b.dims, y.dims)});
  const std::int64_t sa = c.strides[1].back(), sb = c.strides[2].back();
  parallel_for(row_count(c), grain_for(c.dims.back() + 8), [&](std::int64_t rb, std::int64_t re) {
    for_rows(c, rb, re, [&](const std::int64_t* off, std::int64_t n) { row(off, n, sa, sb); });
  });
}

// The dims numpy broadcasting gives `views`; incompatible_shapes when they do not.
SmallDims broadcast_dims(std::string_view op, std::span<const TensorView> views) {
  std::size_t rank = 0;
  for (const TensorView& t : views) rank = std::max(rank, t.rank());
  SmallDims dims(rank, 1);
  for (std::size_t k = 0; k < views.size(); ++k) {
    const TensorView& t = views[k];
    for (std::size_t i = 0; i < t.rank(); ++i) {
      std::int64_t& o = dims[rank - t.rank() + i];
      const std::int64_t d = t.dims[i];
      if (o == 1) o = d;
      else if (d != 1 && d != o)
        fail(Errc::incompatible_shapes, op, "input " + std::to_string(k) + " " + bracketed(t.dims) +
                                                " does not broadcast with the others (so far " + bracketed(dims) + ")");
    }
  }
  return dims;
}

void check_same_type(std::string_view op, const TensorView& a, const TensorView& b, const TensorView& y) {
  if (a.dtype != b.dtype || a.dtype != y.dtype)
    fail(Errc::type_mismatch, op, "A is " + std::string(to_string(a.dtype)) + ", B " + std::string(to_string(b.dtype)) +
                                      ", output " + std::string(to_string(y.dtype)) + "; expected one type");
}

// Mod over integers: truncating (`fmod`) or with the divisor's sign. MIN % -1 is 0,
// computed without the overflowing division.
template <class T>
T int_mod(T a, T b, bool fmod) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T{0};
    T r = static_cast<T>(a % b);
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    (void)fmod;  // both conventions agree without signs
    return static_cast<T>(a % b);
  }
}

template <class T>
void mod_float(const TensorView& a, const TensorView& b, const TensorView& y) {
  const T* pa = a.as<const T>();
  const T* pb = b.as<const T>();
  T* py = y.as<T>();
  broadcast_rows("Mod", a, b, y, [&](const std::int64_t* off, std::int64_t n, std::int64_t sa, std::int64_t sb) {
    for (std::int64_t i = 0; i < n; ++i) py[off[0] + i] = std::fmod(pa[off[1] + i * sa], pb[off[2] + i * sb]);
  });
}

template <class T>
void mod_int(bool fmod, const TensorView& a, const TensorView& b, const TensorView& y) {
  const T* pb = b.as<const T>();
  if (std::find(pb, pb + b.elements(), T{0}) != pb + b.elements())
    fail(Errc::invalid_argument, "Mod", "integer modulus by zero: B " + bracketed(b.dims) + " holds a 0");
  const T* pa = a.as<const T>();
  T* py = y.as<T>();
  broadcast_rows("Mod", a, b, y, [&](const std::int64_t* off, std::int64_t n, std::int64_t sa, std::int64_t sb) {
    for (std::int64_t i = 0; i < n; ++i) py[off[0] + i] = int_mod(pa[off[1] + i * sa], pb[off[2] + i * sb], fmod);
  });
}

std::string_view variadic_name(Variadic op) {
  constexpr std::string_view names[] = {"Min", "Max", "Sum", "Mean"};
  return names[static_cast<std::size_t>(op)];
}

// y = in0 op in1, then y = y op in_k; sum in an unsigned type for integers (wrapping).
template <class T>
T combine(Variadic op, T u, T v) {
  switch (op) {
    case Variadic::min:
    case Variadic::max:
      if constexpr (std::is_floating_point_v<T>) {
        if (u != u) return u;  // NaN wins; b's NaN wins through the compare below
      }
      return (op == Variadic::max ? u > v : u < v) ? u : v;
    default:
      if constexpr (std::is_integral_v<T>) {
        using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
        return static_cast<T>(static_cast<W>(u) + static_cast<W>(v));
      } else {
        return u + v;
      }
  }
}

template <class T>
void variadic_typed(Variadic op, std::span<const TensorView> in, const TensorView& y) {
  T* py = y.as<T>();
  if (in.size() == 1) {
    if (y.elements() > 0 && py != in[0].data) std::memcpy(py, in[0].data, static_cast<std::size_t>(y.bytes()));
    return;
  }
  // y is read at the index it writes, so y may be input 0 or 1 (in place) but no later input.
  for (std::size_t k = 1; k < in.size(); ++k) {
    const TensorView& a = k == 1 ? in[0] : y;
    const T* pa = a.as<const T>();
    const T* pb = in[k].as<const T>();
    broadcast_rows(variadic_name(op), a, in[k], y,
                   [&](const std::int64_t* off, std::int64_t n, std::int64_t sa, std::int64_t sb) {
                     for_lanes(n, [&](std::int64_t i) {
                       py[off[0] + i] = combine(op, pa[off[1] + i * sa], pb[off[2] + i * sb]);
                     });
                   });
  }
  if (op == Variadic::mean) {
    const auto n = static_cast<T>(in.size());
    for_lanes(y.elements(), [&](std::int64_t i) { py[i] = static_cast<T>(py[i] / n); });
  }
}

// Trilu on elements of `T` (a type of the element's size: only copied and zeroed).
template <class T>
void trilu_typed(const TriluParams& p, const TensorView& x, const TensorView& y) {
  const std::size_t r = x.rank();
  const std::int64_t rows = x.dims[r - 2], cols = x.dims[r - 1];
  const std::int64_t mats = product(x.dims, 0, r - 2);
  // |k| beyond rows + cols changes nothing; the clamp keeps i + k from overflowing.
  const std::int64_t k = std::clamp<std::int64_t>(p.k, -(rows + cols), rows + cols);
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  parallel_for(mats * rows, grain_for(cols + 8), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t row = b; row < e; ++row) {
      const std::int64_t i = row % rows;
      const T* src = px + row * cols;
      T* dst = py + row * cols;
      // Columns [lo, hi) are kept.
      const std::int64_t lo = p.upper ? std::clamp<std::int64_t>(i + k, 0, cols) : 0;
      const std::int64_t hi = p.upper ? cols : std::clamp<std::int64_t>(i + k + 1, 0, cols);
      for (std::int64_t j = 0; j < lo; ++j) dst[j] = T{};
      if (hi > lo && dst != src) std::memmove(dst + lo, src + lo, static_cast<std::size_t>(hi - lo) * sizeof(T));
      for (std::int64_t j = std::max(hi, lo); j < cols; ++j) dst[j] = T{};
    }
  });
}

// The single element of `t`, of type T.
template <class T>
T scalar_of(std::string_view name, const TensorView& t) {
  if (t.elements() != 1)
    fail(Errc::bad_op_inputs, "Range", std::string(name) + " " + bracketed(t.dims) + " is not one element");
  check_data("Range", name, t);
  return *t.as<const T>();
}

template <class T>
void range_typed(const TensorView& start, const TensorView& delta, const TensorView& y) {
  const T s = scalar_of<T>("start", start), d = scalar_of<T>("delta", delta);
  const std::int64_t n = y.elements();
  if (n > 0 && d == T{0}) fail(Errc::invalid_argument, "Range", "delta is 0; expected a non-zero step");
  T* py = y.as<T>();
  if constexpr (std::is_integral_v<T>) {
    // start + i * delta stays between start and limit for i < n; 64-bit unsigned
    // arithmetic (modular, converted back) keeps every step defined even so.
    using U = std::uint64_t;
    for (std::int64_t i = 0; i < n; ++i)
      py[i] = static_cast<T>(static_cast<U>(s) + static_cast<U>(i) * static_cast<U>(d));
  } else {
    for_lanes(n, [&](std::int64_t i) { py[i] = s + static_cast<T>(i) * d; });
  }
}

}  // namespace

void hard_sigmoid(const HardSigmoidParams& p, const TensorView& x, const TensorView& y) {
  check_dtype("HardSigmoid", "X", x, DataType::f32);
  check_dtype("HardSigmoid", "Y", y, DataType::f32);
  check_data("HardSigmoid", "X", x);
  check_dims("HardSigmoid", "Y", y, x.dims);
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  const float alpha = p.alpha, beta = p.beta;
  parallel_for(x.elements(), 1 << 14, [&](std::int64_t b, std::int64_t e) {
    for_lanes(e - b, [&](std::int64_t i) {
      const float v = alpha * px[b + i] + beta;
      py[b + i] = v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
    });
  });
}

void logical_not(const TensorView& x, const TensorView& y) {
  check_dtype("Not", "X", x, DataType::boolean);
  check_dtype("Not", "Y", y, DataType::boolean);
  check_data("Not", "X", x);
  check_dims("Not", "Y", y, x.dims);
  const auto* px = x.as<const std::uint8_t>();
  auto* py = y.as<std::uint8_t>();
  for_lanes(x.elements(), [&](std::int64_t i) { py[i] = static_cast<std::uint8_t>(px[i] == 0); });
}

void mod(bool fmod, const TensorView& a, const TensorView& b, const TensorView& y) {
  check_same_type("Mod", a, b, y);
  check_data("Mod", "A", a);
  check_data("Mod", "B", b);
  const TensorView ab[] = {a, b};
  check_dims("Mod", "C", y, broadcast_dims("Mod", ab));
  visit(a.dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!fmod)
        fail(Errc::unsupported, "Mod",
             std::string(to_string(a.dtype)) + " needs fmod=1 (the integer modulus is for integer types)");
      mod_float<T>(a, b, y);
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      mod_int<T>(fmod, a, b, y);
    } else {
      fail(Errc::unsupported, "Mod", "type '" + std::string(to_string(a.dtype)) +
                                         "' is not supported; expected f32, f64 or an integer type");
    }
  });
}

void variadic(Variadic op, std::span<const TensorView> inputs, const TensorView& y) {
  const std::string_view name = variadic_name(op);
  if (inputs.empty()) fail(Errc::bad_op_inputs, name, "no inputs; expected at least one");
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string which = "input " + std::to_string(k);
    check_dtype(name, which, inputs[k], y.dtype);
    check_data(name, which, inputs[k]);
  }
  check_dims(name, "output", y, broadcast_dims(name, inputs));
  visit(y.dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
      variadic_typed<T>(op, inputs, y);
    else
      fail(Errc::unsupported, name, "type '" + std::string(to_string(y.dtype)) +
                                        "' is not supported; expected f32, f64 or an integer type");
  });
}

void instance_norm(const InstanceNormParams& p, const TensorView& x, const TensorView& scale, const TensorView& bias,
                   const TensorView& y) {
  constexpr std::string_view op = "InstanceNormalization";
  using Named = std::pair<const char*, const TensorView*>;
  for (const auto& [name, t] : {Named{"input", &x}, Named{"scale", &scale}, Named{"B", &bias}, Named{"output", &y}}) {
    check_dtype(op, name, *t, DataType::f32);
    check_data(op, name, *t);
  }
  if (x.rank() < 3)
    fail(Errc::rank_mismatch, op, "input " + bracketed(x.dims) + " has rank " + std::to_string(x.rank()) +
                                      "; expected rank >= 3 (N, C, D1, ...)");
  const std::int64_t channels = x.dims[1];
  const std::int64_t c_dims[] = {channels};
  check_dims(op, "scale", scale, c_dims);
  check_dims(op, "B", bias, c_dims);
  check_dims(op, "output", y, x.dims);
  const std::int64_t planes = x.dims[0] * channels, size = product(x.dims, 2, x.rank());
  const float* px = x.as<const float>();
  const float* ps = scale.as<const float>();
  const float* pb = bias.as<const float>();
  float* py = y.as<float>();
  const double eps = p.epsilon;
  parallel_for(planes, grain_for(size * 3), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t plane = b; plane < e; ++plane) {
      const float* src = px + plane * size;
      float* dst = py + plane * size;
      // Two passes in double: the mean, then the variance about it.
      double sum = 0;
      for (std::int64_t i = 0; i < size; ++i) sum += src[i];
      const double mean = size > 0 ? sum / static_cast<double>(size) : 0.0;
      double sq = 0;
      for (std::int64_t i = 0; i < size; ++i) sq += (src[i] - mean) * (src[i] - mean);
      const double var = size > 0 ? sq / static_cast<double>(size) : 0.0;
      const std::int64_t ch = plane % channels;
      const auto mul = static_cast<float>(ps[ch] / std::sqrt(var + eps));
      const auto add = static_cast<float>(pb[ch] - mean * mul);
      for_lanes(size, [&](std::int64_t i) { dst[i] = src[i] * mul + add; });
    }
  });
}

void trilu(const TriluParams& p, const TensorView& x, const TensorView& y) {
  if (x.rank() < 2)
    fail(Errc::rank_mismatch, "Trilu", "input " + bracketed(x.dims) + " has rank " + std::to_string(x.rank()) +
                                           "; expected rank >= 2");
  check_dtype("Trilu", "output", y, x.dtype);
  check_data("Trilu", "input", x);
  check_dims("Trilu", "output", y, x.dims);
  switch (size_of(x.dtype)) {
    case 1: return trilu_typed<std::uint8_t>(p, x, y);
    case 2: return trilu_typed<std::uint16_t>(p, x, y);
    case 4: return trilu_typed<std::uint32_t>(p, x, y);
    case 8: return trilu_typed<std::uint64_t>(p, x, y);
    default:
      fail(Errc::unsupported, "Trilu", "type '" + std::string(to_string(x.dtype)) + "' is not supported");
  }
}

void range(const TensorView& start, const TensorView& delta, const TensorView& y) {
  if (y.rank() != 1) fail(Errc::bad_op_inputs, "Range", "output " + bracketed(y.dims) + " is not 1-D");
  check_dtype("Range", "start", start, y.dtype);
  check_dtype("Range", "delta", delta, y.dtype);
  switch (y.dtype) {
    case DataType::f32: return range_typed<float>(start, delta, y);
    case DataType::f64: return range_typed<double>(start, delta, y);
    case DataType::i16: return range_typed<std::int16_t>(start, delta, y);
    case DataType::i32: return range_typed<std::int32_t>(start, delta, y);
    case DataType::i64: return range_typed<std::int64_t>(start, delta, y);
    default:
      fail(Errc::unsupported, "Range", "type '" + std::string(to_string(y.dtype)) +
                                           "' is not supported; expected f32, f64, i16, i32 or i64");
  }
}

}  // namespace ge::cpu
