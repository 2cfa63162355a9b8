// Depthwise convolution (group == C == Cout), 3x3 and 5x5, strides 1 and 2, no
// dilation, vectorised along the output row with the accumulator in registers.
//
// Per (image, channel) plane the input is first copied, zero-padded, into one "phase"
// plane per horizontal stride step: phase f holds the padded columns f, f + s, f + 2s,
// ..., so that output column ox reads padded column ox * s + kx at phase kx % s, column
// ox + kx / s: a contiguous load for every tap whatever the stride. Then each output row
// is swept V columns at a time: V lanes start from the bias, take K*K fused multiply-adds
// with the taps broadcast, get the residual and the activation, and are stored once. The
// copy reads the input once; the f32 GEMM path's depthwise fallback (conv.cpp) serves
// other kernels and dilations.
//
// Wide planes are read in place (`plane_direct`), small ones at stride 1 with "same" pads
// swept flat (`plane_flat`); on AVX-512 the others (stride 2 on small planes, odd pads)
// skip the copy too: masked loads read only the columns inside the row (`plane_masked`).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/vec.hpp"

#if GE_X86_KERNELS
#include <immintrin.h>
#endif

// The vector helpers below are always inlined into the per-ISA entry points: their
// by-value vectors never cross a call.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ge::cpu {

struct DepthwisePlanes {
  const Conv2dParams* p;
  const ConvShape* s;
  const float* x;
  const float* taps;
  const float* bias;
  float* y;
  const float* residual;
  std::int64_t ph, pw, hs;  // padded rows and columns; columns per phase plane row
  std::int64_t slack;       // floats past the last phase plane that loads may touch
};

namespace {

DepthwisePlanes geometry(const Conv2dParams& p, const ConvShape& s, const float* x, const float* taps,
                         const float* bias, float* y, const float* residual) {
  DepthwisePlanes d{&p, &s, x, taps, bias, y, residual, 0, 0, 0, 0};
  d.ph = s.h + p.pad_top + p.pad_bottom;
  d.pw = s.w + p.pad_left + p.pad_right;
  d.hs = (d.pw + p.stride_w - 1) / p.stride_w;
  d.slack = 16 + s.kw;
  return d;
}

// The phase planes of one input plane: phase f row r column j = padded (r, j * s + f).
// `row` is scratch for one padded row (stride 2).
void fill_phases(const DepthwisePlanes& d, const float* in, float* buf, float* row) {
  const Conv2dParams& p = *d.p;
  const std::int64_t sw = p.stride_w, w = d.s->w;
  const std::int64_t phase = d.ph * d.hs;
  for (std::int64_t r = 0; r < d.ph; ++r) {
    const std::int64_t iy = r - p.pad_top;
    const bool inside = iy >= 0 && iy < d.s->h;
    float* dst = sw == 1 ? buf + r * d.hs : row;
    if (!inside) {
      std::fill(dst, dst + sw * d.hs, 0.0f);
    } else {
      std::fill(dst, dst + p.pad_left, 0.0f);
      std::memcpy(dst + p.pad_left, in + iy * w, sizeof(float) * static_cast<std::size_t>(w));
      std::fill(dst + p.pad_left + w, dst + sw * d.hs, 0.0f);
    }
    if (sw == 2) {
      float* __restrict even = buf + r * d.hs;
      float* __restrict odd = buf + phase + r * d.hs;
      const float* __restrict src = row;
      for (std::int64_t j = 0; j < d.hs; ++j) {
        even[j] = src[2 * j];
        odd[j] = src[2 * j + 1];
      }
    }
  }
  std::fill(buf + sw * phase, buf + sw * phase + d.slack, 0.0f);
}

template <int V, int K>
inline __attribute__((always_inline)) void plane(const DepthwisePlanes& d, std::int64_t pc, float* buf) {
  using vf = VecOf<V>;
  static_assert(sizeof(vf) == 4 * V);
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  const std::int64_t ch = pc % s.c;
  fill_phases(d, d.x + pc * s.h * s.w, buf, buf + p.stride_w * d.ph * d.hs + d.slack);
  const float* wk = d.taps + ch * K * K;
  const float b0 = d.bias != nullptr ? d.bias[ch] : 0.0f;
  const std::int64_t phase = d.ph * d.hs;
  const std::int64_t sw = p.stride_w, sh = p.stride_h;
  const float* tap_base[K];  // phase plane and column offset of each kx
  for (int kx = 0; kx < K; ++kx) tap_base[kx] = buf + (kx % sw) * phase + kx / sw;
  for (std::int64_t oy = 0; oy < s.oh; ++oy) {
    float* out = d.y + (pc * s.oh + oy) * s.ow;
    const float* res = d.residual != nullptr ? d.residual + (pc * s.oh + oy) * s.ow : nullptr;
    const std::int64_t r0 = oy * sh * d.hs;
    for (std::int64_t ox = 0; ox < s.ow; ox += V) {
      vf acc = vf{} + b0;
#pragma GCC unroll 5
      for (int ky = 0; ky < K; ++ky) {
#pragma GCC unroll 5
        for (int kx = 0; kx < K; ++kx) {
          vf v;
          std::memcpy(&v, tap_base[kx] + r0 + ky * d.hs + ox, sizeof v);
          acc += wk[ky * K + kx] * v;
        }
      }
      const std::int64_t n = std::min<std::int64_t>(V, s.ow - ox);
      if (res != nullptr) acc += load_lanes<vf>(res + ox, n);
      store_lanes(out + ox, apply_post_v(acc, p.post), n);
    }
  }
}

// Output column ox of row oy by its definition, reads outside the image skipped.
template <int K>
inline __attribute__((always_inline)) float one_output(const DepthwisePlanes& d, const float* in, const float* wk,
                                                       float b0, std::int64_t oy, std::int64_t ox) {
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  float acc = b0;
  for (int ky = 0; ky < K; ++ky) {
    const std::int64_t iy = oy * p.stride_h - p.pad_top + ky;
    if (iy < 0 || iy >= s.h) continue;
    for (int kx = 0; kx < K; ++kx) {
      const std::int64_t ix = ox * p.stride_w - p.pad_left + kx;
      if (ix >= 0 && ix < s.w) acc += wk[ky * K + kx] * in[iy * s.w + ix];
    }
  }
  return acc;
}

// A plane read in place (no copy): V output columns at a time where every tap's read
// lies inside its input row (stride 2: the even lanes of two loads), the last vector
// overlapping the one before it rather than leaving columns over; the few border
// columns by `one_output`; rows outside the image skipped per tap row.
template <int V, int K, int S>
inline __attribute__((always_inline)) void plane_direct(const DepthwisePlanes& d, std::int64_t pc, std::int64_t first,
                                                        std::int64_t last_start) {
  using vf = VecOf<V>;
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  const std::int64_t ch = pc % s.c;
  const float* in = d.x + pc * s.h * s.w;
  const float* wk = d.taps + ch * K * K;
  const float b0 = d.bias != nullptr ? d.bias[ch] : 0.0f;
  const auto finish = [&](float v, const float* res, std::int64_t ox) __attribute__((always_inline)) {
    return apply_post(res != nullptr ? v + res[ox] : v, p.post);
  };
  for (std::int64_t oy = 0; oy < s.oh; ++oy) {
    float* out = d.y + (pc * s.oh + oy) * s.ow;
    const float* res = d.residual != nullptr ? d.residual + (pc * s.oh + oy) * s.ow : nullptr;
    const std::int64_t iy0 = oy * p.stride_h - p.pad_top;
    const int ky0 = static_cast<int>(std::max<std::int64_t>(0, -iy0));
    const int ky1 = static_cast<int>(std::min<std::int64_t>(K, s.h - iy0));
    for (std::int64_t ox = 0; ox < first; ++ox) out[ox] = finish(one_output<K>(d, in, wk, b0, oy, ox), res, ox);
    for (std::int64_t ox0 = first;;) {
      vf acc = vf{} + b0;
      for (int ky = ky0; ky < ky1; ++ky) {
        const float* row = in + (iy0 + ky) * s.w + ox0 * S - p.pad_left;
#pragma GCC unroll 5
        for (int kx = 0; kx < K; ++kx) acc += wk[ky * K + kx] * load_columns<V, S>(row + kx);
      }
      if (res != nullptr) {
        vf r;
        std::memcpy(&r, res + ox0, sizeof r);
        acc += r;
      }
      acc = apply_post_v(acc, p.post);
      std::memcpy(out + ox0, &acc, sizeof acc);
      if (ox0 == last_start) break;
      ox0 = std::min(ox0 + V, last_start);
    }
    for (std::int64_t ox = last_start + V; ox < s.ow; ++ox)
      out[ox] = finish(one_output<K>(d, in, wk, b0, oy, ox), res, ox);
  }
}

// A small plane (narrower than two vectors) at stride 1 with "same" padding, swept as one
// flat row of h * w outputs, V at a time: output i reads input i + (ky - pad) * w +
// (kx - pad) of the plane copied between zero guards (rows above and below), and a lane
// whose column kx - pad moves out of its row is cleared by the column mask `masks` (per
// kx and vector, the same for every plane), applied once per kx to the sum over ky.
// Per vector K*K loads and FMAs and K - 1 mask products, where the row sweep spent most
// of a vector on each short row and copied a padded plane per channel.
template <int V, int K>
inline __attribute__((always_inline)) void plane_flat(const DepthwisePlanes& d, std::int64_t pc, const float* masks,
                                                      float* buf) {
  using vf = VecOf<V>;
  constexpr int pad = K / 2;
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  const std::int64_t w = s.w, hw = s.h * s.w, guard = pad * w + pad;
  const std::int64_t ch = pc % s.c;
  std::fill(buf, buf + guard, 0.0f);
  std::memcpy(buf + guard, d.x + pc * hw, sizeof(float) * static_cast<std::size_t>(hw));
  std::fill(buf + guard + hw, buf + 2 * guard + hw + V, 0.0f);
  const float* wk = d.taps + ch * K * K;
  const float b0 = d.bias != nullptr ? d.bias[ch] : 0.0f;
  float* out = d.y + pc * hw;
  const float* res = d.residual != nullptr ? d.residual + pc * hw : nullptr;
  const vf zero = vf{} + 0.0f;
  for (std::int64_t i = 0, j = 0; i < hw; i += V, ++j) {
    vf acc = vf{} + b0;
#pragma GCC unroll 5
    for (int kx = 0; kx < K; ++kx) {
      vf col = zero;
#pragma GCC unroll 5
      for (int ky = 0; ky < K; ++ky) {
        vf v;
        std::memcpy(&v, buf + guard + i + (ky - pad) * w + (kx - pad), sizeof v);
        col += wk[ky * K + kx] * v;
      }
      if (kx == pad) {
        acc += col;
      } else {
        vf m;
        std::memcpy(&m, masks + (j * K + kx) * V, sizeof m);
        acc += col * m;
      }
    }
    const std::int64_t n = std::min<std::int64_t>(V, hw - i);
    if (res != nullptr) acc += load_lanes<vf>(res + i, n);
    acc = apply_post_v(acc, p.post);
    store_lanes(out + i, acc, n);
  }
}

// When `plane_flat` serves: stride 1, "same" padding, narrower than two vectors.
bool flat_plane(const Conv2dParams& p, const ConvShape& s, int lanes) {
  const std::int64_t pad = s.kh / 2;
  return p.stride_h == 1 && p.stride_w == 1 && p.pad_top == pad && p.pad_bottom == pad && p.pad_left == pad &&
         p.pad_right == pad && s.w < 2 * lanes;
}

// The column masks of `plane_flat`: for vector j and tap column kx, lane l is 1 where
// column (j * V + l) % w + kx - pad stays inside the row.
std::vector<float> flat_masks(const ConvShape& s, int lanes) {
  const std::int64_t k = s.kw, pad = k / 2, hw = s.h * s.w, vectors = (hw + lanes - 1) / lanes;
  std::vector<float> m(static_cast<std::size_t>(vectors * k * lanes));
  for (std::int64_t j = 0; j < vectors; ++j)
    for (std::int64_t kx = 0; kx < k; ++kx)
      for (std::int64_t l = 0; l < lanes; ++l) {
        const std::int64_t c = (j * lanes + l) % s.w + kx - pad;
        m[static_cast<std::size_t>((j * k + kx) * lanes + l)] = c >= 0 && c < s.w ? 1.0f : 0.0f;
      }
  return m;
}

// The vector columns of `plane_direct`: from `first` (every read of column first at or
// right of the row's start) to `last_start` (a vector starting there reads no further
// than the row's end; stride 2 reads one float past its last even lane). False when no
// whole vector fits.
template <int V, int K>
bool direct_columns(const Conv2dParams& p, const ConvShape& s, std::int64_t& first, std::int64_t& last_start) {
  const std::int64_t sw = p.stride_w;
  first = (p.pad_left + sw - 1) / sw;
  // Last float read by a vector at ox0: sw * (ox0 + V - 1) + K - 1 - pad_left + (sw - 1).
  const std::int64_t limit = s.w - 1 - (K - 1) + p.pad_left - (sw - 1);
  if (limit < 0) return false;
  last_start = std::min<std::int64_t>(limit / sw - (V - 1), s.ow - V);
  return last_start >= first;
}

template <int V>
inline __attribute__((always_inline)) void planes(const DepthwisePlanes& d, std::int64_t b, std::int64_t e, float* buf,
                                                  const float* masks) {
  std::int64_t first = 0, last_start = 0;
  const bool k3 = d.s->kh == 3, s1 = d.p->stride_w == 1;
  if (masks != nullptr) {
    for (std::int64_t pc = b; pc < e; ++pc) k3 ? plane_flat<V, 3>(d, pc, masks, buf) : plane_flat<V, 5>(d, pc, masks, buf);
    return;
  }
  const bool direct = k3 ? direct_columns<V, 3>(*d.p, *d.s, first, last_start)
                         : direct_columns<V, 5>(*d.p, *d.s, first, last_start);
  for (std::int64_t pc = b; pc < e; ++pc) {
    if (direct) {
      if (k3) {
        s1 ? plane_direct<V, 3, 1>(d, pc, first, last_start) : plane_direct<V, 3, 2>(d, pc, first, last_start);
      } else {
        s1 ? plane_direct<V, 5, 1>(d, pc, first, last_start) : plane_direct<V, 5, 2>(d, pc, first, last_start);
      }
    } else if (k3) {
      plane<V, 3>(d, pc, buf);
    } else {
      plane<V, 5>(d, pc, buf);
    }
  }
}

// AVX-512: any plane read in place, NR output rows x NV vectors of 16 columns at a time
// (NR * NV independent accumulators: one chain of K*K dependent FMAs per vector would
// wait on the FMA latency), each tap's read one masked load (stride 2: two, split into
// even columns) whose lanes outside the input row read nothing and are zero, so that
// pads, borders and the last partial vector need neither a padded copy nor scalar
// outputs; rows outside the image are an all-zero mask. `masks[v * K + kx]`: the float
// mask of tap column kx for the vector at output column 16 v (`row_masks`).
#if GE_X86_KERNELS
template <int K, int S, int NV, int NR, bool Full>
__attribute__((target(GE_AVX512_FEATURES), always_inline)) inline void masked_block(
    const DepthwisePlanes& d, const float* in, const __m512 (&taps)[K * K], __m512 bias, std::int64_t pc,
    std::int64_t oy, std::int64_t v0, const std::uint32_t* masks) {
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  __m512 acc[NR][NV];
  for (int j = 0; j < NR; ++j)
    for (int v = 0; v < NV; ++v) acc[j][v] = bias;
#pragma GCC unroll 8
  for (int j = 0; j < NR; ++j) {
    const std::int64_t iy0 = (oy + j) * p.stride_h - p.pad_top;
#pragma GCC unroll 5
    for (int ky = 0; ky < K; ++ky) {
      const std::int64_t iy = iy0 + ky;
      const bool inside = iy >= 0 && iy < s.h;
      if (Full && !inside) continue;
      const std::uint32_t keep = inside ? 0xFFFFFFFFu : 0u;
      const float* row = in + iy * s.w - p.pad_left;
#pragma GCC unroll 5
      for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          const std::uint32_t m = masks[(v0 + v) * K + kx] & keep;
          const float* at = row + 16 * (v0 + v) * S + kx;
          __m512 x;
          if constexpr (Full && S == 1) {
            x = _mm512_loadu_ps(at);
          } else if constexpr (Full) {
            x = _mm512_permutex2var_ps(_mm512_loadu_ps(at), even, _mm512_loadu_ps(at + 16));
          } else if constexpr (S == 1) {
            x = _mm512_maskz_loadu_ps(static_cast<__mmask16>(m), at);
          } else {
            const __m512 lo = _mm512_maskz_loadu_ps(static_cast<__mmask16>(m & 0xFFFFu), at);
            const __m512 hi = _mm512_maskz_loadu_ps(static_cast<__mmask16>(m >> 16), at + 16);
            x = _mm512_permutex2var_ps(lo, even, hi);
          }
          acc[j][v] = _mm512_fmadd_ps(taps[ky * K + kx], x, acc[j][v]);
        }
      }
    }
  }
  for (int j = 0; j < NR; ++j) {
    float* out = d.y + (pc * s.oh + oy + j) * s.ow;
    const float* res = d.residual != nullptr ? d.residual + (pc * s.oh + oy + j) * s.ow : nullptr;
    for (int v = 0; v < NV; ++v) {
      const std::int64_t ox0 = 16 * (v0 + v);
      const std::int64_t n = std::min<std::int64_t>(16, s.ow - ox0);
      const auto lanes = static_cast<__mmask16>((1u << n) - 1u);
      __m512 a = acc[j][v];
      if (n == 16) {  // (masked stores are slow on some CPUs)
        if (res != nullptr) a = _mm512_add_ps(a, _mm512_loadu_ps(res + ox0));
        vf16 o = reinterpret_cast<vf16>(a);
        apply_post_inplace(o, p.post);
        _mm512_storeu_ps(out + ox0, reinterpret_cast<__m512>(o));
        continue;
      }
      if (res != nullptr) a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(lanes, res + ox0));
      vf16 o = reinterpret_cast<vf16>(a);
      apply_post_inplace(o, p.post);
      _mm512_mask_storeu_ps(out + ox0, lanes, reinterpret_cast<__m512>(o));
    }
  }
}

// The blocks of rows [oy, oy + R): NV vectors at a time (unmasked where every read is
// inside the row), the last vectors one at a time.
template <int K, int S, int NV, int R>
__attribute__((target(GE_AVX512_FEATURES), always_inline)) inline void row_blocks(
    const DepthwisePlanes& d, const float* in, const __m512 (&taps)[K * K], __m512 bias, std::int64_t pc,
    std::int64_t oy, std::int64_t vectors, std::int64_t vmain, std::int64_t full0, std::int64_t full1,
    const std::uint32_t* masks) {
  for (std::int64_t v = 0; v < vmain; v += NV) {
    if (v >= full0 && v + NV <= full1) {
      masked_block<K, S, NV, R, true>(d, in, taps, bias, pc, oy, v, masks);
    } else {
      masked_block<K, S, NV, R, false>(d, in, taps, bias, pc, oy, v, masks);
    }
  }
  for (std::int64_t v = vmain; v < vectors; ++v) masked_block<K, S, 1, R, false>(d, in, taps, bias, pc, oy, v, masks);
}

// One plane in blocks of NR rows x NV vectors (the last rows one at a time).
template <int K, int S, int NV, int NR>
__attribute__((target(GE_AVX512_FEATURES), always_inline)) inline void plane_masked(
    const DepthwisePlanes& d, std::int64_t pc, const std::uint32_t* masks) {
  const ConvShape& s = *d.s;
  const std::int64_t ch = pc % s.c;
  const float* in = d.x + pc * s.h * s.w;
  const float* wk = d.taps + ch * K * K;
  const __m512 bias = _mm512_set1_ps(d.bias != nullptr ? d.bias[ch] : 0.0f);
  __m512 taps[K * K];
  for (int t = 0; t < K * K; ++t) taps[t] = _mm512_set1_ps(wk[t]);
  const std::int64_t vectors = (s.ow + 15) / 16, vmain = vectors / NV * NV;
  // Vectors [full0, full1): every tap reads whole vectors inside the row.
  const std::uint32_t all = S == 1 ? 0xFFFFu : 0x55555555u;
  std::int64_t full0 = 0, full1 = 0;
  for (std::int64_t v = 0; v < vectors; ++v) {
    bool full = true;
    for (int kx = 0; kx < K; ++kx) full = full && masks[v * K + kx] == all;
    if (full && full1 == v) {
      full1 = v + 1;
    } else if (full && full1 == full0) {
      full0 = v;
      full1 = v + 1;
    }
  }
  // Rows NR at a time, the rest 4, 2 and 1 at a time (a 7-row plane: 4 + 2 + 1).
  std::int64_t oy = 0;
  for (; oy + NR <= s.oh; oy += NR)
    row_blocks<K, S, NV, NR>(d, in, taps, bias, pc, oy, vectors, vmain, full0, full1, masks);
  if constexpr (NR > 4) {
    if (oy + 4 <= s.oh) {
      row_blocks<K, S, NV, 4>(d, in, taps, bias, pc, oy, vectors, vmain, full0, full1, masks);
      oy += 4;
    }
  }
  if constexpr (NR > 2) {
    if (oy + 2 <= s.oh) {
      row_blocks<K, S, NV, 2>(d, in, taps, bias, pc, oy, vectors, vmain, full0, full1, masks);
      oy += 2;
    }
  }
  if (oy < s.oh) row_blocks<K, S, NV, 1>(d, in, taps, bias, pc, oy, vectors, vmain, full0, full1, masks);
}

template <int K, int S>
GE_TARGET_AVX512 void planes_masked(const DepthwisePlanes& d,
                                                                                     std::int64_t b, std::int64_t e,
                                                                                     const std::uint32_t* masks) {
  const std::int64_t vectors = (d.s->ow + 15) / 16;
  for (std::int64_t pc = b; pc < e; ++pc) {
    if (vectors >= 4) {
      plane_masked<K, S, 4, 2>(d, pc, masks);
    } else if (vectors >= 2) {
      plane_masked<K, S, 2, 4>(d, pc, masks);
    } else {
      plane_masked<K, S, 1, 8>(d, pc, masks);
    }
  }
}

// The masks of `plane_masked`: bit j of tap column kx for the vector at output column
// 16 v is set where float j of its read (from input column 16 v * S - pad_left + kx) is a
// column the vector's outputs read (every S-th) inside the row, for outputs inside the row.
std::vector<std::uint32_t> row_masks(const Conv2dParams& p, const ConvShape& s) {
  const std::int64_t k = s.kw, sw = p.stride_w, vectors = (s.ow + 15) / 16;
  std::vector<std::uint32_t> m(static_cast<std::size_t>(vectors * k), 0u);
  for (std::int64_t v = 0; v < vectors; ++v)
    for (std::int64_t kx = 0; kx < k; ++kx)
      for (std::int64_t l = 0; l < 16 && 16 * v + l < s.ow; ++l) {
        const std::int64_t col = (16 * v + l) * sw - p.pad_left + kx;
        if (col >= 0 && col < s.w) m[static_cast<std::size_t>(v * k + kx)] |= 1u << (l * sw);
      }
  return m;
}

#endif

}  // namespace

#if GE_X86_KERNELS
GE_TARGET_AVX512 void depthwise_planes_masked_avx512(const DepthwisePlanes& d, std::int64_t b, std::int64_t e,
                                                     const std::uint32_t* masks) {
  const bool k3 = d.s->kh == 3, s1 = d.p->stride_w == 1;
  if (k3) {
    s1 ? planes_masked<3, 1>(d, b, e, masks) : planes_masked<3, 2>(d, b, e, masks);
  } else {
    s1 ? planes_masked<5, 1>(d, b, e, masks) : planes_masked<5, 2>(d, b, e, masks);
  }
}
GE_TARGET_AVX512 void depthwise_planes_avx512(const DepthwisePlanes& d, std::int64_t b, std::int64_t e, float* buf,
                                              const float* masks) {
  planes<16>(d, b, e, buf, masks);
}
GE_TARGET_AVX2 void depthwise_planes_avx2(const DepthwisePlanes& d, std::int64_t b, std::int64_t e, float* buf,
                                          const float* masks) {
  planes<8>(d, b, e, buf, masks);
}
#endif

bool depthwise_vectorised(const Conv2dParams& p, const ConvShape& s, const float* x, const float* taps,
                          const float* bias, float* y, const float* residual) {
  const CpuKernels& kern = kernels();
  if (kern.depthwise_planes == nullptr || p.dilation_h != 1 || p.dilation_w != 1 || s.kh != s.kw ||
      (s.kh != 3 && s.kh != 5) || p.stride_h < 1 || p.stride_h > 2 || p.stride_w < 1 || p.stride_w > 2)
    return false;
  const DepthwisePlanes d = geometry(p, s, x, taps, bias, y, residual);
  const auto lanes = static_cast<int>(kern.lanes);
  const bool flat = flat_plane(p, s, lanes);
#if GE_X86_KERNELS
  std::int64_t first = 0, last_start = 0;
  const bool in_place = s.kh == 3 ? direct_columns<16, 3>(p, s, first, last_start)
                                  : direct_columns<16, 5>(p, s, first, last_start);
  // Masked rows where the row sweep would copy padded phase planes: narrow planes (or
  // wide pads). Where it reads in place (wide planes) it stays: there it ran as fast or
  // faster (AMD Zen 5, MobileNetV2's 112x112 planes at batch 8: 1.3 against 3.1 ms).
  if (kern.depthwise_planes_masked != nullptr && !flat && !in_place) {
    const std::vector<std::uint32_t> masks = row_masks(p, s);
    parallel_for(s.n * s.c, grain_for(s.oh * s.ow * s.kh * s.kw),
                 [&](std::int64_t b, std::int64_t e) { kern.depthwise_planes_masked(d, b, e, masks.data()); });
    return true;
  }
#endif
  const std::vector<float> masks = flat ? flat_masks(s, lanes) : std::vector<float>{};
  const std::int64_t floats = flat ? s.h * s.w + 2 * (s.kh / 2) * (s.w + 1) + lanes
                                   : p.stride_w * d.ph * d.hs + d.slack + p.stride_w * d.hs;  // + one padded row
  parallel_for(s.n * s.c, grain_for(s.oh * s.ow * s.kh * s.kw), [&](std::int64_t b, std::int64_t e) {
    PooledBuffer buf(floats);
    kern.depthwise_planes(d, b, e, buf.data(), flat ? masks.data() : nullptr);
  });
  return true;
}

}  // namespace ge::cpu
