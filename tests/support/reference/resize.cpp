// The reference's Resize: each output element from its own coordinates. Per axis, the
// input coordinate by the coordinate mode; nearest rounds it; linear and cubic take the
// 2 or 4 input indices nearest to it (ties: the lower), edge-repeated beyond the ends,
// weighted by the ratio's coefficients (ratio 1 when the coordinate is an index).
#include <algorithm>
#include <cmath>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

struct Tap {
  std::int64_t index;
  double weight;
};

// The taps of output index o along an axis, or none when tf_crop_and_resize leaves the input.
std::vector<Tap> taps(const Ctx& c, std::int64_t o, std::int64_t in, std::int64_t out, double scale, bool scales_given,
                      double roi_s, double roi_e, bool& outside) {
  const std::string coord = c.s("coordinate_transformation_mode", "half_pixel");
  const std::string mode = c.s("mode", "nearest");
  const auto x = static_cast<double>(o);
  const double len = scales_given ? static_cast<double>(in) * scale : static_cast<double>(out);
  double v = (x + 0.5) / scale - 0.5;
  if (coord == "asymmetric") v = x / scale;
  if (coord == "align_corners") v = len == 1 ? 0 : x * static_cast<double>(in - 1) / (len - 1);
  if (coord == "pytorch_half_pixel" && !(len > 1)) v = 0;
  if (coord == "tf_half_pixel_for_nn") v = (x + 0.5) / scale;
  outside = false;
  if (coord == "tf_crop_and_resize") {
    const double span = (roi_e - roi_s) * static_cast<double>(in - 1);
    v = (out == 1 ? span / 2 : x * span / static_cast<double>(out - 1)) + roi_s * static_cast<double>(in - 1);
    outside = v < 0 || v > static_cast<double>(in - 1);
    if (outside) return {};
  }
  const auto clampi = [in](std::int64_t i) { return std::clamp<std::int64_t>(i, 0, in - 1); };
  if (mode == "nearest") {
    const std::string nm = c.s("nearest_mode", "round_prefer_floor");
    double r = std::floor(v);
    if (nm == "ceil") r = std::ceil(v);
    else if (nm == "round_prefer_ceil") r = v - std::floor(v) >= 0.5 ? std::ceil(v) : std::floor(v);
    else if (nm == "round_prefer_floor") r = v - std::floor(v) > 0.5 ? std::ceil(v) : std::floor(v);
    return {{clampi(static_cast<std::int64_t>(r)), 1.0}};
  }
  const int n = mode == "cubic" ? 4 : 2;
  std::vector<std::int64_t> cand;
  for (auto i = static_cast<std::int64_t>(std::floor(v)) - 3; i <= static_cast<std::int64_t>(std::floor(v)) + 3; ++i)
    cand.push_back(i);
  std::sort(cand.begin(), cand.end(), [v](std::int64_t a, std::int64_t b) {
    const double da = std::fabs(v - static_cast<double>(a)), db = std::fabs(v - static_cast<double>(b));
    return da != db ? da < db : a < b;
  });
  cand.resize(static_cast<std::size_t>(n));
  std::sort(cand.begin(), cand.end());
  const double r = v == std::floor(v) ? 1.0 : v - std::floor(v);
  std::vector<double> w{1 - r, r};
  if (n == 4) {
    const double A = c.f("cubic_coeff_a", -0.75);
    const auto k = [A](double d) {  // Keys' kernel at distance d
      d = std::fabs(d);
      return d <= 1 ? ((A + 2) * d - (A + 3)) * d * d + 1 : ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
    };
    w = {k(r + 1), k(r), k(1 - r), k(2 - r)};
  }
  double sum = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (c.i("exclude_outside", 0) != 0 && (cand[i] < 0 || cand[i] >= in)) w[i] = 0;
    sum += w[i];
  }
  std::vector<Tap> t;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] != 0) t.push_back({clampi(cand[i]), c.i("exclude_outside", 0) != 0 ? w[i] / sum : w[i]});
  return t;
}

Outs resize(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const std::size_t r = x.dims.size();
  const bool scales_given = c.has_input(2) && c.in(2).elements() > 0;
  Dims out(r);
  std::vector<double> scale(r);
  for (std::size_t a = 0; a < r; ++a) {
    scale[a] = scales_given ? static_cast<double>(static_cast<float>(get_f(c.in(2), static_cast<std::int64_t>(a)))) : 0;
    out[a] = scales_given ? static_cast<std::int64_t>(std::floor(static_cast<double>(x.dims[a]) * scale[a]))
                          : get_i(c.in(3), static_cast<std::int64_t>(a));
    if (!scales_given) scale[a] = static_cast<double>(out[a]) / static_cast<double>(x.dims[a]);
  }
  RefTensor y(x.dtype, out);
  const Dims xs = strides_of(x.dims);
  for (std::int64_t t = 0; t < y.elements(); ++t) {
    // Every combination of the axes' taps: (flat index, weight).
    std::vector<std::pair<std::int64_t, double>> terms{{0, 1.0}};
    bool outside = false;
    for (std::size_t a = 0; a < r && !outside; ++a) {
      const std::int64_t o = (t / product(out, a + 1)) % out[a];
      const bool has_roi = c.has_input(1) && c.in(1).elements() == static_cast<std::int64_t>(2 * r);
      const auto ts = taps(c, o, x.dims[a], out[a], scale[a], scales_given, has_roi ? get_f(c.in(1), static_cast<std::int64_t>(a)) : 0,
                           has_roi ? get_f(c.in(1), static_cast<std::int64_t>(a + r)) : 1, outside);
      std::vector<std::pair<std::int64_t, double>> next;
      for (const auto& [at, w] : terms)
        for (const Tap& tap : ts) next.emplace_back(at + tap.index * xs[a], w * tap.weight);
      terms.swap(next);
    }
    double v = 0;
    for (const auto& [at, w] : terms) v += w * get_f(x, at);
    set_f(y, t, outside ? c.f("extrapolation_value", 0.0) : v);
  }
  return {y};
}

}  // namespace

void add_resize_ops(OpTable& t) {
  t["Resize"] = {resize,
                 {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                  "extrapolation_value"}};
}

}  // namespace ge::ref::detail
