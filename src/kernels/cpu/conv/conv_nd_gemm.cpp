// Conv over up to three spatial dims on f32 as a GEMM over image patches (window_nd.hpp):
// per (image, group) C[cout_g, od*oh*ow] = W_g[cout_g, K] * patches[K, od*oh*ow], K =
// (ci, kz, ky, kx), the weights packed once as A panels (`pack_conv_weights` of the
// kernel viewed as [M, C/group, kd*kh, kw]), the patches packed block by block straight
// from the image into B panels and never whole, as the 2-D conv does (conv.cpp): per
// panel of 16 output columns and tap, 16 lanes in one output row with every read inside
// the image are one copy (stride 1) or one strided gather; the rest read per lane.
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ge/shape/window.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/conv/window_nd.hpp"

#if GE_X86_KERNELS
#include <immintrin.h>
#endif

namespace ge::cpu {
namespace {

constexpr std::int64_t kKc = 256;     // K block: a 6 x Kc A slice stays in L1
constexpr std::int64_t kNcMax = 512;  // columns per task: a Kc x Nc B block (512 KiB) stays in L2

}  // namespace

// The column matrix of one (image, group).
struct NdPatches {
  const float* x;  // the group's first input plane
  std::array<std::int64_t, 3> in, k, out;
  const WindowNd* p;
  bool pointwise;  // 1x1x1, stride 1, no pads: row q is input plane q
  [[nodiscard]] std::int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  [[nodiscard]] std::int64_t taps() const { return k[0] * k[1] * k[2]; }
};

// Per-tap reading plan of one panel, reused across panels (sized once per task).
struct NdTapPlan {
  enum class Kind : std::uint8_t { contiguous, strided, table };
  std::vector<std::int64_t> base;
  std::vector<Kind> kind;
  std::vector<std::int64_t> off;  // [tap][16]: the lane's element in the plane, or -1
  // The masked plan (AVX-512 and AVX2, horizontal stride S of 1 or 2) of the panels of columns
  // [n0, n0 + ncols): per (panel, tap) `count` runs from `first`, run i giving lanes
  // `mask` (bit l: lane l), lane l read at `at + l * S`; `wide`: the same lanes as
  // positions in the 16 * S floats from `at` (bit l * S). Kept while the columns stay.
  std::int64_t n0 = -1, ncols = -1;
  std::vector<std::uint32_t> first;
  std::vector<std::uint8_t> count;
  std::vector<std::int64_t> at;
  std::vector<std::uint16_t> mask;
  std::vector<std::uint32_t> wide;
  explicit NdTapPlan(std::int64_t taps)
      : base(static_cast<std::size_t>(taps)),
        kind(static_cast<std::size_t>(taps)),
        off(static_cast<std::size_t>(taps * kGemmNR)) {}
};

#if GE_X86_KERNELS
namespace {

// pack_patches_nd from AVX2 on, for horizontal stride S of 1 or 2: a panel's 16 lanes fall
// into runs of one output row each (one run, or two where the panel crosses a row's
// end); per tap a run is one masked load of the input row it reads (lanes past the
// image's edges or in a pad row masked off, zero; stride 2: two loads and the even
// lanes), so every element of the panel costs the same wherever the pads are.
template <int S>
void plan_masked(const NdPatches& pt, NdTapPlan& plan, std::int64_t n0, std::int64_t ncols) {
  if (plan.n0 == n0 && plan.ncols == ncols) return;
  const WindowNd& p = *pt.p;
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR, taps = pt.taps();
  plan.n0 = n0;
  plan.ncols = ncols;
  plan.first.resize(static_cast<std::size_t>(panels * taps));
  plan.count.resize(static_cast<std::size_t>(panels * taps));
  plan.at.clear();
  plan.mask.clear();
  plan.wide.clear();
  for (std::int64_t pi = 0; pi < panels; ++pi) {
    const std::int64_t j0 = n0 + pi * kGemmNR;
    const std::int64_t lanes = std::min(kGemmNR, ncols - pi * kGemmNR);
    struct Run {
      std::int64_t l0, len, oz, oy, ox;
    };
    Run runs[kGemmNR];
    std::int64_t nruns = 0;
    for (std::int64_t l = 0; l < lanes;) {
      const std::int64_t j = j0 + l, ox = j % pt.out[2];
      const std::int64_t len = std::min(lanes - l, pt.out[2] - ox);
      runs[nruns++] = Run{l, len, j / (pt.out[2] * pt.out[1]), j / pt.out[2] % pt.out[1], ox};
      l += len;
    }
    std::int64_t t = 0;
    for (std::int64_t kz = 0; kz < pt.k[0]; ++kz)
      for (std::int64_t ky = 0; ky < pt.k[1]; ++ky)
        for (std::int64_t kx = 0; kx < pt.k[2]; ++kx, ++t) {
          const auto slot = static_cast<std::size_t>(pi * taps + t);
          plan.first[slot] = static_cast<std::uint32_t>(plan.at.size());
          for (std::int64_t r = 0; r < nruns; ++r) {
            const Run& run = runs[r];
            const std::int64_t iz = run.oz * p.stride[0] - p.pad_begin[0] + kz * p.dilation[0];
            const std::int64_t iy = run.oy * p.stride[1] - p.pad_begin[1] + ky * p.dilation[1];
            if (iz < 0 || iz >= pt.in[0] || iy < 0 || iy >= pt.in[1]) continue;
            const std::int64_t ix = run.ox * S - p.pad_begin[2] + kx * p.dilation[2];  // the run's first lane's
            const auto [first, last] = window_tap_outputs(pt.in[2], run.len, S, ix);  // the run's lanes inside
            const std::int64_t lo = run.l0 + first, hi = run.l0 + last;
            if (lo >= hi) continue;
            std::uint32_t wide = 0;
            for (std::int64_t l = lo; l < hi; ++l) wide |= 1u << (l * S);
            plan.mask.push_back(static_cast<std::uint16_t>(((1u << (hi - lo)) - 1u) << lo));
            plan.wide.push_back(wide);
            plan.at.push_back((iz * pt.in[1] + iy) * pt.in[2] + ix - run.l0 * S);  // lane l reads at + l * S
          }
          plan.count[slot] = static_cast<std::uint8_t>(plan.at.size() - plan.first[slot]);
        }
  }
}

// pack_patches_nd on AVX-512 for horizontal stride S of 1 or 2: a panel's 16 lanes fall
// into runs of one output row each (one run, or two where the panel crosses a row's
// end); per tap a run is one masked load of the input row it reads (lanes past the
// image's edges or in a pad row masked off, zero; stride 2: two loads and the even
// lanes), so every element of the panel costs the same wherever the pads are. Row by row
// of the column matrix, all panels of a row in turn: each row reads one run of its
// input plane (with the rows panel by panel, a pass over K touched a line of every
// plane: too many streams and pages for the prefetchers and the TLB).
template <int S>
GE_TARGET_AVX512 void pack_patches_masked(const NdPatches& pt, NdTapPlan& plan, std::int64_t q0, std::int64_t q1,
                                          std::int64_t n0, std::int64_t ncols, float* dst, std::int64_t panel_stride) {
  plan_masked<S>(pt, plan, n0, ncols);
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  const std::int64_t plane = pt.in_plane(), taps = pt.taps();
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  std::int64_t ci = q0 / taps, t = q0 % taps;
  for (std::int64_t q = q0; q < q1; ++q) {
    // The lanes' addresses as integers: `at` may lie before the plane for masked-off lanes.
    const auto src = reinterpret_cast<std::uintptr_t>(pt.x + ci * plane);
    float* d = dst + (q - q0) * kGemmNR;
    for (std::int64_t pi = 0; pi < panels; ++pi) {
      const auto slot = static_cast<std::size_t>(pi * taps + t);
      __m512 v = _mm512_setzero_ps();
      const std::size_t i0 = plan.first[slot];
      for (std::size_t i = i0; i < i0 + plan.count[slot]; ++i) {
        const auto* at = reinterpret_cast<const float*>(src + static_cast<std::uintptr_t>(plan.at[i]) * sizeof(float));
        if constexpr (S == 1) {
          v = _mm512_mask_loadu_ps(v, static_cast<__mmask16>(plan.mask[i]), at);
        } else {
          const __m512 a = _mm512_maskz_loadu_ps(static_cast<__mmask16>(plan.wide[i] & 0xFFFFu), at);
          const __m512 b = _mm512_maskz_loadu_ps(static_cast<__mmask16>(plan.wide[i] >> 16), at + 16);
          v = _mm512_mask_mov_ps(v, static_cast<__mmask16>(plan.mask[i]), _mm512_permutex2var_ps(a, even, b));
        }
      }
      _mm512_storeu_ps(d + pi * panel_stride, v);
    }
    if (++t == taps) {
      t = 0;
      ++ci;
    }
  }
}

// The same on AVX2: a panel's 16 lanes as two vectors of 8, each run's lanes loaded with
// `vmaskmovps` (lanes off the mask read nothing) and blended in by the run's mask.
// Lane l all ones where bit l of `m` is set.
GE_TARGET_AVX2 inline __attribute__((always_inline)) __m256i lane_mask8(std::uint32_t m) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(m)), bit), bit);
}
// The even floats of `a` then `b`.
GE_TARGET_AVX2 inline __attribute__((always_inline)) __m256 even_floats8(__m256 a, __m256 b) {
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  return _mm256_permute2f128_ps(_mm256_permutevar8x32_ps(a, even), _mm256_permutevar8x32_ps(b, even), 0x20);
}
template <int S>
GE_TARGET_AVX2 void pack_patches_masked8(const NdPatches& pt, NdTapPlan& plan, std::int64_t q0, std::int64_t q1,
                                         std::int64_t n0, std::int64_t ncols, float* dst, std::int64_t panel_stride) {
  plan_masked<S>(pt, plan, n0, ncols);
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  const std::int64_t plane = pt.in_plane(), taps = pt.taps();
  std::int64_t ci = q0 / taps, t = q0 % taps;
  for (std::int64_t q = q0; q < q1; ++q) {
    const auto src = reinterpret_cast<std::uintptr_t>(pt.x + ci * plane);
    float* d = dst + (q - q0) * kGemmNR;
    for (std::int64_t pi = 0; pi < panels; ++pi) {
      const auto slot = static_cast<std::size_t>(pi * taps + t);
      __m256 v[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
      const std::size_t i0 = plan.first[slot];
      for (std::size_t i = i0; i < i0 + plan.count[slot]; ++i) {
        const auto* at = reinterpret_cast<const float*>(src + static_cast<std::uintptr_t>(plan.at[i]) * sizeof(float));
        for (int h = 0; h < 2; ++h) {
          const std::uint32_t m = (plan.mask[i] >> (8 * h)) & 0xFFu;
          if (m == 0) continue;
          __m256 x;
          if constexpr (S == 1) {
            x = _mm256_maskload_ps(at + 8 * h, lane_mask8(m));
          } else {
            const std::uint32_t w = plan.wide[i] >> (16 * h);
            x = even_floats8(_mm256_maskload_ps(at + 16 * h, lane_mask8(w & 0xFFu)),
                             _mm256_maskload_ps(at + 16 * h + 8, lane_mask8((w >> 8) & 0xFFu)));
          }
          v[h] = _mm256_blendv_ps(v[h], x, _mm256_castsi256_ps(lane_mask8(m)));
        }
      }
      _mm256_storeu_ps(d + pi * panel_stride, v[0]);
      _mm256_storeu_ps(d + pi * panel_stride + 8, v[1]);
    }
    if (++t == taps) {
      t = 0;
      ++ci;
    }
  }
}

}  // namespace

GE_TARGET_AVX512 void pack_patches_nd_masked_avx512(const NdPatches& pt, NdTapPlan& plan, std::int64_t q0,
                                                    std::int64_t q1, std::int64_t n0, std::int64_t ncols, float* dst,
                                                    std::int64_t panel_stride) {
  if (pt.p->stride[2] == 1)
    pack_patches_masked<1>(pt, plan, q0, q1, n0, ncols, dst, panel_stride);
  else
    pack_patches_masked<2>(pt, plan, q0, q1, n0, ncols, dst, panel_stride);
}
GE_TARGET_AVX2 void pack_patches_nd_masked_avx2(const NdPatches& pt, NdTapPlan& plan, std::int64_t q0, std::int64_t q1,
                                                std::int64_t n0, std::int64_t ncols, float* dst,
                                                std::int64_t panel_stride) {
  if (pt.p->stride[2] == 1)
    pack_patches_masked8<1>(pt, plan, q0, q1, n0, ncols, dst, panel_stride);
  else
    pack_patches_masked8<2>(pt, plan, q0, q1, n0, ncols, dst, panel_stride);
}
#endif

namespace {

// Packs rows [q0, q1) and columns [n0, n0 + ncols) of the column matrix into NR-wide
// panels: element (q, n0 + j) at dst[(j / NR) * panel_stride + (q - q0) * NR + j % NR];
// lanes past `ncols` are zero.
void pack_patches_nd(const NdPatches& pt, NdTapPlan& plan, std::int64_t q0, std::int64_t q1, std::int64_t n0,
                     std::int64_t ncols, float* dst, std::int64_t panel_stride) {
  const std::int64_t panels = (ncols + kGemmNR - 1) / kGemmNR;
  const std::int64_t plane = pt.in_plane();
  if (pt.pointwise) {
    pack_plane_panels(pt.x, plane, q0, q1, n0, ncols, dst, panel_stride);
    return;
  }
  const WindowNd& p = *pt.p;
  if (p.stride[2] <= 2 && kernels().pack_patches_nd_masked != nullptr) {
    kernels().pack_patches_nd_masked(pt, plan, q0, q1, n0, ncols, dst, panel_stride);
    return;
  }
  const std::int64_t taps = pt.taps();
  using Kind = NdTapPlan::Kind;
  static const float zero = 0.0f;
  for (std::int64_t pi = 0; pi < panels; ++pi) {
    const std::int64_t j0 = n0 + pi * kGemmNR;
    const std::int64_t lanes = std::min(kGemmNR, ncols - pi * kGemmNR);
    const std::int64_t ox = j0 % pt.out[2], oy = j0 / pt.out[2] % pt.out[1], oz = j0 / (pt.out[2] * pt.out[1]);
    const bool one_row = lanes == kGemmNR && ox + kGemmNR <= pt.out[2];
    bool lanes_known = false;
    std::int64_t lz[kGemmNR], ly[kGemmNR], lx[kGemmNR];  // each lane's window origin
    std::int64_t t = 0;
    for (std::int64_t kz = 0; kz < pt.k[0]; ++kz)
      for (std::int64_t ky = 0; ky < pt.k[1]; ++ky)
        for (std::int64_t kx = 0; kx < pt.k[2]; ++kx, ++t) {
          const std::int64_t dz = kz * p.dilation[0], dy = ky * p.dilation[1], dx = kx * p.dilation[2];
          const auto ts = static_cast<std::size_t>(t);
          if (one_row) {
            const std::int64_t iz = oz * p.stride[0] - p.pad_begin[0] + dz;
            const std::int64_t iy = oy * p.stride[1] - p.pad_begin[1] + dy;
            const std::int64_t ix = ox * p.stride[2] - p.pad_begin[2] + dx;
            if (iz >= 0 && iz < pt.in[0] && iy >= 0 && iy < pt.in[1] && ix >= 0 &&
                ix + (kGemmNR - 1) * p.stride[2] < pt.in[2]) {
              plan.base[ts] = (iz * pt.in[1] + iy) * pt.in[2] + ix;
              plan.kind[ts] = p.stride[2] == 1 ? Kind::contiguous : Kind::strided;
              continue;
            }
          }
          if (!lanes_known) {
            for (std::int64_t l = 0; l < lanes; ++l) {
              const std::int64_t j = j0 + l;
              lx[l] = j % pt.out[2] * p.stride[2] - p.pad_begin[2];
              ly[l] = j / pt.out[2] % pt.out[1] * p.stride[1] - p.pad_begin[1];
              lz[l] = j / (pt.out[2] * pt.out[1]) * p.stride[0] - p.pad_begin[0];
            }
            lanes_known = true;
          }
          std::int64_t* o = plan.off.data() + t * kGemmNR;
          for (std::int64_t l = 0; l < kGemmNR; ++l) {
            const std::int64_t iz = l < lanes ? lz[l] + dz : -1, iy = l < lanes ? ly[l] + dy : -1,
                               ix = l < lanes ? lx[l] + dx : -1;
            const bool in = iz >= 0 && iz < pt.in[0] && iy >= 0 && iy < pt.in[1] && ix >= 0 && ix < pt.in[2];
            o[l] = in ? (iz * pt.in[1] + iy) * pt.in[2] + ix : -1;
          }
          plan.kind[ts] = Kind::table;
        }
    float* d = dst + pi * panel_stride;
    std::int64_t ci = q0 / taps;
    t = q0 % taps;
    const std::int64_t sw = p.stride[2];
    for (std::int64_t q = q0; q < q1; ++q) {
      const float* src_plane = pt.x + ci * plane;
      float* __restrict dq = d + (q - q0) * kGemmNR;
      const auto ts = static_cast<std::size_t>(t);
      if (plan.kind[ts] == Kind::contiguous) {
        std::memcpy(dq, src_plane + plan.base[ts], sizeof(float) * kGemmNR);
      } else if (plan.kind[ts] == Kind::strided) {
        const float* __restrict src = src_plane + plan.base[ts];
        if (sw == 2) {
          for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = src[2 * l];
        } else {
          for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = src[l * sw];
        }
      } else {
        const std::int64_t* o = plan.off.data() + t * kGemmNR;
        for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = *(o[l] >= 0 ? src_plane + o[l] : &zero);
      }
      if (++t == taps) {
        t = 0;
        ++ci;
      }
    }
  }
}

// Columns per task: the widest (multiple of NR, 32 to 128) giving every thread at least
// two tasks of nearly equal work; 0 when none does (then the rows are split instead).
std::int64_t pick_columns(std::int64_t n, std::int64_t outer, std::int64_t threads) {
  for (std::int64_t nc = kNcMax; nc >= 2 * kGemmNR; nc -= kGemmNR) {
    const std::int64_t nb = (n + nc - 1) / nc;
    const std::int64_t items = outer * nb;
    if (items >= 8 * threads) return nc;
    if (items >= 2 * threads && items % threads == 0) return nc;
  }
  return 0;
}

}  // namespace

void conv_nd_gemm_run(const WindowNd& p, std::int64_t n_img, std::int64_t c_in, const std::array<std::int64_t, 3>& in,
                      const std::array<std::int64_t, 3>& out, const PackedConvWeights& w, const float* px,
                      const float* pbias, float* py) {
  const std::int64_t group = w.group;
  const std::int64_t cin_g = w.cin_per_group;
  const std::int64_t m = w.cout / group;
  const std::array<std::int64_t, 3> k = p.kernel;
  const std::int64_t kk = cin_g * k[0] * k[1] * k[2];
  const std::int64_t n = out[0] * out[1] * out[2];
  const std::int64_t plane = in[0] * in[1] * in[2];
  const std::int64_t per_group = packed_a_size(m, kk);
  bool pointwise = k[0] * k[1] * k[2] == 1;
  for (std::size_t a = 0; a < 3; ++a)
    pointwise = pointwise && p.stride[a] == 1 && p.pad_begin[a] == 0 && p.pad_end[a] == 0 && in[a] == out[a];
  const std::int64_t kblocks = (kk + kKc - 1) / kKc;
  const std::int64_t kc_max = (kk + kblocks - 1) / kblocks;
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const std::int64_t outer = n_img * group;
  const auto patches = [&](std::int64_t img, std::int64_t g) {
    return NdPatches{px + (img * c_in + g * cin_g) * plane, in, k, out, &p, pointwise};
  };
  const auto epilogue = [&](std::int64_t g) {
    GemmEpilogue ep;
    ep.bias_m = pbias != nullptr ? pbias + g * m : nullptr;
    return ep;
  };
  // Few output pixels under many weights (the last stages: 2x7x7 by 512 channels): tasks
  // by columns would each stream all the weights; split the rows instead.
  const std::int64_t nc = n <= 1024 && n < 2 * m ? 0 : pick_columns(n, outer, threads);
  if (nc > 0) {
    const std::int64_t nb = (n + nc - 1) / nc;
    parallel_for(outer * nb, 1, [&](std::int64_t tb, std::int64_t te) {
      PooledBuffer buf(kc_max * nc);
      NdTapPlan plan(k[0] * k[1] * k[2]);
      for (std::int64_t t = tb; t < te; ++t) {
        const std::int64_t img = t / (group * nb), g = t / nb % group, n0 = t % nb * nc;
        const std::int64_t ncols = std::min(nc, n - n0);
        const NdPatches pt = patches(img, g);
        const GemmEpilogue ep = epilogue(g);
        const float* a = w.data.data() + g * per_group;
        float* c = py + (img * w.cout + g * m) * n;
        for (std::int64_t k0 = 0; k0 < kk; k0 += kc_max) {
          const std::int64_t kc = std::min(kc_max, kk - k0);
          pack_patches_nd(pt, plan, k0, k0 + kc, n0, ncols, buf.data(), kc * kGemmNR);
          gemm_packed_kblock(m, 0, m, kk, k0, kc, a, buf.data(), kc * kGemmNR, ncols, c, n, n0, ep, k0 == 0,
                             k0 + kc >= kk);
        }
      }
    });
    return;
  }
  // Few columns (small outputs at batch 1): per (image, group) the patches over all of
  // K, packed in parallel, then the output channels split over the threads.
  PooledBuffer buf(packed_b_size(kk, n));
  const std::int64_t mpanels = (m + kGemmMR - 1) / kGemmMR;
  for (std::int64_t img = 0; img < n_img; ++img)
    for (std::int64_t g = 0; g < group; ++g) {
      const NdPatches pt = patches(img, g);
      const GemmEpilogue ep = epilogue(g);
      const float* a = w.data.data() + g * per_group;
      float* c = py + (img * w.cout + g * m) * n;
      float* b = buf.data();
      parallel_for(kk, grain_for(n, 8192), [&](std::int64_t qb, std::int64_t qe) {
        NdTapPlan plan(k[0] * k[1] * k[2]);
        pack_patches_nd(pt, plan, qb, qe, 0, n, b + qb * kGemmNR, kk * kGemmNR);
      });
      const std::int64_t grain = std::max<std::int64_t>(1, mpanels / (4 * threads));
      parallel_for(mpanels, grain, [&](std::int64_t pb, std::int64_t pe) {
        const std::int64_t m0 = pb * kGemmMR, m1 = std::min(m, pe * kGemmMR);
        for (std::int64_t k0 = 0; k0 < kk; k0 += kc_max) {
          const std::int64_t kc = std::min(kc_max, kk - k0);
          gemm_packed_kblock(m, m0, m1, kk, k0, kc, a, b + k0 * kGemmNR, kk * kGemmNR, n, c, n, 0, ep, k0 == 0,
                             k0 + kc >= kk);
        }
      });
    }
}

}  // namespace ge::cpu
