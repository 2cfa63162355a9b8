#include "kernels/cpu/pool/pool.hpp"

#include "kernels/cpu/dispatch.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "ge/shape/window.hpp"
#include "kernels/cpu/vec.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors never cross a call: everything is inlined

namespace ge::cpu {
namespace {

// The valid taps of one output position along one axis: taps [t0, t1) land inside the
// input, and `padded` taps land inside the padded input.
struct Taps {
  std::int64_t t0, t1, padded;
};

Taps taps_of(std::int64_t o, std::int64_t stride, std::int64_t pad0, std::int64_t pad1, std::int64_t dil,
             std::int64_t k, std::int64_t in) {
  const std::int64_t start = o * stride - pad0;
  Taps t{k, 0, 0};
  for (std::int64_t i = 0; i < k; ++i) {
    const std::int64_t pos = start + i * dil;
    if (pos >= 0 && pos < in) {
      t.t0 = std::min(t.t0, i);
      t.t1 = i + 1;
    }
    if (pos >= -pad0 && pos < in + pad1) ++t.padded;
  }
  if (t.t1 <= t.t0) t.t0 = t.t1 = 0;
  return t;
}

void check_out_dim(std::string_view op, const char* axis, std::int64_t in, std::int64_t k, std::int64_t s,
                   std::int64_t d, std::int64_t p0, std::int64_t p1, std::int64_t out) {
  const std::int64_t padded = ge::detail::add_ends(ge::detail::add_ends(in, p0), p1), span = window_span(k, d);
  const std::int64_t lo = window_count(padded, span, s, false);
  if (lo < 1) {
    fail(Errc::bad_op_inputs, op,
         std::string("the dilated window is larger than the padded input along ") + axis);
  }
  // ceil_mode's size; front ends differ on dropping a last window that starts in the right
  // pad, so both are accepted (such a window has no real taps: max -inf, average 0).
  const std::int64_t hi = window_count(padded, span, s, true);
  if (out < lo || out > hi) {
    fail(Errc::bad_op_inputs, op,
         std::string("output ") + axis + " " + std::to_string(out) + " is neither the floor (" + std::to_string(lo) +
             ") nor the ceil_mode (" + std::to_string(hi) + ") size");
  }
}

}  // namespace

struct PoolShape {
  std::int64_t planes, h, w, oh, ow;
};

namespace {

PoolShape check_pool(std::string_view op, const Pool2dParams& p, const TensorView& x, const TensorView& y) {
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_rank(op, "X", x, 4);
  check_rank(op, "Y", y, 4);
  if (p.kernel_h < 1 || p.kernel_w < 1 || p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 ||
      p.dilation_w < 1) {
    fail(Errc::bad_attribute, op, "kernel, strides and dilations must be >= 1");
  }
  if (p.pad_top < 0 || p.pad_left < 0 || p.pad_bottom < 0 || p.pad_right < 0 || p.pad_top >= p.kernel_h * p.dilation_h ||
      p.pad_left >= p.kernel_w * p.dilation_w) {
    fail(Errc::bad_attribute, op, "pads must be >= 0 and smaller than the window");
  }
  if (y.dims[0] != x.dims[0] || y.dims[1] != x.dims[1]) {
    fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " must keep N and C of X " + bracketed(x.dims));
  }
  check_out_dim(op, "H", x.dims[2], p.kernel_h, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom, y.dims[2]);
  check_out_dim(op, "W", x.dims[3], p.kernel_w, p.stride_w, p.dilation_w, p.pad_left, p.pad_right, y.dims[3]);
  return {x.dims[0] * x.dims[1], x.dims[2], x.dims[3], y.dims[2], y.dims[3]};
}

// MaxPool's output row on AVX-512 or AVX2 (dilation 1, stride 1 or 2 across): the
// window's input rows reduced column by column into `col` (which sits `pad_left` floats
// into a buffer of -inf with `V * (stride + 1) + kw` floats of slack past the row), then
// each V outputs the max of kw column loads (stride 2: the even lanes of two loads).
template <int V>
inline __attribute__((always_inline)) void max_row(const float* const* rows, std::int64_t nrows, std::int64_t w,
                                                   float* col, std::int64_t pad_left, float* out, std::int64_t ow,
                                                   std::int64_t sw, std::int64_t kw) {
  using vf = VecOf<V>;
  const float inf = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < w; j += V) {
    const std::int64_t n = std::min<std::int64_t>(V, w - j);
    vf m = vf{} + inf;  // as the scalar loop: a NaN row value never replaces the running max
    for (std::int64_t r = 0; r < nrows; ++r) {
      const vf v = load_lanes<vf>(rows[r] + j, n);
      m = v > m ? v : m;
    }
    store_lanes(col + j, m, n);
  }
  const float* h = col - pad_left;
  for (std::int64_t ox = 0; ox < ow; ox += V) {
    vf acc;
    const float* at = h + ox * sw;
    if (sw == 1) {
      acc = load_columns<V, 1>(at);
      for (std::int64_t kx = 1; kx < kw; ++kx) {
        const vf v = load_columns<V, 1>(at + kx);
        acc = v > acc ? v : acc;
      }
    } else {
      acc = load_columns<V, 2>(at);
      for (std::int64_t kx = 1; kx < kw; ++kx) {
        const vf v = load_columns<V, 2>(at + kx);
        acc = v > acc ? v : acc;
      }
    }
    store_lanes(out + ox, acc, std::min<std::int64_t>(V, ow - ox));
  }
}

}  // namespace

#if GE_X86_KERNELS
GE_TARGET_AVX512 void max_pool_row_avx512(const float* const* rows, std::int64_t nrows, std::int64_t w, float* col,
                                          std::int64_t pad_left, float* out, std::int64_t ow, std::int64_t sw,
                                          std::int64_t kw) {
  max_row<16>(rows, nrows, w, col, pad_left, out, ow, sw, kw);
}
GE_TARGET_AVX2 void max_pool_row_avx2(const float* const* rows, std::int64_t nrows, std::int64_t w, float* col,
                                      std::int64_t pad_left, float* out, std::int64_t ow, std::int64_t sw,
                                      std::int64_t kw) {
  max_row<8>(rows, nrows, w, col, pad_left, out, ow, sw, kw);
}
#endif

namespace {

template <bool kMax>
void pool2d(std::string_view op, const Pool2dParams& p, const TensorView& x, const TensorView& y) {
  const PoolShape s = check_pool(op, p, x, y);
  if (y.elements() == 0) return;
  std::vector<Taps> th(static_cast<std::size_t>(s.oh)), tw(static_cast<std::size_t>(s.ow));
  for (std::int64_t o = 0; o < s.oh; ++o) {
    th[static_cast<std::size_t>(o)] = taps_of(o, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h, p.kernel_h, s.h);
  }
  for (std::int64_t o = 0; o < s.ow; ++o) {
    tw[static_cast<std::size_t>(o)] =
        taps_of(o, p.stride_w, p.pad_left, p.pad_right, p.dilation_w, p.kernel_w, s.w);
  }
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  // Separable: per output row, the window's valid input rows reduced column by column
  // (vectorised along the row) into a row buffer padded with the identity (-inf, 0),
  // then each output the reduction of its kernel_w taps in that buffer.
  const float identity = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  const std::int64_t span = (s.ow - 1) * p.stride_w + window_span(p.kernel_w, p.dilation_w);
  const std::int64_t buf_len = std::max(span, p.pad_left + s.w);
  MaxPoolRowFn* const max_row_fn = kernels().max_pool_row;
  if (kMax && max_row_fn != nullptr && p.dilation_h == 1 && p.dilation_w == 1 && p.stride_w <= 2) {
    // Vectorised rows (`max_row`).
    const std::int64_t slack = 16 * (p.stride_w + 1) + p.kernel_w;
    parallel_for(s.planes, grain_for(s.oh * (s.w * p.kernel_h + s.ow * p.kernel_w)), [&](std::int64_t b, std::int64_t e) {
      std::vector<float> buf(static_cast<std::size_t>(buf_len + slack), identity);
      std::vector<const float*> rows(static_cast<std::size_t>(p.kernel_h));
      for (std::int64_t pc = b; pc < e; ++pc) {
        const float* in = px + pc * s.h * s.w;
        for (std::int64_t oy = 0; oy < s.oh; ++oy) {
          const Taps& ty = th[static_cast<std::size_t>(oy)];
          const std::int64_t y0 = oy * p.stride_h - p.pad_top;
          for (std::int64_t ky = ty.t0; ky < ty.t1; ++ky) rows[static_cast<std::size_t>(ky - ty.t0)] = in + (y0 + ky) * s.w;
          max_row_fn(rows.data(), ty.t1 - ty.t0, s.w, buf.data() + p.pad_left, p.pad_left, py + (pc * s.oh + oy) * s.ow,
                     s.ow, p.stride_w, p.kernel_w);
        }
      }
    });
    return;
  }
  parallel_for(s.planes, grain_for(s.oh * (s.w * p.kernel_h + s.ow * p.kernel_w)), [&](std::int64_t b, std::int64_t e) {
    std::vector<float> buf(static_cast<std::size_t>(buf_len), identity);
    float* __restrict col = buf.data() + p.pad_left;
    for (std::int64_t pc = b; pc < e; ++pc) {
      const float* in = px + pc * s.h * s.w;
      float* out = py + pc * s.oh * s.ow;
      for (std::int64_t oy = 0; oy < s.oh; ++oy) {
        const Taps& ty = th[static_cast<std::size_t>(oy)];
        const std::int64_t y0 = oy * p.stride_h - p.pad_top;
        for_lanes(s.w, [&](std::int64_t j) { col[j] = identity; });
        for (std::int64_t ky = ty.t0; ky < ty.t1; ++ky) {
          const float* __restrict row = in + (y0 + ky * p.dilation_h) * s.w;
          if constexpr (kMax) {
            for_lanes(s.w, [&](std::int64_t j) { col[j] = row[j] > col[j] ? row[j] : col[j]; });
          } else {
            for_lanes(s.w, [&](std::int64_t j) { col[j] += row[j]; });
          }
        }
        const float* __restrict h = buf.data();
        float* __restrict orow = out + oy * s.ow;
        for (std::int64_t ox = 0; ox < s.ow; ++ox) {
          const float* t = h + ox * p.stride_w;
          float acc = identity;
          for (std::int64_t kx = 0; kx < p.kernel_w; ++kx) {
            const float v = t[kx * p.dilation_w];
            if constexpr (kMax) {
              acc = v > acc ? v : acc;
            } else {
              acc += v;
            }
          }
          if constexpr (!kMax) {
            const Taps& tx = tw[static_cast<std::size_t>(ox)];
            const std::int64_t count =
                p.count_include_pad ? ty.padded * tx.padded : (ty.t1 - ty.t0) * (tx.t1 - tx.t0);
            acc = count > 0 ? acc / static_cast<float>(count) : 0.0f;
          }
          orow[ox] = acc;
        }
      }
    }
  });
}

}  // namespace

namespace {

// MaxPool and AveragePool on NHWC images: per output pixel and vector of channels, the
// max (a NaN never replaces the running max, as the NCHW kernels) or the mean over the
// window's taps inside the image (divided by the taps inside the padded image with
// count_include_pad, as the NCHW kernel). Output rows [r0, r1) of the batch.
// W floats in a vector (W = 4, 8, 16), or one float.
template <int W>
struct PoolVecOf {
  typedef float type __attribute__((vector_size(W * sizeof(float))));
};
template <>
struct PoolVecOf<1> {
  using type = float;
};
template <int W>
using PoolVec = typename PoolVecOf<W>::type;

template <int V, bool kMax>
inline __attribute__((always_inline)) void pool_nhwc_rows(const Pool2dParams& p, const PoolShape& s, std::int64_t c,
                                                          const float* x, float* y, std::int64_t r0, std::int64_t r1) {
  const float inf = -std::numeric_limits<float>::infinity();
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t img = r / s.oh, iy0 = r % s.oh * p.stride_h - p.pad_top;
    const Taps ty = taps_of(r % s.oh, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h, p.kernel_h, s.h);
    for (std::int64_t ox = 0; ox < s.ow; ++ox) {
      const std::int64_t ix0 = ox * p.stride_w - p.pad_left;
      float* out = y + (r * s.ow + ox) * c;
      float scale = 1.0f;
      if constexpr (!kMax) {
        const Taps tx = taps_of(ox, p.stride_w, p.pad_left, p.pad_right, p.dilation_w, p.kernel_w, s.w);
        const std::int64_t count = p.count_include_pad ? ty.padded * tx.padded : (ty.t1 - ty.t0) * (tx.t1 - tx.t0);
        scale = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
      }
      // Channels in vectors of V, then of 8 and 4 (a partial vector's load and store would
      // go through memory: 24 channels at 56x56 ran at a fifth of the speed), then singly.
      const auto window = [&](std::int64_t ch, auto width) __attribute__((always_inline)) {
        using wf = PoolVec<decltype(width)::value>;
        wf m = wf{} + (kMax ? inf : 0.0f);
        for (std::int64_t ky = 0; ky < p.kernel_h; ++ky) {
          const std::int64_t iy = iy0 + ky * p.dilation_h;
          if (iy < 0 || iy >= s.h) continue;
          for (std::int64_t kx = 0; kx < p.kernel_w; ++kx) {
            const std::int64_t ix = ix0 + kx * p.dilation_w;
            if (ix < 0 || ix >= s.w) continue;
            wf v;
            std::memcpy(&v, x + ((img * s.h + iy) * s.w + ix) * c + ch, sizeof v);
            if constexpr (kMax) m = v > m ? v : m;
            else m += v;
          }
        }
        if constexpr (!kMax) m *= scale;
        std::memcpy(out + ch, &m, sizeof m);
      };
      std::int64_t ch = 0;
      for (; ch + V <= c; ch += V) window(ch, std::integral_constant<int, V>{});
      if constexpr (V > 8)
        for (; ch + 8 <= c; ch += 8) window(ch, std::integral_constant<int, 8>{});
      for (; ch + 4 <= c; ch += 4) window(ch, std::integral_constant<int, 4>{});
      for (; ch < c; ++ch) window(ch, std::integral_constant<int, 1>{});
    }
  }
}

}  // namespace

void max_pool_nhwc_base(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x, float* y,
                        std::int64_t b, std::int64_t e) {
  pool_nhwc_rows<8, true>(p, s, c, x, y, b, e);
}
void avg_pool_nhwc_base(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x, float* y,
                        std::int64_t b, std::int64_t e) {
  pool_nhwc_rows<8, false>(p, s, c, x, y, b, e);
}
#if GE_X86_KERNELS
GE_TARGET_AVX512 void max_pool_nhwc_avx512(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x,
                                           float* y, std::int64_t b, std::int64_t e) {
  pool_nhwc_rows<16, true>(p, s, c, x, y, b, e);
}
GE_TARGET_AVX512 void avg_pool_nhwc_avx512(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x,
                                           float* y, std::int64_t b, std::int64_t e) {
  pool_nhwc_rows<16, false>(p, s, c, x, y, b, e);
}
GE_TARGET_AVX2 void max_pool_nhwc_avx2(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x,
                                       float* y, std::int64_t b, std::int64_t e) {
  pool_nhwc_rows<8, true>(p, s, c, x, y, b, e);
}
GE_TARGET_AVX2 void avg_pool_nhwc_avx2(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x,
                                       float* y, std::int64_t b, std::int64_t e) {
  pool_nhwc_rows<8, false>(p, s, c, x, y, b, e);
}
#endif

namespace {

void pool2d_nhwc(std::string_view op, PoolNhwcFn* fn, const Pool2dParams& p, const TensorView& x, const TensorView& y) {
  check_rank(op, "X", x, 4);
  check_rank(op, "Y", y, 4);
  // The NCHW checks on the dims seen as NCHW (the data is not read through them).
  const std::int64_t xd[4] = {x.dims[0], x.dims[3], x.dims[1], x.dims[2]};
  const std::int64_t yd[4] = {y.dims[0], y.dims[3], y.dims[1], y.dims[2]};
  const PoolShape s = check_pool(op, p, TensorView{x.data, x.dtype, xd}, TensorView{y.data, y.dtype, yd});
  if (y.elements() == 0) return;
  const std::int64_t c = x.dims[3];
  parallel_for(x.dims[0] * s.oh, grain_for(s.ow * c * p.kernel_h * p.kernel_w), [&](std::int64_t b, std::int64_t e) {
    fn(p, s, c, x.as<const float>(), y.as<float>(), b, e);
  });
}

}  // namespace

void max_pool2d_nhwc(const Pool2dParams& p, const TensorView& x, const TensorView& y) {
  pool2d_nhwc("MaxPool", kernels().max_pool_nhwc, p, x, y);
}

void average_pool2d_nhwc(const Pool2dParams& p, const TensorView& x, const TensorView& y) {
  pool2d_nhwc("AveragePool", kernels().avg_pool_nhwc, p, x, y);
}

void max_pool2d(const Pool2dParams& p, const TensorView& x, const TensorView& y) { pool2d<true>("MaxPool", p, x, y); }

void average_pool2d(const Pool2dParams& p, const TensorView& x, const TensorView& y) {
  pool2d<false>("AveragePool", p, x, y);
}

namespace {

// Checks a global pool's X (f32, rank >= 2) and Y (X's dims, every spatial one 1);
// returns the N * C planes and the elements of each.
std::pair<std::int64_t, std::int64_t> global_pool_planes(std::string_view op, const TensorView& x, const TensorView& y) {
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  if (x.rank() < 2) fail(Errc::rank_mismatch, op, "X " + bracketed(x.dims) + " must have rank >= 2 (N, C, ...)");
  check_data(op, "X", x);
  SmallDims out(x.dims.begin(), x.dims.end());
  std::fill(out.begin() + 2, out.end(), 1);
  check_dims(op, "Y", y, out);
  return {x.dims[0] * x.dims[1], product(x.dims, 2, x.rank())};
}

}  // namespace

void global_average_pool(const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "GlobalAveragePool";
  const auto [planes, plane_size] = global_pool_planes(op, x, y);
  const std::int64_t n = plane_size;  // (a lambda may not capture a structured binding in clang 14)
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  parallel_for(planes, grain_for(n), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) {
      const float* __restrict in = px + pc * n;
      float acc[kLanes] = {};
      std::int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        for (std::int64_t j = 0; j < kLanes; ++j) acc[j] += in[i + j];
      }
      float sum = 0.0f;
      for (; i < n; ++i) sum += in[i];
      for (std::int64_t j = 0; j < kLanes; ++j) sum += acc[j];
      py[pc] = n > 0 ? sum / static_cast<float>(n) : 0.0f;
    }
  });
}

void global_max_pool(const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "GlobalMaxPool";
  const auto [planes, plane_size] = global_pool_planes(op, x, y);
  const std::int64_t n = plane_size;  // (a lambda may not capture a structured binding in clang 14)
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  parallel_for(planes, grain_for(n), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) {
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t i = 0; i < n; ++i) {
        const float v = px[pc * n + i];
        m = v > m || v != v ? v : m;
        if (m != m) break;
      }
      py[pc] = m;
    }
  });
}

}  // namespace ge::cpu
