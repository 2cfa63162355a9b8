#pragma once
// Private to the CPU kernels: scaled dot-product attention over strided views, so that
// the transposes exporters put around it need not be materialised.
//
// ```
// ge::cpu::AttentionParams p{.scale = 0.125f, .q = Layout::bshd, .k = Layout::bshd, .v = Layout::bshd,
//                            .out = Layout::bshd};
// ge::cpu::attention(p, q, k, v, &mask, y);   // y[b,h] = softmax(scale * q[b,h] k[b,h]^T + mask) v[b,h]
// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// How a tensor holds its [batch, (heads,) sequence, feature] matrices. Rank 3:
/// [batch, seq, dim] (`bsd`) or [seq, batch, dim] (`sbd`, what torch's multi-head
/// attention works in). Rank 4: [batch, heads, seq, dim] (`bhsd`) or [batch, seq, heads,
/// dim] (`bshd`, the heads still interleaved as a projection wrote them). The feature dim
/// is contiguous in every one.
enum class Layout : std::uint8_t { bsd, sbd, bhsd, bshd };

struct AttentionParams {
  float scale = 1.0f;
  Layout q = Layout::bsd, k = Layout::bsd, v = Layout::bsd, out = Layout::bsd;
};

/// For every batch b (and head h): `y[b,h] = softmax_rows(scale * q[b,h] k[b,h]^T + mask)
/// v[b,h]`, q Sq x D, k Sk x D, v Sk x Dv, y Sq x Dv, each read or written through its
/// layout. `mask` (nullptr: none) is added to the scaled scores [B, (H,) Sq, Sk] with
/// numpy's broadcasting from the right, except that its batch dim may also divide B: the
/// batch b then reads mask batch b mod that dim (a mask per window, repeated over the
/// images). One Sq x Sk score block per batch and head, in the thread's scratch. Raises
/// `Errc::bad_op_inputs` when the dims do not fit each other, `type_mismatch` for
/// non-f32 tensors.
void attention(const AttentionParams& p, const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView* mask, const TensorView& y);

}  // namespace ge::cpu
