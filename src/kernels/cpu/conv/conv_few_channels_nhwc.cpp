// A dense conv over few input channels (at most `kFewChannels`) to NHWC images: an image
// net's first conv once the layout pass takes it (ge::layout_nhwc), reading the image NHWC
// or as the model takes it, NCHW (ge::fold_transposes: no transpose before the chain).
#include <algorithm>
#include <array>
#include <cstring>

#include <tbb/task_arena.h>

#include "ge/shape/window.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/common.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/vec.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Conv";

}  // namespace

namespace {

// A dense conv with few input channels on NHWC images (an image net's first conv once
// the layout pass takes it): per output pixel, K = KH*KW*C products into the output
// channels, 8 pixels x 2 vectors of output channels side by side (16 pixels x 1 where
// one vector holds the rest; with AVX2's 16 registers 6 x 2 and 12 x 1), each input float
// broadcast once per pixel, each tap's weight vectors loaded once per block of pixels.
constexpr int kMaxDenseTaps = 7 * 7 * 4;  // the largest first conv it serves: 7x7 over 4 channels

}  // namespace

struct FewChannelsRows {
  const Conv2dParams* p;
  std::int64_t n, h, w, c, oh, ow, kh, kw, m;  // m output channels
  const float* x;
  std::int64_t ps, cs;  // floats to the next input pixel, channel (NHWC: c, 1; NCHW: 1, h * w)
  const float* wt;  // [kh][kw][c][m_pad]
  std::int64_t m_pad;
  const float* bias;
  float* y;
  const float* residual;
};

namespace {

// Output channels [m0, m0 + NV * V) of output row r, PX pixels at a time: 8 pixels x 2
// vectors of channels, or where the channels fit one vector 16 pixels x 1 (a stem of 16
// outputs: no FMAs on a padded second vector).
// kInside: the blocks whose every tap lies inside the row (`dense_row` says which), one
// flat loop over the taps; else the tested loops. (Both loops in one body kept five of the
// sixteen accumulators on the stack, a load and a store per tap each: 55% of the peak.)
template <int V, int NV, int PX, bool kInside>
inline __attribute__((always_inline)) void dense_block(const FewChannelsRows& d, std::int64_t r, std::int64_t m0,
                                                       int taps, const std::int64_t* wrow_of,
                                                       const std::int64_t* off_of, bool flat, std::int64_t ox_b,
                                                       std::int64_t ox_e) {
  using vf = VecOf<V>;
  const Conv2dParams& p = *d.p;
  const std::int64_t img = r / d.oh, oy = r % d.oh;
  const float* in = d.x + img * d.h * d.w * d.c;
  float* out = d.y + r * d.ow * d.m;
  const float* res = d.residual != nullptr ? d.residual + r * d.ow * d.m : nullptr;
  const std::int64_t step = p.stride_w * d.ps;
  const int nv = d.m - m0 > V ? 2 : 1;
  vf b[NV];
  for (int v = 0; v < NV; ++v) b[v] = vf{} + 0.0f;
  if (d.bias != nullptr)
    for (int v = 0; v < nv; ++v) b[v] = load_lanes<vf>(d.bias + m0 + v * V, std::min<std::int64_t>(V, d.m - m0 - v * V));
  for (std::int64_t ox0 = ox_b; ox0 < ox_e; ox0 += PX) {
    const int px = static_cast<int>(std::min<std::int64_t>(PX, ox_e - ox0));
    vf acc[PX][NV];
#pragma GCC unroll 16
    for (int i = 0; i < PX; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = b[v];
    if constexpr (kInside) {  // every tap of the PX pixels inside the row: no test per pixel
      (void)flat;
      const std::int64_t first = ox0 * p.stride_w - p.pad_left;
      const float* base = in + first * d.ps;
      const float* wbase = d.wt + m0;
      for (int t = 0; t < taps; ++t) {
        vf w[NV];
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v) std::memcpy(&w[v], wbase + wrow_of[t] + v * V, sizeof(vf));
        const float* src = base + off_of[t];
#pragma GCC unroll 16
        for (int i = 0; i < PX; ++i) {
          const float x = src[i * step];
#pragma GCC unroll 2
          for (int v = 0; v < NV; ++v) acc[i][v] += x * w[v];
        }
      }
    }
    for (std::int64_t ky = 0; ky < d.kh && !kInside; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= d.h) continue;
      for (std::int64_t kx = 0; kx < d.kw; ++kx)
        for (std::int64_t ci = 0; ci < d.c; ++ci) {
          const float* wrow = d.wt + ((ky * d.kw + kx) * d.c + ci) * d.m_pad + m0;
          vf w[NV];
#pragma GCC unroll 2
          for (int v = 0; v < NV; ++v) std::memcpy(&w[v], wrow + v * V, sizeof(vf));  // (m_pad: NV vectors past m0)
#pragma GCC unroll 16
          for (int i = 0; i < PX; ++i) {
            const std::int64_t ix = (ox0 + i) * p.stride_w - p.pad_left + kx * p.dilation_w;
            if (i >= px || ix < 0 || ix >= d.w) continue;
            const float x = in[(iy * d.w + ix) * d.ps + ci * d.cs];
#pragma GCC unroll 2
            for (int v = 0; v < NV; ++v) acc[i][v] += x * w[v];
          }
        }
    }
#pragma GCC unroll 16
    for (int i = 0; i < PX; ++i)  // (constant indices: acc stays in registers)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) {
        if (i >= px || v >= nv) break;
        const std::int64_t lanes = std::min<std::int64_t>(V, d.m - m0 - v * V);
        const std::int64_t at = (ox0 + i) * d.m + m0 + v * V;
        vf a = acc[i][v];
        if (res != nullptr) a += load_lanes<vf>(res + at, lanes);
        store_lanes(out + at, apply_post_v(a, p.post), lanes);
      }
  }
}

template <int V>
inline __attribute__((always_inline)) void dense_row(const FewChannelsRows& d, std::int64_t r) {
  const Conv2dParams& p = *d.p;
  const std::int64_t oy = r % d.oh;
  // The taps of this row inside the image, as (weight row, input offset from the first
  // pixel's column): the interior blocks run one flat loop over them.
  std::int64_t wrow_of[kMaxDenseTaps], off_of[kMaxDenseTaps];
  int taps = 0;
  const bool flat = d.kh * d.kw * d.c <= kMaxDenseTaps;  // else every block takes the loops below
  // (NCHW planes one after the other: consecutive taps read along one row of one plane)
  const bool planes = d.cs != 1;
  for (std::int64_t outer = 0; outer < (planes ? d.c : 1) && flat; ++outer)
    for (std::int64_t ky = 0; ky < d.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= d.h) continue;
      for (std::int64_t kx = 0; kx < d.kw; ++kx)
        for (std::int64_t ci = planes ? outer : 0; ci < (planes ? outer + 1 : d.c); ++ci) {
          wrow_of[taps] = ((ky * d.kw + kx) * d.c + ci) * d.m_pad;
          off_of[taps] = (iy * d.w + kx * p.dilation_w) * d.ps + ci * d.cs;
          ++taps;
        }
    }
  // The columns whose taps all lie inside the row, [lo, hi): there whole blocks of pixels
  // take the fast loop, the last few as blocks of 4 and single pixels; only the columns
  // the padding reaches go pixel by pixel through the tested loop.
  const std::int64_t lo = std::min(d.ow, window_tap_outputs(d.w, d.ow, p.stride_w, -p.pad_left).first);
  const std::int64_t last = (d.kw - 1) * p.dilation_w - p.pad_left;  // the last tap's offset
  const std::int64_t hi = std::max(lo, window_tap_outputs(d.w, d.ow, p.stride_w, last).second);
  // (always_inline: out of line, the lambda of dense_row<8> is one function for the baseline
  // and the AVX2 callers, compiled for the baseline: 4 GFLOP/s on AVX2 machines)
  const auto columns = [&]<int NV, int PX>(std::int64_t m0) __attribute__((always_inline)) {
    std::int64_t ox = lo;
    dense_block<V, NV, 1, false>(d, r, m0, taps, wrow_of, off_of, flat, 0, lo);
    if (flat) {
      for (; ox + PX <= hi; ox += PX) dense_block<V, NV, PX, true>(d, r, m0, taps, wrow_of, off_of, flat, ox, ox + PX);
      for (; ox + 4 <= hi; ox += 4) dense_block<V, NV, 4, true>(d, r, m0, taps, wrow_of, off_of, flat, ox, ox + 4);
    }
    dense_block<V, NV, 1, false>(d, r, m0, taps, wrow_of, off_of, flat, ox, d.ow);
  };
  // Accumulators: 16 of AVX-512's 32 registers; with 16 registers (AVX2) 12, leaving room
  // for the weight vectors and the broadcast input.
  constexpr int kPair = V == 16 ? 8 : 6, kLone = V == 16 ? 16 : 12;
  for (std::int64_t m0 = 0; m0 < d.m; m0 += 2 * V) {
    if (d.m - m0 > V) {
      columns.template operator()<2, kPair>(m0);
    } else {
      columns.template operator()<1, kLone>(m0);
    }
  }
}

}  // namespace

void few_channels_rows_base(const FewChannelsRows& d, std::int64_t b, std::int64_t e) {
  for (std::int64_t r = b; r < e; ++r) dense_row<8>(d, r);
}
#if GE_X86_KERNELS
GE_TARGET_AVX512 void few_channels_rows_avx512(const FewChannelsRows& d, std::int64_t b, std::int64_t e) {
  for (std::int64_t r = b; r < e; ++r) dense_row<16>(d, r);
}
GE_TARGET_AVX2 void few_channels_rows_avx2(const FewChannelsRows& d, std::int64_t b, std::int64_t e) {
  for (std::int64_t r = b; r < e; ++r) dense_row<8>(d, r);
}
#endif

PackedFewChannelsNhwc pack_few_channels_nhwc(const TensorView& w, bool bf16) {
  check_dtype(kOp, "W", w, DataType::f32);
  check_rank(kOp, "W", w, 4);
  if (w.dims[1] > kFewChannels)
    fail(Errc::unsupported, kOp, "weights " + bracketed(w.dims) + ": the NHWC dense conv takes at most 4 input channels");
  PackedFewChannelsNhwc p;
  p.m = w.dims[0];
  p.c = w.dims[1];
  p.kh = w.dims[2];
  p.kw = w.dims[3];
  p.m_pad = (p.m + 31) / 32 * 32;
  if (bf16 && bf16_usable()) {
    pack_few_channels_bf16(w, p);
    return p;
  }
  const std::int64_t k = p.kh * p.kw * p.c;
  p.w = Scratch(k * p.m_pad);
  std::fill(p.w.data(), p.w.data() + k * p.m_pad, 0.0f);
  const float* src = w.as<const float>();
  for (std::int64_t o = 0; o < p.m; ++o)
    for (std::int64_t ci = 0; ci < p.c; ++ci)
      for (std::int64_t t = 0; t < p.kh * p.kw; ++t)
        p.w.data()[(t * p.c + ci) * p.m_pad + o] = src[(o * p.c + ci) * p.kh * p.kw + t];
  return p;
}

void conv_few_channels_nhwc(const Conv2dParams& p, const TensorView& x, const PackedFewChannelsNhwc& w,
                            const TensorView* bias, const TensorView& y, const TensorView* residual, bool x_nchw) {
  check_rank(kOp, "X", x, 4);
  if (p.group != 1) fail(Errc::bad_attribute, kOp, "group " + std::to_string(p.group) + ": expected 1");
  const std::int64_t channels = x.dims[x_nchw ? 1 : 3];
  if (channels != w.c)
    fail(Errc::bad_op_inputs, kOp,
         std::string(x_nchw ? "NCHW" : "NHWC") + " X " + bracketed(x.dims) + " has " + std::to_string(channels) +
             " channels; the weights expect " + std::to_string(w.c));
  // (the checks read X's dims as NHWC)
  const std::array<std::int64_t, 4> nhwc{x.dims[0], x.dims[x_nchw ? 2 : 1], x.dims[x_nchw ? 3 : 2], channels};
  const NhwcIo io = check_nhwc(p, TensorView{x.data, x.dtype, nhwc}, w.kh, w.kw, w.m, bias, y, residual);
  if (w.bf16) {
    if (y.elements() != 0) conv_few_channels_bf16(p, x, w, io, y, x_nchw);
    return;
  }
  const std::int64_t h = nhwc[1], wd = nhwc[2];
  const std::int64_t ps = x_nchw ? 1 : w.c, cs = x_nchw ? h * wd : 1;
  FewChannelsRows d{
      &p, nhwc[0], h,          wd,      w.c,     io.oh,         io.ow,      w.kh, w.kw, w.m, x.as<const float>(),
      ps, cs,      w.w.data(), w.m_pad, io.bias, y.as<float>(), io.residual};
  if (y.elements() == 0) return;
  parallel_for(d.n * d.oh, grain_for(d.ow * d.m * d.kh * d.kw * d.c),
               [&](std::int64_t b, std::int64_t e) { kernels().few_channels_rows(d, b, e); });
}

}  // namespace ge::cpu
