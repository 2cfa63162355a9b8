// The reference's NonMaxSuppression, RoiAlign and GridSample, each output from its
// definition with no precomputed tables.
#include <algorithm>
#include <cmath>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

double scalar(const Ctx& c, std::size_t k, double none) { return c.has_input(k) ? get_f(c.in(k), 0) : none; }

// Box i of batch b as sorted corners (y1, x1, y2, x2).
std::vector<double> corners(const Ctx& c, std::int64_t b, std::int64_t i) {
  const RefTensor& boxes = c.in(0);
  const std::int64_t at = (b * boxes.dims[1] + i) * 4;
  std::vector<double> v{get_f(boxes, at), get_f(boxes, at + 1), get_f(boxes, at + 2), get_f(boxes, at + 3)};
  if (c.i("center_point_box", 0) != 0) return {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
  return {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
}

double iou(const std::vector<double>& a, const std::vector<double>& b) {
  const double aa = (a[2] - a[0]) * (a[3] - a[1]), ab = (b[2] - b[0]) * (b[3] - b[1]);
  if (aa <= 0 || ab <= 0) return 0;
  const double inter = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0])) *
                       std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  return inter / (aa + ab - inter);
}

Outs nms(const Ctx& c) {
  const RefTensor& scores = c.in(1);
  const std::int64_t nb = scores.dims[0], nc = scores.dims[1], n = scores.dims[2];
  const auto most = static_cast<std::int64_t>(scalar(c, 2, 0));
  const double iou_t = scalar(c, 3, 0);
  Dims rows;
  for (std::int64_t b = 0; b < nb; ++b)
    for (std::int64_t k = 0; k < nc; ++k) {
      const auto s = [&](std::int64_t i) { return get_f(scores, (b * nc + k) * n + i); };
      std::vector<bool> used(static_cast<std::size_t>(n), false);
      Dims kept;
      // Repeatedly the best remaining candidate (lowest index on ties) that no kept box covers.
      while (static_cast<std::int64_t>(kept.size()) < most) {
        std::int64_t best = -1;
        for (std::int64_t i = 0; i < n; ++i) {
          if (used[static_cast<std::size_t>(i)] || (c.has_input(4) && !(s(i) > scalar(c, 4, 0)))) continue;
          if (best < 0 || s(i) > s(best)) best = i;
        }
        if (best < 0) break;
        used[static_cast<std::size_t>(best)] = true;
        bool covered = false;
        for (const std::int64_t k2 : kept) covered = covered || iou(corners(c, b, k2), corners(c, b, best)) > iou_t;
        if (covered) continue;
        kept.push_back(best);
        rows.insert(rows.end(), {b, k, best});
      }
    }
  return {RefTensor::of<std::int64_t>({static_cast<std::int64_t>(rows.size() / 3), 3}, rows)};
}

// RoiAlign's bilinear read at (y, x); out-of-range samples give 0. `max_mode`: the largest
// weighted corner.
double roi_read(const RefTensor& x, std::int64_t plane, double y, double xx, bool max_mode) {
  const std::int64_t h = x.dims[2], w = x.dims[3];
  if (y < -1 || y > static_cast<double>(h) || xx < -1 || xx > static_cast<double>(w)) return 0;
  y = std::max(y, 0.0), xx = std::max(xx, 0.0);
  const auto y0 = std::min(static_cast<std::int64_t>(y), h - 1), x0 = std::min(static_cast<std::int64_t>(xx), w - 1);
  const std::int64_t y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
  if (static_cast<double>(y0) >= static_cast<double>(h - 1)) y = static_cast<double>(y0);
  if (static_cast<double>(x0) >= static_cast<double>(w - 1)) xx = static_cast<double>(x0);
  const double ly = y - static_cast<double>(y0), lx = xx - static_cast<double>(x0);
  const auto v = [&](std::int64_t a, std::int64_t b) { return get_f(x, plane * h * w + a * w + b); };
  const double t[4] = {(1 - ly) * (1 - lx) * v(y0, x0), (1 - ly) * lx * v(y0, x1), ly * (1 - lx) * v(y1, x0), ly * lx * v(y1, x1)};
  return max_mode ? std::max({t[0], t[1], t[2], t[3]}) : t[0] + t[1] + t[2] + t[3];
}

Outs roi_align(const Ctx& c) {
  const RefTensor &x = c.in(0), &rois = c.in(1), &idx = c.in(2);
  const std::int64_t nr = rois.dims[0], ch = x.dims[1], oh = c.i("output_height", 1), ow = c.i("output_width", 1);
  const bool half = c.s("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  const bool max_mode = c.s("mode", "avg") == "max";
  const double scale = c.f("spatial_scale", 1.0), off = half ? 0.5 : 0.0;
  const std::int64_t ratio = c.i("sampling_ratio", 0);
  RefTensor y(DataType::f32, {nr, ch, oh, ow});
  for (std::int64_t t = 0; t < y.elements(); ++t) {
    const std::int64_t r = t / (ch * oh * ow), k = (t / (oh * ow)) % ch, ph = (t / ow) % oh, pw = t % ow;
    const double x1 = get_f(rois, r * 4) * scale - off, y1 = get_f(rois, r * 4 + 1) * scale - off;
    double rw = get_f(rois, r * 4 + 2) * scale - off - x1, rh = get_f(rois, r * 4 + 3) * scale - off - y1;
    if (!half) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    const double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
    const auto gh = ratio > 0 ? ratio : static_cast<std::int64_t>(std::ceil(bh));
    const auto gw = ratio > 0 ? ratio : static_cast<std::int64_t>(std::ceil(bw));
    const std::int64_t plane = get_i(idx, r) * ch + k;
    double acc = 0;
    for (std::int64_t iy = 0; iy < gh; ++iy)
      for (std::int64_t ix = 0; ix < gw; ++ix) {
        const double v = roi_read(x, plane, y1 + (static_cast<double>(ph) + (static_cast<double>(iy) + 0.5) / static_cast<double>(gh)) * bh,
                                  x1 + (static_cast<double>(pw) + (static_cast<double>(ix) + 0.5) / static_cast<double>(gw)) * bw, max_mode);
        acc = max_mode ? (iy == 0 && ix == 0 ? v : std::max(acc, v)) : acc + v;
      }
    set_f(y, t, max_mode ? acc : acc / static_cast<double>(std::max<std::int64_t>(gh * gw, 1)));
  }
  return {y};
}

// GridSample: a padded integer coordinate (or -1 when zeros padding leaves the image).
double grid_pad(double v, std::int64_t size, const std::string& pad, bool align) {
  const double hi = static_cast<double>(size - 1);
  if (pad == "border") return std::clamp(v, 0.0, hi);
  if (pad == "reflection") {
    const double lo2 = align ? 0 : -1, hi2 = align ? 2 * hi : 2 * static_cast<double>(size) - 1;
    if (lo2 == hi2) return 0;
    const double span = (hi2 - lo2) / 2;
    double d = std::fabs(v - lo2 / 2);
    const double m = std::fmod(d, span);
    d = static_cast<std::int64_t>(std::floor(d / span)) % 2 == 0 ? m + lo2 / 2 : span - m + lo2 / 2;
    return std::clamp(d, 0.0, hi);
  }
  return v;
}

Outs grid_sample(const Ctx& c) {
  const RefTensor &x = c.in(0), &g = c.in(1);
  const std::int64_t n = x.dims[0], ch = x.dims[1], h = x.dims[2], w = x.dims[3], oh = g.dims[1], ow = g.dims[2];
  const bool align = c.i("align_corners", 0) != 0;
  const std::string mode = c.s("mode", "bilinear"), pad = c.s("padding_mode", "zeros");
  RefTensor y(DataType::f32, {n, ch, oh, ow});
  const auto pix = [&](std::int64_t plane, double yy, double xx) {
    const auto yi = static_cast<std::int64_t>(std::floor(yy)), xi = static_cast<std::int64_t>(std::floor(xx));
    return yi >= 0 && yi < h && xi >= 0 && xi < w ? get_f(x, plane * h * w + yi * w + xi) : 0.0;
  };
  const auto un = [&](double v, std::int64_t size) {
    return align ? (v + 1) / 2 * static_cast<double>(size - 1) : ((v + 1) * static_cast<double>(size) - 1) / 2;
  };
  const auto cub = [](double d) {  // Keys' kernel, A = -0.75, at distance |d|
    constexpr double A = -0.75;
    d = std::fabs(d);
    return d <= 1 ? ((A + 2) * d - (A + 3)) * d * d + 1 : d < 2 ? ((A * d - 5 * A) * d + 8 * A) * d - 4 * A : 0.0;
  };
  for (std::int64_t t = 0; t < y.elements(); ++t) {
    const std::int64_t b = t / (ch * oh * ow), plane = t / (oh * ow), q = t % (oh * ow);
    const double ix = un(get_f(g, (b * oh * ow + q) * 2), w), iy = un(get_f(g, (b * oh * ow + q) * 2 + 1), h);
    double v = 0;
    if (mode == "bicubic") {
      for (double yy = std::floor(iy) - 1; yy <= std::floor(iy) + 2; ++yy)
        for (double xx = std::floor(ix) - 1; xx <= std::floor(ix) + 2; ++xx)
          v += cub(iy - yy) * cub(ix - xx) * pix(plane, grid_pad(yy, h, pad, align), grid_pad(xx, w, pad, align));
    } else {
      const double px = grid_pad(ix, w, pad, align), py = grid_pad(iy, h, pad, align);
      if (mode == "nearest") {
        v = pix(plane, std::nearbyint(py), std::nearbyint(px));
      } else {
        for (double yy = std::floor(py); yy <= std::floor(py) + 1; ++yy)
          for (double xx = std::floor(px); xx <= std::floor(px) + 1; ++xx)
            v += (1 - std::fabs(py - yy)) * (1 - std::fabs(px - xx)) * pix(plane, yy, xx);
      }
    }
    set_f(y, t, v);
  }
  return {y};
}

}  // namespace

void add_detection_ops(OpTable& t) {
  t["NonMaxSuppression"] = {nms, {"center_point_box"}};
  t["RoiAlign"] = {roi_align,
                   {"coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio",
                    "spatial_scale"}};
  t["GridSample"] = {grid_sample, {"align_corners", "mode", "padding_mode"}};
}

}  // namespace ge::ref::detail
