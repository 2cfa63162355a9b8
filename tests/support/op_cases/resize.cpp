// Random cases of Resize: nearest (each rounding mode), linear and cubic (cubic_coeff_a,
// exclude_outside) under every coordinate mode, by scales or by sizes; tf_crop_and_resize
// with a roi and an extrapolation value; image resizes of the last two axes.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

std::vector<OpCase> resize_cases(Gen& g) {
  std::vector<OpCase> v;
  const char* coords[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "tf_half_pixel_for_nn",
                          "tf_crop_and_resize"};
  const char* nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  int k = 0;
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* coord : coords) {
      const Dims d = g.dims(1, 4, 1, 5);
      const auto r = static_cast<std::int64_t>(d.size());
      Attributes a{{"mode", std::string(mode)}, {"coordinate_transformation_mode", std::string(coord)}};
      if (std::string(mode) == "nearest") a.emplace("nearest_mode", std::string(nearest[k % 4]));
      if (std::string(mode) == "cubic") {
        a.emplace("cubic_coeff_a", k % 2 == 0 ? -0.75 : -0.5);
        a.emplace("exclude_outside", std::int64_t{k % 2});
      }
      std::optional<CaseInput> roi;
      if (std::string(coord) == "tf_crop_and_resize") {
        std::vector<float> box;
        for (std::int64_t i = 0; i < r; ++i) box.push_back(static_cast<float>(g.real(-0.2, 0.5)));
        for (std::int64_t i = 0; i < r; ++i) box.push_back(static_cast<float>(g.real(0.6, 1.2)));
        roi = cst(RefTensor::of<float>({2 * r}, box));
        a.emplace("extrapolation_value", 2.5);
      }
      std::vector<std::optional<CaseInput>> ins{in(g.f32(d)), roi};
      if (k++ % 2 == 0) {
        std::vector<float> sc;
        for (const std::int64_t e : d) sc.push_back(e == 1 ? 1.0f : static_cast<float>(g.real(0.6, 2.5)));
        ins.emplace_back(cst(RefTensor::of<float>({r}, sc)));
      } else {
        Dims sizes;
        for (const std::int64_t e : d) sizes.push_back(g.integer(1, 2 * e + 1));
        ins.emplace_back(std::nullopt);
        ins.emplace_back(i64s(sizes));
      }
      OpCase c = make("Resize", ins, a);
      c.rtol = c.atol = 1e-5;
      v.push_back(c);
    }
  // Image resizes (the leading axes unchanged, H and W up or down): the kernel's f32 path
  // over input rows interpolated along W.
  for (const char* mode : {"linear", "cubic"})
    for (const char* coord : coords) {
      Dims d = g.dims(2, 4, 1, 6);
      const auto r = static_cast<std::int64_t>(d.size());
      d[d.size() - 1] = g.integer(1, 9), d[d.size() - 2] = g.integer(1, 9);
      Attributes a{{"mode", std::string(mode)}, {"coordinate_transformation_mode", std::string(coord)}};
      if (std::string(mode) == "cubic") a.emplace("exclude_outside", std::int64_t{k % 2});
      std::optional<CaseInput> roi;
      if (std::string(coord) == "tf_crop_and_resize") {
        std::vector<float> box(static_cast<std::size_t>(2 * r), 0.0f);
        for (std::int64_t i = r; i < 2 * r; ++i) box[static_cast<std::size_t>(i)] = 1.0f;
        box[static_cast<std::size_t>(r - 1)] = static_cast<float>(g.real(-0.2, 0.3));
        box[static_cast<std::size_t>(2 * r - 2)] = static_cast<float>(g.real(0.7, 1.2));
        roi = cst(RefTensor::of<float>({2 * r}, box));
        a.emplace("extrapolation_value", -1.5);
      }
      Dims sizes = d;
      sizes[d.size() - 1] = g.integer(1, 4 * d[d.size() - 1] + 1), sizes[d.size() - 2] = g.integer(1, 4 * d[d.size() - 2] + 1);
      std::vector<std::optional<CaseInput>> ins{in(g.f32(d)), roi};
      if (k++ % 2 == 0 && std::string(coord) != "tf_crop_and_resize") {
        std::vector<float> sc(d.size(), 1.0f);
        sc[d.size() - 1] = static_cast<float>(sizes[d.size() - 1]) / static_cast<float>(d[d.size() - 1]);
        sc[d.size() - 2] = static_cast<float>(sizes[d.size() - 2]) / static_cast<float>(d[d.size() - 2]);
        ins.emplace_back(cst(RefTensor::of<float>({r}, sc)));
      } else {
        ins.emplace_back(std::nullopt);
        ins.emplace_back(i64s(sizes));
      }
      OpCase c = make("Resize", ins, a);
      c.rtol = c.atol = 1e-5;
      v.push_back(c);
    }
  return v;
}

}  // namespace

void add_resize_cases(GenTable& t) { t["Resize"] = resize_cases; }

}  // namespace ge::test::cases
