// Direct convolution for few input channels (the first conv of image nets: 3 channels,
// 3x3 or 7x7, stride 2): K = Cin*KH*KW is too small for a GEMM over patches to pay for
// packing them, so each output row is computed straight from the input rows; and for few
// output channels (the last conv of a generator, to 3 channels), where the GEMM's patches
// cost more than its few rows of products.
//
// Per (image, output row) the Cin*KH input rows it reads are copied zero-padded (so that
// no read needs a bounds test). Then per block of 16 output channels and V output
// columns, V-lane accumulators (16 on AVX-512, 8 twice on AVX2) take, per tap, one load
// of the V input columns it reads (stride 2: the even lanes of two loads) and one FMA per
// channel with the tap's weight broadcast from the packed block [tap][16]; the bias,
// residual and activation are applied as they are stored. Horizontal strides 1 and 2.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/vec.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

constexpr std::int64_t kBlock = 16;  // output channels per packed weight block

}  // namespace

struct DirectConvRows {
  const Conv2dParams* p;
  const ConvShape* s;
  const float* x;
  const float* w;  // [cout / 16][cin * kh * kw][16]
  const float* bias;
  float* y;
  const float* residual;
  std::int64_t hs;  // floats per padded row
};

namespace {

// The padded input rows of output row `oy` of image `n`: (ci, ky) at buf + (ci * kh + ky) * hs.
void fill_rows(const DirectConvRows& d, std::int64_t n, std::int64_t oy, float* buf) {
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  for (std::int64_t ci = 0; ci < s.c; ++ci)
    for (std::int64_t ky = 0; ky < s.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky;
      float* row = buf + (ci * s.kh + ky) * d.hs;
      if (iy < 0 || iy >= s.h) {
        std::fill(row, row + d.hs, 0.0f);
        continue;
      }
      std::fill(row, row + p.pad_left, 0.0f);
      std::memcpy(row + p.pad_left, d.x + ((n * s.c + ci) * s.h + iy) * s.w, sizeof(float) * static_cast<std::size_t>(s.w));
      std::fill(row + p.pad_left + s.w, row + d.hs, 0.0f);
    }
}

template <int V, int C, int S>
inline __attribute__((always_inline)) void row_block(const DirectConvRows& d, std::int64_t n, std::int64_t oy,
                                                     std::int64_t co0, int lane0, const float* buf) {
  using vf = VecOf<V>;
  const Conv2dParams& p = *d.p;
  const ConvShape& s = *d.s;
  const std::int64_t taps = s.c * s.kh * s.kw;
  const float* wb = d.w + (co0 / kBlock) * taps * kBlock + lane0;
  const std::int64_t channels = std::min<std::int64_t>(C, s.cout - co0 - lane0);
  for (std::int64_t ox0 = 0; ox0 < s.ow; ox0 += V) {
    vf acc[C];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) acc[c] = vf{} + (d.bias != nullptr && c < channels ? d.bias[co0 + lane0 + c] : 0.0f);
    for (std::int64_t ci = 0; ci < s.c; ++ci)
      for (std::int64_t ky = 0; ky < s.kh; ++ky) {
        const float* row = buf + (ci * s.kh + ky) * d.hs + ox0 * S;
        const float* wt = wb + (ci * s.kh + ky) * s.kw * kBlock;
        for (std::int64_t kx = 0; kx < s.kw; ++kx) {
          const vf v = load_columns<V, S>(row + kx);
#pragma GCC unroll 16
          for (int c = 0; c < C; ++c) acc[c] += wt[kx * kBlock + c] * v;
        }
      }
    const std::int64_t lanes = std::min<std::int64_t>(V, s.ow - ox0);
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {  // unrolled: acc stays in registers
      if (c >= channels) break;
      const std::int64_t at = ((n * s.cout + co0 + lane0 + c) * s.oh + oy) * s.ow + ox0;
      vf a = acc[c];
      if (d.residual != nullptr) a += load_lanes<vf>(d.residual + at, lanes);
      a = apply_post_v(a, p.post);
      store_lanes(d.y + at, a, lanes);
    }
  }
}

template <int V, int S>
inline __attribute__((always_inline)) void rows_s(const DirectConvRows& d, std::int64_t b, std::int64_t e, float* buf) {
  const ConvShape& s = *d.s;
  for (std::int64_t t = b; t < e; ++t) {
    const std::int64_t n = t / s.oh, oy = t % s.oh;
    fill_rows(d, n, oy, buf);
    if (s.cout <= 4) {  // few outputs: 4 accumulators per tap, not a block of 16 mostly zero
      row_block<V, 4, S>(d, n, oy, 0, 0, buf);
      continue;
    }
    for (std::int64_t co0 = 0; co0 < s.cout; co0 += kBlock) {
      if constexpr (V == 16) {
        row_block<16, 16, S>(d, n, oy, co0, 0, buf);
      } else {
        row_block<8, 8, S>(d, n, oy, co0, 0, buf);
        if (co0 + 8 < s.cout) row_block<8, 8, S>(d, n, oy, co0, 8, buf);
      }
    }
  }
}

template <int V>
inline __attribute__((always_inline)) void rows(const DirectConvRows& d, std::int64_t b, std::int64_t e, float* buf) {
  d.p->stride_w == 1 ? rows_s<V, 1>(d, b, e, buf) : rows_s<V, 2>(d, b, e, buf);
}

}  // namespace

#if GE_X86_KERNELS
GE_TARGET_AVX512 void direct_conv_rows_avx512(const DirectConvRows& d, std::int64_t b, std::int64_t e, float* buf) {
  rows<16>(d, b, e, buf);
}
GE_TARGET_AVX2 void direct_conv_rows_avx2(const DirectConvRows& d, std::int64_t b, std::int64_t e, float* buf) {
  rows<8>(d, b, e, buf);
}
#endif

// Few input channels (K small: patches do not pay for their packing), or few output
// channels (a conv to an image's 3 channels: a GEMM with M = 3 over patches spends its time
// writing K x pixels patches for 6 flops each, 6 GFLOP/s on a 9x9 conv from 32 channels;
// here each tap is one load for 16 FMAs of which cout are used, K up to 8192 taps).
bool direct_fits(std::int64_t cin_per_group, std::int64_t cout, std::int64_t kh, std::int64_t kw, const Conv2dParams& p) {
  const std::int64_t k = cin_per_group * kh * kw;
  const bool shape = (k <= 160 && cin_per_group <= 4) || (cout <= 4 && k <= 8192);
  return kernels().direct_conv_rows != nullptr && p.group == 1 && shape && p.dilation_h == 1 && p.dilation_w == 1 &&
         p.stride_w <= 2;
}

std::int64_t direct_weights_size(std::int64_t cout, std::int64_t k) { return (cout + kBlock - 1) / kBlock * k * kBlock; }

void pack_direct_weights(std::int64_t cout, std::int64_t k, const float* w, float* dst) {
  std::fill(dst, dst + direct_weights_size(cout, k), 0.0f);
  for (std::int64_t co = 0; co < cout; ++co)
    for (std::int64_t q = 0; q < k; ++q) dst[(co / kBlock * k + q) * kBlock + co % kBlock] = w[co * k + q];
}

void conv_direct(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                 const float* pbias, float* py, const float* pres) {
  DirectConvRowsFn* const fn = kernels().direct_conv_rows;
  const std::int64_t lanes = kernels().lanes;
  DirectConvRows d{&p, &s, px, w.data.data(), pbias, py, pres, 0};
  // A padded row: the last vector of a row starts before ow and reads (stride 2: two
  // loads) up to s * (ow - 1) + kw - 1 + s * lanes; the row holds pad_left + w floats.
  d.hs = std::max(p.stride_w * (s.ow + lanes) + s.kw, p.pad_left + s.w);
  const std::int64_t floats = s.c * s.kh * d.hs;
  parallel_for(s.n * s.oh, grain_for(s.ow * s.cout * s.c * s.kh * s.kw), [&](std::int64_t b, std::int64_t e) {
    PooledBuffer buf(floats);
    fn(d, b, e, buf.data());
  });
}

}  // namespace ge::cpu
