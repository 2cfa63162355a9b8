// The dense conv over few input channels (an image net's first: conv_few_channels_nhwc.cpp)
// with bf16 products (`Precision::bf16` on AVX512-BF16, kernels/cpu/gemm/amx.hpp): two
// neighbouring taps of a row, kx and kx + 1, make one K pair of `vdpbf16ps`. The image is
// first rewritten per channel plane as pairs: word (iy, q) holds x[iy][q - pad_left] and
// x[iy][q - pad_left + 1] in bf16 (zeros outside the row), so that a pixel's pair for taps
// (kx, kx + 1) is one broadcast word, times the weights' vector of 16 outputs for those
// two taps. A 7x7 stem over 3 channels takes 84 dot products a pixel and output vector
// where the f32 kernel takes 147 FMAs. f32 sums; bias, residual and ReLU/Clip on the
// store, as the f32 kernel.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/gemm/amx.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GE_FEW_BF16 1
#else
#define GE_FEW_BF16 0
#endif

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Conv";
constexpr std::int64_t kMaxPx = 16;  // the widest block of pixels a task computes

struct FewBf16Rows {
  const Conv2dParams* p;
  std::int64_t n, h, c, oh, ow, kh, kxp, m, m_pad;
  const std::uint32_t* pairs;  // [n][c][h][wp]
  std::int64_t wp;
  const std::uint16_t* wt;  // [c][kh][kxp][m_pad][2]
  const float* bias;
  float* y;
  const float* residual;
};

#if GE_FEW_BF16
#define GE_FEW_BF16_ISA "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma"

__attribute__((target(GE_FEW_BF16_ISA))) inline __mmask16 lanes_of(std::int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << std::max<std::int64_t>(n, 0)) - 1);
}

// Output channels [m0, m0 + 16 * NV) of PX pixels from ox0 of output row r.
template <int NV, int PX>
__attribute__((target(GE_FEW_BF16_ISA), always_inline)) inline void block(const FewBf16Rows& d, std::int64_t r,
                                                                          std::int64_t m0, std::int64_t ox0) {
  const Conv2dParams& p = *d.p;
  const std::int64_t img = r / d.oh, oy = r % d.oh, sw = p.stride_w;
  __mmask16 mk[NV];
  __m512 acc[PX][NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    mk[v] = lanes_of(d.m - m0 - 16 * v);
    const __m512 b = d.bias != nullptr ? _mm512_maskz_loadu_ps(mk[v], d.bias + m0 + 16 * v) : _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int i = 0; i < PX; ++i) acc[i][v] = b;
  }
  for (std::int64_t ci = 0; ci < d.c; ++ci)
    for (std::int64_t ky = 0; ky < d.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= d.h) continue;
      const std::uint32_t* row = d.pairs + ((img * d.c + ci) * d.h + iy) * d.wp + ox0 * sw;
      const std::uint16_t* wrow = d.wt + (ci * d.kh + ky) * d.kxp * d.m_pad * 2 + m0 * 2;
      for (std::int64_t j = 0; j < d.kxp; ++j) {
        __m512bh w[NV];
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
          w[v] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(wrow + (j * d.m_pad + 16 * v) * 2));
#pragma GCC unroll 16
        for (int i = 0; i < PX; ++i) {
          const __m512bh a = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(row[i * sw + 2 * j])));
#pragma GCC unroll 2
          for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], a, w[v]);
        }
      }
    }
  const std::int64_t px = std::min<std::int64_t>(PX, d.ow - ox0);
  const __m512 zero = _mm512_setzero_ps(), lo = _mm512_set1_ps(p.post.lo), hi = _mm512_set1_ps(p.post.hi);
  const __mmask16 all = 0xffff;
#pragma GCC unroll 16
  for (int i = 0; i < PX; ++i) {
    if (i >= px) break;
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      const std::int64_t at = (r * d.ow + ox0 + i) * d.m + m0 + 16 * v;
      __m512 a = acc[i][v];
      if (d.residual != nullptr) a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(mk[v], d.residual + at));
      // (the masked forms: GCC 12 warns of the plain ones' undefined source)
      if (p.post.kind == Activation::relu) a = _mm512_mask_max_ps(a, all, a, zero);  // (NaN -> 0, as apply_post)
      if (p.post.kind == Activation::clip) {
        a = _mm512_mask_max_ps(a, all, lo, a);  // (NaN stays)
        a = _mm512_mask_min_ps(a, all, hi, a);
      }
      _mm512_mask_storeu_ps(d.y + at, mk[v], a);
    }
  }
}

__attribute__((target(GE_FEW_BF16_ISA))) void rows(const FewBf16Rows& d, std::int64_t b, std::int64_t e) {
  for (std::int64_t r = b; r < e; ++r)
    for (std::int64_t m0 = 0; m0 < d.m; m0 += 32) {
      if (d.m - m0 > 16) {
        for (std::int64_t ox0 = 0; ox0 < d.ow; ox0 += 8) block<2, 8>(d, r, m0, ox0);
      } else {
        for (std::int64_t ox0 = 0; ox0 < d.ow; ox0 += 16) block<1, 16>(d, r, m0, ox0);
      }
    }
}
#endif

}  // namespace

void pack_few_channels_bf16(const TensorView& w, PackedFewChannelsNhwc& p) {
  p.bf16 = true;
  const std::int64_t kxp = (p.kw + 1) / 2, count = p.c * p.kh * kxp * p.m_pad * 2;
  p.w = Scratch(count / 2);
  auto* d = reinterpret_cast<std::uint16_t*>(p.w.data());
  std::fill(d, d + count, std::uint16_t{0});
  const float* src = w.as<const float>();
  for (std::int64_t ci = 0; ci < p.c; ++ci)
    for (std::int64_t ky = 0; ky < p.kh; ++ky)
      for (std::int64_t kx = 0; kx < p.kw; ++kx)
        for (std::int64_t o = 0; o < p.m; ++o)
          d[(((ci * p.kh + ky) * kxp + kx / 2) * p.m_pad + o) * 2 + kx % 2] =
              to_bf16(src[((o * p.c + ci) * p.kh + ky) * p.kw + kx]);
}

void conv_few_channels_bf16(const Conv2dParams& p, const TensorView& x, const PackedFewChannelsNhwc& w,
                            const NhwcIo& io, const TensorView& y, bool x_nchw) {
  if (p.dilation_w != 1)
    fail(Errc::unsupported, kOp,
         "the bf16 conv over few input channels pairs neighbouring taps of a row: dilation " +
             std::to_string(p.dilation_w) + " across is not 1");
#if GE_FEW_BF16
  if (!bf16_usable()) fail(Errc::internal, kOp, "weights packed in bf16, but no bf16 kernels run here");
  const std::int64_t n = y.dims[0], h = x.dims[x_nchw ? 2 : 1], wd = x.dims[x_nchw ? 3 : 2], c = w.c;
  const std::int64_t kxp = (w.kw + 1) / 2;
  // Every pair a computed pixel reads: whole blocks of 16 pixels, their last pair.
  const std::int64_t wp = ((io.ow + kMaxPx - 1) / kMaxPx * kMaxPx - 1) * p.stride_w + 2 * kxp;
  PooledBuffer pairs(n * c * h * wp);
  auto* pw = reinterpret_cast<std::uint32_t*>(pairs.data());
  const float* px = x.as<const float>();
  parallel_for(n * c * h, grain_for(wp * 8), [&](std::int64_t b, std::int64_t e) {
    std::vector<float> line(static_cast<std::size_t>(wp + 1), 0.0f);
    std::vector<std::uint16_t> half(static_cast<std::size_t>(wp + 1));
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t img = t / (c * h), ci = t / h % c, iy = t % h;
      // The row's floats at their padded columns, zeros around them.
      std::fill(line.begin(), line.end(), 0.0f);
      const std::int64_t first = std::max<std::int64_t>(0, -p.pad_left), last = std::min(wd, wp + 1 - p.pad_left);
      if (x_nchw) {
        const float* src = px + ((img * c + ci) * h + iy) * wd;
        for (std::int64_t ix = first; ix < last; ++ix) line[static_cast<std::size_t>(ix + p.pad_left)] = src[ix];
      } else {
        const float* src = px + (img * h + iy) * wd * c + ci;
        for (std::int64_t ix = first; ix < last; ++ix) line[static_cast<std::size_t>(ix + p.pad_left)] = src[ix * c];
      }
      to_bf16_run(line.data(), wp + 1, half.data());
      std::uint32_t* dst = pw + t * wp;
      for (std::int64_t q = 0; q < wp; ++q)
        dst[q] = static_cast<std::uint32_t>(half[static_cast<std::size_t>(q)]) |
                 static_cast<std::uint32_t>(half[static_cast<std::size_t>(q + 1)]) << 16;
    }
  });
  const FewBf16Rows d{&p,       n,   h,  c,  io.oh, io.ow, w.kh, kxp, w.m,
                      w.m_pad, pw,  wp, reinterpret_cast<const std::uint16_t*>(w.w.data()),
                      io.bias, y.as<float>(), io.residual};
  parallel_for(n * io.oh, grain_for(io.ow * w.m * w.kh * kxp * c * 2),
               [&](std::int64_t b, std::int64_t e) { rows(d, b, e); });
#else
  (void)x;
  (void)w;
  (void)io;
  (void)y;
  (void)x_nchw;
  fail(Errc::internal, kOp, "weights packed in bf16, but this build has no bf16 kernels");
#endif
}

}  // namespace ge::cpu
