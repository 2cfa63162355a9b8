// Resize: nearest as a copy through per-axis index maps (pad_resize.cpp's mapped_copy);
// linear and cubic over the last two axes of f32 (an image resize) in f32, each output row
// a weighted sum of input rows interpolated along W once per thread (`resize_planes`), or
// over the two before the last (a channels-last image) by pixels (`resize_channels_last`);
// other linear and cubic resizes as one pass per axis that changes (the interpolation is separable), each
// output element a weighted sum of 2 or 4 taps of the previous pass, in double. ONNX's
// rules: a coordinate that lands on an input index takes it whole (ratio 1 from the index
// below), taps beyond the ends repeat the edge (or, with exclude_outside, weigh 0 and the
// rest are renormalised), tf_crop_and_resize gives `extrapolation` outside its box.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {

namespace {

// One axis: its extents, scale, and (tf_crop_and_resize) its box.
struct Axis {
  std::int64_t in = 0, out = 0;
  double scale = 1, roi_start = 0, roi_end = 1;
  bool scales_given = false;
};

// The input coordinate of output index `o`; `outside` set where tf_crop_and_resize leaves
// the input.
double source_coord(ResizeCoord coord, const Axis& a, std::int64_t o, bool& outside) {
  const auto x = static_cast<double>(o);
  // The output length as ONNX reads it: in * scale, unfloored, when scales are given.
  const double len = a.scales_given ? static_cast<double>(a.in) * a.scale : static_cast<double>(a.out);
  outside = false;
  switch (coord) {
    case ResizeCoord::half_pixel: return (x + 0.5) / a.scale - 0.5;
    case ResizeCoord::asymmetric: return x / a.scale;
    case ResizeCoord::align_corners: return len == 1 ? 0.0 : x * static_cast<double>(a.in - 1) / (len - 1);
    case ResizeCoord::pytorch_half_pixel: return len > 1 ? (x + 0.5) / a.scale - 0.5 : 0.0;
    case ResizeCoord::tf_half_pixel_for_nn: return (x + 0.5) / a.scale;
    case ResizeCoord::tf_crop_and_resize: {
      const double span = (a.roi_end - a.roi_start) * static_cast<double>(a.in - 1);
      const double c = (a.out == 1 ? span / 2 : x * span / static_cast<double>(a.out - 1)) +
                       a.roi_start * static_cast<double>(a.in - 1);
      outside = c < 0 || c > static_cast<double>(a.in - 1);
      return c;
    }
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

// The taps of one output index: input indices (clamped) and weights; none when outside.
struct Taps {
  std::int64_t idx[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
  bool outside = false;
};

Taps taps_of(const ResizeParams& p, const Axis& a, std::int64_t o) {
  Taps t;
  const double c = source_coord(p.coord, a, o, t.outside);
  if (t.outside) return t;
  // The index below c, or c - 1 when c is an index (ratio 1 then).
  const double fl = std::floor(c);
  const auto base = static_cast<std::int64_t>(fl == c ? c - 1 : fl);
  const double r = c - static_cast<double>(base);
  const int n = p.mode == ResizeMode::cubic ? 4 : 2;
  const std::int64_t first = n == 4 ? base - 1 : base;
  if (n == 2) {
    t.w[0] = 1 - r, t.w[1] = r;
  } else {
    const double A = p.cubic_a, s = r + 1, u = 1 - r, v = 2 - r;
    t.w[0] = ((A * s - 5 * A) * s + 8 * A) * s - 4 * A;
    t.w[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    t.w[2] = ((A + 2) * u - (A + 3)) * u * u + 1;
    t.w[3] = ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
  }
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    const std::int64_t i = first + k;
    if (p.exclude_outside && (i < 0 || i >= a.in)) t.w[k] = 0;
    sum += t.w[k];
    t.idx[k] = std::clamp<std::int64_t>(i, 0, a.in - 1);
  }
  if (p.exclude_outside && sum != 0)
    for (int k = 0; k < n; ++k) t.w[k] /= sum;
  return t;
}

// One pass along `axis`: src of dims `dims` into dst with dims[axis] = a.out.
void pass(const ResizeParams& p, const Axis& a, std::size_t axis, const std::vector<std::int64_t>& dims,
          const std::vector<double>& src, std::vector<double>& dst) {
  const std::int64_t outer = product(dims, 0, axis), inner = product(dims, axis + 1, dims.size());
  const int n = p.mode == ResizeMode::cubic ? 4 : 2;
  std::vector<Taps> taps(static_cast<std::size_t>(a.out));
  for (std::int64_t o = 0; o < a.out; ++o) taps[static_cast<std::size_t>(o)] = taps_of(p, a, o);
  dst.assign(static_cast<std::size_t>(outer * a.out * inner), 0.0);
  parallel_for(outer, grain_for(a.out * inner * n), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t q = b; q < e; ++q) {
      const double* s = src.data() + q * a.in * inner;
      double* d = dst.data() + q * a.out * inner;
      for (std::int64_t o = 0; o < a.out; ++o) {
        const Taps& t = taps[static_cast<std::size_t>(o)];
        double* row = d + o * inner;
        if (t.outside) {
          std::fill(row, row + inner, static_cast<double>(p.extrapolation));
          continue;
        }
        for (int k = 0; k < n; ++k) {
          const double* in = s + t.idx[k] * inner;
          const double w = t.w[k];
          for (std::int64_t j = 0; j < inner; ++j) row[j] += w * in[j];
        }
      }
    }
  });
}

// The taps of every output index of one axis in f32, zero weights dropped (an axis the
// resize leaves alone: one tap of weight 1).
struct AxisTaps {
  std::vector<std::int64_t> idx;  // 4 per output index
  std::vector<float> w;
  std::vector<std::uint8_t> count;
  std::vector<std::uint8_t> outside;
};

AxisTaps axis_taps(const ResizeParams& p, const Axis& a, bool identity) {
  AxisTaps t;
  const auto out = static_cast<std::size_t>(a.out);
  t.idx.assign(4 * out, 0), t.w.assign(4 * out, 0.0f), t.count.assign(out, 0), t.outside.assign(out, 0);
  const int n = p.mode == ResizeMode::cubic ? 4 : 2;
  for (std::size_t o = 0; o < out; ++o) {
    if (identity) {
      t.idx[4 * o] = static_cast<std::int64_t>(o), t.w[4 * o] = 1.0f, t.count[o] = 1;
      continue;
    }
    const Taps taps = taps_of(p, a, static_cast<std::int64_t>(o));
    t.outside[o] = taps.outside ? 1 : 0;
    for (int k = 0; k < n && !taps.outside; ++k) {
      if (taps.w[k] == 0.0) continue;
      t.idx[4 * o + t.count[o]] = taps.idx[k];
      t.w[4 * o + t.count[o]] = static_cast<float>(taps.w[k]);
      ++t.count[o];
    }
  }
  return t;
}

// The taps of axes h and h + 1 of an f32 resize that leaves every other axis alone (the two
// an image resize changes: H and W of NCHW or of NHWC), or nullopt.
struct ImageTaps {
  AxisTaps h, w;
};

std::optional<ImageTaps> image_taps(const ResizeParams& p, const std::vector<Axis>& axes, bool moves,
                                    const TensorView& x, std::size_t h) {
  if (x.dtype != DataType::f32 || axes[h].in == 0 || axes[h + 1].in == 0) return std::nullopt;
  const auto identity = [&](std::size_t i) { return axes[i].in == axes[i].out && axes[i].scale == 1.0 && !moves; };
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (i != h && i != h + 1 && !identity(i)) return std::nullopt;
  return ImageTaps{axis_taps(p, axes[h], identity(h)), axis_taps(p, axes[h + 1], identity(h + 1))};
}

// The interpolated rows of one thread: the last few input rows interpolated along W, by
// (plane, row), so that the output rows of an upsampling reuse them.
class RowCache {
 public:
  explicit RowCache(std::int64_t width) {
    for (Slot& s : slots_) s.row.resize(static_cast<std::size_t>(width));
  }
  const float* get(std::int64_t plane, std::int64_t row, const float* x_plane, std::int64_t in_w, const AxisTaps& wt) {
    Slot* victim = &slots_[0];
    for (Slot& s : slots_) {
      if (s.plane == plane && s.index == row) {
        s.used = ++clock_;
        return s.row.data();
      }
      if (s.used < victim->used) victim = &s;
    }
    const float* in = x_plane + row * in_w;
    float* r = victim->row.data();
    for (std::size_t o = 0; o < victim->row.size(); ++o) {
      const std::int64_t* i = &wt.idx[4 * o];
      const float* w = &wt.w[4 * o];
      float v = 0.0f;
      for (int k = 0; k < wt.count[o]; ++k) v += w[k] * in[i[k]];
      r[o] = v;
    }
    victim->plane = plane, victim->index = row, victim->used = ++clock_;
    return r;
  }

 private:
  struct Slot {
    std::int64_t plane = -1, index = -1;
    std::uint64_t used = 0;
    std::vector<float> row;
  };
  Slot slots_[8];
  std::uint64_t clock_ = 0;
};

// Linear and cubic f32 over the last two axes only (the leading ones unchanged: an image
// resize of NCHW): per output row, the weighted sum of 2 or 4 input rows already
// interpolated along W (`RowCache`), in f32. False when the resize is not of that form.
bool resize_planes(const ResizeParams& p, const std::vector<Axis>& axes, bool moves, const TensorView& x,
                   const TensorView& y) {
  const std::size_t rank = x.rank();
  const auto taps = rank < 2 ? std::nullopt : image_taps(p, axes, moves, x, rank - 2);
  if (!taps) return false;
  const Axis& ah = axes[rank - 2];
  const Axis& aw = axes[rank - 1];
  const AxisTaps &th = taps->h, &tw = taps->w;
  const std::int64_t planes = product(x.dims, 0, rank - 2);
  const float* xs = x.as<const float>();
  float* ys = y.as<float>();
  const float fill = p.extrapolation;
  parallel_for(planes * ah.out, grain_for(aw.out * 4), [&](std::int64_t b, std::int64_t e) {
    RowCache cache(aw.out);
    for (std::int64_t q = b; q < e; ++q) {
      const std::int64_t plane = q / ah.out;
      const auto oh = static_cast<std::size_t>(q % ah.out);
      float* out = ys + q * aw.out;
      if (th.outside[oh] != 0) {
        std::fill(out, out + aw.out, fill);
        continue;
      }
      const float* x_plane = xs + plane * ah.in * aw.in;
      const float* r0 = cache.get(plane, th.idx[4 * oh], x_plane, aw.in, tw);
      const float w0 = th.w[4 * oh];
      for (std::int64_t j = 0; j < aw.out; ++j) out[j] = w0 * r0[j];
      for (int k = 1; k < th.count[oh]; ++k) {
        const float* r = cache.get(plane, th.idx[4 * oh + static_cast<std::size_t>(k)], x_plane, aw.in, tw);
        const float w = th.w[4 * oh + static_cast<std::size_t>(k)];
        for (std::int64_t j = 0; j < aw.out; ++j) out[j] += w * r[j];
      }
      for (std::int64_t j = 0; j < aw.out; ++j)
        if (tw.outside[static_cast<std::size_t>(j)] != 0) out[j] = fill;
    }
  });
  return true;
}

// Linear and cubic f32 over the two axes before the last, the last and the leading ones
// unchanged (an image resize of NHWC: the layout pass's): each output pixel the weighted
// sum of 2x2 (4x4) input pixels, along their channels. False when not of that form.
bool resize_channels_last(const ResizeParams& p, const std::vector<Axis>& axes, bool moves, const TensorView& x,
                          const TensorView& y) {
  const std::size_t rank = x.rank();
  const auto taps = rank < 3 ? std::nullopt : image_taps(p, axes, moves, x, rank - 3);
  if (!taps) return false;
  const Axis& ah = axes[rank - 3];
  const Axis& aw = axes[rank - 2];
  const AxisTaps &th = taps->h, &tw = taps->w;
  const std::int64_t c = x.dims[rank - 1], images = product(x.dims, 0, rank - 3);
  const float* xs = x.as<const float>();
  float* ys = y.as<float>();
  const float fill = p.extrapolation;
  parallel_for(images * ah.out, grain_for(aw.out * c * 4), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t q = b; q < e; ++q) {
      const auto oh = static_cast<std::size_t>(q % ah.out);
      float* out = ys + q * aw.out * c;
      const float* image = xs + q / ah.out * ah.in * aw.in * c;
      for (std::int64_t ow = 0; ow < aw.out; ++ow) {
        float* o = out + ow * c;
        const auto wo = static_cast<std::size_t>(ow);
        if (th.outside[oh] != 0 || tw.outside[wo] != 0) {
          std::fill(o, o + c, fill);
          continue;
        }
        std::fill(o, o + c, 0.0f);
        for (int kh = 0; kh < th.count[oh]; ++kh) {
          const float* row = image + th.idx[4 * oh + static_cast<std::size_t>(kh)] * aw.in * c;
          const float wh = th.w[4 * oh + static_cast<std::size_t>(kh)];
          for (int kw = 0; kw < tw.count[wo]; ++kw) {
            const float* px = row + tw.idx[4 * wo + static_cast<std::size_t>(kw)] * c;
            const float wt = wh * tw.w[4 * wo + static_cast<std::size_t>(kw)];
            for (std::int64_t j = 0; j < c; ++j) o[j] += wt * px[j];
          }
        }
      }
    }
  });
  return true;
}

}  // namespace

void resize(const ResizeParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Resize";
  same_type(op, "X", x, "Y", y);
  check_data(op, "X", x);
  check_rank(op, "Y", y, x.rank());
  const std::size_t rank = x.rank();
  if (!p.scales.empty() && p.scales.size() != rank)
    fail(Errc::bad_attribute, op, "scales need one entry per axis of X " + bracketed(x.dims));
  if (!p.roi.empty() && p.roi.size() != 2 * rank)
    fail(Errc::bad_attribute, op, "roi needs a start and an end per axis of X " + bracketed(x.dims));
  std::vector<Axis> axes(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    Axis& a = axes[i];
    a.in = x.dims[i], a.out = y.dims[i], a.scales_given = !p.scales.empty();
    if (a.in == 0 && a.out != 0) fail(Errc::bad_op_inputs, op, "cannot resize an empty axis up");
    a.scale = a.scales_given ? static_cast<double>(p.scales[i])
                             : (a.in == 0 ? 1.0 : static_cast<double>(a.out) / static_cast<double>(a.in));
    if (!(a.scale > 0.0)) fail(Errc::bad_attribute, op, "scales must be > 0");
    if (!p.roi.empty()) a.roi_start = p.roi[i], a.roi_end = p.roi[i + rank];
  }
  if (y.elements() == 0) return;
  if (p.mode == ResizeMode::nearest) {
    std::vector<std::vector<std::int64_t>> maps(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      maps[i].resize(static_cast<std::size_t>(y.dims[i]));
      for (std::int64_t o = 0; o < y.dims[i]; ++o) {
        bool outside = false;
        const double c = std::clamp(source_coord(p.coord, axes[i], o, outside), -1.0, static_cast<double>(x.dims[i]));
        maps[i][static_cast<std::size_t>(o)] =
            outside ? -1 : std::clamp<std::int64_t>(round_nearest(p.nearest, c), 0, x.dims[i] - 1);
      }
    }
    mapped_copy(x, y, maps, p.extrapolation);
    return;
  }
  if (x.dtype != DataType::f32)
    fail(Errc::unsupported, op, "linear and cubic modes need 'f32'; X is " + type_text(x.dtype));
  const bool moves = p.coord == ResizeCoord::tf_crop_and_resize || p.coord == ResizeCoord::tf_half_pixel_for_nn;
  if (resize_planes(p, axes, moves, x, y) || resize_channels_last(p, axes, moves, x, y)) return;
  std::vector<std::int64_t> dims(x.dims.begin(), x.dims.end());
  std::vector<double> cur(static_cast<std::size_t>(x.elements())), next;
  std::copy(x.as<const float>(), x.as<const float>() + x.elements(), cur.begin());
  for (std::size_t i = 0; i < rank; ++i) {
    if (axes[i].in == axes[i].out && axes[i].scale == 1.0 && !moves) continue;  // the identity
    pass(p, axes[i], i, dims, cur, next);
    dims[i] = axes[i].out;
    cur.swap(next);
  }
  std::transform(cur.begin(), cur.end(), y.as<float>(), [](double v) { return static_cast<float>(v); });
}

}  // namespace ge::cpu
