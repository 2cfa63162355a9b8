#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <tbb/task_arena.h>

#include "conv_ref.hpp"
#include "kernel_test.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::out_dim;
using ge::test::random_f32;
using ge::test::ref_conv;
using ge::test::to_nchw;
using ge::test::to_nhwc;
namespace cpu = ge::cpu;

namespace {

struct ConvCase {
  std::int64_t n, c, h, w, co, kh, kw;
  cpu::Conv2dParams p;
  bool with_bias, with_residual;
};

void run_conv_case(const ConvCase& k, std::uint32_t seed) {
  const std::int64_t oh = out_dim(k.h, k.kh, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
  const std::int64_t ow = out_dim(k.w, k.kw, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
  auto x = random_f32({k.n, k.c, k.h, k.w}, seed);
  auto w = random_f32({k.co, k.c / k.p.group, k.kh, k.kw}, seed + 1);
  auto bias = random_f32({k.co}, seed + 2);
  auto res = random_f32({k.n, k.co, oh, ow}, seed + 3);
  Buf<float> y({k.n, k.co, oh, ow});
  const ge::TensorView bv = bias.view(), rv = res.view();
  cpu::conv2d(k.p, x.view(), w.view(), k.with_bias ? &bv : nullptr, y.view(), k.with_residual ? &rv : nullptr);
  check_close(y.v, ref_conv(k.p, x, w, k.with_bias ? &bias : nullptr, k.with_residual ? &res : nullptr, oh, ow),
              1e-4f, 1e-4f);
}


// A case with weights packed as `packing` asks (which must apply: `applied` of the
// packed weights), on 1 and 2 threads, against the reference within `tol` per unit of
// sqrt(K).
template <class Applied>
void run_packed_cases(const std::vector<ConvCase>& cases, const cpu::ConvPacking& packing, Applied applied,
                      std::uint32_t seed, float tol) {
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      CAPTURE(threads);
      CAPTURE(i);
      const ConvCase& k = cases[i];
      const std::int64_t oh = out_dim(k.h, k.kh, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
      const std::int64_t ow = out_dim(k.w, k.kw, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
      auto x = random_f32({k.n, k.c, k.h, k.w}, seed++);
      auto w = random_f32({k.co, k.c / k.p.group, k.kh, k.kw}, seed++);
      auto bias = random_f32({k.co}, seed++);
      auto res = random_f32({k.n, k.co, oh, ow}, seed++);
      const cpu::PackedConvWeights packed = cpu::pack_conv_weights(k.p, w.view(), packing);
      REQUIRE(applied(packed));
      Buf<float> y({k.n, k.co, oh, ow});
      const ge::TensorView bv = bias.view(), rv = res.view();
      arena.execute([&] {
        cpu::conv2d(k.p, x.view(), packed, k.with_bias ? &bv : nullptr, y.view(), k.with_residual ? &rv : nullptr);
      });
      const float scale = std::sqrt(static_cast<float>(k.c / k.p.group * k.kh * k.kw));
      check_close(y.v, ref_conv(k.p, x, w, k.with_bias ? &bias : nullptr, k.with_residual ? &res : nullptr, oh, ow),
                  tol * scale, tol);
    }
  }
}

}  // namespace

TEST_CASE("conv2d: exact 3x3 box filter with zero padding, by hand") {
  Buf<float> x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Buf<float> w({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  Buf<float> y({1, 1, 3, 3});
  cpu::conv2d({.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, x.view(), w.view(), nullptr, y.view());
  CHECK(y.v == std::vector<float>{12, 21, 16, 27, 45, 33, 24, 39, 28});
}

TEST_CASE("conv2d matches a naive conv: strides, pads, dilations, groups, depthwise, post-ops") {
  using A = cpu::Activation;
  const std::vector<ConvCase> cases = {
      {1, 3, 7, 9, 5, 3, 3, {}, true, false},
      {2, 4, 10, 11, 17, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, true, false},
      {1, 6, 9, 8, 4, 3, 2, {.stride_h = 1, .stride_w = 3, .pad_top = 2, .pad_left = 0, .pad_bottom = 1, .pad_right = 2, .dilation_h = 2, .dilation_w = 1}, false, false},
      {2, 8, 6, 6, 16, 1, 1, {.post = {A::relu}}, true, true},
      {1, 7, 5, 9, 13, 1, 1, {.stride_h = 2, .stride_w = 2}, true, false},
      {1, 6, 8, 8, 9, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 3}, true, true},
      {2, 8, 9, 7, 8, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 8, .post = {A::clip, 0.0f, 0.5f}}, true, false},
      {1, 5, 12, 13, 5, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 0, .pad_right = 0, .group = 5, .post = {A::relu}}, true, true},
      {1, 4, 9, 9, 4, 5, 5, {.pad_top = 4, .pad_left = 4, .pad_bottom = 4, .pad_right = 4, .dilation_h = 2, .dilation_w = 2, .group = 4}, false, false},
      {1, 4, 6, 6, 8, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 4}, true, false},
      {1, 3, 4, 4, 2, 5, 5, {.pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2}, true, false},
      {1, 40, 20, 21, 70, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = {A::relu}}, true, true},
      {2, 8, 5, 6, 12, 1, 1, {.group = 4}, true, true},
      {1, 16, 30, 30, 200, 1, 1, {.post = {A::clip, -0.25f, 0.25f}}, true, false},
  };
  std::uint32_t seed = 100;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    run_conv_case(cases[i], seed);
    seed += 10;
  }
}

TEST_CASE("conv2d GEMM paths: B blocks packed from the image, K blocks, row and column edges, 1-3 threads") {
  // Shapes chosen to reach each path of the blocked conv: many column blocks (one task per
  // block) and few (packed over all of K, then the output channels split), K over one
  // block (partial sums through C), output channels not a multiple of the 6-row tile,
  // columns not a multiple of the 16-column panel, pointwise packing, stride 2, groups,
  // residual and activations in the fused store.
  using A = cpu::Activation;
  const cpu::Conv2dParams pad1{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1};
  const std::vector<ConvCase> cases = {
      {1, 64, 7, 7, 70, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = {A::relu}}, true, true},
      {1, 300, 5, 6, 20, 1, 1, {.post = {A::relu}}, true, true},
      {3, 300, 5, 6, 20, 1, 1, {}, false, true},
      {2, 33, 17, 19, 13, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, true, false},
      {1, 20, 40, 40, 8, 1, 1, {.post = {A::clip, -0.5f, 0.5f}}, true, false},
      {2, 48, 14, 14, 40, 1, 1, {.stride_h = 2, .stride_w = 2, .post = {A::relu}}, true, true},
      {1, 64, 9, 9, 32, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 2}, true, true},
      {1, 32, 56, 56, 24, 3, 3, pad1, true, false},
      {1, 3, 33, 35, 18, 7, 7, {.stride_h = 2, .stride_w = 2, .pad_top = 3, .pad_left = 3, .pad_bottom = 3, .pad_right = 3, .post = {A::relu}}, true, false},
      {8, 96, 7, 7, 12, 1, 1, {.post = {A::relu}}, true, true},
      {1, 600, 2, 3, 7, 3, 3, pad1, true, true},
      // depthwise, stride 1: the padded-plane path (asymmetric pads, dilation, residual)
      {2, 6, 11, 9, 6, 3, 3, {.pad_top = 1, .pad_left = 2, .pad_bottom = 0, .pad_right = 1, .group = 6, .post = {A::relu}}, true, true},
      {1, 5, 8, 10, 5, 3, 3, {.pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2, .dilation_h = 2, .dilation_w = 2, .group = 5}, false, true},
      {1, 4, 1, 7, 4, 1, 3, {.pad_left = 1, .pad_right = 1, .group = 4, .post = {A::clip, 0.0f, 0.3f}}, true, false},
      // stride 2 across (AVX-512: panels as masked row segments): wide rows, rows of
      // fewer than 16 outputs, stride 1 down with asymmetric pads, dilation down, groups
      {1, 16, 30, 70, 24, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                                 .pad_right = 1, .post = {A::relu}}, true, true},
      {2, 8, 9, 40, 16, 3, 3, {.stride_h = 1, .stride_w = 2, .pad_top = 0, .pad_left = 2, .pad_bottom = 2,
                               .pad_right = 0}, true, false},
      {1, 12, 16, 23, 10, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 2, .pad_left = 1, .pad_bottom = 2,
                                 .pad_right = 1, .dilation_h = 2, .group = 2}, false, true},
  };
  for (const int threads : {1, 2, 3}) {
    CAPTURE(threads);
    tbb::task_arena arena(threads);
    arena.execute([&] {
      std::uint32_t seed = 700;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        CAPTURE(i);
        run_conv_case(cases[i], seed);
        seed += 10;
      }
    });
  }
}

TEST_CASE("conv2d depthwise, vectorised along rows: 3x3 and 5x5, strides 1 and 2, widths around the lanes") {
  using A = cpu::Activation;
  std::uint32_t seed = 900;
  for (const std::int64_t k : {3, 5}) {
    for (const std::int64_t sh : {1, 2}) {
      for (const std::int64_t sw : {1, 2}) {
        for (const std::int64_t w : {1, 5, 7, 15, 16, 17, 33, 58}) {
          CAPTURE(k);
          CAPTURE(sh);
          CAPTURE(sw);
          CAPTURE(w);
          const std::int64_t pad = k / 2;
          const bool odd = w % 2 == 1;
          const cpu::Conv2dParams p{.stride_h = sh, .stride_w = sw, .pad_top = pad, .pad_left = odd ? pad : pad - 1,
                                    .pad_bottom = odd ? pad - 1 : pad, .pad_right = pad, .group = 6,
                                    .post = {odd ? A::clip : A::relu, 0.0f, 0.75f}};
          if (w + p.pad_left + p.pad_right < k) continue;
          run_conv_case({2, 6, 9, w, 6, k, k, p, true, odd}, seed++);
        }
      }
    }
  }
  // Wide planes over both threads, the residual without an activation.
  tbb::task_arena arena(2);
  arena.execute([&] {
    run_conv_case({1, 24, 30, 112, 24, 3, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 24},
                   true, true},
                  seed++);
    run_conv_case({1, 24, 29, 57, 24, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1,
                                             .pad_bottom = 1, .pad_right = 1, .group = 24}, false, true},
                  seed++);
  });
}

TEST_CASE("conv2d depthwise on small planes with same padding: one flat sweep, columns masked") {
  using A = cpu::Activation;
  std::uint32_t seed = 1900;
  for (const std::int64_t k : {3, 5})
    for (const std::int64_t h : {1, 2, 7, 14})
      for (const std::int64_t w : {1, 2, 3, 7, 14, 15, 16, 17, 28, 31}) {
        CAPTURE(k);
        CAPTURE(h);
        CAPTURE(w);
        const std::int64_t pad = k / 2;
        const bool odd = (h + w) % 2 == 1;
        const cpu::Conv2dParams p{.pad_top = pad, .pad_left = pad, .pad_bottom = pad, .pad_right = pad, .group = 5,
                                  .post = {odd ? A::clip : A::relu, 0.0f, 0.75f}};
        run_conv_case({2, 5, h, w, 5, k, k, p, true, odd}, seed++);
      }
}

TEST_CASE("conv2d with pixel-major weights (small images): pixels as GEMM rows, blocks across images") {
  using A = cpu::Activation;
  const cpu::Conv2dParams pad1{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = {A::relu}};
  const std::vector<ConvCase> cases = {
      {1, 64, 7, 7, 70, 3, 3, pad1, true, true},
      {3, 40, 7, 7, 33, 1, 1, {}, true, true},
      {2, 48, 14, 14, 40, 1, 1, {.stride_h = 2, .stride_w = 2, .post = {A::clip, 0.0f, 0.5f}}, true, false},
      {2, 16, 9, 8, 24, 3, 3, {.stride_h = 2, .stride_w = 1, .pad_top = 1, .pad_left = 0, .pad_bottom = 1,
                              .pad_right = 2, .group = 2}, false, true},
      {3, 1600, 7, 7, 8, 3, 3, pad1, true, true},  // K = 14400: pixel blocks of 144 rows straddle images
  };
  run_packed_cases(cases, {.pixel_major = true}, [](const cpu::PackedConvWeights& w) { return w.pixel_major; }, 1300,
                   4e-5f);
}

TEST_CASE("conv2d by Winograd F(2x2, 3x3): odd and even sizes, pads, batches across tile groups, K blocks, blocks of tiles") {
  using A = cpu::Activation;
  const auto pads = [](std::int64_t t, std::int64_t l, std::int64_t b, std::int64_t r, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.pad_top = t, .pad_left = l, .pad_bottom = b, .pad_right = r, .post = post};
  };
  const std::vector<ConvCase> cases = {
      {1, 32, 8, 8, 32, 3, 3, pads(1, 1, 1, 1, {A::relu}), true, true},
      {3, 40, 7, 7, 33, 3, 3, pads(1, 1, 1, 1), true, true},          // 16-tile groups span images
      {2, 17, 9, 6, 70, 3, 3, pads(0, 0, 0, 0, {A::clip, -0.5f, 0.5f}), true, false},  // valid conv, odd output
      {1, 300, 5, 11, 13, 3, 3, pads(2, 0, 1, 2), false, true},       // K over one block; asymmetric pads
      {2, 8, 1, 1, 8, 3, 3, pads(1, 1, 1, 1, {A::relu}), true, true},  // one pixel
      {1, 64, 30, 31, 64, 3, 3, pads(1, 1, 1, 1, {A::relu}), true, true},
      // Enough tiles for blocks of tiles per task (conv_winograd.cpp): 16-tile groups over
      // tile rows and images inside a block, the last block partial, a residual.
      {5, 24, 13, 13, 20, 3, 3, pads(1, 1, 1, 1, {A::relu}), true, true},
      {2, 300, 20, 18, 40, 3, 3, pads(1, 0, 1, 2, {A::clip, -0.5f, 0.5f}), true, false},  // K blocks
      {4, 96, 12, 34, 80, 3, 3, pads(0, 1, 0, 1), false, true},  // 17 tiles a row, odd output
      // Rows 72 wide: a 16-tile group whose windows all lie inside the row (read in place
      // on AVX2), with groups at the row's edges and across rows beside it.
      {2, 16, 7, 72, 24, 3, 3, pads(1, 1, 1, 1, {A::relu}), true, true},
  };
  // Rounding only: the transforms add, the weights' halves are exact.
  run_packed_cases(cases, {.winograd = true}, [](const cpu::PackedConvWeights& w) { return w.winograd; }, 1500, 1e-4f);
  // Packed for Winograd, a run with strides is refused; other convs keep their packing.
  auto w = random_f32({8, 8, 3, 3}, 1);
  const cpu::PackedConvWeights packed = cpu::pack_conv_weights({}, w.view(), {.winograd = true});
  auto x = random_f32({1, 8, 6, 6}, 2);
  Buf<float> y({1, 8, 2, 2});
  expect_error([&] { cpu::conv2d({.stride_h = 2, .stride_w = 2}, x.view(), packed, nullptr, y.view()); },
               Errc::bad_attribute, kernels_tag);
  CHECK_FALSE(cpu::pack_conv_weights({.stride_h = 2}, w.view(), {.winograd = true}).winograd);
  CHECK_FALSE(cpu::pack_conv_weights({.group = 2}, random_f32({8, 4, 3, 3}, 3).view(), {.winograd = true}).winograd);
}


// A dense conv on NHWC images: batch, channels, size, outputs, kernel, params, operands.
struct DenseNhwcCase {
  std::int64_t n, c, h, w, m, k;
  cpu::Conv2dParams p;
  bool bias, residual;
};

TEST_CASE("conv2d depthwise on NHWC images: kernels, strides, dilations, pads, channel tails, epilogue") {
  using A = cpu::Activation;
  std::uint32_t seed = 3100;
  struct Case {
    std::int64_t n, c, h, w, k;
    cpu::Conv2dParams p;
    bool bias, residual;
  };
  const auto same = [](std::int64_t k, std::int64_t s, cpu::PostOp post = {}) {
    const std::int64_t pad = k / 2;
    return cpu::Conv2dParams{.stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad, .pad_bottom = pad,
                             .pad_right = pad, .post = post};
  };
  std::vector<Case> cases;
  for (const std::int64_t c : {5, 16, 24, 40, 96})
    for (const std::int64_t k : {3, 5})
      for (const std::int64_t s : {1, 2})
        cases.push_back({2, c, 11, 19, k, same(k, s, {c % 2 ? A::clip : A::relu, 0.0f, 0.5f}), true, c % 3 == 0});
  // Wide rows (blocks of 8 pixels and the edges), dilation, asymmetric pads, no pads.
  cases.push_back({1, 32, 9, 40, 3, {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, false, true});
  cases.push_back({1, 16, 12, 30, 3, {.pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2, .dilation_h = 2,
                                      .dilation_w = 2}, true, false});
  cases.push_back({2, 24, 8, 17, 3, {.stride_h = 2, .stride_w = 1, .pad_top = 0, .pad_left = 1, .pad_bottom = 1,
                                     .pad_right = 0}, true, true});
  cases.push_back({1, 48, 7, 7, 3, {}, true, false});
  cases.push_back({1, 8, 1, 1, 3, same(3, 1), true, true});  // one pixel: every tap but the centre in a pad
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      Case k = cases[i];
      CAPTURE(threads);
      CAPTURE(i);
      k.p.group = k.c;
      const std::int64_t oh = out_dim(k.h, k.k, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
      const std::int64_t ow = out_dim(k.w, k.k, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
      auto x = random_f32({k.n, k.c, k.h, k.w}, seed++);
      auto w = random_f32({k.c, 1, k.k, k.k}, seed++);
      auto bias = random_f32({k.c}, seed++);
      auto res = random_f32({k.n, k.c, oh, ow}, seed++);
      const Buf<float> xn = to_nhwc(x), rn = to_nhwc(res);
      Buf<float> y({k.n, oh, ow, k.c});
      const cpu::PackedDepthwiseNhwc packed = cpu::pack_depthwise_nhwc(w.view());
      const ge::TensorView bv = bias.view(), rv = rn.view();
      arena.execute([&] {
        cpu::depthwise_nhwc(k.p, xn.view(), packed, k.bias ? &bv : nullptr, y.view(), k.residual ? &rv : nullptr);
      });
      check_close(to_nchw(y), ref_conv(k.p, x, w, k.bias ? &bias : nullptr, k.residual ? &res : nullptr, oh, ow),
                  1e-4f, 1e-4f);
    }
  }
  // Bad input: a clear error, not a crash.
  auto w = random_f32({8, 1, 3, 3}, 1);
  const cpu::PackedDepthwiseNhwc packed = cpu::pack_depthwise_nhwc(w.view());
  auto x = random_f32({1, 6, 6, 8}, 2);
  Buf<float> y({1, 6, 6, 8});
  expect_error([&] { cpu::depthwise_nhwc({.group = 8}, x.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  auto x7 = random_f32({1, 6, 6, 7}, 3);
  expect_error([&] { cpu::depthwise_nhwc({.group = 8}, x7.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error(
      [&] {
        (void)cpu::pack_depthwise_nhwc(random_f32({8, 2, 3, 3}, 4).view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        (void)cpu::pack_depthwise_nhwc(random_f32({8, 1, 9, 9}, 5).view());
      },
      Errc::unsupported, kernels_tag);
}

TEST_CASE("pointwise then depthwise on NHWC images in one pass: the two convs' result, every ring case") {
  using A = cpu::Activation;
  std::uint32_t seed = 5100;
  struct Case {
    std::int64_t n, c, e, h, w, k;  // e: the expanded channels
    cpu::Conv2dParams p;
    bool bias, residual;
  };
  const auto pads = [](std::int64_t t, std::int64_t l, std::int64_t b, std::int64_t r, std::int64_t s = 1,
                       std::int64_t dil = 1) {
    return cpu::Conv2dParams{.stride_h = s, .stride_w = s, .pad_top = t, .pad_left = l, .pad_bottom = b, .pad_right = r,
                             .dilation_h = dil, .dilation_w = dil, .post = {A::clip, 0.0f, 6.0f}};
  };
  const std::vector<Case> cases = {
      {2, 16, 96, 14, 14, 3, pads(1, 1, 1, 1, 2), true, false},   // MobileNetV2's stride-2 block
      {1, 24, 144, 12, 12, 3, pads(1, 1, 1, 1), true, true},      // stride 1 with the residual
      {3, 5, 20, 9, 13, 3, pads(1, 1, 1, 1), false, false},       // channels past the last vector
      {1, 8, 32, 11, 7, 5, pads(2, 2, 2, 2, 2), true, false},     // 5x5, stride 2, odd sizes
      {1, 8, 16, 10, 10, 3, pads(2, 2, 2, 2, 1, 2), true, true},  // dilation 2: a ring of 5 rows
      {1, 4, 16, 9, 9, 3, pads(0, 1, 1, 0, 2), true, false},      // asymmetric pads
      {2, 8, 16, 1, 1, 3, pads(1, 1, 1, 1), true, true},          // one pixel
      {1, 16, 32, 40, 3, 3, pads(1, 1, 1, 1), true, false},       // tall: many runs of rows per image
      // Expanded images under twice the threads' L2 with rows under 56 pixels run as two
      // steps (all the above); this one (12.6 MB) through the ring of expanded rows, and the
      // next (small, but 60 pixels wide) too.
      {1, 8, 192, 128, 128, 3, pads(1, 1, 1, 1), true, true},
      {1, 4, 24, 5, 60, 3, pads(1, 1, 1, 1, 2), true, false},
  };
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      Case k = cases[i];
      CAPTURE(threads);
      CAPTURE(i);
      k.p.group = k.e;
      const cpu::PostOp pw_post{A::relu};
      const std::int64_t oh = out_dim(k.h, k.k, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
      const std::int64_t ow = out_dim(k.w, k.k, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
      auto x = random_f32({k.n, k.c, k.h, k.w}, seed++);
      auto w1 = random_f32({k.e, k.c, 1, 1}, seed++);
      auto b1 = random_f32({k.e}, seed++);
      auto w2 = random_f32({k.e, 1, k.k, k.k}, seed++);
      auto b2 = random_f32({k.e}, seed++);
      auto res = random_f32({k.n, k.e, oh, ow}, seed++);
      // The reference: the pointwise conv with its ReLU, then the depthwise one.
      Buf<float> mid({k.n, k.e, k.h, k.w}, ref_conv(cpu::Conv2dParams{.post = pw_post}, x, w1, &b1, nullptr, k.h, k.w));
      const std::vector<float> want = ref_conv(k.p, mid, w2, k.bias ? &b2 : nullptr, k.residual ? &res : nullptr, oh, ow);
      const std::int64_t w1d[2] = {k.e, k.c};
      const cpu::PackedMatMulB pw = cpu::pack_matmul_b(ge::TensorView{w1.v.data(), ge::DataType::f32, w1d}, false, true);
      const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(w2.view());
      const Buf<float> xn = to_nhwc(x), rn = to_nhwc(res);
      Buf<float> y({k.n, oh, ow, k.e});
      const ge::TensorView bv = b2.view(), rv = rn.view();
      arena.execute([&] {
        cpu::pointwise_depthwise_nhwc(k.p, xn.view(), pw, b1.v.data(), pw_post, dw, k.bias ? &bv : nullptr, y.view(),
                                      k.residual ? &rv : nullptr);
      });
      check_close(to_nchw(y), want, 1e-4f, 1e-4f);
    }
  }
  // Bad input: a clear error, not a crash.
  auto w1 = random_f32({16, 8}, 1);
  const cpu::PackedMatMulB pw = cpu::pack_matmul_b(w1.view(), false, true);
  const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(random_f32({16, 1, 3, 3}, 2).view());
  auto x7 = random_f32({1, 6, 6, 7}, 3);
  Buf<float> y({1, 6, 6, 16});
  const cpu::Conv2dParams p{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 16};
  expect_error([&] { cpu::pointwise_depthwise_nhwc(p, x7.view(), pw, nullptr, {}, dw, nullptr, y.view()); },
               Errc::bad_op_inputs, "pointwise inputs");
  auto x8 = random_f32({1, 6, 6, 8}, 4);
  Buf<float> y_wrong({1, 5, 6, 16});
  expect_error([&] { cpu::pointwise_depthwise_nhwc(p, x8.view(), pw, nullptr, {}, dw, nullptr, y_wrong.view()); },
               Errc::bad_op_inputs, kernels_tag);
  cpu::Conv2dParams p8 = p;
  p8.group = 8;
  expect_error([&] { cpu::pointwise_depthwise_nhwc(p8, x8.view(), pw, nullptr, {}, dw, nullptr, y.view()); },
               Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("depthwise then pointwise on NHWC images in one pass: the two convs' result, runs of rows, tails") {
  using A = cpu::Activation;
  std::uint32_t seed = 6100;
  struct Case {
    std::int64_t n, c, m, h, w, k, stride, dil;  // m: the pointwise outputs
    cpu::PostOp dw_post, pw_post;
    bool residual;
  };
  const cpu::PostOp relu6{A::clip, 0.0f, 6.0f}, silu{A::silu};
  const std::vector<Case> cases = {
      {1, 144, 24, 56, 56, 3, 1, 1, relu6, {}, true},       // MobileNetV2's 56 x 56 projection, the residual
      {2, 96, 40, 15, 17, 5, 2, 1, relu6, {}, false},       // 5x5, stride 2, odd sizes, 40 outputs (a tail)
      {1, 20, 8, 9, 9, 3, 1, 2, silu, {A::relu}, false},    // dilation 2; SiLU on the rows before the product
      {3, 32, 16, 7, 7, 3, 1, 1, relu6, {A::relu}, true},   // 7-pixel rows: runs of 2 rows a task
      {1, 5, 3, 4, 30, 3, 2, 1, {A::relu}, {}, false},      // channels and outputs under one vector
  };
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& k = cases[i];
      CAPTURE(threads);
      CAPTURE(i);
      const std::int64_t pad = k.dil * (k.k / 2);
      const cpu::Conv2dParams p{.stride_h = k.stride, .stride_w = k.stride, .pad_top = pad, .pad_left = pad,
                                .pad_bottom = pad, .pad_right = pad, .dilation_h = k.dil, .dilation_w = k.dil,
                                .group = k.c, .post = k.dw_post};
      const std::int64_t oh = out_dim(k.h, k.k, k.stride, k.dil, pad, pad);
      const std::int64_t ow = out_dim(k.w, k.k, k.stride, k.dil, pad, pad);
      auto x = random_f32({k.n, k.c, k.h, k.w}, seed++);
      auto w1 = random_f32({k.c, 1, k.k, k.k}, seed++);
      auto b1 = random_f32({k.c}, seed++);
      auto w2 = random_f32({k.m, k.c, 1, 1}, seed++);
      auto b2 = random_f32({k.m}, seed++);
      auto res = random_f32({k.n, k.m, oh, ow}, seed++);
      // The reference: the depthwise conv with its activation, then the pointwise one.
      Buf<float> mid({k.n, k.c, oh, ow}, ref_conv(p, x, w1, &b1, nullptr, oh, ow));
      const std::vector<float> want =
          ref_conv(cpu::Conv2dParams{.post = k.pw_post}, mid, w2, &b2, k.residual ? &res : nullptr, oh, ow);
      const std::int64_t w2d[2] = {k.m, k.c};
      const cpu::PackedMatMulB pw =
          cpu::pack_matmul_b(ge::TensorView{w2.v.data(), ge::DataType::f32, w2d}, false, true);
      const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(w1.view());
      const Buf<float> xn = to_nhwc(x), rn = to_nhwc(res);
      Buf<float> y({k.n, oh, ow, k.m});
      const ge::TensorView bv = b1.view(), rv = rn.view();
      arena.execute([&] {
        cpu::depthwise_pointwise_nhwc(p, xn.view(), dw, &bv, pw, b2.v.data(), k.pw_post, y.view(),
                                      k.residual ? &rv : nullptr);
      });
      check_close(to_nchw(y), want, 1e-4f, 1e-4f);
    }
  }
  // Bad input: a clear error, not a crash.
  auto w2 = random_f32({16, 8}, 1);
  const cpu::PackedMatMulB pw = cpu::pack_matmul_b(w2.view(), false, true);  // 8 -> 16
  const cpu::PackedDepthwiseNhwc dw = cpu::pack_depthwise_nhwc(random_f32({8, 1, 3, 3}, 2).view());
  const cpu::Conv2dParams p{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 8};
  auto x7 = random_f32({1, 6, 6, 7}, 3);
  Buf<float> y({1, 6, 6, 16});
  expect_error([&] { cpu::depthwise_pointwise_nhwc(p, x7.view(), dw, nullptr, pw, nullptr, {}, y.view()); },
               Errc::bad_op_inputs, "pointwise inputs");
  auto x8 = random_f32({1, 6, 6, 8}, 4);
  Buf<float> y_wrong({1, 6, 6, 8});
  expect_error([&] { cpu::depthwise_pointwise_nhwc(p, x8.view(), dw, nullptr, pw, nullptr, {}, y_wrong.view()); },
               Errc::bad_op_inputs, kernels_tag);
  Buf<float> r_wrong({1, 5, 6, 16});
  const ge::TensorView rw = r_wrong.view();
  expect_error([&] { cpu::depthwise_pointwise_nhwc(p, x8.view(), dw, nullptr, pw, nullptr, {}, y.view(), &rw); },
               Errc::bad_op_inputs, kernels_tag);
  cpu::Conv2dParams p4 = p;
  p4.group = 4;
  expect_error([&] { cpu::depthwise_pointwise_nhwc(p4, x8.view(), dw, nullptr, pw, nullptr, {}, y.view()); },
               Errc::bad_op_inputs, kernels_tag);
}

// A dense conv on NHWC images by `run` (packing W itself) against the NCHW reference.
template <class Run>
void check_nhwc_dense(const std::vector<DenseNhwcCase>& cases, std::uint32_t seed, float tol, Run run,
                      bool x_nchw = false) {  // x_nchw: X given to `run` as [N, C, H, W]
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const DenseNhwcCase& k = cases[i];
      CAPTURE(threads);
      CAPTURE(i);
      const std::int64_t oh = out_dim(k.h, k.k, k.p.stride_h, k.p.dilation_h, k.p.pad_top, k.p.pad_bottom);
      const std::int64_t ow = out_dim(k.w, k.k, k.p.stride_w, k.p.dilation_w, k.p.pad_left, k.p.pad_right);
      auto x = random_f32({k.n, k.c, k.h, k.w}, seed++);
      auto w = random_f32({k.m, k.c, k.k, k.k}, seed++);
      auto bias = random_f32({k.m}, seed++);
      auto res = random_f32({k.n, k.m, oh, ow}, seed++);
      const Buf<float> xn = to_nhwc(x), rn = to_nhwc(res);
      Buf<float> y({k.n, oh, ow, k.m});
      const ge::TensorView bv = bias.view(), rv = rn.view();
      const ge::TensorView xv = x_nchw ? x.view() : xn.view();
      arena.execute([&] { run(k.p, xv, w.view(), k.bias ? &bv : nullptr, y.view(), k.residual ? &rv : nullptr); });
      check_close(to_nchw(y), ref_conv(k.p, x, w, k.bias ? &bias : nullptr, k.residual ? &res : nullptr, oh, ow), tol,
                  tol);
    }
  }
}

TEST_CASE("dense conv over few input channels to NHWC images, from NHWC or NCHW: first convs, strides, pads, tails") {
  using A = cpu::Activation;
  const auto pads = [](std::int64_t s, std::int64_t pad, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad, .pad_bottom = pad,
                             .pad_right = pad, .post = post};
  };
  const std::vector<DenseNhwcCase> cases = {
      {2, 3, 15, 21, 32, 3, pads(2, 1, {A::clip, 0.0f, 0.5f}), true, false},  // MobileNetV2's stem
      {1, 3, 20, 19, 64, 7, pads(2, 3, {A::relu}), true, true},               // ResNet-50's
      {1, 1, 9, 11, 5, 3, pads(1, 1), false, true},                           // outputs under one vector
      {1, 3, 12, 64, 64, 7, pads(2, 3, {A::relu}), true, false},   // interior blocks: the flat tap loop
      {2, 4, 6, 40, 24, 3, pads(1, 1), true, true},                // stride 1, interior blocks
      {1, 3, 10, 48, 16, 9, pads(1, 4), true, false},              // 243 taps: the loops per tap
      {2, 4, 8, 30, 40, 3, {.stride_h = 1, .stride_w = 2, .pad_top = 0, .pad_left = 2, .pad_bottom = 1,
                            .pad_right = 0, .dilation_h = 2, .dilation_w = 1}, true, true},
      // 16 outputs (one vector, 16-pixel blocks), a row of 27 columns: the padded first column,
      // one block of 16, blocks of 4, single pixels inside and the padded last one.
      {1, 3, 9, 53, 16, 3, pads(2, 1), true, true},
      // 48 outputs (two vectors, then one), uneven pads and a horizontal dilation.
      {1, 2, 7, 37, 48, 5, {.stride_h = 1, .stride_w = 1, .pad_top = 2, .pad_left = 1, .pad_bottom = 0,
                            .pad_right = 3, .dilation_h = 1, .dilation_w = 2}, true, false},
      {1, 3, 5, 2, 8, 5, pads(1, 2), true, true},  // narrower than the kernel: every column padded
  };
  for (const bool x_nchw : {false, true}) {  // the image NHWC, or NCHW as a model takes it
    CAPTURE(x_nchw);
    check_nhwc_dense(
        cases, 4100, 1e-4f,
        [x_nchw](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w, const ge::TensorView* b,
                 const ge::TensorView& y, const ge::TensorView* z) {
          cpu::conv_few_channels_nhwc(p, x, cpu::pack_few_channels_nhwc(w), b, y, z, x_nchw);
        },
        x_nchw);
  }
  auto w = random_f32({8, 3, 3, 3}, 1);
  const cpu::PackedFewChannelsNhwc packed = cpu::pack_few_channels_nhwc(w.view());
  auto x = random_f32({1, 6, 6, 4}, 2);
  Buf<float> y({1, 4, 4, 8});
  expect_error([&] { cpu::conv_few_channels_nhwc({}, x.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  auto xc = random_f32({1, 4, 6, 6}, 3);  // NCHW with 4 channels for weights of 3
  expect_error([&] { cpu::conv_few_channels_nhwc({}, xc.view(), packed, nullptr, y.view(), nullptr, true); },
               Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        (void)cpu::pack_few_channels_nhwc(random_f32({8, 5, 3, 3}, 3).view());
      },
      Errc::unsupported, kernels_tag);
}

TEST_CASE("dense conv on NHWC images as a GEMM over gathered patches: kernels, strides, dilations, pads, blocks") {
  using A = cpu::Activation;
  const auto pads = [](std::int64_t s, std::int64_t pad, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad, .pad_bottom = pad,
                             .pad_right = pad, .post = post};
  };
  const std::vector<DenseNhwcCase> cases = {
      {2, 16, 11, 13, 24, 3, pads(2, 1, {A::relu}), true, true},    // ResNet's stride-2 3x3, odd sizes
      {1, 24, 9, 9, 40, 1, pads(2, 0), true, false},                 // the stride-2 1x1 (downsample)
      {2, 5, 12, 10, 7, 5, {.stride_h = 1, .stride_w = 2, .pad_top = 2, .pad_left = 0, .pad_bottom = 1,
                            .pad_right = 3, .dilation_h = 2, .dilation_w = 1, .post = {A::clip, -0.5f, 0.5f}},
       true, true},                                                  // dilation, asymmetric pads, tails
      {4, 8, 30, 30, 16, 3, pads(1, 1), false, true},                // blocks over images (3600 rows)
      {1, 3, 4, 4, 4, 3, pads(1, 0), true, false},                   // fewer rows than a tile
  };
  check_nhwc_dense(cases, 5100, 1e-4f,
                   [](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w,
                      const ge::TensorView* b, const ge::TensorView& y, const ge::TensorView* z) {
                     cpu::conv_gemm_nhwc(p, x, cpu::pack_conv_nhwc(w), b, y, z);
                   });
  // Bad input: a clear error, not a crash.
  const cpu::PackedConvNhwc packed = cpu::pack_conv_nhwc(random_f32({8, 4, 3, 3}, 1).view());
  auto x = random_f32({1, 6, 6, 4}, 2), x5 = random_f32({1, 6, 6, 5}, 3);
  Buf<float> y({1, 4, 4, 8}), y_bad({1, 5, 4, 8});
  expect_error([&] { cpu::conv_gemm_nhwc({}, x5.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error([&] { cpu::conv_gemm_nhwc({.group = 2}, x.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error([&] { cpu::conv_gemm_nhwc({}, x.view(), packed, nullptr, y_bad.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error([&] { cpu::conv_gemm_nhwc({.stride_h = 0}, x.view(), packed, nullptr, y.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error([&] { (void)cpu::pack_conv_nhwc(random_f32({8, 4, 3}, 4).view()); }, Errc::rank_mismatch, kernels_tag);
}

TEST_CASE("dense conv on NHWC images as a sum over taps: atrous convs whose taps land in the padding, strides, epilogue") {
  using A = cpu::Activation;
  const auto atrous = [](std::int64_t d, std::int64_t s = 1, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.stride_h = s, .stride_w = s, .pad_top = d, .pad_left = d, .pad_bottom = d,
                             .pad_right = d, .dilation_h = d, .dilation_w = d, .post = post};
  };
  const std::vector<DenseNhwcCase> cases = {
      {2, 16, 14, 14, 24, 3, atrous(12, 1, {A::relu}), true, true},  // DeepLab's rate 12 over 14x14
      {1, 20, 9, 11, 8, 3, atrous(6), true, false},                   // rows and columns partly live
      {1, 8, 5, 5, 12, 3, atrous(6), false, true},                    // the centre tap only
      {2, 6, 10, 7, 5, 3, atrous(4, 2, {A::sigmoid}), true, true},    // stride 2, gathered rows, odd channels
      {1, 12, 6, 6, 40, 5, {.pad_top = 8, .pad_left = 3, .pad_bottom = 6, .pad_right = 5, .dilation_h = 4,
                            .dilation_w = 2, .post = {A::clip, -0.3f, 0.4f}},
       true, true},                                                   // asymmetric pads and dilations
  };
  for (const DenseNhwcCase& k : cases) CHECK(cpu::conv_taps_live_share(k.p, k.h, k.w, k.k, k.k) < 1.0);
  check_nhwc_dense(cases, 5200, 1e-4f,
                   [](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w,
                      const ge::TensorView* b, const ge::TensorView& y, const ge::TensorView* z) {
                     cpu::PostOp post = p.post;  // the map kinds are the caller's pass, as the compiled kernel's
                     cpu::Conv2dParams q = p;
                     if (cpu::is_map(post.kind)) q.post = {};
                     cpu::conv_taps_nhwc(q, x, cpu::pack_conv_taps_nhwc(w), b, y, z);
                     if (cpu::is_map(post.kind)) cpu::activate(post, y.as<float>(), y.elements());
                   });
  // Every tap live: a share of 1; a rate-36 conv over 14x14: the centre's ninth.
  CHECK(cpu::conv_taps_live_share(atrous(1), 8, 8, 3, 3) < 1.0);  // the border pixels' outer taps
  CHECK(cpu::conv_taps_live_share({}, 8, 8, 3, 3) == 1.0);
  CHECK(cpu::conv_taps_live_share(atrous(36), 14, 14, 3, 3) == doctest::Approx(1.0 / 9.0));
  const cpu::PackedConvTaps packed = cpu::pack_conv_taps_nhwc(random_f32({8, 4, 3, 3}, 1).view());
  auto x5 = random_f32({1, 6, 6, 5}, 3);
  Buf<float> y({1, 6, 6, 8});
  expect_error([&] { cpu::conv_taps_nhwc(atrous(1), x5.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error([&] { (void)cpu::pack_conv_taps_nhwc(random_f32({8, 4, 3}, 4).view()); }, Errc::rank_mismatch,
               kernels_tag);
}

TEST_CASE("Winograd 3x3 on NHWC images: partial tiles, pads, both schedules, epilogue; where it does not fit") {
  using A = cpu::Activation;
  if (cpu::isa() == cpu::Isa::baseline) {
    CHECK_FALSE(cpu::winograd_nhwc_fits(64, 64, 3, 3, {}));
    MESSAGE("skipped: Winograd on NHWC needs AVX2 or AVX-512");
    return;
  }
  const auto pads = [](std::int64_t t, std::int64_t l, std::int64_t b, std::int64_t r, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.pad_top = t, .pad_left = l, .pad_bottom = b, .pad_right = r, .post = post};
  };
  const std::vector<DenseNhwcCase> cases = {
      {2, 64, 9, 9, 64, 3, pads(1, 1, 1, 1, {A::relu}), true, true},   // whole batch: 50 tiles, odd outputs
      {1, 32, 7, 7, 48, 3, pads(0, 0, 0, 0), true, false},              // no pads: 5x5 outputs
      {1, 16, 8, 11, 32, 3, pads(1, 0, 2, 1, {A::clip, 0.0f, 1.0f}), false, true},  // asymmetric pads
      {3, 16, 28, 28, 16, 3, pads(1, 1, 1, 1), true, true},            // blocks: 588 tiles, a partial last
  };
  // Dilated: the tiles of each residue class of pixels (a ResNet's output-stride-8 layers:
  // dilation 2 and 4, pads equal to it); classes of unequal size (13 rows by dilation 2 or
  // 4), pads that are not a multiple of the dilation, and dilations unequal across axes.
  const auto dilated = [](std::int64_t dh, std::int64_t dw, std::int64_t pt, std::int64_t pl, std::int64_t pb,
                          std::int64_t pr, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.pad_top = pt, .pad_left = pl, .pad_bottom = pb, .pad_right = pr, .dilation_h = dh,
                             .dilation_w = dw, .post = post};
  };
  const std::vector<DenseNhwcCase> dilated_cases = {
      {1, 32, 28, 28, 32, 3, dilated(2, 2, 2, 2, 2, 2, {A::relu}), true, true},
      {2, 16, 28, 28, 32, 3, dilated(4, 4, 4, 4, 4, 4), true, false},
      {1, 16, 13, 13, 16, 3, dilated(2, 2, 2, 2, 2, 2), false, true},
      {1, 16, 13, 17, 16, 3, dilated(4, 4, 4, 4, 4, 4, {A::clip, 0.0f, 1.0f}), true, true},
      {1, 16, 12, 15, 16, 3, dilated(3, 2, 1, 3, 2, 0), true, false},
      {1, 16, 40, 40, 16, 3, dilated(2, 2, 2, 2, 2, 2), true, true},  // blocks of tiles per task
  };
  check_nhwc_dense(cases, 6100, 1e-3f,
                   [](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w,
                      const ge::TensorView* b, const ge::TensorView& y, const ge::TensorView* z) {
                     cpu::conv_winograd_nhwc(p, x, cpu::pack_winograd_nhwc(w), b, y, z);
                   });
  CHECK(cpu::winograd_nhwc_fits(16, 16, 3, 3, dilated(2, 2, 2, 2, 2, 2)));
  check_nhwc_dense(dilated_cases, 6200, 1e-3f,
                   [](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w,
                      const ge::TensorView* b, const ge::TensorView& y, const ge::TensorView* z) {
                     cpu::conv_winograd_nhwc(p, x, cpu::pack_winograd_nhwc(w), b, y, z);
                   });
  // Where it does not fit: a clear refusal, and the fit test says so first.
  const cpu::PackedWinogradNhwc packed = cpu::pack_winograd_nhwc(random_f32({16, 16, 3, 3}, 1).view());
  auto x = random_f32({1, 6, 6, 16}, 2);
  Buf<float> y({1, 3, 3, 16}), y4({1, 4, 4, 16});
  CHECK_FALSE(cpu::winograd_nhwc_fits(16, 16, 3, 3, {.stride_h = 2, .stride_w = 2}));
  CHECK_FALSE(cpu::winograd_nhwc_fits(12, 16, 3, 3, {}));
  CHECK_FALSE(cpu::winograd_nhwc_fits(16, 16, 5, 5, {}));
  expect_error([&] { cpu::conv_winograd_nhwc({.stride_h = 2, .stride_w = 2}, x.view(), packed, nullptr, y.view()); },
               Errc::unsupported, kernels_tag);
  expect_error([&] { cpu::conv_winograd_nhwc({}, x.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  expect_error(
      [&] {
        cpu::conv_winograd_nhwc({}, random_f32({1, 6, 6, 8}, 3).view(), packed, nullptr, y4.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        (void)cpu::pack_winograd_nhwc(random_f32({16, 16, 5, 5}, 4).view());
      },
      Errc::unsupported, kernels_tag);
}

TEST_CASE("conv2d direct for few input channels: first convs, strides, pads, partial blocks and rows") {
  using A = cpu::Activation;
  if (cpu::isa() == cpu::Isa::baseline) {
    MESSAGE("skipped: the direct conv needs AVX2 or AVX-512");
    return;
  }
  const auto conv = [](std::int64_t sh, std::int64_t sw, std::int64_t t, std::int64_t l, std::int64_t b, std::int64_t r,
                       cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.stride_h = sh, .stride_w = sw, .pad_top = t, .pad_left = l, .pad_bottom = b,
                             .pad_right = r, .post = post};
  };
  const std::vector<ConvCase> cases = {
      {1, 3, 17, 19, 32, 3, 3, conv(2, 2, 1, 1, 1, 1, {A::clip, 0.0f, 6.0f}), true, false},  // MobileNetV2's first conv
      {2, 3, 23, 22, 64, 7, 7, conv(2, 2, 3, 3, 3, 3, {A::relu}), true, true},              // ResNet-50's
      {1, 1, 9, 30, 5, 5, 5, conv(1, 1, 2, 0, 1, 2), false, true},                          // one partial block
      {1, 4, 8, 8, 17, 1, 1, conv(1, 1, 0, 0, 0, 0, {A::relu}), true, false},               // 1x1, 16 + 1 channels
      {1, 2, 11, 13, 24, 3, 3, conv(2, 1, 1, 1, 0, 1), true, true},                         // strides 2 and 1
      {2, 3, 5, 40, 8, 3, 5, conv(3, 2, 1, 2, 1, 2), true, true},                           // stride 3 down, 3x5 kernel
  };
  run_packed_cases(cases, {.direct = true}, [](const cpu::PackedConvWeights& w) { return w.direct; }, 1700, 1e-5f);
  // Many input channels, groups or dilations keep the GEMM.
  CHECK_FALSE(cpu::pack_conv_weights({}, random_f32({8, 5, 3, 3}, 4).view(), {.direct = true}).direct);
  CHECK_FALSE(cpu::pack_conv_weights({.group = 2}, random_f32({8, 2, 3, 3}, 5).view(), {.direct = true}).direct);
  CHECK_FALSE(
      cpu::pack_conv_weights({.dilation_h = 2}, random_f32({8, 3, 3, 3}, 6).view(), {.direct = true}).direct);
  CHECK_FALSE(cpu::pack_conv_weights({.stride_w = 3}, random_f32({8, 3, 3, 3}, 6).view(), {.direct = true}).direct);
  // Packed for the direct conv, a run with dilations is refused.
  auto w = random_f32({8, 3, 3, 3}, 7);
  const cpu::PackedConvWeights packed = cpu::pack_conv_weights({}, w.view(), {.direct = true});
  REQUIRE(packed.direct);
  auto x = random_f32({1, 3, 9, 9}, 8);
  Buf<float> y({1, 8, 5, 5});
  expect_error([&] { cpu::conv2d({.dilation_h = 2, .dilation_w = 2}, x.view(), packed, nullptr, y.view()); },
               Errc::bad_attribute, kernels_tag);
}

TEST_CASE("conv2d direct for few output channels: a generator's last conv to 3 channels, and its limits") {
  using A = cpu::Activation;
  if (cpu::isa() == cpu::Isa::baseline) {
    MESSAGE("skipped: the direct conv needs AVX2 or AVX-512");
    return;
  }
  const auto conv = [](std::int64_t s, std::int64_t pad, cpu::PostOp post = {}) {
    return cpu::Conv2dParams{.stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad, .pad_bottom = pad,
                             .pad_right = pad, .post = post};
  };
  const std::vector<ConvCase> cases = {
      {1, 32, 21, 37, 3, 9, 9, conv(1, 4), true, false},                  // a style network's last conv
      {2, 64, 12, 17, 3, 7, 7, conv(1, 3, {A::relu}), true, true},        // residual, two images
      {1, 40, 9, 33, 4, 3, 3, conv(2, 1, {A::clip, -0.5f, 0.5f}), false, false},  // stride 2, 4 outputs
      {1, 128, 6, 6, 1, 1, 1, conv(1, 0), true, false},                  // 1x1 to one channel
  };
  run_packed_cases(cases, {.direct = true}, [](const cpu::PackedConvWeights& w) { return w.direct; }, 1900, 1e-4f);
  // More outputs, or more taps than 8192, keep the GEMM.
  CHECK_FALSE(cpu::pack_conv_weights({}, random_f32({5, 32, 3, 3}, 4).view(), {.direct = true}).direct);
  CHECK_FALSE(cpu::pack_conv_weights({}, random_f32({3, 1025, 3, 3}, 5).view(), {.direct = true}).direct);
  CHECK(cpu::pack_conv_weights({}, random_f32({3, 1024, 2, 4}, 6).view(), {.direct = true}).direct);
}

TEST_CASE("conv2d without input channels: the bias, residual and activation (a fuzzer's finding)") {
  const cpu::Conv2dParams p{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = {cpu::Activation::relu}};
  Buf<float> x({2, 0, 3, 3}), w({4, 0, 3, 3});
  auto bias = random_f32({4}, 3);
  auto res = random_f32({2, 4, 3, 3}, 4);
  const ge::TensorView bv = bias.view(), rv = res.view();
  for (const cpu::ConvPacking packing : {cpu::ConvPacking{}, cpu::ConvPacking{.pixel_major = true}}) {
    Buf<float> y({2, 4, 3, 3});
    const auto packed = cpu::pack_conv_weights(p, w.view(), packing);
    cpu::conv2d(p, x.view(), packed, &bv, y.view(), &rv);
    check_close(y.v, ref_conv(p, x, w, &bias, &res, 3, 3), 1e-6f, 1e-6f);
  }
}

TEST_CASE("conv2d with pre-packed weights equals the plain call") {
  const cpu::Conv2dParams p{.stride_h = 2, .stride_w = 1, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1};
  auto x = random_f32({2, 6, 7, 7}, 5);
  auto w = random_f32({10, 6, 3, 3}, 6);
  Buf<float> y1({2, 10, 4, 7}), y2({2, 10, 4, 7});
  const auto packed = cpu::pack_conv_weights(p, w.view());
  cpu::conv2d(p, x.view(), packed, nullptr, y1.view());
  cpu::conv2d(p, x.view(), w.view(), nullptr, y2.view());
  CHECK(y1.v == y2.v);
  const cpu::Conv2dParams p3{.group = 2};
  expect_error([&] { cpu::conv2d(p3, x.view(), packed, nullptr, y1.view()); }, Errc::bad_attribute, kernels_tag);
}

TEST_CASE("conv2d errors") {
  Buf<float> x({1, 4, 5, 5}), w({8, 4, 3, 3}), y({1, 8, 3, 3}), b({7});
  {
    // A dilated kernel wider than the padded input (span 5 on 4) is an error, not an empty output.
    Buf<float> x4({1, 4, 4, 4}), y1({1, 8, 1, 1});
    expect_error([&] { cpu::conv2d({.dilation_h = 2, .dilation_w = 2}, x4.view(), w.view(), nullptr, y1.view()); },
                 Errc::bad_op_inputs, kernels_tag, "larger than the padded input");
  }
  expect_error(
      [&] {
        Buf<float> y2({1, 8, 5, 5});
        cpu::conv2d({}, x.view(), w.view(), nullptr, y2.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        const ge::TensorView bv = b.view();
        cpu::conv2d({}, x.view(), w.view(), &bv, y.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        Buf<float> w2({8, 3, 3, 3});
        cpu::conv2d({}, x.view(), w2.view(), nullptr, y.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::conv2d({.stride_h = 0}, x.view(), w.view(), nullptr, y.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error([&] { cpu::conv2d({.group = 3}, x.view(), w.view(), nullptr, y.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error([&] { cpu::conv2d({.pad_top = -1}, x.view(), w.view(), nullptr, y.view()); }, Errc::bad_attribute,
               kernels_tag);
  expect_error(
      [&] {
        Buf<float> x3({4, 5, 5});
        cpu::conv2d({}, x3.view(), w.view(), nullptr, y.view());
      },
      Errc::rank_mismatch, kernels_tag);
  expect_error(
      [&] {
        Buf<std::int64_t> xi({1, 4, 5, 5});
        cpu::conv2d({}, xi.view(), w.view(), nullptr, y.view());
      },
      Errc::type_mismatch, kernels_tag);
  expect_error(
      [&] {
        Buf<float> r({1, 8, 3, 4});
        const ge::TensorView rv = r.view();
        cpu::conv2d({}, x.view(), w.view(), nullptr, y.view(), &rv);
      },
      Errc::bad_op_inputs, kernels_tag);
}

namespace {

std::vector<float> ref_conv_transpose(const cpu::ConvTranspose2dParams& p, const Buf<float>& x, const Buf<float>& w,
                                      const Buf<float>* bias, std::int64_t oh, std::int64_t ow) {
  const std::int64_t n = x.dims[0], c = x.dims[1], h = x.dims[2], wd = x.dims[3];
  const std::int64_t cog = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  const std::int64_t cg = c / p.group, co = cog * p.group;
  std::vector<double> y(static_cast<std::size_t>(n * co * oh * ow), 0.0);
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t ci = 0; ci < c; ++ci)
      for (std::int64_t iy = 0; iy < h; ++iy)
        for (std::int64_t ix = 0; ix < wd; ++ix)
          for (std::int64_t o = 0; o < cog; ++o)
            for (std::int64_t ky = 0; ky < kh; ++ky)
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t oy = iy * p.stride_h - p.pad_top + ky * p.dilation_h;
                const std::int64_t ox = ix * p.stride_w - p.pad_left + kx * p.dilation_w;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                const std::int64_t oc = (ci / cg) * cog + o;
                y[static_cast<std::size_t>(((b * co + oc) * oh + oy) * ow + ox)] +=
                    static_cast<double>(x[((b * c + ci) * h + iy) * wd + ix]) * w[((ci * cog + o) * kh + ky) * kw + kx];
              }
  std::vector<float> out(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::int64_t oc = static_cast<std::int64_t>(i) / (oh * ow) % co;
    out[i] = static_cast<float>(y[i]) + (bias != nullptr ? (*bias)[oc] : 0.0f);
  }
  return out;
}

}  // namespace

TEST_CASE("conv_transpose2d: exact 1x1 input spreads the kernel, by hand") {
  Buf<float> x({1, 1, 1, 1}, {2});
  Buf<float> w({1, 1, 2, 2}, {1, 2, 3, 4});
  Buf<float> b({1}, {1});
  Buf<float> y({1, 1, 2, 2});
  const ge::TensorView bv = b.view();
  cpu::conv_transpose2d({}, x.view(), w.view(), &bv, y.view());
  CHECK(y.v == std::vector<float>{3, 5, 7, 9});
}

TEST_CASE("conv_transpose2d matches a naive scatter") {
  struct Case {
    std::int64_t n, c, h, w, cog, kh, kw;
    cpu::ConvTranspose2dParams p;
  };
  const std::vector<Case> cases = {
      {1, 3, 4, 5, 2, 3, 3, {}},
      {2, 4, 5, 5, 3, 3, 3, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .output_padding_h = 1, .output_padding_w = 1}},
      {1, 4, 3, 4, 2, 2, 3, {.stride_h = 3, .stride_w = 2, .dilation_h = 2, .dilation_w = 1, .group = 2}},
      {1, 6, 4, 4, 1, 4, 4, {.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 6}},
  };
  std::uint32_t seed = 400;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    const auto& k = cases[i];
    const std::int64_t oh = k.p.stride_h * (k.h - 1) + k.p.output_padding_h + k.p.dilation_h * (k.kh - 1) + 1 -
                            k.p.pad_top - k.p.pad_bottom;
    const std::int64_t ow = k.p.stride_w * (k.w - 1) + k.p.output_padding_w + k.p.dilation_w * (k.kw - 1) + 1 -
                            k.p.pad_left - k.p.pad_right;
    auto x = random_f32({k.n, k.c, k.h, k.w}, seed++);
    auto w = random_f32({k.c, k.cog, k.kh, k.kw}, seed++);
    auto b = random_f32({k.cog * k.p.group}, seed++);
    Buf<float> y({k.n, k.cog * k.p.group, oh, ow});
    const ge::TensorView bv = b.view();
    cpu::conv_transpose2d(k.p, x.view(), w.view(), &bv, y.view());
    check_close(y.v, ref_conv_transpose(k.p, x, w, &b, oh, ow));
  }
  Buf<float> x({1, 2, 3, 3}), w({2, 1, 3, 3}), y({1, 1, 4, 4});
  expect_error([&] { cpu::conv_transpose2d({}, x.view(), w.view(), nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  Buf<float> w3({3, 1, 3, 3}), y5({1, 1, 5, 5});
  expect_error([&] { cpu::conv_transpose2d({}, x.view(), w3.view(), nullptr, y5.view()); }, Errc::bad_op_inputs,
               kernels_tag);
}

TEST_CASE("conv_transpose2d output extent: stride * (x - 1) + output_padding + span - pads, clamped at 0") {
  auto x = random_f32({1, 1, 3, 2}, 41);
  auto w = random_f32({1, 1, 2, 3}, 42);
  // H: 2 * 2 + 1 + 3 (kernel 2 at dilation 2) - 1 = 7; W: 3 * 1 + 0 + 3 - 0 = 6.
  const cpu::ConvTranspose2dParams p{.stride_h = 2, .stride_w = 3, .pad_top = 1, .dilation_h = 2, .output_padding_h = 1};
  Buf<float> y({1, 1, 7, 6});
  cpu::conv_transpose2d(p, x.view(), w.view(), nullptr, y.view());
  check_close(y.v, ref_conv_transpose(p, x, w, nullptr, 7, 6));
  Buf<float> y_bad({1, 1, 8, 6});
  expect_error([&] { cpu::conv_transpose2d(p, x.view(), w.view(), nullptr, y_bad.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  // Pads that take the whole extent leave an empty output, as inference says.
  auto x1 = random_f32({1, 1, 1, 1}, 43);
  auto w2 = random_f32({1, 1, 2, 2}, 44);
  const cpu::ConvTranspose2dParams all{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1};
  Buf<float> y0({1, 1, 0, 0});
  cpu::conv_transpose2d(all, x1.view(), w2.view(), nullptr, y0.view());
}

namespace {

void bench_conv(const char* name, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t co, std::int64_t k,
                std::int64_t s, std::int64_t group) {
  const std::int64_t pad = k / 2;
  const cpu::Conv2dParams p{.stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad, .pad_bottom = pad,
                            .pad_right = pad, .group = group, .post = {cpu::Activation::relu}};
  const std::int64_t oh = (h + 2 * pad - k) / s + 1;
  auto x = random_f32({n, c, h, h}, 1);
  auto w = random_f32({co, c / group, k, k}, 2);
  auto b = random_f32({co}, 3);
  Buf<float> y({n, co, oh, oh});
  const auto packed = cpu::pack_conv_weights(p, w.view());
  const ge::TensorView bv = b.view();
  const double flops = 2.0 * n * co * oh * oh * (c / group) * k * k;
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      cpu::conv2d(p, x.view(), packed, &bv, y.view());
      const int reps = 20;
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      for (int r = 0; r < reps; ++r) cpu::conv2d(p, x.view(), packed, &bv, y.view());
      const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
      const double cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC / reps;
      std::printf("%s, %d thread(s): %.3f ms wall, %.1f GFLOP/s wall, %.1f GFLOP per CPU-second\n", name, threads,
                  sec * 1e3, flops / sec * 1e-9, flops / cpu_s * 1e-9);
    });
  }
}

}  // namespace

TEST_CASE("bench: conv" * doctest::skip()) {
  bench_conv("conv3x3 1x64x56x56->64", 1, 64, 56, 64, 3, 1, 1);
  bench_conv("conv1x1 1x256x56x56->64", 1, 256, 56, 64, 1, 1, 1);
  bench_conv("conv3x3 1x256x14x14->256", 1, 256, 14, 256, 3, 1, 1);
  bench_conv("conv7x7/2 1x3x224x224->64", 1, 3, 224, 64, 7, 2, 1);
  bench_conv("dw3x3 1x144x56x56", 1, 144, 56, 144, 3, 1, 144);
}
