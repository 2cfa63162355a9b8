// Dense convolutions on NHWC images (the layout `ge::layout_nhwc` gives conv chains): a
// pixel's channels are contiguous, so the output pixels are the rows of a GEMM whose B is
// the packed weights, and every output vector holds channels of one pixel.
//
// - `conv_gemm_nhwc`: any kernel, stride, dilation and pads. A block of output pixels
//   gathers its patches (row = pixel, K = (ky, kx, c): a tap's channels are one run of
//   the input, or zeros outside it) and multiplies them by the weights in place, with the
//   bias, residual and activation in the GEMM's epilogue. Blocks of about 96 rows go to
//   the threads; with fewer blocks than two per thread the whole batch's patches are
//   gathered first and the product splits over the weights' columns (each thread then
//   streams its share of the weights: batch 1 on small images).
// - `conv_winograd_nhwc`: 3x3 stride 1 by F(2x2, 3x3). Per tile and vector of channels,
//   the 4x4 window (zero outside the image) becomes V = B^T d B, stored as row `tile` of
//   the 16 matrices V_xi [tiles][C]; the 16 GEMMs M_xi = V_xi U_xi (per group for a
//   grouped conv: RegNetX's 128-wide groups 2.3x the direct kernel); per tile and vector
//   of output channels Y = A^T M A plus the bias, residual and activation. As the NCHW
//   kernel (conv_winograd.cpp): blocks of tiles through all three steps in one task when
//   there are at least two blocks per thread, else the whole batch step by step (each
//   U_xi then read by one task).
#include <algorithm>
#include <cstring>
#include <vector>

#include <tbb/task_arena.h>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/vec.hpp"
#include "kernels/cpu/conv/winograd.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Conv";
constexpr int kXi = 16;  // Winograd's transformed elements per tile

std::int64_t threads() { return std::max(1, tbb::this_task_arena::max_concurrency()); }

// Rows per block of a blocked product: a multiple of the GEMM's 12-row tiles near
// `target`, the block count then rounded up to a multiple of the threads (equal shares).
std::int64_t block_rows(std::int64_t rows, std::int64_t target) {
  const std::int64_t t = threads();
  std::int64_t blocks = (rows + target - 1) / target;
  blocks = (blocks + t - 1) / t * t;
  const std::int64_t per = (rows + blocks - 1) / blocks;
  return std::max<std::int64_t>(12, (per + 11) / 12 * 12);
}

// ---------------------------------------------------------------------------------------
// GEMM over gathered patches.

struct Gather {
  const Conv2dParams* p;
  const float* x;
  std::int64_t h, w, c, oh, ow, kh, kw;
};

// Rows [r0, r0 + count) of the patch matrix (row = output pixel of the batch) at `dst`,
// row stride kh * kw * c.
void gather(const Gather& g, std::int64_t r0, std::int64_t count, float* dst) {
  const Conv2dParams& p = *g.p;
  const std::int64_t k = g.kh * g.kw * g.c;
  const auto bytes = static_cast<std::size_t>(g.c) * sizeof(float);
  for (std::int64_t r = 0; r < count; ++r) {
    const std::int64_t pix = r0 + r;
    const std::int64_t img = pix / (g.oh * g.ow), oy = pix / g.ow % g.oh, ox = pix % g.ow;
    float* row = dst + r * k;
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      for (std::int64_t kx = 0; kx < g.kw; ++kx) {
        float* run = row + (ky * g.kw + kx) * g.c;
        const std::int64_t ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
          std::memset(run, 0, bytes);
        } else {
          std::memcpy(run, g.x + ((img * g.h + iy) * g.w + ix) * g.c, bytes);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Winograd.

}  // namespace

// A dilated conv (dilation dy, dx) is dy * dx undilated ones, each over the pixels of one
// residue class (oy % dy, ox % dx) of the output and the same class of the input: its
// tiles are 2x2 outputs dy (dx) apart that read 4x4 inputs dy (dx) apart. Per image the
// tiles run by class [ry][rx], then [ty][tx] within it; `tiles_y` (`tiles_x`) covers the
// largest class, whose tiles past the output a smaller class skips.
// Grouped (1 < group): the transforms run over all the channels as they do for one group;
// the products are per group, V_xi's columns of the group (a slice of its rows, `c` apart)
// by the group's U_xi into M_xi's columns of the group.
struct WinogradNhwcTiles {
  const Conv2dParams* p;
  const float* x;
  const float* bias;
  const float* residual;
  float* y;
  std::int64_t n, h, w, c, m, oh, ow, tiles_y, tiles_x;  // c, m: all channels
  std::int64_t group = 1;
  bool fetch_ahead = false;  // the image and output outgrow L2: each tile fetches the next one's pixels
};

namespace {

// Tile t's image and first output row and column.
struct TileAt {
  std::int64_t img, oy, ox;
};

inline __attribute__((always_inline)) TileAt tile_at(const WinogradNhwcTiles& k, std::int64_t t) {
  const std::int64_t dy = k.p->dilation_h, dx = k.p->dilation_w;
  const std::int64_t per_class = k.tiles_y * k.tiles_x;
  const std::int64_t per_image = dy * dx * per_class;
  const std::int64_t img = t / per_image, in_image = t % per_image;
  const std::int64_t cls = in_image / per_class, in_class = in_image % per_class;
  return {img, cls / dx + 2 * dy * (in_class / k.tiles_x), cls % dx + 2 * dx * (in_class % k.tiles_x)};
}

// V of tiles [t0, t0 + count): element xi of tile t at v + xi * xi_stride + (t - t0) * c.
template <int V>
inline __attribute__((always_inline)) void inputs(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t count,
                                                  float* v, std::int64_t xi_stride) {
  using vf = VecOf<V>;
  const std::int64_t dy = k.p->dilation_h, dx = k.p->dilation_w;
  for (std::int64_t t = t0; t < t0 + count; ++t) {
    const TileAt at = tile_at(k, t);
    const std::int64_t y0 = at.oy - k.p->pad_top, x0 = at.ox - k.p->pad_left;
    bool inside[4][4];
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 4; ++q)
        inside[r][q] = y0 + r * dy >= 0 && y0 + r * dy < k.h && x0 + q * dx >= 0 && x0 + q * dx < k.w;
    const float* base = k.x + ((at.img * k.h + y0) * k.w + x0) * k.c;
    float* dst = v + (t - t0) * k.c;
    // The next tile's right half of its window (all of it that is new when it is the next
    // tile of the row), fetched a vector at a time: a layer's input comes from L3 or memory.
    const float* ahead[8] = {};
    if (k.fetch_ahead && t + 1 < t0 + count) {
      const TileAt nt = tile_at(k, t + 1);
      const std::int64_t ny = nt.oy - k.p->pad_top, nx = nt.ox - k.p->pad_left;
      for (int r = 0; r < 4; ++r)
        for (int q = 2; q < 4; ++q) {
          const std::int64_t iy = ny + r * dy, ix = nx + q * dx;
          if (iy >= 0 && iy < k.h && ix >= 0 && ix < k.w)
            ahead[r * 2 + q - 2] = k.x + ((nt.img * k.h + iy) * k.w + ix) * k.c;
        }
    }
    for (std::int64_t ch = 0; ch < k.c; ch += V) {
      if (ch % 16 == 0)
        for (const float* a : ahead)
          if (a != nullptr) __builtin_prefetch(a + ch, 0, 3);
      vf d[4][4];
      for (int r = 0; r < 4; ++r)
        for (int q = 0; q < 4; ++q) {
          d[r][q] = vf{} + 0.0f;
          if (inside[r][q]) std::memcpy(&d[r][q], base + (r * dy * k.w + q * dx) * k.c + ch, sizeof(vf));
        }
      vf tv[4][4];
      input_transform(d, tv);
      // (Whole vectors at fixed indices: a loop the compiler keeps copies them by halves
      // through the stack on AVX2, and a load of two half stores waits on the store buffer.)
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) std::memcpy(dst + (r * 4 + q) * xi_stride + ch, &tv[r][q], sizeof(vf));
    }
  }
}

// Y of tiles [t0, t0 + count) from M: element xi of tile t at mb + xi * xi_stride + (t - t0) * m.
template <int V>
inline __attribute__((always_inline)) void outputs(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t count,
                                                   const float* mb, std::int64_t xi_stride) {
  using vf = VecOf<V>;
  const std::int64_t dy = k.p->dilation_h, dx = k.p->dilation_w;
  for (std::int64_t t = t0; t < t0 + count; ++t) {
    const TileAt at = tile_at(k, t);
    const std::int64_t rows = (at.oy < k.oh) + (at.oy + dy < k.oh), cols = (at.ox < k.ow) + (at.ox + dx < k.ow);
    if (rows == 0 || cols == 0) continue;  // (a tile past a smaller residue class's outputs)
    const float* src = mb + (t - t0) * k.m;
    // The next tile's output pixels (for writing) and residual, fetched a vector at a time.
    std::int64_t ahead[4] = {-1, -1, -1, -1};
    if (k.fetch_ahead && t + 1 < t0 + count) {
      const TileAt nt = tile_at(k, t + 1);
      for (int r = 0; r < 2; ++r)
        for (int q = 0; q < 2; ++q)
          if (nt.oy + r * dy < k.oh && nt.ox + q * dx < k.ow)
            ahead[r * 2 + q] = ((nt.img * k.oh + nt.oy + r * dy) * k.ow + nt.ox + q * dx) * k.m;
    }
    for (std::int64_t co = 0; co < k.m; co += V) {
      if (co % 16 == 0)
        for (const std::int64_t a : ahead)
          if (a >= 0) {
            __builtin_prefetch(k.y + a + co, 1, 3);
            if (k.residual != nullptr) __builtin_prefetch(k.residual + a + co, 0, 3);
          }
      vf mm[4][4];
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) std::memcpy(&mm[r][q], src + (r * 4 + q) * xi_stride + co, sizeof(vf));
      vf out[2][2];
      output_transform(mm, out);
      vf b = vf{} + 0.0f;
      if (k.bias != nullptr) std::memcpy(&b, k.bias + co, sizeof(vf));
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t q = 0; q < cols; ++q) {
          const std::int64_t pos = ((at.img * k.oh + at.oy + r * dy) * k.ow + at.ox + q * dx) * k.m + co;
          vf o = out[r][q] + b;
          if (k.residual != nullptr) {
            vf z;
            std::memcpy(&z, k.residual + pos, sizeof(vf));
            o += z;
          }
          o = apply_post_v(o, k.p->post);
          std::memcpy(k.y + pos, &o, sizeof(vf));
        }
    }
  }
}

}  // namespace

// The transforms per ISA (dispatch.hpp; none at baseline): the schedule below is baseline
// code, and a lambda there would compile them for the baseline ISA.

#if GE_X86_KERNELS
GE_TARGET_AVX512 void winograd_nhwc_inputs_avx512(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t n, float* v,
                                                  std::int64_t xs) {
  inputs<16>(k, t0, n, v, xs);
}
GE_TARGET_AVX512 void winograd_nhwc_outputs_avx512(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t n,
                                                   const float* m, std::int64_t xs) {
  outputs<16>(k, t0, n, m, xs);
}
GE_TARGET_AVX2 void winograd_nhwc_inputs_avx2(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t n, float* v,
                                              std::int64_t xs) {
  inputs<8>(k, t0, n, v, xs);
}
GE_TARGET_AVX2 void winograd_nhwc_outputs_avx2(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t n,
                                               const float* m, std::int64_t xs) {
  outputs<8>(k, t0, n, m, xs);
}
#endif

namespace {

// Blocks of tiles through all three steps (V and M of a block in the task's L2), or the
// whole batch step by step.
void winograd_run(const WinogradNhwcTiles& k, const PackedWinogradNhwc& w) {
  const CpuKernels& f = kernels();
  const std::int64_t tiles = k.n * k.p->dilation_h * k.p->dilation_w * k.tiles_y * k.tiles_x;
  const std::int64_t cg = k.c / k.group, mg = k.m / k.group;
  const std::int64_t per_xi = w.bf16 ? bf16_packed_b_size(cg, mg) : packed_b_size(cg, mg);
  const std::int64_t kpad = bf16_k(cg), panel = bf16_panel_size(cg);
  const auto* ub = reinterpret_cast<const std::uint16_t*>(w.u.data());
  // bf16 rows of V_xi for the bf16 products: `rows` rounded up to 16 (the AMX tiles').
  const auto bf16_rows = [&](std::int64_t rows) { return w.bf16 ? (rows + 15) / 16 * 16 * kpad : 0; };
  // M_xi of `rows` tiles (V_xi at v, M_xi at mb) for product `xg` = xi * group + g; in bf16
  // V_xi's rows of the group go to `a` first (`bf16_rows(rows)` values).
  const auto product = [&](std::int64_t xg, std::int64_t rows, const float* v, float* mb, std::uint16_t* a) {
    const std::int64_t g = xg % k.group;
    if (!w.bf16) {
      gemm_rowmajor_a(rows, mg, cg, v + g * cg, k.c, w.u.data() + xg * per_xi, mb + g * mg, k.m, GemmEpilogue{},
                      false);
      return;
    }
    convert_rows_bf16(rows, cg, v + g * cg, k.c, a, kpad, (rows + 15) / 16 * 16);
    gemm_bf16_block(rows, mg, bf16_depth(cg), a, kpad, ub + xg * per_xi, panel, mb + g * mg, k.m, 0, 0, GemmEpilogue{});
  };
  // V and M of a block: 16 x block x (c + m) floats, about 768 KiB at most.
  const std::int64_t target = std::clamp<std::int64_t>(12288 / (k.c + k.m) / 12 * 12, 12, 96);
  if ((tiles + target - 1) / target >= 2 * threads()) {
    const std::int64_t block = block_rows(tiles, target);
    parallel_for((tiles + block - 1) / block, 1, [&](std::int64_t bb, std::int64_t be) {
      PooledBuffer vbuf(kXi * block * k.c);
      PooledBuffer mbuf(kXi * block * k.m);
      PooledBuffer abuf((bf16_rows(block) + 1) / 2);
      auto* a = reinterpret_cast<std::uint16_t*>(abuf.data());
      for (std::int64_t b = bb; b < be; ++b) {
        const std::int64_t t0 = b * block, count = std::min(block, tiles - t0);
        f.winograd_nhwc_inputs(k, t0, count, vbuf.data(), count * k.c);
        for (std::int64_t xg = 0; xg < kXi * k.group; ++xg) {
          const std::int64_t xi = xg / k.group;
          product(xg, count, vbuf.data() + xi * count * k.c, mbuf.data() + xi * count * k.m, a);
        }
        f.winograd_nhwc_outputs(k, t0, count, mbuf.data(), count * k.m);
      }
    });
    return;
  }
  PooledBuffer vbuf(kXi * tiles * k.c);
  PooledBuffer mbuf(kXi * tiles * k.m);
  parallel_for(tiles, grain_for(k.c * 64), [&](std::int64_t b, std::int64_t e) {
    f.winograd_nhwc_inputs(k, b, e - b, vbuf.data() + b * k.c, tiles * k.c);
  });
  // One task per U_xi (of a group): each transformed weight matrix is read once, by one thread.
  parallel_for(kXi * k.group, 1, [&](std::int64_t xb, std::int64_t xe) {
    PooledBuffer abuf((bf16_rows(tiles) + 1) / 2);
    auto* a = reinterpret_cast<std::uint16_t*>(abuf.data());
    for (std::int64_t xg = xb; xg < xe; ++xg) {
      const std::int64_t xi = xg / k.group;
      product(xg, tiles, vbuf.data() + xi * tiles * k.c, mbuf.data() + xi * tiles * k.m, a);
    }
  });
  parallel_for(tiles, grain_for(k.m * 64), [&](std::int64_t b, std::int64_t e) {
    f.winograd_nhwc_outputs(k, b, e - b, mbuf.data() + b * k.m, tiles * k.m);
  });
}

}  // namespace

NhwcIo check_dense_nhwc(const Conv2dParams& p, const TensorView& x, std::int64_t c, std::int64_t kh, std::int64_t kw,
                        std::int64_t m, const TensorView* bias, const TensorView& y, const TensorView* residual) {
  check_rank(kOp, "X", x, 4);
  if (p.group != 1 || x.dims[3] != c)
    fail(Errc::bad_op_inputs, kOp,
         "NHWC X " + bracketed(x.dims) + ", group " + std::to_string(p.group) + ": the weights have " +
             std::to_string(c) + " input channels; expected X's last dim equal to them and group 1");
  return check_nhwc(p, x, kh, kw, m, bias, y, residual);
}

PackedConvNhwc pack_conv_nhwc(const TensorView& w, bool bf16) {
  check_dtype(kOp, "W", w, DataType::f32);
  check_rank(kOp, "W", w, 4);
  PackedConvNhwc out;
  out.m = w.dims[0];
  out.c = w.dims[1];
  out.kh = w.dims[2];
  out.kw = w.dims[3];
  const std::int64_t taps = out.kh * out.kw, k = taps * out.c;
  out.bf16 = bf16 && bf16_usable();
  const auto pack = [&](const float* bt) {
    if (out.bf16) {
      out.panels = Scratch((bf16_packed_b_size(k, out.m) + 1) / 2);
      pack_b_bf16(k, out.m, bt, k, true, reinterpret_cast<std::uint16_t*>(out.panels.data()));
    } else {
      out.panels = Scratch(packed_b_size(k, out.m));
      pack_b(k, out.m, bt, k, true, out.panels.data());
    }
  };
  const float* src = w.as<const float>();
  if (taps == 1) {  // W [m][c] is B^T already
    pack(src);
    return out;
  }
  // B^T [m][(ky, kx, c)] from W [m][c][ky][kx], one row at a time, then packed transposed.
  Scratch bt(k * out.m);
  for (std::int64_t o = 0; o < out.m; ++o)
    for (std::int64_t ci = 0; ci < out.c; ++ci)
      for (std::int64_t t = 0; t < taps; ++t) bt.data()[o * k + t * out.c + ci] = src[(o * out.c + ci) * taps + t];
  pack(bt.data());
  return out;
}

void conv_gemm_nhwc(const Conv2dParams& p, const TensorView& x, const PackedConvNhwc& w, const TensorView* bias,
                    const TensorView& y, const TensorView* residual) {
  const NhwcIo io = check_dense_nhwc(p, x, w.c, w.kh, w.kw, w.m, bias, y, residual);
  if (y.elements() == 0) return;
  if (w.bf16) {
    conv_gemm_nhwc_bf16(p, io, x, w, y);
    return;
  }
  const Gather g{&p, x.as<const float>(), x.dims[1], x.dims[2], w.c, io.oh, io.ow, w.kh, w.kw};
  const std::int64_t rows = x.dims[0] * io.oh * io.ow, k = w.kh * w.kw * w.c;
  float* py = y.as<float>();
  const auto epilogue = [&](std::int64_t r0) {
    GemmEpilogue ep;
    ep.bias_n = io.bias;
    if (io.residual != nullptr) {
      ep.residual = io.residual + r0 * w.m;
      ep.ld_residual = w.m;
    }
    ep.post = p.post;
    return ep;
  };
  constexpr std::int64_t kTarget = 96;
  if ((rows + kTarget - 1) / kTarget >= 2 * threads()) {
    const std::int64_t block = block_rows(rows, kTarget);
    parallel_for((rows + block - 1) / block, 1, [&](std::int64_t bb, std::int64_t be) {
      PooledBuffer patches(block * k);
      for (std::int64_t b = bb; b < be; ++b) {
        const std::int64_t r0 = b * block, count = std::min(block, rows - r0);
        gather(g, r0, count, patches.data());
        gemm_rowmajor_a(count, w.m, k, patches.data(), k, w.panels.data(), py + r0 * w.m, w.m, epilogue(r0), false);
      }
    });
    return;
  }
  PooledBuffer patches(rows * k);
  parallel_for(rows, grain_for(k), [&](std::int64_t b, std::int64_t e) { gather(g, b, e - b, patches.data() + b * k); });
  gemm_rowmajor_a(rows, w.m, k, patches.data(), k, w.panels.data(), py, w.m, epilogue(0), true);
}

bool winograd_nhwc_fits(std::int64_t c, std::int64_t m, std::int64_t kh, std::int64_t kw, const Conv2dParams& p) {
  const std::int64_t lanes = kernels().winograd_nhwc_inputs != nullptr ? kernels().lanes : 0;
  Conv2dParams undilated = p;  // (a dilated conv runs as undilated ones over residue classes: `WinogradNhwcTiles`)
  undilated.dilation_h = undilated.dilation_w = 1;
  undilated.group = 1;
  return lanes > 0 && p.dilation_h >= 1 && p.dilation_w >= 1 && p.group >= 1 && winograd_fits(kh, kw, undilated) &&
         c > 0 && m > 0 && m % p.group == 0 && (c * p.group) % lanes == 0 && m % lanes == 0;
}

// Zen 4, 2 threads, direct / Winograd ms, the kernels alone, AVX-512: 24 wide 48x56 g2
// 0.51 / 0.36, 336x14 g14 0.21 / 0.17; 48 wide 96x28 g2 0.35 / 0.19, 3.1 / 1.3 at batch 8;
// 64 wide 1024x14 g16 1.32 / 0.95 (weights cold), 448x28 g7 2.24 / 1.17; 128 wide 512x28
// g4 4.7 / 2.3, 896x14 g7 1.95 / 0.98. 16 wide in the models (weights cold; per-node trace
// minima, us): 28x28 RegNetX-800MF 184 / 131, RegNetY-800MF 201 / 150-170; 14x14 108 / 101
// and 119 / 125-134 (even). Slower: 7x7 images (4x4 tiles of 2x2 for 49 pixels: 16 wide
// 75 / 93 us; 64 wide 2048x7 g32 0.73 / 0.95 ms) and many groups (their products small:
// ResNeXt's 32 groups, 16 wide 512x28 g32 0.88 / 1.30 ms, 32 wide 1024x14 g32 0.84 /
// 0.96, cold) unless the batch makes them tall (8 x 14x14 pixels or more: 1024x14 g32 5.6 /
// 4.2 ms, 320x14 g20 0.83 / 0.66, 512x28 g32 6.0 / 5.9). With AVX2 (GE_CPU_ISA=avx2 on the
// same CPU) the direct kernel held up to 48 wide (96x28 g2 0.31 / 0.39 at batch 1); 128
// wide 4.1 / 3.1.
bool grouped_winograd_pays(std::int64_t width, std::int64_t groups, std::int64_t image_pixels, std::int64_t batch) {
  if (image_pixels < 14 * 14) return false;
  if (kernels().isa != Isa::avx512) return groups <= 16 && width >= 64;
  if (batch * image_pixels >= 8 * 14 * 14) return width >= 16;
  return groups <= 16 && (width >= 24 || (width >= 16 && image_pixels >= 28 * 28));
}

PackedWinogradNhwc pack_winograd_nhwc(const TensorView& w, std::int64_t group, bool bf16) {
  check_dtype(kOp, "W", w, DataType::f32);
  check_rank(kOp, "W", w, 4);
  if (w.dims[2] != 3 || w.dims[3] != 3)
    fail(Errc::unsupported, kOp, "Winograd weights " + bracketed(w.dims) + " must be 3x3");
  if (group < 1 || w.dims[0] % group != 0)
    fail(Errc::bad_attribute, kOp,
         "group " + std::to_string(group) + " must be >= 1 and divide the outputs of W " + bracketed(w.dims));
  PackedWinogradNhwc out;
  out.m = w.dims[0];
  out.c = w.dims[1];
  out.group = group;
  out.bf16 = bf16 && bf16_usable();
  const std::int64_t mg = out.m / group;
  const std::int64_t per_xi = out.bf16 ? bf16_packed_b_size(out.c, mg) : packed_b_size(out.c, mg);
  out.u = Scratch(out.bf16 ? (kXi * group * per_xi + 1) / 2 : kXi * group * per_xi);
  auto* ub = reinterpret_cast<std::uint16_t*>(out.u.data());
  for (std::int64_t g = 0; g < group; ++g) {  // (a group's outputs are W's rows [g * mg, (g + 1) * mg))
    const Scratch u = winograd_u(mg, out.c, w.as<const float>() + g * mg * out.c * 9, true);
    for (int xi = 0; xi < kXi; ++xi) {
      const float* uxi = u.data() + xi * out.c * mg;
      if (out.bf16)
        pack_b_bf16(out.c, mg, uxi, mg, false, ub + (xi * group + g) * per_xi);
      else
        pack_b(out.c, mg, uxi, mg, false, out.u.data() + (xi * group + g) * per_xi);
    }
  }
  return out;
}

void conv_winograd_nhwc(const Conv2dParams& p, const TensorView& x, const PackedWinogradNhwc& w,
                        const TensorView* bias, const TensorView& y, const TensorView* residual) {
  check_rank(kOp, "X", x, 4);
  if (p.group != w.group || x.dims[3] != w.c * w.group)
    fail(Errc::bad_op_inputs, kOp,
         "NHWC X " + bracketed(x.dims) + ", group " + std::to_string(p.group) + ": the weights were packed for " +
             std::to_string(w.group) + " groups of " + std::to_string(w.c) +
             " input channels; expected X's last dim their product and the same group");
  if (!winograd_nhwc_fits(w.c, w.m, 3, 3, p))
    fail(Errc::unsupported, kOp,
         "Winograd on NHWC needs a 3x3 conv with stride 1 and all input and output channels "
         "multiples of the vector width on an AVX2 or AVX-512 CPU");
  const NhwcIo io = check_nhwc(p, x, 3, 3, w.m, bias, y, residual);
  if (y.elements() == 0) return;
  // Tiles per residue class: the largest class has ceil(oh / dilation) rows.
  const std::int64_t class_h = (io.oh + p.dilation_h - 1) / p.dilation_h;
  const std::int64_t class_w = (io.ow + p.dilation_w - 1) / p.dilation_w;
  const WinogradNhwcTiles k{
      &p,        x.as<const float>(), io.bias, io.residual, y.as<float>(), x.dims[0],         x.dims[1],
      x.dims[2], x.dims[3],           w.m,     io.oh,       io.ow,         (class_h + 1) / 2, (class_w + 1) / 2,
      w.group,   (x.elements() + y.elements()) * std::int64_t{sizeof(float)} > l2_bytes()};
  winograd_run(k, w);
}

}  // namespace ge::cpu
