// The int8 kernels (kernels/cpu/int8/int8.hpp): the quantize-dequantize round trip, the int8
// grid check, and the matrix product and NHWC conv against references computed in f64 on
// the same quantized operands (the i32 sums are exact: only the epilogue's f32 rounding
// differs). Each product runs on the VNNI kernels where the CPU has them and on the
// portable loops (the kernels capped to none).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "conv_ref.hpp"
#include "kernel_test.hpp"
#include "kernels/cpu/int8/int8.hpp"
#include "support/expect_error.hpp"

using ge::test::Buf;
using ge::test::check_close;
using ge::test::out_dim;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

std::vector<cpu::Int8Kernels> int8_kinds() {
  std::vector<cpu::Int8Kernels> kinds{cpu::Int8Kernels::none};
  if (cpu::int8_usable())
    kinds.insert(kinds.begin(), cpu::Int8Kernels::vnni);
  else
    MESSAGE("no AVX512-VNNI here (or GE_CPU_ISA below avx512): only the portable int8 loops ran");
  return kinds;
}

// The value QuantizeLinear then DequantizeLinear give, by the ONNX definition.
float qdq(float x, float s, int zp, int lo, int hi) {
  const double q = std::nearbyint(static_cast<double>(x) / s) + zp;
  return static_cast<float>((std::min<double>(std::max<double>(q, lo), hi) - zp) * s);
}

// Weights on a per-column int8 grid: column j is scale_j * q, q in [-127, 127] with one
// |q| = 127. Row-major [k, n].
std::vector<float> grid_weights(std::int64_t k, std::int64_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> qd(-127, 127);
  std::uniform_real_distribution<float> sd(0.001f, 0.05f);
  std::vector<float> b(static_cast<std::size_t>(k * n));
  for (std::int64_t j = 0; j < n; ++j) {
    const float s = sd(gen);
    for (std::int64_t p = 0; p < k; ++p) b[static_cast<std::size_t>(p * n + j)] = s * static_cast<float>(qd(gen));
    b[static_cast<std::size_t>((j % k) * n + j)] = s * (j % 2 == 0 ? 127.0f : -127.0f);
  }
  return b;
}

}  // namespace

TEST_CASE("int8: the quantize-dequantize round trip rounds half to even, saturates, keeps NaN") {
  const float s = 0.5f;
  const std::vector<float> x{1.25f, 1.75f, -1.25f, 0.0f, 1000.0f, -1000.0f, 3.0f, std::numeric_limits<float>::quiet_NaN(),
                             0.24f, 63.74f};
  for (const auto [zp, lo, hi] : {std::array{0, 0, 255}, std::array{128, 0, 255}, std::array{-3, -128, 127}}) {
    std::vector<float> y(x.size());
    cpu::fake_quant({s, zp, lo, hi}, x.data(), static_cast<std::int64_t>(x.size()), y.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
      CAPTURE(i);
      CAPTURE(zp);
      if (std::isnan(x[i])) {
        CHECK(std::isnan(y[i]));
      } else {
        CHECK(y[i] == qdq(x[i], s, zp, lo, hi));
      }
    }
  }
  // 1.25 / 0.5 = 2.5 -> 2 (even), 1.75 / 0.5 = 3.5 -> 4.
  std::vector<float> y(2);
  cpu::fake_quant({s, 0, 0, 255}, x.data(), 2, y.data());
  CHECK(y[0] == 1.0f);
  CHECK(y[1] == 2.0f);
  std::vector<std::uint8_t> q(x.size());
  cpu::quantize_u8({s, 10}, x.data(), static_cast<std::int64_t>(x.size()), q.data());
  CHECK(q[0] == 12);
  CHECK(q[1] == 14);
  CHECK(q[2] == 8);
  CHECK(q[4] == 255);
  CHECK(q[5] == 0);
  CHECK(q[7] == 10);  // NaN: the zero point
}

TEST_CASE("int8: the grid check accepts dequantized int8 columns, scaled ones, and refuses plain floats") {
  const std::int64_t k = 37, n = 21;
  std::vector<float> b = grid_weights(k, n, 3);
  CHECK(cpu::int8_grid(k, n, b.data(), n, false));
  // A BatchNormalization folded in: every column times its own factor.
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j) b[static_cast<std::size_t>(p * n + j)] *= 0.3f + 0.1f * static_cast<float>(j);
  CHECK(cpu::int8_grid(k, n, b.data(), n, false));
  // A reduced (7-bit) range: the largest |q| is 63; packing gives the integers back.
  std::vector<float> r7(static_cast<std::size_t>(k * n));
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j)
      r7[static_cast<std::size_t>(p * n + j)] = 0.01f * static_cast<float>((p * 7 + j * 3) % 127 - 63);
  for (std::int64_t j = 0; j < n; ++j) r7[static_cast<std::size_t>(((j + 5) % k) * n + j)] = j % 2 == 0 ? 0.63f : -0.63f;
  CHECK(cpu::int8_grid(k, n, r7.data(), n, false));
  {
    const cpu::PackedS8 packed = cpu::pack_b_s8(k, n, r7.data(), n, false);
    Buf<float> a({1, k});
    a[3] = 1.0f;  // row 3 of B, through the product: its values exactly
    Buf<float> y({1, n});
    cpu::matmul_u8s8(a.view(), {1.0f / 255.0f, 0}, packed, y.view(), {});
    for (std::int64_t j = 0; j < n; ++j) CHECK(y[j] == doctest::Approx(r7[static_cast<std::size_t>(3 * n + j)]).epsilon(1e-6));
  }
  const Buf<float> r = random_f32({k, n}, 5);
  CHECK_FALSE(cpu::int8_grid(k, n, r.v.data(), n, false));
  std::vector<float> zeros(static_cast<std::size_t>(k * n), 0.0f);
  CHECK(cpu::int8_grid(k, n, zeros.data(), n, false));
  b[0] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(cpu::int8_grid(k, n, b.data(), n, false));
}

TEST_CASE("int8: MatMul of a quantized A by int8 weights equals the f64 product of the dequantized operands") {
  for (const auto kind : int8_kinds()) {
    cpu::Int8KernelsCap cap(kind);
    CAPTURE(static_cast<int>(kind));
    for (const auto [m, k, n] : {std::array<std::int64_t, 3>{1, 7, 5}, {13, 64, 33}, {50, 130, 70}, {3, 256, 16}}) {
      CAPTURE(m);
      CAPTURE(k);
      CAPTURE(n);
      const std::vector<float> b = grid_weights(k, n, 11);
      const cpu::PackedS8 packed = cpu::pack_b_s8(k, n, b.data(), n, false);
      Buf<float> a = random_f32({m, k}, 12, -2.0f, 3.0f);
      const Buf<float> bias = random_f32({n}, 13);
      const cpu::QuantU8 qa{5.0f / 255.0f, 102};
      Buf<float> y({m, n});
      cpu::GemmEpilogue ep;
      ep.bias_n = bias.v.data();
      ep.post.kind = cpu::Activation::relu;
      cpu::matmul_u8s8(a.view(), qa, packed, y.view(), ep);
      std::vector<float> want(static_cast<std::size_t>(m * n));
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          double s = bias[j];
          for (std::int64_t p = 0; p < k; ++p)
            s += static_cast<double>(qdq(a[i * k + p], qa.scale, qa.zero_point, 0, 255)) * b[static_cast<std::size_t>(p * n + j)];
          want[static_cast<std::size_t>(i * n + j)] = static_cast<float>(std::max(s, 0.0));
        }
      check_close(y.v, want, 1e-4f, 1e-4f);
    }
  }
}

TEST_CASE("int8: the NHWC conv over a quantized image equals the reference conv of the dequantized input") {
  for (const auto kind : int8_kinds()) {
    cpu::Int8KernelsCap cap(kind);
    CAPTURE(static_cast<int>(kind));
    struct Case {
      std::int64_t n, c, h, w, m, k, stride, pad;
    };
    for (const Case cs : {Case{1, 3, 9, 11, 16, 3, 2, 1}, Case{2, 16, 8, 8, 40, 1, 1, 0}, Case{1, 6, 7, 7, 33, 3, 1, 1},
                          Case{3, 32, 12, 12, 24, 3, 1, 1}}) {
      CAPTURE(cs.c);
      CAPTURE(cs.k);
      const std::int64_t kk = cs.c * cs.k * cs.k;
      // OIHW weights whose rows (output channels) lie on an int8 grid: the [K, M] grid transposed.
      const std::vector<float> km = grid_weights(kk, cs.m, 21);
      Buf<float> w({cs.m, cs.c, cs.k, cs.k});
      for (std::int64_t o = 0; o < cs.m; ++o)
        for (std::int64_t p = 0; p < kk; ++p) w[o * kk + p] = km[static_cast<std::size_t>(p * cs.m + o)];
      const Buf<float> x = random_f32({cs.n, cs.c, cs.h, cs.w}, 22, -1.0f, 2.0f);
      const cpu::QuantU8 qx{3.0f / 255.0f, 85};  // 0.0 is 85: the padding must read it
      Buf<float> xq = x;
      for (auto& v : xq.v) v = qdq(v, qx.scale, qx.zero_point, 0, 255);
      cpu::Conv2dParams p;
      p.stride_h = p.stride_w = cs.stride;
      p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = cs.pad;
      p.post.kind = cpu::Activation::clip;
      p.post.lo = -1.0f;
      p.post.hi = 2.0f;
      const std::int64_t oh = out_dim(cs.h, cs.k, cs.stride, 1, cs.pad, cs.pad);
      const std::int64_t ow = out_dim(cs.w, cs.k, cs.stride, 1, cs.pad, cs.pad);
      const Buf<float> bias = random_f32({cs.m}, 23);
      const Buf<float> res = random_f32({cs.n, cs.m, oh, ow}, 24);
      const std::vector<float> want = ge::test::ref_conv(p, xq, w, &bias, &res, oh, ow);
      const cpu::PackedS8 packed = cpu::pack_conv_nhwc_s8(w.view());
      const Buf<float> xn = ge::test::to_nhwc(x), rn = ge::test::to_nhwc(res);
      Buf<float> y({cs.n, oh, ow, cs.m});
      const auto bv = bias.view(), rv = rn.view();
      cpu::conv_nhwc_u8s8(p, xn.view(), qx, packed, &bv, y.view(), &rv);
      check_close(ge::test::to_nchw(y), want, 1e-4f, 1e-4f);
    }
  }
}

TEST_CASE("int8: operands that do not fit the packed weights are clear errors") {
  const std::vector<float> b = grid_weights(8, 4, 1);
  const cpu::PackedS8 packed = cpu::pack_b_s8(8, 4, b.data(), 4, false);
  Buf<float> a = random_f32({2, 7}, 1);
  Buf<float> y({2, 4});
  ge::test::expect_error([&] { cpu::matmul_u8s8(a.view(), {0.1f, 0}, packed, y.view(), {}); }, ge::Errc::bad_op_inputs);
  Buf<std::int32_t> ai({2, 8});
  ge::test::expect_error([&] { cpu::matmul_u8s8(ai.view(), {0.1f, 0}, packed, y.view(), {}); }, ge::Errc::type_mismatch);
  Buf<float> w3({4, 2, 3});
  ge::test::expect_error([&] { (void)cpu::pack_conv_nhwc_s8(w3.view()); }, ge::Errc::rank_mismatch);
  const Buf<float> w = random_f32({4, 2, 1, 1}, 2);
  const cpu::PackedS8 pw = cpu::pack_conv_nhwc_s8(w.view());
  const Buf<float> x = random_f32({1, 3, 3, 2}, 3);
  Buf<float> yc({1, 3, 3, 4});
  ge::test::expect_error([&] { cpu::conv_nhwc_u8s8({}, x.view(), {0.0f, 0}, pw, nullptr, yc.view()); },
                         ge::Errc::bad_op_inputs);
  ge::test::expect_error([&] { cpu::conv_nhwc_u8s8({}, x.view(), {0.1f, 300}, pw, nullptr, yc.view()); },
                         ge::Errc::bad_op_inputs);
}

namespace {
// The pointwise convs' epilogue in the fused tests: a bias per output, then ReLU.
cpu::GemmEpilogue bias_relu(const float* bias) {
  cpu::GemmEpilogue ep;
  ep.bias_n = bias;
  ep.post.kind = cpu::Activation::relu;
  return ep;
}
}  // namespace

TEST_CASE("int8: the fused pointwise-depthwise conv equals the int8 pointwise conv then the depthwise conv") {
  for (const auto kind : int8_kinds()) {
    cpu::Int8KernelsCap cap(kind);
    CAPTURE(static_cast<int>(kind));
    const std::int64_t n = 2, h = 9, w = 11, c = 8, e = 24;
    const std::vector<float> km = grid_weights(c, e, 31);  // B [C, E] on a grid
    const cpu::PackedS8 pw = cpu::pack_b_s8(c, e, km.data(), e, false);
    const Buf<float> x = random_f32({n, h, w, c}, 32, -1.0f, 2.0f);
    const Buf<float> b1 = random_f32({e}, 33);
    const cpu::QuantU8 qx{3.0f / 255.0f, 85};
    const cpu::FakeQuant qy{4.0f / 255.0f, 0, 0, 255};
    const cpu::GemmEpilogue ep = bias_relu(b1.v.data());
    const cpu::PostOp relu = ep.post;
    // The pointwise conv alone: its expanded image.
    Buf<float> mid({n, h, w, e});
    cpu::matmul_u8s8(x.view(), qx, pw, mid.view(), ep, &qy);
    for (const float v : mid.v) CHECK(v == qdq(v, qy.scale, 0, 0, 255));  // requantized: on the output's grid
    const Buf<float> wd = random_f32({e, 1, 3, 3}, 34);
    const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(wd.view());
    const Buf<float> b2 = random_f32({e}, 35);
    for (const std::int64_t stride : {1, 2}) {
      CAPTURE(stride);
      cpu::Conv2dParams p;
      p.stride_h = p.stride_w = stride;
      p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
      p.group = e;
      const std::int64_t oh = out_dim(h, 3, stride, 1, 1, 1), ow = out_dim(w, 3, stride, 1, 1, 1);
      Buf<float> want({n, oh, ow, e}), got({n, oh, ow, e});
      const auto b2v = b2.view();
      cpu::depthwise_nhwc(p, mid.view(), dw, &b2v, want.view());
      cpu::pointwise_depthwise_u8s8(p, x.view(), qx, pw, b1.v.data(), relu, &qy, dw, &b2v, got.view());
      check_close(got.v, want.v, 1e-5f, 1e-5f);
    }
  }
}

TEST_CASE("int8: the f32 fused pointwise-depthwise conv with the depthwise input's round trip in its epilogue") {
  const std::int64_t n = 1, h = 8, w = 13, c = 8, e = 32;
  const Buf<float> b = random_f32({c, e}, 41);
  const cpu::PackedMatMulB pw = cpu::pack_matmul_b(b.view());
  const Buf<float> x = random_f32({n, h, w, c}, 42);
  const Buf<float> b1 = random_f32({e}, 43);
  const cpu::FakeQuant qy{5.0f / 255.0f, 0, 0, 255};
  const cpu::GemmEpilogue ep = bias_relu(b1.v.data());
  const cpu::PostOp relu = ep.post;
  Buf<float> mid({n, h, w, e});
  cpu::matmul(x.view(), pw, mid.view(), ep);
  cpu::fake_quant(qy, mid.v.data(), static_cast<std::int64_t>(mid.v.size()), mid.v.data());
  const Buf<float> wd = random_f32({e, 1, 3, 3}, 44);
  const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(wd.view());
  cpu::Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.group = e;
  Buf<float> want({n, h, w, e}), got({n, h, w, e});
  cpu::depthwise_nhwc(p, mid.view(), dw, nullptr, want.view());
  cpu::pointwise_depthwise_nhwc(p, x.view(), pw, b1.v.data(), relu, dw, nullptr, got.view(), nullptr, &qy);
  check_close(got.v, want.v, 1e-5f, 1e-5f);
}

TEST_CASE("int8: quantization parameters a model file could carry are checked before any product") {
  const std::vector<float> b = grid_weights(8, 4, 1);
  const cpu::PackedS8 packed = cpu::pack_b_s8(8, 4, b.data(), 4, false);
  const Buf<float> a = random_f32({2, 8}, 1);
  Buf<float> y({2, 4});
  for (const cpu::QuantU8 bad : {cpu::QuantU8{0.0f, 0}, cpu::QuantU8{-1.0f, 0}, cpu::QuantU8{0.1f, -1},
                                 cpu::QuantU8{0.1f, 256}, cpu::QuantU8{std::numeric_limits<float>::infinity(), 0},
                                 cpu::QuantU8{std::numeric_limits<float>::quiet_NaN(), 0}}) {
    CAPTURE(bad.scale);
    CAPTURE(bad.zero_point);
    ge::test::expect_error([&] { cpu::matmul_u8s8(a.view(), bad, packed, y.view(), {}); }, ge::Errc::bad_op_inputs);
  }
  for (const cpu::FakeQuant bad : {cpu::FakeQuant{0.0f, 0, 0, 255}, cpu::FakeQuant{0.1f, 300, 0, 255},
                                   cpu::FakeQuant{0.1f, 0, 5, 5}, cpu::FakeQuant{0.1f, 0, 10, 0}}) {
    CAPTURE(bad.scale);
    ge::test::expect_error([&] { cpu::matmul_u8s8(a.view(), {0.1f, 0}, packed, y.view(), {}, &bad); },
                           ge::Errc::bad_op_inputs);
  }
}
