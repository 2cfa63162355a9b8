#pragma once
// Internal to the recurrent kernels (recurrent.cpp: the API, checks and the double
// reference; recurrent_gemm.cpp: the f32 path on the GEMM).

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/cpu/sequence/recurrent.hpp"

namespace ge::cpu {

// Sizes of one run: steps, batch, input, hidden, directions, gates; the layout.
struct RnnSizes {
  std::int64_t S, N, I, H, D, G;
  bool batch_first;
  [[nodiscard]] std::size_t x_at(std::int64_t t, std::int64_t n) const {
    return static_cast<std::size_t>((batch_first ? n * S + t : t * N + n) * I);
  }
  [[nodiscard]] std::size_t state_at(std::int64_t d, std::int64_t n) const {
    return static_cast<std::size_t>((batch_first ? n * D + d : d * N + n) * H);
  }
  [[nodiscard]] std::size_t y_at(std::int64_t t, std::int64_t d, std::int64_t n) const {
    return static_cast<std::size_t>((batch_first ? (n * S + t) * D + d : (t * D + d) * N + n) * H);
  }
  [[nodiscard]] std::vector<std::int64_t> state_dims() const {
    return batch_first ? std::vector<std::int64_t>{N, D, H} : std::vector<std::int64_t>{D, N, H};
  }
};

// The columns of one direction's blocks of the packed R (`pack_rnn_r`): the gate rows
// of each block, and each block's columns rounded up to whole panels.
struct RnnRBlocks {
  std::int64_t count = 1;          // 1, or 2 for GRU without linear_before_reset
  std::int64_t rows[2] = {0, 0};   // gate rows of R per block
  [[nodiscard]] static std::int64_t padded(std::int64_t cols) { return (cols + kGemmNR - 1) / kGemmNR * kGemmNR; }
  [[nodiscard]] std::int64_t direction_columns() const { return padded(rows[0]) + (count > 1 ? padded(rows[1]) : 0); }
};
[[nodiscard]] RnnRBlocks rnn_r_blocks(const RnnParams& p);

// The input checks of `recurrent` (W and R skipped when `weights_packed`); the sizes.
RnnSizes rnn_check(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out,
                   bool weights_packed);

// sequence_lens as int64 (empty when omitted), each checked to lie in [0, S].
std::vector<std::int64_t> rnn_lengths(std::string_view op, const TensorView* t, std::int64_t S);

// The f32 layer on the GEMM, operands checked: W and R packed for `p`.
void recurrent_f32(const RnnParams& p, const RnnSizes& s, std::span<const TensorView> in,
                   std::span<const TensorView> out, const PackedMatMulB& w, const PackedMatMulB& r);

}  // namespace ge::cpu
