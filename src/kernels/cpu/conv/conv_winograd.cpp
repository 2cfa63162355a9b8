// 3x3 stride-1 convs by Winograd's F(2x2, 3x3): each 2x2 block of output pixels (a tile)
// comes from a 4x4 block of input, and the products of a tile's 9 taps become 16
// element-wise products in the transformed domain: 16 GEMMs
// M_xi[cout, tiles] = U_xi[cout, cin] * V_xi[cin, tiles], 2.25x fewer multiplies than
// the direct conv's 9 per output and input channel.
//
// - Weights (once, at pack time): U = G g G^T per (cout, cin), each of the 16 elements
//   packed as its own GEMM A operand.
// - Input: tiles go 16 at a time (a group: image, tile row, tile column order, so a group
//   may run over rows and images); a group's 4x4 windows of one input channel are read
//   (zero outside the image), transformed V = B^T d B with vector adds, and stored as one
//   16-lane row of each V_xi's GEMM B panel. AVX-512 reads a row of windows with two
//   masked loads split into even and odd columns; AVX2 the same from the row in place (or
//   a staging copy at edges), 8 lanes at a time; the baseline one float at a time.
// - 16 GEMMs over K = cin (the packed GEMM's K blocks).
// - Output: Y = A^T M A per group of tiles, then bias, residual and activation, stored
//   where the tiles lie in the output (masked, interleaved stores on AVX-512; interleaved
//   through a staging row on AVX2).
// Two schedules (`winograd_block`): blocks of 32-64 tiles, each task taking its block
// through all three steps in its own cache (V and M never leave L2; U, read once per block,
// is small); or the whole batch step by step (every V, then the GEMMs split over rows of
// U, read once, then every Y), for large weights over few tiles.
// Transforms only add and subtract (G's halves are applied to the weights in f64):
// the result differs from the direct conv by rounding only (checked in the tests).
#include <algorithm>
#include <cstring>
#include <vector>

#include <tbb/task_arena.h>

#include "kernels/cpu/dispatch.hpp"
#if GE_X86_KERNELS
#include <immintrin.h>
#endif

#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/vec.hpp"
#include "kernels/cpu/conv/winograd.hpp"

// The 64-byte vectors below never cross a function boundary: every helper is inlined
// into the per-ISA entry points.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ge::cpu {
namespace {

constexpr int kTile = 16;   // tiles per vector: one B panel row
constexpr int kXi = 16;     // transformed elements per tile (4 x 4)

inline __attribute__((always_inline)) vf16 load(const float* p) {
  vf16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Geometry {
  std::int64_t tiles_y, tiles_x, per_image, tiles, tiles_pad;  // tiles: of the whole batch
};

Geometry geometry(const ConvShape& s) {
  Geometry g{};
  g.tiles_y = (s.oh + 1) / 2;
  g.tiles_x = (s.ow + 1) / 2;
  g.per_image = g.tiles_y * g.tiles_x;
  g.tiles = s.n * g.per_image;
  g.tiles_pad = (g.tiles + kTile - 1) / kTile * kTile;
  return g;
}

// The tiles of a 16-tile group [t0, t0 + 16) lie in runs along tile rows (a segment):
// image `img`, tile row `ty`, tiles from column `tx`, in lanes [lane, lane + n).
struct Segment {
  std::int64_t img, ty, tx;
  int lane, n;
};

template <class F>
inline __attribute__((always_inline)) void for_segments(const Geometry& g, std::int64_t t0, F&& f) {
  int lane = 0;
  for (std::int64_t t = t0; lane < kTile && t < g.tiles;) {
    const std::int64_t img = t / g.per_image, tt = t % g.per_image;
    const std::int64_t ty = tt / g.tiles_x, tx = tt % g.tiles_x;
    const int n = static_cast<int>(std::min({std::int64_t{kTile - lane}, g.tiles_x - tx, g.tiles - t}));
    f(Segment{img, ty, tx, lane, n});
    lane += n;
    t += n;
  }
}

// Tiles per block for `blocked`, or 0 for `whole_batch`. Blocks of 32 tiles (64 for up to
// 160 channels in and out: V and M then fill half of a 1 MiB L2) where there are at least
// two per thread; else the whole batch, whose GEMMs split over rows of U instead.
// Measured on ResNet-50's 3x3 convs (AMD Zen 5, 2 threads, ms at batch 1 / 8, whole batch
// -> blocked): 64ch 56x56 0.75 / 7.4 -> 0.44 / 4.7, 128ch 28x28 0.54 / 5.0 -> 0.43 / 3.1,
// 256ch 14x14 0.53 / 3.5 -> (2 blocks: whole) / 2.6, 512ch 7x7 0.55 / 4.0 -> (1 block) / 3.4.
std::int64_t winograd_block(std::int64_t cin, std::int64_t cout, std::int64_t tiles) {
  const std::int64_t block = cin + cout <= 160 ? 64 : 32;
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  return (tiles + block - 1) / block >= 2 * threads ? block : 0;
}

}  // namespace

// What the per-group transforms read and write.
struct WinogradTiles {
  const Conv2dParams* p;
  const ConvShape* s;
  const Geometry* g;
  const float* x;
  const float* bias;
  float* y;
  const float* residual;
};

namespace {

// Stores V = B^T d B of a group (or, AVX2, 8 of its lanes): element xi at dst + xi * xi_stride.
// (Whole vectors at fixed indices: a copy loop the compiler keeps moves them by halves
// through the stack, and a load of two half stores waits on the store buffer.)
template <class Vec>
inline __attribute__((always_inline)) void store_v(const Vec (&d)[4][4], float* dst, std::int64_t xi_stride) {
  Vec v[4][4];
  input_transform(d, v);
#pragma GCC unroll 4
  for (int r = 0; r < 4; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) std::memcpy(dst + (r * 4 + c) * xi_stride, &v[r][c], sizeof(Vec));
}

// Y = A^T M A of a group (or 8 of its lanes), plus the bias: M element xi at src + xi * xi_stride.
template <class Vec>
inline __attribute__((always_inline)) void load_y(const float* src, std::int64_t xi_stride, float bias,
                                                  Vec (&out)[2][2]) {
  Vec m[4][4];
#pragma GCC unroll 4
  for (int r = 0; r < 4; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) std::memcpy(&m[r][c], src + (r * 4 + c) * xi_stride, sizeof(Vec));
  output_transform(m, out);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) out[r][c] += bias;
}

// Baseline: the 4x4 input windows of a group gathered one float at a time, zero outside
// the image; the 2x2 outputs stored one at a time.
struct Base {
  static void inputs(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst, std::int64_t xi_stride) {
    const Conv2dParams& p = *k.p;
    const ConvShape& s = *k.s;
    alignas(64) float stage[4][4][kTile] = {};
    for_segments(*k.g, t0, [&](const Segment& sg) {
      const float* plane = k.x + (sg.img * s.c + ci) * s.h * s.w;
      for (int l = 0; l < sg.n; ++l) {
        const std::int64_t y0 = 2 * sg.ty - p.pad_top, x0 = 2 * (sg.tx + l) - p.pad_left;
        for (int r = 0; r < 4; ++r) {
          if (y0 + r < 0 || y0 + r >= s.h) continue;
          for (int c = 0; c < 4; ++c)
            if (x0 + c >= 0 && x0 + c < s.w) stage[r][c][sg.lane + l] = plane[(y0 + r) * s.w + x0 + c];
        }
      }
    });
    vf16 d[4][4];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) d[r][c] = load(stage[r][c]);
    store_v(d, dst, xi_stride);
  }
  static void outputs(const WinogradTiles& k, std::int64_t co, std::int64_t t0, const float* src,
                      std::int64_t xi_stride) {
    const ConvShape& s = *k.s;
    vf16 out[2][2];
    load_y(src, xi_stride, k.bias != nullptr ? k.bias[co] : 0.0f, out);
    for_segments(*k.g, t0, [&](const Segment& sg) {
      const std::int64_t plane = (sg.img * s.cout + co) * s.oh * s.ow;
      for (int l = 0; l < sg.n; ++l)
        for (int r = 0; r < 2; ++r) {
          const std::int64_t oy = 2 * sg.ty + r;
          if (oy >= s.oh) break;
          for (int c = 0; c < 2; ++c) {
            const std::int64_t ox = 2 * (sg.tx + l) + c;
            if (ox >= s.ow) break;
            const std::int64_t at = plane + oy * s.ow + ox;
            float v = out[r][c][sg.lane + l];
            if (k.residual != nullptr) v += k.residual[at];
            k.y[at] = apply_post(v, k.p->post);
          }
        }
    });
  }
};

#if GE_X86_KERNELS
// GCC takes the ISA for the whole region from the pragma (GE_AVX512_FEATURES, spelled out:
// a pragma expands no macro); clang ignores it, and needs the
// attribute pushed onto every function of the region (the lambdas inside included).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#endif
// AVX-512: a segment's row of windows is two masked loads of 32 consecutive floats (the
// lanes outside the segment or the image read nothing and are zero) split into their even
// and odd columns; outputs are interleaved back and stored with the same masks.
struct Avx512 {
  // Bits [a, b) of 32 (0 <= a < b <= 32).
  static inline __attribute__((always_inline)) std::uint32_t bits(std::int64_t a, std::int64_t b) {
    const std::uint32_t hi = b >= 32 ? 0xFFFFFFFFu : (1u << b) - 1u;
    return hi & ~((1u << a) - 1u);
  }
  static void inputs(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst, std::int64_t xi_stride) {
    const Conv2dParams& p = *k.p;
    const ConvShape& s = *k.s;
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    vf16 d[4][4];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) d[r][c] = vf16{};
    for_segments(*k.g, t0, [&](const Segment& sg) {
      const float* plane = k.x + (sg.img * s.c + ci) * s.h * s.w;
      for (int half = 0; half < 2; ++half) {
        // Float j of the run from input column `base` is column j % 2 + 2 * half of lane j / 2.
        const std::int64_t base = 2 * (sg.tx - sg.lane) - p.pad_left + 2 * half;
        const std::int64_t a = std::max<std::int64_t>(2 * sg.lane, -base);
        const std::int64_t b = std::min<std::int64_t>(2 * (sg.lane + sg.n), s.w - base);
        if (a >= b) continue;
        const std::uint32_t m = bits(a, b);
        const auto mlo = static_cast<__mmask16>(m & 0xFFFFu), mhi = static_cast<__mmask16>(m >> 16);
        for (int r = 0; r < 4; ++r) {
          const std::int64_t iy = 2 * sg.ty - p.pad_top + r;
          if (iy < 0 || iy >= s.h) continue;
          // Reads only the masked floats: those inside the row.
          const float* row = plane + iy * s.w + base;
          const __m512 lo = _mm512_maskz_loadu_ps(mlo, row);
          const __m512 hi = _mm512_maskz_loadu_ps(mhi, row + 16);
          d[r][2 * half] += reinterpret_cast<vf16>(_mm512_permutex2var_ps(lo, even, hi));
          d[r][2 * half + 1] += reinterpret_cast<vf16>(_mm512_permutex2var_ps(lo, odd, hi));
        }
      }
    });
    store_v(d, dst, xi_stride);
  }
  static void outputs(const WinogradTiles& k, std::int64_t co, std::int64_t t0, const float* src,
                      std::int64_t xi_stride) {
    const ConvShape& s = *k.s;
    const __m512i first = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i second = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    vf16 out[2][2];
    load_y(src, xi_stride, k.bias != nullptr ? k.bias[co] : 0.0f, out);
    for_segments(*k.g, t0, [&](const Segment& sg) {
      // Float j of the run from output column `base` is column j % 2 of lane j / 2.
      const std::int64_t base = 2 * (sg.tx - sg.lane);
      const std::int64_t b = std::min<std::int64_t>(2 * (sg.lane + sg.n), s.ow - base);
      if (2 * sg.lane >= b) return;
      const std::uint32_t m = bits(2 * sg.lane, b);
      const auto mlo = static_cast<__mmask16>(m & 0xFFFFu), mhi = static_cast<__mmask16>(m >> 16);
      const std::int64_t plane = (sg.img * s.cout + co) * s.oh * s.ow;
      for (int r = 0; r < 2; ++r) {
        const std::int64_t oy = 2 * sg.ty + r;
        if (oy >= s.oh) break;
        const __m512 c0 = reinterpret_cast<__m512>(out[r][0]), c1 = reinterpret_cast<__m512>(out[r][1]);
        vf16 lo = reinterpret_cast<vf16>(_mm512_permutex2var_ps(c0, first, c1));
        vf16 hi = reinterpret_cast<vf16>(_mm512_permutex2var_ps(c0, second, c1));
        const std::int64_t at = plane + oy * s.ow + base;
        if (k.residual != nullptr) {
          lo += reinterpret_cast<vf16>(_mm512_maskz_loadu_ps(mlo, k.residual + at));
          hi += reinterpret_cast<vf16>(_mm512_maskz_loadu_ps(mhi, k.residual + at + 16));
        }
        apply_post_inplace(lo, k.p->post);
        apply_post_inplace(hi, k.p->post);
        _mm512_mask_storeu_ps(k.y + at, mlo, reinterpret_cast<__m512>(lo));
        _mm512_mask_storeu_ps(k.y + at + 16, mhi, reinterpret_cast<__m512>(hi));
      }
    });
  }
};
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
// AVX2: a group's 16 lanes as two vectors of 8. Per half of the window (columns 0-1, 2-3),
// a row of 16 windows inside the image is read in place, else each segment's run is copied
// into a staging row (zeros outside the image); even and odd columns split; the transforms
// per 8 lanes (16 ymm registers hold neither a window nor an M of 16 lanes). Outputs: each
// row's two columns interleaved into a staging row, then per segment the run inside the
// image with its residual and activation, 8 floats at a time.
struct Avx2 {
  static void inputs(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst, std::int64_t xi_stride) {
    const Conv2dParams& p = *k.p;
    const ConvShape& s = *k.s;
    const Geometry& g = *k.g;
    // rows[half][r]: the 32 floats whose even (odd) ones are column 2 * half (+ 1) of the
    // 16 windows; null: a row above or below the image (zeros).
    const float* rows[2][4];
    alignas(32) float stage[2][4][2 * kTile];
    const std::int64_t img = t0 / g.per_image, tt = t0 % g.per_image, ty = tt / g.tiles_x, tx = tt % g.tiles_x;
    const std::int64_t x0 = 2 * tx - p.pad_left;
    const float* plane = k.x + (img * s.c + ci) * s.h * s.w;
    if (t0 + kTile <= g.tiles && tx + kTile <= g.tiles_x && x0 >= 0 && x0 + 2 * kTile + 2 <= s.w) {
      // One segment of 16 windows inside the row: read in place.
      for (int r = 0; r < 4; ++r) {
        const std::int64_t iy = 2 * ty - p.pad_top + r;
        for (int half = 0; half < 2; ++half)
          rows[half][r] = iy >= 0 && iy < s.h ? plane + iy * s.w + x0 + 2 * half : nullptr;
      }
    } else {
      // Else each segment's runs copied into staging rows, zeros outside the image.
      const vf8 zero = vf8{} + 0.0f;
      for (int j = 0; j < 2 * 4 * 2 * kTile; j += 8) std::memcpy(&stage[0][0][0] + j, &zero, sizeof zero);
      for (int half = 0; half < 2; ++half)
        for (int r = 0; r < 4; ++r) rows[half][r] = stage[half][r];
      for_segments(g, t0, [&](const Segment& sg) {
        const float* in = k.x + (sg.img * s.c + ci) * s.h * s.w;
        for (int half = 0; half < 2; ++half) {
          // Float j of the run from input column `base` is column j % 2 + 2 * half of lane sg.lane + j / 2.
          const std::int64_t base = 2 * sg.tx - p.pad_left + 2 * half;
          const std::int64_t a = std::max<std::int64_t>(0, -base), b = std::min<std::int64_t>(2 * sg.n, s.w - base);
          for (int r = 0; r < 4; ++r) {
            const std::int64_t iy = 2 * sg.ty - p.pad_top + r;
            if (iy < 0 || iy >= s.h) continue;
            for (std::int64_t j = a; j < b; ++j) stage[half][r][2 * sg.lane + j] = in[iy * s.w + base + j];
          }
        }
      });
    }
    for (int q = 0; q < 2; ++q) {  // lanes [8q, 8q + 8)
      vf8 d[4][4];
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r)
#pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
          vf8 lo = vf8{} + 0.0f, hi = lo;
          if (rows[half][r] != nullptr) std::memcpy(&lo, rows[half][r] + 16 * q, sizeof lo);
          if (rows[half][r] != nullptr) std::memcpy(&hi, rows[half][r] + 16 * q + 8, sizeof hi);
          d[r][2 * half] = even_lanes<8>(lo, hi);
          d[r][2 * half + 1] = odd_lanes(lo, hi);
        }
      store_v(d, dst + 8 * q, xi_stride);
    }
  }
  static void outputs(const WinogradTiles& k, std::int64_t co, std::int64_t t0, const float* src,
                      std::int64_t xi_stride) {
    const ConvShape& s = *k.s;
    alignas(32) float stage[2][2 * kTile];
    for (int q = 0; q < 2; ++q) {  // lanes [8q, 8q + 8)
      vf8 out[2][2];
      load_y(src + 8 * q, xi_stride, k.bias != nullptr ? k.bias[co] : 0.0f, out);
      for (int r = 0; r < 2; ++r) {
        vf8 two[2];
        zip_lanes(out[r][0], out[r][1], two[0], two[1]);
        std::memcpy(&stage[r][16 * q], two, sizeof two);
      }
    }
    for_segments(*k.g, t0, [&](const Segment& sg) {
      const std::int64_t plane = (sg.img * s.cout + co) * s.oh * s.ow, ox = 2 * sg.tx;
      const std::int64_t run = std::min<std::int64_t>(2 * sg.n, s.ow - ox);
      for (int r = 0; r < 2; ++r) {
        const std::int64_t oy = 2 * sg.ty + r;
        if (oy >= s.oh) break;
        const float* from = &stage[r][2 * sg.lane];
        float* to = k.y + plane + oy * s.ow + ox;
        const float* z = k.residual != nullptr ? k.residual + (to - k.y) : nullptr;
        for (std::int64_t j = 0; j < run; j += 8) {
          const std::int64_t n = std::min<std::int64_t>(8, run - j);
          vf8 v = load_lanes<vf8>(from + j, n);
          if (z != nullptr) v += load_lanes<vf8>(z + j, n);
          apply_post_inplace(v, k.p->post);
          store_lanes(to + j, v, n);
        }
      }
    });
  }
};
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

}  // namespace

void winograd_inputs_base(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst,
                          std::int64_t xi_stride) {
  Base::inputs(k, ci, t0, dst, xi_stride);
}
void winograd_outputs_base(const WinogradTiles& k, std::int64_t co, std::int64_t t0, const float* src,
                           std::int64_t xi_stride) {
  Base::outputs(k, co, t0, src, xi_stride);
}
#if GE_X86_KERNELS
GE_TARGET_AVX512 void winograd_inputs_avx512(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst,
                                             std::int64_t xi_stride) {
  Avx512::inputs(k, ci, t0, dst, xi_stride);
}
GE_TARGET_AVX512 void winograd_outputs_avx512(const WinogradTiles& k, std::int64_t co, std::int64_t t0,
                                              const float* src, std::int64_t xi_stride) {
  Avx512::outputs(k, co, t0, src, xi_stride);
}
GE_TARGET_AVX2 void winograd_inputs_avx2(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst,
                                         std::int64_t xi_stride) {
  Avx2::inputs(k, ci, t0, dst, xi_stride);
}
GE_TARGET_AVX2 void winograd_outputs_avx2(const WinogradTiles& k, std::int64_t co, std::int64_t t0, const float* src,
                                          std::int64_t xi_stride) {
  Avx2::outputs(k, co, t0, src, xi_stride);
}
#endif

namespace {

// The 16 GEMMs M_xi (cout x n) = U_xi (cout x cin) * V_xi (cin x n, panels `panel` apart),
// rows [m0, m1), over K in blocks of 256.
void products(const PackedConvWeights& w, std::int64_t cout, std::int64_t cin, std::int64_t xi, std::int64_t m0,
              std::int64_t m1, const float* v, std::int64_t n, float* m) {
  constexpr std::int64_t kc_max = 256;
  const float* a = w.data.data() + xi * packed_a_size(cout, cin);
  for (std::int64_t k0 = 0; k0 < cin; k0 += kc_max) {
    const std::int64_t kc = std::min(kc_max, cin - k0);
    gemm_packed_kblock(cout, m0, m1, cin, k0, kc, a, v + k0 * kTile, cin * kTile, n, m, n, 0, GemmEpilogue{}, k0 == 0,
                       k0 + kc >= cin);
  }
}

// With bf16 weights (`PackedConvWeights::bf16`): V_xi's f32 panels (n columns, cin rows,
// `panel` floats apart) as bf16 VNNI panels at `dst`, K padded to the bf16 depth.
void v_to_vnni(std::int64_t cin, std::int64_t n, const float* v, std::int64_t panel, std::uint16_t* dst) {
  const std::int64_t panels = n / kTile, kpad = bf16_k(cin);
  panels_to_vnni(panels, cin, v, panel, dst, kpad * 16, 0);
  zero_vnni_rows(panels, (cin + 1) / 2 * 2, kpad, dst, kpad * 16);
}

// `products` in bf16: rows [m0, m1) of M_xi = U_xi (bf16 rows) * V_xi (VNNI panels at `v`).
void products_bf16(const PackedConvWeights& w, std::int64_t cout, std::int64_t cin, std::int64_t xi, std::int64_t m0,
                   std::int64_t m1, const std::uint16_t* v, std::int64_t n, float* m) {
  const std::int64_t rows = (cout + 15) / 16 * 16, kpad = bf16_k(cin);
  const auto* a = reinterpret_cast<const std::uint16_t*>(w.data.data()) + xi * rows * kpad;
  gemm_bf16_block(m1 - m0, n, bf16_depth(cin), a + m0 * kpad, kpad, v, kpad * 16, m, n, m0, 0, GemmEpilogue{});
}

// Whole batch: every tile's V (16 x cin x tiles) is built first, in parallel over input
// channels, then the 16 GEMMs over all tiles (each U_xi read once), then Y in parallel
// over output channels. For large weights (they stream once per run) and few tiles.
void whole_batch(const WinogradTiles& k, const PackedConvWeights& w) {
  const CpuKernels& wino = kernels();
  const Geometry& g = *k.g;
  const std::int64_t cin = k.s->c, cout = k.s->cout;
  const std::int64_t panel = cin * kTile;
  const std::int64_t vx = (g.tiles_pad / kTile) * panel;  // from one V_xi to the next
  PooledBuffer vbuf(kXi * vx);
  PooledBuffer mbuf(kXi * cout * g.tiles_pad);
  parallel_for(cin, grain_for(g.tiles * 16, 65536), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t ci = b; ci < e; ++ci)
      for (std::int64_t t0 = 0; t0 < g.tiles_pad; t0 += kTile)
        wino.winograd_inputs(k, ci, t0, vbuf.data() + (t0 / kTile) * panel + ci * kTile, vx);
  });
  // bf16: each V_xi in VNNI panels, once.
  const std::int64_t vn = w.bf16 ? g.tiles_pad * bf16_k(cin) : 0;  // bf16 values from one V_xi to the next
  PooledBuffer vnni(w.bf16 ? (kXi * vn + 1) / 2 : 1);
  auto* vb = reinterpret_cast<std::uint16_t*>(vnni.data());
  if (w.bf16)
    parallel_for(kXi, 1, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t xi = b; xi < e; ++xi) v_to_vnni(cin, g.tiles_pad, vbuf.data() + xi * vx, panel, vb + xi * vn);
    });
  // Tasks of (xi, 96 rows).
  const std::int64_t rows = std::max<std::int64_t>(2, 96 / kGemmMR / 2 * 2) * kGemmMR;
  const std::int64_t per_xi = (cout + rows - 1) / rows;
  parallel_for(kXi * per_xi, 1, [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t xi = t / per_xi, m0 = t % per_xi * rows, m1 = std::min(cout, m0 + rows);
      float* mxi = mbuf.data() + xi * cout * g.tiles_pad;
      if (w.bf16)
        products_bf16(w, cout, cin, xi, m0, m1, vb + xi * vn, g.tiles_pad, mxi);
      else
        products(w, cout, cin, xi, m0, m1, vbuf.data() + xi * vx, g.tiles_pad, mxi);
    }
  });
  parallel_for(cout, grain_for(g.tiles * 16, 65536), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t co = b; co < e; ++co)
      for (std::int64_t t0 = 0; t0 < g.tiles; t0 += kTile)
        wino.winograd_outputs(k, co, t0, mbuf.data() + co * g.tiles_pad + t0, cout * g.tiles_pad);
  });
}

// Blocks of tiles: each task takes `block` tiles through V, the 16 GEMMs and Y with its
// V and M in its own cache (16 x (cin + cout) x block floats). For small weights, which
// every block reads again.
void blocked(const WinogradTiles& k, const PackedConvWeights& w, std::int64_t block) {
  const CpuKernels& wino = kernels();
  const Geometry& g = *k.g;
  const std::int64_t cin = k.s->c, cout = k.s->cout;
  const std::int64_t panel = cin * kTile;
  const std::int64_t blocks = (g.tiles + block - 1) / block;
  parallel_for(blocks, 1, [&](std::int64_t bb, std::int64_t be) {
    PooledBuffer vbuf(kXi * block * cin);
    PooledBuffer mbuf(kXi * cout * block);
    // (bf16: one V_xi at a time in VNNI panels; `block` is a multiple of kTile)
    PooledBuffer vnni(w.bf16 ? ((block + kTile - 1) / kTile * kTile * bf16_k(cin) + 1) / 2 : 1);
    auto* vb = reinterpret_cast<std::uint16_t*>(vnni.data());
    for (std::int64_t blk = bb; blk < be; ++blk) {
      const std::int64_t first = blk * block;
      const std::int64_t n = (std::min(block, g.tiles - first) + kTile - 1) / kTile * kTile;
      const std::int64_t vx = n / kTile * panel;
      for (std::int64_t ci = 0; ci < cin; ++ci)
        for (std::int64_t j = 0; j < n; j += kTile)
          wino.winograd_inputs(k, ci, first + j, vbuf.data() + (j / kTile) * panel + ci * kTile, vx);
      for (std::int64_t xi = 0; xi < kXi; ++xi) {
        if (w.bf16) {
          v_to_vnni(cin, n, vbuf.data() + xi * vx, panel, vb);
          products_bf16(w, cout, cin, xi, 0, cout, vb, n, mbuf.data() + xi * cout * n);
        } else {
          products(w, cout, cin, xi, 0, cout, vbuf.data() + xi * vx, n, mbuf.data() + xi * cout * n);
        }
      }
      for (std::int64_t co = 0; co < cout; ++co)
        for (std::int64_t j = 0; j < n && first + j < g.tiles; j += kTile)
          wino.winograd_outputs(k, co, first + j, mbuf.data() + co * n + j, cout * n);
    }
  });
}

}  // namespace

bool winograd_fits(std::int64_t kh, std::int64_t kw, const Conv2dParams& p) {
  return kh == 3 && kw == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1 &&
         p.group == 1;
}

Scratch winograd_u(std::int64_t cout, std::int64_t cin, const float* w, bool by_input) {
  // U = G g G^T with G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
  static constexpr double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  Scratch u(kXi * cout * cin);
  const auto one = [&](std::int64_t o, std::int64_t i) {
    const float* g = w + (o * cin + i) * 9;
    double t[4][3];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 3; ++c) t[r][c] = G[r][0] * g[c] + G[r][1] * g[3 + c] + G[r][2] * g[6 + c];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c)
        u.data()[by_input ? ((r * 4 + c) * cin + i) * cout + o : ((r * 4 + c) * cout + o) * cin + i] =
            static_cast<float>(t[r][0] * G[c][0] + t[r][1] * G[c][1] + t[r][2] * G[c][2]);
  };
  // The written index runs fastest in the inner loop (16 sequential streams).
  if (by_input) {
    for (std::int64_t i = 0; i < cin; ++i)
      for (std::int64_t o = 0; o < cout; ++o) one(o, i);
  } else {
    for (std::int64_t o = 0; o < cout; ++o)
      for (std::int64_t i = 0; i < cin; ++i) one(o, i);
  }
  return u;
}

void pack_winograd_weights(std::int64_t cout, std::int64_t cin, const float* w, float* dst) {
  const Scratch u = winograd_u(cout, cin, w, false);
  const std::int64_t per_xi = packed_a_size(cout, cin);
  for (int xi = 0; xi < kXi; ++xi)
    pack_a(cout, cin, u.data() + xi * cout * cin, cin, false, 1.0f, dst + xi * per_xi);
}

std::int64_t winograd_weights_size(std::int64_t cout, std::int64_t cin) { return kXi * packed_a_size(cout, cin); }

std::int64_t winograd_bf16_weights_size(std::int64_t cout, std::int64_t cin) {
  return (kXi * ((cout + 15) / 16 * 16) * bf16_k(cin) + 1) / 2;
}

void pack_winograd_weights_bf16(std::int64_t cout, std::int64_t cin, const float* w, float* dst) {
  const Scratch u = winograd_u(cout, cin, w, false);
  const std::int64_t rows = (cout + 15) / 16 * 16, kpad = bf16_k(cin);
  auto* d = reinterpret_cast<std::uint16_t*>(dst);
  for (int xi = 0; xi < kXi; ++xi)
    convert_rows_bf16(cout, cin, u.data() + xi * cout * cin, cin, d + xi * rows * kpad, kpad, rows);
}

void conv_winograd(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                   const float* pbias, float* py, const float* pres) {
  const Geometry g = geometry(s);
  const WinogradTiles k{&p, &s, &g, px, pbias, py, pres};
  const std::int64_t block = winograd_block(s.c, s.cout, g.tiles);
  if (block > 0)
    blocked(k, w, block);
  else
    whole_batch(k, w);
}

}  // namespace ge::cpu
