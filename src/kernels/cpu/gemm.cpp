#include "kernels/cpu/gemm.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include <tbb/task_arena.h>

#include "kernels/cpu/amx.hpp"
#include "kernels/cpu/vmath.hpp"

// The 64-byte vector helpers below are internal and always inlined, so their by-value
// vector arguments never cross an ABI boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ge::cpu {
namespace {

// AVX-512 code is built for F + DQ + BW + VL (every AVX-512 CPU since Skylake-X and Zen 4):
// without DQ, GCC turns a compare's mask into a vector select lane by lane.
#define GE_AVX512_ISA "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"

bool avx512_usable() { return isa() == Isa::avx512; }

static_assert(kGemmNR == 16 && kGemmMR == 6, "the micro-kernel below is written for 6x16 tiles");

constexpr std::int64_t kKc = 256;  // K block: a 16-column B panel slice (16 KiB) stays in L1
constexpr std::int64_t kMc = 192;  // rows per output block: the A block (192 KiB) stays in L2
constexpr std::int64_t kNc = 256;  // columns per output block

// The register tile: 6 rows x 16 columns held in 16/V native vectors of V floats per row
// (one zmm, two ymm or four xmm). Written for one ISA per instantiation: each caller below
// carries its own target attribute, so the vector type is lowered natively.
typedef float vf4 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf16 __attribute__((vector_size(64)));
template <int V>
using VecOf = std::conditional_t<V == 4, vf4, std::conditional_t<V == 8, vf8, vf16>>;

// `NU` of the 16 / V vectors per row are computed (fewer at a narrow right edge: the
// tile's other columns are left as they are).
template <int V, int NU = static_cast<int>(kGemmNR) / V>
inline __attribute__((always_inline)) void micro_kernel(std::int64_t kc, const float* a, const float* b,
                                                        float* tile) {
  using vf = VecOf<V>;
  static_assert(sizeof(vf) == V * sizeof(float));
  constexpr int nv = NU;
  vf acc[kGemmMR][nv];
#pragma GCC unroll 8
  for (int r = 0; r < kGemmMR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) acc[r][v] = vf{};
  }
#pragma GCC unroll 4
  for (std::int64_t p = 0; p < kc; ++p) {
    vf bv[nv];
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) std::memcpy(&bv[v], b + p * kGemmNR + v * V, sizeof(vf));
    const float* ap = a + p * kGemmMR;
#pragma GCC unroll 8
    for (int r = 0; r < kGemmMR; ++r) {
      const float av = ap[r];
#pragma GCC unroll 4
      for (int v = 0; v < nv; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kGemmMR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) std::memcpy(tile + r * kGemmNR + v * V, &acc[r][v], sizeof(vf));
  }
}

// The micro-kernel of a tile whose columns past `nr` are not needed: only the vectors
// covering [0, nr) are computed.
template <int V>
inline __attribute__((always_inline)) void micro_kernel_edge(std::int64_t kc, const float* a, const float* b,
                                                             float* tile, std::int64_t nr) {
  if constexpr (V == 8) {
    if (nr <= 8) return micro_kernel<V, 1>(kc, a, b, tile);
  } else if constexpr (V == 4) {
    if (nr <= 4) return micro_kernel<V, 1>(kc, a, b, tile);
    if (nr <= 8) return micro_kernel<V, 2>(kc, a, b, tile);
    if (nr <= 12) return micro_kernel<V, 3>(kc, a, b, tile);
  }
  micro_kernel<V>(kc, a, b, tile);
}

// The last few rows (fewer than MR) of a row-major A against one B panel, read from A's
// rows in place: a GEMV for one row. `R` rows of 16 / V vectors; with one or two rows, K
// is split over 4 / R partial sums so that the FMAs do not wait on each other.
template <int V, int R>
inline __attribute__((always_inline)) void rows_kernel(std::int64_t kc, const float* a, std::int64_t lda, const float* b,
                                                       float* tile) {
  using vf = VecOf<V>;
  constexpr int nv = static_cast<int>(kGemmNR) / V;
  constexpr int U = R >= 4 ? 1 : 4 / R;
  vf acc[U][R][nv];
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < nv; ++v) acc[u][r][v] = vf{};
  std::int64_t p = 0;
  for (; p + U <= kc; p += U) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      vf bv[nv];
#pragma GCC unroll 4
      for (int v = 0; v < nv; ++v) std::memcpy(&bv[v], b + (p + u) * kGemmNR + v * V, sizeof(vf));
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const float av = a[r * lda + p + u];
#pragma GCC unroll 4
        for (int v = 0; v < nv; ++v) acc[u][r][v] += av * bv[v];
      }
    }
  }
  for (; p < kc; ++p) {
    vf bv[nv];
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) std::memcpy(&bv[v], b + p * kGemmNR + v * V, sizeof(vf));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const float av = a[r * lda + p];
#pragma GCC unroll 4
      for (int v = 0; v < nv; ++v) acc[0][r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) {
      vf sum = acc[0][r][v];
#pragma GCC unroll 4
      for (int u = 1; u < U; ++u) sum += acc[u][r][v];
      std::memcpy(tile + r * kGemmNR + v * V, &sum, sizeof(vf));
    }
  }
}

template <int V>
inline __attribute__((always_inline)) void rows_kernel_n(std::int64_t kc, const float* a, std::int64_t lda,
                                                         const float* b, float* tile, std::int64_t rows) {
  switch (rows) {
    case 1: return rows_kernel<V, 1>(kc, a, lda, b, tile);
    case 2: return rows_kernel<V, 2>(kc, a, lda, b, tile);
    case 3: return rows_kernel<V, 3>(kc, a, lda, b, tile);
    case 4: return rows_kernel<V, 4>(kc, a, lda, b, tile);
    default: return rows_kernel<V, 5>(kc, a, lda, b, tile);
  }
}

// Gelu on `rows` rows of `cols` floats at `c` (row stride `ldc`), once a block of the
// output is final and still in L2: the map's vector code (vmath) runs per block row (a
// call per tile row cost more than the map).
inline void gelu_rows(Activation kind, float* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols) {
  if (kind != Activation::gelu && kind != Activation::gelu_tanh) return;
  const vm::Map f = kind == Activation::gelu ? vm::Map::gelu : vm::Map::gelu_tanh;
  for (std::int64_t r = 0; r < rows; ++r) vm::map(f, c + r * ldc, c + r * ldc, cols);
}

// Weights the next tile will stream, fetched into L2 while this one computes: `panels`
// (at most 2) panels `stride` floats apart, `step` floats of each per K step (a packed
// A panel's MR or a B panel's NR). At batch 1 a layer's weights come from memory and
// are used by only a few tiles each: fetched at first use, the loads stall the FMAs; a
// tile ahead, the transfer overlaps the tile before.
struct Ahead {
  const float* at = nullptr;
  std::int64_t stride = 0;
  std::int64_t step = 0;
  int panels = 0;
};

// The micro-kernel of a full tile of MP A panels x NP B panels (MP * MR rows, NP * NR
// columns; 1 x 1 is the plain MR x NR tile) with the store fused: the accumulators get
// C's old value (`load_c`), then on the last K block the epilogue, in registers, and go
// straight to C (`c` points at C[row][col]). A panel p starts at `a + p * a_stride`, B
// panel q at `b + q * b_stride`; with `kRowA` A is not packed: row r at `a + r * a_stride`
// (MLAS-style: no pass over A before the product). AVX-512 runs 2 x 2 (12 x 32: 24 of the 32 zmm registers
// accumulate, two B loads and twelve broadcasts per 24 FMAs); a 6 x 16 tile there keeps
// only 6 accumulators, fewer than the FMA units' latency needs.
template <int V, int MP = 1, int NP = 1, bool kRowA = false>
inline __attribute__((always_inline)) void micro_kernel_store(std::int64_t kc, const float* a, std::int64_t a_stride,
                                                              const float* b, std::int64_t b_stride, float* c,
                                                              std::int64_t ldc, bool load_c, bool last,
                                                              const GemmEpilogue& ep, std::int64_t row,
                                                              std::int64_t col, const Ahead& ahead = {}) {
  using vf = VecOf<V>;
  constexpr int pv = static_cast<int>(kGemmNR) / V;  // vectors per B panel row
  constexpr int nv = NP * pv;
  constexpr int mr = MP * static_cast<int>(kGemmMR);
  vf acc[mr][nv];
#pragma GCC unroll 16
  for (int r = 0; r < mr; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < nv; ++v) acc[r][v] = vf{};
  }
#pragma GCC unroll 2
  for (std::int64_t p = 0; p < kc; ++p) {
    vf bv[nv];
#pragma GCC unroll 8
    for (int v = 0; v < nv; ++v) std::memcpy(&bv[v], b + (v / pv) * b_stride + p * kGemmNR + (v % pv) * V, sizeof(vf));
    if constexpr (!kRowA) {
      // Packed A (conv weights, streamed from L3 or memory once per block of columns):
      // fetch a few cache lines ahead of the broadcasts.
#pragma GCC unroll 2
      for (int q = 0; q < MP; ++q) __builtin_prefetch(a + q * a_stride + (p + 48) * kGemmMR);
    }
    if (ahead.at != nullptr) {
#pragma GCC unroll 2
      for (int q = 0; q < 2; ++q)
        if (q < ahead.panels) __builtin_prefetch(ahead.at + q * ahead.stride + p * ahead.step, 0, 2);
    }
#pragma GCC unroll 16
    for (int r = 0; r < mr; ++r) {
      const float av = kRowA ? a[r * a_stride + p] : a[(r / kGemmMR) * a_stride + p * kGemmMR + r % kGemmMR];
#pragma GCC unroll 8
      for (int v = 0; v < nv; ++v) acc[r][v] += av * bv[v];
    }
  }
  if (load_c) {
#pragma GCC unroll 16
    for (int r = 0; r < mr; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < nv; ++v) {
        vf o;
        std::memcpy(&o, c + r * ldc + v * V, sizeof(vf));
        acc[r][v] += o;
      }
    }
  }
  if (last) {
    if (ep.bias_m != nullptr) {
#pragma GCC unroll 16
      for (int r = 0; r < mr; ++r) {
        const float bm = ep.bias_m[row + r];
#pragma GCC unroll 8
        for (int v = 0; v < nv; ++v) acc[r][v] += bm;
      }
    }
    if (ep.bias_n != nullptr) {
#pragma GCC unroll 8
      for (int v = 0; v < nv; ++v) {
        vf bn;
        std::memcpy(&bn, ep.bias_n + col + v * V, sizeof(vf));
#pragma GCC unroll 16
        for (int r = 0; r < mr; ++r) acc[r][v] += bn;
      }
    }
    if (ep.residual != nullptr) {
#pragma GCC unroll 16
      for (int r = 0; r < mr; ++r) {
        const float* rs = ep.residual + (row + r) * ep.ld_residual + col;
#pragma GCC unroll 8
        for (int v = 0; v < nv; ++v) {
          vf o;
          std::memcpy(&o, rs + v * V, sizeof(vf));
          acc[r][v] += o;
        }
      }
    }
    if (ep.post.kind == Activation::relu) {
      const vf zero{};
#pragma GCC unroll 16
      for (int r = 0; r < mr; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < nv; ++v) acc[r][v] = acc[r][v] > zero ? acc[r][v] : zero;
      }
    } else if (ep.post.kind == Activation::clip) {
      const vf lo = vf{} + ep.post.lo, hi = vf{} + ep.post.hi;
#pragma GCC unroll 16
      for (int r = 0; r < mr; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < nv; ++v) {
          const vf t = acc[r][v] < lo ? lo : acc[r][v];  // min(max(v, lo), hi), as ONNX Clip
          acc[r][v] = t > hi ? hi : t;
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < mr; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < nv; ++v) std::memcpy(c + r * ldc + v * V, &acc[r][v], sizeof(vf));
  }
}

// Finishes `nr` (a compile-time 16, or fewer at the right edge) columns of one tile row:
// adds C's old value, then on the last K block the epilogue, and stores.
template <class Width>
inline __attribute__((always_inline)) void finish_row(float* __restrict t, float* __restrict crow, Width nr,
                                                      bool load_c, bool last, const GemmEpilogue& ep,
                                                      std::int64_t row, std::int64_t col) {
  if (load_c) {
    for (std::int64_t j = 0; j < nr; ++j) t[j] += crow[j];
  }
  if (last) {
    if (ep.bias_m != nullptr) {
      const float bm = ep.bias_m[row];
      for (std::int64_t j = 0; j < nr; ++j) t[j] += bm;
    }
    if (ep.bias_n != nullptr) {
      const float* __restrict bn = ep.bias_n + col;
      for (std::int64_t j = 0; j < nr; ++j) t[j] += bn[j];
    }
    if (ep.residual != nullptr) {
      const float* __restrict rs = ep.residual + row * ep.ld_residual + col;
      for (std::int64_t j = 0; j < nr; ++j) t[j] += rs[j];
    }
    if (ep.post.kind == Activation::relu) {
      for (std::int64_t j = 0; j < nr; ++j) t[j] = t[j] > 0.0f ? t[j] : 0.0f;
    } else if (ep.post.kind == Activation::clip) {
      const float lo = ep.post.lo, hi = ep.post.hi;
      for (std::int64_t j = 0; j < nr; ++j) {
        const float v = t[j] < lo ? lo : t[j];  // min(max(v, lo), hi), as ONNX Clip
        t[j] = v > hi ? hi : v;
      }
    }
  }
  for (std::int64_t j = 0; j < nr; ++j) crow[j] = t[j];
}

// One output block [m0, m1) x [n0, n1) (m0 a multiple of MR, n0 of NR) over all of K. A
// is packed (`a` holds MR-row panels) or, with `kRowA`, row-major with row stride `lda`,
// read in place: then an edge tile (fewer than MR rows or NR columns) packs its MR x kc
// slice of A first for the edge kernel.
template <int V, bool kRowA>
inline __attribute__((always_inline)) void gemm_block_impl(std::int64_t m, std::int64_t n, std::int64_t k,
                                                           std::int64_t m0, std::int64_t m1, std::int64_t n0,
                                                           std::int64_t n1, const float* a, std::int64_t lda,
                                                           const float* pb, float* c, std::int64_t ldc,
                                                           const GemmEpilogue& ep) {
  alignas(64) float tile[kGemmMR * kGemmNR];
  alignas(64) float ragged_tile[V == 16 ? 4 * kGemmMR * kGemmNR : 1];
  alignas(64) float slice[kRowA ? kGemmMR * kKc : 1];
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
      const std::int64_t mr = std::min(kGemmMR, m - i);
      if (mr == kGemmMR && nr == kGemmNR) {
        micro_kernel_store<V, 1, 1, kRowA>(kc, a_at(i), a_stride, bp, 0, c + i * ldc + j, ldc, load_c, last, ep, i, j,
                                           ahead);
        return;
      }
      const float* ap = a_at(i);
      if constexpr (kRowA) {
        if (mr < kGemmMR) {
          rows_kernel_n<V>(kc, ap, lda, bp, tile, mr);  // A's last rows in place (M = 1: a GEMV)
        } else {
          for (std::int64_t p = 0; p < kc; ++p)
            for (std::int64_t r = 0; r < kGemmMR; ++r) slice[p * kGemmMR + r] = ap[r * lda + p];
          micro_kernel_edge<V>(kc, slice, bp, tile, nr);
        }
      } else {
        micro_kernel_edge<V>(kc, ap, bp, tile, nr);
      }
      for (std::int64_t r = 0; r < mr; ++r) {
        float* crow = c + (i + r) * ldc + j;
        if (nr == kGemmNR) {
          finish_row(tile + r * kGemmNR, crow, std::integral_constant<std::int64_t, kGemmNR>{}, load_c, last, ep,
                     i + r, j);
        } else {
          finish_row(tile + r * kGemmNR, crow, nr, load_c, last, ep, i + r, j);
        }
      }
    };
    for (std::int64_t j = n0; j < n1;) {
      const bool wide = V == 16 && j + 2 * kGemmNR <= n1;
      // 17 to 31 columns left (N = 24: MobileNet's projections): 12 x 32 tiles too, into
      // `ragged` (B's panels are zero-padded), finished column-exact.
      const bool ragged = V == 16 && !wide && j + kGemmNR < n1;
      // With A in place, B holds the weights (a MatMul's or a pixel-major conv's): the
      // first tile of these columns fetches the next B panels (the next K block's first
      // at the end).
      const std::int64_t jn = j + (wide || ragged ? 2 : 1) * kGemmNR;
      Ahead next_b;
      if (kRowA && (jn < n1 || k0 + kc < k)) {
        const std::int64_t jj = jn < n1 ? jn : n0, kk = jn < n1 ? k0 : k0 + kc;
        next_b = {pb + (jj / kGemmNR) * k * kGemmNR + kk * kGemmNR, k * kGemmNR, kGemmNR,
                  n1 - jj > kGemmNR ? 2 : 1};
      }
      for (std::int64_t i = m0; i < m1;) {
        const float* bp = pb + (j / kGemmNR) * k * kGemmNR + k0 * kGemmNR;
        const Ahead ahead = i == m0 ? next_b : Ahead{};
        if (wide && i + 2 * kGemmMR <= m1) {
          micro_kernel_store<V, 2, 2, kRowA>(kc, a_at(i), a_stride, bp, k * kGemmNR, c + i * ldc + j, ldc, load_c, last,
                                             ep, i, j, ahead);
          i += 2 * kGemmMR;
          continue;
        }
        if (ragged && i + 2 * kGemmMR <= m1) {
          micro_kernel_store<V, 2, 2, kRowA>(kc, a_at(i), a_stride, bp, k * kGemmNR, ragged_tile, 2 * kGemmNR, false,
                                             false, ep, i, j, ahead);
          for (std::int64_t r = 0; r < 2 * kGemmMR; ++r) {
            float* crow = c + (i + r) * ldc + j;
            finish_row(ragged_tile + r * 2 * kGemmNR, crow, std::integral_constant<std::int64_t, kGemmNR>{}, load_c,
                       last, ep, i + r, j);
            finish_row(ragged_tile + r * 2 * kGemmNR + kGemmNR, crow + kGemmNR, n1 - j - kGemmNR, load_c, last, ep,
                       i + r, j + kGemmNR);
          }
          i += 2 * kGemmMR;
          continue;
        }
        one_tile(i, j, ahead);
        if (wide || ragged) one_tile(i, j + kGemmNR, Ahead{});
        i += kGemmMR;
      }
      j += wide || ragged ? 2 * kGemmNR : kGemmNR;
    }
    k0 += kc;
  } while (k0 < k);
  gelu_rows(ep.post.kind, c + m0 * ldc + n0, ldc, m1 - m0, n1 - n0);
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
      finish_row(tile + r * kGemmNR, c + (i + r) * ldc + col, nr, load_c, last, ep, i + r, col);
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
  if (last) gelu_rows(ep.post.kind, c + m0 * ldc + col0, ldc, m1 - m0, n);
}

using KBlockFn = void (*)(std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                          const float*, const float*, std::int64_t, std::int64_t, float*, std::int64_t,
                          std::int64_t, const GemmEpilogue&, bool, bool);

#define GE_GEMM_KBLOCK_ARGS                                                                                      \
  std::int64_t m, std::int64_t m0, std::int64_t m1, std::int64_t k, std::int64_t k0, std::int64_t kc,           \
      const float *pa, const float *bblock, std::int64_t bstride, std::int64_t n, float *c, std::int64_t ldc,    \
      std::int64_t col0, const GemmEpilogue &ep, bool first, bool last
#define GE_GEMM_KBLOCK_CALL(V) \
  gemm_kblock_impl<V>(m, m0, m1, k, k0, kc, pa, bblock, bstride, n, c, ldc, col0, ep, first, last)

void gemm_kblock_base(GE_GEMM_KBLOCK_ARGS) { GE_GEMM_KBLOCK_CALL(4); }

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) void gemm_kblock_avx2(GE_GEMM_KBLOCK_ARGS) { GE_GEMM_KBLOCK_CALL(8); }
__attribute__((target(GE_AVX512_ISA))) void gemm_kblock_avx512(GE_GEMM_KBLOCK_ARGS) {
  GE_GEMM_KBLOCK_CALL(16);
}
#endif

KBlockFn pick_kblock() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (avx512_usable()) return gemm_kblock_avx512;
  if (isa() >= Isa::avx2) return gemm_kblock_avx2;
#endif
  return gemm_kblock_base;
}

const KBlockFn gemm_kblock_fn = pick_kblock();

using BlockFn = void (*)(std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                         std::int64_t, const float*, const float*, float*, std::int64_t, const GemmEpilogue&);

#define GE_GEMM_BLOCK_ARGS                                                                                        \
  std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t m0, std::int64_t m1, std::int64_t n0,              \
      std::int64_t n1, const float *pa, const float *pb, float *c, std::int64_t ldc, const GemmEpilogue &ep
#define GE_GEMM_BLOCK_CALL(V) gemm_block_impl<V, false>(m, n, k, m0, m1, n0, n1, pa, 0, pb, c, ldc, ep)

void gemm_block_base(GE_GEMM_BLOCK_ARGS) { GE_GEMM_BLOCK_CALL(4); }

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) void gemm_block_avx2(GE_GEMM_BLOCK_ARGS) { GE_GEMM_BLOCK_CALL(8); }
__attribute__((target(GE_AVX512_ISA))) void gemm_block_avx512(GE_GEMM_BLOCK_ARGS) { GE_GEMM_BLOCK_CALL(16); }
#endif

using RowABlockFn = void (*)(std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                             std::int64_t, const float*, std::int64_t, const float*, float*, std::int64_t,
                             const GemmEpilogue&);

#define GE_GEMM_ROWA_ARGS                                                                                         \
  std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t m0, std::int64_t m1, std::int64_t n0,              \
      std::int64_t n1, const float *a, std::int64_t lda, const float *pb, float *c, std::int64_t ldc,             \
      const GemmEpilogue &ep
#define GE_GEMM_ROWA_CALL(V) gemm_block_impl<V, true>(m, n, k, m0, m1, n0, n1, a, lda, pb, c, ldc, ep)

void gemm_rowa_base(GE_GEMM_ROWA_ARGS) { GE_GEMM_ROWA_CALL(4); }

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) void gemm_rowa_avx2(GE_GEMM_ROWA_ARGS) { GE_GEMM_ROWA_CALL(8); }
__attribute__((target(GE_AVX512_ISA))) void gemm_rowa_avx512(GE_GEMM_ROWA_ARGS) { GE_GEMM_ROWA_CALL(16); }
#endif

RowABlockFn pick_rowa() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (avx512_usable()) return gemm_rowa_avx512;
  if (isa() >= Isa::avx2) return gemm_rowa_avx2;
#endif
  return gemm_rowa_base;
}

const RowABlockFn gemm_rowa_block = pick_rowa();

// The widest block kernel this CPU runs, chosen once.
BlockFn pick_block() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (avx512_usable()) return gemm_block_avx512;
  if (isa() >= Isa::avx2) return gemm_block_avx2;
#endif
  return gemm_block_base;
}

const BlockFn gemm_block = pick_block();

}  // namespace

void gemm_packed_kblock(std::int64_t m, std::int64_t m0, std::int64_t m1, std::int64_t k, std::int64_t k0,
                        std::int64_t kc, const float* packed_a, const float* b_block, std::int64_t b_panel_stride,
                        std::int64_t n, float* c, std::int64_t ldc, std::int64_t col0, const GemmEpilogue& ep,
                        bool first, bool last) {
  if (m1 <= m0 || n <= 0) return;
  gemm_kblock_fn(m, m0, m1, k, k0, kc, packed_a, b_block, b_panel_stride, n, c, ldc, col0, ep, first, last);
}

void pack_a(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, bool trans, float alpha, float* dst) {
  const std::int64_t panels = (m + kGemmMR - 1) / kGemmMR;
  parallel_for(panels, grain_for(k * kGemmMR), [&](std::int64_t pb, std::int64_t pe) {
    for (std::int64_t p = pb; p < pe; ++p) {
      float* d = dst + p * k * kGemmMR;
      const std::int64_t i0 = p * kGemmMR;
      const std::int64_t rows = std::min(kGemmMR, m - i0);
      if (!trans) {
        for (std::int64_t r = 0; r < kGemmMR; ++r) {
          if (r < rows) {
            const float* src = a + (i0 + r) * lda;
            for (std::int64_t q = 0; q < k; ++q) d[q * kGemmMR + r] = alpha * src[q];
          } else {
            for (std::int64_t q = 0; q < k; ++q) d[q * kGemmMR + r] = 0.0f;
          }
        }
      } else {
        for (std::int64_t q = 0; q < k; ++q) {
          const float* src = a + q * lda + i0;
          for (std::int64_t r = 0; r < kGemmMR; ++r) d[q * kGemmMR + r] = r < rows ? alpha * src[r] : 0.0f;
        }
      }
    }
  });
}

void pack_b(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans, float* dst) {
  const std::int64_t panels = (n + kGemmNR - 1) / kGemmNR;
  // Tasks take groups of panels; without transposition each row of B is read as one
  // contiguous run across the group (a panel-at-a-time walk would stride by ldb).
  constexpr std::int64_t kGroup = 8;
  const std::int64_t groups = (panels + kGroup - 1) / kGroup;
  parallel_for(groups, grain_for(k * kGemmNR * kGroup), [&](std::int64_t gb, std::int64_t ge) {
    for (std::int64_t g = gb; g < ge; ++g) {
      const std::int64_t p0 = g * kGroup;
      const std::int64_t p1 = std::min(panels, p0 + kGroup);
      if (!trans) {
        for (std::int64_t q = 0; q < k; ++q) {
          const float* src = b + q * ldb;
          for (std::int64_t p = p0; p < p1; ++p) {
            float* dq = dst + (p * k + q) * kGemmNR;
            const std::int64_t j0 = p * kGemmNR;
            const std::int64_t cols = std::min(kGemmNR, n - j0);
            if (cols == kGemmNR) {
              std::memcpy(dq, src + j0, sizeof(float) * kGemmNR);
            } else {
              for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = l < cols ? src[j0 + l] : 0.0f;
            }
          }
        }
        continue;
      }
      // Transposed: 16 x 16 blocks through a small tile, so that each write fills one
      // panel row (a cache line) instead of one float of 16 of them.
      for (std::int64_t p = p0; p < p1; ++p) {
        float* d = dst + p * k * kGemmNR;
        const std::int64_t j0 = p * kGemmNR;
        const std::int64_t cols = std::min(kGemmNR, n - j0);
        float tile[16][kGemmNR];
        for (std::int64_t q0 = 0; q0 < k; q0 += 16) {
          const std::int64_t qn = std::min<std::int64_t>(16, k - q0);
          for (std::int64_t l = 0; l < kGemmNR; ++l) {
            if (l >= cols) {
              for (std::int64_t q = 0; q < qn; ++q) tile[q][l] = 0.0f;
              continue;
            }
            const float* src = b + (j0 + l) * ldb + q0;
            for (std::int64_t q = 0; q < qn; ++q) tile[q][l] = src[q];
          }
          std::memcpy(d + q0 * kGemmNR, tile, sizeof(float) * static_cast<std::size_t>(qn * kGemmNR));
        }
      }
    }
  });
}

namespace {

// Splits the m x n output into blocks (whole MR/NR multiples; M up to 1.5 kMc stays one
// block; blocks shrink until every thread of the arena gets about two) and runs
// `block(m0, m1, n0, n1)` over them, in parallel unless the product is small.
template <class Block>
void for_blocks(std::int64_t m, std::int64_t n, std::int64_t k, bool parallel, const Block& block) {
  std::int64_t mc = m <= kMc + kMc / 2 ? m : kMc;
  std::int64_t nc = kNc;
  const std::int64_t want = parallel ? 2 * static_cast<std::int64_t>(tbb::this_task_arena::max_concurrency()) : 1;
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
  // Equal shares: with few tasks, a count that is no multiple of the threads leaves one
  // idle at the end (5 blocks of 256 columns on 2 threads: 3 + 2). Round the column
  // blocks up to make it one, their widths equal to the panel.
  const std::int64_t threads = parallel ? static_cast<std::int64_t>(tbb::this_task_arena::max_concurrency()) : 1;
  const std::int64_t mblocks = (m + mc - 1) / mc;
  if (threads > 1 && mblocks * ((n + nc - 1) / nc) < 4 * threads) {
    std::int64_t nb = (n + nc - 1) / nc;
    while ((mblocks * nb) % threads != 0 && nb < (n + kGemmNR - 1) / kGemmNR) ++nb;
    if ((mblocks * nb) % threads == 0) nc = ((n + nb - 1) / nb + kGemmNR - 1) / kGemmNR * kGemmNR;
  }
  const std::int64_t nblocks = (n + nc - 1) / nc;
  const std::int64_t tasks = mblocks * nblocks;
  auto run = [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t m0 = t / nblocks * mc;
      const std::int64_t n0 = t % nblocks * nc;
      block(m0, std::min(m, m0 + mc), n0, std::min(n, n0 + nc));
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
    gemm_block(m, n, k, m0, m1, n0, n1, packed_a, packed_b, c, ldc, ep);
  });
}

void gemm_rowmajor_a(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                     const float* packed_b, float* c, std::int64_t ldc, const GemmEpilogue& ep, bool parallel) {
  if (m <= 0 || n <= 0) return;
  for_blocks(m, n, k, parallel, [&](std::int64_t m0, std::int64_t m1, std::int64_t n0, std::int64_t n1) {
    gemm_rowa_block(m, n, k, m0, m1, n0, n1, a, lda, packed_b, c, ldc, ep);
  });
}

void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda, bool trans_a,
           const float* b, std::int64_t ldb, bool trans_b, float* c, std::int64_t ldc, const GemmEpilogue& ep,
           bool parallel) {
  if (m <= 0 || n <= 0) return;
  Scratch pa(packed_a_size(m, k));
  Scratch pb(packed_b_size(k, n));
  pack_a(m, k, a, lda, trans_a, alpha, pa.data());
  pack_b(k, n, b, ldb, trans_b, pb.data());
  gemm_packed(m, n, k, pa.data(), pb.data(), c, ldc, ep, parallel);
}

PackedMatMulB pack_matmul_b(const TensorView& b, bool bf16, bool trans) {
  check_dtype("MatMul", "B", b, DataType::f32);
  check_rank("MatMul", "B", b, 2);
  const std::int64_t k = trans ? b.dims[1] : b.dims[0], n = trans ? b.dims[0] : b.dims[1];
  if (bf16 && amx_bf16_usable()) {
    PackedMatMulB out{k, n, true, Scratch((bf16_packed_b_size(k, n) + 1) / 2)};
    pack_b_bf16(k, n, b.as<const float>(), b.dims[1], trans, reinterpret_cast<std::uint16_t*>(out.panels.data()));
    return out;
  }
  PackedMatMulB out{k, n, false, Scratch(packed_b_size(k, n))};
  pack_b(out.k, out.n, b.as<const float>(), b.dims[1], trans, out.panels.data());
  return out;
}

namespace {

void check_f32(std::string_view op, const TensorView& a, const TensorView& b, const TensorView& y) {
  check_dtype(op, "A", a, DataType::f32);
  check_dtype(op, "B", b, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_data(op, "A", a);
  check_data(op, "B", b);
}

}  // namespace

void matmul(const TensorView& a, const TensorView& b, const TensorView& y) {
  check_f32("MatMul", a, b, y);
  if (a.rank() == 0 || b.rank() == 0) {
    fail(Errc::bad_op_inputs, "MatMul", "A " + dims_text(a.dims) + " and B " + dims_text(b.dims) +
                                            " must both have rank >= 1");
  }
  const bool a_vec = a.rank() == 1;
  const bool b_vec = b.rank() == 1;
  const std::int64_t m = a_vec ? 1 : a.dims[a.rank() - 2];
  const std::int64_t k = a.dims[a.rank() - 1];
  const std::int64_t kb = b_vec ? b.dims[0] : b.dims[b.rank() - 2];
  const std::int64_t n = b_vec ? 1 : b.dims[b.rank() - 1];
  if (k != kb) {
    fail(Errc::bad_op_inputs, "MatMul", "inner dims differ: A " + dims_text(a.dims) + " and B " + dims_text(b.dims));
  }
  const Dims a_batch = a_vec ? Dims{} : a.dims.first(a.rank() - 2);
  const Dims b_batch = b_vec ? Dims{} : b.dims.first(b.rank() - 2);
  const std::size_t batch_rank = std::max(a_batch.size(), b_batch.size());
  std::vector<std::int64_t> batch(batch_rank, 1);
  for (std::size_t i = 0; i < batch_rank; ++i) {
    const std::int64_t da = i + a_batch.size() >= batch_rank ? a_batch[i + a_batch.size() - batch_rank] : 1;
    const std::int64_t db = i + b_batch.size() >= batch_rank ? b_batch[i + b_batch.size() - batch_rank] : 1;
    if (da != db && da != 1 && db != 1) {
      fail(Errc::incompatible_shapes, "MatMul",
           "batch dims of A " + dims_text(a.dims) + " and B " + dims_text(b.dims) + " do not broadcast");
    }
    batch[i] = da == 1 ? db : da;
  }
  std::vector<std::int64_t> expect = batch;
  if (!a_vec) expect.push_back(m);
  if (!b_vec) expect.push_back(n);
  check_dims("MatMul", "Y", y, expect);

  const float* pa = a.as<const float>();
  const float* pb = b.as<const float>();
  float* py = y.as<float>();
  const std::int64_t nbatch = product(batch, 0, batch.size());
  if (nbatch == 0 || m == 0 || n == 0) return;
  const GemmEpilogue ep{};
  if (product(b_batch, 0, b_batch.size()) == 1 && !a_vec) {
    // B is one matrix: fold A's batch into its rows.
    sgemm(product(a_batch, 0, a_batch.size()) * m, n, k, 1.0f, pa, k, false, pb, n, false, py, n, ep);
    return;
  }
  const std::vector<std::int64_t> sa = broadcast_strides("MatMul", "A", a_batch, batch);
  const std::vector<std::int64_t> sb = broadcast_strides("MatMul", "B", b_batch, batch);
  const auto run_one = [&](std::int64_t t, bool parallel) {
    std::int64_t oa = 0, ob = 0, r = t;
    for (std::size_t d = batch_rank; d-- > 0;) {
      const std::int64_t i = r % batch[d];
      r /= batch[d];
      oa += i * sa[d];
      ob += i * sb[d];
    }
    sgemm(m, n, k, 1.0f, pa + oa * m * k, k, false, pb + ob * k * n, n, false, py + t * m * n, n, ep, parallel);
  };
  if (2 * m * n * k < (std::int64_t{1} << 22)) {
    parallel_for(nbatch, grain_for(m * n * k, 1 << 18), [&](std::int64_t tb, std::int64_t te) {
      for (std::int64_t t = tb; t < te; ++t) run_one(t, false);
    });
  } else {
    for (std::int64_t t = 0; t < nbatch; ++t) run_one(t, true);
  }
}

void matmul(const TensorView& a, const PackedMatMulB& b, const TensorView& y, const GemmEpilogue& ep) {
  check_dtype("MatMul", "A", a, DataType::f32);
  check_dtype("MatMul", "Y", y, DataType::f32);
  check_data("MatMul", "A", a);
  if (a.rank() == 0 || a.dims[a.rank() - 1] != b.k) {
    fail(Errc::bad_op_inputs, "MatMul",
         "A " + dims_text(a.dims) + " does not end in K = " + std::to_string(b.k) + " of the packed B");
  }
  std::vector<std::int64_t> expect(a.dims.begin(), a.dims.end() - 1);
  expect.push_back(b.n);
  check_dims("MatMul", "Y", y, expect);
  const std::int64_t m = product(a.dims, 0, a.rank() - 1);
  if (m == 0 || b.n == 0) return;
  if (b.bf16) {
    matmul_bf16(m, b.n, b.k, a.as<const float>(), b.k, reinterpret_cast<const std::uint16_t*>(b.panels.data()),
                y.as<float>(), b.n, ep);
    return;
  }
  gemm_rowmajor_a(m, b.n, b.k, a.as<const float>(), b.k, b.panels.data(), y.as<float>(), b.n, ep);
}

void gemm(const GemmParams& p, const TensorView& a, const TensorView& b, const TensorView* c, const TensorView& y) {
  check_f32("Gemm", a, b, y);
  check_rank("Gemm", "A", a, 2);
  check_rank("Gemm", "B", b, 2);
  const std::int64_t m = p.trans_a ? a.dims[1] : a.dims[0];
  const std::int64_t k = p.trans_a ? a.dims[0] : a.dims[1];
  const std::int64_t kb = p.trans_b ? b.dims[1] : b.dims[0];
  const std::int64_t n = p.trans_b ? b.dims[0] : b.dims[1];
  if (k != kb) {
    fail(Errc::bad_op_inputs, "Gemm",
         "inner dims differ: A " + dims_text(a.dims) + (p.trans_a ? " (transposed)" : "") + " and B " +
             dims_text(b.dims) + (p.trans_b ? " (transposed)" : ""));
  }
  const std::int64_t out[2] = {m, n};
  check_dims("Gemm", "Y", y, out);
  float* py = y.as<float>();
  GemmEpilogue ep{};
  if (c != nullptr && c->dtype != DataType::undefined && p.beta != 0.0f) {
    check_dtype("Gemm", "C", *c, DataType::f32);
    check_data("Gemm", "C", *c);
    const std::vector<std::int64_t> sc = broadcast_strides("Gemm", "C", c->dims, out);
    const float* pc = c->as<const float>();
    if (p.beta == 1.0f && sc[0] == 0 && sc[1] == 1) {
      ep.bias_n = pc;  // C is [N] or [1, N]: a column bias
    } else if (p.beta == 1.0f && sc[0] == 1 && sc[1] == 0) {
      ep.bias_m = pc;  // C is [M, 1]: a row bias
    }
    if (ep.bias_n == nullptr && ep.bias_m == nullptr) {
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) py[i * n + j] = p.beta * pc[i * sc[0] + j * sc[1]];
      }
      ep.accumulate = true;
    }
  }
  if (m == 0 || n == 0) return;
  sgemm(m, n, k, p.alpha, a.as<const float>(), a.dims[1], p.trans_a, b.as<const float>(), b.dims[1], p.trans_b, py, n,
        ep);
}

}  // namespace ge::cpu
