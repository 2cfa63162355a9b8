// Dense NHWC convs as a sum over taps (conv.hpp: `conv_taps_nhwc`): for a conv whose taps
// mostly land in its padding (an atrous conv of rate 12 or 24 over a 28x28 map), the GEMM
// over patches multiplies mostly zeros. Here each tap (ky, kx) contributes only over the
// rectangle of output pixels it reads the image for: those pixels' input rows (read in
// place when they are one run of the image, else gathered) times the tap's packed
// weights [C, M], added into the output. The output starts as the bias; the residual and
// the activation follow the last tap.
#include <algorithm>
#include <cstring>

#include "ge/shape/window.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Conv";

// The output extent (`ge::window_out`; < 1 when the kernel does not fit).
std::int64_t out_dim(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t pb, std::int64_t pe, std::int64_t d) {
  return window_out(in, k, {.pad_begin = pb, .pad_end = pe, .stride = s, .dilation = d});
}

}  // namespace

PackedConvTaps pack_conv_taps_nhwc(const TensorView& w) {
  check_dtype(kOp, "W", w, DataType::f32);
  check_rank(kOp, "W", w, 4);
  PackedConvTaps out;
  out.m = w.dims[0];
  out.c = w.dims[1];
  out.kh = w.dims[2];
  out.kw = w.dims[3];
  const std::int64_t taps = out.kh * out.kw, per = packed_b_size(out.c, out.m);
  out.panels = Scratch(taps * per);
  Scratch bt(out.m * out.c);  // one tap's W^T rows [m][c]
  const float* src = w.as<const float>();
  for (std::int64_t t = 0; t < taps; ++t) {
    for (std::int64_t o = 0; o < out.m; ++o)
      for (std::int64_t ci = 0; ci < out.c; ++ci) bt.data()[o * out.c + ci] = src[(o * out.c + ci) * taps + t];
    pack_b(out.c, out.m, bt.data(), out.c, true, out.panels.data() + t * per);
  }
  return out;
}

double conv_taps_live_share(const Conv2dParams& p, std::int64_t h, std::int64_t w, std::int64_t kh, std::int64_t kw) {
  const std::int64_t oh = out_dim(h, kh, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h);
  const std::int64_t ow = out_dim(w, kw, p.stride_w, p.pad_left, p.pad_right, p.dilation_w);
  if (oh <= 0 || ow <= 0) return 1.0;
  double live = 0;
  for (std::int64_t ky = 0; ky < kh; ++ky)
    for (std::int64_t kx = 0; kx < kw; ++kx) {
      // The output rectangle whose tap (ky, kx) reads inside the image.
      const auto [h0, h1] = window_tap_outputs(h, oh, p.stride_h, ky * p.dilation_h - p.pad_top);
      const auto [w0, w1] = window_tap_outputs(w, ow, p.stride_w, kx * p.dilation_w - p.pad_left);
      live += static_cast<double>((h1 - h0) * (w1 - w0));
    }
  return live / static_cast<double>(oh * ow * kh * kw);
}

void conv_taps_nhwc(const Conv2dParams& p, const TensorView& x, const PackedConvTaps& w, const TensorView* bias,
                    const TensorView& y, const TensorView* residual) {
  const NhwcIo io = check_dense_nhwc(p, x, w.c, w.kh, w.kw, w.m, bias, y, residual);
  if (y.elements() == 0) return;
  const std::int64_t n_img = x.dims[0], H = x.dims[1], W = x.dims[2], C = w.c, M = w.m, OH = io.oh, OW = io.ow;
  const std::int64_t pixels = n_img * OH * OW, per = packed_b_size(C, M);
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  parallel_for(pixels, grain_for(M), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      float* row = py + i * M;
      if (io.bias != nullptr) std::memcpy(row, io.bias, static_cast<std::size_t>(M) * sizeof(float));
      else std::fill(row, row + M, 0.0f);
    }
  });
  GemmEpilogue add;
  add.accumulate = true;
  // Scratch for one tap's gathered input rows and its product when the rectangle is not
  // whole output rows: at most one image's output pixels each, taken once per call.
  PooledBuffer a_buf(OH * OW * C), t_buf(OH * OW * M);
  for (std::int64_t n = 0; n < n_img; ++n)
    for (std::int64_t ky = 0; ky < w.kh; ++ky)
      for (std::int64_t kx = 0; kx < w.kw; ++kx) {
        const std::int64_t off_h = ky * p.dilation_h - p.pad_top, off_w = kx * p.dilation_w - p.pad_left;
        const auto [h0, h1] = window_tap_outputs(H, OH, p.stride_h, off_h);
        const auto [w0, w1] = window_tap_outputs(W, OW, p.stride_w, off_w);
        if (h1 <= h0 || w1 <= w0) continue;
        const std::int64_t rows = h1 - h0, cols = w1 - w0, count = rows * cols;
        const float* b = w.panels.data() + (ky * w.kw + kx) * per;
        const float* x_img = px + n * H * W * C;
        // A: the pixels' input rows, in place when they are one run of the image.
        const float* a = nullptr;
        if (p.stride_h == 1 && p.stride_w == 1 && cols == W && off_w + w0 == 0) {
          a = x_img + ((h0 + off_h) * W) * C;
        } else {
          for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t ih = (h0 + r) * p.stride_h + off_h;
            for (std::int64_t q = 0; q < cols; ++q) {
              const std::int64_t iw = (w0 + q) * p.stride_w + off_w;
              std::memcpy(a_buf.data() + (r * cols + q) * C, x_img + (ih * W + iw) * C,
                          static_cast<std::size_t>(C) * sizeof(float));
            }
          }
          a = a_buf.data();
        }
        float* y_img = py + n * OH * OW * M;
        if (cols == OW) {  // whole output rows: one run of Y, accumulated in place
          gemm_rowmajor_a(count, M, C, a, C, b, y_img + h0 * OW * M, M, add, true);
          continue;
        }
        gemm_rowmajor_a(count, M, C, a, C, b, t_buf.data(), M, GemmEpilogue{}, true);
        parallel_for(rows, grain_for(cols * M), [&](std::int64_t rb, std::int64_t re) {
          for (std::int64_t r = rb; r < re; ++r) {
            float* dst = y_img + ((h0 + r) * OW + w0) * M;
            const float* src = t_buf.data() + r * cols * M;
            for_lanes(cols * M, [&](std::int64_t i) { dst[i] += src[i]; });
          }
        });
      }
  if (io.residual == nullptr && p.post.kind == Activation::none) return;
  parallel_for(pixels, grain_for(M), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      float* row = py + i * M;
      if (io.residual != nullptr) {
        const float* z = io.residual + i * M;
        for_lanes(M, [&](std::int64_t j) { row[j] += z[j]; });
      }
      for (std::int64_t j = 0; j < M; ++j) row[j] = apply_post(row[j], p.post);
    }
  });
}

}  // namespace ge::cpu
