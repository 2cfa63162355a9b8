// The bf16 kernels (kernels/cpu/gemm/amx.hpp): rounding, the matrix product and the conv
// against references on the same bf16-rounded operands (so that only the order of the
// f32 sums differs), the error against f32, and the f32 fallback. The kernel tests run
// once per kind of bf16 kernel the CPU has (AMX tiles, AVX512-BF16 dot products: capped
// to each in turn) and say they were skipped where it has none.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <limits>
#include <vector>

#include <tbb/task_arena.h>

#include "conv_ref.hpp"
#include "kernel_test.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/conv/conv_internal.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

using ge::test::Buf;
using ge::test::check_close;
using ge::test::out_dim;
using ge::test::random_f32;
using ge::test::ref_conv;
namespace cpu = ge::cpu;

namespace {

// The kinds of bf16 kernels this CPU runs, best first.
std::vector<cpu::Bf16Kernels> bf16_kinds() {
  std::vector<cpu::Bf16Kernels> kinds;
  if (cpu::bf16_kernels() == cpu::Bf16Kernels::amx) kinds.push_back(cpu::Bf16Kernels::amx);
  if (cpu::bf16_usable()) kinds.push_back(cpu::Bf16Kernels::dot);
  if (kinds.empty())
    MESSAGE("skipped: no AVX512-BF16 or AMX-BF16 (this CPU, or GE_CPU_ISA below avx512); the bf16 kernels did not run");
  return kinds;
}

// Runs `f` with the bf16 kernels capped at `kind`, the cap lifted after (also when a
// REQUIRE throws).
template <class F>
void with_kernels(cpu::Bf16Kernels kind, F&& f) {
  const cpu::Bf16KernelsCap cap(kind);
  REQUIRE(cpu::bf16_kernels() == kind);
  f();
}

// `b` with every element rounded to bf16.
Buf<float> rounded(Buf<float> b) {
  for (float& v : b.v) v = cpu::from_bf16(cpu::to_bf16(v));
  return b;
}

float max_abs(const std::vector<float>& v) {
  float m = 0.0f;
  for (const float x : v) m = std::max(m, std::fabs(x));
  return m;
}

float max_err(const std::vector<float>& got, const std::vector<float>& want) {
  float e = 0.0f;
  for (std::size_t i = 0; i < got.size(); ++i) e = std::max(e, std::fabs(got[i] - want[i]));
  return e;
}

// Y = act(A * B + bias + residual) in f64, A m x k, B k x n.
std::vector<float> ref_matmul(const Buf<float>& a, const Buf<float>& b, std::int64_t m, std::int64_t n,
                              std::int64_t k, const cpu::GemmEpilogue& ep) {
  std::vector<float> y(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (std::int64_t p = 0; p < k; ++p) s += static_cast<double>(a[i * k + p]) * b[p * n + j];
      float v = static_cast<float>(s);
      if (ep.bias_n != nullptr) v += ep.bias_n[j];
      if (ep.residual != nullptr) v += ep.residual[i * ep.ld_residual + j];
      if (ep.post.kind == cpu::Activation::relu) v = std::max(v, 0.0f);
      if (ep.post.kind == cpu::Activation::clip) v = std::min(std::max(v, ep.post.lo), ep.post.hi);
      if (ep.post.kind == cpu::Activation::gelu) v = 0.5f * v * std::erfc(-v / std::sqrt(2.0f));
      y[static_cast<std::size_t>(i * n + j)] = v;
    }
  }
  return y;
}

}  // namespace

TEST_CASE("the kernels' ISA: what the CPU has, capped by GE_CPU_ISA") {
  const char* cap = std::getenv("GE_CPU_ISA");
  const cpu::Isa isa = cpu::isa();
  const std::string what =
      std::string(isa == cpu::Isa::avx512 ? "AVX-512" : isa == cpu::Isa::avx2 ? "AVX2+FMA" : "baseline x86-64") +
      (cpu::amx_bf16_usable() ? " with AMX-BF16" : cpu::bf16_usable() ? " with AVX512-BF16" : "") +
      (cap ? " (GE_CPU_ISA set)" : "");
  MESSAGE("kernels run " << what);
  if (cap != nullptr && std::string(cap) == "baseline") CHECK(isa == cpu::Isa::baseline);
  if (cap != nullptr && std::string(cap) == "avx2") CHECK(isa <= cpu::Isa::avx2);
  if (isa != cpu::Isa::avx512) CHECK_FALSE(cpu::bf16_usable());
}

TEST_CASE("to_bf16 rounds to nearest even and keeps NaN and infinities") {
  CHECK(cpu::to_bf16(1.0f) == 0x3f80);
  CHECK(cpu::to_bf16(-2.0f) == 0xc000);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to the even 1.
  CHECK(cpu::to_bf16(1.00390625f) == 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to the even one.
  CHECK(cpu::to_bf16(1.01171875f) == 0x3f82);
  CHECK(cpu::to_bf16(1.0f + 1.0f / 128 + 1.0f / 1024) == 0x3f81);
  CHECK(std::isnan(cpu::from_bf16(cpu::to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isnan(cpu::from_bf16(cpu::to_bf16(std::numeric_limits<float>::signaling_NaN()))));
  CHECK(cpu::from_bf16(cpu::to_bf16(std::numeric_limits<float>::infinity())) == std::numeric_limits<float>::infinity());
  CHECK(cpu::from_bf16(cpu::to_bf16(3.4e38f)) == std::numeric_limits<float>::infinity());  // rounds past the max
  CHECK(cpu::from_bf16(0x4049) == doctest::Approx(3.140625));
}

TEST_CASE("bf16 MatMul: edges of every tile, K padding, epilogues, 1 and 2 threads, each kind of kernel") {
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    CAPTURE(static_cast<int>(kind));
    struct Case {
      std::int64_t m, n, k;
    };
    const Case cases[] = {{1, 1, 1},    {1, 16, 32},   {16, 16, 32}, {17, 15, 31}, {33, 17, 33},
                          {64, 64, 64}, {100, 70, 300}, {5, 130, 768}, {128, 96, 1000}};
    std::uint32_t seed = 10;
    for (const Case& c : cases) {
      for (const int threads : {1, 2}) {
        for (const auto act : {cpu::Activation::none, cpu::Activation::relu, cpu::Activation::clip,
                               cpu::Activation::gelu}) {
          CAPTURE(c.m);
          CAPTURE(c.n);
          CAPTURE(c.k);
          CAPTURE(threads);
          CAPTURE(static_cast<int>(act));
          const Buf<float> a = random_f32({c.m, c.k}, seed++);
          const Buf<float> b = random_f32({c.k, c.n}, seed++);
          const Buf<float> bias = random_f32({c.n}, seed++);
          const Buf<float> res = random_f32({c.m, c.n}, seed++);
          const cpu::PackedMatMulB packed = cpu::pack_matmul_b(b.view(), true);
          REQUIRE(packed.bf16);
          cpu::GemmEpilogue ep;
          ep.bias_n = bias.v.data();
          ep.residual = act == cpu::Activation::gelu ? nullptr : res.v.data();
          ep.ld_residual = c.n;
          ep.post = {act, -0.25f, 0.5f};
          Buf<float> y({c.m, c.n});
          tbb::task_arena arena(threads);
          arena.execute([&] { cpu::matmul(a.view(), packed, y.view(), ep); });
          // Against the same bf16 operands: only the f32 summation order differs.
          const std::vector<float> want = ref_matmul(rounded(a), rounded(b), c.m, c.n, c.k, ep);
          check_close(y.v, want, 1e-4f * std::sqrt(static_cast<float>(c.k)), 1e-4f);
          // Against f32: the error of bf16 operands, relative to the result's size (clip's
          // result is not the product's size: skipped there).
          const std::vector<float> f32 = ref_matmul(a, b, c.m, c.n, c.k, ep);
          if (act != cpu::Activation::clip) CHECK(max_err(y.v, f32) <= 2e-2f * std::max(1.0f, max_abs(f32)));
        }
      }
    }
  });
}

TEST_CASE("bf16 conv equals the reference on bf16 operands: 3x3, strides, 1x1, groups, K chunks, residual") {
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    CAPTURE(static_cast<int>(kind));
    struct Case {
      std::int64_t n, c, h, w, co, kh, kw;
      cpu::Conv2dParams p;
    };
    const cpu::PostOp relu{cpu::Activation::relu};
    const cpu::PostOp relu6{cpu::Activation::clip, 0.0f, 6.0f};
    const Case cases[] = {
        {1, 3, 17, 19, 20, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = relu}},  // K = 27
        {2, 64, 9, 9, 33, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}},  // K = 576: 3 chunks
        {1, 40, 12, 12, 48, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                                   .pad_right = 1, .post = relu6}},
        {2, 48, 14, 14, 70, 1, 1, {.post = relu}},                                                  // pointwise
        {1, 32, 7, 7, 64, 1, 1, {}},                                                                // 49 columns
        {1, 16, 10, 10, 24, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 2}},
        {3, 8, 5, 6, 130, 2, 2, {.dilation_h = 2}},
    };
    std::uint32_t seed = 100;
    for (const Case& k : cases) {
      for (const int threads : {1, 2}) {
        for (const bool residual : {false, true}) {
          CAPTURE(k.c);
          CAPTURE(k.co);
          CAPTURE(k.kh);
          CAPTURE(threads);
          CAPTURE(residual);
          const std::int64_t oh = out_dim(k.h, k.kh, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
          const std::int64_t ow = out_dim(k.w, k.kw, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
          const Buf<float> x = random_f32({k.n, k.c, k.h, k.w}, seed++);
          const Buf<float> w = random_f32({k.co, k.c / k.p.group, k.kh, k.kw}, seed++);
          const Buf<float> bias = random_f32({k.co}, seed++);
          const Buf<float> res = random_f32({k.n, k.co, oh, ow}, seed++);
          const cpu::PackedConvWeights packed = cpu::pack_conv_weights(k.p, w.view(), {.bf16 = true});
          REQUIRE(packed.bf16);
          Buf<float> y({k.n, k.co, oh, ow});
          const ge::TensorView bv = bias.view(), rv = res.view();
          tbb::task_arena arena(threads);
          arena.execute([&] { cpu::conv2d(k.p, x.view(), packed, &bv, y.view(), residual ? &rv : nullptr); });
          const std::int64_t kk = k.c / k.p.group * k.kh * k.kw;
          const std::vector<float> want =
              ref_conv(k.p, rounded(x), rounded(w), &bias, residual ? &res : nullptr, oh, ow);
          check_close(y.v, want, 1e-4f * std::sqrt(static_cast<float>(kk)), 1e-4f);
          const std::vector<float> f32 = ref_conv(k.p, x, w, &bias, residual ? &res : nullptr, oh, ow);
          CHECK(max_err(y.v, f32) <= 2e-2f * std::max(1.0f, max_abs(f32)));
        }
      }
    }
  });
}

TEST_CASE("bf16 dense conv on NHWC images equals the reference on bf16 operands: blocks, column splits, tails") {
  struct Case {
    std::int64_t n, c, h, w, m, k;
    cpu::Conv2dParams p;
  };
  const cpu::PostOp relu{cpu::Activation::relu};
  const Case cases[] = {
      {1, 64, 7, 7, 96, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = relu}},  // 49 rows
      {2, 19, 20, 17, 40, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                              .pad_right = 1}},  // runs of 19 channels, K = 171
      {1, 24, 30, 30, 33, 1, {.stride_h = 2, .stride_w = 2}},                               // 225 rows, 33 columns
      {3, 8, 16, 16, 16, 5, {.pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2,
                             .dilation_h = 2, .post = {cpu::Activation::clip, -0.5f, 0.5f}}},  // 768 rows
      {1, 3, 5, 5, 130, 2, {}},                                                              // 16 rows, 130 columns
  };
  std::uint32_t seed = 300;
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    for (const Case& k : cases) {
      for (const int threads : {1, 2}) {
        for (const bool residual : {false, true}) {
          CAPTURE(static_cast<int>(kind));
          CAPTURE(k.c);
          CAPTURE(k.m);
          CAPTURE(threads);
          CAPTURE(residual);
          const std::int64_t oh = out_dim(k.h, k.k, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
          const std::int64_t ow = out_dim(k.w, k.k, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
          const Buf<float> x = random_f32({k.n, k.c, k.h, k.w}, seed++);
          const Buf<float> w = random_f32({k.m, k.c, k.k, k.k}, seed++);
          const Buf<float> bias = random_f32({k.m}, seed++);
          const Buf<float> res = random_f32({k.n, k.m, oh, ow}, seed++);
          const Buf<float> xn = ge::test::to_nhwc(x), rn = ge::test::to_nhwc(res);
          const cpu::PackedConvNhwc packed = cpu::pack_conv_nhwc(w.view(), true);
          REQUIRE(packed.bf16);
          Buf<float> y({k.n, oh, ow, k.m});
          const ge::TensorView bv = bias.view(), rv = rn.view();
          tbb::task_arena arena(threads);
          arena.execute([&] { cpu::conv_gemm_nhwc(k.p, xn.view(), packed, &bv, y.view(), residual ? &rv : nullptr); });
          const std::vector<float> got = ge::test::to_nchw(y);
          const std::vector<float> want =
              ref_conv(k.p, rounded(x), rounded(w), &bias, residual ? &res : nullptr, oh, ow);
          check_close(got, want, 1e-4f * std::sqrt(static_cast<float>(k.c * k.k * k.k)), 1e-4f);
        }
      }
    }
  });
}

TEST_CASE("bf16 Winograd on NHWC images: close to f32, blocks of tiles and the whole batch, groups, dilation") {
  // The products of the transformed tiles run in bf16: V and U are rounded after their
  // transforms, so no reference on rounded operands gives the same sums; the check is the
  // error against the f32 reference, which one wrong product (an xi, a group, a panel)
  // would take past it by two orders of magnitude.
  struct Case {
    std::int64_t n, c, h, w, m, group;
    cpu::Conv2dParams p;
  };
  const cpu::PostOp relu{cpu::Activation::relu};
  const cpu::Conv2dParams same{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1};
  cpu::Conv2dParams same_relu = same;
  same_relu.post = relu;
  cpu::Conv2dParams dilated{.pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2, .dilation_h = 2,
                            .dilation_w = 2};
  const Case cases[] = {
      {1, 16, 7, 7, 16, 1, same},          // 16 tiles: the whole batch step by step
      {2, 32, 30, 30, 48, 1, same_relu},   // 450 tiles: blocks per task; 3 panels of outputs
      {1, 64, 9, 11, 32, 1, {}},           // no pads, odd sizes: partial tiles
      {2, 32, 16, 16, 64, 2, same},        // two groups of 16 in, 32 out
      {1, 16, 20, 20, 16, 1, dilated},     // residue classes
  };
  std::uint32_t seed = 700;
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    for (const Case& k : cases) {
      for (const int threads : {1, 2}) {
        for (const bool residual : {false, true}) {
          CAPTURE(static_cast<int>(kind));
          CAPTURE(k.c);
          CAPTURE(k.m);
          CAPTURE(k.group);
          CAPTURE(threads);
          CAPTURE(residual);
          cpu::Conv2dParams p = k.p;
          p.group = k.group;
          const std::int64_t oh = out_dim(k.h, 3, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom);
          const std::int64_t ow = out_dim(k.w, 3, p.stride_w, p.dilation_w, p.pad_left, p.pad_right);
          const Buf<float> x = random_f32({k.n, k.c, k.h, k.w}, seed++);
          const Buf<float> w = random_f32({k.m, k.c / k.group, 3, 3}, seed++);
          const Buf<float> bias = random_f32({k.m}, seed++);
          const Buf<float> res = random_f32({k.n, k.m, oh, ow}, seed++);
          const Buf<float> xn = ge::test::to_nhwc(x), rn = ge::test::to_nhwc(res);
          REQUIRE(cpu::winograd_nhwc_fits(k.c / k.group, k.m, 3, 3, p));
          const cpu::PackedWinogradNhwc packed = cpu::pack_winograd_nhwc(w.view(), k.group, true);
          REQUIRE(packed.bf16);
          const cpu::PackedWinogradNhwc f32 = cpu::pack_winograd_nhwc(w.view(), k.group);
          REQUIRE_FALSE(f32.bf16);
          Buf<float> y({k.n, oh, ow, k.m}), y32({k.n, oh, ow, k.m});
          const ge::TensorView bv = bias.view(), rv = rn.view();
          tbb::task_arena arena(threads);
          arena.execute([&] {
            cpu::conv_winograd_nhwc(p, xn.view(), packed, &bv, y.view(), residual ? &rv : nullptr);
            cpu::conv_winograd_nhwc(p, xn.view(), f32, &bv, y32.view(), residual ? &rv : nullptr);
          });
          const std::vector<float> got = ge::test::to_nchw(y);
          const std::vector<float> want = ref_conv(p, x, w, &bias, residual ? &res : nullptr, oh, ow);
          // Measured 0.42-0.44% of the largest output on these cases (the GEMM over patches
          // in bf16: about a quarter of it); f32 Winograd 1e-6.
          CHECK(max_err(got, want) <= 1e-2f * max_abs(want));
          CHECK(max_err(ge::test::to_nchw(y32), want) <= 1e-5f * max_abs(want));
          CHECK(y.v != y32.v);  // it did run in bf16
        }
      }
    }
  });
}

TEST_CASE("bf16 Winograd on NCHW images: close to f32, blocks of tiles and the whole batch") {
  struct Case {
    std::int64_t n, c, h, w, m;
  };
  const Case cases[] = {{1, 16, 14, 14, 16}, {2, 32, 30, 30, 48}, {1, 256, 7, 9, 272}, {1, 33, 12, 10, 20}};
  const cpu::Conv2dParams same{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
                               .post = {cpu::Activation::relu}};
  std::uint32_t seed = 1100;
  for (const cpu::Bf16Kernels kind : bf16_kinds()) {
    if (kind == cpu::Bf16Kernels::amx) continue;  // (AMX keeps the bf16 GEMM over patches)
    with_kernels(kind, [&] {
      for (const Case& k : cases) {
        for (const int threads : {1, 2}) {
          CAPTURE(k.c);
          CAPTURE(k.m);
          CAPTURE(threads);
          const Buf<float> x = random_f32({k.n, k.c, k.h, k.w}, seed++);
          const Buf<float> w = random_f32({k.m, k.c, 3, 3}, seed++);
          const Buf<float> bias = random_f32({k.m}, seed++);
          const Buf<float> res = random_f32({k.n, k.m, k.h, k.w}, seed++);
          const cpu::PackedConvWeights packed =
              cpu::pack_conv_weights(same, w.view(), {.bf16 = true, .winograd = true});
          REQUIRE(packed.winograd);
          REQUIRE(packed.bf16);
          Buf<float> y({k.n, k.m, k.h, k.w});
          const ge::TensorView bv = bias.view(), rv = res.view();
          tbb::task_arena arena(threads);
          arena.execute([&] { cpu::conv2d(same, x.view(), packed, &bv, y.view(), &rv); });
          const std::vector<float> want = ref_conv(same, x, w, &bias, &res, k.h, k.w);
          // (V and U rounded after their transforms: about 0.4% of the largest output)
          CHECK(max_err(y.v, want) <= 1e-2f * max_abs(want));
          CHECK(max_err(y.v, want) > 0.0f);  // it did run in bf16
        }
      }
    });
  }
}

TEST_CASE("bf16 conv over few input channels: pairs of taps, NCHW and NHWC images, tails, pads, refusals") {
  struct Case {
    std::int64_t n, c, h, w, m, kh, kw;
    cpu::Conv2dParams p;
  };
  const cpu::PostOp relu{cpu::Activation::relu}, clip{cpu::Activation::clip, -0.5f, 0.5f};
  const Case cases[] = {
      {1, 3, 32, 30, 64, 7, 7, {.stride_h = 2, .stride_w = 2, .pad_top = 3, .pad_left = 3, .pad_bottom = 3,
                                .pad_right = 3, .post = relu}},                                       // a stem
      {2, 1, 11, 13, 20, 5, 5, {.pad_top = 2, .pad_left = 1, .pad_bottom = 0, .pad_right = 2}},        // 20 outputs
      {1, 4, 9, 40, 33, 3, 7, {.stride_w = 3, .pad_left = 5, .pad_right = 1, .dilation_h = 2, .post = clip}},
  };
  std::uint32_t seed = 900;
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    for (const Case& k : cases) {
      for (const bool nchw : {true, false}) {
        for (const int threads : {1, 2}) {
          CAPTURE(k.m);
          CAPTURE(nchw);
          CAPTURE(threads);
          const std::int64_t oh = out_dim(k.h, k.kh, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
          const std::int64_t ow = out_dim(k.w, k.kw, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
          const Buf<float> x = random_f32({k.n, k.c, k.h, k.w}, seed++);
          const Buf<float> w = random_f32({k.m, k.c, k.kh, k.kw}, seed++);
          const Buf<float> bias = random_f32({k.m}, seed++);
          const Buf<float> res = random_f32({k.n, k.m, oh, ow}, seed++);
          const Buf<float> xn = ge::test::to_nhwc(x), rn = ge::test::to_nhwc(res);
          const cpu::PackedFewChannelsNhwc packed = cpu::pack_few_channels_nhwc(w.view(), true);
          REQUIRE(packed.bf16);
          Buf<float> y({k.n, oh, ow, k.m});
          const ge::TensorView bv = bias.view(), rv = rn.view();
          tbb::task_arena arena(threads);
          arena.execute([&] {
            cpu::conv_few_channels_nhwc(k.p, nchw ? x.view() : xn.view(), packed, &bv, y.view(), &rv, nchw);
          });
          const std::vector<float> want = ref_conv(k.p, rounded(x), rounded(w), &bias, &res, oh, ow);
          check_close(ge::test::to_nchw(y), want, 1e-4f * std::sqrt(static_cast<float>(k.c * k.kh * k.kw)), 1e-4f);
        }
      }
    }
    // Pairs are neighbouring taps: a dilation across is refused at the run.
    const cpu::PackedFewChannelsNhwc packed = cpu::pack_few_channels_nhwc(random_f32({16, 3, 5, 5}, 1).view(), true);
    const Buf<float> x = random_f32({1, 12, 12, 3}, 2);
    Buf<float> y({1, 8, 4, 16});
    ge::test::expect_error(
        [&] { cpu::conv_few_channels_nhwc({.dilation_w = 2}, x.view(), packed, nullptr, y.view()); },
        ge::Errc::unsupported, "dilation 2 across is not 1");
  });
}

TEST_CASE("bf16 pointwise then depthwise in one pass: the pointwise product on bf16 operands, ring and two steps") {
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    CAPTURE(static_cast<int>(kind));
    struct Case {
      std::int64_t n, c, e, h, w, stride;  // e: the expanded channels
    };
    // K = 16 and 24 (MobileNetV2's expansions: the dot products read 8 and 12 pairs, the
    // tiles 32), an odd K, rows of 56 pixels and more (the ring of expanded rows) and under
    // (two steps), tails of rows and columns.
    const Case cases[] = {{1, 16, 96, 57, 57, 2}, {2, 24, 144, 12, 12, 1}, {1, 5, 20, 9, 60, 1}, {1, 24, 40, 7, 70, 2}};
    std::uint32_t seed = 900;
    for (const Case& k : cases) {
      for (const int threads : {1, 2}) {
        CAPTURE(k.c);
        CAPTURE(k.w);
        CAPTURE(threads);
        const cpu::Conv2dParams p{.stride_h = k.stride, .stride_w = k.stride, .pad_top = 1, .pad_left = 1,
                                  .pad_bottom = 1, .pad_right = 1, .group = k.e,
                                  .post = {cpu::Activation::clip, 0.0f, 6.0f}};
        const cpu::PostOp pw_post{cpu::Activation::relu};
        const std::int64_t oh = out_dim(k.h, 3, k.stride, 1, 1, 1), ow = out_dim(k.w, 3, k.stride, 1, 1, 1);
        const Buf<float> x = random_f32({k.n, k.c, k.h, k.w}, seed++);
        Buf<float> w1 = random_f32({k.e, k.c, 1, 1}, seed++);
        const Buf<float> b1 = random_f32({k.e}, seed++);
        const Buf<float> w2 = random_f32({k.e, 1, 3, 3}, seed++);
        const Buf<float> b2 = random_f32({k.e}, seed++);
        const std::int64_t w1d[2] = {k.e, k.c};
        const cpu::PackedMatMulB pw =
            cpu::pack_matmul_b(ge::TensorView{w1.v.data(), ge::DataType::f32, w1d}, true, true);
        REQUIRE(pw.bf16);
        const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(w2.view());
        const Buf<float> xn = ge::test::to_nhwc(x);
        Buf<float> y({k.n, oh, ow, k.e});
        const ge::TensorView bv = b2.view();
        tbb::task_arena arena(threads);
        arena.execute(
            [&] { cpu::pointwise_depthwise_nhwc(p, xn.view(), pw, b1.v.data(), pw_post, dw, &bv, y.view()); });
        // The reference on the pointwise conv's bf16 operands (its result and the depthwise
        // conv f32): only the order of f32 sums differs.
        const cpu::Conv2dParams one{.post = pw_post};
        const Buf<float> mid({k.n, k.e, k.h, k.w}, ref_conv(one, rounded(x), rounded(w1), &b1, nullptr, k.h, k.w));
        const std::vector<float> want = ref_conv(p, mid, w2, &b2, nullptr, oh, ow);
        check_close(ge::test::to_nchw(y), want, 1e-4f * std::sqrt(static_cast<float>(k.c)), 1e-4f);
      }
    }
  });
}

TEST_CASE("bf16 depthwise then pointwise in one pass: the product on the depthwise rows rounded to bf16") {
  for (const cpu::Bf16Kernels kind : bf16_kinds()) with_kernels(kind, [&] {
    CAPTURE(static_cast<int>(kind));
    struct Case {
      std::int64_t n, c, m, hw, stride;
    };
    // K = 144 (pairs), K = 24 with 40 outputs (a column tail), 7-pixel rows, an odd K.
    const Case cases[] = {{1, 144, 24, 28, 1}, {2, 24, 40, 15, 2}, {3, 96, 32, 7, 1}, {1, 21, 16, 9, 1}};
    std::uint32_t seed = 950;
    for (const Case& k : cases) {
      for (const int threads : {1, 2}) {
        CAPTURE(k.c);
        CAPTURE(threads);
        const cpu::Conv2dParams p{.stride_h = k.stride, .stride_w = k.stride, .pad_top = 1, .pad_left = 1,
                                  .pad_bottom = 1, .pad_right = 1, .group = k.c,
                                  .post = {cpu::Activation::clip, 0.0f, 6.0f}};
        const std::int64_t o = out_dim(k.hw, 3, k.stride, 1, 1, 1);
        // X, W1 and B1 in halves: the depthwise sums (quarters under 20) are exact in f32 in
        // any order and in bf16, so the rows' rounding is the reference's whatever the
        // order of the kernel's sums (random values flipped a rounding: 1 bf16 ulp of 7.5).
        const auto halves = [](Buf<float> b) {
          for (float& v : b.v) v = std::round(v * 4.0f) / 2.0f;
          return b;
        };
        const Buf<float> x = halves(random_f32({k.n, k.c, k.hw, k.hw}, seed++));
        const Buf<float> w1 = halves(random_f32({k.c, 1, 3, 3}, seed++));
        const Buf<float> b1 = halves(random_f32({k.c}, seed++));
        Buf<float> w2 = random_f32({k.m, k.c, 1, 1}, seed++);
        const Buf<float> b2 = random_f32({k.m}, seed++);
        const Buf<float> res = random_f32({k.n, k.m, o, o}, seed++);
        const std::int64_t w2d[2] = {k.m, k.c};
        const cpu::PackedMatMulB pw =
            cpu::pack_matmul_b(ge::TensorView{w2.v.data(), ge::DataType::f32, w2d}, true, true);
        REQUIRE(pw.bf16);
        const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(w1.view());
        const Buf<float> xn = ge::test::to_nhwc(x), rn = ge::test::to_nhwc(res);
        Buf<float> y({k.n, o, o, k.m});
        const ge::TensorView bv = b1.view(), rv = rn.view();
        tbb::task_arena arena(threads);
        arena.execute([&] {
          cpu::depthwise_pointwise_nhwc(p, xn.view(), dw, &bv, pw, b2.v.data(), {}, y.view(), &rv);
        });
        // The reference: the depthwise conv (exact), its output and W2 rounded to bf16, the
        // product's sums in f64: only the order of the product's f32 sums differs.
        const Buf<float> mid({k.n, k.c, o, o}, ref_conv(p, x, w1, &b1, nullptr, o, o));
        const std::vector<float> want = ref_conv({}, rounded(mid), rounded(w2), &b2, &res, o, o);
        check_close(ge::test::to_nchw(y), want, 1e-4f * std::sqrt(static_cast<float>(k.c)), 1e-4f);
      }
    }
  });
}

TEST_CASE("bf16 packing falls back to f32 where no bf16 kernels are allowed; depthwise stays f32") {
  const Buf<float> b = random_f32({40, 24}, 7);
  const Buf<float> a = random_f32({5, 40}, 8);
  cpu::PackedMatMulB packed;
  cpu::PackedConvNhwc nhwc;
  {
    const cpu::Bf16KernelsCap cap(cpu::Bf16Kernels::none);
    CHECK_FALSE(cpu::bf16_usable());
    packed = cpu::pack_matmul_b(b.view(), true);
    nhwc = cpu::pack_conv_nhwc(random_f32({8, 4, 3, 3}, 10).view(), true);
  }
  CHECK_FALSE(nhwc.bf16);
  CHECK_FALSE(packed.bf16);  // f32 panels: the run below is the f32 product, exact to 1e-5
  Buf<float> y({5, 24});
  cpu::matmul(a.view(), packed, y.view());
  check_close(y.v, ref_matmul(a, b, 5, 24, 40, {}), 1e-5f, 1e-5f);

  // A conv to 3 outputs (a generator's last): the f32 direct kernel even under bf16 (the
  // bf16 rows would pad the 3 outputs to 16).
  const cpu::Conv2dParams rgb{.pad_top = 4, .pad_left = 4, .pad_bottom = 4, .pad_right = 4};
  const Buf<float> w3 = random_f32({3, 32, 9, 9}, 11);
  if (cpu::bf16_usable() && cpu::direct_fits(32, 3, 9, 9, rgb)) {
    const cpu::PackedConvWeights p3 = cpu::pack_conv_weights(rgb, w3.view(), {.bf16 = true, .direct = true});
    CHECK_FALSE(p3.bf16);
    CHECK(p3.direct);
    CHECK(cpu::pack_conv_weights(rgb, w3.view(), {.bf16 = true}).bf16);  // (without the direct kernel: bf16)
  }

  const cpu::Conv2dParams dw{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 8};
  const Buf<float> w = random_f32({8, 1, 3, 3}, 9);
  const cpu::PackedConvWeights pw = cpu::pack_conv_weights(dw, w.view(), {.bf16 = true});
  CHECK(pw.depthwise);
  CHECK_FALSE(pw.bf16);
}
