#include "kernels/cpu/conv/window_nd.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ge/shape/window.hpp"

namespace ge::cpu {

// conv_nd_gemm.cpp: the GEMM conv over patches (operands checked; not depthwise).
void conv_nd_gemm_run(const WindowNd& p, std::int64_t n_img, std::int64_t c_in, const std::array<std::int64_t, 3>& in,
                      const std::array<std::int64_t, 3>& out, const PackedConvWeights& w, const float* px,
                      const float* pbias, float* py);

namespace {

// The dims of a window op padded to three spatial axes: [N, C, s0, s1, s2] in and out.
struct Geometry {
  std::int64_t n = 1, c_in = 1, c_out = 1;
  std::array<std::int64_t, 3> in{1, 1, 1}, out{1, 1, 1};
  [[nodiscard]] std::int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  [[nodiscard]] std::int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

Geometry geometry(std::string_view op, const TensorView& x, const TensorView& y) {
  if (x.rank() < 3 || x.rank() > 5)
    fail(Errc::rank_mismatch, op, "X " + bracketed(x.dims) + " must have rank 3 to 5 (1 to 3 spatial dims)");
  check_rank(op, "Y", y, x.rank());
  check_data(op, "X", x);
  check_data(op, "Y", y);
  Geometry g;
  g.n = x.dims[0];
  g.c_in = x.dims[1];
  g.c_out = y.dims[1];
  if (y.dims[0] != g.n) fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " must keep N of X " + bracketed(x.dims));
  const std::size_t sp = x.rank() - 2, off = 3 - sp;
  for (std::size_t i = 0; i < sp; ++i) {
    g.in[off + i] = x.dims[2 + i];
    g.out[off + i] = y.dims[2 + i];
  }
  return g;
}

// The input position of output position o and tap t along axis a, and whether it is inside.
inline std::int64_t tap_pos(const WindowNd& p, std::size_t a, std::int64_t o, std::int64_t t) {
  return o * p.stride[a] - p.pad_begin[a] + t * p.dilation[a];
}

// Checks W's kernel against the rank and sets `k` from it: [?, ?, k...] padded to three axes.
std::array<std::int64_t, 3> kernel_of(std::string_view op, const TensorView& x, const TensorView& w) {
  check_rank(op, "W", w, x.rank());
  check_data(op, "W", w);
  std::array<std::int64_t, 3> k{1, 1, 1};
  const std::size_t sp = x.rank() - 2, off = 3 - sp;
  for (std::size_t i = 0; i < sp; ++i) k[off + i] = w.dims[2 + i];
  return k;
}

void check_bias(std::string_view op, const TensorView* b, DataType t, std::int64_t m) {
  if (b == nullptr) return;
  check_dtype(op, "B", *b, t);
  if (b->rank() != 1 || b->dims[0] != m)
    fail(Errc::bad_op_inputs, op, "B " + bracketed(b->dims) + " must hold one value per output channel (" +
                                      std::to_string(m) + ")");
}

template <class T>
void conv_typed(const WindowNd& p, const Geometry& g, const std::array<std::int64_t, 3>& k, const T* x, const T* w,
                const T* b, T* y) {
  const std::int64_t cg = g.c_in / p.group, mg = g.c_out / p.group, taps = k[0] * k[1] * k[2];
  parallel_for(g.n * g.c_out, grain_for(g.out_plane() * cg * taps), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t plane = lo; plane < hi; ++plane) {
      const std::int64_t n = plane / g.c_out, m = plane % g.c_out, grp = m / mg;
      T* dst = y + plane * g.out_plane();
      std::int64_t o = 0;
      for (std::int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1)
          for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2, ++o) {
            double acc = b != nullptr ? static_cast<double>(b[m]) : 0.0;
            for (std::int64_t ci = 0; ci < cg; ++ci) {
              const T* xs = x + (n * g.c_in + grp * cg + ci) * g.in_plane();
              const T* ws = w + (m * cg + ci) * taps;
              for (std::int64_t k0 = 0; k0 < k[0]; ++k0) {
                const std::int64_t i0 = tap_pos(p, 0, o0, k0);
                if (i0 < 0 || i0 >= g.in[0]) continue;
                for (std::int64_t k1 = 0; k1 < k[1]; ++k1) {
                  const std::int64_t i1 = tap_pos(p, 1, o1, k1);
                  if (i1 < 0 || i1 >= g.in[1]) continue;
                  const T* row = xs + (i0 * g.in[1] + i1) * g.in[2];
                  const T* wrow = ws + (k0 * k[1] + k1) * k[2];
                  for (std::int64_t k2 = 0; k2 < k[2]; ++k2) {
                    const std::int64_t i2 = tap_pos(p, 2, o2, k2);
                    if (i2 >= 0 && i2 < g.in[2]) acc += static_cast<double>(wrow[k2]) * static_cast<double>(row[i2]);
                  }
                }
              }
            }
            dst[o] = static_cast<T>(acc);
          }
    }
  });
}

template <class T>
void conv_transpose_typed(const WindowNd& p, const Geometry& g, const std::array<std::int64_t, 3>& k, const T* x,
                          const T* w, const T* b, T* y) {
  const std::int64_t cg = g.c_in / p.group, mg = g.c_out / p.group, taps = k[0] * k[1] * k[2];
  // One task per output plane (n, m): it scatters every input plane of m's group into it.
  parallel_for(g.n * g.c_out, grain_for(g.in_plane() * cg * taps), [&](std::int64_t lo, std::int64_t hi) {
    std::vector<double> acc(static_cast<std::size_t>(g.out_plane()));
    for (std::int64_t plane = lo; plane < hi; ++plane) {
      const std::int64_t n = plane / g.c_out, m = plane % g.c_out, grp = m / mg, mm = m % mg;
      std::fill(acc.begin(), acc.end(), b != nullptr ? static_cast<double>(b[m]) : 0.0);
      for (std::int64_t ci = 0; ci < cg; ++ci) {
        const std::int64_t c = grp * cg + ci;
        const T* xs = x + (n * g.c_in + c) * g.in_plane();
        const T* ws = w + (c * mg + mm) * taps;
        std::int64_t i = 0;
        for (std::int64_t i0 = 0; i0 < g.in[0]; ++i0)
          for (std::int64_t i1 = 0; i1 < g.in[1]; ++i1)
            for (std::int64_t i2 = 0; i2 < g.in[2]; ++i2, ++i) {
              const double v = static_cast<double>(xs[i]);
              for (std::int64_t k0 = 0; k0 < k[0]; ++k0) {
                const std::int64_t o0 = tap_pos(p, 0, i0, k0);
                if (o0 < 0 || o0 >= g.out[0]) continue;
                for (std::int64_t k1 = 0; k1 < k[1]; ++k1) {
                  const std::int64_t o1 = tap_pos(p, 1, i1, k1);
                  if (o1 < 0 || o1 >= g.out[1]) continue;
                  double* row = acc.data() + (o0 * g.out[1] + o1) * g.out[2];
                  const T* wrow = ws + (k0 * k[1] + k1) * k[2];
                  for (std::int64_t k2 = 0; k2 < k[2]; ++k2) {
                    const std::int64_t o2 = tap_pos(p, 2, i2, k2);
                    if (o2 >= 0 && o2 < g.out[2]) row[o2] += v * static_cast<double>(wrow[k2]);
                  }
                }
              }
            }
      }
      T* dst = y + plane * g.out_plane();
      for (std::size_t o = 0; o < acc.size(); ++o) dst[o] = static_cast<T>(acc[o]);
    }
  });
}

// Runs `f(T*)`-style typed code for a float view type.
template <class F>
void float_dispatch(std::string_view op, DataType t, F&& f) {
  if (t == DataType::f32) f(float{});
  else if (t == DataType::f64) f(double{});
  else fail(Errc::type_mismatch, op, std::string("X is ") + std::string(to_string(t)) + "; expected f32 or f64");
}

void check_conv(std::string_view op, const WindowNd& p, const Geometry& g, std::int64_t w_in, std::int64_t w_out) {
  if (p.group < 1 || g.c_in % p.group != 0 || g.c_out % p.group != 0)
    fail(Errc::bad_op_inputs, op, "group " + std::to_string(p.group) + " must divide the " + std::to_string(g.c_in) +
                                      " input and " + std::to_string(g.c_out) + " output channels");
  if (w_in != g.c_in / p.group || w_out != g.c_out / p.group)
    fail(Errc::bad_op_inputs, op, "W has " + std::to_string(w_in) + " input and " + std::to_string(w_out) +
                                      " output channels per group; expected " + std::to_string(g.c_in / p.group) +
                                      " and " + std::to_string(g.c_out / p.group));
}

// Per window position of one plane: `visit(value_index_in_plane)` over the real taps, and
// the count of taps inside the padded input.
template <class Visit>
std::int64_t for_window(const WindowNd& p, const Geometry& g, std::int64_t o0, std::int64_t o1, std::int64_t o2,
                        Visit&& visit) {
  std::int64_t padded = 0;
  for (std::int64_t k0 = 0; k0 < p.kernel[0]; ++k0) {
    const std::int64_t i0 = tap_pos(p, 0, o0, k0);
    const bool in0 = i0 >= 0 && i0 < g.in[0], pad0 = i0 >= -p.pad_begin[0] && i0 < g.in[0] + p.pad_end[0];
    for (std::int64_t k1 = 0; k1 < p.kernel[1]; ++k1) {
      const std::int64_t i1 = tap_pos(p, 1, o1, k1);
      const bool in1 = i1 >= 0 && i1 < g.in[1], pad1 = i1 >= -p.pad_begin[1] && i1 < g.in[1] + p.pad_end[1];
      for (std::int64_t k2 = 0; k2 < p.kernel[2]; ++k2) {
        const std::int64_t i2 = tap_pos(p, 2, o2, k2);
        if (pad0 && pad1 && i2 >= -p.pad_begin[2] && i2 < g.in[2] + p.pad_end[2]) ++padded;
        if (in0 && in1 && i2 >= 0 && i2 < g.in[2]) visit(i0, i1, i2);
      }
    }
  }
  return padded;
}

// Calls `out(plane, o, o0, o1, o2)` for every output element of every (image, channel)
// plane, the planes split over the threads: the walk both pools share.
template <class F>
void for_each_pool_output(const WindowNd& p, const Geometry& g, F out) {
  parallel_for(g.n * g.c_in, grain_for(g.out_plane() * p.kernel[0] * p.kernel[1] * p.kernel[2]),
               [&](std::int64_t lo, std::int64_t hi) {
                 for (std::int64_t plane = lo; plane < hi; ++plane) {
                   std::int64_t o = plane * g.out_plane();
                   for (std::int64_t o0 = 0; o0 < g.out[0]; ++o0)
                     for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1)
                       for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2, ++o) out(plane, o, o0, o1, o2);
                 }
               });
}

template <class T>
void max_pool_typed(const WindowNd& p, const Geometry& g, const T* x, T* y, std::int64_t* idx) {
  for_each_pool_output(p, g, [&](std::int64_t plane, std::int64_t o, std::int64_t o0, std::int64_t o1, std::int64_t o2) {
    const T* xs = x + plane * g.in_plane();
    T best = std::numeric_limits<T>::lowest();
    std::int64_t at = -1, best_at = -1;
    (void)for_window(p, g, o0, o1, o2, [&](std::int64_t i0, std::int64_t i1, std::int64_t i2) {
      const T v = xs[(i0 * g.in[1] + i1) * g.in[2] + i2];
      if (at < 0 || v > best) {
        best = v;
        at = (i0 * g.in[1] + i1) * g.in[2] + i2;
        best_at = p.column_major ? i0 + g.in[0] * (i1 + g.in[1] * i2) : at;
      }
    });
    y[o] = best;
    if (idx != nullptr) idx[o] = best_at < 0 ? -1 : plane * g.in_plane() + best_at;
  });
}

template <class T>
void average_pool_typed(const WindowNd& p, const Geometry& g, const T* x, T* y) {
  for_each_pool_output(p, g, [&](std::int64_t plane, std::int64_t o, std::int64_t o0, std::int64_t o1, std::int64_t o2) {
    const T* xs = x + plane * g.in_plane();
    double sum = 0;
    std::int64_t count = 0;
    const std::int64_t padded = for_window(p, g, o0, o1, o2, [&](std::int64_t i0, std::int64_t i1, std::int64_t i2) {
      sum += static_cast<double>(xs[(i0 * g.in[1] + i1) * g.in[2] + i2]);
      ++count;
    });
    const std::int64_t div = p.count_include_pad ? padded : count;
    y[o] = static_cast<T>(div > 0 ? sum / static_cast<double>(div) : 0.0);
  });
}

// The taps of axis a whose input position for output o lies inside the input (`padded`:
// inside the input with its pads), counted.
std::int64_t taps_inside(const WindowNd& p, const Geometry& g, std::size_t a, std::int64_t o, bool padded) {
  const std::int64_t lo = padded ? -p.pad_begin[a] : 0, hi = g.in[a] + (padded ? p.pad_end[a] : 0);
  std::int64_t n = 0;
  for (std::int64_t k = 0; k < p.kernel[a]; ++k) {
    const std::int64_t i = tap_pos(p, a, o, k);
    n += i >= lo && i < hi ? 1 : 0;
  }
  return n;
}

// MaxPool (no Indices) and AveragePool on f32, vectorised along the output rows: per
// output row and tap the outputs whose tap lies inside the input row are one range of
// the row, a loop GCC vectorises (stride 1: contiguous reads). The same results as the
// walk per output: the max keeps the first real tap's value unless a later one is
// greater (a NaN first stays), the mean divides by the per-axis counts' product.
template <bool kMax>
void pool_rows_f32(const WindowNd& p, const Geometry& g, const float* x, float* y) {
  const std::int64_t ow = g.out[2];
  std::vector<float> cx(static_cast<std::size_t>(ow));  // AveragePool: the divisor's x part
  for (std::int64_t o = 0; o < ow; ++o)
    cx[static_cast<std::size_t>(o)] = static_cast<float>(taps_inside(p, g, 2, o, p.count_include_pad));
  const std::int64_t taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  parallel_for(g.n * g.c_in, grain_for(g.out_plane() * taps), [&](std::int64_t lo, std::int64_t hi) {
    std::vector<float> seen_buf(static_cast<std::size_t>(ow));
    float* __restrict seen = seen_buf.data();
    for (std::int64_t plane = lo; plane < hi; ++plane) {
      const float* xs = x + plane * g.in_plane();
      // Without a NaN in the plane the max is a plain running max from the lowest value;
      // with one, the first real tap's value starts each output (as the walk does).
      bool nan = false;
      if constexpr (kMax) {
        int any = 0;
        for (std::int64_t i = 0; i < g.in_plane(); ++i) any |= xs[i] != xs[i] ? 1 : 0;
        nan = any != 0;
      }
      for (std::int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1) {
          float* __restrict out = y + plane * g.out_plane() + (o0 * g.out[1] + o1) * ow;
          std::fill(out, out + ow, kMax && !nan ? std::numeric_limits<float>::lowest() : 0.0f);
          if (kMax && nan) std::fill(seen, seen + ow, 0.0f);
          for (std::int64_t k0 = 0; k0 < p.kernel[0]; ++k0) {
            const std::int64_t i0 = tap_pos(p, 0, o0, k0);
            if (i0 < 0 || i0 >= g.in[0]) continue;
            for (std::int64_t k1 = 0; k1 < p.kernel[1]; ++k1) {
              const std::int64_t i1 = tap_pos(p, 1, o1, k1);
              if (i1 < 0 || i1 >= g.in[1]) continue;
              const float* row = xs + (i0 * g.in[1] + i1) * g.in[2];
              for (std::int64_t k2 = 0; k2 < p.kernel[2]; ++k2) {
                // Outputs ox with 0 <= ox * s + off < in.
                const std::int64_t s = p.stride[2], off = k2 * p.dilation[2] - p.pad_begin[2];
                const auto [first, last] = window_tap_outputs(g.in[2], ow, s, off);
                if (last == first) continue;
                const auto at = [&](std::int64_t i) { return s == 1 ? row[i + off] : row[i * s + off]; };
                if constexpr (kMax) {
                  if (!nan) {
                    for (std::int64_t i = first; i < last; ++i) {
                      const float v = at(i);
                      out[i] = v > out[i] ? v : out[i];
                    }
                    continue;
                  }
                  for (std::int64_t i = first; i < last; ++i) {
                    const float v = at(i);
                    const float m = v > out[i] ? v : out[i];
                    out[i] = seen[i] == 0.0f ? v : m;
                    seen[i] = 1.0f;
                  }
                } else {
                  for (std::int64_t i = first; i < last; ++i) out[i] += at(i);
                }
              }
            }
          }
          if constexpr (kMax) {
            if (nan)
              for (std::int64_t i = 0; i < ow; ++i) out[i] = seen[i] == 0.0f ? std::numeric_limits<float>::lowest() : out[i];
          } else {
            const float c01 = static_cast<float>(taps_inside(p, g, 0, o0, p.count_include_pad) *
                                                 taps_inside(p, g, 1, o1, p.count_include_pad));
            for (std::int64_t i = 0; i < ow; ++i) {
              const float div = c01 * cx[static_cast<std::size_t>(i)];
              out[i] = div > 0.0f ? out[i] / div : 0.0f;
            }
          }
        }
    }
  });
}

void check_window(std::string_view op, const WindowNd& p) {
  for (std::size_t a = 0; a < 3; ++a)
    if (p.kernel[a] < 1 || p.stride[a] < 1 || p.dilation[a] < 1 || p.pad_begin[a] < 0 || p.pad_end[a] < 0)
      fail(Errc::bad_attribute, op, "kernel, strides and dilations must be >= 1 and pads >= 0");
}

}  // namespace

void conv_nd(const WindowNd& p, const TensorView& x, const TensorView& w, const TensorView* b, const TensorView& y) {
  constexpr std::string_view op = "Conv";
  const Geometry g = geometry(op, x, y);
  WindowNd q = p;
  q.kernel = kernel_of(op, x, w);
  check_window(op, q);
  check_conv(op, q, g, w.dims[1], w.dims[0] / std::max<std::int64_t>(q.group, 1));
  if (w.dims[0] != g.c_out)
    fail(Errc::bad_op_inputs, op, "W " + bracketed(w.dims) + " must have Y's " + std::to_string(g.c_out) + " channels in dim 0");
  check_dtype(op, "W", w, x.dtype);
  check_dtype(op, "Y", y, x.dtype);
  check_bias(op, b, x.dtype, g.c_out);
  float_dispatch(op, x.dtype, [&](auto tag) {
    using T = decltype(tag);
    conv_typed<T>(q, g, q.kernel, x.as<const T>(), w.as<const T>(), b != nullptr ? b->as<const T>() : nullptr,
                  y.as<T>());
  });
}

PackedConvWeights pack_conv_nd(const WindowNd& p, const TensorView& w) {
  constexpr std::string_view op = "Conv";
  check_dtype(op, "W", w, DataType::f32);
  if (w.rank() < 3 || w.rank() > 5)
    fail(Errc::rank_mismatch, op, "W " + bracketed(w.dims) + " must have rank 3 to 5 (1 to 3 spatial dims)");
  std::array<std::int64_t, 3> k{1, 1, 1};
  const std::size_t sp = w.rank() - 2, off = 3 - sp;
  for (std::size_t i = 0; i < sp; ++i) k[off + i] = w.dims[2 + i];
  const std::int64_t dims[4] = {w.dims[0], w.dims[1], k[0] * k[1], k[2]};
  Conv2dParams q;
  q.group = p.group;
  return pack_conv_weights(q, TensorView{w.data, w.dtype, dims});
}

void conv_nd(const WindowNd& p, const TensorView& x, const PackedConvWeights& w, const TensorView* b,
             const TensorView& y) {
  constexpr std::string_view op = "Conv";
  const Geometry g = geometry(op, x, y);
  check_window(op, p);
  if (w.group != p.group || w.bf16 || w.winograd || w.pixel_major || w.direct || p.kernel[0] * p.kernel[1] != w.kh ||
      p.kernel[2] != w.kw)
    fail(Errc::bad_attribute, op, "the weights were packed for another kernel or group than the conv's");
  check_conv(op, p, g, w.cin_per_group, w.cout / std::max<std::int64_t>(p.group, 1));
  if (w.cout != g.c_out)
    fail(Errc::bad_op_inputs, op, "the weights have " + std::to_string(w.cout) + " output channels; Y " +
                                      bracketed(y.dims) + " has " + std::to_string(g.c_out));
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_bias(op, b, DataType::f32, g.c_out);
  const float* pb = b != nullptr ? b->as<const float>() : nullptr;
  if (y.elements() == 0) return;
  if (w.depthwise || w.cin_per_group == 0) {
    conv_typed<float>(p, g, p.kernel, x.as<const float>(), w.data.data(), pb, y.as<float>());
    return;
  }
  conv_nd_gemm_run(p, g.n, g.c_in, g.in, g.out, w, x.as<const float>(), pb, y.as<float>());
}

void conv_transpose_nd(const WindowNd& p, const TensorView& x, const TensorView& w, const TensorView* b,
                       const TensorView& y) {
  constexpr std::string_view op = "ConvTranspose";
  const Geometry g = geometry(op, x, y);
  WindowNd q = p;
  q.kernel = kernel_of(op, x, w);
  check_window(op, q);
  check_conv(op, q, g, w.dims[0] / std::max<std::int64_t>(q.group, 1), w.dims[1]);
  if (w.dims[0] != g.c_in)
    fail(Errc::bad_op_inputs, op, "W " + bracketed(w.dims) + " must have X's " + std::to_string(g.c_in) + " channels in dim 0");
  check_dtype(op, "W", w, x.dtype);
  check_dtype(op, "Y", y, x.dtype);
  check_bias(op, b, x.dtype, g.c_out);
  float_dispatch(op, x.dtype, [&](auto tag) {
    using T = decltype(tag);
    conv_transpose_typed<T>(q, g, q.kernel, x.as<const T>(), w.as<const T>(),
                            b != nullptr ? b->as<const T>() : nullptr, y.as<T>());
  });
}

void max_pool_nd(const WindowNd& p, const TensorView& x, const TensorView& y, const TensorView* indices) {
  constexpr std::string_view op = "MaxPool";
  const Geometry g = geometry(op, x, y);
  check_window(op, p);
  check_dtype(op, "Y", y, x.dtype);
  if (g.c_out != g.c_in) fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " must keep C of X " + bracketed(x.dims));
  if (indices != nullptr) {
    check_dtype(op, "Indices", *indices, DataType::i64);
    check_dims(op, "Indices", *indices, y.dims);
  }
  std::int64_t* idx = indices != nullptr ? indices->as<std::int64_t>() : nullptr;
  switch (x.dtype) {
    case DataType::f32:
      if (idx == nullptr) pool_rows_f32<true>(p, g, x.as<const float>(), y.as<float>());
      else max_pool_typed(p, g, x.as<const float>(), y.as<float>(), idx);
      break;
    case DataType::f64: max_pool_typed(p, g, x.as<const double>(), y.as<double>(), idx); break;
    case DataType::i8: max_pool_typed(p, g, x.as<const std::int8_t>(), y.as<std::int8_t>(), idx); break;
    case DataType::u8: max_pool_typed(p, g, x.as<const std::uint8_t>(), y.as<std::uint8_t>(), idx); break;
    default:
      fail(Errc::type_mismatch, op, "X is " + std::string(to_string(x.dtype)) + "; expected f32, f64, i8 or u8");
  }
}

void average_pool_nd(const WindowNd& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "AveragePool";
  const Geometry g = geometry(op, x, y);
  check_window(op, p);
  check_dtype(op, "Y", y, x.dtype);
  if (g.c_out != g.c_in) fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " must keep C of X " + bracketed(x.dims));
  float_dispatch(op, x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>) pool_rows_f32<false>(p, g, x.as<const float>(), y.as<float>());
    else average_pool_typed<T>(p, g, x.as<const T>(), y.as<T>());
  });
}

}  // namespace ge::cpu
