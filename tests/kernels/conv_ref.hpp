#pragma once
/// \file
/// A naive reference convolution (f64 accumulation) for the conv kernel tests.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernel_test.hpp"
#include "kernels/cpu/conv/conv.hpp"

namespace ge::test {

/// [N, C, H, W] as [N, H, W, C].
inline Buf<float> to_nhwc(const Buf<float>& t) {
  const std::int64_t n = t.dims[0], c = t.dims[1], h = t.dims[2], w = t.dims[3];
  Buf<float> o({n, h, w, c});
  for (std::int64_t i = 0; i < n * c * h * w; ++i) {
    const std::int64_t x = i % w, y = i / w % h, ch = i / (w * h) % c, b = i / (w * h * c);
    o[((b * h + y) * w + x) * c + ch] = t[i];
  }
  return o;
}

/// [N, H, W, C] as [N, C, H, W] values.
inline std::vector<float> to_nchw(const Buf<float>& t) {
  const std::int64_t n = t.dims[0], h = t.dims[1], w = t.dims[2], c = t.dims[3];
  std::vector<float> o(t.v.size());
  for (std::int64_t i = 0; i < n * h * w * c; ++i) {
    const std::int64_t ch = i % c, x = i / c % w, y = i / (c * w) % h, b = i / (c * w * h);
    o[static_cast<std::size_t>(((b * c + ch) * h + y) * w + x)] = t[i];
  }
  return o;
}

/// The output extent of one spatial dim.
inline std::int64_t out_dim(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t p0,
                     std::int64_t p1) {
  return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

/// ONNX Conv on NCHW by its definition: bias, residual and the post-op included.
inline std::vector<float> ref_conv(const ge::cpu::Conv2dParams& p, const Buf<float>& x, const Buf<float>& w,
                            const Buf<float>* bias, const Buf<float>* res, std::int64_t oh, std::int64_t ow) {
  const std::int64_t n = x.dims[0], c = x.dims[1], h = x.dims[2], wd = x.dims[3];
  const std::int64_t co = w.dims[0], cg = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  const std::int64_t cog = co / p.group;
  std::vector<float> y(static_cast<std::size_t>(n * co * oh * ow));
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t o = 0; o < co; ++o) {
      const std::int64_t g = o / cog;
      for (std::int64_t oy = 0; oy < oh; ++oy) {
        for (std::int64_t ox = 0; ox < ow; ++ox) {
          double s = bias != nullptr ? (*bias)[o] : 0.0;
          for (std::int64_t ci = 0; ci < cg; ++ci) {
            for (std::int64_t ky = 0; ky < kh; ++ky) {
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
                const std::int64_t ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                s += static_cast<double>(x[((b * c + g * cg + ci) * h + iy) * wd + ix]) *
                     w[((o * cg + ci) * kh + ky) * kw + kx];
              }
            }
          }
          const std::int64_t yi = ((b * co + o) * oh + oy) * ow + ox;
          float v = static_cast<float>(s) + (res != nullptr ? (*res)[yi] : 0.0f);
          v = ge::cpu::apply_post(v, p.post);  // every kind, as the kernels' scalar rule
          y[static_cast<std::size_t>(yi)] = v;
        }
      }
    }
  }
  return y;
}

}  // namespace ge::test
