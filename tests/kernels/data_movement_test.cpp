#include <doctest/doctest.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "kernel_test.hpp"
#include "kernels/cpu/movement/data_movement.hpp"

using ge::DataType;
using ge::Errc;
using ge::TensorView;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

template <class T>
Buf<T> iota_buf(std::vector<std::int64_t> dims) {
  Buf<T> b(std::move(dims));
  for (std::int64_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>(i);
  return b;
}

std::vector<std::int64_t> unravel(std::int64_t i, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> idx(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    idx[d] = i % dims[d];
    i /= dims[d];
  }
  return idx;
}

std::int64_t ravel(const std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& dims) {
  std::int64_t o = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) o = o * dims[d] + idx[d];
  return o;
}

}  // namespace

TEST_CASE("copy and fill") {
  auto x = iota_buf<std::int64_t>({2, 3});
  Buf<std::int64_t> y({6});
  cpu::copy(x.view(), y.view());
  CHECK(y.v == x.v);
  cpu::copy(y.view(), y.view());  // in place: nothing
  Buf<std::int64_t> bad({5});
  expect_error([&] { cpu::copy(x.view(), bad.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<float> f({6});
  expect_error([&] { cpu::copy(x.view(), f.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<float> v({1}, {2.5f}), out({2, 2});
  cpu::fill(v.view(), out.view());
  CHECK(out.v == std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f});
  Buf<std::uint8_t> bv({1}, {1}, DataType::boolean), bo({3}, DataType::boolean);
  cpu::fill(bv.view(), bo.view());
  CHECK(bo.v == std::vector<std::uint8_t>{1, 1, 1});
  Buf<float> two({2});
  expect_error([&] { cpu::fill(two.view(), out.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("transpose: every permutation of a rank-4 tensor, several element sizes") {
  const std::vector<std::int64_t> dims = {2, 3, 4, 5};
  auto x = iota_buf<float>(dims);
  auto x8 = iota_buf<std::int64_t>(dims);
  std::vector<std::int64_t> perm = {0, 1, 2, 3};
  do {
    std::vector<std::int64_t> out(4);
    for (std::size_t i = 0; i < 4; ++i) out[i] = dims[static_cast<std::size_t>(perm[i])];
    Buf<float> y(out);
    Buf<std::int64_t> y8(out);
    cpu::transpose(perm, x.view(), y.view());
    cpu::transpose(perm, x8.view(), y8.view());
    for (std::int64_t i = 0; i < y.size(); ++i) {
      const auto oi = unravel(i, out);
      std::vector<std::int64_t> ii(4);
      for (std::size_t d = 0; d < 4; ++d) ii[static_cast<std::size_t>(perm[d])] = oi[d];
      REQUIRE(y[i] == x[ravel(ii, dims)]);
      REQUIRE(y8[i] == x8[ravel(ii, dims)]);
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  Buf<float> y({3, 2, 4, 5});
  const std::int64_t bad[] = {1, 0, 2, 2};
  expect_error([&] { cpu::transpose(bad, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  const std::int64_t p[] = {1, 0, 3, 2};
  expect_error([&] { cpu::transpose(p, x.view(), y.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("transpose NCHW -> NHWC of few channels: the interleaving path, row tails, images, long planes") {
  // 1 to 5 channels (2 to 4 take the interleaving kernel on AVX-512), planes under and over
  // a vector and a task's span of rows, one and several images, and int32 data alike.
  for (const std::int64_t c : {1, 2, 3, 4, 5})
    for (const std::vector<std::int64_t>& hw : {std::vector<std::int64_t>{3, 5}, {7, 9}, {64, 70}})
      for (const std::int64_t n : {1, 3}) {
        CAPTURE(c);
        CAPTURE(hw[0]);
        CAPTURE(n);
        const std::vector<std::int64_t> dims = {n, c, hw[0], hw[1]}, out = {n, hw[0], hw[1], c};
        auto x = iota_buf<float>(dims);
        auto xi = iota_buf<std::int32_t>(dims);
        Buf<float> y(out);
        Buf<std::int32_t> yi(out);
        const std::int64_t perm[] = {0, 2, 3, 1};
        cpu::transpose(perm, x.view(), y.view());
        cpu::transpose(perm, xi.view(), yi.view());
        for (std::int64_t i = 0; i < y.size(); ++i) {
          const auto oi = unravel(i, out);
          const std::int64_t src = ravel({oi[0], oi[3], oi[1], oi[2]}, dims);
          REQUIRE(y[i] == x[src]);
          REQUIRE(yi[i] == xi[src]);
        }
      }
}

TEST_CASE("transpose of a channel shuffle on NHWC: [N, H, W, G, C/G] -> [N, H, W, C/G, G], many short images") {
  // Per pixel a G x C/G -> C/G x G transpose (ShuffleNet's shuffle after layout_nhwc):
  // the interleaving kernel over many pixels per task, rows under and over a vector.
  for (const std::int64_t g : {2, 3, 4})
    for (const std::int64_t half : {7, 24, 40})
      for (const int threads : {1, 2}) {
        CAPTURE(g);
        CAPTURE(half);
        CAPTURE(threads);
        const std::vector<std::int64_t> dims = {2, 7, 9, g, half}, out = {2, 7, 9, half, g};
        auto x = iota_buf<float>(dims);
        Buf<float> y(out);
        const std::int64_t perm[] = {0, 1, 2, 4, 3};
        tbb::task_arena arena(threads);
        arena.execute([&] { cpu::transpose(perm, x.view(), y.view()); });
        for (std::int64_t i = 0; i < y.size(); ++i) {
          const auto oi = unravel(i, out);
          REQUIRE(y[i] == x[ravel({oi[0], oi[1], oi[2], oi[4], oi[3]}, dims)]);
        }
      }
}

TEST_CASE("concat and split round trip on every axis") {
  auto a = iota_buf<std::int32_t>({2, 3, 4});
  Buf<std::int32_t> b({2, 3, 4});
  for (std::int64_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int32_t>(1000 + i);
  for (std::int64_t axis = 0; axis < 3; ++axis) {
    std::vector<std::int64_t> d = {2, 3, 4};
    std::vector<std::int64_t> da = d, db = d;
    da[static_cast<std::size_t>(axis)] = 1;                          // first part: 1 along axis
    db[static_cast<std::size_t>(axis)] = d[static_cast<std::size_t>(axis)] * 2 - 1;
    d[static_cast<std::size_t>(axis)] *= 2;
    Buf<std::int32_t> whole(d);
    const TensorView parts[] = {a.view(), b.view()};
    cpu::concat(axis, parts, whole.view());
    for (std::int64_t i = 0; i < whole.size(); ++i) {
      auto idx = unravel(i, d);
      const std::int64_t half = d[static_cast<std::size_t>(axis)] / 2;
      const bool second = idx[static_cast<std::size_t>(axis)] >= half;
      if (second) idx[static_cast<std::size_t>(axis)] -= half;
      REQUIRE(whole[i] == (second ? b : a)[ravel(idx, a.dims)]);
    }
    Buf<std::int32_t> pa(da), pb(db);
    const TensorView outs[] = {pa.view(), pb.view()};
    cpu::split(axis, whole.view(), outs);
    Buf<std::int32_t> again(d);
    const TensorView parts2[] = {pa.view(), pb.view()};
    cpu::concat(axis, parts2, again.view());
    CHECK(again.v == whole.v);
  }
  Buf<std::int32_t> wrong({2, 3, 9});
  const TensorView parts[] = {a.view(), b.view()};
  expect_error([&] { cpu::concat(2, parts, wrong.view()); }, Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::concat(3, parts, wrong.view()); }, Errc::bad_attribute, kernels_tag);
  Buf<float> f({2, 3, 8});
  expect_error([&] { cpu::concat(2, parts, f.view()); }, Errc::type_mismatch, kernels_tag);
}

TEST_CASE("slice with positive and negative steps") {
  auto x = iota_buf<float>({4, 5, 6});
  struct Case {
    std::vector<std::int64_t> starts, steps, out;
  };
  const std::vector<Case> cases = {
      {{0, 0, 0}, {1, 1, 1}, {4, 5, 6}},  {{1, 2, 0}, {1, 1, 1}, {2, 3, 6}},  {{3, 4, 5}, {-1, -1, -1}, {4, 5, 6}},
      {{0, 4, 5}, {2, -2, -3}, {2, 3, 2}}, {{2, 0, 1}, {1, 3, 2}, {1, 2, 3}},  {{0, 0, 0}, {1, 1, 1}, {0, 5, 6}},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(c);
    Buf<float> y(cases[c].out);
    cpu::slice({.starts = cases[c].starts, .steps = cases[c].steps}, x.view(), y.view());
    for (std::int64_t i = 0; i < y.size(); ++i) {
      auto idx = unravel(i, cases[c].out);
      for (std::size_t d = 0; d < 3; ++d) idx[d] = cases[c].starts[d] + idx[d] * cases[c].steps[d];
      REQUIRE(y[i] == x[ravel(idx, x.dims)]);
    }
  }
  Buf<float> y({4, 5, 6});
  expect_error(
      [&] {
        cpu::slice({.starts = {1, 0, 0}, .steps = {1, 1, 1}}, x.view(), y.view());
      },
      Errc::index_out_of_range, kernels_tag);
  expect_error(
      [&] {
        cpu::slice({.starts = {0, 0, 0}, .steps = {1, 0, 1}}, x.view(), y.view());
      },
      Errc::bad_attribute, kernels_tag);
  expect_error(
      [&] {
        cpu::slice({.starts = {0, 0}, .steps = {1, 1}}, x.view(), y.view());
      },
      Errc::bad_attribute, kernels_tag);
}

TEST_CASE("gather with negative indices, i32 and i64, several axes") {
  auto data = iota_buf<float>({3, 4, 2});
  Buf<std::int64_t> idx({2, 2}, {0, -1, 2, 1});
  Buf<float> y0({2, 2, 4, 2});
  cpu::gather(0, data.view(), idx.view(), y0.view());
  for (std::int64_t i = 0; i < y0.size(); ++i) {
    const auto o = unravel(i, y0.dims);
    std::int64_t k = idx[o[0] * 2 + o[1]];
    if (k < 0) k += 3;
    REQUIRE(y0[i] == data[(k * 4 + o[2]) * 2 + o[3]]);
  }
  Buf<std::int32_t> idx32({3}, {3, -4, 1});
  Buf<float> y1({3, 3, 2});
  cpu::gather(1, data.view(), idx32.view(), y1.view());
  CHECK(y1[0] == data[3 * 2]);
  CHECK(y1[2] == data[0]);
  CHECK(y1[4] == data[1 * 2]);
  Buf<std::int64_t> scalar({}, {1});
  Buf<float> y2({3, 4});
  cpu::gather(2, data.view(), scalar.view(), y2.view());
  for (std::int64_t i = 0; i < 12; ++i) REQUIRE(y2[i] == data[i * 2 + 1]);
  // Empty rows (a fuzzer's finding: memcpy was handed null pointers): nothing is copied,
  // the indices are still checked.
  Buf<float> empty({3, 0});
  Buf<std::int64_t> two({2}, {2, -3});
  Buf<float> ye({2, 0});
  cpu::gather(0, empty.view(), two.view(), ye.view());
  Buf<std::int64_t> bad({1}, {3});
  Buf<float> yb({1, 0});
  expect_error([&] { cpu::gather(0, empty.view(), bad.view(), yb.view()); }, Errc::index_out_of_range, kernels_tag);
  Buf<std::int64_t> oob({1}, {4});
  Buf<float> y3({1, 4, 2});
  expect_error([&] { cpu::gather(0, data.view(), oob.view(), y3.view()); }, Errc::index_out_of_range, kernels_tag);
  Buf<float> fidx({1});
  expect_error([&] { cpu::gather(0, data.view(), fidx.view(), y3.view()); }, Errc::type_mismatch, kernels_tag);
  expect_error([&] { cpu::gather(0, data.view(), idx.view(), y3.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("expand broadcasts") {
  Buf<std::int64_t> x({3, 1}, {1, 2, 3});
  Buf<std::int64_t> y({2, 3, 4});
  cpu::expand(x.view(), y.view());
  for (std::int64_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == 1 + (i / 4) % 3);
  Buf<std::int64_t> bad({2, 4, 4});
  expect_error([&] { cpu::expand(x.view(), bad.view()); }, Errc::incompatible_shapes, kernels_tag);
}

TEST_CASE("cast between types: truncation, saturation, NaN, bool, f16, bf16") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf<float> x({7}, {1.9f, -1.9f, 0.0f, 3e10f, -3e10f, nan, 0.5f});
  Buf<std::int32_t> i32({7});
  cpu::cast(x.view(), i32.view());
  CHECK(i32.v == std::vector<std::int32_t>{1, -1, 0, std::numeric_limits<std::int32_t>::max(),
                                           std::numeric_limits<std::int32_t>::min(), 0, 0});
  Buf<std::uint8_t> b({7}, DataType::boolean);
  cpu::cast(x.view(), b.view());
  CHECK(b.v == std::vector<std::uint8_t>{1, 1, 0, 1, 1, 1, 1});
  Buf<std::int64_t> i64({7});
  cpu::cast(b.view(), i64.view());
  CHECK(i64.v == std::vector<std::int64_t>{1, 1, 0, 1, 1, 1, 1});
  Buf<double> d({7});
  cpu::cast(i32.view(), d.view());
  CHECK(d[3] == 2147483647.0);
  Buf<std::uint8_t> u8({7}, DataType::u8);
  cpu::cast(x.view(), u8.view());
  CHECK(u8.v == std::vector<std::uint8_t>{1, 0, 0, 255, 0, 0, 0});
  Buf<std::int8_t> i8({3}, {-128, 5, 127});
  Buf<float> f8({3});
  cpu::cast(i8.view(), f8.view());
  CHECK(f8.v == std::vector<float>{-128, 5, 127});
  // f16: 1.0 = 0x3c00, -2 = 0xc000, 65504 = 0x7bff, 1e-7 -> subnormal 0x0002, 1e6 -> inf.
  Buf<float> hf({6}, {1.0f, -2.0f, 65504.0f, 1e-7f, 1e6f, 0.1f});
  Buf<std::uint16_t> h({6}, DataType::f16);
  cpu::cast(hf.view(), h.view());
  CHECK(h.v == std::vector<std::uint16_t>{0x3c00, 0xc000, 0x7bff, 0x0002, 0x7c00, 0x2e66});
  Buf<float> back({6});
  cpu::cast(h.view(), back.view());
  CHECK(back[0] == 1.0f);
  CHECK(back[3] == doctest::Approx(1.1920929e-7f));
  CHECK(std::isinf(back[4]));
  CHECK(back[5] == doctest::Approx(0.1f).epsilon(1e-3));
  Buf<std::uint16_t> bf({2}, DataType::bf16);
  Buf<float> bff({2}, {1.0f, 3.0f});
  cpu::cast(bff.view(), bf.view());
  CHECK(bf.v == std::vector<std::uint16_t>{0x3f80, 0x4040});
  Buf<float> shape({6});
  expect_error([&] { cpu::cast(x.view(), shape.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<float> u({7}, DataType::undefined);
  expect_error([&] { cpu::cast(x.view(), u.view()); }, Errc::unsupported, kernels_tag);
}

TEST_CASE("pad: constant, edge, reflect, negative pads") {
  Buf<float> x({2, 3}, {1, 2, 3, 4, 5, 6});
  {
    Buf<float> y({4, 4});
    cpu::pad({.mode = cpu::PadMode::constant, .begin = {1, 0}, .end = {1, 1}, .value = 9}, x.view(), y.view());
    CHECK(y.v == std::vector<float>{9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9, 9});
  }
  {
    Buf<float> y({2, 7});
    cpu::pad({.mode = cpu::PadMode::reflect, .begin = {0, 2}, .end = {0, 2}}, x.view(), y.view());
    CHECK(y.v == std::vector<float>{3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4});
  }
  {
    Buf<float> y({3, 5});
    cpu::pad({.mode = cpu::PadMode::edge, .begin = {1, 1}, .end = {0, 1}}, x.view(), y.view());
    CHECK(y.v == std::vector<float>{1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6});
  }
  {
    Buf<float> y({2, 2});
    cpu::pad({.mode = cpu::PadMode::constant, .begin = {0, -1}, .end = {0, 0}}, x.view(), y.view());
    CHECK(y.v == std::vector<float>{2, 3, 5, 6});
  }
  {
    Buf<std::int64_t> xi({3}, {1, 2, 3});
    Buf<std::int64_t> yi({6});
    cpu::pad({.mode = cpu::PadMode::constant, .begin = {2}, .end = {1}, .value = -7}, xi.view(), yi.view());
    CHECK(yi.v == std::vector<std::int64_t>{-7, -7, 1, 2, 3, -7});
  }
  Buf<float> y({4, 4});
  expect_error(
      [&] {
        cpu::pad({.begin = {1, 1}, .end = {1, 1}}, x.view(), y.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::pad({.begin = {1}, .end = {1}}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
}

TEST_CASE("resize nearest: coordinate and rounding modes, by hand") {
  Buf<float> x({1, 1, 1, 4}, {0, 1, 2, 3});
  const auto run = [&](cpu::ResizeCoord c, cpu::ResizeNearest n, std::int64_t out) {
    Buf<float> y({1, 1, 1, out});
    cpu::resize({.mode = cpu::ResizeMode::nearest, .coord = c, .nearest = n}, x.view(), y.view());
    return y.v;
  };
  using C = cpu::ResizeCoord;
  using N = cpu::ResizeNearest;
  CHECK(run(C::asymmetric, N::floor, 8) == std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(run(C::half_pixel, N::round_prefer_floor, 8) == std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(run(C::half_pixel, N::round_prefer_ceil, 8) == std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(run(C::asymmetric, N::round_prefer_floor, 8) == std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(run(C::asymmetric, N::round_prefer_ceil, 8) == std::vector<float>{0, 1, 1, 2, 2, 3, 3, 3});
  CHECK(run(C::align_corners, N::round_prefer_floor, 7) == std::vector<float>{0, 0, 1, 1, 2, 2, 3});
  CHECK(run(C::align_corners, N::round_prefer_ceil, 7) == std::vector<float>{0, 1, 1, 2, 2, 3, 3});
  CHECK(run(C::asymmetric, N::ceil, 3) == std::vector<float>{0, 2, 3});
  CHECK(run(C::half_pixel, N::round_prefer_floor, 2) == std::vector<float>{0, 2});
  // Explicit scales differ from out/in.
  Buf<float> y({1, 1, 1, 3});
  cpu::resize({.coord = C::asymmetric, .nearest = N::floor, .scales = {1, 1, 1, 0.8f}}, x.view(), y.view());
  CHECK(y.v == std::vector<float>{0, 1, 2});
  // Any type.
  Buf<std::int64_t> xi({2, 2}, {1, 2, 3, 4});
  Buf<std::int64_t> yi({4, 4});
  cpu::resize({.coord = C::asymmetric, .nearest = N::floor}, xi.view(), yi.view());
  CHECK(yi.v == std::vector<std::int64_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST_CASE("resize linear against a reference, all coordinate modes") {
  auto x = random_f32({2, 3, 5, 7}, 3);
  using C = cpu::ResizeCoord;
  for (C c : {C::half_pixel, C::asymmetric, C::align_corners, C::pytorch_half_pixel}) {
    for (auto od : std::vector<std::array<std::int64_t, 2>>{{9, 4}, {1, 13}, {5, 7}, {10, 14}}) {
      CAPTURE(static_cast<int>(c));
      CAPTURE(od[0]);
      Buf<float> y({2, 3, od[0], od[1]});
      cpu::resize({.mode = cpu::ResizeMode::linear, .coord = c}, x.view(), y.view());
      const auto coord = [&](std::int64_t o, std::int64_t in, std::int64_t out) {
        const double s = static_cast<double>(out) / static_cast<double>(in);
        double v = 0;
        switch (c) {
          case C::half_pixel: v = (o + 0.5) / s - 0.5; break;
          case C::asymmetric: v = o / s; break;
          case C::align_corners: v = out == 1 ? 0.0 : o * double(in - 1) / double(out - 1); break;
          case C::pytorch_half_pixel: v = out > 1 ? (o + 0.5) / s - 0.5 : 0.0; break;
          default: break;  // not tested here
        }
        return std::clamp(v, 0.0, double(in - 1));
      };
      std::vector<float> want;
      for (std::int64_t pc = 0; pc < 6; ++pc) {
        for (std::int64_t oy = 0; oy < od[0]; ++oy) {
          for (std::int64_t ox = 0; ox < od[1]; ++ox) {
            const double cy = coord(oy, 5, od[0]), cx = coord(ox, 7, od[1]);
            const auto y0 = static_cast<std::int64_t>(cy), x0 = static_cast<std::int64_t>(cx);
            const std::int64_t y1 = std::min<std::int64_t>(y0 + 1, 4), x1 = std::min<std::int64_t>(x0 + 1, 6);
            const double wy = cy - y0, wx = cx - x0;
            const auto at = [&](std::int64_t yy, std::int64_t xx) { return double(x[(pc * 5 + yy) * 7 + xx]); };
            want.push_back(static_cast<float>((1 - wy) * ((1 - wx) * at(y0, x0) + wx * at(y0, x1)) +
                                              wy * ((1 - wx) * at(y1, x0) + wx * at(y1, x1))));
          }
        }
      }
      check_close(y.v, want, 1e-5f, 1e-5f);
    }
  }
  // Any axis may change: [2,3,5,7] -> [2,4,5,7] interpolates the channels.
  Buf<float> chans({2, 4, 5, 7});
  cpu::resize({.mode = cpu::ResizeMode::linear, .coord = C::align_corners}, x.view(), chans.view());
  CHECK(chans.v[0] == x[0]);
  CHECK(chans.v[3 * 35] == x[2 * 35]);
  // tf_crop_and_resize needs a start and an end per axis.
  expect_error([&] { cpu::resize({.mode = cpu::ResizeMode::linear, .coord = C::tf_crop_and_resize, .roi = {0, 1}},
                                 x.view(), chans.view()); },
               Errc::bad_attribute, kernels_tag, "roi");
  Buf<std::int32_t> xi({1, 1, 2, 2}), yi({1, 1, 4, 4});
  expect_error([&] { cpu::resize({.mode = cpu::ResizeMode::linear}, xi.view(), yi.view()); }, Errc::unsupported,
               kernels_tag);
  Buf<float> y3({2, 3, 5});
  expect_error([&] { cpu::resize({}, x.view(), y3.view()); }, Errc::rank_mismatch, kernels_tag);
}
