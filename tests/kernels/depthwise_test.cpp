// Depthwise convs on NHWC images beyond MobileNetV2's 3x3: kernels up to 7x7 (square or
// not), strides, dilations, asymmetric pads, channel counts around the vector width and
// the 256-channel chunks, narrow and wide rows, against the reference conv.
#include <doctest/doctest.h>

#include <random>
#include <tbb/task_arena.h>

#include "conv_ref.hpp"
#include "kernel_test.hpp"
#include "kernels/cpu/conv/conv.hpp"

using ge::test::Buf;
using ge::test::check_close;
using ge::test::out_dim;
using ge::test::random_f32;
using ge::test::ref_conv;
using ge::test::to_nchw;
using ge::test::to_nhwc;
namespace cpu = ge::cpu;

namespace {


struct DwCase {
  std::int64_t n, c, h, w, kh, kw;
  cpu::Conv2dParams p;
  bool bias, residual;
};

void run_dw_case(const DwCase& k, std::uint32_t seed) {
  cpu::Conv2dParams p = k.p;
  p.group = k.c;
  const std::int64_t oh = out_dim(k.h, k.kh, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom);
  const std::int64_t ow = out_dim(k.w, k.kw, p.stride_w, p.dilation_w, p.pad_left, p.pad_right);
  REQUIRE(oh >= 1);
  REQUIRE(ow >= 1);
  auto x = random_f32({k.n, k.c, k.h, k.w}, seed);
  auto w = random_f32({k.c, 1, k.kh, k.kw}, seed + 1);
  auto bias = random_f32({k.c}, seed + 2);
  auto res = random_f32({k.n, k.c, oh, ow}, seed + 3);
  const Buf<float> xn = to_nhwc(x), rn = to_nhwc(res);
  Buf<float> y({k.n, oh, ow, k.c});
  const cpu::PackedDepthwiseNhwc packed = cpu::pack_depthwise_nhwc(w.view());
  const ge::TensorView bv = bias.view(), rv = rn.view();
  cpu::depthwise_nhwc(p, xn.view(), packed, k.bias ? &bv : nullptr, y.view(), k.residual ? &rv : nullptr);
  check_close(to_nchw(y), ref_conv(p, x, w, k.bias ? &bias : nullptr, k.residual ? &res : nullptr, oh, ow), 1e-4f,
              1e-4f);
}

}  // namespace

TEST_CASE("depthwise NHWC: 3x3, 5x5, 7x7 at strides 1 and 2, dilations 1 and 2, the models' kinds of layer") {
  using A = cpu::Activation;
  std::uint32_t seed = 7100;
  std::vector<DwCase> cases;
  for (const std::int64_t k : {3, 5, 7})
    for (const std::int64_t s : {1, 2})
      for (const std::int64_t d : {1, 2}) {
        const std::int64_t pad = d * (k / 2);
        const cpu::Conv2dParams p{.stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad, .pad_bottom = pad,
                                  .pad_right = pad, .dilation_h = d, .dilation_w = d,
                                  .post = {k == 5 ? A::clip : A::relu, 0.0f, 6.0f}};
        // Widths 7 (the last stages), 14, 23 (blocks of 8 and every tail), channel tails
        // and more than one 256-channel chunk.
        cases.push_back({1, 72, 9, 7, k, k, p, true, false});
        cases.push_back({2, 40, 14, 14, k, k, p, true, s == 1});
        cases.push_back({1, 300, 6, 23, k, k, p, k != 7, true});
        cases.push_back({1, 17, 5, 11, k, k, p, false, false});
      }
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      CAPTURE(threads);
      CAPTURE(i);
      arena.execute([&] { run_dw_case(cases[i], seed); });
      seed += 4;
    }
  }
}

TEST_CASE("depthwise NHWC: random kernels, strides, dilations, pads, sizes and channels") {
  using A = cpu::Activation;
  std::mt19937 rng(20261203);
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t channels[] = {1, 3, 8, 16, 17, 31, 64, 96, 255, 264};
  tbb::task_arena arena(2);
  std::uint32_t seed = 9100;
  for (int i = 0; i < 160; ++i) {
    DwCase k{};
    k.n = pick(1, 3);
    k.c = channels[pick(0, 9)];
    // Mostly the widths of the blocked sweep (3, 5, 7), sometimes any kernel of <= 49 taps.
    k.kw = pick(0, 3) == 0 ? pick(1, 7) : 2 * pick(1, 3) + 1;
    k.kh = pick(1, std::min<std::int64_t>(7, 49 / k.kw));
    k.p.stride_h = pick(1, 3);
    k.p.stride_w = pick(0, 2) == 0 ? pick(2, 3) : 1;
    k.p.dilation_h = pick(1, 3);
    k.p.dilation_w = pick(0, 3) == 0 ? 3 : pick(1, 2);
    k.p.pad_top = pick(0, 4);
    k.p.pad_bottom = pick(0, 4);
    k.p.pad_left = pick(0, 4);
    k.p.pad_right = pick(0, 4);
    const std::int64_t span_h = (k.kh - 1) * k.p.dilation_h + 1, span_w = (k.kw - 1) * k.p.dilation_w + 1;
    k.h = std::max<std::int64_t>(pick(1, 20), span_h - k.p.pad_top - k.p.pad_bottom);
    k.w = std::max<std::int64_t>(pick(1, 30), span_w - k.p.pad_left - k.p.pad_right);
    const int post = static_cast<int>(pick(0, 2));
    k.p.post = {post == 0 ? A::none : post == 1 ? A::relu : A::clip, -0.5f, 0.5f};
    k.bias = pick(0, 1) == 1;
    k.residual = pick(0, 1) == 1;
    CAPTURE(i);
    CAPTURE(k.n);
    CAPTURE(k.c);
    CAPTURE(k.h);
    CAPTURE(k.w);
    CAPTURE(k.kh);
    CAPTURE(k.kw);
    CAPTURE(k.p.stride_h);
    CAPTURE(k.p.stride_w);
    CAPTURE(k.p.dilation_h);
    CAPTURE(k.p.dilation_w);
    arena.execute([&] { run_dw_case(k, seed); });
    seed += 4;
  }
}

TEST_CASE("depthwise NHWC: the output extent is the window rule; a kernel wider than the padded input is an error") {
  auto w = random_f32({8, 1, 3, 3}, 7300);
  const cpu::PackedDepthwiseNhwc packed = cpu::pack_depthwise_nhwc(w.view());
  auto x = random_f32({1, 8, 4, 4}, 7301);
  const Buf<float> xn = to_nhwc(x);
  // 4 at kernel 3, dilation 2 (span 5), pads 1+1, stride 2: (6 - 5) / 2 + 1 = 1 per axis.
  const cpu::Conv2dParams p{.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                            .pad_right = 1, .dilation_h = 2, .dilation_w = 2, .group = 8};
  Buf<float> y({1, 1, 1, 8}), y2({1, 2, 2, 8});
  cpu::depthwise_nhwc(p, xn.view(), packed, nullptr, y.view());
  check_close(to_nchw(y), ref_conv(p, x, w, nullptr, nullptr, 1, 1), 1e-4f, 1e-4f);
  ge::test::expect_error([&] { cpu::depthwise_nhwc(p, xn.view(), packed, nullptr, y2.view()); }, ge::Errc::bad_op_inputs);
  // Without the pads the span 5 is wider than 4.
  ge::test::expect_error([&] { cpu::depthwise_nhwc({.dilation_h = 2, .dilation_w = 2, .group = 8}, xn.view(), packed, nullptr, y.view()); },
                         ge::Errc::bad_op_inputs, "larger than the padded NHWC input");
}
