// Conv with the output pixels as the GEMM's rows, for small images (ResNet's and
// MobileNet's 7x7 stages): C^T[pixels, cout_g] = P^T[pixels, K] * W_g^T[K, cout_g], the
// pixels of every image of the batch stacked. The channel-major GEMM of conv_gemm has
// only oh*ow columns per image there (49: four 16-column panels, one of them nearly
// empty) and sweeps all the weights once per image; here the channels are the columns
// (multiples of 32: full tiles) and the weights, packed once as B panels, are read once
// per block of pixel rows. The patch rows are gathered a block of pixels at a time into a
// row-major buffer that the GEMM reads in place; the result is transposed back to NCHW
// with the bias, residual and activation applied on the way.
#include <algorithm>

#include "kernels/cpu/conv/conv_internal.hpp"

namespace ge::cpu {

void conv_gemm_pixels(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                      const float* pbias, float* py, const float* pres) {
  const std::int64_t cin_g = w.cin_per_group;
  const std::int64_t m = w.cout / p.group;
  const std::int64_t k = cin_g * w.kh * w.kw;
  const std::int64_t n = s.oh * s.ow;
  const std::int64_t rows = s.n * n;  // output pixels of the whole batch
  // Pixel rows per block: the patch block stays within about 8 MiB.
  const std::int64_t block = std::clamp<std::int64_t>((std::int64_t{2} << 20) / std::max<std::int64_t>(k, 1) / 12 * 12,
                                                      12, std::max<std::int64_t>(rows, 12));
  const std::int64_t per_group = packed_b_size(k, m);
  PooledBuffer patches(block * k);
  PooledBuffer result(block * m);
  const std::int64_t khw = w.kh * w.kw;
  for (std::int64_t g = 0; g < p.group; ++g) {
    const float* wt = w.data.data() + g * per_group;
    for (std::int64_t r0 = 0; r0 < rows; r0 += block) {
      const std::int64_t nr = std::min(block, rows - r0);
      // P^T rows: row (img, oy, ox), column (ci, ky, kx).
      parallel_for(nr, grain_for(k, 16384), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t r = b; r < e; ++r) {
          const std::int64_t img = (r0 + r) / n, pix = (r0 + r) % n;
          const std::int64_t oy = pix / s.ow, ox = pix % s.ow;
          const float* in = px + (img * s.c + g * cin_g) * s.h * s.w;
          float* dst = patches.data() + r * k;
          for (std::int64_t t = 0; t < khw; ++t) {
            const std::int64_t iy = oy * p.stride_h - p.pad_top + t / w.kw * p.dilation_h;
            const std::int64_t ix = ox * p.stride_w - p.pad_left + t % w.kw * p.dilation_w;
            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) {
              for (std::int64_t ci = 0; ci < cin_g; ++ci) dst[ci * khw + t] = 0.0f;
              continue;
            }
            const float* src = in + iy * s.w + ix;
            for (std::int64_t ci = 0; ci < cin_g; ++ci) dst[ci * khw + t] = src[ci * s.h * s.w];
          }
        }
      });
      gemm_rowmajor_a(nr, m, k, patches.data(), k, wt, result.data(), m, GemmEpilogue{});
      // Back to NCHW: y[img][g*m + j][pix] = act(C^T[row][j] + bias + residual).
      const std::int64_t img0 = r0 / n, img1 = (r0 + nr - 1) / n + 1;
      parallel_for((img1 - img0) * m, grain_for(n, 4096), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t t = b; t < e; ++t) {
          const std::int64_t img = img0 + t / m, j = t % m, ch = g * m + j;
          const std::int64_t lo = std::max(r0, img * n), hi = std::min(r0 + nr, (img + 1) * n);
          const float bias = pbias != nullptr ? pbias[ch] : 0.0f;
          float* out = py + (img * w.cout + ch) * n;
          const float* res = pres != nullptr ? pres + (img * w.cout + ch) * n : nullptr;
          for (std::int64_t row = lo; row < hi; ++row) {
            const std::int64_t pix = row - img * n;
            float v = result.data()[(row - r0) * m + j] + bias;
            if (res != nullptr) v += res[pix];
            out[pix] = apply_post(v, p.post);
          }
        }
      });
    }
  }
}

}  // namespace ge::cpu
