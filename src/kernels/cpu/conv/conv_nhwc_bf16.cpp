// Dense convolutions on NHWC images in bf16 (`Precision::bf16`, kernels/cpu/gemm/amx.hpp): the
// f32 kernel's GEMM over gathered patches (conv_nhwc.cpp), with the weights packed once in
// bf16 VNNI panels and each block's patches converted to bf16 as they are gathered (a
// tap's input channels are one run of the image), f32 sums, the bias, residual and
// activation in the product's epilogue. Blocks of about 96 rows go to the threads; with
// fewer blocks than two per thread (batch 1 on small maps) the whole batch's patches are
// gathered first and the product splits over the weights' columns, so that each thread
// streams its share of the weights.
#include <algorithm>
#include <cstring>

#include <tbb/task_arena.h>

#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"

namespace ge::cpu {
namespace {

struct GatherBf16 {
  const Conv2dParams* p;
  const float* x;
  std::int64_t h, w, c, oh, ow, kh, kw;
  std::int64_t ld;  // the bf16 rows' stride: K padded to the bf16 depth
};

// Rows [r0, r0 + count) of the patch matrix in bf16 at `dst` (row = output pixel of the
// batch, K = (ky, kx, c), zeros in the padding and past K), then zero rows up to `rows_pad`
// (the AMX tiles read whole 16-row slices).
void gather_bf16(const GatherBf16& g, std::int64_t r0, std::int64_t count, std::int64_t rows_pad, std::uint16_t* dst) {
  const Conv2dParams& p = *g.p;
  const std::int64_t k = g.kh * g.kw * g.c;
  const auto run_bytes = static_cast<std::size_t>(g.c) * sizeof(std::uint16_t);
  for (std::int64_t r = 0; r < count; ++r) {
    const std::int64_t pix = r0 + r;
    const std::int64_t img = pix / (g.oh * g.ow), oy = pix / g.ow % g.oh, ox = pix % g.ow;
    std::uint16_t* row = dst + r * g.ld;
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      for (std::int64_t kx = 0; kx < g.kw; ++kx) {
        std::uint16_t* run = row + (ky * g.kw + kx) * g.c;
        const std::int64_t ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
          std::memset(run, 0, run_bytes);
        } else {
          to_bf16_run(g.x + ((img * g.h + iy) * g.w + ix) * g.c, g.c, run);
        }
      }
    }
    std::memset(row + k, 0, static_cast<std::size_t>(g.ld - k) * sizeof(std::uint16_t));
  }
  if (rows_pad > count)
    std::memset(dst + count * g.ld, 0, static_cast<std::size_t>((rows_pad - count) * g.ld) * sizeof(std::uint16_t));
}

}  // namespace

void conv_gemm_nhwc_bf16(const Conv2dParams& p, const NhwcIo& io, const TensorView& x, const PackedConvNhwc& w,
                         const TensorView& y) {
  const std::int64_t k = w.kh * w.kw * w.c, kpad = bf16_k(k), panel = bf16_panel_size(k);
  const GatherBf16 g{&p, x.as<const float>(), x.dims[1], x.dims[2], w.c, io.oh, io.ow, w.kh, w.kw, kpad};
  const std::int64_t rows = x.dims[0] * io.oh * io.ow;
  const auto* b = reinterpret_cast<const std::uint16_t*>(w.panels.data());
  float* py = y.as<float>();
  GemmEpilogue ep;
  ep.bias_n = io.bias;
  ep.residual = io.residual;
  ep.ld_residual = w.m;
  ep.post = p.post;
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  // Rows per block: a multiple of 48 (the dot kernels' 12 rows, the tiles' 16) near 96,
  // from a block count rounded up to a multiple of the threads (the rounding of the rows
  // may leave a few blocks fewer).
  constexpr std::int64_t kTarget = 96;
  std::int64_t blocks = (rows + kTarget - 1) / kTarget;
  if (blocks >= 2 * threads) {
    blocks = (blocks + threads - 1) / threads * threads;
    const std::int64_t block = std::max<std::int64_t>(48, ((rows + blocks - 1) / blocks + 47) / 48 * 48);
    parallel_for((rows + block - 1) / block, 1, [&](std::int64_t bb, std::int64_t be) {
      PooledBuffer patches((block * kpad + 1) / 2);
      auto* a = reinterpret_cast<std::uint16_t*>(patches.data());
      for (std::int64_t blk = bb; blk < be; ++blk) {
        const std::int64_t r0 = blk * block, count = std::min(block, rows - r0);
        gather_bf16(g, r0, count, (count + 15) / 16 * 16, a);
        gemm_bf16_block(count, w.m, bf16_depth(k), a, kpad, b, panel, py, w.m, r0, 0, ep);
      }
    });
    return;
  }
  const std::int64_t rows_pad = (rows + 15) / 16 * 16;
  PooledBuffer patches((rows_pad * kpad + 1) / 2);
  auto* a = reinterpret_cast<std::uint16_t*>(patches.data());
  parallel_for(rows, grain_for(k), [&](std::int64_t rb, std::int64_t re) {
    gather_bf16(g, rb, re - rb, re == rows ? rows_pad - rb : re - rb, a + rb * kpad);
  });
  // Columns in multiples of 32 (two panels), about two chunks per thread.
  const std::int64_t pairs = (w.m + 31) / 32;
  const std::int64_t chunk = std::max<std::int64_t>(1, (pairs + 2 * threads - 1) / (2 * threads)) * 32;
  parallel_for((w.m + chunk - 1) / chunk, 1, [&](std::int64_t cb, std::int64_t ce) {
    for (std::int64_t c = cb; c < ce; ++c) {
      const std::int64_t j0 = c * chunk;
      gemm_bf16_block(rows, std::min(chunk, w.m - j0), bf16_depth(k), a, kpad, b + j0 / 16 * panel, panel, py, w.m, 0,
                      j0, ep);
    }
  });
}

}  // namespace ge::cpu
