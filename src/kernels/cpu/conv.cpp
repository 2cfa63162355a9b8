#include "kernels/cpu/conv.hpp"

#include <algorithm>
#include <cstring>

namespace ge::cpu {
namespace {

constexpr std::string_view kConv = "Conv";

void check_params(std::string_view op, std::int64_t sh, std::int64_t sw, std::int64_t dh, std::int64_t dw,
                  std::int64_t group, std::int64_t pt, std::int64_t pl, std::int64_t pb, std::int64_t pr) {
  if (sh < 1 || sw < 1) {
    fail(Errc::bad_attribute, op, "strides (" + std::to_string(sh) + ", " + std::to_string(sw) + ") must be >= 1");
  }
  if (dh < 1 || dw < 1) {
    fail(Errc::bad_attribute, op, "dilations (" + std::to_string(dh) + ", " + std::to_string(dw) + ") must be >= 1");
  }
  if (group < 1) fail(Errc::bad_attribute, op, "group " + std::to_string(group) + " must be >= 1");
  if (pt < 0 || pl < 0 || pb < 0 || pr < 0) {
    fail(Errc::bad_attribute, op,
         "pads (" + std::to_string(pt) + ", " + std::to_string(pl) + ", " + std::to_string(pb) + ", " +
             std::to_string(pr) + ") must be >= 0");
  }
}

// Checks everything but the weights' packing; returns the output spatial dims.
struct ConvShape {
  std::int64_t n, c, h, w, cout, kh, kw, oh, ow;
};

ConvShape check_conv(const Conv2dParams& p, const TensorView& x, std::int64_t cout, std::int64_t cin_g,
                     std::int64_t kh, std::int64_t kw, const TensorView* bias, const TensorView& y,
                     const TensorView* residual) {
  check_params(kConv, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.group, p.pad_top, p.pad_left,
               p.pad_bottom, p.pad_right);
  check_dtype(kConv, "X", x, DataType::f32);
  check_dtype(kConv, "Y", y, DataType::f32);
  check_rank(kConv, "X", x, 4);
  ConvShape s{x.dims[0], x.dims[1], x.dims[2], x.dims[3], cout, kh, kw, 0, 0};
  if (s.c != cin_g * p.group) {
    fail(Errc::bad_op_inputs, kConv,
         "X " + dims_text(x.dims) + " has " + std::to_string(s.c) + " channels; the weights expect " +
             std::to_string(cin_g) + " x group " + std::to_string(p.group));
  }
  if (cout % p.group != 0) {
    fail(Errc::bad_attribute, kConv,
         "group " + std::to_string(p.group) + " does not divide the " + std::to_string(cout) + " output channels");
  }
  const std::int64_t eh = s.h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1;
  const std::int64_t ew = s.w + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1;
  if (eh < 0 || ew < 0) {
    fail(Errc::bad_op_inputs, kConv,
         "the dilated kernel " + std::to_string(kh) + "x" + std::to_string(kw) + " is larger than the padded input " +
             dims_text(x.dims));
  }
  s.oh = eh / p.stride_h + 1;
  s.ow = ew / p.stride_w + 1;
  const std::int64_t out[4] = {s.n, cout, s.oh, s.ow};
  check_dims(kConv, "Y", y, out);
  if (bias != nullptr && bias->dtype != DataType::undefined) {
    check_dtype(kConv, "B", *bias, DataType::f32);
    const std::int64_t bd[1] = {cout};
    check_dims(kConv, "B", *bias, bd);
  }
  if (residual != nullptr) {
    check_dtype(kConv, "residual", *residual, DataType::f32);
    check_dims(kConv, "residual", *residual, out);
  }
  return s;
}

// im2col straight into NR-column GEMM panels: element (q, j) of the [C*KH*KW, OH*OW]
// column matrix goes to panel j/NR, row q, lane j%NR.
void im2col_pack(const float* x, std::int64_t c, std::int64_t h, std::int64_t w, const Conv2dParams& p,
                 std::int64_t kh, std::int64_t kw, std::int64_t oh, std::int64_t ow, float* dst) {
  const std::int64_t n = oh * ow;
  const std::int64_t k = c * kh * kw;
  const std::int64_t panels = (n + kGemmNR - 1) / kGemmNR;
  parallel_for(panels, grain_for(k * kGemmNR), [&](std::int64_t pbeg, std::int64_t pend) {
    struct Run {
      std::int64_t oy, ox, lane, len;
    };
    for (std::int64_t pi = pbeg; pi < pend; ++pi) {
      Run runs[kGemmNR];
      std::int64_t nruns = 0;
      const std::int64_t j0 = pi * kGemmNR;
      const std::int64_t lanes = std::min(kGemmNR, n - j0);
      for (std::int64_t l = 0; l < lanes;) {
        const std::int64_t oy = (j0 + l) / ow;
        const std::int64_t ox = (j0 + l) % ow;
        const std::int64_t len = std::min(lanes - l, ow - ox);
        runs[nruns++] = Run{oy, ox, l, len};
        l += len;
      }
      float* d = dst + pi * k * kGemmNR;
      for (std::int64_t ci = 0; ci < c; ++ci) {
        const float* plane = x + ci * h * w;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            float* dq = d + ((ci * kh + ky) * kw + kx) * kGemmNR;
            for (std::int64_t l = lanes; l < kGemmNR; ++l) dq[l] = 0.0f;
            for (std::int64_t r = 0; r < nruns; ++r) {
              const Run& run = runs[r];
              float* dr = dq + run.lane;
              const std::int64_t iy = run.oy * p.stride_h - p.pad_top + ky * p.dilation_h;
              if (iy < 0 || iy >= h) {
                std::fill(dr, dr + run.len, 0.0f);
                continue;
              }
              const float* row = plane + iy * w;
              const std::int64_t ix0 = run.ox * p.stride_w - p.pad_left + kx * p.dilation_w;
              if (p.stride_w == 1) {
                const std::int64_t t0 = std::clamp<std::int64_t>(-ix0, 0, run.len);
                const std::int64_t t1 = std::clamp<std::int64_t>(w - ix0, t0, run.len);
                std::fill(dr, dr + t0, 0.0f);
                if (t1 > t0) std::memcpy(dr + t0, row + (ix0 + t0), sizeof(float) * static_cast<std::size_t>(t1 - t0));
                std::fill(dr + t1, dr + run.len, 0.0f);
              } else {
                for (std::int64_t t = 0; t < run.len; ++t) {
                  const std::int64_t ix = ix0 + t * p.stride_w;
                  dr[t] = ix >= 0 && ix < w ? row[ix] : 0.0f;
                }
              }
            }
          }
        }
      }
    }
  });
}

// Not under ThreadSanitizer: an ifunc resolver runs while the program is being loaded,
// before the sanitizer's runtime is up, and its instrumented code crashes there.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define GE_CONV_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GE_CONV_CLONES
#endif

// Depthwise, one (image, channel) plane: rows accumulate tap by tap, each tap a
// vectorised axpy over the output columns it reaches. Cloned for AVX2+FMA.
GE_CONV_CLONES
void depthwise_plane(const Conv2dParams& p, const ConvShape& s, std::int64_t pc, const float* x, const float* taps,
                     const float* bias, float* y, const float* residual) {
  const std::int64_t ch = pc % s.c;
  const float* in = x + pc * s.h * s.w;
  const float* wk = taps + ch * s.kh * s.kw;
  const float b0 = bias != nullptr ? bias[ch] : 0.0f;
  for (std::int64_t oy = 0; oy < s.oh; ++oy) {
    float* __restrict out = y + (pc * s.oh + oy) * s.ow;
    for (std::int64_t ox = 0; ox < s.ow; ++ox) out[ox] = b0;
    for (std::int64_t ky = 0; ky < s.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= s.h) continue;
      const float* row = in + iy * s.w;
      for (std::int64_t kx = 0; kx < s.kw; ++kx) {
        const float wv = wk[ky * s.kw + kx];
        const std::int64_t off = kx * p.dilation_w - p.pad_left;  // ix = ox*sw + off
        // ox range with 0 <= ox*sw + off < w.
        const std::int64_t lo = off >= 0 ? 0 : (-off + p.stride_w - 1) / p.stride_w;
        const std::int64_t hi_excl = s.w - off <= 0 ? 0 : std::min(s.ow, (s.w - off - 1) / p.stride_w + 1);
        if (hi_excl <= lo) continue;
        if (p.stride_w == 1) {
          const float* __restrict src = row + (off + lo);
          float* __restrict dst = out + lo;
          for_lanes(hi_excl - lo, [&](std::int64_t i) { dst[i] += wv * src[i]; });
        } else {
          for (std::int64_t ox = lo; ox < hi_excl; ++ox) out[ox] += wv * row[ox * p.stride_w + off];
        }
      }
    }
    if (residual != nullptr) {
      const float* __restrict res = residual + (pc * s.oh + oy) * s.ow;
      for_lanes(s.ow, [&](std::int64_t i) { out[i] += res[i]; });
    }
    if (p.post.kind == Activation::relu) {
      for_lanes(s.ow, [&](std::int64_t i) { out[i] = out[i] > 0.0f ? out[i] : 0.0f; });
    } else if (p.post.kind == Activation::clip) {
      const float lo = p.post.lo, hi = p.post.hi;
      for_lanes(s.ow, [&](std::int64_t i) {
        const float v = out[i] < lo ? lo : out[i];
        out[i] = v > hi ? hi : v;
      });
    }
  }
}

void depthwise(const Conv2dParams& p, const ConvShape& s, const float* x, const float* taps, const float* bias,
               float* y, const float* residual) {
  parallel_for(s.n * s.c, grain_for(s.oh * s.ow * s.kh * s.kw), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) depthwise_plane(p, s, pc, x, taps, bias, y, residual);
  });
}

}  // namespace

PackedConvWeights pack_conv_weights(const Conv2dParams& p, const TensorView& w) {
  check_dtype(kConv, "W", w, DataType::f32);
  check_rank(kConv, "W", w, 4);
  if (p.group < 1 || w.dims[0] % p.group != 0) {
    fail(Errc::bad_attribute, kConv,
         "group " + std::to_string(p.group) + " must be >= 1 and divide the output channels of W " +
             dims_text(w.dims));
  }
  PackedConvWeights pw;
  pw.cout = w.dims[0];
  pw.cin_per_group = w.dims[1];
  pw.kh = w.dims[2];
  pw.kw = w.dims[3];
  pw.group = p.group;
  pw.depthwise = p.group > 1 && pw.cin_per_group == 1 && pw.cout == p.group;
  const std::int64_t k = pw.cin_per_group * pw.kh * pw.kw;
  const float* src = w.as<const float>();
  if (pw.depthwise) {
    pw.data = Scratch(pw.cout * k);
    std::copy(src, src + pw.cout * k, pw.data.data());
    return pw;
  }
  const std::int64_t cout_g = pw.cout / p.group;
  const std::int64_t per_group = packed_a_size(cout_g, k);
  pw.data = Scratch(per_group * p.group);
  for (std::int64_t g = 0; g < p.group; ++g) {
    pack_a(cout_g, k, src + g * cout_g * k, k, false, 1.0f, pw.data.data() + g * per_group);
  }
  return pw;
}

void conv2d(const Conv2dParams& p, const TensorView& x, const PackedConvWeights& w, const TensorView* bias,
            const TensorView& y, const TensorView* residual) {
  if (w.group != p.group) {
    fail(Errc::bad_attribute, kConv,
         "the weights were packed for group " + std::to_string(w.group) + "; the conv has group " +
             std::to_string(p.group));
  }
  const ConvShape s = check_conv(p, x, w.cout, w.cin_per_group, w.kh, w.kw, bias, y, residual);
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  const float* pbias = bias != nullptr && bias->dtype != DataType::undefined ? bias->as<const float>() : nullptr;
  const float* pres = residual != nullptr ? residual->as<const float>() : nullptr;
  if (y.elements() == 0) return;
  if (w.depthwise) {
    depthwise(p, s, px, w.data.data(), pbias, py, pres);
    return;
  }
  const std::int64_t cin_g = w.cin_per_group;
  const std::int64_t cout_g = w.cout / p.group;
  const std::int64_t k = cin_g * w.kh * w.kw;
  const std::int64_t n = s.oh * s.ow;
  const std::int64_t per_group = packed_a_size(cout_g, k);
  const bool pointwise = w.kh == 1 && w.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                         p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
  Scratch panels(packed_b_size(k, n));
  for (std::int64_t img = 0; img < s.n; ++img) {
    for (std::int64_t g = 0; g < p.group; ++g) {
      const float* xg = px + (img * s.c + g * cin_g) * s.h * s.w;
      if (pointwise) {
        pack_b(k, n, xg, n, false, panels.data());
      } else {
        im2col_pack(xg, cin_g, s.h, s.w, p, w.kh, w.kw, s.oh, s.ow, panels.data());
      }
      const std::int64_t yoff = (img * w.cout + g * cout_g) * n;
      GemmEpilogue ep;
      ep.bias_m = pbias != nullptr ? pbias + g * cout_g : nullptr;
      ep.residual = pres != nullptr ? pres + yoff : nullptr;
      ep.ld_residual = n;
      ep.post = p.post;
      gemm_packed(cout_g, n, k, w.data.data() + g * per_group, panels.data(), py + yoff, n, ep);
    }
  }
}

void conv2d(const Conv2dParams& p, const TensorView& x, const TensorView& w, const TensorView* bias,
            const TensorView& y, const TensorView* residual) {
  const PackedConvWeights packed = pack_conv_weights(p, w);
  conv2d(p, x, packed, bias, y, residual);
}

void conv_transpose2d(const ConvTranspose2dParams& p, const TensorView& x, const TensorView& w, const TensorView* bias,
                      const TensorView& y) {
  constexpr std::string_view op = "ConvTranspose";
  check_params(op, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.group, p.pad_top, p.pad_left, p.pad_bottom,
               p.pad_right);
  if (p.output_padding_h < 0 || p.output_padding_w < 0) {
    fail(Errc::bad_attribute, op, "output_padding must be >= 0");
  }
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "W", w, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_rank(op, "X", x, 4);
  check_rank(op, "W", w, 4);
  const std::int64_t n = x.dims[0], c = x.dims[1], h = x.dims[2], wd = x.dims[3];
  if (w.dims[0] != c || c % p.group != 0) {
    fail(Errc::bad_op_inputs, op,
         "W " + dims_text(w.dims) + " must start with the " + std::to_string(c) + " channels of X " +
             dims_text(x.dims) + ", a multiple of group " + std::to_string(p.group));
  }
  const std::int64_t cout_g = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  const std::int64_t cout = cout_g * p.group;
  const std::int64_t cin_g = c / p.group;
  const std::int64_t oh =
      p.stride_h * (h - 1) + p.output_padding_h + p.dilation_h * (kh - 1) + 1 - p.pad_top - p.pad_bottom;
  const std::int64_t ow =
      p.stride_w * (wd - 1) + p.output_padding_w + p.dilation_w * (kw - 1) + 1 - p.pad_left - p.pad_right;
  const std::int64_t out[4] = {n, cout, oh, ow};
  check_dims(op, "Y", y, out);
  const float* pbias = nullptr;
  if (bias != nullptr && bias->dtype != DataType::undefined) {
    check_dtype(op, "B", *bias, DataType::f32);
    const std::int64_t bd[1] = {cout};
    check_dims(op, "B", *bias, bd);
    pbias = bias->as<const float>();
  }
  if (y.elements() == 0) return;
  const std::int64_t m = cout_g * kh * kw;  // rows of the column matrix
  const std::int64_t hw = h * wd;
  Scratch col(m * hw);
  const float* px = x.as<const float>();
  const float* pw = w.as<const float>();
  float* py = y.as<float>();
  for (std::int64_t img = 0; img < n; ++img) {
    for (std::int64_t g = 0; g < p.group; ++g) {
      // col[m, hw] = W_g^T [m, cin_g] * X_g [cin_g, hw]
      sgemm(m, hw, cin_g, 1.0f, pw + g * cin_g * m, m, true, px + (img * c + g * cin_g) * hw, hw, false,
            col.data(), hw, GemmEpilogue{});
      float* yg = py + (img * cout + g * cout_g) * oh * ow;
      parallel_for(cout_g, grain_for(kh * kw * hw), [&](std::int64_t cb, std::int64_t ce) {
        for (std::int64_t co = cb; co < ce; ++co) {
          float* plane = yg + co * oh * ow;
          std::fill(plane, plane + oh * ow, pbias != nullptr ? pbias[g * cout_g + co] : 0.0f);
          for (std::int64_t ky = 0; ky < kh; ++ky) {
            for (std::int64_t kx = 0; kx < kw; ++kx) {
              const float* src = col.data() + ((co * kh + ky) * kw + kx) * hw;
              for (std::int64_t iy = 0; iy < h; ++iy) {
                const std::int64_t oy = iy * p.stride_h - p.pad_top + ky * p.dilation_h;
                if (oy < 0 || oy >= oh) continue;
                float* orow = plane + oy * ow;
                const float* srow = src + iy * wd;
                for (std::int64_t ix = 0; ix < wd; ++ix) {
                  const std::int64_t ox = ix * p.stride_w - p.pad_left + kx * p.dilation_w;
                  if (ox >= 0 && ox < ow) orow[ox] += srow[ix];
                }
              }
            }
          }
        }
      });
    }
  }
}

}  // namespace ge::cpu
