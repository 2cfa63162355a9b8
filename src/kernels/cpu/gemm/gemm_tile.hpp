#pragma once
// Internal to the f32 GEMM (gemm_block.cpp): the register tiles. Each function is always
// inlined into a block kernel compiled for one ISA (baseline, AVX2 or AVX-512), so the
// vector type of an instantiation is lowered natively there.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

// The 64-byte vector helpers below are internal and always inlined, so their by-value
// vector arguments never cross an ABI boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ge::cpu::gemm_tile {

static_assert(kGemmNR == 16 && kGemmMR == 6, "the micro-kernel below is written for 6x16 tiles");

// The register tile: 6 rows x 16 columns held in 16/V native vectors of V floats per row
// (one zmm, two ymm or four xmm). Written for one ISA per instantiation: each block kernel
// of gemm_block.cpp carries its own target attribute, so the vector type is lowered natively.
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

// The last few rows (`R` < MR) of A against `NP` B panels (`bstride` apart) at once, into
// `tile` (rows of 4 * NR floats): each element's products summed in K order as the full
// tiles sum them, the R * NP * 16 / V independent sums keeping the FMA units busy (one
// row against one panel alone would wait on its own latency). Row r's K element p at
// `a[r * lda + p * AS]`: AS 1 for a row-major A, MR within a packed A panel (lda 1).
template <int V, int R, int NP, int AS>
inline __attribute__((always_inline)) void rows_panels(std::int64_t kc, const float* a, std::int64_t lda,
                                                       const float* b, std::int64_t bstride, float* tile) {
  using vf = VecOf<V>;
  constexpr int pv = static_cast<int>(kGemmNR) / V;
  constexpr int nv = NP * pv;
  vf acc[R][nv];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
    for (int v = 0; v < nv; ++v) acc[r][v] = vf{};
#pragma GCC unroll 2
  for (std::int64_t p = 0; p < kc; ++p) {
    vf bv[nv];
#pragma GCC unroll 16
    for (int v = 0; v < nv; ++v) std::memcpy(&bv[v], b + (v / pv) * bstride + p * kGemmNR + (v % pv) * V, sizeof(vf));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const float av = a[r * lda + p * AS];
#pragma GCC unroll 16
      for (int v = 0; v < nv; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
    for (int v = 0; v < nv; ++v) std::memcpy(tile + r * 4 * kGemmNR + v * V, &acc[r][v], sizeof(vf));
}

// The most B panels (4, 2 or 1) that `rows` rows take at once with their accumulators and
// the B vectors in registers (32 with AVX-512, 16 else): with AVX2 five rows of four
// panels were 40 accumulators, 26 of them on the stack.
template <int V>
constexpr int edge_panels(std::int64_t rows) {
  constexpr std::int64_t regs = V == 16 ? 32 : 16, pv = kGemmNR / V;
  return (rows + 1) * 4 * pv + 1 <= regs ? 4 : (rows + 1) * 2 * pv + 1 <= regs ? 2 : 1;
}

template <int V, int R, int AS>
inline __attribute__((always_inline)) void rows_panels_np(std::int64_t kc, const float* a, std::int64_t lda,
                                                          const float* b, std::int64_t bstride, float* tile, int np) {
  constexpr int most = edge_panels<V>(R);  // (np is at most this: wider panels are not compiled)
  if (np == 1 || most == 1) return rows_panels<V, R, 1, AS>(kc, a, lda, b, bstride, tile);
  if constexpr (most >= 2)
    if (np == 2 || most == 2) return rows_panels<V, R, 2, AS>(kc, a, lda, b, bstride, tile);
  if constexpr (most >= 4) return rows_panels<V, R, 4, AS>(kc, a, lda, b, bstride, tile);
}

// `rows` (< MR) rows against `np` (1, 2 or 4) panels.
template <int V, int AS>
inline __attribute__((always_inline)) void rows_panels_n(std::int64_t kc, const float* a, std::int64_t lda,
                                                         const float* b, std::int64_t bstride, float* tile,
                                                         std::int64_t rows, int np) {
  switch (rows) {
    case 1: return rows_panels_np<V, 1, AS>(kc, a, lda, b, bstride, tile, np);
    case 2: return rows_panels_np<V, 2, AS>(kc, a, lda, b, bstride, tile, np);
    case 3: return rows_panels_np<V, 3, AS>(kc, a, lda, b, bstride, tile, np);
    case 4: return rows_panels_np<V, 4, AS>(kc, a, lda, b, bstride, tile, np);
    default: return rows_panels_np<V, 5, AS>(kc, a, lda, b, bstride, tile, np);
  }
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
  // The next tile's output rows (fetched for writing) and residual rows, two cache lines
  // (32 columns) of one row each a K step, `rows` rows; null where there are none.
  float* c_at = nullptr;
  const float* r_at = nullptr;
  std::int64_t c_ld = 0, r_ld = 0;
  std::int64_t rows = 0;
};

// The epilogue on a tile's accumulators (the last K block): bias per row or per column,
// the residual, then ReLU or Clip; the other activations run over the finished rows.
template <int V, int MR, int NV>
inline __attribute__((always_inline)) void tile_epilogue(VecOf<V> (&acc)[MR][NV], const GemmEpilogue& ep,
                                                         std::int64_t row, std::int64_t col) {
  using vf = VecOf<V>;
  constexpr int mr = MR, nv = NV;
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
  // A in place: row r read through the pointer of its group of three (rows 3q, 3q + 1,
  // 3q + 2 at that pointer plus 0, 1 and 2 row strides, a scaled index), the pointers
  // stepped along K. With a pointer per row, 12 rows' pointers do not fit the general
  // registers: they were reloaded from the stack and from vector registers (a port the
  // FMAs need) at every K step.
  constexpr int groups = (mr + 2) / 3;
  const float* arow[groups];
#pragma GCC unroll 8
  for (int q = 0; q < groups; ++q) arow[q] = a + (kRowA ? 3 * q * a_stride : 0);
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
    if (p < ahead.rows) {
      if (ahead.c_at != nullptr) {
        __builtin_prefetch(ahead.c_at + p * ahead.c_ld, 1, 3);
        __builtin_prefetch(ahead.c_at + p * ahead.c_ld + 16, 1, 3);
      }
      if (ahead.r_at != nullptr) {
        __builtin_prefetch(ahead.r_at + p * ahead.r_ld, 0, 3);
        __builtin_prefetch(ahead.r_at + p * ahead.r_ld + 16, 0, 3);
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < mr; ++r) {
      const float av = kRowA ? arow[r / 3][(r % 3) * a_stride] : a[(r / kGemmMR) * a_stride + p * kGemmMR + r % kGemmMR];
#pragma GCC unroll 8
      for (int v = 0; v < nv; ++v) acc[r][v] += av * bv[v];
    }
    if constexpr (kRowA) {
#pragma GCC unroll 8
      for (int q = 0; q < groups; ++q) ++arow[q];
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
  if (last) tile_epilogue<V, mr, nv>(acc, ep, row, col);
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

// `finish_row` of a compile-time width, on one vector of that many floats: the element
// loop above is not vectorised where the activation is a clip (ReLU6), whose selects GCC
// left as a compare and a move per float (MobileNetV2's 8 -> 24 1x1 conv over 112 x 112,
// its last 8 columns and its 12-row tiles through this: 0.23 ms, 3x a conv to 32 columns).
template <std::int64_t W>
inline __attribute__((always_inline)) void finish_row(float* __restrict t, float* __restrict crow,
                                                      std::integral_constant<std::int64_t, W>, bool load_c, bool last,
                                                      const GemmEpilogue& ep, std::int64_t row, std::int64_t col) {
  // (fixed typedefs: a vector_size typedef that depends on W is silently dropped, vec.hpp)
  using vw = std::conditional_t<W == 16, vf16, std::conditional_t<W == 8, vf8, vf4>>;
  static_assert(sizeof(vw) == W * sizeof(float));
  vw v, o;
  std::memcpy(&v, t, sizeof v);
  if (load_c) {
    std::memcpy(&o, crow, sizeof o);
    v += o;
  }
  if (last) {
    if (ep.bias_m != nullptr) v += ep.bias_m[row];
    if (ep.bias_n != nullptr) {
      std::memcpy(&o, ep.bias_n + col, sizeof o);
      v += o;
    }
    if (ep.residual != nullptr) {
      std::memcpy(&o, ep.residual + row * ep.ld_residual + col, sizeof o);
      v += o;
    }
    if (ep.post.kind == Activation::relu) {
      const vw zero{};
      v = v > zero ? v : zero;
    } else if (ep.post.kind == Activation::clip) {
      const vw lo = vw{} + ep.post.lo, hi = vw{} + ep.post.hi;
      v = v < lo ? lo : v;  // min(max(v, lo), hi), as ONNX Clip (NaN stays NaN)
      v = v > hi ? hi : v;
    }
  }
  std::memcpy(crow, &v, sizeof v);
}

// `finish_row` of at most 16 columns known only at run time, in passes of a compile-time
// 16, or 8 and 4, and then the rest: a loop of run-time length shorter than the vector is
// compiled as scalar code (a 1x1 conv to 24 channels spent a third of its time on the last
// 8 columns' epilogue, a float at a time).
inline __attribute__((always_inline)) void finish_cols(float* __restrict t, float* __restrict crow, std::int64_t nr,
                                                       bool load_c, bool last, const GemmEpilogue& ep,
                                                       std::int64_t row, std::int64_t col) {
  if (nr == kGemmNR) {
    finish_row(t, crow, std::integral_constant<std::int64_t, kGemmNR>{}, load_c, last, ep, row, col);
    return;
  }
  std::int64_t j = 0;
  if (nr - j >= 8) {
    finish_row(t, crow, std::integral_constant<std::int64_t, 8>{}, load_c, last, ep, row, col);
    j += 8;
  }
  if (nr - j >= 4) {
    finish_row(t + j, crow + j, std::integral_constant<std::int64_t, 4>{}, load_c, last, ep, row, col + j);
    j += 4;
  }
  if (j < nr) finish_row(t + j, crow + j, nr - j, load_c, last, ep, row, col + j);
}

}  // namespace ge::cpu::gemm_tile
