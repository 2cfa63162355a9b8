// The f32 GEMM's block level: the kernels over one output block (all of K) or one K
// block, compiled per ISA and chosen once at start-up, and the split of the output into
// blocks run in parallel.
#include <algorithm>

#include <tbb/task_arena.h>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/gemm/gemm_tile.hpp"

// The 64-byte vector helpers are internal and always inlined, so their by-value vector
// arguments never cross an ABI boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ge::cpu {
namespace {

using namespace gemm_tile;

constexpr std::int64_t kKc = kGemmKc;  // K block: a 16-column B panel slice (16 KiB) stays in L1
constexpr std::int64_t kMc = 192;  // rows per output block: the A block (192 KiB) stays in L2
constexpr std::int64_t kNc = 256;  // columns per output block

// Rows [row0, row0 + rows) (fewer than MR, at `a`: row-major rows `lda` apart, AS 1, or
// the rows of a packed A panel, lda 1 and AS MR) against the B panels of columns
// [from, to) of one K block (`pb`: the first panel at this block's first K step; panels
// k * NR apart), four panels at a time, finished into C.
template <int V, int AS>
inline __attribute__((always_inline)) void edge_rows(std::int64_t kc, const float* a, std::int64_t lda, const float* pb,
                                                     std::int64_t k, std::int64_t from, std::int64_t to, std::int64_t n1,
                                                     float* c, std::int64_t ldc, std::int64_t row0, std::int64_t rows,
                                                     bool load_c, bool last, const GemmEpilogue& ep) {
  alignas(64) float edge[(kGemmMR - 1) * 4 * kGemmNR];
  const int most = edge_panels<V>(rows);
  for (std::int64_t j = from; j < to;) {
    const std::int64_t left = (to - j + kGemmNR - 1) / kGemmNR;
    const int np = std::min(most, left >= 4 ? 4 : left >= 2 ? 2 : 1);
    rows_panels_n<V, AS>(kc, a, lda, pb + (j / kGemmNR) * k * kGemmNR, k * kGemmNR, edge, rows, np);
    for (int q = 0; q < np; ++q) {
      const std::int64_t jq = j + q * kGemmNR, nr = std::min(kGemmNR, n1 - jq);
      for (std::int64_t r = 0; r < rows; ++r)
        finish_cols(edge + r * 4 * kGemmNR + q * kGemmNR, c + (row0 + r) * ldc + jq, nr, load_c, last, ep, row0 + r, jq);
    }
    j += np * kGemmNR;
  }
}

// Two panels holding 17 to 31 columns (N = 24: MobileNet's projections), 12 rows: a
// 12 x 32 tile into `ragged` (B's panels are zero-padded), finished column-exact.
template <int V, bool kRowA>
inline __attribute__((always_inline)) void ragged_pair(std::int64_t kc, const float* a, std::int64_t a_stride,
                                                       const float* bp, std::int64_t b_stride, float* c,
                                                       std::int64_t ldc, std::int64_t cols, bool load_c, bool last,
                                                       const GemmEpilogue& ep, std::int64_t i, std::int64_t j,
                                                       const Ahead& ahead, float* ragged) {
  micro_kernel_store<V, 2, 2, kRowA>(kc, a, a_stride, bp, b_stride, ragged, 2 * kGemmNR, false, false, ep, i, j, ahead);
  for (std::int64_t r = 0; r < 2 * kGemmMR; ++r) {
    float* crow = c + r * ldc;
    finish_row(ragged + r * 2 * kGemmNR, crow, std::integral_constant<std::int64_t, kGemmNR>{}, load_c, last, ep, i + r,
               j);
    finish_cols(ragged + r * 2 * kGemmNR + kGemmNR, crow + kGemmNR, cols - kGemmNR, load_c, last, ep, i + r,
                j + kGemmNR);
  }
}

// One panel of at most 16 columns (a 1x1 conv to 8 or 16 channels), 12 rows from `a` (at
// C[i][j], `c`): a 12 x 16 tile, whose 12 accumulators cover the FMA latency (a 6 x 16
// tile's 6 do not), with A in place, not packed per tile; a panel of fewer columns goes
// through `ragged` and is finished column-exact.
template <int V, bool kRowA>
inline __attribute__((always_inline)) void narrow_tile(std::int64_t kc, const float* a, std::int64_t a_stride,
                                                       const float* bp, float* c, std::int64_t ldc, std::int64_t nr,
                                                       bool load_c, bool last, const GemmEpilogue& ep, std::int64_t i,
                                                       std::int64_t j, const Ahead& ahead, float* ragged) {
  if (nr == kGemmNR) {
    micro_kernel_store<V, 2, 1, kRowA>(kc, a, a_stride, bp, 0, c, ldc, load_c, last, ep, i, j, ahead);
    return;
  }
  micro_kernel_store<V, 2, 1, kRowA>(kc, a, a_stride, bp, 0, ragged, kGemmNR, false, false, ep, i, j, ahead);
  for (std::int64_t r = 0; r < 2 * kGemmMR; ++r) {
    finish_cols(ragged + r * kGemmNR, c + r * ldc, nr, load_c, last, ep, i + r, j);
  }
}

// With A in place (a layer's input; C its output: at a batch's sizes both come from L3
// or memory), what the tile at rows [i, i + 2 MR) of columns j fetches for the one after
// it, besides `b`: on the first column pass the next rows of A (`a` at this K block's
// first column; contiguous when K is one block: two lines a K step), and for tiles of 32
// columns on the last K block (`store_ahead`) the next tile's C rows (for writing) and
// residual rows.
inline Ahead rowa_ahead(Ahead b, std::int64_t i, std::int64_t j, std::int64_t m0, std::int64_t m1, std::int64_t n0,
                        std::int64_t kc, bool store_ahead, const float* a, std::int64_t lda, float* c,
                        std::int64_t ldc, const GemmEpilogue& ep) {
  const std::int64_t ia = i + 2 * kGemmMR;
  if (i != m0 && j == n0 && lda <= kc + kc / 4 && ia < m1) b = {a + ia * lda, 16, 32, 2};
  if (store_ahead && ia + 2 * kGemmMR <= m1) {
    b.c_at = c + ia * ldc + j;
    b.c_ld = ldc;
    if (ep.residual != nullptr) {
      b.r_at = ep.residual + ia * ep.ld_residual + j;
      b.r_ld = ep.ld_residual;
    }
    b.rows = 2 * kGemmMR;
  }
  return b;
}

// One output block [m0, m1) x [n0, n1) (m0 a multiple of MR, n0 of NR) over all of K. A
// is packed (`a` holds MR-row panels) or, with `kRowA`, row-major with row stride `lda`,
// read in place: then an edge tile (fewer than NR columns) packs its MR x kc slice of A
// first for the edge kernel. Either way the last rows (fewer than MR) go four panels at
// a time (`edge_rows`): as a padded MR-row tile per panel, the one pixel past 48 of a 7 x 7
// image cost six rows' FMAs (a 1x1 conv 2048 -> 1024 over 7 x 7 at 87% of the peak).
template <int V, bool kRowA>
inline __attribute__((always_inline)) void gemm_block_impl(std::int64_t n, std::int64_t k,
                                                           std::int64_t m0, std::int64_t m1, std::int64_t n0,
                                                           std::int64_t n1, const float* a, std::int64_t lda,
                                                           const float* pb, float* c, std::int64_t ldc,
                                                           const GemmEpilogue& ep) {
  alignas(64) float tile[kGemmMR * kGemmNR];
  alignas(64) float ragged_tile[V == 16 ? 4 * kGemmMR * kGemmNR : 1];
  alignas(64) float slice[kRowA ? kGemmMR * kKc : 1];
  // The tiles cover whole MR-row groups; the rows after them go four panels at a time
  // below (packed A pads its last panel, which they read).
  const std::int64_t m_tiles = m0 + (m1 - m0) / kGemmMR * kGemmMR;
  std::int64_t k0 = 0;
  do {
    const std::int64_t kc = std::min(kKc, k - k0);
    const bool load_c = k0 != 0 || ep.accumulate;
    const bool last = k0 + kc >= k;
    // A's rows [i, ...) from k0 on, and the stride between its two MR-row halves.
    const auto a_at = [&](std::int64_t i) __attribute__((always_inline)) {
      return kRowA ? a + i * lda + k0 : a + (i / kGemmMR) * k * kGemmMR + k0 * kGemmMR;
    };
    const std::int64_t a_stride = kRowA ? lda : k * kGemmMR;
    // Inlined: out of line a lambda is compiled for the baseline ISA, not the caller's.
    const auto one_tile = [&](std::int64_t i, std::int64_t j, const Ahead& ahead) __attribute__((always_inline)) {
      const float* bp = pb + (j / kGemmNR) * k * kGemmNR + k0 * kGemmNR;
      const std::int64_t nr = std::min(kGemmNR, n - j);
      // (whole MR rows here: the rows after the tiles go to `edge_rows`)
      if (nr == kGemmNR) {
        micro_kernel_store<V, 1, 1, kRowA>(kc, a_at(i), a_stride, bp, 0, c + i * ldc + j, ldc, load_c, last, ep, i, j,
                                           ahead);
        return;
      }
      const float* ap = a_at(i);
      if constexpr (kRowA) {
        for (std::int64_t p = 0; p < kc; ++p)
          for (std::int64_t r = 0; r < kGemmMR; ++r) slice[p * kGemmMR + r] = ap[r * lda + p];
        micro_kernel_edge<V>(kc, slice, bp, tile, nr);
      } else {
        micro_kernel_edge<V>(kc, ap, bp, tile, nr);
      }
      for (std::int64_t r = 0; r < kGemmMR; ++r)
        finish_cols(tile + r * kGemmNR, c + (i + r) * ldc + j, nr, load_c, last, ep, i + r, j);
    };
    std::int64_t edge_from = n0;
    for (std::int64_t j = n0; j < n1;) {
      const bool wide = V == 16 && j + 2 * kGemmNR <= n1;
      // 17 to 31 columns left: 12 x 32 tiles too (`ragged_pair`).
      const bool ragged = V == 16 && !wide && j + kGemmNR < n1;
      // B holds the weights (a MatMul's or a pixel-major conv's, A packed or not) or a
      // product packed just before: the first tile of these columns fetches the next B
      // panels (the next K block's first at the end).
      const std::int64_t jn = j + (wide || ragged ? 2 : 1) * kGemmNR;
      Ahead next_b;
      if (jn < n1 || k0 + kc < k) {
        const std::int64_t jj = jn < n1 ? jn : n0, kk = jn < n1 ? k0 : k0 + kc;
        next_b = {pb + (jj / kGemmNR) * k * kGemmNR + kk * kGemmNR, k * kGemmNR, kGemmNR,
                  n1 - jj > kGemmNR ? 2 : 1};
      }
      for (std::int64_t i = m0; i < m_tiles;) {
        const float* bp = pb + (j / kGemmNR) * k * kGemmNR + k0 * kGemmNR;
        const Ahead first_b = i == m0 ? next_b : Ahead{};
        const Ahead ahead = kRowA && ep.fetch_ahead ? rowa_ahead(first_b, i, j, m0, m1, n0, kc, wide && last,
                                                                 a + k0, lda, c, ldc, ep)
                                                    : first_b;
        if (wide && i + 2 * kGemmMR <= m1) {
          micro_kernel_store<V, 2, 2, kRowA>(kc, a_at(i), a_stride, bp, k * kGemmNR, c + i * ldc + j, ldc, load_c, last,
                                             ep, i, j, ahead);
          i += 2 * kGemmMR;
          continue;
        }
        if (ragged && i + 2 * kGemmMR <= m1) {
          ragged_pair<V, kRowA>(kc, a_at(i), a_stride, bp, k * kGemmNR, c + i * ldc + j, ldc, n1 - j, load_c, last, ep,
                                i, j, ahead, ragged_tile);
          i += 2 * kGemmMR;
          continue;
        }
        if (V == 16 && !wide && !ragged && i + 2 * kGemmMR <= m1) {
          narrow_tile<V, kRowA>(kc, a_at(i), a_stride, bp, c + i * ldc + j, ldc, std::min(kGemmNR, n1 - j), load_c,
                                last, ep, i, j, ahead, ragged_tile);
          i += 2 * kGemmMR;
          continue;
        }
        one_tile(i, j, ahead);
        if (wide || ragged) one_tile(i, j + kGemmNR, Ahead{});
        i += kGemmMR;
      }
      j += wide || ragged ? 2 * kGemmNR : kGemmNR;
      // The last rows (fewer than MR) of the panels just done, four panels at a time while
      // those are still in cache.
      if (m_tiles < m1 && (j - edge_from >= 4 * kGemmNR || j >= n1)) {
        edge_rows<V, kRowA ? 1 : static_cast<int>(kGemmMR)>(kc, a_at(m_tiles), kRowA ? lda : 1, pb + k0 * kGemmNR, k,
                                                             edge_from, std::min(j, n1), n1, c, ldc, m_tiles,
                                                             m1 - m_tiles, load_c, last, ep);
        edge_from = j;
      }
    }
    k0 += kc;
  } while (k0 < k);
  map_rows(ep.post, c + m0 * ldc + n0, ldc, m1 - m0, n1 - n0);
}

// One K block [k0, k0 + kc) of rows [m0, m1) x the `n` columns of a B block packed by the
// caller (panels of kc x NR, `bstride` apart); C and the epilogue's columns start at
// `col0`. Each 6 x kc A slice stays in L1 while the B block's panels stream past it.
template <int V>
inline __attribute__((always_inline)) void gemm_kblock_impl(std::int64_t m, std::int64_t m0, std::int64_t m1,
                                                            std::int64_t k, std::int64_t k0, std::int64_t kc,
                                                            const float* pa, const float* bblock, std::int64_t bstride,
                                                            std::int64_t n, float* c, std::int64_t ldc,
                                                            std::int64_t col0, const GemmEpilogue& ep, bool first,
                                                            bool last) {
  alignas(64) float tile[kGemmMR * kGemmNR];
  const bool load_c = !first || ep.accumulate;
  const std::int64_t a_stride = k * kGemmMR;  // from one A panel to the next
  const auto one_tile = [&](std::int64_t i, std::int64_t j, const Ahead& ahead) __attribute__((always_inline)) {
    const float* ap = pa + (i / kGemmMR) * a_stride + k0 * kGemmMR;
    const float* bp = bblock + (j / kGemmNR) * bstride;
    const std::int64_t mr = std::min(kGemmMR, m - i);
    const std::int64_t nr = std::min(kGemmNR, n - j);
    const std::int64_t col = col0 + j;
    if (mr == kGemmMR && nr == kGemmNR) {
      micro_kernel_store<V>(kc, ap, 0, bp, 0, c + i * ldc + col, ldc, load_c, last, ep, i, col, ahead);
      return;
    }
    micro_kernel_edge<V>(kc, ap, bp, tile, nr);
    for (std::int64_t r = 0; r < mr; ++r) {
      if (nr == kGemmNR) {
        finish_row(tile + r * kGemmNR, c + (i + r) * ldc + col, std::integral_constant<std::int64_t, kGemmNR>{}, load_c,
                   last, ep, i + r, col);
      } else {
        finish_cols(tile + r * kGemmNR, c + (i + r) * ldc + col, nr, load_c, last, ep, i + r, col);
      }
    }
  };
  // AVX-512: 12 x 32 tiles (two A panels x two B panels) where they fit, as in
  // gemm_block_impl; 6 x 16 at the edges and on narrower ISAs.
  for (std::int64_t i = m0; i < m1;) {
    const bool tall = V == 16 && i + 2 * kGemmMR <= m1;
    // The first tile of these rows fetches the A panels of the next rows (A holds a
    // conv's weights; the first rows' panels of the next K block at the end).
    const std::int64_t in = i + (tall ? 2 : 1) * kGemmMR;
    Ahead next_a;
    if (in < m1 || k0 + kc < k) {
      const std::int64_t ii = in < m1 ? in : m0, kk = in < m1 ? k0 : k0 + kc;
      next_a = {pa + (ii / kGemmMR) * a_stride + kk * kGemmMR, a_stride, kGemmMR, m1 - ii > kGemmMR ? 2 : 1};
    }
    for (std::int64_t j = 0; j < n;) {
      const Ahead ahead = j == 0 ? next_a : Ahead{};
      if (tall && j + 2 * kGemmNR <= n) {
        micro_kernel_store<V, 2, 2, false>(kc, pa + (i / kGemmMR) * a_stride + k0 * kGemmMR, a_stride,
                                           bblock + (j / kGemmNR) * bstride, bstride, c + i * ldc + col0 + j, ldc,
                                           load_c, last, ep, i, col0 + j, ahead);
        j += 2 * kGemmNR;
        continue;
      }
      one_tile(i, j, ahead);
      if (tall) one_tile(i + kGemmMR, j, Ahead{});
      j += kGemmNR;
    }
    i += tall ? 2 * kGemmMR : kGemmMR;
  }
  if (last) map_rows(ep.post, c + m0 * ldc + col0, ldc, m1 - m0, n);
}

#define GE_GEMM_KBLOCK_ARGS                                                                                      \
  std::int64_t m, std::int64_t m0, std::int64_t m1, std::int64_t k, std::int64_t k0, std::int64_t kc,           \
      const float *pa, const float *bblock, std::int64_t bstride, std::int64_t n, float *c, std::int64_t ldc,    \
      std::int64_t col0, const GemmEpilogue &ep, bool first, bool last
#define GE_GEMM_KBLOCK_CALL(V) \
  gemm_kblock_impl<V>(m, m0, m1, k, k0, kc, pa, bblock, bstride, n, c, ldc, col0, ep, first, last)
#define GE_GEMM_BLOCK_ARGS                                                                                        \
  std::int64_t n, std::int64_t k, std::int64_t m0, std::int64_t m1, std::int64_t n0, std::int64_t n1,            \
      const float *pa, const float *pb, float *c, std::int64_t ldc, const GemmEpilogue &ep
#define GE_GEMM_BLOCK_CALL(V) gemm_block_impl<V, false>(n, k, m0, m1, n0, n1, pa, 0, pb, c, ldc, ep)
#define GE_GEMM_ROWA_ARGS                                                                                         \
  std::int64_t n, std::int64_t k, std::int64_t m0, std::int64_t m1, std::int64_t n0, std::int64_t n1,            \
      const float *a, std::int64_t lda, const float *pb, float *c, std::int64_t ldc, const GemmEpilogue &ep
#define GE_GEMM_ROWA_CALL(V) gemm_block_impl<V, true>(n, k, m0, m1, n0, n1, a, lda, pb, c, ldc, ep)

}  // namespace

// The variants dispatch.cpp chooses from.
void gemm_kblock_base(GE_GEMM_KBLOCK_ARGS) { GE_GEMM_KBLOCK_CALL(4); }
void gemm_block_base(GE_GEMM_BLOCK_ARGS) { GE_GEMM_BLOCK_CALL(4); }
void gemm_rowa_base(GE_GEMM_ROWA_ARGS) { GE_GEMM_ROWA_CALL(4); }
#if GE_X86_KERNELS
GE_TARGET_AVX2 void gemm_kblock_avx2(GE_GEMM_KBLOCK_ARGS) { GE_GEMM_KBLOCK_CALL(8); }
GE_TARGET_AVX2 void gemm_block_avx2(GE_GEMM_BLOCK_ARGS) { GE_GEMM_BLOCK_CALL(8); }
GE_TARGET_AVX2 void gemm_rowa_avx2(GE_GEMM_ROWA_ARGS) { GE_GEMM_ROWA_CALL(8); }
GE_TARGET_AVX512 void gemm_kblock_avx512(GE_GEMM_KBLOCK_ARGS) { GE_GEMM_KBLOCK_CALL(16); }
GE_TARGET_AVX512 void gemm_block_avx512(GE_GEMM_BLOCK_ARGS) { GE_GEMM_BLOCK_CALL(16); }
GE_TARGET_AVX512 void gemm_rowa_avx512(GE_GEMM_ROWA_ARGS) { GE_GEMM_ROWA_CALL(16); }
#endif

void gemm_packed_kblock(std::int64_t m, std::int64_t m0, std::int64_t m1, std::int64_t k, std::int64_t k0,
                        std::int64_t kc, const float* packed_a, const float* b_block, std::int64_t b_panel_stride,
                        std::int64_t n, float* c, std::int64_t ldc, std::int64_t col0, const GemmEpilogue& ep,
                        bool first, bool last) {
  if (m1 <= m0 || n <= 0) return;
  kernels().gemm_kblock(m, m0, m1, k, k0, kc, packed_a, b_block, b_panel_stride, n, c, ldc, col0, ep, first, last);
}

namespace {

// The split of an m x n output among `threads`: `mb` x `nb` blocks, their rows whole
// units of `unit` (the 12-row tiles, or MR) and their columns whole panels, as even as
// whole units go (`rows_at`, `cols_at`). At least `mb0` x `nb0` of them (the cache-sized
// blocks), and as many more as let every thread finish together: a count that is a
// multiple of the threads, of one size. 9 blocks of 192 x 256, 192 x 160 and 8 x 256 on
// 2 threads (a 1x1 conv 672 -> 672 over 8 x 7 x 7) ran 9% slower than that product took
// per thread on one.
struct BlockSplit {
  std::int64_t m, n, mb, nb, unit;
  std::int64_t rows_at(std::int64_t i) const {
    const std::int64_t units = (m + unit - 1) / unit;
    return std::min(m, i * units / mb * unit);
  }
  std::int64_t cols_at(std::int64_t j) const {
    const std::int64_t panels = (n + kGemmNR - 1) / kGemmNR;
    return std::min(n, j * panels / nb * kGemmNR);
  }
};

BlockSplit balanced_split(std::int64_t m, std::int64_t n, std::int64_t mb0, std::int64_t nb0, std::int64_t threads) {
  const std::int64_t unit = m >= 2 * kGemmMR ? 2 * kGemmMR : kGemmMR;
  const std::int64_t units = (m + unit - 1) / unit;
  const std::int64_t panels = (n + kGemmNR - 1) / kGemmNR;
  BlockSplit best{m, n, std::min(mb0, units), std::min(nb0, panels), unit};
  if (threads <= 1) return best;
  // Blocks no narrower than two panels (the 12 x 32 tiles) nor shorter than two units
  // where the product has them; a few more blocks than the least each way.
  const std::int64_t nb_most = std::max(best.nb, std::min(nb0 + 4 * threads, panels / 2));
  const std::int64_t mb_most = std::max(best.mb, std::min(mb0 + 2 * threads, units / 2));
  double best_cost = -1.0;
  for (std::int64_t mb = best.mb; mb <= mb_most; ++mb) {
    for (std::int64_t nb = best.nb; nb <= nb_most; ++nb) {
      // The slowest thread's share: its rounds of the largest block, each with a tile's
      // worth of set-up per row and column (B's panels fetched, the first tile's wait),
      // and the difference between the largest and smallest blocks.
      const auto area = [&](std::int64_t u, std::int64_t p) {
        return static_cast<double>((u * unit + kGemmMR) * (p * kGemmNR + kGemmNR));
      };
      const double largest = area((units + mb - 1) / mb, (panels + nb - 1) / nb);
      const double smallest = area(units / mb, panels / nb);
      const double cost = static_cast<double>((mb * nb + threads - 1) / threads) * largest + (largest - smallest);
      if (best_cost < 0.0 || cost < best_cost * 0.999) {
        best.mb = mb;
        best.nb = nb;
        best_cost = cost;
      }
    }
  }
  return best;
}

// Splits the m x n output into blocks (whole MR/NR multiples; M up to 1.5 kMc stays one
// block; blocks shrink until every thread of the arena gets about two, then even out
// across the threads: `balanced_split`) and runs `block(m0, m1, n0, n1)` over them, in
// parallel unless the product is small.
template <class Block>
void for_blocks(std::int64_t m, std::int64_t n, std::int64_t k, bool parallel, const Block& block) {
  std::int64_t mc = m <= kMc + kMc / 2 ? m : kMc;
  std::int64_t nc = kNc;
  const std::int64_t threads = parallel ? static_cast<std::int64_t>(tbb::this_task_arena::max_concurrency()) : 1;
  const std::int64_t want = 2 * threads;
  const auto count = [&] { return ((m + mc - 1) / mc) * ((n + nc - 1) / nc); };
  while (count() < want && (nc > 4 * kGemmNR || mc > 4 * kGemmMR)) {
    if (nc > 4 * kGemmNR && n > nc / 2) {
      nc /= 2;
    } else if (mc > 4 * kGemmMR) {
      mc = (mc / 2 + kGemmMR - 1) / kGemmMR * kGemmMR;
    } else {
      break;
    }
  }
  const BlockSplit split = balanced_split(m, n, (m + mc - 1) / mc, (n + nc - 1) / nc, threads);
  const std::int64_t tasks = split.mb * split.nb;
  auto run = [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t i = t / split.nb, j = t % split.nb;
      block(split.rows_at(i), split.rows_at(i + 1), split.cols_at(j), split.cols_at(j + 1));
    }
  };
  const std::int64_t flops = 2 * m * n * std::max<std::int64_t>(k, 1);
  if (!parallel || flops < (std::int64_t{1} << 18)) {
    run(0, tasks);
  } else {
    parallel_for(tasks, 1, run);
  }
}

}  // namespace

void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, const float* packed_a, const float* packed_b,
                 float* c, std::int64_t ldc, const GemmEpilogue& ep, bool parallel) {
  if (m <= 0 || n <= 0) return;
  for_blocks(m, n, k, parallel, [&](std::int64_t m0, std::int64_t m1, std::int64_t n0, std::int64_t n1) {
    kernels().gemm_block(n, k, m0, m1, n0, n1, packed_a, packed_b, c, ldc, ep);
  });
}

void gemm_rowmajor_a(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                     const float* packed_b, float* c, std::int64_t ldc, const GemmEpilogue& ep, bool parallel) {
  if (m <= 0 || n <= 0) return;
  // Rows a multiple of 4 KiB apart (1024- and 2048-channel pixels) fall in one L1 set, and
  // the 12 a tile reads evict each other (8 ways): packed first, A's panels are contiguous
  // (Zen 4, one thread, a 1x1 conv 1024 -> 1024 over 14x14: 88% of the FMA peak read in
  // place, 1008 -> 1024 98%). Not for a few rows, or a K of one block (A read once).
  if (lda % 1024 == 0 && m >= 2 * kGemmMR && k > kKc && n > 2 * kGemmNR) {
    PooledBuffer pa(packed_a_size(m, k));
    pack_a(m, k, a, lda, false, 1.0f, pa.data());
    gemm_packed(m, n, k, pa.data(), packed_b, c, ldc, ep, parallel);
    return;
  }
  // A in place is a layer's input, C its output: past L2 they come from L3 or memory, and
  // the tiles fetch the next tile's rows (`rowa_ahead`; in L2 that cost 1-2% at batch 1).
  GemmEpilogue e = ep;
  e.fetch_ahead = (m * (k + n) + (ep.residual != nullptr ? m * n : 0)) * std::int64_t{sizeof(float)} > l2_bytes();
  for_blocks(m, n, k, parallel, [&](std::int64_t m0, std::int64_t m1, std::int64_t n0, std::int64_t n1) {
    kernels().gemm_rowa_block(n, k, m0, m1, n0, n1, a, lda, packed_b, c, ldc, e);
  });
}

}  // namespace ge::cpu
