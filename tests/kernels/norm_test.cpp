#include <doctest/doctest.h>

#include <cmath>

#include "kernel_test.hpp"
#include "kernels/cpu/reduce/norm.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

std::vector<float> ref_softmax(const Buf<float>& x, std::size_t axis, bool log) {
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= x.dims[i];
  for (std::size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
  const std::int64_t len = x.dims[axis];
  std::vector<float> y(x.v.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t j = 0; j < inner; ++j) {
      double mx = -1e300, s = 0;
      for (std::int64_t a = 0; a < len; ++a) mx = std::max<double>(mx, x[(o * len + a) * inner + j]);
      for (std::int64_t a = 0; a < len; ++a) s += std::exp(x[(o * len + a) * inner + j] - mx);
      for (std::int64_t a = 0; a < len; ++a) {
        const double v = x[(o * len + a) * inner + j] - mx;
        y[static_cast<std::size_t>((o * len + a) * inner + j)] =
            static_cast<float>(log ? v - std::log(s) : std::exp(v) / s);
      }
    }
  }
  return y;
}

}  // namespace

TEST_CASE("softmax and log_softmax along every axis") {
  const std::vector<std::vector<std::int64_t>> shapes = {{7}, {3, 37}, {2, 5, 19}, {4, 3, 2, 33}, {1, 1}, {2, 600}};  // 600: past a scratch chunk
  std::uint32_t seed = 1;
  for (const auto& s : shapes) {
    auto x = random_f32(s, seed++, -5.0f, 5.0f);
    for (std::size_t axis = 0; axis < s.size(); ++axis) {
      for (bool log : {false, true}) {
        CAPTURE(axis);
        CAPTURE(log);
        Buf<float> y(s);
        cpu::softmax({.axis = static_cast<std::int64_t>(axis), .log = log}, x.view(), y.view());
        check_close(y.v, ref_softmax(x, axis, log), 1e-6f, 1e-5f);
        // In place, as plans run both ops (Y over X): LogSoftmax read X after writing
        // its exps over it.
        Buf<float> z = x;
        cpu::softmax({.axis = static_cast<std::int64_t>(axis), .log = log}, z.view(), z.view());
        check_close(z.v, ref_softmax(x, axis, log), 1e-6f, 1e-5f);
      }
    }
  }
}

TEST_CASE("softmax: exact small case and large inputs stay finite") {
  Buf<float> x({2, 2}, {0.0f, 0.0f, 1000.0f, 1000.0f});
  Buf<float> y({2, 2});
  cpu::softmax({.axis = 1}, x.view(), y.view());
  CHECK(y.v == std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f});
  expect_error([&] { cpu::softmax({.axis = 2}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  Buf<float> z({4});
  expect_error([&] { cpu::softmax({.axis = 0}, x.view(), z.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("layer_norm matches the reference, with and without bias") {
  for (std::int64_t axis : {1, 2}) {
    auto x = random_f32({3, 4, 37}, 10 + static_cast<std::uint32_t>(axis), -3.0f, 3.0f);
    const std::int64_t d = axis == 1 ? 4 * 37 : 37;
    auto scale = random_f32(axis == 1 ? std::vector<std::int64_t>{4, 37} : std::vector<std::int64_t>{37}, 20);
    auto bias = random_f32(scale.dims, 21);
    for (bool with_bias : {false, true}) {
      Buf<float> y(x.dims);
      const ge::TensorView bv = bias.view();
      cpu::layer_norm({.axis = axis, .epsilon = 1e-3f}, x.view(), scale.view(), with_bias ? &bv : nullptr, y.view());
      std::vector<float> want(x.v.size());
      for (std::int64_t r = 0; r < x.size() / d; ++r) {
        double mean = 0, var = 0;
        for (std::int64_t i = 0; i < d; ++i) mean += x[r * d + i];
        mean /= static_cast<double>(d);
        for (std::int64_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
        var /= static_cast<double>(d);
        for (std::int64_t i = 0; i < d; ++i) {
          want[static_cast<std::size_t>(r * d + i)] = static_cast<float>(
              (x[r * d + i] - mean) / std::sqrt(var + 1e-3) * scale[i] + (with_bias ? bias[i] : 0.0f));
        }
      }
      check_close(y.v, want, 1e-5f, 1e-4f);
    }
  }
  Buf<float> x({2, 4}), s({3}), y({2, 4});
  expect_error([&] { cpu::layer_norm({.axis = 1}, x.view(), s.view(), nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error([&] { cpu::layer_norm({.axis = 5}, x.view(), s.view(), nullptr, y.view()); }, Errc::bad_attribute,
               kernels_tag);
}

TEST_CASE("batch_norm: exact values and rank-2 input") {
  Buf<float> x({1, 2, 2}, {1, 2, 3, 4});
  Buf<float> scale({2}, {2, 1}), bias({2}, {1, 0}), mean({2}, {1, 3}), var({2}, {4, 0.25f});
  Buf<float> y({1, 2, 2});
  cpu::batch_norm({.epsilon = 0.0f}, x.view(), scale.view(), bias.view(), mean.view(), var.view(), y.view());
  CHECK(y.v == std::vector<float>{1, 2, 0, 2});
  auto x2 = random_f32({5, 3}, 1);
  auto s3 = random_f32({3}, 2), b3 = random_f32({3}, 3), m3 = random_f32({3}, 4), v3 = random_f32({3}, 5, 0.1f, 2.0f);
  Buf<float> y2({5, 3});
  cpu::batch_norm({.epsilon = 1e-5f}, x2.view(), s3.view(), b3.view(), m3.view(), v3.view(), y2.view());
  std::vector<float> want(15);
  for (std::size_t i = 0; i < 15; ++i) {
    const std::size_t c = i % 3;
    want[i] = (x2.v[i] - m3.v[c]) / std::sqrt(v3.v[c] + 1e-5f) * s3.v[c] + b3.v[c];
  }
  check_close(y2.v, want);
  Buf<float> bad({2});
  expect_error([&] { cpu::batch_norm({}, x2.view(), bad.view(), b3.view(), m3.view(), v3.view(), y2.view()); },
               Errc::bad_op_inputs, kernels_tag);
  Buf<float> x1({3}), y1({3});
  expect_error([&] { cpu::batch_norm({}, x1.view(), s3.view(), b3.view(), m3.view(), v3.view(), y1.view()); },
               Errc::rank_mismatch, kernels_tag);
}
