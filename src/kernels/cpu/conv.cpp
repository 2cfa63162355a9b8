#include "kernels/cpu/conv.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include <tbb/task_arena.h>

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

// Scratch buffers for B blocks, reused from run to run: a run takes one per task and
// gives it back, so after the first runs no conv allocates. (Not thread_local: a thread
// waiting in a nested parallel_for may run another conv's task meanwhile.)
class BufferPool {
 public:
  // A buffer of at least `n` floats: the smallest free one that fits, else the largest
  // free one regrown (so the pool settles at one buffer per concurrent task).
  Scratch take(std::int64_t n) {
    Scratch s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::size_t pick = free_.size();
      for (std::size_t i = 0; i < free_.size(); ++i) {
        const bool fits = free_[i].size() >= n;
        if (pick == free_.size()) {
          pick = i;
        } else if (fits ? free_[pick].size() < n || free_[i].size() < free_[pick].size()
                        : free_[pick].size() < n && free_[i].size() > free_[pick].size()) {
          pick = i;
        }
      }
      if (pick < free_.size()) {
        s = std::move(free_[pick]);
        free_[pick] = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (s.size() < n) s = Scratch((n + 4095) / 4096 * 4096);
    return s;
  }
  void give(Scratch s) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(s));
  }

 private:
  std::mutex mu_;
  std::vector<Scratch> free_;
};

BufferPool& buffer_pool() {
  static BufferPool pool;
  return pool;
}

// A pooled buffer for one scope.
class PooledBuffer {
 public:
  explicit PooledBuffer(std::int64_t n) : s_(buffer_pool().take(n)) {}
  ~PooledBuffer() { buffer_pool().give(std::move(s_)); }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;
  [[nodiscard]] float* data() const noexcept { return s_.data(); }

 private:
  Scratch s_;
};

// The column matrix of one (image, group): row q = (ci, ky, kx), column j = (oy, ox).
struct Patches {
  const float* x;  // the group's first input plane
  std::int64_t h, w, kh, kw, oh, ow;
  const Conv2dParams* p;
  bool pointwise;  // 1x1, stride 1, no pads: row q is input plane q
};

// pack_patches for kernels of many taps: per panel, its runs of output columns in one row.
void pack_patches_runs(const Patches& pt, std::int64_t q0, std::int64_t q1, std::int64_t n0, std::int64_t ncols,
                       float* dst, std::int64_t panel_stride) {
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  const std::int64_t hw = pt.h * pt.w;
  const Conv2dParams& p = *pt.p;
  const std::int64_t khw = pt.kh * pt.kw;
  struct Run {
    std::int64_t oy, ox, lane, len;
  };
  for (std::int64_t pi = 0; pi < panels; ++pi) {
    Run runs[kGemmNR];
    std::int64_t nruns = 0;
    const std::int64_t j0 = n0 + pi * kGemmNR;
    const std::int64_t lanes = std::min(kGemmNR, ncols - pi * kGemmNR);
    for (std::int64_t l = 0; l < lanes;) {
      const std::int64_t oy = (j0 + l) / pt.ow;
      const std::int64_t ox = (j0 + l) % pt.ow;
      const std::int64_t len = std::min(lanes - l, pt.ow - ox);
      runs[nruns++] = Run{oy, ox, l, len};
      l += len;
    }
    float* d = dst + pi * panel_stride;
    std::int64_t ci = q0 / khw, ky = q0 % khw / pt.kw, kx = q0 % pt.kw;
    for (std::int64_t q = q0; q < q1; ++q) {
      const float* plane = pt.x + ci * hw;
      float* dq = d + (q - q0) * kGemmNR;
      for (std::int64_t l = lanes; l < kGemmNR; ++l) dq[l] = 0.0f;
      for (std::int64_t r = 0; r < nruns; ++r) {
        const Run& run = runs[r];
        float* dr = dq + run.lane;
        const std::int64_t iy = run.oy * p.stride_h - p.pad_top + ky * p.dilation_h;
        const std::int64_t ix0 = run.ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        for (std::int64_t t = 0; t < run.len; ++t) {
          const std::int64_t ix = ix0 + t * p.stride_w;
          dr[t] = iy >= 0 && iy < pt.h && ix >= 0 && ix < pt.w ? plane[iy * pt.w + ix] : 0.0f;
        }
      }
      if (++kx == pt.kw) {
        kx = 0;
        if (++ky == pt.kh) {
          ky = 0;
          ++ci;
        }
      }
    }
  }
}

// Packs rows [q0, q1) and columns [n0, n0 + ncols) of the column matrix into NR-wide
// panels: element (q, n0 + j) goes to dst[(j / NR) * panel_stride + (q - q0) * NR + j % NR];
// lanes past `ncols` are zero.
void pack_patches(const Patches& pt, std::int64_t q0, std::int64_t q1, std::int64_t n0, std::int64_t ncols, float* dst,
                  std::int64_t panel_stride) {
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  const std::int64_t hw = pt.h * pt.w;
  if (pt.pointwise) {
    for (std::int64_t q = q0; q < q1; ++q) {
      const float* src = pt.x + q * hw + n0;
      float* d = dst + (q - q0) * kGemmNR;
      for (std::int64_t pi = 0; pi < panels; ++pi) {
        const std::int64_t lanes = std::min(kGemmNR, ncols - pi * kGemmNR);
        float* dq = d + pi * panel_stride;
        if (lanes == kGemmNR) {
          std::memcpy(dq, src + pi * kGemmNR, sizeof(float) * kGemmNR);
        } else {
          for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = l < lanes ? src[pi * kGemmNR + l] : 0.0f;
        }
      }
    }
    return;
  }
  const Conv2dParams& p = *pt.p;
  const std::int64_t khw = pt.kh * pt.kw;
  // Per panel and kernel tap: where each lane reads in a channel plane (or nothing: a
  // pad), and whether the 16 lanes are one contiguous in-bounds run (a plain copy).
  constexpr std::int64_t kMaxTaps = 64;
  if (khw > kMaxTaps || hw > std::numeric_limits<std::int32_t>::max()) {
    pack_patches_runs(pt, q0, q1, n0, ncols, dst, panel_stride);
    return;
  }
  std::int32_t off[kMaxTaps][kGemmNR];
  bool contiguous[kMaxTaps];
  static const float zero = 0.0f;
  for (std::int64_t pi = 0; pi < panels; ++pi) {
    const std::int64_t j0 = n0 + pi * kGemmNR;
    const std::int64_t lanes = std::min(kGemmNR, ncols - pi * kGemmNR);
    std::int64_t iy0[kGemmNR], ix0[kGemmNR];
    for (std::int64_t l = 0; l < lanes; ++l) {
      iy0[l] = (j0 + l) / pt.ow * p.stride_h - p.pad_top;
      ix0[l] = (j0 + l) % pt.ow * p.stride_w - p.pad_left;
    }
    for (std::int64_t t = 0; t < khw; ++t) {
      const std::int64_t dy = t / pt.kw * p.dilation_h, dx = t % pt.kw * p.dilation_w;
      bool run = lanes == kGemmNR;
      for (std::int64_t l = 0; l < kGemmNR; ++l) {
        const std::int64_t iy = l < lanes ? iy0[l] + dy : -1, ix = l < lanes ? ix0[l] + dx : -1;
        const bool in = iy >= 0 && iy < pt.h && ix >= 0 && ix < pt.w;
        off[t][l] = in ? static_cast<std::int32_t>(iy * pt.w + ix) : -1;
        run = run && in && off[t][l] == off[t][0] + l;
      }
      contiguous[t] = run;
    }
    float* d = dst + pi * panel_stride;
    std::int64_t ci = q0 / khw, t = q0 % khw;
    for (std::int64_t q = q0; q < q1; ++q) {
      const float* plane = pt.x + ci * hw;
      float* dq = d + (q - q0) * kGemmNR;
      if (contiguous[t]) {
        std::memcpy(dq, plane + off[t][0], sizeof(float) * kGemmNR);
      } else {
        const std::int32_t* o = off[t];
        for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = *(o[l] >= 0 ? plane + o[l] : &zero);
      }
      if (++t == khw) {
        t = 0;
        ++ci;
      }
    }
  }
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
  conv_gemm(p, s, w, px, pbias, py, pres);
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
