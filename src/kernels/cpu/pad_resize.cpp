// Pad and nearest Resize: a copy through per-axis index maps (-1 for "the constant"); linear
// Resize.
#include "kernels/cpu/data_movement.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/data_movement_internal.hpp"

namespace ge::cpu {

namespace {

template <class T>
void mapped_copy_typed(const TensorView& x, const TensorView& y, const std::vector<std::vector<std::int64_t>>& maps,
                       T value) {
  const std::size_t rank = x.rank();
  const std::vector<std::int64_t> xs = strides_of(x.dims);
  const std::int64_t inner = rank == 0 ? 1 : y.dims[rank - 1];
  const std::int64_t rows = rank == 0 ? 1 : product(y.dims, 0, rank - 1);
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  if (rank == 0) {
    py[0] = px[0];
    return;
  }
  const std::vector<std::int64_t>& last = maps[rank - 1];
  parallel_for(rows, grain_for(inner), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      std::int64_t rem = r;
      std::int64_t base = 0;
      bool constant = false;
      for (std::size_t d = rank - 1; d-- > 0;) {
        const std::int64_t i = rem % y.dims[d];
        rem /= y.dims[d];
        const std::int64_t m = maps[d][static_cast<std::size_t>(i)];
        if (m < 0) constant = true;
        base += m * xs[d];
      }
      T* out = py + r * inner;
      if (constant) {
        std::fill(out, out + inner, value);
        continue;
      }
      const T* in = px + base;
      for (std::int64_t j = 0; j < inner; ++j) {
        const std::int64_t m = last[static_cast<std::size_t>(j)];
        out[j] = m < 0 ? value : in[m];
      }
    }
  });
}

void mapped_copy(const TensorView& x, const TensorView& y, const std::vector<std::vector<std::int64_t>>& maps,
                 double value) {
  if (y.elements() == 0) return;
  with_type(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    using N = decltype(native(T{}));
    const T v = convert<T>(convert<N>(value));
    mapped_copy_typed<T>(x, y, maps, v);
  });
}

}  // namespace

void pad(const PadParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Pad";
  same_type(op, "X", x, "Y", y);
  check_data(op, "X", x);
  if (p.begin.size() != x.rank() || p.end.size() != x.rank()) {
    fail(Errc::bad_attribute, op, "pads need a begin and an end per axis of X " + dims_text(x.dims));
  }
  std::vector<std::int64_t> out(x.rank());
  for (std::size_t i = 0; i < x.rank(); ++i) out[i] = x.dims[i] + p.begin[i] + p.end[i];
  for (const std::int64_t d : out) {
    if (d < 0) fail(Errc::bad_op_inputs, op, "pads crop X " + dims_text(x.dims) + " below zero");
  }
  check_dims(op, "Y", y, out);
  std::vector<std::vector<std::int64_t>> maps(x.rank());
  for (std::size_t i = 0; i < x.rank(); ++i) {
    const std::int64_t n = x.dims[i];
    auto& m = maps[i];
    m.resize(static_cast<std::size_t>(out[i]));
    if (n == 0 && out[i] > 0 && p.mode != PadMode::constant) {
      fail(Errc::bad_op_inputs, op, "edge and reflect pads need a non-empty axis; X is " + dims_text(x.dims));
    }
    for (std::int64_t j = 0; j < out[i]; ++j) {
      std::int64_t s = j - p.begin[i];
      switch (p.mode) {
        case PadMode::constant: s = s >= 0 && s < n ? s : -1; break;
        case PadMode::edge: s = std::clamp<std::int64_t>(s, 0, n - 1); break;
        case PadMode::reflect:
          if (n == 1) {
            s = 0;
          } else {
            const std::int64_t period = 2 * (n - 1);
            s %= period;
            if (s < 0) s += period;
            if (s >= n) s = period - s;
          }
          break;
      }
      m[static_cast<std::size_t>(j)] = s;
    }
  }
  mapped_copy(x, y, maps, p.value);
}

namespace {

// The input coordinate of output index `o` along one axis.
double source_coord(ResizeCoord coord, std::int64_t o, double scale, std::int64_t in, std::int64_t out) {
  switch (coord) {
    case ResizeCoord::half_pixel: return (static_cast<double>(o) + 0.5) / scale - 0.5;
    case ResizeCoord::asymmetric: return static_cast<double>(o) / scale;
    case ResizeCoord::align_corners:
      return out == 1 ? 0.0 : static_cast<double>(o) * static_cast<double>(in - 1) / static_cast<double>(out - 1);
    case ResizeCoord::pytorch_half_pixel: return out > 1 ? (static_cast<double>(o) + 0.5) / scale - 0.5 : 0.0;
  }
  return 0.0;
}

std::int64_t round_nearest(ResizeNearest mode, double v) {
  switch (mode) {
    case ResizeNearest::round_prefer_floor: {
      const double f = std::floor(v);
      return static_cast<std::int64_t>(v - f == 0.5 ? f : std::round(v));
    }
    case ResizeNearest::round_prefer_ceil: return static_cast<std::int64_t>(std::round(v));
    case ResizeNearest::floor: return static_cast<std::int64_t>(std::floor(v));
    case ResizeNearest::ceil: return static_cast<std::int64_t>(std::ceil(v));
  }
  return 0;
}

}  // namespace

void resize(const ResizeParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Resize";
  same_type(op, "X", x, "Y", y);
  check_data(op, "X", x);
  check_rank(op, "Y", y, x.rank());
  const std::size_t rank = x.rank();
  if (!p.scales.empty() && p.scales.size() != rank) {
    fail(Errc::bad_attribute, op, "scales need one entry per axis of X " + dims_text(x.dims));
  }
  std::vector<double> scale(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    if (x.dims[i] == 0 && y.dims[i] != 0) fail(Errc::bad_op_inputs, op, "cannot resize an empty axis up");
    scale[i] = p.scales.empty() ? (x.dims[i] == 0 ? 1.0 : static_cast<double>(y.dims[i]) / static_cast<double>(x.dims[i]))
                                : static_cast<double>(p.scales[i]);
    if (!(scale[i] > 0.0)) fail(Errc::bad_attribute, op, "scales must be > 0");
  }
  if (y.elements() == 0) return;
  if (p.mode == ResizeMode::nearest) {
    std::vector<std::vector<std::int64_t>> maps(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      maps[i].resize(static_cast<std::size_t>(y.dims[i]));
      for (std::int64_t o = 0; o < y.dims[i]; ++o) {
        const double c = std::clamp(source_coord(p.coord, o, scale[i], x.dims[i], y.dims[i]), -1.0,
                                    static_cast<double>(x.dims[i]));
        maps[i][static_cast<std::size_t>(o)] = std::clamp<std::int64_t>(round_nearest(p.nearest, c), 0, x.dims[i] - 1);
      }
    }
    mapped_copy(x, y, maps, 0.0);
    return;
  }
  if (x.dtype != DataType::f32) {
    fail(Errc::unsupported, op, "linear mode needs 'f32'; X is " + type_text(x.dtype));
  }
  if (rank < 2) fail(Errc::unsupported, op, "linear mode needs rank >= 2; X is " + dims_text(x.dims));
  for (std::size_t i = 0; i + 2 < rank; ++i) {
    if (x.dims[i] != y.dims[i]) {
      fail(Errc::unsupported, op,
           "linear mode resizes only the last two axes; X " + dims_text(x.dims) + ", Y " + dims_text(y.dims));
    }
  }
  // Per output row / column: the two source indices and the weight of the second.
  struct Lerp {
    std::int64_t i0, i1;
    float w;
  };
  const auto lerps = [&](std::size_t axis) {
    std::vector<Lerp> v(static_cast<std::size_t>(y.dims[axis]));
    const std::int64_t in = x.dims[axis];
    for (std::int64_t o = 0; o < y.dims[axis]; ++o) {
      double c = source_coord(p.coord, o, scale[axis], in, y.dims[axis]);
      c = std::clamp(c, 0.0, static_cast<double>(in - 1));
      const auto i0 = static_cast<std::int64_t>(std::floor(c));
      const std::int64_t i1 = std::min(i0 + 1, in - 1);
      v[static_cast<std::size_t>(o)] = {i0, i1, static_cast<float>(c - static_cast<double>(i0))};
    }
    return v;
  };
  const std::vector<Lerp> lh = lerps(rank - 2), lw = lerps(rank - 1);
  const std::int64_t planes = product(x.dims, 0, rank - 2);
  const std::int64_t h = x.dims[rank - 2], w = x.dims[rank - 1];
  const std::int64_t oh = y.dims[rank - 2], ow = y.dims[rank - 1];
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  parallel_for(planes, grain_for(oh * ow * 4), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) {
      const float* in = px + pc * h * w;
      float* out = py + pc * oh * ow;
      for (std::int64_t oy = 0; oy < oh; ++oy) {
        const Lerp& ly = lh[static_cast<std::size_t>(oy)];
        const float* r0 = in + ly.i0 * w;
        const float* r1 = in + ly.i1 * w;
        for (std::int64_t ox = 0; ox < ow; ++ox) {
          const Lerp& lx = lw[static_cast<std::size_t>(ox)];
          const float top = r0[lx.i0] + (r0[lx.i1] - r0[lx.i0]) * lx.w;
          const float bot = r1[lx.i0] + (r1[lx.i1] - r1[lx.i0]) * lx.w;
          out[oy * ow + ox] = top + (bot - top) * ly.w;
        }
      }
    }
  });
}

}  // namespace ge::cpu
