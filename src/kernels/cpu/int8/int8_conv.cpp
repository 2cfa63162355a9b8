// The int8 convs on NHWC images (int8.hpp): the dense conv over u8 patches gathered from
// the image quantized once, and the fused pointwise-depthwise conv with an int8 pointwise
// part.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/int8/int8_internal.hpp"

namespace ge::cpu {

namespace {

struct GatherU8 {
  const Conv2dParams* p;
  const std::uint8_t* x;  // the quantized image, NHWC
  std::int64_t h, w, c, oh, ow, kh, kw;
  std::int64_t ld;  // the rows' stride: K padded to 4
  std::uint8_t zero;
};

// Rows [r0, r0 + count) of the patch matrix (row = output pixel of the batch, K = (ky, kx,
// c)): the quantized image's runs, the zero point in the padding, zeros past K.
// Copies `n` bytes into a patch row that has `room` bytes from `dst` on: a run of at most
// 16 bytes as one 16-byte move where the row has room (the source image keeps 16 bytes of
// slack), the bytes past `n` overwritten by the next run or the row's padding (a 3-channel
// stem's runs are 9 to 21 bytes: a call of memcpy each cost more than the product).
inline void copy_run(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, std::int64_t room) {
  if (n <= 16 && room >= 16) {
    std::memcpy(dst, src, 16);
  } else {
    std::memcpy(dst, src, n);
  }
}

void gather_u8(const GatherU8& g, std::int64_t r0, std::int64_t count, std::uint8_t* dst) {
  const Conv2dParams& p = *g.p;
  const std::int64_t k = g.kh * g.kw * g.c;
  const auto run = static_cast<std::size_t>(g.c);
  for (std::int64_t r = 0; r < count; ++r) {
    const std::int64_t pix = r0 + r;
    const std::int64_t img = pix / (g.oh * g.ow), oy = pix / g.ow % g.oh, ox = pix % g.ow;
    std::uint8_t* row = dst + r * g.ld;
    const std::int64_t ix0 = ox * p.stride_w - p.pad_left;
    // A row of taps inside the image with no dilation: one run of kw pixels' channels.
    const bool whole_rows = p.dilation_w == 1 && ix0 >= 0 && ix0 + g.kw <= g.w;
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (whole_rows && iy >= 0 && iy < g.h) {
        const std::int64_t at = ky * g.kw * g.c;
        copy_run(row + at, g.x + ((img * g.h + iy) * g.w + ix0) * g.c, run * static_cast<std::size_t>(g.kw), g.ld - at);
        continue;
      }
      for (std::int64_t kx = 0; kx < g.kw; ++kx) {
        std::uint8_t* out = row + (ky * g.kw + kx) * g.c;
        const std::int64_t ix = ix0 + kx * p.dilation_w;
        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
          std::memset(out, g.zero, run);
        } else {
          copy_run(out, g.x + ((img * g.h + iy) * g.w + ix) * g.c, run, g.ld - (out - row));
        }
      }
    }
    std::memset(row + k, 0, static_cast<std::size_t>(g.ld - k));
  }
}

}  // namespace

void conv_nhwc_u8s8(const Conv2dParams& p, const TensorView& x, const QuantU8& qx, const PackedS8& w,
                    const TensorView* bias, const TensorView& y, const TensorView* residual, const FakeQuant* out) {
  const NhwcIo io = check_dense_nhwc(p, x, w.c, w.kh, w.kw, w.n, bias, y, residual);
  if (y.elements() == 0) return;
  check_quantization("int8 conv", qx, out);
  const S8View bv = s8_view(w);
  const std::int64_t kpad = bv.kpad, k = w.k, m = w.n;
  const std::int64_t pixels_in = x.elements();
  PooledBuffer image((pixels_in + 16 + 3) / 4);  // 16 bytes of slack: `copy_run` reads whole 16-byte runs
  auto* xq = reinterpret_cast<std::uint8_t*>(image.data());
  quantize_parallel(qx, x.as<const float>(), pixels_in, xq);
  const GatherU8 g{&p, xq, x.dims[1], x.dims[2], w.c, io.oh, io.ow, w.kh, w.kw, kpad,
                   static_cast<std::uint8_t>(qx.zero_point)};
  const std::int64_t rows = x.dims[0] * io.oh * io.ow;
  float* py = y.as<float>();
  GemmEpilogue ep;
  ep.bias_n = io.bias;
  ep.residual = io.residual;
  ep.ld_residual = m;
  ep.post = p.post;
  const S8Cols q{bv.scale, bv.sums, qx.scale, qx.zero_point, out};
  // A 1x1 conv with stride 1 and no pads over channels that fill whole lanes reads the
  // quantized image as its patch matrix.
  const bool direct = w.kh == 1 && w.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                      p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0 && k == kpad;
  const std::int64_t nthreads = int8_threads();
  constexpr std::int64_t kTarget = 96;
  std::int64_t blocks = (rows + kTarget - 1) / kTarget;
  if (blocks >= 2 * nthreads) {
    blocks = (blocks + nthreads - 1) / nthreads * nthreads;
    const std::int64_t block = std::max<std::int64_t>(48, ((rows + blocks - 1) / blocks + 11) / 12 * 12);
    parallel_for((rows + block - 1) / block, 1, [&](std::int64_t bb, std::int64_t be) {
      PooledBuffer patches(direct ? 0 : (block * kpad + 3) / 4);
      auto* a = reinterpret_cast<std::uint8_t*>(patches.data());
      for (std::int64_t blk = bb; blk < be; ++blk) {
        const std::int64_t r0 = blk * block, count = std::min(block, rows - r0);
        if (direct) {
          gemm_s8_block(count, m, kpad, xq + r0 * kpad, kpad, bv, 0, py, m, r0, q, ep);
          continue;
        }
        gather_u8(g, r0, count, a);
        // gemm_s8_block's rows are relative to `a`; C's row offset is r0.
        gemm_s8_block(count, m, kpad, a, kpad, bv, 0, py, m, r0, q, ep);
      }
    });
    return;
  }
  const std::uint8_t* a = xq;
  PooledBuffer patches(direct ? 0 : (rows * kpad + 3) / 4);
  if (!direct) {
    auto* all = reinterpret_cast<std::uint8_t*>(patches.data());
    parallel_for(rows, grain_for(k), [&](std::int64_t rb, std::int64_t re) { gather_u8(g, rb, re - rb, all + rb * kpad); });
    a = all;
  }
  // Columns in multiples of 32 (two panels), about two chunks per thread.
  const std::int64_t pairs = (m + 31) / 32;
  const std::int64_t chunk = std::max<std::int64_t>(1, (pairs + 2 * nthreads - 1) / (2 * nthreads)) * 32;
  parallel_for((m + chunk - 1) / chunk, 1, [&](std::int64_t cb, std::int64_t ce) {
    for (std::int64_t cc = cb; cc < ce; ++cc) {
      const std::int64_t j0 = cc * chunk;
      gemm_s8_block(rows, std::min(chunk, m - j0), kpad, a, kpad, bv, j0, py, m, 0, q, ep);
    }
  });
}

void pointwise_depthwise_u8s8(const Conv2dParams& p, const TensorView& x, const QuantU8& qx, const PackedS8& pw,
                              const float* pw_bias, const PostOp& pw_post, const FakeQuant* pw_out,
                              const PackedDepthwiseNhwc& w, const TensorView* bias, const TensorView& y,
                              const TensorView* residual) {
  check_quantization("int8 conv", qx, pw_out);
  struct Ctx {
    S8View b;
    S8Cols q;
    GemmEpilogue ep;
    std::int64_t k, e;
  } ctx{s8_view(pw), {}, {}, pw.k, pw.n};
  ctx.q = S8Cols{ctx.b.scale, ctx.b.sums, qx.scale, qx.zero_point, pw_out};
  ctx.ep.bias_n = pw_bias;
  ctx.ep.post = pw_post;
  // Each input row's pixels quantized (K padded), then the int8 product into the ring's row.
  const RowExpand expand{[](const void* c, const float* in, std::int64_t width, float* out) {
                           const auto& t = *static_cast<const Ctx*>(c);
                           const std::int64_t kpad = t.b.kpad;
                           // (A row's bytes on the stack where they fit: a pool buffer per row cost more.)
                           alignas(64) std::uint8_t local[8192];
                           const bool fits = width * kpad <= static_cast<std::int64_t>(sizeof local);
                           PooledBuffer rows(fits ? 0 : (width * kpad + 3) / 4);
                           auto* a = fits ? local : reinterpret_cast<std::uint8_t*>(rows.data());
                           const QuantU8 qa{t.q.a_scale, t.q.a_zero_point};
                           for (std::int64_t px = 0; px < width; ++px) {
                             quantize_u8(qa, in + px * t.k, t.k, a + px * kpad);
                             std::memset(a + px * kpad + t.k, 0, static_cast<std::size_t>(kpad - t.k));
                           }
                           gemm_s8_block(width, t.e, kpad, a, kpad, t.b, 0, out, t.e, 0, t.q, t.ep);
                         },
                         &ctx, pw.k, pw.n};
  pointwise_depthwise_rows(p, x, expand, w, bias, y, residual);
}

}  // namespace ge::cpu
