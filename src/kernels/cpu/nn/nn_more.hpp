#pragma once
/// \file
/// Further network kernels on f32: BatchNormalization in training mode (the batch's
/// statistics, and the running ones blended by momentum), LRN, MeanVarianceNormalization,
/// the window functions (f32 or f64 out), Det (f32 or f64) and MaxUnpool.
///
/// ```
/// ge::cpu::batch_norm_training({.epsilon = 1e-5F, .momentum = 0.9F}, x, scale, b, mean, var, y, &rm, &rv);
/// ```

#include <cstdint>
#include <span>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Attributes of BatchNormalization with training_mode 1.
struct BatchNormTrainParams {
  float epsilon = 1e-5F;
  float momentum = 0.9F;
};

/// BatchNormalization, training mode: per channel c (dim 1 of x [N, C, ...]), the mean m and
/// population variance v of x over every other dim; y = (x - m) / sqrt(v + epsilon) *
/// scale[c] + b[c]; `running_mean` = mean * momentum + m * (1 - momentum), `running_var`
/// likewise from var and v (each may be null). `y` may be `x`. f32; scale, b, mean, var
/// [C]. Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`.
void batch_norm_training(const BatchNormTrainParams& p, const TensorView& x, const TensorView& scale,
                         const TensorView& b, const TensorView& mean, const TensorView& var, const TensorView& y,
                         const TensorView* running_mean, const TensorView* running_var);

/// LRN attributes.
struct LrnParams {
  float alpha = 1e-4F;
  float beta = 0.75F;
  float bias = 1.0F;
  std::int64_t size = 1;  ///< >= 1
};

/// LRN: y = x / (bias + alpha / size * s)^beta, s the sum of x^2 over channels
/// [c - (size - 1) / 2, c + size / 2] (clipped) at the same position; x [N, C, ...].
/// A running sum: O(elements) whatever the size. Raises `Errc::type_mismatch`,
/// `Errc::bad_op_inputs`, `Errc::bad_attribute` (size < 1).
void lrn(const LrnParams& p, const TensorView& x, const TensorView& y);

/// MeanVarianceNormalization: y = (x - m) / (sqrt(v) + 1e-9) with m and v the mean and
/// population variance over `axes` (non-negative, distinct). Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (an axis out of range or repeated).
void mean_variance_normalization(std::span<const std::int64_t> axes, const TensorView& x, const TensorView& y);

/// The window functions: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) for n < y's length,
/// N = length (periodic) or length - 1 (symmetric; a length of 1 gives a0 - a1 + a2).
enum class WindowFn : std::uint8_t { blackman, hamming, hann };
void window_function(WindowFn kind, bool periodic, const TensorView& y);

/// Det: the determinant of each matrix of x [..., M, M] into y [...] (LU with partial
/// pivoting, in double). f32 or f64. Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`.
void det(const TensorView& x, const TensorView& y);

/// MaxUnpool: y all zero but x.flat[k] at the position i[k] (i64, x's dims) numbers as a flat
/// index of a tensor of dims `pooled` (the unpooled size the attributes give; y's rank):
/// the same coordinates in y, which may be larger (ONNX's output_shape); positions
/// outside y are dropped. Raises `Errc::bad_op_inputs` (an index outside `pooled`),
/// `Errc::type_mismatch`.
void max_unpool(const TensorView& x, const TensorView& i, std::span<const std::int64_t> pooled, const TensorView& y);

}  // namespace ge::cpu
