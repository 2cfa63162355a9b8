#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "kernel_test.hpp"
#include "kernels/cpu/pool/pool.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

std::int64_t pool_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t p0,
                      std::int64_t p1, bool ceil_mode) {
  const std::int64_t span = in + p0 + p1 - d * (k - 1) - 1;
  std::int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p0) --o;
  return o;
}

// Reference in the PyTorch / ONNX Runtime way: clip the window to the padded input for the
// include-pad divisor, to the real input for the values.
std::vector<float> ref_pool(const cpu::Pool2dParams& p, const Buf<float>& x, std::int64_t oh, std::int64_t ow,
                            bool max) {
  const std::int64_t planes = x.dims[0] * x.dims[1], h = x.dims[2], w = x.dims[3];
  std::vector<float> y;
  for (std::int64_t pc = 0; pc < planes; ++pc) {
    for (std::int64_t oy = 0; oy < oh; ++oy) {
      for (std::int64_t ox = 0; ox < ow; ++ox) {
        double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
        std::int64_t real = 0, padded = 0;
        for (std::int64_t ky = 0; ky < p.kernel_h; ++ky) {
          for (std::int64_t kx = 0; kx < p.kernel_w; ++kx) {
            const std::int64_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
            const std::int64_t ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
            if (iy >= -p.pad_top && iy < h + p.pad_bottom && ix >= -p.pad_left && ix < w + p.pad_right) ++padded;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            ++real;
            const double v = x[(pc * h + iy) * w + ix];
            acc = max ? std::max(acc, v) : acc + v;
          }
        }
        if (!max) acc /= static_cast<double>(p.count_include_pad ? padded : real);
        y.push_back(static_cast<float>(acc));
      }
    }
  }
  return y;
}

}  // namespace

TEST_CASE("max and average pool, floor and ceil_mode windows, pads, dilations") {
  struct Case {
    std::int64_t h, w;
    cpu::Pool2dParams p;
    bool ceil_mode;
  };
  const std::vector<Case> cases = {
      {6, 6, {.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2}, false},
      {7, 7, {.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2}, true},
      {8, 9, {.kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, false},
      {8, 9, {.kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .count_include_pad = true}, true},
      {10, 11, {.kernel_h = 3, .kernel_w = 2, .stride_h = 3, .stride_w = 2, .pad_top = 0, .pad_left = 1, .pad_bottom = 2, .pad_right = 0}, true},
      {9, 9, {.kernel_h = 3, .kernel_w = 3, .stride_h = 1, .stride_w = 2, .dilation_h = 2, .dilation_w = 2}, true},
      {5, 5, {.kernel_h = 5, .kernel_w = 5, .pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2, .count_include_pad = true}, false},
      {1, 13, {.kernel_h = 1, .kernel_w = 4, .stride_h = 1, .stride_w = 3}, true},
      // Rows of several vectors (the AVX-512 / AVX2 row sweep), the last one partial.
      {12, 57, {.kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, false},
      {10, 40, {.kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, false},
      {6, 35, {.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2}, true},
      {5, 70, {.kernel_h = 2, .kernel_w = 4, .stride_h = 1, .stride_w = 2, .pad_top = 1, .pad_left = 2, .pad_bottom = 0, .pad_right = 1}, true},
  };
  std::uint32_t seed = 1;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    const auto& c = cases[i];
    const std::int64_t oh = pool_out(c.h, c.p.kernel_h, c.p.stride_h, c.p.dilation_h, c.p.pad_top, c.p.pad_bottom, c.ceil_mode);
    const std::int64_t ow = pool_out(c.w, c.p.kernel_w, c.p.stride_w, c.p.dilation_w, c.p.pad_left, c.p.pad_right, c.ceil_mode);
    auto x = random_f32({2, 3, c.h, c.w}, seed++);
    Buf<float> y({2, 3, oh, ow});
    cpu::max_pool2d(c.p, x.view(), y.view());
    const std::vector<float> want = ref_pool(c.p, x, oh, ow, true);
    check_close(y.v, want, 0.0f, 0.0f);
    // NHWC, with 3 and 21 channels (one vector and a partial one).
    for (const std::int64_t ch : {3, 21}) {
      CAPTURE(ch);
      auto xc = random_f32({2, ch, c.h, c.w}, seed++);
      const auto nhwc = [](const Buf<float>& t) {
        const std::int64_t n = t.dims[0], cc = t.dims[1], h = t.dims[2], w = t.dims[3];
        Buf<float> o({n, h, w, cc});
        for (std::int64_t b = 0; b < n; ++b)
          for (std::int64_t k = 0; k < cc; ++k)
            for (std::int64_t q = 0; q < h * w; ++q) o.v[static_cast<std::size_t>((b * h * w + q) * cc + k)] =
                t.v[static_cast<std::size_t>((b * cc + k) * h * w + q)];
        return o;
      };
      Buf<float> yc({2, ch, oh, ow}), yn({2, oh, ow, ch});
      cpu::max_pool2d(c.p, xc.view(), yc.view());
      cpu::max_pool2d_nhwc(c.p, nhwc(xc).view(), yn.view());
      check_close(yn.v, nhwc(yc).v, 0.0f, 0.0f);
      // AveragePool on NHWC against the NCHW kernel: the same counts, with and without pads.
      for (const bool include_pad : {false, true}) {
        cpu::Pool2dParams q = c.p;
        q.count_include_pad = include_pad;
        cpu::average_pool2d(q, xc.view(), yc.view());
        cpu::average_pool2d_nhwc(q, nhwc(xc).view(), yn.view());
        check_close(yn.v, nhwc(yc).v, 1e-6f, 1e-5f);
      }
    }
    if (c.p.dilation_h == 1 && c.p.dilation_w == 1) {
      cpu::average_pool2d(c.p, x.view(), y.view());
      check_close(y.v, ref_pool(c.p, x, oh, ow, false), 1e-6f, 1e-5f);
    }
  }
}

TEST_CASE("pool by hand: ceil_mode window past the end averages the real elements") {
  Buf<float> x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Buf<float> y({1, 1, 2, 2});
  const cpu::Pool2dParams p{.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2};
  cpu::average_pool2d(p, x.view(), y.view());
  CHECK(y.v == std::vector<float>{3, 4.5f, 7.5f, 9});
  cpu::max_pool2d(p, x.view(), y.view());
  CHECK(y.v == std::vector<float>{5, 6, 8, 9});
}

TEST_CASE("max and average pool on NHWC: bad dims and windows are clear errors") {
  auto x = random_f32({1, 6, 6, 4}, 1);
  Buf<float> y({1, 3, 3, 4}), y_bad({1, 3, 3, 5});
  const cpu::Pool2dParams p{.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2};
  cpu::max_pool2d_nhwc(p, x.view(), y.view());
  expect_error([&] { cpu::max_pool2d_nhwc(p, x.view(), y_bad.view()); }, Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::max_pool2d_nhwc({.kernel_h = 0}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  auto x3 = random_f32({6, 6, 4}, 2);
  expect_error([&] { cpu::max_pool2d_nhwc(p, x3.view(), y.view()); }, Errc::rank_mismatch, kernels_tag);
  expect_error([&] { cpu::average_pool2d_nhwc(p, x.view(), y_bad.view()); }, Errc::bad_op_inputs, kernels_tag,
               "AveragePool");
  expect_error([&] { cpu::average_pool2d_nhwc(p, x3.view(), y.view()); }, Errc::rank_mismatch, kernels_tag);
}

TEST_CASE("pool errors and global average pool") {
  Buf<float> x({1, 2, 6, 6});
  Buf<float> bad({1, 2, 5, 3});
  expect_error(
      [&] { cpu::max_pool2d({.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2}, x.view(), bad.view()); },
      Errc::bad_op_inputs, kernels_tag);
  Buf<float> y({1, 2, 3, 3});
  expect_error([&] { cpu::max_pool2d({.kernel_h = 0, .kernel_w = 2}, x.view(), y.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error([&] { cpu::max_pool2d({.kernel_h = 2, .kernel_w = 2, .pad_top = 2}, x.view(), y.view()); },
               Errc::bad_attribute, kernels_tag);
  Buf<float> x3({2, 6, 6});
  expect_error([&] { cpu::average_pool2d({.kernel_h = 2, .kernel_w = 2}, x3.view(), y.view()); }, Errc::rank_mismatch,
               kernels_tag);

  auto g = random_f32({2, 3, 5, 7}, 9);
  Buf<float> gy({2, 3, 1, 1});
  cpu::global_average_pool(g.view(), gy.view());
  std::vector<float> want(6, 0.0f);
  for (std::int64_t i = 0; i < g.size(); ++i) want[static_cast<std::size_t>(i / 35)] += g[i] / 35.0f;
  check_close(gy.v, want, 1e-6f, 1e-5f);
  Buf<float> gbad({2, 3});
  expect_error([&] { cpu::global_average_pool(g.view(), gbad.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("pool output extent: the floor and the ceil_mode sizes are accepted, nothing else") {
  auto x = random_f32({1, 1, 4, 4}, 5);
  // 4 with an end pad of 1 at kernel 2, stride 2: floor 2; ceil 3, its last window in the pad.
  const cpu::Pool2dParams p{.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2, .pad_bottom = 1, .pad_right = 1};
  Buf<float> y2({1, 1, 2, 2}), y3({1, 1, 3, 3});
  cpu::average_pool2d(p, x.view(), y2.view());
  check_close(y2.v, ref_pool(p, x, 2, 2, false));
  cpu::max_pool2d(p, x.view(), y3.view());  // the last row and column of windows lie in the pad
  CHECK(y3.v[0] == ref_pool(p, x, 2, 2, true)[0]);
  cpu::average_pool2d(p, x.view(), y3.view());
  CHECK(y3.v[8] == 0.0f);
  for (std::int64_t o : {1, 4}) {
    Buf<float> y({1, 1, o, 2});
    expect_error([&] { cpu::max_pool2d(p, x.view(), y.view()); }, Errc::bad_op_inputs, kernels_tag, "output H",
                 "floor (2)", "ceil_mode (3)");
  }
  // Dilation 3 on 4 at kernel 2 (span 4), stride 2: one window either way.
  const cpu::Pool2dParams dil{.kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2, .dilation_h = 3, .dilation_w = 3};
  Buf<float> one({1, 1, 1, 1});
  cpu::max_pool2d(dil, x.view(), one.view());
  CHECK(one.v[0] == std::max({x[0], x[3], x[12], x[15]}));
  // A window wider than the padded input.
  const cpu::Pool2dParams wide{.kernel_h = 3, .kernel_w = 2, .dilation_h = 2};
  expect_error([&] { cpu::max_pool2d(wide, x.view(), one.view()); }, Errc::bad_op_inputs, kernels_tag,
               "larger than the padded input along H");
}
