// Depthwise convolution on NHWC images (the layout `ge::layout_nhwc` gives chains of
// pointwise and depthwise convs): a pixel's channels are contiguous, so every vector of
// channels is whole, whatever the image's size or the stride. Per output row (in
// parallel over rows) and per vector of channels, the taps stay in registers and
// blocks of 8 pixels accumulate side by side (8 independent FMA chains); a tap is one
// load of the input pixel's channel vector. Pixels whose window crosses the left or
// right edge take the taps inside the image only; rows outside it are skipped; channels
// past the last whole vector take one more vector ending at the last channel.
#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tbb/task_arena.h>

#include "ge/shape/window.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/common.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/depthwise/depthwise_internal.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/vec.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Conv";

}  // namespace

struct DepthwiseNhwcRows : DepthwiseNhwcJob {
  bool fetch_ahead = false;  // the image and output outgrow L2: rows fetch the next row's (`RowAhead`)
  std::int64_t ox_lo = 0, ox_hi = 0;  // pixels [ox_lo, ox_hi) read inside the row with every tap
};

namespace {

constexpr int kPixels = 8;  // pixels accumulated side by side
constexpr int kMaxTaps = kMaxDepthwiseTaps;

// One output pixel, channels [c0, c1), every tap checked (edges, and channels one at a time).
inline void pixel_checked(const DepthwiseNhwcRows& d, const float* const* rowp, std::int64_t ox, std::int64_t c0,
                          std::int64_t c1, float* out, const float* res) {
  const Conv2dParams& p = *d.p;
  for (std::int64_t ch = c0; ch < c1; ++ch) {
    float acc = d.bias != nullptr ? d.bias[ch] : 0.0f;
    for (std::int64_t ky = 0; ky < d.kh; ++ky) {
      if (rowp[ky] == nullptr) continue;
      for (std::int64_t kx = 0; kx < d.kw; ++kx) {
        const std::int64_t ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        if (ix < 0 || ix >= d.w) continue;
        acc += d.taps[(ky * d.kw + kx) * d.c + ch] * rowp[ky][ix * d.c + ch];
      }
    }
    if (res != nullptr) acc += res[ox * d.c + ch];
    out[ox * d.c + ch] = apply_post(acc, p.post);
  }
}

// Blocks of 8 (then one of 4) inner pixels [mid, hi) by columns, channels [c0, c0 + V)
// (see `row_at`); returns the first pixel left.
template <int V, int KW, int S, class Finish>
inline __attribute__((always_inline)) std::int64_t inner_by_columns(const DepthwiseNhwcRows& d,
                                                                    const float* const* rowp, std::int64_t ky0,
                                                                    std::int64_t ky1, const float* taps,
                                                                    std::int64_t c0, VecOf<V> b, std::int64_t mid,
                                                                    std::int64_t hi, Finish& finish) {
  using vf = VecOf<V>;
  // A 3x3 conv's 9 taps stay in registers for the whole row (taller kernels load each tap
  // row's taps per block).
  constexpr bool kHoist = KW == 3;
  const bool hoist = kHoist && d.kh <= 3;
  vf kept[kHoist ? 9 : 1];
  if (hoist)
    for (std::int64_t t = ky0 * 3; t < ky1 * 3; ++t) std::memcpy(&kept[t], taps + t * d.c, sizeof(vf));
  const auto pixels = [&](auto px) __attribute__((always_inline)) {
    constexpr int PX = decltype(px)::value;
    vf acc[PX];
    for (int i = 0; i < PX; ++i) acc[i] = b;
    for (std::int64_t ky = ky0; ky < ky1; ++ky) {
      vf t[KW];
      if (hoist)
        for (int k = 0; k < KW; ++k) t[k] = kept[kHoist ? ky * KW + k : 0];
      else
        for (int k = 0; k < KW; ++k) std::memcpy(&t[k], taps + (ky * KW + k) * d.c, sizeof(vf));
      columns<V, KW, S, 1, PX>(rowp[ky] + (mid * S - d.p->pad_left) * d.c + c0, d.c, t, acc,
                               std::make_integer_sequence<int, (PX - 1) * S + KW>{});
    }
#pragma GCC unroll 8
    for (int i = 0; i < PX; ++i) finish(acc[i], mid + i);
    mid += PX;
  };
  while (mid + 8 <= hi) pixels(std::integral_constant<int, 8>{});
  if (mid + 4 <= hi) pixels(std::integral_constant<int, 4>{});
  return mid;
}

// `inner_by_columns` for kernels 3, 5 and 7 wide at horizontal stride 1 or 2 without
// dilation; `mid` for the others.
template <int V, class Finish>
inline __attribute__((always_inline)) std::int64_t by_columns(const DepthwiseNhwcRows& d, const float* const* rowp,
                                                              std::int64_t ky0, std::int64_t ky1, const float* taps,
                                                              std::int64_t c0, VecOf<V> b, std::int64_t mid,
                                                              std::int64_t hi, Finish& finish) {
  const Conv2dParams& p = *d.p;
  if (p.dilation_w != 1 || (p.stride_w != 1 && p.stride_w != 2)) return mid;
  const bool s1 = p.stride_w == 1;
  switch (d.kw) {
    case 3: return s1 ? inner_by_columns<V, 3, 1>(d, rowp, ky0, ky1, taps, c0, b, mid, hi, finish)
                      : inner_by_columns<V, 3, 2>(d, rowp, ky0, ky1, taps, c0, b, mid, hi, finish);
    case 5: return s1 ? inner_by_columns<V, 5, 1>(d, rowp, ky0, ky1, taps, c0, b, mid, hi, finish)
                      : inner_by_columns<V, 5, 2>(d, rowp, ky0, ky1, taps, c0, b, mid, hi, finish);
    case 7: return s1 ? inner_by_columns<V, 7, 1>(d, rowp, ky0, ky1, taps, c0, b, mid, hi, finish)
                      : inner_by_columns<V, 7, 2>(d, rowp, ky0, ky1, taps, c0, b, mid, hi, finish);
    default: return mid;
  }
}

// What the next output row of a sweep over an image reads and writes that this one does
// not: its new input rows (up to 2, `in_floats` each), its output and residual rows
// (`out_floats`). `row_at` fetches them spread over its channel vectors: rows of an image
// out of the caches (a layer's input and output at batch sizes, or a 10 x 10 x 3840
// image) are read a cache line per pixel per vector, strides the hardware does not run
// ahead of.
struct RowAhead {
  const float* in[2] = {nullptr, nullptr};
  float* out = nullptr;
  const float* res = nullptr;
  std::int64_t in_floats = 0, out_floats = 0;
};

// Output row `oy` into `out` (`res`: its residual row, or null), the input row of tap row
// ky at `rowp[ky]` (null outside the image): the rows may lie anywhere (an image, or the
// ring of rows the pointwise + depthwise kernel expands).
// `Cols` (AVX-512): the inner pixels of a conv 3, 5 or 7 taps wide at horizontal stride 1
// or 2 without dilation go in blocks of 8 (then 4) that load each input column once for
// all the taps that read it: per tap row of a 3x3 conv at stride 1, 10 loads for 24 FMAs,
// not 24 (Zen 4, 2 threads, 56x56x144: 0.090 -> 0.060 ms; 112x112x32 0.075 -> 0.048;
// 3x3/2 on 112x112x96 0.072 -> 0.060). With AVX2 the same blocks ran 10-40% slower on
// Zen 4 than the loop below, which it keeps.
template <int V, bool Cols>
inline __attribute__((always_inline)) void row_at(const DepthwiseNhwcRows& d, std::int64_t oy, const float* const* rowp,
                                                  float* out, const float* res, const RowAhead& ahead = {}) {
  using vf = VecOf<V>;
  const Conv2dParams& p = *d.p;
  // Tap rows inside the image.
  std::int64_t ky0 = 0, ky1 = d.kh;
  while (ky0 < ky1 && oy * p.stride_h - p.pad_top + ky0 * p.dilation_h < 0) ++ky0;
  while (ky1 > ky0 && oy * p.stride_h - p.pad_top + (ky1 - 1) * p.dilation_h >= d.h) --ky1;
  const std::int64_t cv = d.c / V * V;  // channels in whole vectors
  const std::int64_t sx = p.stride_w * d.c;
  // Channels past the last whole vector (MobileNetV3's 72, 120, 200): one more vector
  // ending at C, overlapping the one before (its channels computed twice, the same
  // values stored twice: a FusedConv's output never aliases its inputs). Only fewer
  // channels than one vector go one at a time.
  const std::int64_t vectors = cv / V + (cv < d.c && d.c >= V ? 1 : 0);
  // Cache lines of each ahead row fetched per vector.
  const std::int64_t in_per = vectors > 0 ? (ahead.in_floats / 16 + vectors - 1) / vectors : 0;
  const std::int64_t out_per = vectors > 0 ? (ahead.out_floats / 16 + vectors - 1) / vectors : 0;
  for (std::int64_t k = 0; k < vectors; ++k) {
    const std::int64_t c0 = std::min<std::int64_t>(k * V, d.c - V);
    for (std::int64_t l = k * in_per; l < std::min((k + 1) * in_per, ahead.in_floats / 16); ++l) {
      for (const float* a : ahead.in)
        if (a != nullptr) __builtin_prefetch(a + l * 16, 0, 3);
    }
    for (std::int64_t l = k * out_per; l < std::min((k + 1) * out_per, ahead.out_floats / 16); ++l) {
      if (ahead.out != nullptr) __builtin_prefetch(ahead.out + l * 16, 1, 3);
      if (ahead.res != nullptr) __builtin_prefetch(ahead.res + l * 16, 0, 3);
    }
    // (The taps are read where they are packed, once per block: copied to the stack first,
    // in a loop of 16-byte moves, the first block's 32-byte loads of them stalled on
    // store forwarding.)
    const float* taps = d.taps + c0;
    vf b{};
    if (d.bias != nullptr) std::memcpy(&b, d.bias + c0, sizeof b);
    const auto finish = [&](vf acc, std::int64_t ox) __attribute__((always_inline)) {
      if (res != nullptr) {
        vf z;
        std::memcpy(&z, res + ox * d.c + c0, sizeof z);
        acc += z;
      }
      acc = apply_post_v(acc, p.post);
      std::memcpy(out + ox * d.c + c0, &acc, sizeof acc);
    };
    // PX pixels from ox side by side; `Checked`: taps outside the row skipped.
    const auto block = [&](std::int64_t ox, auto px, auto checked) __attribute__((always_inline)) {
      constexpr int PX = decltype(px)::value;
      constexpr bool Checked = decltype(checked)::value;
      vf acc[PX];
      for (int i = 0; i < PX; ++i) acc[i] = b;
      for (std::int64_t ky = ky0; ky < ky1; ++ky) {
        const std::int64_t ix0 = ox * p.stride_w - p.pad_left;
        const float* src = rowp[ky] + ix0 * d.c + c0;
        for (std::int64_t kx = 0; kx < d.kw; ++kx) {
          vf t;
          std::memcpy(&t, taps + (ky * d.kw + kx) * d.c, sizeof t);
          const float* s = src + kx * p.dilation_w * d.c;
#pragma GCC unroll 8
          for (int i = 0; i < PX; ++i) {
            if constexpr (Checked) {
              const std::int64_t ix = ix0 + i * p.stride_w + kx * p.dilation_w;
              if (ix < 0 || ix >= d.w) continue;
            }
            vf v;
            std::memcpy(&v, s + i * sx, sizeof v);
            acc[i] += t * v;
          }
        }
      }
#pragma GCC unroll 8
      for (int i = 0; i < PX; ++i) finish(acc[i], ox + i);
    };
    using C = std::true_type;
    using U = std::false_type;
    using P8 = std::integral_constant<int, 8>;
    using P4 = std::integral_constant<int, 4>;
    using P2 = std::integral_constant<int, 2>;
    using P1 = std::integral_constant<int, 1>;
    // Pixels [a, e) in blocks of 8, 4, 2, 1 (checked or not).
    const auto sweep = [&](std::int64_t a, std::int64_t e, auto checked) __attribute__((always_inline)) {
      for (; a + 8 <= e; a += 8) block(a, P8{}, checked);
      if (a + 4 <= e) { block(a, P4{}, checked); a += 4; }
      if (a + 2 <= e) { block(a, P2{}, checked); a += 2; }
      if (a < e) block(a, P1{}, checked);
    };
    // (Clamped to the row: a row with no inner pixel, as with pads wider than the image,
    // has ox_lo == ox_hi past it.)
    const std::int64_t lo = std::min(d.ox_lo, d.ow), hi = std::min(d.ow, std::max(lo, d.ox_hi));
    sweep(0, lo, C{});
    std::int64_t mid = lo;
    if constexpr (Cols) mid = by_columns<V>(d, rowp, ky0, ky1, taps, c0, b, lo, hi, finish);
    sweep(mid, hi, U{});
    sweep(hi, d.ow, C{});
  }
  if (d.c < V)
    for (std::int64_t ox = 0; ox < d.ow; ++ox) pixel_checked(d, rowp, ox, 0, d.c, out, res);
}

// Output row r (image r / oh) of the image batch `d.x`; `last`: no row follows it in this
// sweep (nothing to fetch ahead).
template <int V, bool Cols>
inline __attribute__((always_inline)) void row(const DepthwiseNhwcRows& d, std::int64_t r, bool last) {
  const std::int64_t img = r / d.oh, oy = r % d.oh;
  const float* in = d.x + img * d.h * d.w * d.c;
  const float* rowp[kMaxTaps];
  const Conv2dParams& p = *d.p;
  for (std::int64_t ky = 0; ky < d.kh; ++ky) {
    const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
    rowp[ky] = iy >= 0 && iy < d.h ? in + iy * d.w * d.c : nullptr;
  }
  RowAhead ahead;
  if (d.fetch_ahead && !last && oy + 1 < d.oh) {
    // The input rows below this row's window that the next row's window reaches.
    const std::int64_t bottom = oy * p.stride_h - p.pad_top + (d.kh - 1) * p.dilation_h;
    for (std::int64_t i = 0; i < 2 && i < p.stride_h; ++i) {
      const std::int64_t iy = bottom + p.stride_h - i;
      if (iy > bottom && iy >= 0 && iy < d.h) ahead.in[i] = in + iy * d.w * d.c;
    }
    ahead.in_floats = d.w * d.c;
    ahead.out = d.y + (r + 1) * d.ow * d.c;
    ahead.res = d.residual != nullptr ? d.residual + (r + 1) * d.ow * d.c : nullptr;
    ahead.out_floats = d.ow * d.c;
  }
  row_at<V, Cols>(d, oy, rowp, d.y + r * d.ow * d.c, d.residual != nullptr ? d.residual + r * d.ow * d.c : nullptr,
                  ahead);
}

template <int V, bool Cols>
inline __attribute__((always_inline)) void rows(const DepthwiseNhwcRows& d, std::int64_t b, std::int64_t e) {
  for (std::int64_t r = b; r < e; ++r) row<V, Cols>(d, r, r + 1 == e);
}

}  // namespace

void depthwise_nhwc_rows_base(const DepthwiseNhwcRows& d, std::int64_t b, std::int64_t e) { rows<8, false>(d, b, e); }
void depthwise_nhwc_row_at_base(const DepthwiseNhwcRows& d, std::int64_t oy, const float* const* rowp, float* out,
                                const float* res) {
  row_at<8, false>(d, oy, rowp, out, res);
}
#if GE_X86_KERNELS
GE_TARGET_AVX512 void depthwise_nhwc_rows_avx512(const DepthwiseNhwcRows& d, std::int64_t b, std::int64_t e) {
  rows<16, true>(d, b, e);
}
GE_TARGET_AVX512 void depthwise_nhwc_row_at_avx512(const DepthwiseNhwcRows& d, std::int64_t oy,
                                                   const float* const* rowp, float* out, const float* res) {
  row_at<16, true>(d, oy, rowp, out, res);
}
GE_TARGET_AVX2 void depthwise_nhwc_rows_avx2(const DepthwiseNhwcRows& d, std::int64_t b, std::int64_t e) {
  rows<8, false>(d, b, e);
}
GE_TARGET_AVX2 void depthwise_nhwc_row_at_avx2(const DepthwiseNhwcRows& d, std::int64_t oy, const float* const* rowp,
                                               float* out, const float* res) {
  row_at<8, false>(d, oy, rowp, out, res);
}
#endif

namespace {

// The pixels of an output row whose every tap lies inside the input row:
// ox * s - pad_left >= 0 and ox * s - pad_left + (kw - 1) * dil <= w - 1.
void set_inner_pixels(DepthwiseNhwcRows& d) {
  const Conv2dParams& p = *d.p;
  // The first tap's live outputs start them, the last one's end them.
  d.ox_lo = window_tap_outputs(d.w, d.ow, p.stride_w, -p.pad_left).first;
  const std::int64_t last = (d.kw - 1) * p.dilation_w - p.pad_left;
  d.ox_hi = std::max(d.ox_lo, window_tap_outputs(d.w, d.ow, p.stride_w, last).second);
}

// The output rows and columns of a kh x kw window over NHWC `x` (f32, rank 4), `p` checked.
std::pair<std::int64_t, std::int64_t> nhwc_out(const Conv2dParams& p, const TensorView& x, std::int64_t kh,
                                               std::int64_t kw) {
  check_dtype(kOp, "X", x, DataType::f32);
  check_rank(kOp, "X", x, 4);
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1 || p.pad_top < 0 || p.pad_left < 0 ||
      p.pad_bottom < 0 || p.pad_right < 0)
    fail(Errc::bad_attribute, kOp, "strides and dilations must be >= 1, pads >= 0");
  const std::int64_t oh = window_out(x.dims[1], kh, {.pad_begin = p.pad_top, .pad_end = p.pad_bottom,
                                                     .stride = p.stride_h, .dilation = p.dilation_h});
  const std::int64_t ow = window_out(x.dims[2], kw, {.pad_begin = p.pad_left, .pad_end = p.pad_right,
                                                     .stride = p.stride_w, .dilation = p.dilation_w});
  if (oh < 1 || ow < 1)
    fail(Errc::bad_op_inputs, kOp, "the dilated kernel is larger than the padded NHWC input " + bracketed(x.dims));
  return {oh, ow};
}

}  // namespace

NhwcIo check_nhwc(const Conv2dParams& p, const TensorView& x, std::int64_t kh, std::int64_t kw, std::int64_t m,
                  const TensorView* bias, const TensorView& y, const TensorView* residual) {
  NhwcIo io;
  std::tie(io.oh, io.ow) = nhwc_out(p, x, kh, kw);
  check_dtype(kOp, "Y", y, DataType::f32);
  check_rank(kOp, "Y", y, 4);
  const std::int64_t want[4] = {x.dims[0], io.oh, io.ow, m};
  check_dims(kOp, "Y", y, want);
  if (bias != nullptr && bias->dtype != DataType::undefined) {
    check_dtype(kOp, "B", *bias, DataType::f32);
    const std::int64_t bd[1] = {m};
    check_dims(kOp, "B", *bias, bd);
    io.bias = bias->as<const float>();
  }
  if (residual != nullptr) {
    check_dtype(kOp, "residual", *residual, DataType::f32);
    check_dims(kOp, "residual", *residual, want);
    io.residual = residual->as<const float>();
  }
  return io;
}

PackedDepthwiseNhwc pack_depthwise_nhwc(const TensorView& w) {
  check_dtype(kOp, "W", w, DataType::f32);
  check_rank(kOp, "W", w, 4);
  if (w.dims[1] != 1)
    fail(Errc::bad_op_inputs, kOp, "depthwise weights " + bracketed(w.dims) + " must have 1 input channel per group");
  if (w.dims[2] * w.dims[3] > kMaxTaps)
    fail(Errc::unsupported, kOp, "depthwise kernel " + bracketed(w.dims) + " has more than 49 taps");
  PackedDepthwiseNhwc p;
  p.c = w.dims[0];
  p.kh = w.dims[2];
  p.kw = w.dims[3];
  const std::int64_t taps = p.kh * p.kw;
  p.taps = Scratch(taps * p.c);
  const float* src = w.as<const float>();
  for (std::int64_t ch = 0; ch < p.c; ++ch)
    for (std::int64_t t = 0; t < taps; ++t) p.taps.data()[t * p.c + ch] = src[ch * taps + t];
  return p;
}

void depthwise_nhwc(const Conv2dParams& p, const TensorView& x, const PackedDepthwiseNhwc& w, const TensorView* bias,
                    const TensorView& y, const TensorView* residual) {
  check_rank(kOp, "X", x, 4);
  if (p.group != w.c || x.dims[3] != w.c)
    fail(Errc::bad_op_inputs, kOp,
         "NHWC X " + bracketed(x.dims) + ", group " + std::to_string(p.group) + ": the depthwise weights have " +
             std::to_string(w.c) + " channels; expected X's last dim and group equal to them");
  const NhwcIo io = check_nhwc(p, x, w.kh, w.kw, w.c, bias, y, residual);
  DepthwiseNhwcRows d{{&p, x.dims[0], x.dims[1], x.dims[2], w.c, io.oh, io.ow, w.kh, w.kw, x.as<const float>(),
                       w.taps.data(), io.bias, y.as<float>(), io.residual}};
  set_inner_pixels(d);
  if (y.elements() == 0) return;
  if (depthwise_ring_nhwc(d)) return;
  d.fetch_ahead = (x.elements() + y.elements()) * std::int64_t{sizeof(float)} > l2_bytes();
  parallel_for(d.n * d.oh, grain_for(d.ow * d.c * d.kh * d.kw),
               [&](std::int64_t b, std::int64_t e) { kernels().depthwise_nhwc_rows(d, b, e); });
}

void pointwise_depthwise_rows(const Conv2dParams& p, const TensorView& x, const RowExpand& expand,
                              const PackedDepthwiseNhwc& w, const TensorView* bias, const TensorView& y,
                              const TensorView* residual) {
  check_dtype(kOp, "X", x, DataType::f32);
  check_rank(kOp, "X", x, 4);
  if (x.dims[3] != expand.c_in || expand.e != w.c || p.group != w.c)
    fail(Errc::bad_op_inputs, kOp,
         "NHWC X " + bracketed(x.dims) + ", pointwise weights " + std::to_string(expand.c_in) + " -> " +
             std::to_string(expand.e) + ", depthwise weights of " + std::to_string(w.c) + " channels, group " +
             std::to_string(p.group) + ": expected X's last dim equal to the pointwise inputs, and the "
             "pointwise outputs, the depthwise channels and the group equal");
  // The expanded image [N, H, W, E] is never stored: its dims, for the checks.
  const std::int64_t mid_dims[4] = {x.dims[0], x.dims[1], x.dims[2], w.c};
  const TensorView mid{x.data, DataType::f32, mid_dims};
  const NhwcIo io = check_nhwc(p, mid, w.kh, w.kw, w.c, bias, y, residual);
  DepthwiseNhwcRows d{{&p, x.dims[0], x.dims[1], x.dims[2], w.c, io.oh, io.ow, w.kh, w.kw, nullptr, w.taps.data(),
                       io.bias, y.as<float>(), io.residual}};
  set_inner_pixels(d);
  if (y.elements() == 0) return;
  const std::int64_t c_in = x.dims[3], row_floats = d.w * d.c;
  const std::int64_t span = window_span(d.kh, p.dilation_h);  // input rows one output row reads
  // Tasks: runs of output rows of one image, enough for every thread twice over; each
  // task expands the input rows its outputs read, in order, into a ring of `span` rows
  // and kAhead - 1 more (a row expanded for one output row stays for the next ones that
  // read it), so only the rows shared with the run before are expanded twice. Rows are
  // expanded up to kAhead at a time, one product over all their pixels: one row of a
  // 65-pixel image was a product of M = 65, its last 5 rows on the slow edge path.
  constexpr std::int64_t kAhead = 4;
  const std::int64_t ring_rows = span + kAhead - 1;
  const std::int64_t per_image = std::clamp<std::int64_t>((4 * std::int64_t{tbb::this_task_arena::max_concurrency()} + d.n - 1) / d.n, 1, d.oh);
  const std::int64_t run_rows = (d.oh + per_image - 1) / per_image;
  const std::int64_t tasks = d.n * ((d.oh + run_rows - 1) / run_rows);
  const float* px = x.as<const float>();
  parallel_for(tasks, 1, [&](std::int64_t tb, std::int64_t te) {
    PooledBuffer ring(ring_rows * row_floats);
    const float* rowp[kMaxTaps];
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t runs_per_image = (d.oh + run_rows - 1) / run_rows;
      const std::int64_t img = t / runs_per_image, oy0 = (t % runs_per_image) * run_rows;
      const std::int64_t oy1 = std::min(d.oh, oy0 + run_rows);
      const float* in = px + img * d.h * d.w * c_in;
      // The last input row this task's outputs read.
      const std::int64_t last = std::min(d.h - 1, (oy1 - 1) * p.stride_h - p.pad_top + (d.kh - 1) * p.dilation_h);
      std::int64_t next = 0;  // the next input row to expand
      for (std::int64_t oy = oy0; oy < oy1; ++oy) {
        const std::int64_t lo = oy * p.stride_h - p.pad_top;
        const std::int64_t hi = std::min(d.h - 1, lo + (d.kh - 1) * p.dilation_h);
        next = std::max({next, lo, std::int64_t{0}});
        if (next <= hi) {
          // Rows [next, to]: those this output row lacks and the ones after, as far as the
          // ring holds them beside the rows from `lo` on (cut where the ring wraps).
          const std::int64_t to = std::min({last, lo + ring_rows - 1, hi + kAhead - 1});
          while (next <= to) {
            const std::int64_t slot = next % ring_rows, rows = std::min(to - next + 1, ring_rows - slot);
            expand.fn(expand.ctx, in + next * d.w * c_in, rows * d.w, ring.data() + slot * row_floats);
            next += rows;
          }
        }
        for (std::int64_t ky = 0; ky < d.kh; ++ky) {
          const std::int64_t iy = lo + ky * p.dilation_h;
          rowp[ky] = iy >= 0 && iy < d.h ? ring.data() + (iy % ring_rows) * row_floats : nullptr;
        }
        const std::int64_t r = img * d.oh + oy;
        kernels().depthwise_nhwc_row_at(d, oy, rowp, d.y + r * d.ow * d.c,
                                        d.residual != nullptr ? d.residual + r * d.ow * d.c : nullptr);
      }
    }
  });
}

// Rows this wide or wider run fused at any size (`pointwise_depthwise_nhwc`).
constexpr std::int64_t kFusedRowsFrom = 56;

void pointwise_depthwise_nhwc(const Conv2dParams& p, const TensorView& x, const PackedMatMulB& pw, const float* pw_bias,
                              const PostOp& pw_post, const PackedDepthwiseNhwc& w, const TensorView* bias,
                              const TensorView& y, const TensorView* residual, const FakeQuant* pw_out) {
  struct Ctx {
    const PackedMatMulB* pw;
    GemmEpilogue ep;
    const FakeQuant* out;
  } ctx{&pw, {}, pw_out};
  ctx.ep.bias_n = pw_bias;
  ctx.ep.post = pw_post;
  // The whole batch's expanded image within twice the threads' L2, its rows narrower than
  // 56 pixels: the pointwise conv over every pixel at once, then the depthwise conv, as two
  // convs (the product is one of M = all pixels, not of one row's few). Zen 4, 2 threads,
  // batch 1, in the models (weights and the buffer cold; a warm bench of the kernel alone
  // had favoured two steps at every size), fused / two steps: EfficientNet-B3's 38x38x48
  // -> 288 (1.7 MB) 1.26, 5x5/2 1.12; EfficientNetV2-S's 48x48x64 -> 256 (2.4 MB) 1.09; but
  // rows of 56 pixels and more: MobileNetV2's 56x56x24 -> 144 (1.8 MB) 0.75, 3x3/2 0.66,
  // MNASNet's 112x112x16 -> 48 3x3/2 (2.4 MB) 0.60, 0.75x's 12 -> 36 0.72, MobileNetV3's
  // 112x112x16 -> 64 0.67. Batch 8 (6-77 MB): fused, 0.62-0.97 of two steps.
  if (x.rank() == 4 && x.dtype == DataType::f32 && x.dims[3] == pw.k && pw.n == w.c) {
    const std::int64_t pixels = x.dims[0] * x.dims[1] * x.dims[2];
    const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
    const std::int64_t bytes = pixels * pw.n * static_cast<std::int64_t>(sizeof(float));
    if (x.dims[2] < kFusedRowsFrom && bytes <= 2 * l2_bytes() * threads) {
      PooledBuffer mid(pixels * pw.n);
      const std::int64_t ad[2] = {pixels, pw.k}, md[2] = {pixels, pw.n};
      matmul(TensorView{x.data, DataType::f32, ad}, pw, TensorView{mid.data(), DataType::f32, md}, ctx.ep);
      if (pw_out != nullptr) fake_quant(*pw_out, mid.data(), pixels * pw.n, mid.data());
      const std::int64_t dd[4] = {x.dims[0], x.dims[1], x.dims[2], pw.n};
      depthwise_nhwc(p, TensorView{mid.data(), DataType::f32, dd}, w, bias, y, residual);
      return;
    }
  }
  const auto f32_rows = [](const void* c, const float* in, std::int64_t width, float* out) {
    const auto& k = *static_cast<const Ctx*>(c);
    gemm_rowmajor_a(width, k.pw->n, k.pw->k, in, k.pw->k, k.pw->panels.data(), out, k.pw->n, k.ep, false);
    if (k.out != nullptr) fake_quant(*k.out, out, width * k.pw->n, out);
  };
  // bf16 weights: the rows' pixels rounded to bf16 rows first (the GEMM's pack step), the
  // product in bf16 with f32 sums; the expanded rows stay f32.
  const auto bf16_rows = [](const void* c, const float* in, std::int64_t width, float* out) {
    const auto& k = *static_cast<const Ctx*>(c);
    const std::int64_t kpad = bf16_k(k.pw->k), rows_pad = (width + 15) / 16 * 16;
    PooledBuffer a16((rows_pad * kpad + 1) / 2);
    auto* a = reinterpret_cast<std::uint16_t*>(a16.data());
    convert_rows_bf16(width, k.pw->k, in, k.pw->k, a, kpad, rows_pad);
    gemm_bf16_block(width, k.pw->n, bf16_depth(k.pw->k), a, kpad,
                    reinterpret_cast<const std::uint16_t*>(k.pw->panels.data()), bf16_panel_size(k.pw->k), out,
                    k.pw->n, 0, 0, k.ep);
    if (k.out != nullptr) fake_quant(*k.out, out, width * k.pw->n, out);
  };
  const RowExpand expand{pw.bf16 ? +bf16_rows : +f32_rows, &ctx, pw.k, pw.n};
  pointwise_depthwise_rows(p, x, expand, w, bias, y, residual);
}

void depthwise_pointwise_nhwc(const Conv2dParams& p, const TensorView& x, const PackedDepthwiseNhwc& w,
                              const TensorView* bias, const PackedMatMulB& pw, const float* pw_bias,
                              const PostOp& pw_post, const TensorView& y, const TensorView* residual) {
  const auto [oh, ow] = nhwc_out(p, x, w.kh, w.kw);
  if (x.dims[3] != w.c || p.group != w.c || pw.k != w.c)
    fail(Errc::bad_op_inputs, kOp,
         "NHWC X " + bracketed(x.dims) + ", depthwise weights of " + std::to_string(w.c) + " channels, group " +
             std::to_string(p.group) + ", pointwise weights " + std::to_string(pw.k) + " -> " + std::to_string(pw.n) +
             ": expected X's last dim, the depthwise channels, the group and the pointwise inputs equal");
  // The depthwise output [N, OH, OW, C] is never stored whole: its dims, for the checks.
  const std::int64_t mid_dims[4] = {x.dims[0], oh, ow, w.c};
  const TensorView mid{x.data, DataType::f32, mid_dims};
  const NhwcIo io = check_nhwc(p, x, w.kh, w.kw, w.c, bias, mid, nullptr);
  const NhwcIo out = check_nhwc(Conv2dParams{}, mid, 1, 1, pw.n, nullptr, y, residual);
  // The depthwise activation on store, or (SiLU, HardSwish: `is_map`) over the rows after.
  Conv2dParams stored = p;
  if (is_map(p.post.kind)) stored.post = PostOp{};
  DepthwiseNhwcRows d{{&stored, x.dims[0], x.dims[1], x.dims[2], w.c, oh, ow, w.kh, w.kw, x.as<const float>(),
                       w.taps.data(), io.bias, nullptr, nullptr}};
  set_inner_pixels(d);
  if (y.elements() == 0) return;
  // Tasks: runs of output rows of one image, about 96 pixels (the product's rows), fewer
  // where that leaves a thread without two.
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  std::int64_t run = std::clamp<std::int64_t>((96 + ow - 1) / ow, 1, oh);
  while (run > 1 && d.n * ((oh + run - 1) / run) < 2 * threads) --run;
  const std::int64_t runs = (oh + run - 1) / run, c = w.c, m = pw.n;
  const std::int64_t kpad = bf16_k(c), rows_pad = (run * ow + 15) / 16 * 16;
  float* py = y.as<float>();
  parallel_for(d.n * runs, 1, [&](std::int64_t tb, std::int64_t te) {
    PooledBuffer rows(run * ow * c);
    PooledBuffer a16(pw.bf16 ? (rows_pad * kpad + 1) / 2 : 1);
    const float* rowp[kMaxTaps];
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t img = t / runs, oy0 = t % runs * run, oy1 = std::min(oh, oy0 + run);
      for (std::int64_t oy = oy0; oy < oy1; ++oy) {
        for (std::int64_t ky = 0; ky < d.kh; ++ky) {
          const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
          rowp[ky] = iy >= 0 && iy < d.h ? d.x + ((img * d.h + iy) * d.w) * c : nullptr;
        }
        kernels().depthwise_nhwc_row_at(d, oy, rowp, rows.data() + (oy - oy0) * ow * c, nullptr);
      }
      const std::int64_t pixels = (oy1 - oy0) * ow, at = (img * oh + oy0) * ow * m;
      if (is_map(p.post.kind)) activate(p.post, rows.data(), pixels * c);
      GemmEpilogue ep;
      ep.bias_n = pw_bias;
      ep.post = pw_post;
      ep.residual = out.residual != nullptr ? out.residual + at : nullptr;
      ep.ld_residual = m;
      if (pw.bf16) {
        auto* a = reinterpret_cast<std::uint16_t*>(a16.data());
        convert_rows_bf16(pixels, c, rows.data(), c, a, kpad, (pixels + 15) / 16 * 16);
        gemm_bf16_block(pixels, m, bf16_depth(c), a, kpad, reinterpret_cast<const std::uint16_t*>(pw.panels.data()),
                        bf16_panel_size(c), py + at, m, 0, 0, ep);
      } else {
        gemm_rowmajor_a(pixels, m, c, rows.data(), c, pw.panels.data(), py + at, m, ep, false);
      }
    }
  });
}

}  // namespace ge::cpu
