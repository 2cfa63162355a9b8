// The generic window kernels (kernels/cpu/conv/window_nd.hpp): small hand-checked cases and
// their argument errors. The random cases against the reference cover the rest.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_test.hpp"
#include "kernels/cpu/conv/window_nd.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

namespace {
// A view of `b` that outlives the call it is passed to (the optional-tensor arguments).
template <class T>
const ge::TensorView* ptr(const Buf<T>& b) {
  static thread_local ge::TensorView v[4];
  static thread_local int next = 0;
  ge::TensorView& at = v[next++ % 4];
  at = b.view();
  return &at;
}
}  // namespace

TEST_CASE("max_pool_nd: 3-D window, u8, Indices row- and column-major") {
  // x [1, 1, 2, 2, 2] = 0..7; one 2x2x2 window: the max 7 at flat index 7.
  Buf<float> x({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  Buf<float> y({1, 1, 1, 1, 1});
  Buf<std::int64_t> idx({1, 1, 1, 1, 1});
  cpu::WindowNd p;
  p.kernel = {2, 2, 2};
  cpu::max_pool_nd(p, x.view(), y.view(), ptr(idx));
  CHECK(y.v[0] == 7);
  CHECK(idx.v[0] == 7);
  // 2-D [1, 1, 2, 3], kernel 2x2 stride 1: maxima at (1, 1) and (1, 2); column-major h + w * H.
  Buf<std::uint8_t> x2({1, 1, 2, 3}, {1, 2, 3, 4, 9, 5});
  Buf<std::uint8_t> y2({1, 1, 1, 2});
  Buf<std::int64_t> i2({1, 1, 1, 2});
  cpu::WindowNd q;
  q.kernel = {1, 2, 2};
  q.column_major = true;
  cpu::max_pool_nd(q, x2.view(), y2.view(), ptr(i2));
  CHECK(y2.v == std::vector<std::uint8_t>{9, 9});
  CHECK(i2.v == std::vector<std::int64_t>{3, 3});
}

TEST_CASE("average_pool_nd and conv_nd: 3-D with pads") {
  Buf<float> x({1, 1, 1, 1, 2}, {2, 4});
  Buf<float> y({1, 1, 1, 1, 2});
  cpu::WindowNd p;
  p.kernel = {1, 1, 2};
  p.pad_end = {0, 0, 1};
  cpu::average_pool_nd(p, x.view(), y.view());
  CHECK(y.v == std::vector<float>{3, 4});
  p.count_include_pad = true;
  cpu::average_pool_nd(p, x.view(), y.view());
  CHECK(y.v == std::vector<float>{3, 2});
  // Conv with W [1, 1, 1, 1, 2] = {1, 10} and bias 0.5 over the same padded input.
  Buf<float> w({1, 1, 1, 1, 2}, {1, 10});
  Buf<float> b({1}, {0.5F});
  cpu::WindowNd c;
  c.pad_end = {0, 0, 1};
  cpu::conv_nd(c, x.view(), w.view(), ptr(b), y.view());
  CHECK(y.v == std::vector<float>{42.5F, 4.5F});
}

TEST_CASE("conv_transpose_nd: scatter with stride") {
  Buf<float> x({1, 1, 1, 1, 2}, {1, 2});
  Buf<float> w({1, 1, 1, 1, 2}, {1, 10});
  Buf<float> y({1, 1, 1, 1, 4});
  cpu::WindowNd p;
  p.stride = {1, 1, 2};
  cpu::conv_transpose_nd(p, x.view(), w.view(), nullptr, y.view());
  CHECK(y.v == std::vector<float>{1, 10, 2, 20});
}

TEST_CASE("window_nd kernels: bad arguments are ge::Errors") {
  Buf<float> x({1, 2, 2, 2, 2});
  Buf<float> y({1, 2, 1, 1, 1});
  cpu::WindowNd p;
  p.kernel = {2, 2, 2};
  cpu::WindowNd bad = p;
  bad.stride = {0, 1, 1};
  expect_error([&] { cpu::max_pool_nd(bad, x.view(), y.view(), nullptr); }, Errc::bad_attribute, kernels_tag);
  bad = p;
  bad.pad_begin = {-1, 0, 0};
  expect_error([&] { cpu::average_pool_nd(bad, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  Buf<double> yd({1, 2, 1, 1, 1});
  expect_error([&] { cpu::max_pool_nd(p, x.view(), yd.view(), nullptr); }, Errc::type_mismatch, kernels_tag);
  Buf<std::int32_t> idx({1, 2, 1, 1, 1});
  expect_error([&] { cpu::max_pool_nd(p, x.view(), y.view(), ptr(idx)); }, Errc::type_mismatch, kernels_tag);
  Buf<std::int32_t> xi({1, 2, 2, 2, 2});
  Buf<std::int32_t> yi({1, 2, 1, 1, 1});
  expect_error([&] { cpu::max_pool_nd(p, xi.view(), yi.view(), nullptr); }, Errc::type_mismatch, kernels_tag);
  Buf<float> x6({1, 1, 1, 1, 1, 1});
  expect_error([&] { cpu::average_pool_nd(p, x6.view(), x6.view()); }, Errc::rank_mismatch, kernels_tag);
  // Conv: W's channels per group against X's and group.
  Buf<float> w({2, 1, 2, 2, 2});
  cpu::WindowNd c;
  expect_error([&] { cpu::conv_nd(c, x.view(), w.view(), nullptr, y.view()); }, Errc::bad_op_inputs, kernels_tag);
  c.group = 3;
  expect_error([&] { cpu::conv_nd(c, x.view(), w.view(), nullptr, y.view()); }, Errc::bad_op_inputs, kernels_tag);
  c.group = 2;
  Buf<float> b({3});
  expect_error([&] { cpu::conv_nd(c, x.view(), w.view(), ptr(b), y.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<float> wt({3, 1, 2, 2, 2});
  expect_error([&] { cpu::conv_transpose_nd(c, x.view(), wt.view(), nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
}

TEST_CASE("conv_nd: the GEMM over patches matches the direct loop on random convs, odd sizes included") {
  struct Case {
    std::int64_t n, c, m, group;
    std::array<std::int64_t, 3> in, k, stride, dil, pb, pe;
  };
  const Case cases[] = {
      {1, 3, 8, 1, {4, 9, 10}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
      {2, 4, 5, 1, {5, 7, 23}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}},
      {1, 6, 12, 3, {3, 8, 19}, {1, 3, 3}, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {0, 1, 0}},
      {1, 5, 7, 1, {6, 6, 37}, {3, 1, 1}, {2, 1, 1}, {1, 1, 1}, {1, 0, 0}, {1, 0, 0}},
      {2, 8, 16, 1, {4, 5, 17}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}},
      {1, 8, 9, 1, {4, 6, 33}, {1, 1, 1}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}},
      {1, 4, 4, 2, {7, 9, 21}, {3, 3, 3}, {1, 1, 3}, {2, 1, 2}, {2, 1, 2}, {0, 2, 1}},
      {1, 3, 10, 1, {3, 16, 35}, {3, 7, 7}, {1, 2, 2}, {1, 1, 1}, {1, 3, 3}, {1, 3, 3}},
      {1, 6, 6, 6, {4, 5, 18}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},  // depthwise
      {3, 40, 33, 1, {2, 3, 5}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 0, 1}, {0, 1, 0}},  // few columns
      {1, 2, 3, 1, {1, 1, 50}, {1, 1, 5}, {1, 1, 1}, {1, 1, 3}, {0, 0, 6}, {0, 0, 6}},   // 1-D as 3-D
  };
  std::uint32_t seed = 5;
  for (const Case& cs : cases) {
    cpu::WindowNd p;
    p.kernel = cs.k;
    p.stride = cs.stride;
    p.dilation = cs.dil;
    p.pad_begin = cs.pb;
    p.pad_end = cs.pe;
    p.group = cs.group;
    std::vector<std::int64_t> xd{cs.n, cs.c}, wd{cs.m, cs.c / cs.group}, yd{cs.n, cs.m};
    for (std::size_t a = 0; a < 3; ++a) {
      xd.push_back(cs.in[a]);
      wd.push_back(cs.k[a]);
      yd.push_back((cs.in[a] + cs.pb[a] + cs.pe[a] - cs.dil[a] * (cs.k[a] - 1) - 1) / cs.stride[a] + 1);
    }
    const Buf<float> x = ge::test::random_f32(xd, ++seed), w = ge::test::random_f32(wd, ++seed);
    const Buf<float> b = ge::test::random_f32({cs.m}, ++seed);
    Buf<float> want(yd), got(yd);
    std::fill(got.v.begin(), got.v.end(), 42.0f);
    INFO("case " << (&cs - cases));
    cpu::conv_nd(p, x.view(), w.view(), ptr(b), want.view());
    const cpu::PackedConvWeights packed = cpu::pack_conv_nd(p, w.view());
    CHECK(packed.depthwise == (cs.group == cs.c && cs.group == cs.m && cs.group > 1));
    cpu::conv_nd(p, x.view(), packed, ptr(b), got.view());
    ge::test::check_close(got.v, want.v, 1e-4f, 1e-4f);
    cpu::conv_nd(p, x.view(), packed, nullptr, got.view());
    cpu::conv_nd(p, x.view(), w.view(), nullptr, want.view());
    ge::test::check_close(got.v, want.v, 1e-4f, 1e-4f);
  }
  // The same conv over 2 spatial dims (rank 4) packs and runs as a 3-D one with depth 1.
  cpu::WindowNd p;
  p.kernel = {1, 3, 3};
  p.pad_begin = p.pad_end = {0, 1, 1};
  const Buf<float> x = ge::test::random_f32({1, 3, 11, 13}, 1), w = ge::test::random_f32({4, 3, 3, 3}, 2);
  Buf<float> want({1, 4, 11, 13}), got({1, 4, 11, 13});
  cpu::conv_nd(p, x.view(), w.view(), nullptr, want.view());
  cpu::conv_nd(p, x.view(), cpu::pack_conv_nd(p, w.view()), nullptr, got.view());
  ge::test::check_close(got.v, want.v, 1e-4f, 1e-4f);
}

TEST_CASE("conv_nd: packed weights that do not fit the conv are errors") {
  const Buf<float> x = ge::test::random_f32({1, 2, 3, 3, 3}, 1), w = ge::test::random_f32({2, 2, 3, 3, 3}, 2);
  Buf<float> y({1, 2, 1, 1, 1});
  cpu::WindowNd p;
  p.kernel = {3, 3, 3};
  const cpu::PackedConvWeights packed = cpu::pack_conv_nd(p, w.view());
  cpu::WindowNd other = p;
  other.kernel = {1, 3, 3};
  expect_error([&] { cpu::conv_nd(other, x.view(), packed, nullptr, y.view()); }, Errc::bad_attribute, kernels_tag,
               "packed");
  other = p;
  other.group = 2;
  expect_error([&] { cpu::conv_nd(other, x.view(), packed, nullptr, y.view()); }, Errc::bad_attribute, kernels_tag);
  Buf<double> wd({2, 2, 3, 3, 3});
  expect_error([&] { (void)cpu::pack_conv_nd(p, wd.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<float> w2({2, 2});
  expect_error([&] { (void)cpu::pack_conv_nd(p, w2.view()); }, Errc::rank_mismatch, kernels_tag);
}

TEST_CASE("max_pool_nd and average_pool_nd: the f32 row loops match the f64 walk per output") {
  struct Case {
    std::array<std::int64_t, 3> in, k, stride, dil, pb, pe, extra;  // extra: outputs past floor (ceil_mode)
  };
  const Case cases[] = {
      {{4, 9, 10}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
      {{5, 7, 23}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}},
      {{3, 8, 19}, {1, 3, 3}, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {0, 1, 0}, {0, 1, 1}},
      {{6, 6, 37}, {3, 2, 3}, {2, 1, 3}, {1, 2, 2}, {1, 0, 2}, {1, 1, 0}, {1, 0, 1}},
      {{2, 5, 5}, {2, 5, 5}, {1, 1, 1}, {1, 1, 1}, {0, 2, 2}, {1, 2, 2}, {0, 0, 0}},
      {{1, 1, 50}, {1, 1, 5}, {1, 1, 2}, {1, 1, 3}, {0, 0, 6}, {0, 0, 6}, {0, 0, 1}},
  };
  std::uint32_t seed = 40;
  for (const Case& cs : cases)
    for (const bool include_pad : {false, true}) {
      cpu::WindowNd p;
      p.kernel = cs.k;
      p.stride = cs.stride;
      p.dilation = cs.dil;
      p.pad_begin = cs.pb;
      p.pad_end = cs.pe;
      p.count_include_pad = include_pad;
      std::vector<std::int64_t> xd{2, 3}, yd{2, 3};
      for (std::size_t a = 0; a < 3; ++a) {
        xd.push_back(cs.in[a]);
        yd.push_back((cs.in[a] + cs.pb[a] + cs.pe[a] - cs.dil[a] * (cs.k[a] - 1) - 1) / cs.stride[a] + 1 + cs.extra[a]);
      }
      Buf<float> x = ge::test::random_f32(xd, ++seed);
      if (&cs - cases >= 3)  // a NaN in some windows: the max keeps the walk's order (a first NaN stays)
        for (std::size_t i = 0; i < x.v.size(); i += 97) x.v[i] = std::numeric_limits<float>::quiet_NaN();
      Buf<double> xd64(xd);
      std::copy(x.v.begin(), x.v.end(), xd64.v.begin());
      Buf<float> got(yd);
      Buf<double> want(yd);
      INFO("case " << (&cs - cases) << " count_include_pad " << include_pad);
      for (const bool is_max : {true, false}) {
        std::fill(got.v.begin(), got.v.end(), 42.0f);
        if (is_max) {
          cpu::max_pool_nd(p, x.view(), got.view(), nullptr);
          cpu::max_pool_nd(p, xd64.view(), want.view(), nullptr);
        } else {
          cpu::average_pool_nd(p, x.view(), got.view());
          cpu::average_pool_nd(p, xd64.view(), want.view());
        }
        std::vector<float> w(want.v.begin(), want.v.end());
        if (is_max)  // the f64 walk's "no real element" is double's lowest; as f32, float's
          for (float& v : w) v = v < std::numeric_limits<float>::lowest() ? std::numeric_limits<float>::lowest() : v;
        ge::test::check_close(got.v, w, 1e-6f, 1e-5f);
      }
    }
}
