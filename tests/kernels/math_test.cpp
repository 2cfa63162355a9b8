// Tests of kernels/cpu/elementwise/math.hpp: HardSigmoid, Not, Mod, Min/Max, InstanceNormalization,
// Trilu and Range against direct references, with the bad arguments each must refuse.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "kernel_test.hpp"
#include "kernels/cpu/elementwise/math.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;
using Ints = std::vector<std::int64_t>;

TEST_CASE("hard_sigmoid clamps alpha * x + beta to [0, 1]; in place too") {
  Buf<float> x({5}, {-4.f, -1.f, 0.f, 1.f, 4.f});
  Buf<float> y({5});
  cpu::hard_sigmoid({.alpha = 0.2f, .beta = 0.5f}, x.view(), y.view());
  check_close(y.v, {0.f, 0.3f, 0.5f, 0.7f, 1.f});
  cpu::hard_sigmoid({.alpha = 0.5f, .beta = 0.f}, x.view(), x.view());
  check_close(x.v, {0.f, 0.f, 0.f, 0.5f, 1.f});
  Buf<std::int32_t> xi({2});
  expect_error([&] { cpu::hard_sigmoid({}, xi.view(), xi.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<float> wrong({4});
  expect_error([&] { cpu::hard_sigmoid({}, y.view(), wrong.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("logical_not on bool") {
  Buf<std::uint8_t> x({2, 2}, {0, 1, 1, 0}, DataType::boolean), y({2, 2}, DataType::boolean);
  cpu::logical_not(x.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{1, 0, 0, 1});
  Buf<float> f({4});
  expect_error([&] { cpu::logical_not(f.view(), y.view()); }, Errc::type_mismatch, kernels_tag);
}

TEST_CASE("mod: integer modulus takes the divisor's sign, fmod the dividend's; broadcasting; i8, u8, f64") {
  Buf<std::int64_t> a({6}, {-4, 7, 5, 4, -7, 8}), b({6}, {2, -3, 8, -2, 3, 5}), y({6});
  cpu::mod(false, a.view(), b.view(), y.view());
  CHECK(y.v == Ints{0, -2, 5, 0, 2, 3});  // numpy: np.mod
  cpu::mod(true, a.view(), b.view(), y.view());
  CHECK(y.v == Ints{0, 1, 5, 0, -1, 3});  // C: fmod / truncation

  Buf<std::int32_t> ai({2, 3}, {-5, -4, -3, 3, 4, 5}), bi({3}, {3, -3, 2}), yi({2, 3});
  cpu::mod(false, ai.view(), bi.view(), yi.view());
  CHECK(yi.v == std::vector<std::int32_t>{1, -1, 1, 0, -2, 1});
  Buf<std::int32_t> mn({1}, {std::numeric_limits<std::int32_t>::min()}), m1({1}, {-1}), y1({1});
  cpu::mod(false, mn.view(), m1.view(), y1.view());  // no overflow trap
  CHECK(y1.v[0] == 0);

  Buf<float> af({4}, {5.5f, -5.5f, 5.5f, -5.5f}), bf({4}, {2.f, 2.f, -2.f, -2.f}), yf({4});
  cpu::mod(true, af.view(), bf.view(), yf.view());
  check_close(yf.v, {1.5f, -1.5f, 1.5f, -1.5f});
  expect_error([&] { cpu::mod(false, af.view(), bf.view(), yf.view()); }, Errc::unsupported, kernels_tag);

  Buf<std::int8_t> a8({3}, {-7, 7, -128}, DataType::i8), b8({3}, {3, -3, 3}, DataType::i8), y8({3}, DataType::i8);
  cpu::mod(false, a8.view(), b8.view(), y8.view());
  CHECK(y8.v == std::vector<std::int8_t>{2, -2, 1});
  Buf<std::uint8_t> u8a({2}, {250, 7}, DataType::u8), u8b({2}, {7, 250}, DataType::u8), u8y({2}, DataType::u8);
  cpu::mod(false, u8a.view(), u8b.view(), u8y.view());
  CHECK(u8y.v == std::vector<std::uint8_t>{5, 7});
  Buf<double> ad({2}, {-7.5, 7.5}), bd({1}, {2.0}), yd({2});
  cpu::mod(true, ad.view(), bd.view(), yd.view());
  CHECK(yd.v == std::vector<double>{-1.5, 1.5});

  Buf<std::int64_t> zero({1}, {0});
  expect_error([&] { cpu::mod(false, a.view(), zero.view(), y.view()); }, Errc::invalid_argument, kernels_tag);
  expect_error([&] { cpu::mod(false, a.view(), bi.view(), y.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<std::int64_t> b4({4});
  expect_error([&] { cpu::mod(false, a.view(), b4.view(), y.view()); }, Errc::incompatible_shapes, kernels_tag);
}

TEST_CASE("variadic Min and Max over 1 to 3 inputs with broadcasting; NaN propagates; unsigned types") {
  Buf<float> a({2, 3}, {1, 5, 3, -1, 0, 9}), b({3}, {2, 2, 2}), c({2, 1}, {4, -5});
  Buf<float> y({2, 3});
  const ge::TensorView abc[] = {a.view(), b.view(), c.view()};
  cpu::variadic(cpu::Variadic::max, abc, y.view());
  CHECK(y.v == std::vector<float>{4, 5, 4, 2, 2, 9});
  cpu::variadic(cpu::Variadic::min, abc, y.view());
  CHECK(y.v == std::vector<float>{1, 2, 2, -5, -5, -5});
  const ge::TensorView one[] = {a.view()};
  cpu::variadic(cpu::Variadic::max, one, y.view());
  CHECK(y.v == a.v);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf<float> n1({2}, {nan, 1.f}), n2({2}, {0.f, nan}), yn({2});
  const ge::TensorView nn[] = {n1.view(), n2.view()};
  cpu::variadic(cpu::Variadic::max, nn, yn.view());
  CHECK(std::isnan(yn.v[0]));
  CHECK(std::isnan(yn.v[1]));

  Buf<std::int64_t> i1({3}, {1, -7, 3}), i2({1}, {0}), yi({3});
  const ge::TensorView ii[] = {i1.view(), i2.view()};
  cpu::variadic(cpu::Variadic::min, ii, yi.view());
  CHECK(yi.v == Ints{0, -7, 0});

  expect_error([&] { cpu::variadic(cpu::Variadic::max, {}, y.view()); }, Errc::bad_op_inputs, kernels_tag);
  const ge::TensorView mixed[] = {a.view(), i1.view()};
  expect_error([&] { cpu::variadic(cpu::Variadic::max, mixed, y.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<float> bad({4});
  const ge::TensorView no_bc[] = {a.view(), bad.view()};
  expect_error([&] { cpu::variadic(cpu::Variadic::max, no_bc, y.view()); }, Errc::incompatible_shapes, kernels_tag);
  Buf<std::uint8_t> u1({3}, {200, 3, 7}, DataType::u8), u2({1}, {100}, DataType::u8), uy({3}, DataType::u8);
  const ge::TensorView us[] = {u1.view(), u2.view()};
  cpu::variadic(cpu::Variadic::max, us, uy.view());
  CHECK(uy.v == std::vector<std::uint8_t>{200, 100, 100});
  Buf<std::uint16_t> h({2});  // f16: no arithmetic
  const ge::TensorView hs[] = {h.view(), h.view()};
  expect_error([&] { cpu::variadic(cpu::Variadic::max, hs, h.view()); }, Errc::unsupported, kernels_tag);
}

TEST_CASE("instance_norm normalises each (n, c) plane; NCHW and N,C,D1,D2,D3") {
  for (const Ints& dims : {Ints{2, 3, 4, 5}, Ints{1, 2, 3, 2, 2}, Ints{2, 2, 7}}) {
    const Buf<float> x = random_f32(dims, 7, -2.f, 3.f);
    const std::int64_t ch = dims[1];
    Buf<float> scale({ch}), bias({ch}), y(dims);
    for (std::int64_t c = 0; c < ch; ++c) scale[c] = 0.5f + static_cast<float>(c), bias[c] = -0.25f * static_cast<float>(c);
    cpu::instance_norm({.epsilon = 1e-3f}, x.view(), scale.view(), bias.view(), y.view());
    std::int64_t size = 1;
    for (std::size_t i = 2; i < dims.size(); ++i) size *= dims[i];
    std::vector<float> want(x.v.size());
    for (std::int64_t p = 0; p < dims[0] * ch; ++p) {
      double m = 0, v = 0;
      for (std::int64_t i = 0; i < size; ++i) m += x[p * size + i];
      m /= static_cast<double>(size);
      for (std::int64_t i = 0; i < size; ++i) v += (x[p * size + i] - m) * (x[p * size + i] - m);
      v /= static_cast<double>(size);
      for (std::int64_t i = 0; i < size; ++i)
        want[static_cast<std::size_t>(p * size + i)] =
            static_cast<float>((x[p * size + i] - m) / std::sqrt(v + 1e-3) * scale[p % ch] + bias[p % ch]);
    }
    check_close(y.v, want, 1e-4f, 1e-4f);
  }
  Buf<float> x2({2, 3}), s3({3}), y2({2, 3});
  expect_error([&] { cpu::instance_norm({}, x2.view(), s3.view(), s3.view(), y2.view()); }, Errc::rank_mismatch,
               kernels_tag);
  Buf<float> x4({1, 3, 2, 2}), s2({2}), y4({1, 3, 2, 2});
  expect_error([&] { cpu::instance_norm({}, x4.view(), s2.view(), s3.view(), y4.view()); }, Errc::bad_op_inputs,
               kernels_tag);
}

TEST_CASE("trilu: upper and lower with k on batches of rectangular matrices; any element size") {
  Buf<float> x({2, 3, 4}), y({2, 3, 4});
  for (std::int64_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
  for (const bool upper : {true, false}) {
    for (const std::int64_t k : {-4, -1, 0, 1, 2, 9}) {
      CAPTURE(upper);
      CAPTURE(k);
      cpu::trilu({.upper = upper, .k = k}, x.view(), y.view());
      for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t i = 0; i < 3; ++i)
          for (std::int64_t j = 0; j < 4; ++j) {
            const std::int64_t at = (b * 3 + i) * 4 + j;
            const bool keep = upper ? j - i >= k : j - i <= k;
            CHECK(y[at] == (keep ? x[at] : 0.f));
          }
    }
  }
  Buf<std::uint8_t> bx({2, 2}, {1, 1, 1, 1}, DataType::boolean), by({2, 2}, DataType::boolean);
  cpu::trilu({.upper = false}, bx.view(), by.view());
  CHECK(by.v == std::vector<std::uint8_t>{1, 0, 1, 1});
  Buf<std::int64_t> ix({2, 2}, {1, 2, 3, 4});
  cpu::trilu({.upper = true, .k = std::numeric_limits<std::int64_t>::min()}, ix.view(), ix.view());  // in place
  CHECK(ix.v == Ints{1, 2, 3, 4});
  Buf<float> v({4});
  expect_error([&] { cpu::trilu({}, v.view(), v.view()); }, Errc::rank_mismatch, kernels_tag);
  Buf<std::int32_t> yi({2, 3, 4});
  expect_error([&] { cpu::trilu({}, x.view(), yi.view()); }, Errc::type_mismatch, kernels_tag);
}

TEST_CASE("range fills start + i * delta for f32, i32, i64; delta 0 is refused") {
  Buf<float> s({}, {1.f}), d({}, {0.5f}), y({4});
  cpu::range(s.view(), d.view(), y.view());
  check_close(y.v, {1.f, 1.5f, 2.f, 2.5f});
  Buf<std::int32_t> si({}, {10}), di({}, {-3}), yi({3});
  cpu::range(si.view(), di.view(), yi.view());
  CHECK(yi.v == std::vector<std::int32_t>{10, 7, 4});
  Buf<std::int64_t> sl({1}, {-2}), dl({1}, {2}), yl({3});
  cpu::range(sl.view(), dl.view(), yl.view());
  CHECK(yl.v == Ints{-2, 0, 2});
  Buf<std::int64_t> z({}, {0});
  expect_error([&] { cpu::range(sl.view(), z.view(), yl.view()); }, Errc::invalid_argument, kernels_tag);
  expect_error([&] { cpu::range(s.view(), d.view(), yl.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<std::int64_t> two({2}, {1, 2});
  expect_error([&] { cpu::range(two.view(), dl.view(), yl.view()); }, Errc::bad_op_inputs, kernels_tag);
}
