#pragma once
/// \file
/// The losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, f32 and f64,
/// accumulated in double; one pass over the targets (O(C) more per target for the
/// softmax).
///
/// ```
/// ge::cpu::nll_loss({.reduction = LossReduction::sum}, input, target, nullptr, loss);
/// ge::cpu::softmax_cross_entropy({}, scores, labels, &weights, loss, &log_prob);
/// ```

#include <cstdint>
#include <optional>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// How the per-target losses become the output.
enum class LossReduction : std::uint8_t { none, sum, mean };

/// Resolved attributes of the losses.
struct LossParams {
  LossReduction reduction = LossReduction::mean;  ///< mean: the sum over the sum of the weights
  std::optional<std::int64_t> ignore_index = std::nullopt;  ///< targets equal to it count nothing
};

/// loss = -input[n, target[n, d...], d...] * weight[target] (input [N, C, d...], target
/// [N, d...] i32 or i64, weight [C] or null), reduced by `p.reduction` (loss of target's
/// dims for none, a scalar otherwise). Raises `Errc::type_mismatch`, `Errc::bad_op_inputs`
/// (dims), `Errc::index_out_of_range` (a target outside [0, C) that is not ignored).
void nll_loss(const LossParams& p, const TensorView& input, const TensorView& target, const TensorView* weight,
              const TensorView& loss);

/// `nll_loss` of log_softmax(scores) along axis 1; that log-probability is written to
/// `log_prob` when given (scores' dims). Raises as `nll_loss`.
void softmax_cross_entropy(const LossParams& p, const TensorView& scores, const TensorView& labels,
                           const TensorView* weight, const TensorView& loss, const TensorView* log_prob);

}  // namespace ge::cpu
