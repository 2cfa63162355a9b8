#pragma once
// Internal to the data movement kernels (data_movement.cpp, pad_resize.cpp): the type
// checks their messages share, and every element type as a C++ type with the conversions
// between them (Cast's, and Pad's constant).

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/movement/indexing.hpp"

namespace ge::cpu {

// A type as the messages name it: 'f32'.
std::string type_text(DataType t);

// y[i...] = x[maps[0][i0], maps[1][i1], ...], or `value` where a map holds -1 (any type;
// pad_resize.cpp).
void mapped_copy(const TensorView& x, const TensorView& y, const std::vector<std::vector<std::int64_t>>& maps,
                 double value);

// Raises Errc::type_mismatch unless `x` (named `a`) and `y` (named `b`) have one type.
void same_type(std::string_view op, const char* a, const TensorView& x, const char* b, const TensorView& y);

// f16, bf16 and bool elements as their bits; the native types stand for the others.
struct Half {
  std::uint16_t bits;
};
struct BHalf {
  std::uint16_t bits;
};
struct Bool {
  std::uint8_t v;
};

// IEEE half and bfloat16 to and from float (round to nearest even; NaN stays NaN).
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return sign != 0 ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (a >= 0x38800000u) {                                                     // normal half
    const std::uint32_t r = a - 0x38000000u;
    return static_cast<std::uint16_t>(sign | ((r + 0x0fffu + ((r >> 13) & 1u)) >> 13));
  }
  // Subnormal half: scale by 2^24 (exact) and round to nearest even.
  const float v = std::nearbyint(std::bit_cast<float>(a) * 16777216.0f);
  return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(v));
}

inline float bhalf_to_float(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

inline std::uint16_t float_to_bhalf(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// A value of any cast type as the widest native type that holds it.
template <class From>
auto native(From v) {
  if constexpr (std::is_same_v<From, Half>) return half_to_float(v.bits);
  else if constexpr (std::is_same_v<From, BHalf>) return bhalf_to_float(v.bits);
  else if constexpr (std::is_same_v<From, Bool>) return static_cast<std::uint8_t>(v.v != 0 ? 1 : 0);
  else return v;
}

// `v` (a native value) as a `To`: float to integer truncates and saturates, NaN gives 0.
template <class To, class N>
To convert(N v) {
  if constexpr (std::is_same_v<To, Half>) return Half{float_to_half(static_cast<float>(v))};
  else if constexpr (std::is_same_v<To, BHalf>) return BHalf{float_to_bhalf(static_cast<float>(v))};
  else if constexpr (std::is_same_v<To, Bool>) return Bool{static_cast<std::uint8_t>(v != N{} ? 1 : 0)};
  else if constexpr (std::is_floating_point_v<N> && std::is_integral_v<To>) {
    // Truncate toward zero, saturate, NaN to 0: never undefined behaviour.
    if (v != v) return To{0};
    const double d = static_cast<double>(v);
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else {
    return static_cast<To>(v);
  }
}

// Calls `f` with a value of the C++ type of `t`; raises Errc::unsupported for undefined.
template <class F>
void with_type(DataType t, F&& f) {
  if (t == DataType::f16) return f(Half{});
  if (t == DataType::bf16) return f(BHalf{});
  visit(t, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_void_v<T>)
      fail(Errc::unsupported, "Cast", "type " + type_text(t) + " is not supported");
    else if constexpr (std::is_same_v<T, bool>)
      f(Bool{});
    else
      f(T{});
  });
}

// `a` combined with `b` by a scatter's reduction (ScatterElements, ScatterND); integers
// wrap as unsigned do.
template <class T>
T scatter_combine(ScatterReduction r, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (r == ScatterReduction::add) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if (r == ScatterReduction::mul) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    if (r == ScatterReduction::add) return a + b;
    if (r == ScatterReduction::mul) return a * b;
  }
  if (r == ScatterReduction::max) return a > b ? a : b;
  return a < b ? a : b;
}

}  // namespace ge::cpu
