// Random cases of NonMaxSuppression (both box formats, thresholds given or omitted),
// RoiAlign (both coordinate modes, avg and max) and GridSample (every mode and padding).
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

RefTensor one_f32(double v) { return RefTensor::of<float>({1}, {static_cast<float>(v)}); }

std::vector<OpCase> nms_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const std::int64_t b = g.integer(1, 2), c = g.integer(1, 3), n = g.integer(1, 8);
    RefTensor boxes = g.f32({b, n, 4}, 0, 1);
    if (k % 2 == 1)  // center format: positive widths and heights
      for (std::int64_t i = 0; i < b * n; ++i)
        for (const std::size_t j : {2, 3}) {
          float& e = boxes.as<float>()[static_cast<std::size_t>(i) * 4 + j];
          e = 0.1f + e / 2;
        }
    std::vector<std::optional<CaseInput>> ins{in(boxes), in(g.f32({b, c, n}, 0, 1)),
                                              cst(RefTensor::of<std::int64_t>({1}, {g.integer(0, 4)})),
                                              cst(one_f32(g.real(0.1, 0.6)))};
    if (k >= 2) ins.emplace_back(cst(one_f32(g.real(0.1, 0.5))));
    v.push_back(make("NonMaxSuppression", ins, {{"center_point_box", std::int64_t{k % 2}}}));
  }
  return v;
}

std::vector<OpCase> roi_align_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const std::int64_t n = g.integer(1, 2), h = g.integer(3, 8), w = g.integer(3, 8), r = g.integer(1, 3);
    RefTensor rois(DataType::f32, {r, 4});
    for (std::int64_t i = 0; i < r; ++i) {
      const double x1 = g.real(0, static_cast<double>(w) - 1), y1 = g.real(0, static_cast<double>(h) - 1);
      const std::vector<double> box{x1, y1, x1 + g.real(0.5, 4), y1 + g.real(0.5, 4)};
      for (std::size_t j = 0; j < 4; ++j) rois.as<float>()[static_cast<std::size_t>(i) * 4 + j] = static_cast<float>(box[j]);
    }
    Attributes a{{"output_height", g.integer(1, 3)}, {"output_width", g.integer(1, 3)},
                 {"sampling_ratio", g.integer(0, 2)}, {"spatial_scale", k == 3 ? 0.5 : 1.0},
                 {"mode", std::string(k == 2 ? "max" : "avg")},
                 {"coordinate_transformation_mode", std::string(k % 2 == 0 ? "half_pixel" : "output_half_pixel")}};
    v.push_back(make("RoiAlign", {in(g.f32({n, 2, h, w})), in(rois), in(g.ints(DataType::i64, {r}, 0, n - 1))}, a));
  }
  return v;
}

std::vector<OpCase> grid_sample_cases(Gen& g) {
  std::vector<OpCase> v;
  int k = 0;
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"}) {
      const std::int64_t n = g.integer(1, 2);
      OpCase c = make("GridSample", {in(g.f32({n, 2, g.integer(1, 5), g.integer(1, 5)})),
                                     in(g.f32({n, g.integer(1, 4), g.integer(1, 4), 2}, -1.3, 1.3))},
                      {{"mode", std::string(mode)}, {"padding_mode", std::string(pad)}, {"align_corners", std::int64_t{k++ % 2}}});
      c.rtol = c.atol = 1e-5;
      v.push_back(c);
    }
  return v;
}

}  // namespace

void add_detection_cases(GenTable& t) {
  t["NonMaxSuppression"] = nms_cases;
  t["RoiAlign"] = roi_align_cases;
  t["GridSample"] = grid_sample_cases;
}

}  // namespace ge::test::cases
