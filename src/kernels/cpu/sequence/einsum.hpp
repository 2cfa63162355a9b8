#pragma once
/// \file
/// Einsum on f32 (and f64) with the equation resolved to one integer label per dim (the compile
/// layer parses the text; see src/ops/einsum_equation.hpp).
///
/// Operands are contracted left to right, two at a time, as batched GEMMs: the labels of
/// both operands that are still needed (by the output or a later operand) are batch
/// dims, those of both that are not are the K of the product, the others M (left) and N
/// (right). An operand already laid out as [batch, M, K] or [batch, K, M] (the right one
/// [batch, K, N] or [batch, N, K]) is read in place through the GEMM's transpose flags;
/// otherwise it is permuted once (Transpose's kernel). A label repeated within an operand
/// takes the diagonal, a label only one operand has and nothing needs is summed first,
/// and a dim of 1 broadcasts against the label's extent elsewhere.
///
/// ```
/// ge::cpu::EinsumParams p{.inputs = {{0, 1, 2}, {0, 2, 3}}, .output = {0, 1, 3}};  // bij,bjk->bik
/// const ge::TensorView in[] = {a, b};
/// ge::cpu::einsum(p, in, y);
/// ```

#include <span>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// The resolved equation: per operand one label (a small non-negative int) per dim,
/// and the output's labels, each at most once and each in some operand.
struct EinsumParams {
  std::vector<std::vector<int>> inputs;  ///< labels of each operand's dims
  std::vector<int> output;               ///< labels of the output's dims
};

/// `y = einsum(inputs)` on f32 through the packed GEMM, or on f64 through a plain loop
/// product (all inputs and `y` of one type). Raises `Errc::bad_op_inputs` (operand count or ranks
/// against the labels, a label whose dims disagree, `y`'s dims), `Errc::type_mismatch`,
/// `Errc::bad_attribute` (an output label twice or in no operand).
void einsum(const EinsumParams& p, std::span<const TensorView> inputs, const TensorView& y);

}  // namespace ge::cpu
