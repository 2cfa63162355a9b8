// RoiAlign and GridSample (detection.hpp): each output element from a fixed number of
// bilinear (or bicubic) reads of its input plane.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cpu/nn/detection.hpp"

namespace ge::cpu {

namespace {

// RoiAlign's bilinear sample at (yy, xx) of an h x w plane: 0 outside [-1, h] x [-1, w],
// else the four corners (clamped at the far edge) and their weights.
struct Sample {
  std::int64_t at[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};

Sample roi_sample(double yy, double xx, std::int64_t h, std::int64_t w) {
  Sample s;
  if (yy < -1.0 || yy > static_cast<double>(h) || xx < -1.0 || xx > static_cast<double>(w)) return s;
  yy = std::max(yy, 0.0), xx = std::max(xx, 0.0);
  auto y0 = static_cast<std::int64_t>(yy), x0 = static_cast<std::int64_t>(xx);
  std::int64_t y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) y0 = y1 = h - 1, yy = static_cast<double>(y0);
  if (x0 >= w - 1) x0 = x1 = w - 1, xx = static_cast<double>(x0);
  const double ly = yy - static_cast<double>(y0), lx = xx - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
  s.at[0] = y0 * w + x0, s.at[1] = y0 * w + x1, s.at[2] = y1 * w + x0, s.at[3] = y1 * w + x1;
  s.w[0] = static_cast<float>(hy * hx), s.w[1] = static_cast<float>(hy * lx), s.w[2] = static_cast<float>(ly * hx);
  s.w[3] = static_cast<float>(ly * lx);
  return s;
}

}  // namespace

void roi_align(const RoiAlignParams& p, const TensorView& x, const TensorView& rois, const TensorView& batch_indices,
               const TensorView& y) {
  constexpr std::string_view op = "RoiAlign";
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "rois", rois, DataType::f32);
  check_dtype(op, "batch_indices", batch_indices, DataType::i64);
  if (x.rank() != 4 || rois.rank() != 2 || rois.dims[1] != 4 || batch_indices.rank() != 1 ||
      batch_indices.dims[0] != rois.dims[0] || y.rank() != 4 || y.dims[0] != rois.dims[0] || y.dims[1] != x.dims[1])
    fail(Errc::bad_op_inputs, op, "X " + bracketed(x.dims) + ", rois " + bracketed(rois.dims) + ", batch_indices " +
                                      bracketed(batch_indices.dims) + "; expected [N,C,H,W], [R,4], [R]");
  const std::int64_t c = x.dims[1], h = x.dims[2], w = x.dims[3], oh = y.dims[2], ow = y.dims[3];
  const double off = p.half_pixel ? 0.5 : 0.0;
  for (std::int64_t r = 0; r < rois.dims[0]; ++r) {
    const std::int64_t n = batch_indices.as<const std::int64_t>()[r];
    if (n < 0 || n >= x.dims[0])
      fail(Errc::bad_op_inputs, op, "batch index " + std::to_string(n) + " is outside X's batch of " +
                                        std::to_string(x.dims[0]));
  }
  // The boxes over the threads: each writes its own outputs, with the same arithmetic.
  parallel_for(rois.dims[0], 1, [&](std::int64_t r0, std::int64_t r1) {
    std::vector<Sample> samples;
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t n = batch_indices.as<const std::int64_t>()[r];
      const float* b = rois.as<const float>() + r * 4;
      const double x1 = b[0] * p.spatial_scale - off, y1 = b[1] * p.spatial_scale - off;
      double rw = b[2] * p.spatial_scale - off - x1, rh = b[3] * p.spatial_scale - off - y1;
      if (!p.half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
      const double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
      const std::int64_t gh = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<std::int64_t>(std::ceil(rh / static_cast<double>(oh)));
      const std::int64_t gw = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<std::int64_t>(std::ceil(rw / static_cast<double>(ow)));
      const double count = static_cast<double>(std::max<std::int64_t>(gh * gw, 1));
      for (std::int64_t ph = 0; ph < oh; ++ph)
        for (std::int64_t pw = 0; pw < ow; ++pw) {
          samples.clear();
          for (std::int64_t iy = 0; iy < gh; ++iy)
            for (std::int64_t ix = 0; ix < gw; ++ix)
              samples.push_back(roi_sample(y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh),
                                           x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw), h, w));
          for (std::int64_t ch = 0; ch < c; ++ch) {
            const float* plane = x.as<const float>() + (n * c + ch) * h * w;
            double acc = 0;
            bool first = true;
            for (const Sample& s : samples) {
              if (p.max) {
                float m = s.w[0] * plane[s.at[0]];
                for (int k = 1; k < 4; ++k) m = std::max(m, s.w[k] * plane[s.at[k]]);
                acc = first ? m : std::max(acc, static_cast<double>(m));
                first = false;
              } else {
                for (int k = 0; k < 4; ++k) acc += static_cast<double>(s.w[k]) * plane[s.at[k]];
              }
            }
            y.as<float>()[((r * c + ch) * oh + ph) * ow + pw] = static_cast<float>(p.max ? acc : acc / count);
          }
        }
    }
  });
}

namespace {

// PyTorch's grid_sample coordinate rules.
double unnormalize(double v, std::int64_t size, bool align) {
  return align ? (v + 1) / 2 * static_cast<double>(size - 1) : ((v + 1) * static_cast<double>(size) - 1) / 2;
}

double reflect(double v, double twice_lo, double twice_hi) {
  if (twice_lo == twice_hi) return 0;
  const double lo = twice_lo / 2, span = (twice_hi - twice_lo) / 2;
  v = std::fabs(v - lo);
  const double extra = std::fmod(v, span);
  const auto flips = static_cast<std::int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

double pad_coord(double v, std::int64_t size, GridPadding pad, bool align) {
  const double hi = static_cast<double>(size - 1);
  if (pad == GridPadding::border) return std::clamp(v, 0.0, hi);
  if (pad == GridPadding::reflection) {
    v = align ? reflect(v, 0, 2 * hi) : reflect(v, -1, 2 * static_cast<double>(size) - 1);
    return std::clamp(v, 0.0, hi);
  }
  return v;
}

double cubic(double t, int k) {
  constexpr double A = -0.75;
  const double d = k == 0 ? t + 1 : k == 1 ? t : k == 2 ? 1 - t : 2 - t;
  if (k == 1 || k == 2) return ((A + 2) * d - (A + 3)) * d * d + 1;
  return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
}

}  // namespace

void grid_sample(GridMode mode, GridPadding padding, bool align, const TensorView& x, const TensorView& grid,
                 const TensorView& y) {
  constexpr std::string_view op = "GridSample";
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "grid", grid, DataType::f32);
  if (x.rank() != 4 || grid.rank() != 4 || grid.dims[3] != 2 || grid.dims[0] != x.dims[0])
    fail(Errc::unsupported, op, "X " + bracketed(x.dims) + ", grid " + bracketed(grid.dims) +
                                    "; ge samples 2-D images: [N,C,H,W] and [N,HO,WO,2]");
  const std::int64_t n = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3], oh = grid.dims[1], ow = grid.dims[2];
  const std::int64_t want[4] = {n, c, oh, ow};
  check_dims(op, "Y", y, want);
  // The value at integer (yy, xx): 0 outside the plane.
  const auto at = [&](const float* plane, std::int64_t yy, std::int64_t xx) {
    return yy >= 0 && yy < h && xx >= 0 && xx < w ? static_cast<double>(plane[yy * w + xx]) : 0.0;
  };
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t q = 0; q < oh * ow; ++q) {
      const float* g = grid.as<const float>() + (b * oh * ow + q) * 2;
      double ix = unnormalize(g[0], w, align), iy = unnormalize(g[1], h, align);
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const float* plane = x.as<const float>() + (b * c + ch) * h * w;
        double v = 0;
        if (mode == GridMode::bicubic) {
          const double fx = std::floor(ix), fy = std::floor(iy);
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
              const double px = pad_coord(fx - 1 + j, w, padding, align), py = pad_coord(fy - 1 + i, h, padding, align);
              v += cubic(iy - fy, i) * cubic(ix - fx, j) *
                   at(plane, static_cast<std::int64_t>(std::floor(py)), static_cast<std::int64_t>(std::floor(px)));
            }
        } else {
          const double px = pad_coord(ix, w, padding, align), py = pad_coord(iy, h, padding, align);
          if (mode == GridMode::nearest) {
            v = at(plane, static_cast<std::int64_t>(std::nearbyint(py)), static_cast<std::int64_t>(std::nearbyint(px)));
          } else {
            const double x0 = std::floor(px), y0 = std::floor(py), lx = px - x0, ly = py - y0;
            const auto xi = static_cast<std::int64_t>(x0), yi = static_cast<std::int64_t>(y0);
            v = (1 - ly) * ((1 - lx) * at(plane, yi, xi) + lx * at(plane, yi, xi + 1)) +
                ly * ((1 - lx) * at(plane, yi + 1, xi) + lx * at(plane, yi + 1, xi + 1));
          }
        }
        y.as<float>()[((b * c + ch) * oh) * ow + q] = static_cast<float>(v);
      }
    }
}

}  // namespace ge::cpu
