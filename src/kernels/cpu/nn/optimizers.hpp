#pragma once
/// \file
/// One step of the training-domain optimizers Adagrad, Momentum (standard or Nesterov)
/// and Adam over any number of tensors, element by element (ONNX ai.onnx.preview.training).
///
/// ```
/// ge::cpu::OptimizerParams p{.kind = ge::cpu::Optimizer::adagrad, .epsilon = 1e-6};
/// ge::cpu::optimizer_step(p, {r, t, x, g, h}, {x_new, h_new});
/// ```

#include <span>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

enum class Optimizer : std::uint8_t { adagrad, momentum, adam };

/// An optimizer and its attributes (those of other kinds are ignored).
struct OptimizerParams {
  Optimizer kind = Optimizer::adagrad;
  double alpha = 0;                  ///< Momentum, Adam
  double beta = 0;                   ///< Momentum, Adam
  double epsilon = 0;                ///< Adagrad, Adam
  double decay_factor = 0;           ///< Adagrad
  double norm_coefficient = 0;       ///< all: G' = G + norm_coefficient X
  double norm_coefficient_post = 0;  ///< Adam: X *= 1 - norm_coefficient_post at the end
  bool nesterov = false;             ///< Momentum's mode
};

/// The state tensors per optimized tensor: Adagrad 1 (H), Momentum 1 (V), Adam 2 (V, H).
[[nodiscard]] std::size_t optimizer_states(Optimizer kind) noexcept;

/// in: R (f32/f64 scalar), T (i64 scalar), X1..Xn, G1..Gn, then each state's n tensors
/// (f32 or f64, each of its X's dims); out: X1'..Xn', then each state's n new tensors.
/// Raises `Errc::bad_op_inputs` (counts, dims, T negative), `Errc::type_mismatch`.
void optimizer_step(const OptimizerParams& p, std::span<const TensorView> in, std::span<const TensorView> out);

}  // namespace ge::cpu
