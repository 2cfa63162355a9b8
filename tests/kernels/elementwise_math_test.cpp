// The element-wise family of issue #17 in the CPU kernels (src/kernels/cpu/elementwise/unary_table.hpp,
// elementwise.cpp, math.cpp): exact values at the edges the random reference cases do not
// reach (ties, NaN, shifts past the width, wrapping), in place, and every refusal.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "kernel_test.hpp"
#include "kernels/cpu/elementwise/elementwise.hpp"
#include "kernels/cpu/elementwise/math.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("unary table: Round ties to even, Sign keeps NaN, in place and on f64") {
  Buf<float> x({7}, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f, -2.6f});
  cpu::unary({.op = cpu::UnaryOp::round}, x.view(), x.view());  // in place
  CHECK(x.v == std::vector<float>{0.f, 2.f, 2.f, -0.f, -2.f, 2.f, -3.f});
  Buf<float> s({4}, {-3.f, 0.f, 7.f, kNaN}), sy({4});
  cpu::unary({.op = cpu::UnaryOp::sign}, s.view(), sy.view());
  CHECK(sy[0] == -1.f);
  CHECK(sy[1] == 0.f);
  CHECK(sy[2] == 1.f);
  CHECK(std::isnan(sy[3]));
  Buf<std::int64_t> si({3}, {-9, 0, 4}), siy({3});
  cpu::unary({.op = cpu::UnaryOp::sign}, si.view(), siy.view());
  CHECK(siy.v == std::vector<std::int64_t>{-1, 0, 1});
  Buf<double> d({3}, {0.0, 1.0, -2.0}, DataType::f64), dy({3}, DataType::f64);
  cpu::unary({.op = cpu::UnaryOp::softplus}, d.view(), dy.view());
  CHECK(dy[0] == doctest::Approx(std::log(2.0)).epsilon(1e-12));
  CHECK(dy[1] == doctest::Approx(std::log1p(std::exp(1.0))).epsilon(1e-12));
  // Softplus does not overflow where e^x does.
  Buf<float> big({1}, {200.f}), by({1});
  cpu::unary({.op = cpu::UnaryOp::softplus}, big.view(), by.view());
  CHECK(by[0] == 200.f);
}

TEST_CASE("unary table: the activations' attributes reach the kernel") {
  Buf<float> x({4}, {-2.f, -0.25f, 0.25f, 2.f}), y({4});
  cpu::unary({.op = cpu::UnaryOp::shrink, .alpha = 0.5f, .beta = 0.1f}, x.view(), y.view());
  CHECK(y.v == std::vector<float>{-1.9f, 0.f, 0.f, 1.9f});
  cpu::unary({.op = cpu::UnaryOp::thresholded_relu, .alpha = 0.25f}, x.view(), y.view());
  CHECK(y.v == std::vector<float>{0.f, 0.f, 0.f, 2.f});
  cpu::unary({.op = cpu::UnaryOp::selu, .alpha = 2.f, .gamma = 3.f}, x.view(), y.view());
  CHECK(y[0] == doctest::Approx(3.0 * 2.0 * std::expm1(-2.0)));
  CHECK(y[3] == 6.f);
  cpu::unary({.op = cpu::UnaryOp::celu, .alpha = 2.f}, x.view(), y.view());
  CHECK(y[0] == doctest::Approx(2.0 * std::expm1(-1.0)));
}

TEST_CASE("unary table: refusals") {
  Buf<float> x({2}, {1.f, 2.f}), y({2});
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::celu, .alpha = 0.f}, x.view(), y.view()); },
               Errc::invalid_argument, kernels_tag, "Celu", "alpha is 0");
  Buf<std::int32_t> i({2}, {1, 2}), iy({2});
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::sin}, i.view(), iy.view()); }, Errc::unsupported, "Sin", "i32");
  Buf<double> d({2}, {1.0, 2.0}, DataType::f64), dy({2}, DataType::f64);
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::gelu}, d.view(), dy.view()); }, Errc::unsupported, "Gelu", "f64");
}

TEST_CASE("IsNaN and IsInf with the detect flags; refusals") {
  Buf<float> x({5}, {kNaN, kInf, -kInf, 0.f, -1.f});
  Buf<std::uint8_t> y({5}, DataType::boolean);
  cpu::float_test(cpu::FloatTest::nan, false, false, x.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{1, 0, 0, 0, 0});
  cpu::float_test(cpu::FloatTest::inf, true, true, x.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{0, 1, 1, 0, 0});
  cpu::float_test(cpu::FloatTest::inf, true, false, x.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{0, 0, 1, 0, 0});
  cpu::float_test(cpu::FloatTest::inf, false, true, x.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{0, 1, 0, 0, 0});
  Buf<float> wrong({5});
  expect_error([&] { cpu::float_test(cpu::FloatTest::nan, true, true, x.view(), wrong.view()); }, Errc::type_mismatch,
               "IsNaN");
  Buf<std::int32_t> i({5});
  expect_error([&] { cpu::float_test(cpu::FloatTest::inf, true, true, i.view(), y.view()); }, Errc::unsupported,
               "IsInf", "i32");
}

TEST_CASE("BitShift: shifts of the bit width or more give 0; signed types are refused") {
  Buf<std::uint8_t> a({4}, {0x81, 1, 255, 16}), b({4}, {1, 7, 8, 200}), y({4});
  cpu::binary(cpu::BinaryOp::shift_left, a.view(), b.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{0x02, 0x80, 0, 0});
  cpu::binary(cpu::BinaryOp::shift_right, a.view(), b.view(), y.view());
  CHECK(y.v == std::vector<std::uint8_t>{0x40, 0, 0, 0});
  Buf<std::uint64_t> w({2}, {1, ~std::uint64_t{0}}, DataType::u64), s({1}, {63}, DataType::u64),
      wy({2}, DataType::u64);
  cpu::binary(cpu::BinaryOp::shift_left, w.view(), s.view(), wy.view());  // broadcast shift
  CHECK(wy.v == std::vector<std::uint64_t>{std::uint64_t{1} << 63, std::uint64_t{1} << 63});
  Buf<std::int32_t> i({1}, {1}), iy({1});
  expect_error([&] { cpu::binary(cpu::BinaryOp::shift_left, i.view(), i.view(), iy.view()); }, Errc::unsupported,
               "BitShift", "i32");
}

TEST_CASE("unsigned arithmetic wraps without overflowing int; f64 arithmetic; logic; PRelu") {
  Buf<std::uint16_t> a({2}, {65535, 300}, DataType::u16), y({2}, DataType::u16);
  cpu::binary(cpu::BinaryOp::mul, a.view(), a.view(), y.view());
  CHECK(y.v == std::vector<std::uint16_t>{1, static_cast<std::uint16_t>(90000 % 65536)});
  Buf<std::uint8_t> u({2}, {250, 3}), v({2}, {10, 0}), uy({2});
  cpu::binary(cpu::BinaryOp::add, u.view(), v.view(), uy.view());
  CHECK(uy.v == std::vector<std::uint8_t>{4, 3});
  expect_error([&] { cpu::binary(cpu::BinaryOp::div, u.view(), v.view(), uy.view()); }, Errc::invalid_argument, "Div",
               "by zero");
  Buf<double> d({2, 2}, {1, 2, 3, 4}, DataType::f64), e({2}, {0.5, 1}, DataType::f64), dy({2, 2}, DataType::f64);
  cpu::binary(cpu::BinaryOp::sub, d.view(), e.view(), dy.view());
  CHECK(dy.v == std::vector<double>{0.5, 1, 2.5, 3});
  Buf<std::uint8_t> p({4}, {0, 0, 1, 1}, DataType::boolean), q({4}, {0, 1, 0, 1}, DataType::boolean),
      r({4}, DataType::boolean);
  cpu::binary(cpu::BinaryOp::logical_xor, p.view(), q.view(), r.view());
  CHECK(r.v == std::vector<std::uint8_t>{0, 1, 1, 0});
  cpu::binary(cpu::BinaryOp::logical_and, p.view(), q.view(), r.view());
  CHECK(r.v == std::vector<std::uint8_t>{0, 0, 0, 1});
  Buf<float> f({2}, {1.f, 2.f}), fy({2}, DataType::boolean);
  expect_error([&] { cpu::binary(cpu::BinaryOp::logical_or, f.view(), f.view(), fy.view()); }, Errc::unsupported, "Or",
               "expected bool");
  Buf<float> x({2, 2}, {-1.f, 2.f, -3.f, 4.f}), slope({2, 1}, {0.5f, 0.25f}), py({2, 2});
  cpu::binary(cpu::BinaryOp::prelu, x.view(), slope.view(), py.view());
  CHECK(py.v == std::vector<float>{-0.5f, 2.f, -0.75f, 4.f});
}

TEST_CASE("variadic Sum and Mean broadcast; the mean of integers truncates") {
  Buf<float> a({2, 1}, {1.f, 2.f}), b({3}, {10.f, 20.f, 30.f}), c({1}, {100.f}), y({2, 3});
  const ge::TensorView abc[] = {a.view(), b.view(), c.view()};
  cpu::variadic(cpu::Variadic::sum, abc, y.view());
  CHECK(y.v == std::vector<float>{111.f, 121.f, 131.f, 112.f, 122.f, 132.f});
  cpu::variadic(cpu::Variadic::mean, abc, y.view());
  CHECK(y[0] == doctest::Approx(37.0));
  Buf<std::int32_t> i({2}, {1, -4}), j({2}, {2, 1}), iy({2});
  const ge::TensorView ij[] = {i.view(), j.view()};
  cpu::variadic(cpu::Variadic::mean, ij, iy.view());
  CHECK(iy.v == std::vector<std::int32_t>{1, -1});
  expect_error([&] { cpu::variadic(cpu::Variadic::sum, {}, y.view()); }, Errc::bad_op_inputs, "Sum", "no inputs");
}

TEST_CASE("Pow of mixed and integer types: exact integer powers, truncation, refusals") {
  Buf<std::int64_t> x({5}, {2, 3, -2, 1, -1}), e({5}, {62, 2, 3, -5, -3}), z({5});
  cpu::pow_mixed(x.view(), e.view(), z.view());
  CHECK(z.v == std::vector<std::int64_t>{std::int64_t{1} << 62, 9, -8, 1, -1});
  Buf<std::int32_t> xi({2}, {2, 7}), zi({2});
  Buf<float> ef({2}, {0.5f, 2.f});
  cpu::pow_mixed(xi.view(), ef.view(), zi.view());  // 1.414 truncates to 1
  CHECK(zi.v == std::vector<std::int32_t>{1, 49});
  Buf<std::int32_t> neg({1}, {-8});
  Buf<float> third({1}, {1.f / 3.f});
  Buf<std::int32_t> zn({1}, {5});
  cpu::pow_mixed(neg.view(), third.view(), zn.view());  // NaN in double: 0
  CHECK(zn[0] == 0);
  Buf<float> xf({2, 1}, {2.f, 3.f}), zf({2, 2});
  Buf<std::uint64_t> eu({2}, {0, 3}, DataType::u64);
  cpu::pow_mixed(xf.view(), eu.view(), zf.view());
  CHECK(zf.v == std::vector<float>{1.f, 8.f, 1.f, 27.f});
  Buf<std::uint8_t> u8({2}, {1, 2});
  expect_error([&] { cpu::pow_mixed(u8.view(), ef.view(), u8.view()); }, Errc::unsupported, "Pow", "X of type 'u8'");
  Buf<std::uint8_t> b({2}, {1, 0}, DataType::boolean);
  expect_error([&] { cpu::pow_mixed(xf.view(), b.view(), zf.view()); }, Errc::unsupported, "Pow", "Y of type 'bool'");
}

TEST_CASE("Clip on integers: bounds clamped to the type, hi wins, unbounded ends, refusals") {
  Buf<std::int8_t> x({4}, {-128, -5, 5, 127}, DataType::i8), y({4}, DataType::i8);
  cpu::clip_int(-300, 4, x.view(), y.view());  // lo below i8's range
  CHECK(y.v == std::vector<std::int8_t>{-128, -5, 4, 4});
  cpu::clip_int(3, 1, x.view(), x.view());  // lo > hi: hi wins; in place
  CHECK(x.v == std::vector<std::int8_t>{1, 1, 1, 1});
  Buf<std::uint64_t> u({2}, {~std::uint64_t{0}, 3}, DataType::u64), uy({2}, DataType::u64);
  cpu::clip_int(5, std::numeric_limits<std::int64_t>::max(), u.view(), uy.view());
  CHECK(uy.v == std::vector<std::uint64_t>{~std::uint64_t{0}, 5});
  Buf<float> f({1}, {1.f}), fy({1});
  expect_error([&] { cpu::clip_int(0, 1, f.view(), fy.view()); }, Errc::unsupported, "Clip", "not an integer type");
}
