#pragma once
/// \file
/// Element-wise kernels: binary arithmetic, comparisons, logic, bit shifts and PRelu with
/// numpy broadcasting, Where, unary math and activations, IsNaN and IsInf.
///
/// Broadcast loops collapse the dims that all operands read contiguously, so a
/// same-shape Add is one flat loop and a bias add is rows of a flat loop; the inner loops
/// are fixed-width blocks the compiler vectorises, and long runs are split across threads.
///
/// ```
/// ge::cpu::binary(ge::cpu::BinaryOp::add, a, b, y);         // y = a + b, broadcast
/// ge::cpu::unary({.op = ge::cpu::UnaryOp::gelu}, x, y);      // exact erf GELU
/// ge::cpu::where(cond, x, y, out);
/// ```

#include <bit>
#include <cstdint>
#include <limits>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// A binary element-wise op.
enum class BinaryOp : std::uint8_t {
  add,            ///< a + b (f32, i32, i64)
  sub,            ///< a - b (f32, i32, i64)
  mul,            ///< a * b (f32, i32, i64)
  div,            ///< a / b (f32; i32, i64 truncating, a zero divisor raises)
  pow,            ///< a ^ b (f32, f64; other and mixed types: `pow_mixed`)
  equal,          ///< a == b -> bool (f32, i32, i64, bool)
  less,           ///< a < b -> bool (f32, i32, i64)
  greater,        ///< a > b -> bool (f32, i32, i64)
  less_equal,     ///< a <= b -> bool (f32, i32, i64)
  greater_equal,  ///< a >= b -> bool (f32, i32, i64)
  logical_and,    ///< a && b (bool)
  logical_or,     ///< a || b (bool)
  logical_xor,    ///< a != b (bool)
  shift_left,     ///< a << b (u8, u16, u32, u64; a shift of the bit width or more gives 0)
  shift_right,    ///< a >> b (u8, u16, u32, u64; likewise)
  prelu,          ///< a < 0 ? b * a : a, the slope b broadcast to a (f32, f64; y has a's dims)
};

/// `y = a op b` with numpy broadcasting; `y.dims` must be the broadcast of `a.dims` and
/// `b.dims`. Arithmetic writes `a`'s type, comparisons write bool. Raises
/// `Errc::type_mismatch` (a, b, y types), `Errc::unsupported` (a type the op lacks),
/// `Errc::incompatible_shapes` (dims do not broadcast to `y`), `Errc::invalid_argument`
/// (integer division by zero).
void binary(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y);

/// ONNX Pow with X and Y of different types, or integers: `z = x ^ y` with numpy
/// broadcasting, `z` of X's type (f32, f64, i32, i64); Y f32, f64, i32, i64, u32 or u64.
/// Integer powers are exact (wrapping; a negative exponent gives 0 unless x is 1 or -1);
/// a power computed in double is truncated toward zero for an integer X, and 0 where it
/// is NaN or outside the type. Raises `Errc::type_mismatch`, `Errc::unsupported`,
/// `Errc::incompatible_shapes`.
void pow_mixed(const TensorView& x, const TensorView& y, const TensorView& z);

/// ONNX Where: `out = cond ? x : y` with three-way broadcasting; `cond` is bool, `x`, `y`
/// and `out` share any type. Raises like `binary`.
void where(const TensorView& cond, const TensorView& x, const TensorView& y, const TensorView& out);

/// A unary element-wise op.
enum class UnaryOp : std::uint8_t {
  sqrt,        ///< square root
  exp,         ///< e^x
  log,         ///< natural log
  neg,         ///< -x (also i32, i64)
  abs,         ///< |x| (also i32, i64)
  erf,         ///< the error function
  tanh,        ///< hyperbolic tangent
  sigmoid,     ///< 1 / (1 + e^-x)
  relu,        ///< max(x, 0) (also i32, i64)
  clip,        ///< min(max(x, lo), hi)
  leaky_relu,  ///< x >= 0 ? x : alpha * x
  gelu,        ///< x * (1 + erf(x / sqrt 2)) / 2
  gelu_tanh,   ///< x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2
  hard_swish,  ///< x * max(0, min(1, x / 6 + 1 / 2))
  // The table of src/kernels/cpu/elementwise/unary_table.hpp (f32 and f64; sign also i32, i64):
  reciprocal,        ///< 1 / x
  sin,               ///< sin x
  cos,               ///< cos x
  tan,               ///< tan x
  asin,              ///< asin x
  acos,              ///< acos x
  atan,              ///< atan x
  sinh,              ///< sinh x
  cosh,              ///< cosh x
  asinh,             ///< asinh x
  acosh,             ///< acosh x
  atanh,             ///< atanh x
  softplus,          ///< log(1 + e^x)
  softsign,          ///< x / (1 + |x|)
  mish,              ///< x * tanh(softplus(x))
  round,             ///< x to the nearest integer, halves to even
  floor,             ///< floor x
  ceil,              ///< ceil x
  sign,              ///< -1, 0 or 1 by the sign of x (NaN stays NaN)
  elu,               ///< x < 0 ? alpha * (e^x - 1) : x
  selu,              ///< gamma * (x <= 0 ? alpha * (e^x - 1) : x)
  celu,              ///< max(0, x) + min(0, alpha * (e^(x / alpha) - 1)); alpha != 0
  thresholded_relu,  ///< x > alpha ? x : 0
  shrink,            ///< x < -alpha ? x + beta : x > alpha ? x - beta : 0 (alpha: lambd, beta: bias)
};

/// A unary op with its attributes.
struct UnaryParams {
  UnaryOp op = UnaryOp::relu;                              ///< which op
  /// LeakyRelu's slope; the alpha of Elu, Selu and Celu; ThresholdedRelu's threshold;
  /// Shrink's lambd.
  float alpha = 0.01f;
  float beta = 0.0f;                                       ///< Shrink's bias
  float gamma = 1.0f;                                      ///< Selu's gamma
  float lo = -std::numeric_limits<float>::infinity();      ///< Clip's min
  float hi = std::numeric_limits<float>::infinity();       ///< Clip's max
};

/// `y = op(x)`, same dims and type (f32; the table ops also f64; neg, abs, relu, sign
/// also i32 and i64). `y` may be `x` (in place). Raises `Errc::type_mismatch`,
/// `Errc::bad_op_inputs` (dims differ), `Errc::unsupported` (type the op lacks),
/// `Errc::invalid_argument` (Celu with alpha 0).
void unary(const UnaryParams& p, const TensorView& x, const TensorView& y);

/// Clip on integers: `y = min(max(x, lo), hi)` (hi wins when lo > hi), `x` i8, i16, i32,
/// i64, u8, u16, u32 or u64 and the bounds clamped to its range; same dims, `y` may be
/// `x`. Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`, `Errc::unsupported`.
void clip_int(std::int64_t lo, std::int64_t hi, const TensorView& x, const TensorView& y);

/// Which of IsNaN and IsInf.
enum class FloatTest : std::uint8_t { nan, inf };

/// `y = isnan(x)` or `y = isinf(x)` (counting -inf when `negative`, +inf when
/// `positive`) as bool, `x` f32 or f64, same dims. Raises `Errc::type_mismatch`,
/// `Errc::bad_op_inputs`, `Errc::unsupported`.
void float_test(FloatTest test, bool negative, bool positive, const TensorView& x, const TensorView& y);

/// e^r for |r| <= ln 2 / 2: 1 + r q(r), q of degree 4 fitted for the least largest relative
/// error on that interval (9e-8; within 1.7e-7 of e^x after float rounding, over the
/// whole range): two FMAs fewer than the Taylor series to r^7 it replaced, for a float or
/// a vector of floats: the one polynomial of `exp_approx` and of vmath's vector e^x.
template <class T>
inline __attribute__((always_inline)) T exp_poly5(T r) noexcept {
  T p = T{} + 0.008290315046906471f;
  p = p * r + 0.04189793020486832f;
  p = p * r + 0.1666763573884964f;
  p = p * r + 0.4999915063381195f;
  p = p * r + 0.9999997019767761f;
  return p * r + 1.0f;
}

/// e^x for one float, within 1.7e-7 relative, in branch-free code that vectorises; used by
/// the softmax and activation kernels. NaN stays NaN, x > 88.72 gives inf, x < -86.6 gives
/// 0 (flushing results below 2^-125).
inline float exp_approx(float x) noexcept {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;         // ln 2 split so that k * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440054690583e-4f;
  constexpr float kMagic = 12582912.0f;          // 1.5 * 2^23: adding it rounds to an integer
  const float xc = x < -86.6f ? -86.6f : (x > 88.72f ? 88.72f : x);
  const float kf = xc * kLog2e + kMagic;
  // k in [-125, 128] as the low bits of kf; unsigned arithmetic keeps NaN inputs defined.
  const std::uint32_t k = std::bit_cast<std::uint32_t>(kf) - std::bit_cast<std::uint32_t>(kMagic);
  const float kr = kf - kMagic;
  const float r = (xc - kr * kLn2Hi) - kr * kLn2Lo;  // |r| <= ln2 / 2
  const float p = exp_poly5(r);
  // 2^k as 2^(k-1) * 2 so that k = 128 stays finite.
  const float scale = std::bit_cast<float>((k + 126u) << 23);
  float e = p * scale * 2.0f;
  e = x < -86.6f ? 0.0f : e;
  e = x > 88.7228394f ? std::numeric_limits<float>::infinity() : e;
  return x != x ? x : e;
}

}  // namespace ge::cpu
