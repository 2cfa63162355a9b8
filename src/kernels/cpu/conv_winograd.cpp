// 3x3 stride-1 convs by Winograd's F(2x2, 3x3): each 2x2 block of output pixels (a tile)
// comes from a 4x4 block of input, and the products of a tile's 9 taps become 16
// element-wise products in the transformed domain: 16 GEMMs
// M_xi[cout, tiles] = U_xi[cout, cin] * V_xi[cin, tiles], 2.25x fewer multiplies than
// the direct conv's 9 per output and input channel.
//
// - Weights (once, at pack time): U = G g G^T per (cout, cin), each of the 16 elements
//   packed as its own GEMM A operand.
// - Input (per run, in parallel over channels): a channel's plane is copied, zero
//   padded, into a plane covering every tile; 16 tiles at a time (the tiles of every
//   image in a row: image, tile row, tile column) are gathered into a 16-lane staging
//   block, transformed V = B^T d B with vector adds, and stored as one 16-lane row of
//   each V_xi's GEMM B panel.
// - 16 GEMMs (the conv's blocked GEMM over K = cin, in parallel over (xi, row blocks)).
// - Output (in parallel over output channels): Y = A^T M A per tile, 16 tiles at a
//   time, then bias, residual and activation, stored where the tile lies inside the
//   output.
// Transforms only add and subtract (G's halves are applied to the weights in f64):
// the result differs from the direct conv by rounding only (checked in the tests).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/conv_internal.hpp"

// The 64-byte vectors below never cross a function boundary: every helper is inlined
// into the per-ISA entry points.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ge::cpu {
namespace {

constexpr int kTile = 16;   // tiles per vector: one B panel row
constexpr int kXi = 16;     // transformed elements per tile (4 x 4)

typedef float vf16 __attribute__((vector_size(64)));

inline __attribute__((always_inline)) vf16 load(const float* p) {
  vf16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline __attribute__((always_inline)) void store(float* p, vf16 v) { std::memcpy(p, &v, sizeof v); }

struct Geometry {
  std::int64_t tiles_y, tiles_x, per_image, tiles, tiles_pad;  // tiles: of the whole batch
  std::int64_t ph, pw;                                         // the padded plane
};

Geometry geometry(const ConvShape& s) {
  Geometry g{};
  g.tiles_y = (s.oh + 1) / 2;
  g.tiles_x = (s.ow + 1) / 2;
  g.per_image = g.tiles_y * g.tiles_x;
  g.tiles = s.n * g.per_image;
  g.tiles_pad = (g.tiles + kTile - 1) / kTile * kTile;
  g.ph = 2 * g.tiles_y + 2;
  g.pw = 2 * g.tiles_x + 2;
  return g;
}

// V = B^T d B for 16 tiles at once: d[r][c] are 16-lane vectors.
inline __attribute__((always_inline)) void input_transform(const vf16 (&d)[4][4], vf16 (&v)[4][4]) {
  vf16 t[4][4];
  for (int c = 0; c < 4; ++c) {
    t[0][c] = d[0][c] - d[2][c];
    t[1][c] = d[1][c] + d[2][c];
    t[2][c] = d[2][c] - d[1][c];
    t[3][c] = d[1][c] - d[3][c];
  }
  for (int r = 0; r < 4; ++r) {
    v[r][0] = t[r][0] - t[r][2];
    v[r][1] = t[r][1] + t[r][2];
    v[r][2] = t[r][2] - t[r][1];
    v[r][3] = t[r][1] - t[r][3];
  }
}

// Y = A^T m A for 16 tiles at once.
inline __attribute__((always_inline)) void output_transform(const vf16 (&m)[4][4], vf16 (&y)[2][2]) {
  vf16 t[2][4];
  for (int c = 0; c < 4; ++c) {
    t[0][c] = m[0][c] + m[1][c] + m[2][c];
    t[1][c] = m[1][c] - m[2][c] - m[3][c];
  }
  for (int r = 0; r < 2; ++r) {
    y[r][0] = t[r][0] + t[r][1] + t[r][2];
    y[r][1] = t[r][1] - t[r][2] - t[r][3];
  }
}

// One input channel: its V rows for every tile (`vbuf`: 16 B operands of cin x tiles_pad
// in 16-column panels, `panel` = cin * 16 floats apart).
inline __attribute__((always_inline)) void transform_channel(const Conv2dParams& p, const ConvShape& s,
                                                              const Geometry& g, std::int64_t ci, const float* x,
                                                              float* plane, float* vbuf, std::int64_t cin) {
  const std::int64_t panel = cin * kTile;
  const std::int64_t xi_stride = g.tiles_pad / kTile * panel;
  std::int64_t img_loaded = -1;
  for (std::int64_t t0 = 0; t0 < g.tiles_pad; t0 += kTile) {
    alignas(64) float stage[4][4][kTile];
    for (int l = 0; l < kTile; ++l) {
      const std::int64_t t = t0 + l;
      if (t >= g.tiles) {
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 4; ++c) stage[r][c][l] = 0.0f;
        continue;
      }
      const std::int64_t img = t / g.per_image, tt = t % g.per_image;
      if (img != img_loaded) {
        // The zero-padded plane of (img, ci): padded row r is input row r - pad_top.
        const float* in = x + (img * s.c + ci) * s.h * s.w;
        for (std::int64_t r = 0; r < g.ph; ++r) {
          float* row = plane + r * g.pw;
          const std::int64_t iy = r - p.pad_top;
          std::fill(row, row + g.pw, 0.0f);
          if (iy < 0 || iy >= s.h) continue;
          const std::int64_t c0 = std::max<std::int64_t>(0, p.pad_left);
          const std::int64_t ix0 = c0 - p.pad_left;
          const std::int64_t count = std::min(s.w - ix0, g.pw - c0);
          if (count > 0) std::memcpy(row + c0, in + iy * s.w + ix0, sizeof(float) * static_cast<std::size_t>(count));
        }
        img_loaded = img;
      }
      const float* base = plane + (tt / g.tiles_x) * 2 * g.pw + (tt % g.tiles_x) * 2;
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) stage[r][c][l] = base[r * g.pw + c];
    }
    vf16 d[4][4], v[4][4];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) d[r][c] = load(stage[r][c]);
    input_transform(d, v);
    float* dst = vbuf + (t0 / kTile) * panel + ci * kTile;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) store(dst + (r * 4 + c) * xi_stride, v[r][c]);
  }
}

// One output channel: Y from its M rows, with the epilogue, into the NCHW output.
inline __attribute__((always_inline)) void output_channel(const Conv2dParams& p, const ConvShape& s,
                                                           const Geometry& g, std::int64_t co, const float* mbuf,
                                                           std::int64_t cout, const float* bias, float* y,
                                                           const float* residual) {
  const std::int64_t xi_stride = cout * g.tiles_pad;  // M_xi: cout rows of tiles_pad
  const float b0 = bias != nullptr ? bias[co] : 0.0f;
  for (std::int64_t t0 = 0; t0 < g.tiles; t0 += kTile) {
    vf16 m[4][4], out[2][2];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) m[r][c] = load(mbuf + (r * 4 + c) * xi_stride + co * g.tiles_pad + t0);
    output_transform(m, out);
    const int lanes = static_cast<int>(std::min<std::int64_t>(kTile, g.tiles - t0));
    for (int l = 0; l < lanes; ++l) {
      const std::int64_t t = t0 + l;
      const std::int64_t img = t / g.per_image, tt = t % g.per_image;
      const std::int64_t oy0 = (tt / g.tiles_x) * 2, ox0 = (tt % g.tiles_x) * 2;
      const std::int64_t plane = (img * s.cout + co) * s.oh * s.ow;
      for (int r = 0; r < 2; ++r) {
        const std::int64_t oy = oy0 + r;
        if (oy >= s.oh) break;
        for (int c = 0; c < 2; ++c) {
          const std::int64_t ox = ox0 + c;
          if (ox >= s.ow) break;
          const std::int64_t at = plane + oy * s.ow + ox;
          float v = out[r][c][l] + b0;
          if (residual != nullptr) v += residual[at];
          y[at] = apply_post(v, p.post);
        }
      }
    }
  }
}

// The transforms over ranges of channels, built for AVX-512 and for the baseline (the
// 16-lane vectors then lower to four SSE registers each), the widest chosen at start-up.
struct Transforms {
  const Conv2dParams* p;
  const ConvShape* s;
  const Geometry* g;
  const float* x;
  float* vbuf;
  const float* mbuf;
  const float* bias;
  float* y;
  const float* residual;
};

#define GE_WINOGRAD_BODIES                                                                                        \
  static void inputs(const Transforms& t, std::int64_t b, std::int64_t e, float* plane) {                         \
    for (std::int64_t ci = b; ci < e; ++ci) transform_channel(*t.p, *t.s, *t.g, ci, t.x, plane, t.vbuf, t.s->c);  \
  }                                                                                                               \
  static void outputs(const Transforms& t, std::int64_t b, std::int64_t e) {                                      \
    for (std::int64_t co = b; co < e; ++co)                                                                       \
      output_channel(*t.p, *t.s, *t.g, co, t.mbuf, t.s->cout, t.bias, t.y, t.residual);                           \
  }

struct Base {
  GE_WINOGRAD_BODIES
};
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,fma")
struct Avx512 {
  GE_WINOGRAD_BODIES
};
#pragma GCC pop_options
#endif
#undef GE_WINOGRAD_BODIES

using InputsFn = void (*)(const Transforms&, std::int64_t, std::int64_t, float*);
using OutputsFn = void (*)(const Transforms&, std::int64_t, std::int64_t);

const bool avx512 = isa() == Isa::avx512;
#if defined(__x86_64__) && defined(__GNUC__)
const InputsFn inputs_fn = avx512 ? Avx512::inputs : Base::inputs;
const OutputsFn outputs_fn = avx512 ? Avx512::outputs : Base::outputs;
#else
const InputsFn inputs_fn = Base::inputs;
const OutputsFn outputs_fn = Base::outputs;
#endif

}  // namespace

bool winograd_fits(std::int64_t kh, std::int64_t kw, const Conv2dParams& p) {
  return kh == 3 && kw == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1 &&
         p.group == 1;
}

void pack_winograd_weights(std::int64_t cout, std::int64_t cin, const float* w, float* dst) {
  // U = G g G^T with G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
  static constexpr double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  std::vector<float> u(static_cast<std::size_t>(kXi * cout * cin));
  for (std::int64_t o = 0; o < cout; ++o) {
    for (std::int64_t i = 0; i < cin; ++i) {
      const float* g = w + (o * cin + i) * 9;
      double t[4][3];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 3; ++c) t[r][c] = G[r][0] * g[c] + G[r][1] * g[3 + c] + G[r][2] * g[6 + c];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
          u[static_cast<std::size_t>(((r * 4 + c) * cout + o) * cin + i)] =
              static_cast<float>(t[r][0] * G[c][0] + t[r][1] * G[c][1] + t[r][2] * G[c][2]);
    }
  }
  const std::int64_t per_xi = packed_a_size(cout, cin);
  for (int xi = 0; xi < kXi; ++xi)
    pack_a(cout, cin, u.data() + static_cast<std::size_t>(xi * cout * cin), cin, false, 1.0f, dst + xi * per_xi);
}

std::int64_t winograd_weights_size(std::int64_t cout, std::int64_t cin) { return kXi * packed_a_size(cout, cin); }

void conv_winograd(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                   const float* pbias, float* py, const float* pres) {
  const Geometry g = geometry(s);
  const std::int64_t cin = s.c, cout = s.cout;
  const std::int64_t panel = cin * kTile;
  PooledBuffer vbuf(kXi * (g.tiles_pad / kTile) * panel);
  PooledBuffer mbuf(kXi * cout * g.tiles_pad);
  const Transforms tr{&p, &s, &g, px, vbuf.data(), mbuf.data(), pbias, py, pres};
  parallel_for(cin, grain_for(g.tiles * 64, 65536), [&](std::int64_t b, std::int64_t e) {
    PooledBuffer plane(g.ph * g.pw);
    inputs_fn(tr, b, e, plane.data());
  });
  // 16 GEMMs over K = cin in blocks of 256, each task a (xi, block of 12-row panels).
  constexpr std::int64_t kc_max = 256;
  const std::int64_t mpanels = (cout + kGemmMR - 1) / kGemmMR;
  const std::int64_t rows_per_task = std::max<std::int64_t>(2, 96 / kGemmMR / 2 * 2);  // 96 rows
  const std::int64_t tasks_per_xi = (mpanels + rows_per_task - 1) / rows_per_task;
  const std::int64_t per_xi = packed_a_size(cout, cin);
  const std::int64_t vb_xi = (g.tiles_pad / kTile) * panel;
  parallel_for(kXi * tasks_per_xi, 1, [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t xi = t / tasks_per_xi;
      const std::int64_t m0 = t % tasks_per_xi * rows_per_task * kGemmMR;
      const std::int64_t m1 = std::min(cout, m0 + rows_per_task * kGemmMR);
      const float* a = w.data.data() + xi * per_xi;
      const float* bx = vbuf.data() + xi * vb_xi;
      float* c = mbuf.data() + xi * cout * g.tiles_pad;
      for (std::int64_t k0 = 0; k0 < cin; k0 += kc_max) {
        const std::int64_t kc = std::min(kc_max, cin - k0);
        gemm_packed_kblock(cout, m0, m1, cin, k0, kc, a, bx + k0 * kTile, panel, g.tiles_pad, c, g.tiles_pad, 0,
                           GemmEpilogue{}, k0 == 0, k0 + kc >= cin);
      }
    }
  });
  parallel_for(cout, grain_for(g.tiles * 32, 65536), [&](std::int64_t b, std::int64_t e) { outputs_fn(tr, b, e); });
}

}  // namespace ge::cpu
