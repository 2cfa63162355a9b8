// The ring sweep of NHWC depthwise convs 5 and 7 taps wide (see depthwise_internal.hpp).
#include <algorithm>
#include <cstring>
#include <utility>

#include <tbb/task_arena.h>

#include "ge/shape/window.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/common.hpp"
#include "kernels/cpu/depthwise/depthwise_internal.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

constexpr int kMaxTaps = kMaxDepthwiseTaps;

}  // namespace

// The register-blocked sweep (AVX2, AVX-512) for kernels 5 and 7 wide at horizontal
// stride 1 without dilation (any kernel height, vertical stride and dilation; see
// `pick_ring_row`, and the variants in dispatch.hpp). Per task (a run of output rows of one image and a chunk of at most 256
// channels) the input rows the run reads are copied, in order, into a ring of
// zero-padded rows: the pad columns, and the channels past C in the chunk, are zeros, so
// every output pixel reads all its taps with whole-vector loads and no test. Per vector of
// channels a block of PX pixels (8, or the row's tail) accumulates side by side; per tap
// row the KW taps stay in registers and each input column the block reads is loaded once
// and multiplied into every (pixel, tap) that reads it (stride 1: PX + KW - 1 loads for
// PX * KW FMAs), the pixel and tap of each product resolved at compile time.
struct DepthwiseRingRows : DepthwiseNhwcJob {
  std::int64_t pw = 0;    // padded columns an output row reads: (ow - 1) * stride + (kw - 1) * dilation + 1
  std::int64_t cw = 0;    // floats per padded column (the chunk's channels, a multiple of 16)
  std::int64_t span = 0;  // input rows one output row reads: (kh - 1) * dilation + 1
};

namespace {

constexpr std::int64_t kChunk = 256;  // channels per task at most

// Output pixels [ox, ox + PX) of one row, channels [c, c + lanes) of the chunk: `prow`
// the padded rows of the taps rows (null outside the image), `tv` the taps' vectors.
template <int V, int KW, int S, int D, int PX>
inline __attribute__((always_inline)) void ring_block(const DepthwiseRingRows& g, const float* const* prow,
                                                      std::int64_t ky0, std::int64_t ky1, std::int64_t ox,
                                                      std::int64_t c, std::int64_t lanes, const VecOf<V>* tv,
                                                      VecOf<V> b, float* out, const float* res) {
  using vf = VecOf<V>;
  vf acc[PX];
  for (int i = 0; i < PX; ++i) acc[i] = b;
  const std::int64_t col0 = ox * S * g.cw + c;
  for (std::int64_t ky = ky0; ky < ky1; ++ky) {
    vf t[KW];
    for (int k = 0; k < KW; ++k) t[k] = tv[ky * KW + k];
    columns<V, KW, S, D, PX>(prow[ky] + col0, g.cw, t, acc, std::make_integer_sequence<int, (PX - 1) * S + (KW - 1) * D + 1>{});
  }
  const PostOp& post = g.p->post;
#pragma GCC unroll 8
  for (int i = 0; i < PX; ++i) {
    vf a = acc[i];
    const std::int64_t at = (ox + i) * g.c + c;
    if (res != nullptr) a += load_lanes<vf>(res + at, lanes);
    store_lanes(out + at, apply_post_v(a, post), lanes);
  }
}

// One output row, channels [c0, c0 + cn): `out` and `res` at its first pixel's channel 0.
template <int V, int KW, int S, int D>
inline __attribute__((always_inline)) void ring_row(const DepthwiseRingRows& g, const float* const* prow, float* out,
                                                    const float* res, std::int64_t c0, std::int64_t cn) {
  using vf = VecOf<V>;
  std::int64_t ky0 = 0, ky1 = g.kh;
  while (ky0 < ky1 && prow[ky0] == nullptr) ++ky0;
  while (ky1 > ky0 && prow[ky1 - 1] == nullptr) --ky1;
  for (std::int64_t c = 0; c < cn; c += V) {
    const std::int64_t lanes = std::min<std::int64_t>(V, cn - c);
    vf tv[kMaxTaps];
    for (std::int64_t t = ky0 * KW; t < ky1 * KW; ++t) tv[t] = load_lanes<vf>(g.taps + t * g.c + c0 + c, lanes);
    const vf b = g.bias != nullptr ? load_lanes<vf>(g.bias + c0 + c, lanes) : vf{} + 0.0f;
    float* o = out + c0;
    const float* r = res != nullptr ? res + c0 : nullptr;
    std::int64_t ox = 0;
    for (; ox + 8 <= g.ow; ox += 8) ring_block<V, KW, S, D, 8>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r);
    switch (g.ow - ox) {
      case 7: ring_block<V, KW, S, D, 7>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r); break;
      case 6: ring_block<V, KW, S, D, 6>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r); break;
      case 5: ring_block<V, KW, S, D, 4>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r);
              ring_block<V, KW, S, D, 1>(g, prow, ky0, ky1, ox + 4, c, lanes, tv, b, o, r); break;
      case 4: ring_block<V, KW, S, D, 4>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r); break;
      case 3: ring_block<V, KW, S, D, 2>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r);
              ring_block<V, KW, S, D, 1>(g, prow, ky0, ky1, ox + 2, c, lanes, tv, b, o, r); break;
      case 2: ring_block<V, KW, S, D, 2>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r); break;
      case 1: ring_block<V, KW, S, D, 1>(g, prow, ky0, ky1, ox, c, lanes, tv, b, o, r); break;
      default: break;
    }
  }
}

}  // namespace

#if GE_X86_KERNELS
GE_TARGET_AVX512 void depthwise_ring_row5_avx512(const DepthwiseRingRows& g, const float* const* prow, float* out,
                                                 const float* res, std::int64_t c0, std::int64_t cn) {
  ring_row<16, 5, 1, 1>(g, prow, out, res, c0, cn);
}
GE_TARGET_AVX512 void depthwise_ring_row7_avx512(const DepthwiseRingRows& g, const float* const* prow, float* out,
                                                 const float* res, std::int64_t c0, std::int64_t cn) {
  ring_row<16, 7, 1, 1>(g, prow, out, res, c0, cn);
}
GE_TARGET_AVX2 void depthwise_ring_row5_avx2(const DepthwiseRingRows& g, const float* const* prow, float* out,
                                             const float* res, std::int64_t c0, std::int64_t cn) {
  ring_row<8, 5, 1, 1>(g, prow, out, res, c0, cn);
}
GE_TARGET_AVX2 void depthwise_ring_row7_avx2(const DepthwiseRingRows& g, const float* const* prow, float* out,
                                             const float* res, std::int64_t c0, std::int64_t cn) {
  ring_row<8, 7, 1, 1>(g, prow, out, res, c0, cn);
}
#endif

namespace {

// The register-blocked row for this CPU and conv, or null: no variant at this ISA
// (baseline); kernels other than 5 and 7 wide; horizontal stride 2 or dilation 2. Measured on one thread against
// the row sweep (`ge_bench_conv dw`, a shared 2-core Xeon with AVX-512, CPU time, best
// of 2-3 runs): 5x5 and 7x7 at stride 1 1.2-2.2x faster; 3x3 at stride 1 0.73-1.5x
// (MobileNetV3's 14x14x480 slower: the sweep's 8-pixel blocks already keep 9 taps in
// registers); dilation 2 (DeepLabV3's 5x5 on 14x14 and 28x28) 0.85-1.2x; at stride 2 the
// copy of two input rows per output row cost more than the blocking saved (0.86-0.98x,
// also with the blocks read in place). `ring_row` takes any stride and dilation
// (`pixel_of`) should an edge handling without the copy make them pay.
DepthwiseRingRowFn* pick_ring_row(const Conv2dParams& p, std::int64_t kw) {
  if (p.stride_w != 1 || p.dilation_w != 1) return nullptr;
  if (kw == 5) return kernels().depthwise_ring_row5;
  if (kw == 7) return kernels().depthwise_ring_row7;
  return nullptr;
}

// The ring sweep over the whole batch with `fn`.
void ring_depthwise(const DepthwiseRingRows& g0, DepthwiseRingRowFn* fn) {
  DepthwiseRingRows g = g0;
  const Conv2dParams& p = *g.p;
  const std::int64_t ld = (g.c + 15) / 16 * 16;
  const std::int64_t chunks = (ld + kChunk - 1) / kChunk;
  g.cw = std::min(ld, kChunk);
  g.pw = (g.ow - 1) * p.stride_w + window_span(g.kw, p.dilation_w);
  g.span = window_span(g.kh, p.dilation_h);
  // Runs of output rows: enough tasks for every thread twice over (a run re-expands the
  // rows it shares with the run before).
  const std::int64_t threads = tbb::this_task_arena::max_concurrency();
  const std::int64_t per_image = std::clamp<std::int64_t>((4 * threads + g.n * chunks - 1) / (g.n * chunks), 1, g.oh);
  const std::int64_t run_rows = (g.oh + per_image - 1) / per_image;
  const std::int64_t runs = (g.oh + run_rows - 1) / run_rows;
  const std::int64_t ring_floats = g.span * g.pw * g.cw;
  parallel_for(g.n * runs * chunks, 1, [&](std::int64_t tb, std::int64_t te) {
    PooledBuffer ring(ring_floats);
    const float* prow[kMaxTaps];
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t chunk = t % chunks, run = t / chunks % runs, img = t / (chunks * runs);
      const std::int64_t c0 = chunk * kChunk, cn = std::min(g.cw, g.c - c0);
      const std::int64_t oy0 = run * run_rows, oy1 = std::min(g.oh, oy0 + run_rows);
      std::fill(ring.data(), ring.data() + ring_floats, 0.0f);
      const float* in = g.x + img * g.h * g.w * g.c + c0;
      const std::int64_t cols = std::clamp<std::int64_t>(g.pw - p.pad_left, 0, g.w);  // input columns read
      std::int64_t next = 0;  // the next input row to copy
      for (std::int64_t oy = oy0; oy < oy1; ++oy) {
        const std::int64_t lo = oy * p.stride_h - p.pad_top;
        const std::int64_t hi = std::min(g.h - 1, lo + (g.kh - 1) * p.dilation_h);
        for (next = std::max({next, lo, std::int64_t{0}}); next <= hi; ++next) {
          float* dst = ring.data() + (next % g.span) * g.pw * g.cw + p.pad_left * g.cw;
          const float* src = in + next * g.w * g.c;
          if (cn == g.c && g.cw == g.c) {
            std::memcpy(dst, src, sizeof(float) * static_cast<std::size_t>(cols * g.c));
          } else {
            for (std::int64_t ix = 0; ix < cols; ++ix)
              std::memcpy(dst + ix * g.cw, src + ix * g.c, sizeof(float) * static_cast<std::size_t>(cn));
          }
        }
        for (std::int64_t ky = 0; ky < g.kh; ++ky) {
          const std::int64_t iy = lo + ky * p.dilation_h;
          prow[ky] = iy >= 0 && iy < g.h ? ring.data() + (iy % g.span) * g.pw * g.cw : nullptr;
        }
        const std::int64_t r = img * g.oh + oy;
        fn(g, prow, g.y + r * g.ow * g.c, g.residual != nullptr ? g.residual + r * g.ow * g.c : nullptr, c0, cn);
      }
    }
  });
}

}  // namespace

bool depthwise_ring_nhwc(const DepthwiseNhwcJob& j) {
  DepthwiseRingRowFn* const fn = pick_ring_row(*j.p, j.kw);
  if (fn == nullptr) return false;
  ring_depthwise(DepthwiseRingRows{j}, fn);
  return true;
}

}  // namespace ge::cpu
