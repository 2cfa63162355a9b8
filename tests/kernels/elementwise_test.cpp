#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "kernel_test.hpp"
#include "kernels/cpu/elementwise/elementwise.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

// Reference numpy broadcast: the flat index into `in` for output index `i`.
std::int64_t bidx(const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out, std::int64_t i) {
  std::int64_t off = 0, stride = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t d = out.size() - 1 - k;
    const std::int64_t idx = i % out[d];
    i /= out[d];
    if (k < in.size()) {
      const std::size_t di = in.size() - 1 - k;
      if (in[di] != 1) off += idx * stride;
      stride *= in[di];
    }
  }
  return off;
}

template <class T, class R, class F>
void check_binary(cpu::BinaryOp op, const Buf<T>& a, const Buf<T>& b, std::vector<std::int64_t> out, F ref) {
  Buf<R> y(out, std::is_same_v<R, std::uint8_t> ? DataType::boolean : ge::test::dtype_of<T>());
  cpu::binary(op, a.view(), b.view(), y.view());
  for (std::int64_t i = 0; i < y.size(); ++i) {
    const R want = ref(a[bidx(a.dims, out, i)], b[bidx(b.dims, out, i)]);
    if constexpr (std::is_floating_point_v<R>) {
      REQUIRE(y[i] == doctest::Approx(want).epsilon(1e-6));
    } else {
      REQUIRE(y[i] == want);
    }
  }
}

}  // namespace

TEST_CASE("binary f32 with broadcasting matches the reference") {
  const std::vector<std::vector<std::vector<std::int64_t>>> shapes = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},   {{2, 3, 4}, {4}, {2, 3, 4}},       {{2, 3, 4}, {3, 1}, {2, 3, 4}},
      {{1}, {5, 7}, {5, 7}},               {{}, {3, 33}, {3, 33}},            {{4, 1, 5}, {1, 6, 1}, {4, 6, 5}},
      {{2, 1, 3, 1}, {5, 1, 7}, {2, 5, 3, 7}}, {{40000}, {40000}, {40000}},   {{3, 0}, {1}, {3, 0}},
      {{257, 1}, {1, 130}, {257, 130}},
      // One operand a row repeated along the dim before (an SE gate over a channels-last
      // image): runs of rows against the row repeated, per batch, either side, rows and
      // runs that do not divide (42 rows a run of 1024: 113 rows; 200 channels: 5 a run).
      {{2, 9, 7, 32}, {2, 1, 1, 32}, {2, 9, 7, 32}},  {{1, 1, 24}, {3, 113, 24}, {3, 113, 24}},
      {{9, 200}, {200}, {9, 200}},  {{4, 6, 5}, {4, 1, 5}, {4, 6, 5}},  {{2, 3, 70, 16}, {3, 1, 16}, {2, 3, 70, 16}},
  };
  std::uint32_t seed = 1;
  for (const auto& s : shapes) {
    CAPTURE(seed);
    auto a = random_f32(s[0], seed++, 0.5f, 2.0f);
    auto b = random_f32(s[1], seed++, 0.5f, 2.0f);
    check_binary<float, float>(cpu::BinaryOp::add, a, b, s[2], [](float u, float v) { return u + v; });
    check_binary<float, float>(cpu::BinaryOp::sub, a, b, s[2], [](float u, float v) { return u - v; });
    check_binary<float, float>(cpu::BinaryOp::mul, a, b, s[2], [](float u, float v) { return u * v; });
    check_binary<float, float>(cpu::BinaryOp::div, a, b, s[2], [](float u, float v) { return u / v; });
    check_binary<float, float>(cpu::BinaryOp::pow, a, b, s[2], [](float u, float v) { return std::pow(u, v); });
    check_binary<float, std::uint8_t>(cpu::BinaryOp::less, a, b, s[2], [](float u, float v) { return u < v; });
    check_binary<float, std::uint8_t>(cpu::BinaryOp::greater, a, b, s[2], [](float u, float v) { return u > v; });
  }
}

TEST_CASE("binary integer arithmetic and comparisons, by hand") {
  Buf<std::int64_t> a({2, 3}, {7, -7, 9, 100, 5, std::numeric_limits<std::int64_t>::min()});
  Buf<std::int64_t> b({3}, {2, 2, -1});
  Buf<std::int64_t> y({2, 3});
  cpu::binary(cpu::BinaryOp::div, a.view(), b.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{3, -3, -9, 50, 2, std::numeric_limits<std::int64_t>::min()});
  cpu::binary(cpu::BinaryOp::add, a.view(), b.view(), y.view());
  CHECK(y.v[0] == 9);
  CHECK(y.v[5] == std::numeric_limits<std::int64_t>::max());  // wraps, no UB
  cpu::binary(cpu::BinaryOp::mul, a.view(), b.view(), y.view());
  CHECK(y.v[3] == 200);
  Buf<std::int32_t> c({4}, {1, 2, 3, 4}), d({1}, {3});
  Buf<std::int32_t> yc({4});
  cpu::binary(cpu::BinaryOp::sub, c.view(), d.view(), yc.view());
  CHECK(yc.v == std::vector<std::int32_t>{-2, -1, 0, 1});
  Buf<std::uint8_t> eq({4}, DataType::boolean);
  cpu::binary(cpu::BinaryOp::equal, c.view(), d.view(), eq.view());
  CHECK(eq.v == std::vector<std::uint8_t>{0, 0, 1, 0});
  Buf<std::uint8_t> ba({3}, {1, 0, 1}, DataType::boolean), bb({3}, {1, 1, 1}, DataType::boolean);
  Buf<std::uint8_t> eq3({3}, DataType::boolean);
  cpu::binary(cpu::BinaryOp::equal, ba.view(), bb.view(), eq3.view());
  CHECK(eq3.v == std::vector<std::uint8_t>{1, 0, 1});
}

TEST_CASE("binary errors") {
  Buf<float> a({2, 3}), b({4}), y({2, 3});
  expect_error([&] { cpu::binary(cpu::BinaryOp::add, a.view(), b.view(), y.view()); }, Errc::incompatible_shapes,
               kernels_tag);
  Buf<float> b3({3}), ybig({2, 2, 3});
  expect_error([&] { cpu::binary(cpu::BinaryOp::add, a.view(), b3.view(), ybig.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  Buf<std::int32_t> bi({3});
  expect_error([&] { cpu::binary(cpu::BinaryOp::add, a.view(), bi.view(), y.view()); }, Errc::type_mismatch,
               kernels_tag);
  Buf<std::int32_t> ai({2, 3}), yi({2, 3});
  expect_error([&] { cpu::binary(cpu::BinaryOp::pow, ai.view(), bi.view(), yi.view()); }, Errc::unsupported,
               kernels_tag);
  expect_error([&] { cpu::binary(cpu::BinaryOp::div, ai.view(), bi.view(), yi.view()); }, Errc::invalid_argument,
               kernels_tag);
  expect_error([&] { cpu::binary(cpu::BinaryOp::less, a.view(), b3.view(), y.view()); }, Errc::type_mismatch,
               kernels_tag);
  Buf<std::uint8_t> ba({3}, DataType::boolean), yb({3}, DataType::boolean);
  expect_error([&] { cpu::binary(cpu::BinaryOp::less, ba.view(), ba.view(), yb.view()); }, Errc::unsupported,
               kernels_tag);
}

TEST_CASE("where with three-way broadcasting") {
  Buf<std::uint8_t> c({2, 1}, {1, 0}, DataType::boolean);
  Buf<std::int64_t> x({3}, {1, 2, 3});
  Buf<std::int64_t> y({1}, {-1});
  Buf<std::int64_t> out({2, 3});
  cpu::where(c.view(), x.view(), y.view(), out.view());
  CHECK(out.v == std::vector<std::int64_t>{1, 2, 3, -1, -1, -1});
  // Random f32, same shape (the contiguous path) and broadcast.
  auto xf = random_f32({5, 40}, 3);
  auto yf = random_f32({5, 40}, 4);
  Buf<std::uint8_t> cf({5, 40}, DataType::boolean);
  for (std::int64_t i = 0; i < cf.size(); ++i) cf[i] = static_cast<std::uint8_t>(i % 3 == 0);
  Buf<float> of({5, 40});
  cpu::where(cf.view(), xf.view(), yf.view(), of.view());
  for (std::int64_t i = 0; i < of.size(); ++i) REQUIRE(of[i] == (i % 3 == 0 ? xf[i] : yf[i]));
  Buf<float> bad({5, 40});
  expect_error([&] { cpu::where(xf.view(), xf.view(), yf.view(), bad.view()); }, Errc::type_mismatch, kernels_tag);
  expect_error([&] { cpu::where(c.view(), x.view(), yf.view(), out.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<std::int64_t> y4({4});
  expect_error([&] { cpu::where(c.view(), x.view(), y4.view(), out.view()); }, Errc::incompatible_shapes, kernels_tag);
}

TEST_CASE("unary f32 ops match std:: within float tolerance") {
  auto x = random_f32({3, 1000}, 7, -6.0f, 6.0f);
  x[0] = 0.0f;
  x[1] = -100.0f;
  x[2] = 100.0f;
  x[3] = 1e-5f;
  auto pos = random_f32({3, 1000}, 8, 1e-3f, 50.0f);
  using U = cpu::UnaryOp;
  struct Case {
    cpu::UnaryParams p;
    bool positive;
    std::function<double(double)> ref;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<Case> cases = {
      {{.op = U::sqrt}, true, [](double v) { return std::sqrt(v); }},
      {{.op = U::exp}, false, [](double v) { return std::exp(v); }},
      {{.op = U::log}, true, [](double v) { return std::log(v); }},
      {{.op = U::neg}, false, [](double v) { return -v; }},
      {{.op = U::abs}, false, [](double v) { return std::fabs(v); }},
      {{.op = U::erf}, false, [](double v) { return std::erf(v); }},
      {{.op = U::tanh}, false, [](double v) { return std::tanh(v); }},
      {{.op = U::sigmoid}, false, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {{.op = U::relu}, false, [](double v) { return v > 0 ? v : 0.0; }},
      {{.op = U::clip, .lo = -1.0f, .hi = 0.5f}, false, [](double v) { return std::min(std::max(v, -1.0), 0.5); }},
      {{.op = U::clip, .lo = 0.0f}, false, [inf](double v) { return std::min(std::max(v, 0.0), inf); }},
      {{.op = U::clip, .lo = 1.0f, .hi = 0.0f}, false, [](double) { return 0.0; }},
      {{.op = U::leaky_relu, .alpha = 0.2f}, false, [](double v) { return v >= 0 ? v : 0.2 * v; }},
      {{.op = U::gelu}, false, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }},
      {{.op = U::gelu_tanh}, false,
       [](double v) { return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))); }},
      {{.op = U::hard_swish}, false, [](double v) { return v * std::min(1.0, std::max(0.0, v / 6.0 + 0.5)); }},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(c);
    const Buf<float>& in = cases[c].positive ? pos : x;
    Buf<float> y(in.dims);
    cpu::unary(cases[c].p, in.view(), y.view());
    std::vector<float> want(in.v.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = static_cast<float>(cases[c].ref(in.v[i]));
    check_close(y.v, want, 1e-6f, 2e-6f);
    // In place gives the same.
    Buf<float> z = in;
    cpu::unary(cases[c].p, z.view(), z.view());
    CHECK(z.v == y.v);
  }
}

TEST_CASE("vm::map: e^x, sigmoid and SiLU over their whole range, edges in every lane position") {
  // With AVX-512 these take vscalefps and a reciprocal with a Newton step: the limits
  // (0 and infinity, a sum that would be infinite), NaN, and lanes past the last vector.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x;
  for (int i = -1100; i <= 1100; ++i) x.push_back(static_cast<float>(i) * 0.1f);
  for (const float v : {-1e30f, -1000.0f, -104.5f, -103.0f, -90.0f, -87.5f, -86.0f, 86.0f, 88.5f, 88.8f, 89.5f, 1e30f,
                        inf, -inf, nan, 0.0f, -0.0f, 1e-30f})
    x.push_back(v);
  for (const std::size_t n : {x.size(), std::size_t{7}, std::size_t{23}}) {
    for (const auto f : {cpu::vm::Map::exp, cpu::vm::Map::sigmoid, cpu::vm::Map::silu}) {
      const std::size_t from = x.size() - n;  // (the edge values in the tail's lanes too)
      std::vector<float> y(n);
      cpu::vm::map(f, x.data() + from, y.data(), static_cast<std::int64_t>(n));
      for (std::size_t i = 0; i < n; ++i) {
        const double v = x[from + i];
        const double want = f == cpu::vm::Map::exp       ? std::exp(v)
                            : f == cpu::vm::Map::sigmoid ? 1.0 / (1.0 + std::exp(-v))
                            : std::isinf(v)              ? (v > 0 ? v : 0.0)  // (the limits of v / (1 + e^-v))
                                                         : v / (1.0 + std::exp(-v));
        CAPTURE(static_cast<int>(f));
        CAPTURE(v);
        if (std::isnan(v)) {
          CHECK(std::isnan(y[i]));
        } else if (std::isinf(want) || std::fabs(want) > std::numeric_limits<float>::max()) {
          CHECK(y[i] == static_cast<float>(want > 0 ? inf : -inf));
        } else if (std::fabs(want) < 1e-30) {
          CHECK(std::fabs(y[i]) < 1e-30f);  // (0, a denormal, or the clamped 1e-38 scale)
        } else {
          CHECK(std::fabs(y[i] - want) <= 5e-7 * std::fabs(want));
        }
      }
    }
  }
}

TEST_CASE("vm::erfc: relative error below 1e-6 near 0 and 1e-5 out to 9") {
  double worst_near = 0, worst_far = 0;  // |x| < 3, and beyond (where rounding x^2 costs)
  for (int i = -6000; i <= 9000; ++i) {
    const float x = static_cast<float>(i) * 1e-3f;
    const double want = std::erfc(static_cast<double>(x));
    const double err = std::fabs(cpu::vm::erfc(x) - want) / want;
    (std::fabs(x) < 3.0f ? worst_near : worst_far) = std::max(std::fabs(x) < 3.0f ? worst_near : worst_far, err);
  }
  CHECK(worst_near < 1e-6);
  CHECK(worst_far < 1e-5);
  CHECK(cpu::vm::erfc(std::numeric_limits<float>::infinity()) == 0.0f);
  CHECK(cpu::vm::erfc(-std::numeric_limits<float>::infinity()) == 2.0f);
  CHECK(std::isnan(cpu::vm::erfc(std::numeric_limits<float>::quiet_NaN())));
  // Gelu far into the negative side keeps its relative accuracy (1 + erf is tiny there).
  Buf<float> x({3}, {-5.0f, -8.0f, -12.0f}), y({3});
  cpu::unary({.op = cpu::UnaryOp::gelu}, x.view(), y.view());
  for (std::size_t i = 0; i < 3; ++i) {
    const double v = x.v[i];
    const double want = 0.5 * v * std::erfc(-v / std::sqrt(2.0));
    CHECK(y.v[i] == doctest::Approx(want).epsilon(1e-5));
  }
}

TEST_CASE("exp_approx edge values") {
  CHECK(std::isinf(cpu::exp_approx(89.0f)));
  CHECK(cpu::exp_approx(-90.0f) == 0.0f);
  CHECK(std::isnan(cpu::exp_approx(std::numeric_limits<float>::quiet_NaN())));
  CHECK(cpu::exp_approx(0.0f) == 1.0f);
  CHECK(cpu::exp_approx(88.5f) == doctest::Approx(std::exp(88.5)).epsilon(1e-6));
  CHECK(cpu::exp_approx(-86.0f) == doctest::Approx(std::exp(-86.0)).epsilon(1e-6));
}

TEST_CASE("unary integer ops and errors") {
  Buf<std::int32_t> x({4}, {-3, 0, 5, std::numeric_limits<std::int32_t>::min()}), y({4});
  cpu::unary({.op = cpu::UnaryOp::neg}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int32_t>{3, 0, -5, std::numeric_limits<std::int32_t>::min()});
  cpu::unary({.op = cpu::UnaryOp::abs}, x.view(), y.view());
  CHECK(y.v[0] == 3);
  cpu::unary({.op = cpu::UnaryOp::relu}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int32_t>{0, 0, 5, 0});
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::exp}, x.view(), y.view()); }, Errc::unsupported, kernels_tag);
  Buf<float> f({4}), g({5});
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::exp}, f.view(), g.view()); }, Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::exp}, f.view(), y.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<double> d({4}), e({4});
  expect_error([&] { cpu::unary({.op = cpu::UnaryOp::exp}, d.view(), e.view()); }, Errc::unsupported, kernels_tag);
}
