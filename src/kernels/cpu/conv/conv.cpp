#include "kernels/cpu/conv/conv.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include <tbb/task_arena.h>

#include "ge/shape/window.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"

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
         "X " + bracketed(x.dims) + " has " + std::to_string(s.c) + " channels; the weights expect " +
             std::to_string(cin_g) + " x group " + std::to_string(p.group));
  }
  if (cout % p.group != 0) {
    fail(Errc::bad_attribute, kConv,
         "group " + std::to_string(p.group) + " does not divide the " + std::to_string(cout) + " output channels");
  }
  s.oh = window_out(s.h, kh, {.pad_begin = p.pad_top, .pad_end = p.pad_bottom, .stride = p.stride_h,
                             .dilation = p.dilation_h});
  s.ow = window_out(s.w, kw, {.pad_begin = p.pad_left, .pad_end = p.pad_right, .stride = p.stride_w,
                             .dilation = p.dilation_w});
  if (s.oh < 1 || s.ow < 1) {
    fail(Errc::bad_op_inputs, kConv,
         "the dilated kernel " + std::to_string(kh) + "x" + std::to_string(kw) + " is larger than the padded input " +
             bracketed(x.dims));
  }
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

constexpr std::int64_t kConvKc = 256;     // K block: a 6 x Kc A slice (6 KiB) stays in L1
constexpr std::int64_t kConvNcMax = 128;  // columns per task: a Kc x Nc B block (128 KiB) stays in L2

// How the column range is cut into tasks: `nc` columns per task (0: too few tasks; the
// caller then splits the rows instead).
std::int64_t pick_nc(std::int64_t n, std::int64_t outer, std::int64_t threads) {
  double best = 0.0;
  std::int64_t best_nc = 0;
  for (std::int64_t nc = kConvNcMax; nc >= 2 * kGemmNR; nc -= kGemmNR) {
    const std::int64_t nb = (n + nc - 1) / nc;
    const std::int64_t items = outer * nb;
    if (items < threads) continue;
    double balance = 1.0;
    if (items < 8 * threads) {
      // Greedy assignment of the blocks (full ones, then the last) to the threads.
      const std::int64_t full = (nc + kGemmNR - 1) / kGemmNR;
      const std::int64_t last = (n - (nb - 1) * nc + kGemmNR - 1) / kGemmNR;
      std::vector<std::int64_t> load(static_cast<std::size_t>(threads), 0);
      std::int64_t total = 0;
      for (std::int64_t it = 0; it < items; ++it) {
        const std::int64_t w = it % nb == nb - 1 ? last : full;
        *std::min_element(load.begin(), load.end()) += w;
        total += w;
      }
      balance = static_cast<double>(total) /
                static_cast<double>(threads * *std::max_element(load.begin(), load.end()));
    }
    const double score = balance * (1.0 - static_cast<double>(kGemmNR) / static_cast<double>(nc));
    if (score > best + 1e-9) {
      best = score;
      best_nc = nc;
    }
  }
  return best >= 0.6 ? best_nc : 0;
}

// Conv as GEMM per (image, group): C[cout_g, oh*ow] = W_g[cout_g, K] * patches[K, oh*ow]
// with the patches packed block by block straight from the image (never a whole
// column matrix). Many column blocks: one task per (image, group, column block), each
// packing its Kc x Nc B blocks into a pooled buffer and sweeping all output channels.
// Few (small images at batch 1): per (image, group), the B block over all of K is packed
// in parallel, then tasks split the output channels.
void conv_gemm(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
               const float* pbias, float* py, const float* pres) {
  const std::int64_t cin_g = w.cin_per_group;
  const std::int64_t m = w.cout / p.group;
  const std::int64_t k = cin_g * w.kh * w.kw;
  const std::int64_t n = s.oh * s.ow;
  const std::int64_t per_group = packed_a_size(m, k);
  const bool pointwise = w.kh == 1 && w.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                         p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
  const std::int64_t kblocks = (k + kConvKc - 1) / kConvKc;
  const std::int64_t kc_max = (k + kblocks - 1) / kblocks;
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const std::int64_t outer = s.n * p.group;

  const auto patches = [&](std::int64_t img, std::int64_t g) {
    return Patches{px + (img * s.c + g * cin_g) * s.h * s.w, s.h, s.w, w.kh, w.kw, s.oh, s.ow, &p, pointwise};
  };
  const auto epilogue = [&](std::int64_t img, std::int64_t g) {
    GemmEpilogue ep;
    ep.bias_m = pbias != nullptr ? pbias + g * m : nullptr;
    ep.residual = pres != nullptr ? pres + (img * w.cout + g * m) * n : nullptr;
    ep.ld_residual = n;
    ep.post = p.post;
    return ep;
  };

  const std::int64_t nc = pick_nc(n, outer, threads);
  if (nc > 0) {
    const std::int64_t nb = (n + nc - 1) / nc;
    parallel_for(outer * nb, 1, [&](std::int64_t tb, std::int64_t te) {
      PooledBuffer buf(kc_max * nc);
      for (std::int64_t t = tb; t < te; ++t) {
        const std::int64_t img = t / (p.group * nb);
        const std::int64_t g = t / nb % p.group;
        const std::int64_t n0 = t % nb * nc;
        const std::int64_t ncols = std::min(nc, n - n0);
        const Patches pt = patches(img, g);
        const GemmEpilogue ep = epilogue(img, g);
        const float* a = w.data.data() + g * per_group;
        float* c = py + (img * w.cout + g * m) * n;
        for (std::int64_t k0 = 0; k0 < k; k0 += kc_max) {
          const std::int64_t kc = std::min(kc_max, k - k0);
          pack_patches(pt, k0, k0 + kc, n0, ncols, buf.data(), kc * kGemmNR);
          gemm_packed_kblock(m, 0, m, k, k0, kc, a, buf.data(), kc * kGemmNR, ncols, c, n, n0, ep, k0 == 0,
                             k0 + kc >= k);
        }
      }
    });
    return;
  }
  PooledBuffer buf(packed_b_size(k, n));
  const std::int64_t mpanels = (m + kGemmMR - 1) / kGemmMR;
  for (std::int64_t img = 0; img < s.n; ++img) {
    for (std::int64_t g = 0; g < p.group; ++g) {
      const Patches pt = patches(img, g);
      const GemmEpilogue ep = epilogue(img, g);
      const float* a = w.data.data() + g * per_group;
      float* c = py + (img * w.cout + g * m) * n;
      float* b = buf.data();
      parallel_for(k, grain_for(n, 8192), [&](std::int64_t qb, std::int64_t qe) {
        pack_patches(pt, qb, qe, 0, n, b + qb * kGemmNR, k * kGemmNR);
      });
      const std::int64_t grain = std::max<std::int64_t>(1, mpanels / (4 * threads));
      parallel_for(mpanels, grain, [&](std::int64_t pb, std::int64_t pe) {
        const std::int64_t m0 = pb * kGemmMR, m1 = std::min(m, pe * kGemmMR);
        for (std::int64_t k0 = 0; k0 < k; k0 += kc_max) {
          const std::int64_t kc = std::min(kc_max, k - k0);
          gemm_packed_kblock(m, m0, m1, k, k0, kc, a, b + k0 * kGemmNR, k * kGemmNR, n, c, n, 0, ep, k0 == 0,
                             k0 + kc >= k);
        }
      });
    }
  }
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
        const auto [lo, hi_excl] = window_tap_outputs(s.w, s.ow, p.stride_w, off);  // 0 <= ox*sw + off < w
        if (hi_excl == lo) continue;
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

// Depthwise with stride 1, one plane: the plane is copied into a zero-padded buffer of
// row length pw; output row oy, column ox then reads padded element
// (oy * pw + ox) + ky*dh*pw + kx*dw, so every tap is one long axpy over the flattened rows
// (computing pw - ow unused columns per row) instead of a short one per row.
GE_CONV_CLONES
void depthwise_plane_s1(const Conv2dParams& p, const ConvShape& s, std::int64_t pc, const float* x, const float* taps,
                        const float* bias, float* y, const float* residual, float* padded, float* acc) {
  const std::int64_t ch = pc % s.c;
  const float* in = x + pc * s.h * s.w;
  const float* wk = taps + ch * s.kh * s.kw;
  const float b0 = bias != nullptr ? bias[ch] : 0.0f;
  const std::int64_t pw = s.w + p.pad_left + p.pad_right;
  const std::int64_t ph = s.h + p.pad_top + p.pad_bottom;
  std::fill(padded, padded + p.pad_top * pw, 0.0f);
  for (std::int64_t iy = 0; iy < s.h; ++iy) {
    float* row = padded + (p.pad_top + iy) * pw;
    std::fill(row, row + p.pad_left, 0.0f);
    std::memcpy(row + p.pad_left, in + iy * s.w, sizeof(float) * static_cast<std::size_t>(s.w));
    std::fill(row + p.pad_left + s.w, row + pw, 0.0f);
  }
  std::fill(padded + (p.pad_top + s.h) * pw, padded + ph * pw, 0.0f);
  const std::int64_t len = (s.oh - 1) * pw + s.ow;
  float* __restrict a = acc;
  for_lanes(len, [&](std::int64_t i) { a[i] = b0; });
  for (std::int64_t ky = 0; ky < s.kh; ++ky) {
    for (std::int64_t kx = 0; kx < s.kw; ++kx) {
      const float wv = wk[ky * s.kw + kx];
      const float* __restrict src = padded + ky * p.dilation_h * pw + kx * p.dilation_w;
      for_lanes(len, [&](std::int64_t i) { a[i] += wv * src[i]; });
    }
  }
  for (std::int64_t oy = 0; oy < s.oh; ++oy) {
    float* __restrict out = y + (pc * s.oh + oy) * s.ow;
    const float* __restrict ar = acc + oy * pw;
    if (residual != nullptr) {
      const float* __restrict res = residual + (pc * s.oh + oy) * s.ow;
      for_lanes(s.ow, [&](std::int64_t i) { out[i] = ar[i] + res[i]; });
    } else {
      for_lanes(s.ow, [&](std::int64_t i) { out[i] = ar[i]; });
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
  if (depthwise_vectorised(p, s, x, taps, bias, y, residual)) return;
  const std::int64_t grain = grain_for(s.oh * s.ow * s.kh * s.kw);
  if (p.stride_h == 1 && p.stride_w == 1) {
    const std::int64_t plane = (s.h + p.pad_top + p.pad_bottom) * (s.w + p.pad_left + p.pad_right);
    parallel_for(s.n * s.c, grain, [&](std::int64_t b, std::int64_t e) {
      PooledBuffer buf(2 * plane);
      for (std::int64_t pc = b; pc < e; ++pc) {
        depthwise_plane_s1(p, s, pc, x, taps, bias, y, residual, buf.data(), buf.data() + plane);
      }
    });
    return;
  }
  parallel_for(s.n * s.c, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) depthwise_plane(p, s, pc, x, taps, bias, y, residual);
  });
}

}  // namespace

std::int64_t packed_conv_floats(const PackedConvWeights& w) noexcept {
  constexpr std::int64_t most = std::int64_t{1} << 40;
  const auto product = [](std::int64_t a, std::int64_t b, std::int64_t c) -> std::int64_t {
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r) ? -2 : r;
  };
  if (w.cout < 0 || w.cin_per_group < 0 || w.kh < 0 || w.kw < 0 || w.group < 1 || w.cout > most ||
      w.cin_per_group > most || w.kh > most || w.kw > most || w.cout % w.group != 0)
    return -2;
  if (int{w.depthwise} + int{w.direct} + int{w.pixel_major} + int{w.winograd} > 1) return -2;
  const std::int64_t k = product(w.cin_per_group, w.kh, w.kw), cout_g = w.cout / w.group;
  if (k < 0 || k > most) return -2;
  if (w.depthwise) return w.bf16 || w.cin_per_group != 1 || w.group != w.cout ? -2 : product(w.cout, k, 1);
  if (w.winograd) {  // (16 products of cout x cin)
    if (w.kh != 3 || w.kw != 3 || w.group != 1) return -2;
    if (!w.bf16) return product(16, (w.cout + kGemmMR - 1) / kGemmMR * kGemmMR, w.cin_per_group);
    const std::int64_t halves = product(16, (w.cout + 15) / 16 * 16, bf16_k(w.cin_per_group));
    return halves < 0 || !bf16_usable() ? -2 : (halves + 1) / 2;
  }
  if (w.bf16) {  // (rows of 16 outputs a group, K to the bf16 depth)
    const std::int64_t halves = product((cout_g + 15) / 16 * 16, bf16_k(k), w.group);
    return halves < 0 || !bf16_usable() || w.direct || w.pixel_major ? -2 : (halves + 1) / 2;
  }
  if (w.direct) return w.group != 1 ? -2 : product((w.cout + 15) / 16, k, 16);  // (conv_direct.cpp's blocks of 16)
  if (w.pixel_major) return product((cout_g + kGemmNR - 1) / kGemmNR * kGemmNR, k, w.group);
  return product((cout_g + kGemmMR - 1) / kGemmMR * kGemmMR, k, w.group);
}

PackedConvWeights pack_conv_weights(const Conv2dParams& p, const TensorView& w, const ConvPacking& packing) {
  check_dtype(kConv, "W", w, DataType::f32);
  check_rank(kConv, "W", w, 4);
  if (p.group < 1 || w.dims[0] % p.group != 0) {
    fail(Errc::bad_attribute, kConv,
         "group " + std::to_string(p.group) + " must be >= 1 and divide the output channels of W " +
             bracketed(w.dims));
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
  // bf16 pads a group's outputs to 16 rows (the tiles'): a conv to at most 4 outputs (an
  // image generator's last, 9x9 to RGB) keeps the f32 direct kernel, 10x faster there
  // (128 -> 3 at 256x256: 103 ms in bf16, 11.4 in f32).
  const bool few_outputs = cout_g <= 4 && packing.direct && direct_fits(pw.cin_per_group, pw.cout, pw.kh, pw.kw, p);
  // Where Winograd fits, the dot-product kernels' bf16 GEMM is no faster than f32
  // Winograd (a U-Net's 3x3 convs at 32 to 128 channels, 256x256 down to 32x32: 200-375
  // GFLOP/s against 234-435 effective, Zen 4): Winograd with bf16 products unless AMX
  // runs the bf16 tiles (as the NHWC convs: conv_nhwc.cpp).
  const bool winograd_first = packing.winograd && winograd_fits(pw.kh, pw.kw, p) && !amx_bf16_usable();
  if (packing.bf16 && bf16_usable() && winograd_first) {
    pw.winograd = pw.bf16 = true;
    pw.data = Scratch(winograd_bf16_weights_size(pw.cout, pw.cin_per_group));
    pack_winograd_weights_bf16(pw.cout, pw.cin_per_group, src, pw.data.data());
    return pw;
  }
  if (packing.bf16 && bf16_usable() && !few_outputs && !winograd_first) {
    pw.bf16 = true;
    const std::int64_t rows = (cout_g + 15) / 16 * 16, ld = bf16_k(k);
    pw.data = Scratch((rows * ld * p.group + 1) / 2);
    auto* d = reinterpret_cast<std::uint16_t*>(pw.data.data());
    for (std::int64_t g = 0; g < p.group; ++g)
      convert_rows_bf16(cout_g, k, src + g * cout_g * k, k, d + g * rows * ld, ld, rows);
    return pw;
  }
  if (packing.direct && direct_fits(pw.cin_per_group, pw.cout, pw.kh, pw.kw, p)) {
    pw.direct = true;
    pw.data = Scratch(direct_weights_size(pw.cout, k));
    pack_direct_weights(pw.cout, k, src, pw.data.data());
    return pw;
  }
  if (packing.winograd && winograd_fits(pw.kh, pw.kw, p)) {
    pw.winograd = true;
    pw.data = Scratch(winograd_weights_size(pw.cout, pw.cin_per_group));
    pack_winograd_weights(pw.cout, pw.cin_per_group, src, pw.data.data());
    return pw;
  }
  if (packing.pixel_major) {
    pw.pixel_major = true;
    const std::int64_t per_group = packed_b_size(k, cout_g);
    pw.data = Scratch(per_group * p.group);
    for (std::int64_t g = 0; g < p.group; ++g)
      pack_b(k, cout_g, src + g * cout_g * k, k, true, pw.data.data() + g * per_group);
    return pw;
  }
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
  if (w.cin_per_group * w.kh * w.kw == 0) {
    // No input channels (or an empty kernel): every output is its bias, residual and
    // activation; no GEMM over an empty K (and no arithmetic on empty buffers).
    const std::int64_t plane = s.oh * s.ow;
    for (std::int64_t i = 0; i < s.n * s.cout * plane; ++i) {
      const float b = pbias != nullptr ? pbias[i / plane % s.cout] : 0.0f;
      py[i] = apply_post(b + (pres != nullptr ? pres[i] : 0.0f), p.post);
    }
    return;
  }
  if (w.depthwise) {
    depthwise(p, s, px, w.data.data(), pbias, py, pres);
    return;
  }
  if (w.winograd) {
    if (!winograd_fits(w.kh, w.kw, p))
      fail(Errc::bad_attribute, kConv, "the weights were packed for Winograd (3x3, stride 1, no dilation, group 1); "
                                       "this conv has strides (" + std::to_string(p.stride_h) + ", " +
                                           std::to_string(p.stride_w) + ") and dilations (" +
                                           std::to_string(p.dilation_h) + ", " + std::to_string(p.dilation_w) + ")");
    conv_winograd(p, s, w, px, pbias, py, pres);
    return;
  }
  if (w.direct) {
    if (!direct_fits(w.cin_per_group, w.cout, w.kh, w.kw, p))
      fail(Errc::bad_attribute, kConv, "the weights were packed for the direct conv (group 1, no dilation, horizontal "
                                       "stride 1 or 2); this conv has group " + std::to_string(p.group) + ", dilations (" +
                                           std::to_string(p.dilation_h) + ", " + std::to_string(p.dilation_w) +
                                           "), horizontal stride " + std::to_string(p.stride_w));
    conv_direct(p, s, w, px, pbias, py, pres);
    return;
  }
  const auto run = [&](const Conv2dParams& q, const ConvShape& t, const float* in) {
    if (w.bf16) {
      conv_gemm_bf16(q, t, w, in, pbias, py, pres);
    } else if (w.pixel_major) {
      conv_gemm_pixels(q, t, w, in, pbias, py, pres);
    } else {
      conv_gemm(q, t, w, in, pbias, py, pres);
    }
  };
  const bool strided_1x1 = w.kh == 1 && w.kw == 1 && (p.stride_h > 1 || p.stride_w > 1) && p.pad_top == 0 &&
                           p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
  if (!strided_1x1) {
    run(p, s, px);
    return;
  }
  // A 1x1 conv with strides (ResNet's downsampling) reads only every stride-th pixel:
  // those are gathered once into planes of the output's size, and the conv over them is
  // a plain pointwise one (its B blocks are row copies).
  PooledBuffer sub(s.n * s.c * s.oh * s.ow);
  parallel_for(s.n * s.c, grain_for(s.oh * s.ow, 16384), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) {
      const float* in = px + pc * s.h * s.w;
      float* out = sub.data() + pc * s.oh * s.ow;
      for (std::int64_t oy = 0; oy < s.oh; ++oy) {
        const float* row = in + oy * p.stride_h * s.w;
        for (std::int64_t ox = 0; ox < s.ow; ++ox) out[oy * s.ow + ox] = row[ox * p.stride_w];
      }
    }
  });
  Conv2dParams q = p;
  q.stride_h = q.stride_w = 1;
  ConvShape t = s;
  t.h = s.oh;
  t.w = s.ow;
  run(q, t, sub.data());
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
         "W " + bracketed(w.dims) + " must start with the " + std::to_string(c) + " channels of X " +
             bracketed(x.dims) + ", a multiple of group " + std::to_string(p.group));
  }
  const std::int64_t cout_g = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  const std::int64_t cout = cout_g * p.group;
  const std::int64_t cin_g = c / p.group;
  const std::int64_t oh = window_transpose_out(
      h, kh, {.pad_begin = p.pad_top, .pad_end = p.pad_bottom, .stride = p.stride_h, .dilation = p.dilation_h},
      p.output_padding_h);
  const std::int64_t ow = window_transpose_out(
      wd, kw, {.pad_begin = p.pad_left, .pad_end = p.pad_right, .stride = p.stride_w, .dilation = p.dilation_w},
      p.output_padding_w);
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
  PooledBuffer col(m * hw);
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
