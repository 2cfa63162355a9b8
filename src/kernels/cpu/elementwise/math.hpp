#pragma once
/// \file
/// Math kernels beyond the element-wise basics: HardSigmoid, Not, Mod and variadic
/// Min/Max/Sum/Mean (numpy broadcasting), InstanceNormalization, Trilu and Range.
///
/// ```
/// ge::cpu::hard_sigmoid({.alpha = 0.2f, .beta = 0.5f}, x, y);
/// ge::cpu::mod(/*fmod=*/false, a, b, y);                 // integer mod, sign of b
/// const ge::TensorView in[] = {a, b, c};
/// ge::cpu::variadic(ge::cpu::Variadic::max, in, y);      // y = max(a, b, c), broadcast
/// ge::cpu::trilu({.upper = true, .k = 1}, x, y);
/// ge::cpu::range(start, delta, y);                       // y[i] = start + i * delta
/// ```

#include <cstdint>
#include <span>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Attributes of HardSigmoid.
struct HardSigmoidParams {
  float alpha = 0.2f;  ///< slope
  float beta = 0.5f;   ///< offset
};

/// `y = max(0, min(1, alpha * x + beta))` on f32, same dims; `y` may be `x`. Raises
/// `Errc::type_mismatch`, `Errc::bad_op_inputs` (dims differ).
void hard_sigmoid(const HardSigmoidParams& p, const TensorView& x, const TensorView& y);

/// `y = !x` on bool (one byte per element; any non-zero byte is true), same dims.
/// Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`.
void logical_not(const TensorView& x, const TensorView& y);

/// ONNX Mod with numpy broadcasting, `y.dims` the broadcast. `fmod` false: the integer
/// modulus with the divisor's sign (Python's `%`; i8..i64, u8..u64); true: C's `fmod`,
/// the dividend's sign (also f32, f64). Raises `Errc::type_mismatch`, `Errc::unsupported`
/// (a float with `fmod` false, or another type), `Errc::incompatible_shapes`,
/// `Errc::invalid_argument` (an integer divisor of 0).
void mod(bool fmod, const TensorView& a, const TensorView& b, const TensorView& y);

/// Which of the variadic element-wise ops.
enum class Variadic : std::uint8_t { min, max, sum, mean };

/// The element-wise min, max, sum or mean of 1..N inputs of one type (f32, f64, i8..i64,
/// u8..u64; integer sums wrap, an integer mean truncates) with numpy broadcasting into
/// `y` (the broadcast of all). Min and max: NaN wins (propagates). `y` may be input 0 or 1
/// but no later one. Raises `Errc::bad_op_inputs` (no input, dims), `Errc::type_mismatch`,
/// `Errc::unsupported`, `Errc::incompatible_shapes`.
void variadic(Variadic op, std::span<const TensorView> inputs, const TensorView& y);

/// Attributes of InstanceNormalization.
struct InstanceNormParams {
  float epsilon = 1e-5f;  ///< added to the variance
};

/// `y = scale[c] * (x - mean) / sqrt(var + epsilon) + bias[c]` on f32 `x` of dims
/// [N, C, D1, ..., Dn] (rank >= 3), mean and (biased) variance per (n, c) over the Ds;
/// `scale` and `bias` are [C]. Raises `Errc::type_mismatch`, `Errc::rank_mismatch`,
/// `Errc::bad_op_inputs`.
void instance_norm(const InstanceNormParams& p, const TensorView& x, const TensorView& scale, const TensorView& bias,
                   const TensorView& y);

/// Attributes of Trilu.
struct TriluParams {
  bool upper = true;   ///< keep the upper triangle (else the lower)
  std::int64_t k = 0;  ///< the diagonal: 0 main, > 0 above, < 0 below
};

/// Trilu over the last two dims (rank >= 2, any type of 1, 2, 4 or 8 bytes): upper keeps
/// `j - i >= k`, lower keeps `j - i <= k`, the rest is zero. Same dims and type; `y` may be
/// `x`. Raises `Errc::rank_mismatch`, `Errc::type_mismatch`, `Errc::bad_op_inputs`,
/// `Errc::unsupported`.
void trilu(const TriluParams& p, const TensorView& x, const TensorView& y);

/// Range: `y[i] = start + i * delta` for the length of the 1-D `y` (f32, f64, i16, i32,
/// i64; `start` and `delta` single elements of y's type). The caller sizes `y` as
/// ceil((limit - start) / delta). Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`,
/// `Errc::invalid_argument` (delta 0 with a non-empty `y`).
void range(const TensorView& start, const TensorView& delta, const TensorView& y);

}  // namespace ge::cpu
