// Products of few rows (at most 8 per tile; 6 with AVX2) by a packed B, for the recurrent layers'
// steps (the batch's states [N, H] times R^T): recurrent_internal.hpp. The general
// GEMM's tiles are 6 or 12 rows; a batch of 8 ran as a 6-row tile (6 accumulators, fewer
// than the FMA units' latency needs) and a 2-row rest (2 accumulators). Here a tile is
// all R rows by two B panels (AVX-512: 8 x 32, 16 accumulators; four panels for up to 4
// rows) over the whole K: A's R rows stay in L1 while B streams past once.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/vec.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors stay inside each entry point

namespace ge::cpu {
namespace {

// Rows [0, R) x panels [0, NP) from B panel `b` (panel q at b + q * k * NR): C = A B + bias.
// `cols`: the valid columns of the last panel (NR when it is whole).
template <int V, int R, int NP>
inline __attribute__((always_inline)) void tile(std::int64_t k, const float* a, std::int64_t lda, const float* b,
                                                float* c, std::int64_t ldc, const float* bias, std::int64_t cols) {
  using F = VecOf<V>;
  constexpr int P = kGemmNR / V;  // vectors per panel row
  const std::int64_t bstride = k * kGemmNR;
  // K in blocks of kGemmKc, summed as the general GEMM sums them (each block from zero,
  // then the sum so far added, kept in C between blocks): the same bits as a row of a
  // larger product, so a result does not depend on the batch it came in.
  for (std::int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const std::int64_t k1 = std::min(k, k0 + kGemmKc);
    F acc[R][NP * P];
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < NP * P; ++q) acc[r][q] = F{};
#pragma GCC unroll 2
    for (std::int64_t p = k0; p < k1; ++p) {
      F bv[NP * P];
#pragma GCC unroll 8
      for (int q = 0; q < NP * P; ++q) std::memcpy(&bv[q], b + (q / P) * bstride + p * kGemmNR + (q % P) * V, sizeof(F));
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const float av = a[r * lda + p];  // a scalar times a vector: one broadcast load
#pragma GCC unroll 8
        for (int q = 0; q < NP * P; ++q) acc[r][q] += av * bv[q];
      }
    }
    const bool last = k1 == k;
    for (int q = 0; q < NP * P; ++q) {
      const std::int64_t col = q * V;  // within the tile
      const std::int64_t valid = q / P == NP - 1 ? cols - (q % P) * V : V;
      if (valid <= 0) continue;
      const auto bytes = static_cast<std::size_t>(std::min<std::int64_t>(valid, V)) * sizeof(float);
      F bias_v{};
      if (last && bias != nullptr) std::memcpy(&bias_v, bias + col, bytes);
      for (int r = 0; r < R; ++r) {
        F v = acc[r][q];
        if (k0 > 0) {
          F so_far{};
          std::memcpy(&so_far, c + r * ldc + col, bytes);
          v += so_far;
        }
        if (last && bias != nullptr) v += bias_v;
        std::memcpy(c + r * ldc + col, &v, bytes);
      }
    }
  }
}

// Columns [n0, n1) (n0 a multiple of NR) of rows [0, R): tiles of NP panels (enough
// accumulators for the FMA latency, few enough for the registers), then single panels.
// AVX-512 (a panel row one register, 32 registers): four panels for up to 4 rows, else two
// (at most 16 accumulators). AVX2 (a panel row two registers, 16 registers): four panels
// for one row, two for two, else one (at most 12 accumulators, for tiles of up to 6 rows:
// 16 and more spilled to memory).
template <int V, int R>
inline __attribute__((always_inline)) void rows(std::int64_t n0, std::int64_t n1, std::int64_t k, const float* a,
                                                std::int64_t lda, const float* pb, float* c, std::int64_t ldc,
                                                const float* bias) {
  constexpr int NP = V == 16 ? (R <= 4 ? 4 : 2) : (R == 1 ? 4 : R == 2 ? 2 : 1);
  std::int64_t j = n0;
  for (; j + NP * kGemmNR <= n1; j += NP * kGemmNR)
    tile<V, R, NP>(k, a, lda, pb + j * k, c + j, ldc, bias != nullptr ? bias + j : nullptr, kGemmNR);
  for (; j < n1; j += kGemmNR)
    tile<V, R, 1>(k, a, lda, pb + j * k, c + j, ldc, bias != nullptr ? bias + j : nullptr, std::min(kGemmNR, n1 - j));
}

template <int V>
inline __attribute__((always_inline)) void small_m(std::int64_t m, std::int64_t n0, std::int64_t n1, std::int64_t k,
                                                   const float* a, std::int64_t lda, const float* pb, float* c,
                                                   std::int64_t ldc, const float* bias) {
  constexpr std::int64_t kTileRows = V == 16 ? 8 : 6;
  for (std::int64_t i = 0; i < m; i += kTileRows) {
    const float* ai = a + i * lda;
    float* ci = c + i * ldc;
    switch (std::min<std::int64_t>(kTileRows, m - i)) {
      case 1: rows<V, 1>(n0, n1, k, ai, lda, pb, ci, ldc, bias); break;
      case 2: rows<V, 2>(n0, n1, k, ai, lda, pb, ci, ldc, bias); break;
      case 3: rows<V, 3>(n0, n1, k, ai, lda, pb, ci, ldc, bias); break;
      case 4: rows<V, 4>(n0, n1, k, ai, lda, pb, ci, ldc, bias); break;
      case 5: rows<V, 5>(n0, n1, k, ai, lda, pb, ci, ldc, bias); break;
      case 6: rows<V, 6>(n0, n1, k, ai, lda, pb, ci, ldc, bias); break;
      default:  // 7 or 8 (AVX-512 only)
        if constexpr (V == 16) {
          if (m - i == 7) rows<V, 7>(n0, n1, k, ai, lda, pb, ci, ldc, bias);
          else rows<V, 8>(n0, n1, k, ai, lda, pb, ci, ldc, bias);
        }
        break;
    }
  }
}

}  // namespace

#if GE_X86_KERNELS
GE_TARGET_AVX512 void gemm_small_m_avx512(std::int64_t m, std::int64_t n0, std::int64_t n1, std::int64_t k,
                                          const float* a, std::int64_t lda, const float* pb, float* c, std::int64_t ldc,
                                          const float* bias) {
  small_m<16>(m, n0, n1, k, a, lda, pb, c, ldc, bias);
}
GE_TARGET_AVX2 void gemm_small_m_avx2(std::int64_t m, std::int64_t n0, std::int64_t n1, std::int64_t k, const float* a,
                                      std::int64_t lda, const float* pb, float* c, std::int64_t ldc,
                                      const float* bias) {
  small_m<8>(m, n0, n1, k, a, lda, pb, c, ldc, bias);
}
#endif

bool gemm_small_m_fits(std::int64_t m) noexcept { return m >= 1 && m < 12 && kernels().gemm_small_m != nullptr; }

void gemm_small_m(std::int64_t m, std::int64_t n0, std::int64_t n1, std::int64_t k, const float* a, std::int64_t lda,
                  const float* packed_b, float* c, std::int64_t ldc, const float* bias_n) {
  if (m <= 0 || n1 <= n0) return;
  kernels().gemm_small_m(m, n0, n1, k, a, lda, packed_b, c, ldc, bias_n);
}

}  // namespace ge::cpu
