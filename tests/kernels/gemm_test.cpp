#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <tbb/task_arena.h>

#include "kernel_test.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

// Reference: C[i][j] = sum_p A[i][p] * B[p][j] with strided, possibly transposed operands.
std::vector<float> ref_gemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                            std::int64_t lda, bool ta, const float* b, std::int64_t ldb, bool tb) {
  std::vector<float> c(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        const float av = ta ? a[p * lda + i] : a[i * lda + p];
        const float bv = tb ? b[j * ldb + p] : b[p * ldb + j];
        s += static_cast<double>(av) * bv;
      }
      c[static_cast<std::size_t>(i * n + j)] = static_cast<float>(alpha * s);
    }
  }
  return c;
}

// The epilogue of a bias per column, an m x n residual (rows n apart) and `post`.
cpu::GemmEpilogue bias_residual(const std::vector<float>& bias, const std::vector<float>& res, std::int64_t n,
                                cpu::PostOp post) {
  cpu::GemmEpilogue ep;
  ep.bias_n = bias.data();
  ep.residual = res.data();
  ep.ld_residual = n;
  ep.post = post;
  return ep;
}

}  // namespace

TEST_CASE("sgemm matches a naive product on sizes that do not divide the tiles") {
  const std::int64_t sizes[][3] = {{1, 1, 1},   {1, 17, 3},  {7, 1, 5},   {6, 16, 8},    {7, 17, 5},
                                   {13, 33, 300}, {100, 300, 70}, {129, 260, 513}, {5, 40, 0}};
  std::uint32_t seed = 1;
  for (const auto& s : sizes) {
    const std::int64_t m = s[0], n = s[1], k = s[2];
    for (int t = 0; t < 4; ++t) {
      const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(k);
      CAPTURE(t);
      auto a = random_f32({m * k}, seed++);
      auto b = random_f32({k * n}, seed++);
      Buf<float> c({m, n});
      const std::int64_t lda = ta ? m : k, ldb = tb ? k : n;
      cpu::sgemm(m, n, k, 0.5f, a.v.data(), lda, ta, b.v.data(), ldb, tb, c.v.data(), n, {});
      check_close(c.v, ref_gemm(m, n, k, 0.5f, a.v.data(), lda, ta, b.v.data(), ldb, tb), 1e-4f, 1e-4f);
    }
  }
}

namespace {

// The activations with exp or a gate, in double: what the epilogue and `activate` must give.
double want_map(cpu::Activation a, double v) {
  switch (a) {
    case cpu::Activation::gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case cpu::Activation::sigmoid: return 1.0 / (1.0 + std::exp(-v));
    case cpu::Activation::silu: return v / (1.0 + std::exp(-v));
    case cpu::Activation::hard_sigmoid: return std::clamp(0.25 * v + 0.4, 0.0, 1.0);
    case cpu::Activation::hard_swish: return v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0);
    default: return v;
  }
}

}  // namespace

TEST_CASE("sgemm epilogue: biases, residual, accumulate, relu, clip and the map activations, in narrow and wide tiles") {
  // 25 x 70 x 300: AVX-512's 12 x 32 tiles with row and column edges, two K blocks.
  for (const auto [m, n, k] : {std::array<std::int64_t, 3>{11, 37, 9}, std::array<std::int64_t, 3>{25, 70, 300}}) {
    auto a = random_f32({m, k}, 3);
    auto b = random_f32({k, n}, 4);
    auto bm = random_f32({m}, 5);
    auto bn = random_f32({n}, 6);
    auto res = random_f32({m, n + 3}, 7);
    auto prev = random_f32({m, n}, 8);
    const auto base = ref_gemm(m, n, k, 1.0f, a.v.data(), k, false, b.v.data(), n, false);
    constexpr cpu::Activation maps[] = {cpu::Activation::gelu, cpu::Activation::sigmoid, cpu::Activation::silu,
                                        cpu::Activation::hard_sigmoid, cpu::Activation::hard_swish};
    for (int mode = 0; mode < 8; ++mode) {
      CAPTURE(m);
      CAPTURE(mode);
      const cpu::Activation map = mode >= 3 ? maps[mode - 3] : cpu::Activation::none;
      cpu::GemmEpilogue ep;
      ep.bias_m = bm.v.data();
      ep.bias_n = bn.v.data();
      ep.residual = res.v.data();
      ep.ld_residual = n + 3;
      ep.accumulate = true;
      if (mode == 1) ep.post = {cpu::Activation::relu};
      if (mode == 2) ep.post = {cpu::Activation::clip, -0.5f, 0.75f};
      if (mode >= 3) {
        ep.post.kind = map;
        ep.post.alpha = 0.25f;
        ep.post.beta = 0.4f;
      }
      Buf<float> c = prev;
      cpu::sgemm(m, n, k, 1.0f, a.v.data(), k, false, b.v.data(), n, false, c.v.data(), n, ep);
      std::vector<float> want(base.size());
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          float v = prev[i * n + j] + base[static_cast<std::size_t>(i * n + j)] + bm[i] + bn[j] + res[i * (n + 3) + j];
          if (mode == 1) v = std::max(v, 0.0f);
          if (mode == 2) v = std::min(std::max(v, -0.5f), 0.75f);
          if (mode >= 3) v = static_cast<float>(want_map(map, v));
          want[static_cast<std::size_t>(i * n + j)] = v;
        }
      }
      check_close(c.v, want);
    }
  }
}

TEST_CASE("activate: every map activation on 0 to 40 floats and a long run, far tails and NaN as the scalar rule") {
  constexpr cpu::Activation maps[] = {cpu::Activation::gelu, cpu::Activation::gelu_tanh, cpu::Activation::sigmoid,
                                      cpu::Activation::silu, cpu::Activation::hard_sigmoid, cpu::Activation::hard_swish};
  for (const cpu::Activation a : maps) {
    CAPTURE(static_cast<int>(a));
    cpu::PostOp post{a};
    post.alpha = 0.25f;
    post.beta = 0.4f;
    for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{15}, std::int64_t{17}, std::int64_t{40},
                                 std::int64_t{70001}}) {
      CAPTURE(n);
      std::vector<float> x(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = -30.0f + 60.0f * static_cast<float>(i % 997) / 996.0f;
      std::vector<float> y = x;
      cpu::activate(post, y.data(), n);
      for (std::int64_t i = 0; i < n; ++i) {
        const float got = y[static_cast<std::size_t>(i)], want = cpu::apply_post(x[static_cast<std::size_t>(i)], post);
        if (a != cpu::Activation::gelu_tanh) {
          CHECK(static_cast<double>(want) ==
                doctest::Approx(want_map(a, x[static_cast<std::size_t>(i)])).epsilon(1e-5).scale(1e-6));
        }
        if (!(got == doctest::Approx(want).epsilon(2e-5).scale(1.0))) {
          CHECK(got == doctest::Approx(want).epsilon(2e-5).scale(1.0));
          break;
        }
      }
    }
    float nan = std::numeric_limits<float>::quiet_NaN();
    cpu::activate(post, &nan, 1);
    CHECK(std::isnan(nan));
  }
  // The kinds applied as each value is stored are not maps: activate leaves them alone.
  std::vector<float> y{-1.0f, 2.0f};
  cpu::activate(cpu::PostOp{cpu::Activation::relu}, y.data(), 2);
  CHECK(y[0] == -1.0f);
}

TEST_CASE("matmul: exact 2x2 by hand") {
  Buf<float> a({2, 2}, {1, 2, 3, 4});
  Buf<float> b({2, 2}, {5, 6, 7, 8});
  Buf<float> y({2, 2});
  cpu::matmul(a.view(), b.view(), y.view());
  CHECK(y.v == std::vector<float>{19, 22, 43, 50});
}

namespace {

// Reference batched matmul with broadcast, on already-expanded rank-3+ shapes.
void check_matmul(std::vector<std::int64_t> ad, std::vector<std::int64_t> bd, std::vector<std::int64_t> yd,
                  std::uint32_t seed) {
  auto a = random_f32(ad, seed);
  auto b = random_f32(bd, seed + 100);
  Buf<float> y(yd);
  cpu::matmul(a.view(), b.view(), y.view());
  // Promote 1-D operands, broadcast batch dims by hand.
  std::vector<std::int64_t> a2 = ad, b2 = bd;
  if (a2.size() == 1) a2.insert(a2.begin(), 1);
  if (b2.size() == 1) b2.push_back(1);
  const std::int64_t m = a2[a2.size() - 2], k = a2.back(), n = b2.back();
  const std::size_t r = std::max(a2.size(), b2.size());
  while (a2.size() < r) a2.insert(a2.begin(), 1);
  while (b2.size() < r) b2.insert(b2.begin(), 1);
  std::vector<std::int64_t> batch(r - 2);
  std::int64_t nb = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) nb *= (batch[i] = std::max(a2[i], b2[i]));
  std::vector<float> want;
  for (std::int64_t t = 0; t < nb; ++t) {
    std::int64_t ia = 0, ib = 0, rem = t, sa = 1, sb = 1;
    for (std::size_t d = r - 2; d-- > 0;) {
      const std::int64_t idx = rem % batch[d];
      rem /= batch[d];
      ia += (a2[d] == 1 ? 0 : idx) * sa;
      ib += (b2[d] == 1 ? 0 : idx) * sb;
      sa *= a2[d];
      sb *= b2[d];
    }
    auto part = ref_gemm(m, n, k, 1.0f, a.v.data() + ia * m * k, k, false, b.v.data() + ib * k * n, n, false);
    want.insert(want.end(), part.begin(), part.end());
  }
  check_close(y.v, want);
}

}  // namespace

TEST_CASE("matmul: batch broadcast and 1-D operands") {
  check_matmul({2, 1, 3, 5}, {4, 5, 6}, {2, 4, 3, 6}, 10);
  check_matmul({3, 7, 9}, {9, 20}, {3, 7, 20}, 11);
  check_matmul({9, 20}, {3, 20, 4}, {3, 9, 4}, 12);
  check_matmul({5}, {5, 3}, {3}, 13);
  check_matmul({4, 5}, {5}, {4}, 14);
  check_matmul({5}, {5}, {}, 15);
  check_matmul({5}, {2, 5, 3}, {2, 3}, 16);
  check_matmul({2, 3, 4, 5}, {5}, {2, 3, 4}, 17);
  check_matmul({64, 16, 32}, {64, 32, 16}, {64, 16, 16}, 18);
  check_matmul({2, 70, 130}, {2, 130, 90}, {2, 70, 90}, 19);
  check_matmul({0, 5}, {5, 3}, {0, 3}, 20);
  check_matmul({2, 3, 0}, {0, 4}, {2, 3, 4}, 21);
  check_matmul({3, 1, 4, 6}, {1, 5, 6, 2}, {3, 5, 4, 2}, 22);
}

TEST_CASE("matmul with pre-packed B and a fused epilogue") {
  auto a = random_f32({2, 5, 24}, 20);
  auto b = random_f32({24, 33}, 21);
  auto bias = random_f32({33}, 22);
  const auto packed = cpu::pack_matmul_b(b.view());
  Buf<float> y({2, 5, 33});
  cpu::GemmEpilogue ep;
  ep.bias_n = bias.v.data();
  ep.post = {cpu::Activation::relu};
  cpu::matmul(a.view(), packed, y.view(), ep);
  auto want = ref_gemm(10, 33, 24, 1.0f, a.v.data(), 24, false, b.v.data(), 33, false);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0f, want[i] + bias.v[i % 33]);
  check_close(y.v, want);
  Buf<float> bad({2, 5, 32});
  expect_error([&] { cpu::matmul(a.view(), packed, bad.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("matmul with pre-packed B: every count of last rows (1 to 5 past the tiles, M = 1 a GEMV)") {
  std::uint32_t seed = 40;
  for (const std::int64_t m : {1, 2, 3, 4, 5, 7, 11, 13, 17})
    for (const std::int64_t k : {1, 7, 256, 301})
      for (const std::int64_t n : {1, 16, 33, 100}) {
        auto a = random_f32({m, k}, ++seed);
        auto b = random_f32({k, n}, ++seed);
        auto bias = random_f32({n}, ++seed);
        const auto packed = cpu::pack_matmul_b(b.view());
        Buf<float> y({m, n});
        cpu::GemmEpilogue ep;
        ep.bias_n = bias.v.data();
        ep.post = {cpu::Activation::relu};
        cpu::matmul(a.view(), packed, y.view(), ep);
        auto want = ref_gemm(m, n, k, 1.0f, a.v.data(), k, false, b.v.data(), n, false);
        for (std::size_t i = 0; i < want.size(); ++i)
          want[i] = std::max(0.0f, want[i] + bias.v[i % static_cast<std::size_t>(n)]);
        INFO("m " << m << " k " << k << " n " << n);
        check_close(y.v, want);
      }
}

TEST_CASE("matmul_scaled_k: A's columns scaled per run of rows, by B's rows or A's copy, with the epilogue") {
  // 3 runs of `rows` rows; B with 20 columns: runs of 40 rows scale B, runs of 7 scale A.
  std::uint32_t seed = 700;
  for (const std::int64_t rows : {40, 7}) {
    for (const std::int64_t groups : {1, 3}) {
      const std::int64_t m = 3 * rows, k = 19, n = 20;
      auto a = random_f32({m, k}, ++seed);
      auto s = random_f32({groups, k}, ++seed);
      auto b = random_f32({k, n}, ++seed);
      auto bias = random_f32({n}, ++seed);
      auto res = random_f32({m, n}, ++seed);
      std::vector<float> scaled(a.v);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t q = 0; q < k; ++q)
          scaled[static_cast<std::size_t>(i * k + q)] *= s.v[static_cast<std::size_t>((i / (m / groups)) * k + q)];
      auto want = ref_gemm(m, n, k, 1.0f, scaled.data(), k, false, b.v.data(), n, false);
      for (std::size_t i = 0; i < want.size(); ++i)
        want[i] = std::max(0.0f, want[i] + bias.v[i % static_cast<std::size_t>(n)] + res.v[i]);
      const auto packed = cpu::pack_matmul_b(b.view());
      Buf<float> y({m, n});
      const cpu::GemmEpilogue ep = bias_residual(bias.v, res.v, n, {cpu::Activation::relu});
      CAPTURE(rows);
      CAPTURE(groups);
      cpu::matmul_scaled_k(a.view(), s.v.data(), groups, packed, y.view(), ep);
      check_close(y.v, want);
      CHECK(a.v != scaled);  // A itself is left as it was
    }
  }
  auto a = random_f32({10, 4}, 1);
  auto b = random_f32({4, 3}, 2);
  const auto packed = cpu::pack_matmul_b(b.view());
  const std::vector<float> s(12, 1.0f);
  Buf<float> y({10, 3});
  expect_error([&] { cpu::matmul_scaled_k(a.view(), s.data(), 3, packed, y.view()); }, Errc::bad_op_inputs,
               "do not split into 3 runs");
  Buf<float> bad({10, 4});
  expect_error([&] { cpu::matmul_scaled_k(a.view(), s.data(), 2, packed, bad.view()); }, Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("gemm_rowmajor_a: rows 4 KiB apart (packed first), edges, epilogue, one to three threads") {
  // 1024- and 2048-float rows (a 1x1 conv over 1024 or 2048 channels), K below the row
  // stride too (A a slice of wider rows), M with last rows past the tiles (read from the
  // packed A's last panel, against ragged columns and a K of three blocks at 31 x 57 x 513); 320 and 312
  // columns (RegNetY-800MF's 14 x 14 stage: on two threads in 10 column blocks of 32, the
  // last of 312 narrower); 392 x 672 (8 x 7 x 7 pixels: blocks of 11 and 10 row tiles, of 7
  // panels) and 1000 x 40 (84 row tiles over three threads), in even blocks.
  std::uint32_t seed = 900;
  for (const auto [m, n, k, lda] : {std::array<std::int64_t, 4>{29, 80, 1024, 1024},
                                    std::array<std::int64_t, 4>{49, 48, 300, 2048},
                                    std::array<std::int64_t, 4>{13, 33, 257, 1024},
                                    std::array<std::int64_t, 4>{31, 57, 513, 1024},
                                    std::array<std::int64_t, 4>{196, 320, 320, 320},
                                    std::array<std::int64_t, 4>{49, 312, 130, 130},
                                    std::array<std::int64_t, 4>{392, 672, 96, 96},
                                    std::array<std::int64_t, 4>{1000, 40, 20, 24}}) {
    auto a = random_f32({m, lda}, ++seed);
    auto b = random_f32({k, n}, ++seed);
    auto bias = random_f32({n}, ++seed);
    auto res = random_f32({m, n}, ++seed);
    const auto packed = cpu::pack_matmul_b(b.view());
    auto want = ref_gemm(m, n, k, 1.0f, a.v.data(), lda, false, b.v.data(), n, false);
    for (std::size_t i = 0; i < want.size(); ++i)
      want[i] = std::max(0.0f, want[i] + bias.v[i % static_cast<std::size_t>(n)] + res.v[i]);
    for (const int threads : {1, 2, 3}) {
      CAPTURE(m);
      CAPTURE(threads);
      Buf<float> y({m, n});
      const cpu::GemmEpilogue ep = bias_residual(bias.v, res.v, n, {cpu::Activation::relu});
      tbb::task_arena arena(threads);
      arena.execute([&] {
        cpu::gemm_rowmajor_a(m, n, k, a.v.data(), lda, packed.panels.data(), y.v.data(), n, ep, true);
      });
      check_close(y.v, want);
    }
  }
}

TEST_CASE("matmul with pre-packed B: a classifier at batch 1 and 3 (columns over two threads), every activation kind") {
  using A = cpu::Activation;
  std::uint32_t seed = 300;
  tbb::task_arena arena(2);
  for (const std::int64_t m : {1, 3})
    for (const cpu::PostOp post : {cpu::PostOp{}, cpu::PostOp{A::relu}, cpu::PostOp{A::clip, -0.2f, 0.3f},
                                   cpu::PostOp{A::sigmoid}, cpu::PostOp{A::gelu}, cpu::PostOp{A::leaky_relu, 0, 0, 0.1f}}) {
      const std::int64_t k = 640, n = 1000;
      auto a = random_f32({m, k}, ++seed);
      auto b = random_f32({k, n}, ++seed);
      auto bias = random_f32({n}, ++seed);
      const auto packed = cpu::pack_matmul_b(b.view());
      Buf<float> y({m, n});
      cpu::GemmEpilogue ep;
      ep.bias_n = bias.v.data();
      ep.post = post;
      arena.execute([&] { cpu::matmul(a.view(), packed, y.view(), ep); });
      auto want = ref_gemm(m, n, k, 1.0f, a.v.data(), k, false, b.v.data(), n, false);
      for (std::size_t i = 0; i < want.size(); ++i)
        want[i] = cpu::apply_post(want[i] + bias.v[i % static_cast<std::size_t>(n)], post);
      INFO("m " << m << " activation " << static_cast<int>(post.kind));
      check_close(y.v, want, 1e-4f, 1e-4f);
    }
}

TEST_CASE("matmul with pre-packed B: every column count of a part-filled panel (1 to 31, and 56 past the wide tiles)") {
  // (NHWC 1x1 convs to 24 channels; the part-filled panel's epilogue goes in passes of 8
  // and 4 columns and the rest.)
  std::uint32_t seed = 400;
  std::vector<std::int64_t> widths{56};
  for (std::int64_t n = 1; n <= 31; ++n) widths.push_back(n);
  for (const std::int64_t m : {12, 13, 25, 40})
    for (const std::int64_t k : {7, 300})
      for (const std::int64_t n : widths) {
        auto a = random_f32({m, k}, ++seed);
        auto b = random_f32({k, n}, ++seed);
        auto bias = random_f32({n}, ++seed);
        auto res = random_f32({m, n}, ++seed);
        const auto packed = cpu::pack_matmul_b(b.view());
        Buf<float> y({m, n});
        const cpu::GemmEpilogue ep = bias_residual(bias.v, res.v, n, {cpu::Activation::clip, -0.5f, 4.0f});
        cpu::matmul(a.view(), packed, y.view(), ep);
        auto want = ref_gemm(m, n, k, 1.0f, a.v.data(), k, false, b.v.data(), n, false);
        for (std::size_t i = 0; i < want.size(); ++i)
          want[i] = std::clamp(want[i] + bias.v[i % static_cast<std::size_t>(n)] + res.v[i], -0.5f, 4.0f);
        INFO("m " << m << " k " << k << " n " << n);
        check_close(y.v, want);
      }
}

TEST_CASE("matmul errors") {
  Buf<float> a({2, 3}), b({4, 5}), y({2, 5});
  expect_error([&] { cpu::matmul(a.view(), b.view(), y.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<float> b2({3, 5}), y2({2, 4});
  expect_error([&] { cpu::matmul(a.view(), b2.view(), y2.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<std::int32_t> ai({2, 3});
  expect_error([&] { cpu::matmul(ai.view(), b2.view(), y.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<float> a3({2, 2, 3}), b3({3, 3, 5}), y3({3, 2, 5});
  expect_error([&] { cpu::matmul(a3.view(), b3.view(), y3.view()); }, Errc::incompatible_shapes, kernels_tag);
}

TEST_CASE("gemm: alpha, beta, transposes and every C broadcast") {
  const std::int64_t m = 9, n = 21, k = 13;
  const std::vector<std::vector<std::int64_t>> cdims = {{}, {n}, {1, n}, {m, 1}, {m, n}, {1, 1}};
  int idx = 0;
  for (const auto& cd : cdims) {
    for (int t = 0; t < 4; ++t) {
      for (float beta : {1.0f, 0.5f}) {
        const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
        CAPTURE(idx);
        auto a = random_f32(ta ? std::vector<std::int64_t>{k, m} : std::vector<std::int64_t>{m, k}, 30 + idx);
        auto b = random_f32(tb ? std::vector<std::int64_t>{n, k} : std::vector<std::int64_t>{k, n}, 60 + idx);
        auto c = random_f32(cd, 90 + idx);
        ++idx;
        Buf<float> y({m, n});
        const ge::TensorView cv = c.view();
        cpu::gemm({.alpha = 1.5f, .beta = beta, .trans_a = ta, .trans_b = tb}, a.view(), b.view(), &cv, y.view());
        auto want = ref_gemm(m, n, k, 1.5f, a.v.data(), ta ? m : k, ta, b.v.data(), tb ? k : n, tb);
        for (std::int64_t i = 0; i < m; ++i) {
          for (std::int64_t j = 0; j < n; ++j) {
            std::int64_t ci = 0;
            if (cd.size() == 1) ci = cd[0] == 1 ? 0 : j;
            if (cd.size() == 2) ci = (cd[0] == 1 ? 0 : i) * cd[1] + (cd[1] == 1 ? 0 : j);
            want[static_cast<std::size_t>(i * n + j)] += beta * c[ci];
          }
        }
        check_close(y.v, want);
      }
    }
  }
}

TEST_CASE("gemm without C, and its errors") {
  Buf<float> a({1, 2}, {1, 2});
  Buf<float> b({2, 1}, {3, 4});
  Buf<float> y({1, 1});
  cpu::gemm({}, a.view(), b.view(), nullptr, y.view());
  CHECK(y[0] == 11.0f);
  Buf<float> c({3});
  const ge::TensorView cv = c.view();
  expect_error([&] { cpu::gemm({}, a.view(), b.view(), &cv, y.view()); }, Errc::incompatible_shapes, kernels_tag);
  Buf<float> a3({1, 2, 3});
  expect_error([&] { cpu::gemm({}, a3.view(), b.view(), nullptr, y.view()); }, Errc::rank_mismatch, kernels_tag);
  expect_error([&] { cpu::gemm({.trans_a = true}, a.view(), b.view(), nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
}

TEST_CASE("bench: sgemm 256x1024x1024" * doctest::skip()) {
  const std::int64_t m = 256, n = 1024, k = 1024;
  auto a = random_f32({m, k}, 1);
  auto b = random_f32({k, n}, 2);
  Buf<float> c({m, n});
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      cpu::matmul(a.view(), b.view(), c.view());
      const int reps = 20;
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      for (int r = 0; r < reps; ++r) cpu::matmul(a.view(), b.view(), c.view());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
      const double cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC / reps;
      std::printf("matmul %ldx%ldx%ld, %d thread(s): %.3f ms wall, %.1f GFLOP/s wall, %.1f GFLOP per CPU-second\n",
                  static_cast<long>(m), static_cast<long>(n), static_cast<long>(k), threads, s * 1e3,
                  2.0 * m * n * k / s * 1e-9, 2.0 * m * n * k / cpu_s * 1e-9);
    });
  }
}

TEST_CASE("bench: gemm_packed micro-kernel in cache" * doctest::skip()) {
  const std::int64_t m = 96, n = 256, k = 256;
  auto a = random_f32({m, k}, 1);
  auto b = random_f32({k, n}, 2);
  Buf<float> c({m, n});
  std::vector<float> pa(static_cast<std::size_t>(cpu::packed_a_size(m, k)));
  std::vector<float> pb(static_cast<std::size_t>(cpu::packed_b_size(k, n)));
  cpu::pack_a(m, k, a.v.data(), k, false, 1.0f, pa.data());
  cpu::pack_b(k, n, b.v.data(), n, false, pb.data());
  const int reps = 2000;
  const std::clock_t c0 = std::clock();
  for (int r = 0; r < reps; ++r) cpu::gemm_packed(m, n, k, pa.data(), pb.data(), c.v.data(), n, {}, false);
  const double cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC / reps;
  std::printf("gemm_packed 96x256x256 in cache: %.1f GFLOP per CPU-second\n", 2.0 * m * n * k / cpu_s * 1e-9);
}
