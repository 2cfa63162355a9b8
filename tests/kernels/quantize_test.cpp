// The kernels of issue #17's quantization and detection ops: exact small cases and the
// errors only the data can show (a parameter's length, a batch index, box dims).
#include <doctest/doctest.h>

#include "kernel_test.hpp"
#include "kernels/cpu/nn/detection.hpp"
#include "kernels/cpu/int8/quantize.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

TEST_CASE("quantize_linear and dequantize_linear: half to even, saturation, per axis") {
  Buf<float> x({2, 3}, {0.5f, 1.5f, 2.5f, -300, 300, -1.0f});
  Buf<float> s({1}, {1.0f});
  Buf<std::uint8_t> y({2, 3});
  cpu::quantize_linear(1, x.view(), s.view(), nullptr, y.view());
  CHECK(y.v == std::vector<std::uint8_t>{0, 2, 2, 0, 255, 0});
  Buf<float> s3({3}, {1.0f, 0.5f, 2.0f});
  Buf<std::int8_t> z3({3}, {0, -1, 3}), q({2, 3});
  const ge::TensorView zv = z3.view();
  cpu::quantize_linear(1, x.view(), s3.view(), &zv, q.view());
  CHECK(q.v == std::vector<std::int8_t>{0, 2, 4, -128, 127, 3});
  Buf<float> back({2, 3});
  cpu::dequantize_linear(1, q.view(), s3.view(), &zv, back.view());
  CHECK(back.v == std::vector<float>{0, 1.5f, 2, -128, 64, 0});
  Buf<float> s2({2}, {1, 1});
  expect_error([&] { cpu::quantize_linear(1, x.view(), s2.view(), nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag, "y_scale");
  expect_error([&] { cpu::dequantize_linear(2, q.view(), s3.view(), nullptr, back.view()); }, Errc::bad_attribute,
               kernels_tag, "axis 2");
}

TEST_CASE("dynamic_quantize_linear, matmul_integer, conv_integer: exact values") {
  Buf<float> x({4}, {-1.0f, 0.0f, 1.0f, 2.0f});
  Buf<std::uint8_t> y({4}), zp(std::vector<std::int64_t>{});
  Buf<float> scale(std::vector<std::int64_t>{});
  cpu::dynamic_quantize_linear(x.view(), y.view(), scale.view(), zp.view());
  CHECK(scale.v[0] == doctest::Approx(3.0 / 255));
  CHECK(zp.v[0] == 85);
  CHECK(y.v == std::vector<std::uint8_t>{0, 85, 170, 255});
  Buf<std::uint8_t> a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {5, 6, 7, 8}), za(std::vector<std::int64_t>{}, {1});
  Buf<std::int32_t> c({2, 2});
  const ge::TensorView zav = za.view();
  cpu::matmul_integer(a.view(), b.view(), &zav, nullptr, c.view());
  CHECK(c.v == std::vector<std::int32_t>{7, 8, 31, 36});
  Buf<std::uint8_t> img({1, 1, 2, 2}, {1, 2, 3, 4}), w({1, 1, 1, 1}, {2});
  Buf<std::int32_t> out({1, 1, 2, 2});
  cpu::conv_integer({.strides = {1, 1}, .dilations = {1, 1}, .pads_begin = {0, 0}}, img.view(), w.view(), nullptr,
                    nullptr, nullptr, out.view());
  CHECK(out.v == std::vector<std::int32_t>{2, 4, 6, 8});
  Buf<std::uint8_t> zw({2}, {1, 1});
  const ge::TensorView zwv = zw.view();
  expect_error([&] { cpu::conv_integer({.strides = {1, 1}, .dilations = {1, 1}, .pads_begin = {0, 0}}, img.view(),
                                       w.view(), nullptr, &zwv, nullptr, out.view()); },
               Errc::bad_op_inputs, kernels_tag, "w_zero_point");
}

TEST_CASE("non_max_suppression, roi_align, grid_sample: small cases and bad data") {
  // Two overlapping boxes and one apart; the second is dropped at IoU 0.5.
  Buf<float> boxes({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 5, 1, 6});
  Buf<float> scores({1, 1, 3}, {0.9f, 0.8f, 0.7f});
  CHECK(cpu::non_max_suppression({.max_per_class = 3, .iou_threshold = 0.5f}, boxes.view(), scores.view()) ==
        std::vector<std::int64_t>{0, 0, 0, 0, 0, 2});
  CHECK(cpu::non_max_suppression({.max_per_class = 1}, boxes.view(), scores.view()).size() == 3);
  Buf<float> bad_scores({1, 1, 2}, {0.9f, 0.8f});
  expect_error([&] { (void)cpu::non_max_suppression({.max_per_class = 1}, boxes.view(), bad_scores.view()); },
               Errc::bad_op_inputs, kernels_tag, "scores");
  Buf<float> img({1, 1, 2, 2}, {1, 2, 3, 4}), rois({1, 4}, {0, 0, 1, 1});
  Buf<std::int64_t> idx({1}, {0}), bad_idx({1}, {1});
  Buf<float> pooled({1, 1, 1, 1});
  cpu::roi_align({.half_pixel = false, .sampling_ratio = 1}, img.view(), rois.view(), idx.view(), pooled.view());
  CHECK(pooled.v[0] == doctest::Approx(2.5));
  expect_error([&] { cpu::roi_align({}, img.view(), rois.view(), bad_idx.view(), pooled.view()); }, Errc::bad_op_inputs,
               kernels_tag, "batch index 1");
  // The grid's corners with align_corners are the corner pixels.
  Buf<float> grid({1, 1, 2, 2}, {-1, -1, 1, 1}), sampled({1, 1, 1, 2});
  cpu::grid_sample(cpu::GridMode::bilinear, cpu::GridPadding::zeros, true, img.view(), grid.view(), sampled.view());
  CHECK(sampled.v == std::vector<float>{1, 4});
  Buf<float> grid3({1, 1, 2, 3});
  expect_error([&] { cpu::grid_sample(cpu::GridMode::nearest, cpu::GridPadding::border, false, img.view(),
                                      grid3.view(), sampled.view()); },
               Errc::unsupported, kernels_tag, "grid");
}
