#pragma once
/// \file
/// Normalisation kernels on f32: Softmax and LogSoftmax along one axis,
/// LayerNormalization over the trailing dims from an axis, and inference-mode
/// BatchNormalization over NC... tensors.
///
/// ```
/// ge::cpu::softmax({.axis = 2}, x, y);
/// ge::cpu::layer_norm({.axis = 2, .epsilon = 1e-5f}, x, scale, &bias, y);
/// ge::cpu::batch_norm({.epsilon = 1e-5f}, x, scale, bias, mean, var, y);
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Resolved attributes of Softmax / LogSoftmax.
struct SoftmaxParams {
  std::int64_t axis = 0;  ///< the non-negative axis normalised over
  bool log = false;       ///< LogSoftmax instead of Softmax
};

/// `y = exp(x - max) / sum(exp(x - max))` along `p.axis` (or its log with `p.log`); same
/// dims, f32. Raises `Errc::type_mismatch`, `Errc::bad_op_inputs` (dims differ),
/// `Errc::bad_attribute` (axis outside the rank).
void softmax(const SoftmaxParams& p, const TensorView& x, const TensorView& y);

/// Resolved attributes of LayerNormalization.
struct LayerNormParams {
  std::int64_t axis = 0;   ///< first normalised axis, non-negative
  float epsilon = 1e-5f;   ///< added to the variance
};

/// `y = (x - mean) / sqrt(var + epsilon) * scale + bias` over dims `[axis, rank)`;
/// `scale` and `bias` (null for none) hold one value per normalised element
/// (`prod(dims[axis:])` elements). Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`,
/// `Errc::bad_attribute`.
void layer_norm(const LayerNormParams& p, const TensorView& x, const TensorView& scale, const TensorView* bias,
                const TensorView& y);

/// Resolved attributes of BatchNormalization (inference).
struct BatchNormParams {
  float epsilon = 1e-5f;  ///< added to the variance
};

/// `y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]` over `x` of dims
/// [N, C, ...] (rank >= 2), the four others [C]. Raises `Errc::type_mismatch`,
/// `Errc::bad_op_inputs`, `Errc::rank_mismatch`.
void batch_norm(const BatchNormParams& p, const TensorView& x, const TensorView& scale, const TensorView& bias,
                const TensorView& mean, const TensorView& var, const TensorView& y);

}  // namespace ge::cpu
