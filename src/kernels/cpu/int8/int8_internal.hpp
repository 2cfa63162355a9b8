#pragma once
// Private to the int8 kernels (int8.cpp, int8_conv.cpp): the packed weights' parts, the
// epilogue's quantization, and the block product both files run.
#include <cstdint>

#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge::cpu {

// Where each part of a `PackedS8` lives: the panels' bytes, then the scales and the sums,
// each padded to whole panels of columns.
struct S8Layout {
  std::int64_t kpad, panels, panel_bytes, cols_pad;
  S8Layout(std::int64_t k, std::int64_t n) noexcept
      : kpad(s8_k(k)), panels((n + 15) / 16), panel_bytes(s8_k(k) * 16), cols_pad((n + 15) / 16 * 16) {}
  [[nodiscard]] std::int64_t panel_floats() const noexcept { return panels * panel_bytes / 4; }
  [[nodiscard]] std::int64_t floats() const noexcept { return panel_floats() + 2 * cols_pad; }
};

struct S8View {
  const std::int8_t* panels;
  const float* scale;
  const std::int32_t* sums;
  std::int64_t kpad, panel_bytes;
};

inline S8View s8_view(const PackedS8& b) {
  const S8Layout l(b.k, b.n);
  const float* base = b.data.data();
  return {reinterpret_cast<const std::int8_t*>(base), base + l.panel_floats(),
          reinterpret_cast<const std::int32_t*>(base + l.panel_floats() + l.cols_pad), l.kpad, l.panel_bytes};
}

// What the epilogue needs of the quantization besides `GemmEpilogue`.
struct S8Cols {
  const float* scale;        // s_j of every column of B (from column 0)
  const std::int32_t* sums;  // sum_k wq_kj
  float a_scale;
  std::int32_t a_zero_point;
  const FakeQuant* out = nullptr;  // a quantize-dequantize round trip last, or none
};

// `C[row0 + i][col0 + j] = epilogue(A[i] . B[:, col0 + j])` for i < m, j < n: A u8 rows
// (`lda`, K padded to `kpad`), B's panels from column `col0` (a multiple of 16), on the
// VNNI kernel or the portable loops; `q.out` last. Serial.
void gemm_s8_block(std::int64_t m, std::int64_t n, std::int64_t kpad, const std::uint8_t* a, std::int64_t lda,
                   const S8View& b, std::int64_t col0, float* c, std::int64_t ldc, std::int64_t row0, const S8Cols& q,
                   const GemmEpilogue& ep);

// Quantizes `n` floats on the task arena.
void quantize_parallel(const QuantU8& q, const float* x, std::int64_t n, std::uint8_t* dst);

// Raises `Errc::bad_op_inputs` naming `op` unless the input's scale is positive and finite
// and its zero point in [0, 255], and `out` (when given) has a positive finite scale and
// lo <= zero point <= hi, lo < hi (a model file's attributes reach here).
void check_quantization(std::string_view op, const QuantU8& in, const FakeQuant* out);

// The task arena's threads (at least 1).
[[nodiscard]] std::int64_t int8_threads();

}  // namespace ge::cpu
