#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kernel_test.hpp"
#include "kernels/cpu/host.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

TEST_CASE("nonzero: count then fill, several types") {
  Buf<float> x({2, 3}, {0, 1, 0, -2, 0, 3});
  const std::int64_t n = cpu::nonzero_count(x.view());
  CHECK(n == 3);
  Buf<std::int64_t> y({2, n});
  cpu::nonzero(x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{0, 1, 1, 1, 0, 2});
  Buf<std::uint8_t> b({4}, {0, 1, 1, 0}, DataType::boolean);
  Buf<std::int64_t> yb({1, 2});
  cpu::nonzero(b.view(), yb.view());
  CHECK(yb.v == std::vector<std::int64_t>{1, 2});
  Buf<std::int32_t> s({}, {5});
  CHECK(cpu::nonzero_count(s.view()) == 1);
  Buf<std::int64_t> ys({1, 1});
  cpu::nonzero(s.view(), ys.view());
  CHECK(ys[0] == 0);
  Buf<std::uint16_t> h({3}, {0x8000, 0x3c00, 0}, DataType::f16);  // -0, 1, +0
  CHECK(cpu::nonzero_count(h.view()) == 1);
  Buf<std::int64_t> bad({2, 2});
  expect_error([&] { cpu::nonzero(x.view(), bad.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<float> badt({2, 3});
  expect_error([&] { cpu::nonzero(x.view(), badt.view()); }, Errc::type_mismatch, kernels_tag);
}

TEST_CASE("top_k: largest, smallest, ties keep the lower index, NaN first") {
  Buf<float> x({2, 5}, {1, 5, 3, 5, 2, 0, -1, 7, -1, 4});
  Buf<float> v({2, 3});
  Buf<std::int64_t> i({2, 3});
  cpu::top_k({.axis = 1, .k = 3}, x.view(), v.view(), i.view());
  CHECK(v.v == std::vector<float>{5, 5, 3, 7, 4, 0});
  CHECK(i.v == std::vector<std::int64_t>{1, 3, 2, 2, 4, 0});
  cpu::top_k({.axis = 1, .k = 3, .largest = false}, x.view(), v.view(), i.view());
  CHECK(v.v == std::vector<float>{1, 2, 3, -1, -1, 0});
  CHECK(i.v == std::vector<std::int64_t>{0, 4, 2, 1, 3, 0});
  Buf<float> y0({1, 5});
  Buf<std::int64_t> i0({1, 5});
  cpu::top_k({.axis = 0, .k = 1}, x.view(), y0.view(), i0.view());
  CHECK(y0.v == std::vector<float>{1, 5, 7, 5, 4});
  CHECK(i0.v == std::vector<std::int64_t>{0, 0, 1, 0, 1});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf<float> xn({3}, {1, nan, 2});
  Buf<float> vn({2});
  Buf<std::int64_t> in({2});
  cpu::top_k({.axis = 0, .k = 2}, xn.view(), vn.view(), in.view());
  CHECK(in.v == std::vector<std::int64_t>{1, 2});
}

TEST_CASE("top_k on random data matches a stable sort, along a middle axis") {
  auto x = random_f32({3, 50, 4}, 5);
  for (std::int64_t j = 0; j < x.size(); j += 7) x[j] = 0.25f;  // ties
  Buf<float> v({3, 10, 4});
  Buf<std::int64_t> idx({3, 10, 4});
  cpu::top_k({.axis = 1, .k = 10}, x.view(), v.view(), idx.view());
  for (std::int64_t o = 0; o < 3; ++o) {
    for (std::int64_t in = 0; in < 4; ++in) {
      std::vector<std::int64_t> order(50);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::int64_t a, std::int64_t b) { return x[(o * 50 + a) * 4 + in] > x[(o * 50 + b) * 4 + in]; });
      for (std::int64_t r = 0; r < 10; ++r) {
        REQUIRE(idx[(o * 10 + r) * 4 + in] == order[static_cast<std::size_t>(r)]);
        REQUIRE(v[(o * 10 + r) * 4 + in] == x[(o * 50 + order[static_cast<std::size_t>(r)]) * 4 + in]);
      }
    }
  }
}

TEST_CASE("top_k on long rows with ties and NaNs matches a stable sort, largest and smallest") {
  auto x = random_f32({6, 300}, 9);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t j = 0; j < x.size(); j += 11) x[j] = 0.5f;  // ties
  for (std::int64_t j = 5; j < x.size(); j += 97) x[j] = nan;
  for (std::int64_t j = 3; j < x.size(); j += 29) x[j] = j % 2 == 0 ? 0.0f : -0.0f;  // -0 ties with +0
  for (std::int64_t j = 7; j < x.size(); j += 31) x[j] = j % 2 == 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  for (const bool largest : {true, false}) {
    Buf<float> v({6, 17});
    Buf<std::int64_t> idx({6, 17});
    cpu::top_k({.axis = 1, .k = 17, .largest = largest}, x.view(), v.view(), idx.view());
    for (std::int64_t o = 0; o < 6; ++o) {
      std::vector<std::int64_t> order(300);
      std::iota(order.begin(), order.end(), 0);
      const auto key = [&](std::int64_t a) { return x[o * 300 + a]; };
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        const float p = key(a), q = key(b);
        if (std::isnan(p) || std::isnan(q)) return largest ? (std::isnan(p) && !std::isnan(q)) : (!std::isnan(p) && std::isnan(q));
        return largest ? p > q : p < q;
      });
      for (std::int64_t r = 0; r < 17; ++r) REQUIRE(idx[o * 17 + r] == order[static_cast<std::size_t>(r)]);
    }
  }
}

TEST_CASE("top_k errors") {
  Buf<float> x({2, 5}), v({2, 3});
  Buf<std::int64_t> i({2, 3});
  expect_error([&] { cpu::top_k({.axis = 1, .k = 6}, x.view(), v.view(), i.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error([&] { cpu::top_k({.axis = 2, .k = 1}, x.view(), v.view(), i.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error([&] { cpu::top_k({.axis = 1, .k = 2}, x.view(), v.view(), i.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  Buf<std::int32_t> i32({2, 3});
  expect_error([&] { cpu::top_k({.axis = 1, .k = 3}, x.view(), v.view(), i32.view()); }, Errc::type_mismatch,
               kernels_tag);
}
