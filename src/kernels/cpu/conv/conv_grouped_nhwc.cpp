// Grouped convolution (1 < group, any group width: RegNetX's 8..64-wide groups, ResNeXt's
// 32 groups) on NHWC images. A group's GEMM is too narrow for the GEMM tiles (M / group
// outputs of K = KH * KW * C / group), so it runs direct: per output row (in parallel over
// rows), group and chunk of up to three blocks of v output channels (v = 16 with AVX-512
// where the group has more than 8 outputs, else 8), pixels accumulate side by side for all
// the chunk's blocks: with AVX-512's 32 registers 8 pixels (24 accumulators: a 48-wide
// RegNetX group is one chunk of three blocks), 16 for a chunk of one block; with AVX2's 16
// registers 4 pixels (12 accumulators), 8 for one block. Per tap and input channel of the
// group the weight vectors are loaded once for the pixels and each pixel's input float is
// broadcast once for all blocks. The image is first copied with its left and right padding
// as zeros, its rows wide enough for whole blocks of 8 pixels, so that every block runs
// without tests (a 14-pixel row is a block of 8 at a border and one of 6: with tests, both
// ran at a third of the speed). Where the image fits in L2 the tasks take a chunk of
// blocks over all the output rows, so that the chunk's weights stay in cache from row to
// row (a stage's weights together outgrow L2: 4 MB at 896 channels in groups of 128);
// a larger image is read once, every chunk at each row (`GroupedConvRows::row_major`).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ge/shape/window.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/common.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/vec.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Conv";

}  // namespace

struct GroupedConvRows {
  const Conv2dParams* p;
  std::int64_t n, h, w, c, oh, ow, kh, kw, m;  // C and M: all channels
  std::int64_t cg, mg, blocks;                 // per group: inputs, outputs, blocks of V outputs
  const float* x;                              // the image padded whole ([n][h][wp][c], `GroupedTapRows`), or null
  std::int64_t wp;  // padded row width (`padded_width`)
  std::int64_t pc;  // floats from one padded pixel to the next (`pixel_pitch`)
  const float* wt;  // [group][blocks][kh][kw][cg][V]
  const float* bias;
  float* y;
  const float* residual;
  // Tasks: (unit, output row), a unit a chunk of blocks (a small-group block), `units` of
  // them. An image that fits in L2 (`l2_bytes`) is read from there unit after unit, each
  // unit over all the rows with its weights in L1. A larger one (ResNeXt's first stages at
  // batch 8: 15 to 30 MB) would come from memory once per unit: `row_major` tasks take
  // every unit at one row, then the next row, so each input row is read once. (Tiles of
  // some of the units in between measured slower than either on Zen 4.)
  std::int64_t units = 1;
  bool row_major = false;
};

namespace {

// Task t's unit and output row (see `GroupedConvRows::row_major`).
inline __attribute__((always_inline)) std::pair<std::int64_t, std::int64_t> task_at(const GroupedConvRows& d,
                                                                                    std::int64_t t) {
  if (d.row_major) return {t % d.units, t / d.units};
  const std::int64_t rows = d.n * d.oh;
  return {t / rows, t % rows};
}

constexpr int kPx = 8;  // pixels side by side


// The width of a padded input row: whole blocks of 8 output pixels, every tap inside.
std::int64_t padded_width(const GroupedConvRows& d) {
  const std::int64_t blocks = (d.ow + kPx - 1) / kPx;
  return (blocks * kPx - 1) * d.p->stride_w + window_span(d.kw, d.p->dilation_w);
}

// The floats from one padded pixel to the next. Rows of C floats a multiple of 2 KiB put
// a tile's pixels (2 KiB or 4 KiB apart) in one or two of L1's 64 sets, which their taps'
// rows then overflow (8 ways): such pixels get a vector of slack, an odd number of cache
// lines apart, each in a set of its own. ResNeXt-101 64x4d's 1024 x 14 x 14 in 64 groups
// with 14-pixel tiles: 616 us a conv in the model without, 359 with (395 before both). (Groups narrower than a vector
// read a whole line per pixel and tap, and lost 4% with the slack.)
std::int64_t pixel_pitch(std::int64_t c, bool small) { return !small && c % 512 == 0 ? c + 16 : c; }

// One padded row: `left` zeros, the row's w pixels (as many as fit), zeros to wp pixels;
// pixels `pc` floats apart, the slack after each zero.
void pad_row(const GroupedConvRows& d, const float* src, float* dst) {
  const std::int64_t left = std::min(d.p->pad_left, d.wp), body = std::clamp<std::int64_t>(d.wp - left, 0, d.w);
  if (d.pc == d.c) {
    std::fill(dst, dst + left * d.c, 0.0f);
    std::memcpy(dst + left * d.c, src, static_cast<std::size_t>(body * d.c) * sizeof(float));
    std::fill(dst + (left + body) * d.c, dst + d.wp * d.c, 0.0f);
    return;
  }
  std::fill(dst, dst + left * d.pc, 0.0f);
  for (std::int64_t x = 0; x < body; ++x) {
    float* px = dst + (left + x) * d.pc;
    std::memcpy(px, src + x * d.c, static_cast<std::size_t>(d.c) * sizeof(float));
    std::fill(px + d.c, px + d.pc, 0.0f);
  }
  std::fill(dst + (left + body) * d.pc, dst + d.wp * d.pc, 0.0f);
}

}  // namespace

// The padded input rows of an output row's taps (null outside the image). Small images
// are padded whole once, before the tasks (`whole`). With row-major tasks (images over
// L2) each task range pads the rows it reaches into a ring of the last
// (kh - 1) * dilation + 1 of them, which stays in cache: the image is read once, and no
// padded copy of it goes out to memory and back (64 channels at 112 x 112, batch 8: 26 MB).
class GroupedTapRows {
 public:
  static constexpr std::int64_t kMaxTaps = 16, kMaxSlots = 32;
  // Whether a ring serves these taps (else the image is padded whole).
  static bool ring_fits(const GroupedConvRows& d) { return d.kh <= kMaxTaps && ring_slots(d) <= kMaxSlots; }
  static std::int64_t ring_slots(const GroupedConvRows& d) { return (d.kh - 1) * d.p->dilation_h + 1; }
  static std::int64_t ring_floats(const GroupedConvRows& d) { return ring_slots(d) * d.wp * d.pc; }

  GroupedTapRows(const GroupedConvRows& d, const float* whole) : d_(d), whole_(whole) {
    if (d.kh > kMaxTaps) {  // (taller kernels: their pointers on the heap)
      many_.resize(static_cast<std::size_t>(d.kh));
      rows_ = many_.data();
    }
  }
  GroupedTapRows(const GroupedConvRows& d, const float* image, float* ring) : d_(d), image_(image), ring_(ring) {
    std::fill(std::begin(tag_), std::end(tag_), -1);
  }
  GroupedTapRows(const GroupedTapRows&) = delete;
  GroupedTapRows& operator=(const GroupedTapRows&) = delete;

  const float* const* at(std::int64_t r) {
    const Conv2dParams& p = *d_.p;
    const std::int64_t img = r / d_.oh, oy = r % d_.oh, row_floats = d_.wp * d_.pc;
    for (std::int64_t ky = 0; ky < d_.kh; ++ky) {
      const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= d_.h) {
        rows_[ky] = nullptr;
        continue;
      }
      const std::int64_t at = img * d_.h + iy;
      if (whole_ != nullptr) {
        rows_[ky] = whole_ + at * row_floats;
        continue;
      }
      const std::int64_t slot = iy % ring_slots(d_);
      float* dst = ring_ + slot * row_floats;
      if (tag_[slot] != at) {
        pad_row(d_, image_ + at * d_.w * d_.c, dst);
        tag_[slot] = at;
      }
      rows_[ky] = dst;
    }
    return rows_;
  }

 private:
  const GroupedConvRows& d_;
  const float* whole_ = nullptr;
  const float* image_ = nullptr;
  float* ring_ = nullptr;
  std::int64_t tag_[kMaxSlots];  // the image row (img * h + iy) each slot holds, or -1
  const float* few_[kMaxTaps] = {};
  std::vector<const float*> many_;
  const float** rows_ = few_;
};

namespace {

// How a group's blocks of V outputs are cut into chunks that run side by side (3 blocks
// at most per chunk): all threes where they divide, else threes then a two (or two twos:
// 4 = 2 + 2, 7 = 3 + 2 + 2).
std::int64_t chunks_per_group(std::int64_t blocks) {
  if (blocks <= 3) return 1;
  return blocks % 3 == 0 ? blocks / 3 : blocks / 3 + 1;
}

// Chunk k of a group: its first block and its blocks.
std::pair<std::int64_t, int> chunk_at(std::int64_t blocks, std::int64_t k) {
  if (blocks <= 3) return {0, static_cast<int>(blocks)};
  const std::int64_t threes = blocks % 3 == 1 ? blocks / 3 - 1 : blocks / 3;  // (4 -> 0 threes, 2 + 2)
  if (k < threes) return {3 * k, 3};
  return {3 * threes + 2 * (k - threes), 2};
}

// Output row r (image r / oh) of one chunk of blocks (`chunk`: group, then chunk within it).
// Regs: the vector registers (32 with AVX-512, 16 with AVX2), which bound the accumulators.
template <int V, int Regs>
inline __attribute__((always_inline)) void grouped_row(const GroupedConvRows& d, std::int64_t chunk, std::int64_t r,
                                                       const float* const* rows) {
  using vf = VecOf<V>;
  const Conv2dParams& p = *d.p;
  const std::int64_t oy = r % d.oh;
  float* out = d.y + r * d.ow * d.m;
  const float* res = d.residual != nullptr ? d.residual + r * d.ow * d.m : nullptr;
  std::int64_t ky0 = 0, ky1 = d.kh;  // tap rows inside the image
  while (ky0 < ky1 && oy * p.stride_h - p.pad_top + ky0 * p.dilation_h < 0) ++ky0;
  while (ky1 > ky0 && oy * p.stride_h - p.pad_top + (ky1 - 1) * p.dilation_h >= d.h) --ky1;
  const std::int64_t step = p.stride_w * d.pc;
  const std::int64_t wblock = d.kh * d.kw * d.cg * V;  // floats per block of weights
  // NB (1 to 3) blocks from output channel o0 (lanes[b] of each), PX pixels from ox0, px
  // of them stored. With 32 registers 8 pixels, or 16 for a lone block (16 accumulators,
  // not 8 chains that the FMA latency leaves no slack); with 16 registers 4 pixels for 2
  // or 3 blocks and 8 for one (at most 12 accumulators, besides the weights and the
  // broadcast input: 16 and more spilled, at a tenth of the speed).
  const auto tile = [&](const float* wb, std::int64_t g, std::int64_t o0, const std::int64_t* lanes, std::int64_t ox0,
                        std::int64_t px, auto nb_c, auto px_c) __attribute__((always_inline)) {
    constexpr int NB = decltype(nb_c)::value;
    constexpr int PX = decltype(px_c)::value;
    vf b[NB];
    for (int k = 0; k < NB; ++k)
      b[k] = d.bias != nullptr ? load_lanes_by_copy<vf>(d.bias + o0 + k * V, lanes[k]) : vf{} + 0.0f;
    vf acc[PX][NB];
    for (int i = 0; i < PX; ++i)
      for (int k = 0; k < NB; ++k) acc[i][k] = b[k];
    const std::int64_t first = ox0 * p.stride_w;  // in the padded row
    for (std::int64_t ky = ky0; ky < ky1; ++ky) {
      const float* row = rows[ky] + g * d.cg;
      for (std::int64_t kx = 0; kx < d.kw; ++kx) {
        const float* wk = wb + (ky * d.kw + kx) * d.cg * V;
        const float* src = row + (first + kx * p.dilation_w) * d.pc;
        for (std::int64_t ci = 0; ci < d.cg; ++ci) {
          vf wv[NB];  // (unrolled: a copy loop went through the stack, its loads stalled on forwarding)
#pragma GCC unroll 3
          for (int k = 0; k < NB; ++k) std::memcpy(&wv[k], wk + k * wblock + ci * V, sizeof(vf));
#pragma GCC unroll 16
          for (int i = 0; i < PX; ++i) {
            const float xv = src[i * step + ci];
#pragma GCC unroll 3
            for (int k = 0; k < NB; ++k) acc[i][k] += xv * wv[k];
          }
        }
      }
    }
    // (constant indices into acc, the pixel count tested: indexed by a run-time count, the
    // accumulators lived in memory, every FMA a load and a store: AVX2 at 30 GFLOP/s)
#pragma GCC unroll 16
    for (int i = 0; i < PX; ++i)
#pragma GCC unroll 3
      for (int k = 0; k < NB; ++k) {
        if (i >= px) break;
        const std::int64_t at = (ox0 + i) * d.m + o0 + k * V;
        vf a = acc[i][k];
        if (res != nullptr) a += load_lanes_by_copy<vf>(res + at, lanes[k]);
        store_lanes_by_copy(out + at, apply_post_v(a, p.post), lanes[k]);
      }
  };
  const std::int64_t per_group = chunks_per_group(d.blocks), g = chunk / per_group;
  const auto [blk, nb] = chunk_at(d.blocks, chunk % per_group);
  const float* wb = d.wt + (g * d.blocks + blk) * wblock;
  const std::int64_t o0 = g * d.mg + blk * V;
  std::int64_t lanes[3];
  for (int k = 0; k < 3; ++k) lanes[k] = std::clamp<std::int64_t>(d.mg - (blk + k) * V, 0, V);
  using Px8 = std::integral_constant<int, kPx>;
  using Px4 = std::integral_constant<int, kPx / 2>;  // (4 divides the padded row's blocks of 8)
  using Px7 = std::integral_constant<int, 7>;
  // Rows of 14, 28, 56 or 112 pixels (ResNet-style stages) in tiles that end at the row's
  // end: 14 pixels for one block, 7 for two or three (tiles of 16 or 8 left 2 of every 16
  // computed pixels unused at 14 a row: 1024 x 14 in groups of 16 0.343 -> 0.315 ms).
  const bool sevens = Regs == 32 && d.ow % 14 == 0;
  std::int64_t ox0 = 0;
  if (sevens && nb == 1)
    for (; ox0 < d.ow; ox0 += 14)
      tile(wb, g, o0, lanes, ox0, 14, std::integral_constant<int, 1>{}, std::integral_constant<int, 14>{});
  if (Regs == 32 && nb == 1)  // tiles of 16 pixels while 16 remain (the padded row holds whole blocks of 8)
    for (; ox0 + 2 * kPx <= d.ow; ox0 += 2 * kPx)
      tile(wb, g, o0, lanes, ox0, 2 * kPx, std::integral_constant<int, 1>{}, std::integral_constant<int, 2 * kPx>{});
  const auto row = [&](auto nb_c, auto px_c) __attribute__((always_inline)) {
    constexpr int PX = decltype(px_c)::value;
    for (; ox0 < d.ow; ox0 += PX) tile(wb, g, o0, lanes, ox0, std::min<std::int64_t>(PX, d.ow - ox0), nb_c, px_c);
  };
  if (nb == 3) {
    if constexpr (Regs == 32) {
      if (sevens) row(std::integral_constant<int, 3>{}, Px7{});
      else row(std::integral_constant<int, 3>{}, Px8{});
    } else {
      row(std::integral_constant<int, 3>{}, Px4{});
    }
  } else if (nb == 2) {
    if constexpr (Regs == 32) {
      if (sevens) row(std::integral_constant<int, 2>{}, Px7{});
      else row(std::integral_constant<int, 2>{}, Px8{});
    } else {
      row(std::integral_constant<int, 2>{}, Px4{});
    }
  } else {
    row(std::integral_constant<int, 1>{}, Px8{});
  }
}

// Groups narrower than a vector (C / group == M / group == MG in {2, 4, 8}: ResNeXt's
// 4-wide groups, RegNet's 8-wide ones) share it: a block is V / MG whole groups, lane l
// computing output l % MG of the block's group l / MG. Per tap and pixel the block's V
// input channels are loaded once; the input channel ci of every lane's group is that
// vector shuffled (lane l takes lane (l / MG) * MG + ci), times the weights' vector of
// ci. The last block may hold fewer groups: its lanes past M are zero weights, and the
// image buffer has a vector of slack after its end.
template <int V, int MG, int CI, int... L>
inline __attribute__((always_inline)) VecOf<V> spread(VecOf<V> x, std::integer_sequence<int, L...>) {
#if defined(__clang__)
  return __builtin_shufflevector(x, x, ((L / MG) * MG + CI)...);
#else
  using Index = std::conditional_t<V == 8, vi8, vi16>;
  return __builtin_shuffle(x, Index{((L / MG) * MG + CI)...});
#endif
}

template <int V, int MG, int... CI>
inline __attribute__((always_inline)) void small_taps(VecOf<V>* acc, VecOf<V> x, const VecOf<V>* wv,
                                                      std::integer_sequence<int, CI...>) {
  ((*acc += spread<V, MG, CI>(x, std::make_integer_sequence<int, V>{}) * wv[CI]), ...);
}

template <int V, int MG>
inline __attribute__((always_inline)) void small_row(const GroupedConvRows& d, std::int64_t blk, std::int64_t r,
                                                     const float* const* rows) {
  using vf = VecOf<V>;
  const Conv2dParams& p = *d.p;
  const std::int64_t oy = r % d.oh;
  float* out = d.y + r * d.ow * d.m;
  const float* res = d.residual != nullptr ? d.residual + r * d.ow * d.m : nullptr;
  std::int64_t ky0 = 0, ky1 = d.kh;  // tap rows inside the image
  while (ky0 < ky1 && oy * p.stride_h - p.pad_top + ky0 * p.dilation_h < 0) ++ky0;
  while (ky1 > ky0 && oy * p.stride_h - p.pad_top + (ky1 - 1) * p.dilation_h >= d.h) --ky1;
  const std::int64_t c0 = blk * V, lanes = std::min<std::int64_t>(V, d.m - c0);
  const std::int64_t step = p.stride_w * d.pc;
  const float* wb = d.wt + blk * d.kh * d.kw * MG * V;
  const vf b = d.bias != nullptr ? load_lanes_by_copy<vf>(d.bias + c0, lanes) : vf{} + 0.0f;
  for (std::int64_t ox0 = 0; ox0 < d.ow; ox0 += kPx) {
    const std::int64_t px = std::min<std::int64_t>(kPx, d.ow - ox0);
    vf acc[kPx];
    for (int i = 0; i < kPx; ++i) acc[i] = b;
    for (std::int64_t ky = ky0; ky < ky1; ++ky) {
      const float* row = rows[ky] + c0;
      for (std::int64_t kx = 0; kx < d.kw; ++kx) {
        vf wv[MG];
        std::memcpy(wv, wb + (ky * d.kw + kx) * MG * V, sizeof wv);
        const float* src = row + (ox0 * p.stride_w + kx * p.dilation_w) * d.pc;
#pragma GCC unroll 8
        for (int i = 0; i < kPx; ++i) {
          vf x;
          std::memcpy(&x, src + i * step, sizeof x);
          small_taps<V, MG>(&acc[i], x, wv, std::make_integer_sequence<int, MG>{});
        }
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < kPx; ++i) {  // (constant indices: acc stays in registers)
      if (i >= px) break;
      const std::int64_t at = (ox0 + i) * d.m + c0;
      vf a = acc[i];
      if (res != nullptr) a += load_lanes_by_copy<vf>(res + at, lanes);
      store_lanes_by_copy(out + at, apply_post_v(a, p.post), lanes);
    }
  }
}

// Inlined into each ISA's entry point (the vector code is compiled for its target).
template <int V>
inline __attribute__((always_inline)) void grouped_loop(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b,
                                                        std::int64_t e) {
  for (std::int64_t t = b; t < e; ++t) {
    const auto [unit, row] = task_at(d, t);
    grouped_row<V, 16>(d, unit, row, src.at(row));
  }
}
template <int V>
inline __attribute__((always_inline)) void grouped_wide(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b,
                                                        std::int64_t e) {
  for (std::int64_t t = b; t < e; ++t) {
    const auto [unit, row] = task_at(d, t);
    grouped_row<V, 32>(d, unit, row, src.at(row));
  }
}

// Small groups: tasks of (block, output row) (`task_at`).
template <int V, int MG>
inline __attribute__((always_inline)) void small_loop(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b,
                                                      std::int64_t e) {
  for (std::int64_t t = b; t < e; ++t) {
    const auto [unit, row] = task_at(d, t);
    small_row<V, MG>(d, unit, row, src.at(row));
  }
}

}  // namespace

void grouped8_base(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  grouped_loop<8>(d, src, b, e);
}
void grouped16_base(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  grouped_loop<16>(d, src, b, e);
}
void grouped_small2_base(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  small_loop<8, 2>(d, src, b, e);
}
void grouped_small4_base(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  small_loop<8, 4>(d, src, b, e);
}
#if GE_X86_KERNELS
GE_TARGET_AVX512 void grouped8_avx512(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  grouped_wide<8>(d, src, b, e);
}
GE_TARGET_AVX512 void grouped16_avx512(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  grouped_wide<16>(d, src, b, e);
}
GE_TARGET_AVX2 void grouped8_avx2(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  grouped_loop<8>(d, src, b, e);
}
GE_TARGET_AVX512 void grouped_small2_avx512(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b,
                                            std::int64_t e) {
  small_loop<16, 2>(d, src, b, e);
}
GE_TARGET_AVX512 void grouped_small4_avx512(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b,
                                            std::int64_t e) {
  small_loop<16, 4>(d, src, b, e);
}
GE_TARGET_AVX512 void grouped_small8_avx512(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b,
                                            std::int64_t e) {
  small_loop<16, 8>(d, src, b, e);
}
GE_TARGET_AVX2 void grouped_small2_avx2(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  small_loop<8, 2>(d, src, b, e);
}
GE_TARGET_AVX2 void grouped_small4_avx2(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e) {
  small_loop<8, 4>(d, src, b, e);
}
#endif

namespace {

// The small-group kernel of group width `mg` for vectors of `v` lanes (the packing's), or
// null where this CPU's table has none. Weights are packed for the table's lanes by the
// same process (a compiled model made on another ISA is refused at load), so a packing of
// other lanes is refused too.
GroupedConvFn* small_fn(std::int64_t v, std::int64_t mg) {
  const CpuKernels& k = kernels();
  if (v != k.lanes) return nullptr;
  return mg == 2 ? k.grouped_small[0] : mg == 4 ? k.grouped_small[1] : mg == 8 ? k.grouped_small[2] : nullptr;
}

}  // namespace

PackedGroupedNhwc pack_grouped_nhwc(const TensorView& w, std::int64_t group) {
  check_dtype(kOp, "W", w, DataType::f32);
  check_rank(kOp, "W", w, 4);
  if (group < 1 || w.dims[0] % group != 0)
    fail(Errc::bad_attribute, kOp,
         "group " + std::to_string(group) + " must be >= 1 and divide the outputs of W " + bracketed(w.dims));
  PackedGroupedNhwc p;
  p.m = w.dims[0];
  p.c = w.dims[1];
  p.kh = w.dims[2];
  p.kw = w.dims[3];
  p.group = group;
  const std::int64_t mg = p.m / group;
  const std::int64_t taps = p.kh * p.kw;
  const float* src = w.as<const float>();
  const std::int64_t lanes = kernels().lanes;
  if (p.c == mg && (mg == 2 || mg == 4 || mg == 8) && mg < lanes) {
    // Blocks of lanes / mg whole groups: [block][tap][ci][lane], lane l output l % mg of
    // the block's group l / mg (zero past the last group).
    p.v = lanes;
    p.gv = lanes / mg;
    const std::int64_t blocks = (group + p.gv - 1) / p.gv, total = blocks * taps * mg * lanes;
    p.w = Scratch(total);
    std::fill(p.w.data(), p.w.data() + total, 0.0f);
    for (std::int64_t b = 0; b < blocks; ++b)
      for (std::int64_t t = 0; t < taps; ++t)
        for (std::int64_t ci = 0; ci < mg; ++ci)
          for (std::int64_t l = 0; l < lanes; ++l) {
            const std::int64_t g = b * p.gv + l / mg, o = l % mg;
            if (g < group)
              p.w.data()[((b * taps + t) * mg + ci) * lanes + l] = src[((g * mg + o) * p.c + ci) * taps + t];
          }
    return p;
  }
  // With AVX-512 blocks of 16 outputs for any group wider than 8 (RegNet's 24, 56, 120,
  // 168-wide groups: the last block zero-padded, its lanes past the group not stored), else
  // of 8: with AVX2 a vector's 8 (a block of 16 would be two registers per accumulator).
  p.v = lanes == 16 && mg > 8 ? 16 : 8;
  const std::int64_t blocks = (mg + p.v - 1) / p.v;
  const std::int64_t total = group * blocks * taps * p.c * p.v;
  p.w = Scratch(total);
  std::fill(p.w.data(), p.w.data() + total, 0.0f);
  for (std::int64_t g = 0; g < group; ++g)
    for (std::int64_t o = 0; o < mg; ++o) {
      const std::int64_t blk = o / p.v, lane = o % p.v;
      for (std::int64_t ci = 0; ci < p.c; ++ci)
        for (std::int64_t t = 0; t < taps; ++t)
          p.w.data()[(((g * blocks + blk) * taps + t) * p.c + ci) * p.v + lane] =
              src[((g * mg + o) * p.c + ci) * taps + t];
    }
  return p;
}

void conv_grouped_nhwc(const Conv2dParams& p, const TensorView& x, const PackedGroupedNhwc& w, const TensorView* bias,
                       const TensorView& y, const TensorView* residual) {
  check_rank(kOp, "X", x, 4);
  if (p.group != w.group || x.dims[3] != w.c * w.group)
    fail(Errc::bad_op_inputs, kOp,
         "NHWC X " + bracketed(x.dims) + ", group " + std::to_string(p.group) + ": the weights were packed for " +
             std::to_string(w.group) + " groups of " + std::to_string(w.c) +
             " input channels; expected X's last dim their product and the same group");
  const NhwcIo io = check_nhwc(p, x, w.kh, w.kw, w.m, bias, y, residual);
  const std::int64_t mg = w.m / w.group;
  GroupedConvRows d{&p,
                    x.dims[0],
                    x.dims[1],
                    x.dims[2],
                    x.dims[3],
                    io.oh,
                    io.ow,
                    w.kh,
                    w.kw,
                    w.m,
                    w.c,
                    mg,
                    (mg + w.v - 1) / w.v,
                    nullptr,
                    0,
                    0,
                    w.w.data(),
                    io.bias,
                    y.as<float>(),
                    io.residual};
  if (y.elements() == 0) return;
  // The image with pad_left zeros before each row and zeros after it to the padded width.
  d.wp = padded_width(d);
  GroupedConvFn* const small = w.gv > 1 ? small_fn(w.v, mg) : nullptr;
  d.pc = pixel_pitch(d.c, w.gv > 1);
  if (w.gv > 1 && (small == nullptr || mg * w.gv != w.v || mg != w.c))
    fail(Errc::bad_op_inputs, kOp,
         "the weights were packed in blocks of " + std::to_string(w.gv) + " groups of " + std::to_string(mg) +
             " for vectors of " + std::to_string(w.v) + " lanes, which this CPU's kernels do not run");
  d.row_major = d.n * d.h * d.wp * d.pc * std::int64_t{sizeof(float)} > l2_bytes();
  const bool ring = d.row_major && GroupedTapRows::ring_fits(d);
  // (a vector of slack: the small-group blocks read whole vectors of channels)
  PooledBuffer padded(ring ? 1 : d.n * d.h * d.wp * d.pc + w.v);
  const float* src = x.as<const float>();
  if (!ring) {
    parallel_for(d.n * d.h, grain_for(d.wp * d.pc), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) pad_row(d, src + r * d.w * d.c, padded.data() + r * d.wp * d.pc);
    });
    d.x = padded.data();
  }
  // Each task range its taps' rows: the whole padded image, or a ring of its own.
  const auto run = [&](GroupedConvFn* fn, std::int64_t b, std::int64_t e) {
    if (!ring) {
      GroupedTapRows rows(d, d.x);
      fn(d, rows, b, e);
      return;
    }
    PooledBuffer slots(GroupedTapRows::ring_floats(d) + w.v);
    GroupedTapRows rows(d, src, slots.data());
    fn(d, rows, b, e);
  };
  if (small != nullptr) {
    const std::int64_t blocks = (w.group + w.gv - 1) / w.gv, rows = d.n * d.oh;
    d.units = blocks;
    // (a ring's range: two output rows at least, each of every unit)
    const std::int64_t grain = std::max(grain_for(d.ow * w.v * d.kh * d.kw * mg), ring ? 2 * blocks : 1);
    parallel_for(blocks * rows, grain, [&](std::int64_t b, std::int64_t e) { run(small, b, e); });
    return;
  }
  GroupedConvFn* const fn = w.v == 16 ? kernels().grouped16 : kernels().grouped8;
  // Tasks of (chunk of blocks, output row) (`task_at`).
  const std::int64_t chunks = w.group * chunks_per_group(d.blocks), rows = d.n * d.oh;
  d.units = chunks;
  const std::int64_t grain = std::max(grain_for(d.ow * 3 * w.v * d.kh * d.kw * d.cg), ring ? 2 * chunks : 1);
  parallel_for(chunks * rows, grain, [&](std::int64_t b, std::int64_t e) { run(fn, b, e); });
}

}  // namespace ge::cpu
