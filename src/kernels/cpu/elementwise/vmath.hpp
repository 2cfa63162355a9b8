#pragma once
// Private to the CPU kernels: the float maps and row operations whose scalar code the
// compiler will not vectorise (exp, erfc, tanh with their selects), written once over
// GCC vector types and compiled three times: for AVX-512 (16 lanes), AVX2 + FMA (8 lanes)
// and the x86-64 baseline (4 lanes), picked once per process by what the CPU runs.

#include <cstdint>

namespace ge::cpu::vm {

/// The float maps of `map`.
/// silu: x * sigmoid(x); hard_swish: x * min(max(x / 6 + 1/2, 0), 1).
enum class Map : std::uint8_t { exp, sigmoid, silu, hard_swish, tanh, gelu, gelu_tanh };

/// y[i] = f(x[i]) for i in [0, n); x == y (in place) is fine.
void map(Map f, const float* x, float* y, std::int64_t n) noexcept;

/// The largest of x[0..n) (n >= 1; NaN where one is NaN).
float max(const float* x, std::int64_t n) noexcept;

/// y[i] = e^(x[i] - shift) for i in [0, n); returns their sum. x == y is fine.
float exp_shift_sum(const float* x, float* y, std::int64_t n, float shift) noexcept;

/// y[i] *= s for i in [0, n).
void scale(float* y, std::int64_t n, float s) noexcept;

/// erfc(x) for one float, through the same code as the Gelu map: relative error below
/// 1e-6 for |x| < 3 and 1e-5 beyond (where rounding x^2 in float costs that much); a
/// Chebyshev fit of erfc(z) / (t e^(-z^2)), t = 1 / (1 + z/2), after Numerical Recipes'
/// `erfcc`. 1 + erf(x) = 2 - erfc(x) keeps its relative accuracy where erf(x) nears -1.
[[nodiscard]] float erfc(float x) noexcept;

/// True when the 8-lane AVX2 code runs on this CPU.
[[nodiscard]] bool avx2() noexcept;

}  // namespace ge::cpu::vm
