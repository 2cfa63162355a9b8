// Conv as a bf16 GEMM (`gemm_bf16_block`: AMX tiles, or AVX512-BF16 dot products; the NCHW
// convs of bf16 models on AMX, NHWC ones elsewhere): C[cout_g, oh*ow] = W_g[cout_g, K] * patches[K, oh*ow], W in
// bf16 rows packed once, the patches packed per task: a Kc-row slice at a time in f32
// panels (the f32 path's packing), then converted to VNNI panels over all of K, so that
// the block accumulates over the whole K and each result leaves them once, through the
// epilogue. Tasks are (image, group, column block, row block); the rows are split only
// when the column blocks alone leave threads idle (small images at batch 1).
#include <algorithm>

#include <tbb/task_arena.h>

#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"

namespace ge::cpu {

void conv_gemm_bf16(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                    const float* pbias, float* py, const float* pres) {
  constexpr std::int64_t kc_chunk = 256;  // f32 rows packed at a time (a 256 x 64 block: 64 KiB)
  const std::int64_t cin_g = w.cin_per_group;
  const std::int64_t m = w.cout / p.group;
  const std::int64_t k = cin_g * w.kh * w.kw;
  const std::int64_t kpad = bf16_k(k);
  const std::int64_t mrows = (m + 15) / 16 * 16;  // rows per group in `w.data`
  const std::int64_t n = s.oh * s.ow;
  const bool pointwise = w.kh == 1 && w.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                         p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const std::int64_t outer = s.n * p.group;
  const auto* wa = reinterpret_cast<const std::uint16_t*>(w.data.data());

  // Columns per task: 64 (a 64-column VNNI block of K <= 4608 is <= 576 KiB, in L2), 32
  // when that gives the threads more tasks.
  std::int64_t nc = 64;
  if (outer * ((n + nc - 1) / nc) < 2 * threads && n > 32) nc = 32;
  const std::int64_t nb = (n + nc - 1) / nc;
  // Row blocks (multiples of 32 rows) when the column blocks are too few.
  const std::int64_t row_tiles = (m + 31) / 32;
  const std::int64_t want = (2 * threads + outer * nb - 1) / (outer * nb);
  const std::int64_t ms = std::clamp<std::int64_t>(want, 1, row_tiles);
  const std::int64_t mchunk = (row_tiles + ms - 1) / ms * 32;
  const std::int64_t mblocks = (m + mchunk - 1) / mchunk;
  const std::int64_t panels_max = nc / 16;
  const std::int64_t panel = kpad * 16;

  parallel_for(outer * nb * mblocks, 1, [&](std::int64_t tb, std::int64_t te) {
    PooledBuffer f32(kc_chunk * nc);
    PooledBuffer vnni((panels_max * panel + 1) / 2);
    auto* b = reinterpret_cast<std::uint16_t*>(vnni.data());
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t mb = t % mblocks;
      const std::int64_t cb = t / mblocks % nb;
      const std::int64_t ig = t / (mblocks * nb);  // image * group + group
      const std::int64_t img = ig / p.group, g = ig % p.group;
      const std::int64_t n0 = cb * nc, ncols = std::min(nc, n - n0);
      const std::int64_t panels = (ncols + 15) / 16;
      const Patches pt{px + (img * s.c + g * cin_g) * s.h * s.w, s.h, s.w, w.kh, w.kw, s.oh, s.ow, &p, pointwise};
      for (std::int64_t k0 = 0; k0 < k; k0 += kc_chunk) {
        const std::int64_t kc = std::min(kc_chunk, k - k0);
        pack_patches(pt, k0, k0 + kc, n0, ncols, f32.data(), kc * 16);
        panels_to_vnni(panels, kc, f32.data(), kc * 16, b, panel, k0);
      }
      zero_vnni_rows(panels, (k + 1) / 2 * 2, kpad, b, panel);
      GemmEpilogue ep;
      ep.bias_m = pbias != nullptr ? pbias + g * m : nullptr;
      ep.residual = pres != nullptr ? pres + (img * w.cout + g * m) * n : nullptr;
      ep.ld_residual = n;
      ep.post = p.post;
      const std::int64_t m0 = mb * mchunk, m1 = std::min(m, m0 + mchunk);
      gemm_bf16_block(m1 - m0, ncols, bf16_depth(k), wa + (g * mrows + m0) * kpad, kpad, b, panel,
                      py + (img * w.cout + g * m) * n, n, m0, n0, ep);
    }
  });
}

}  // namespace ge::cpu
