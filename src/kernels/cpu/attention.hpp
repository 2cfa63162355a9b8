#pragma once
// Private to the CPU kernels: scaled dot-product attention over strided views, so that
// the transposes exporters put around it need not be materialised.
//
// ```
// ge::cpu::AttentionParams p{.scale = 0.125f, .q = Layout::sbd, .k = Layout::sbd, .v = Layout::sbd, .out = Layout::sbd};
// ge::cpu::attention(p, q, k, v, y);   // y[b] = softmax(scale * q[b] k[b]^T) v[b]
// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// How a rank-3 tensor holds its [batch, sequence, feature] matrices: as
/// [batch, seq, dim] (`bsd`) or as [seq, batch, dim] (`sbd`, what torch's multi-head
/// attention works in). The feature dim is contiguous in both.
enum class Layout : std::uint8_t { bsd, sbd };

struct AttentionParams {
  float scale = 1.0f;
  Layout q = Layout::bsd, k = Layout::bsd, v = Layout::bsd, out = Layout::bsd;
};

/// For every batch b: `y[b] = softmax_rows(scale * q[b] k[b]^T) v[b]`, q[b] Sq x D,
/// k[b] Sk x D, v[b] Sk x Dv, y[b] Sq x Dv, each read or written through its layout.
/// One Sq x Sk score block per batch, in the thread's scratch. Raises
/// `Errc::bad_op_inputs` when the dims do not fit each other, `type_mismatch` for
/// non-f32 tensors.
void attention(const AttentionParams& p, const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView& y);

}  // namespace ge::cpu
