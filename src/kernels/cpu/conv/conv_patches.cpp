#include "kernels/cpu/conv/conv_internal.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ge::cpu {
namespace {

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

}  // namespace

void pack_plane_panels(const float* x, std::int64_t plane, std::int64_t q0, std::int64_t q1, std::int64_t n0,
                       std::int64_t ncols, float* dst, std::int64_t panel_stride) {
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  for (std::int64_t q = q0; q < q1; ++q) {
    const float* src = x + q * plane + n0;
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
}

void pack_patches(const Patches& pt, std::int64_t q0, std::int64_t q1, std::int64_t n0, std::int64_t ncols, float* dst,
                  std::int64_t panel_stride) {
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  const std::int64_t hw = pt.h * pt.w;
  if (pt.pointwise) {
    pack_plane_panels(pt.x, hw, q0, q1, n0, ncols, dst, panel_stride);
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
  // Per tap: a regular panel (16 lanes in one output row, every read inside the image)
  // reads plane[base + l * stride_w], found in O(1); others get per-lane offsets.
  enum class Kind : std::uint8_t { contiguous, strided, table };
  std::int32_t off[kMaxTaps][kGemmNR];
  std::int64_t base[kMaxTaps];
  Kind kind[kMaxTaps];
  static const float zero = 0.0f;
  for (std::int64_t pi = 0; pi < panels; ++pi) {
    const std::int64_t j0 = n0 + pi * kGemmNR;
    const std::int64_t lanes = std::min(kGemmNR, ncols - pi * kGemmNR);
    const std::int64_t oy = j0 / pt.ow, ox = j0 % pt.ow;
    const bool one_row = lanes == kGemmNR && ox + kGemmNR <= pt.ow;
    bool lanes_known = false;
    std::int64_t iy0[kGemmNR], ix0[kGemmNR];
    for (std::int64_t t = 0; t < khw; ++t) {
      const std::int64_t dy = t / pt.kw * p.dilation_h, dx = t % pt.kw * p.dilation_w;
      if (one_row) {
        const std::int64_t iy = oy * p.stride_h - p.pad_top + dy;
        const std::int64_t ix = ox * p.stride_w - p.pad_left + dx;
        if (iy >= 0 && iy < pt.h && ix >= 0 && ix + (kGemmNR - 1) * p.stride_w < pt.w) {
          base[t] = iy * pt.w + ix;
          kind[t] = p.stride_w == 1 ? Kind::contiguous : Kind::strided;
          continue;
        }
      }
      if (!lanes_known) {
        for (std::int64_t l = 0; l < lanes; ++l) {
          iy0[l] = (j0 + l) / pt.ow * p.stride_h - p.pad_top;
          ix0[l] = (j0 + l) % pt.ow * p.stride_w - p.pad_left;
        }
        lanes_known = true;
      }
      for (std::int64_t l = 0; l < kGemmNR; ++l) {
        const std::int64_t iy = l < lanes ? iy0[l] + dy : -1, ix = l < lanes ? ix0[l] + dx : -1;
        const bool in = iy >= 0 && iy < pt.h && ix >= 0 && ix < pt.w;
        off[t][l] = in ? static_cast<std::int32_t>(iy * pt.w + ix) : -1;
      }
      kind[t] = Kind::table;
    }
    float* d = dst + pi * panel_stride;
    std::int64_t ci = q0 / khw, t = q0 % khw;
    const std::int64_t sw = p.stride_w;
    for (std::int64_t q = q0; q < q1; ++q) {
      const float* plane = pt.x + ci * hw;
      float* __restrict dq = d + (q - q0) * kGemmNR;
      if (kind[t] == Kind::contiguous) {
        std::memcpy(dq, plane + base[t], sizeof(float) * kGemmNR);
      } else if (kind[t] == Kind::strided) {
        const float* __restrict src = plane + base[t];
        if (sw == 2) {
          for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = src[2 * l];
        } else {
          for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = src[l * sw];
        }
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

}  // namespace ge::cpu
