// Grouped convs on NHWC images (RegNetX, ResNeXt): group widths of 1 to 48 inputs and
// outputs, blocks of 8 and 16 output lanes and their tails, kernels, strides, dilations,
// pads, the epilogue; against the reference conv. Errors for weights that do not fit.
#include <doctest/doctest.h>

#include <random>
#include <tbb/task_arena.h>

#include "conv_ref.hpp"
#include "kernel_test.hpp"
#include "kernels/cpu/conv/conv.hpp"

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


struct GroupedCase {
  std::int64_t n, group, cg, mg, h, w, kh, kw;
  cpu::Conv2dParams p;
  bool bias, residual;
};

// Case `k` (random data from `seed`) run by `run(p, x, w, bias, y, residual)` on NHWC
// views, against the reference conv within `tol`.
template <class Run>
void check_grouped(const GroupedCase& k, std::uint32_t seed, float tol, Run run) {
  cpu::Conv2dParams p = k.p;
  p.group = k.group;
  const std::int64_t c = k.cg * k.group, m = k.mg * k.group;
  const std::int64_t oh = out_dim(k.h, k.kh, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom);
  const std::int64_t ow = out_dim(k.w, k.kw, p.stride_w, p.dilation_w, p.pad_left, p.pad_right);
  REQUIRE(oh >= 1);
  REQUIRE(ow >= 1);
  auto x = random_f32({k.n, c, k.h, k.w}, seed);
  auto w = random_f32({m, k.cg, k.kh, k.kw}, seed + 1);
  auto bias = random_f32({m}, seed + 2);
  auto res = random_f32({k.n, m, oh, ow}, seed + 3);
  const Buf<float> xn = to_nhwc(x), rn = to_nhwc(res);
  Buf<float> y({k.n, oh, ow, m});
  const ge::TensorView bv = bias.view(), rv = rn.view();
  run(p, xn.view(), w.view(), k.bias ? &bv : nullptr, y.view(), k.residual ? &rv : nullptr);
  check_close(to_nchw(y), ref_conv(p, x, w, k.bias ? &bias : nullptr, k.residual ? &res : nullptr, oh, ow), tol, tol);
}

void run_grouped_case(const GroupedCase& k, std::uint32_t seed) {
  check_grouped(k, seed, 1e-4f,
                [&](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w,
                    const ge::TensorView* b, const ge::TensorView& y, const ge::TensorView* z) {
                  const cpu::PackedGroupedNhwc packed = cpu::pack_grouped_nhwc(w, k.group);
                  const std::int64_t lanes = cpu::isa() == cpu::Isa::avx512 ? 16 : 8;
                  if (k.cg == k.mg && (k.mg == 2 || k.mg == 4 || k.mg == 8) && k.mg < lanes) {
                    CHECK(packed.v == lanes);  // blocks of whole groups
                    CHECK(packed.gv == lanes / k.mg);
                  } else {
                    // blocks of 16 with AVX-512 for any group wider than 8, else of a vector's 8
                    CHECK(packed.v == (lanes == 16 && k.mg > 8 ? 16 : 8));
                    CHECK(packed.gv == 1);
                  }
                  cpu::conv_grouped_nhwc(p, x, packed, b, y, z);
                });
}

}  // namespace

TEST_CASE("grouped conv on NHWC images: RegNetX and ResNeXt group widths, 3x3 at strides 1 and 2") {
  using A = cpu::Activation;
  const cpu::Conv2dParams s1{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = {A::relu}};
  const cpu::Conv2dParams s2{.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                             .pad_right = 1, .post = {A::clip, 0.0f, 6.0f}};
  // Group widths 8 (one block of 8), 16 and 32 (blocks of 16 with AVX-512; with AVX2 blocks
  // of 8 in chunks 2 and 2 + 2), 24 (three blocks of 8; two of 16 with
  // AVX-512), 4 (ResNeXt's first stage: half a block), 48 (three blocks of 16 with AVX-512,
  // six of 8 with AVX2: chunks 3 + 3 of 4-pixel tiles).
  const std::vector<GroupedCase> cases = {
      {1, 7, 8, 8, 12, 12, 3, 3, s1, true, false},     {2, 4, 16, 16, 9, 13, 3, 3, s1, true, true},
      {1, 3, 32, 32, 7, 7, 3, 3, s1, true, true},      {1, 5, 24, 24, 10, 17, 3, 3, s2, true, false},
      {1, 8, 4, 4, 11, 19, 3, 3, s1, false, true},     {2, 2, 48, 48, 6, 9, 3, 3, s2, true, true},
      {1, 4, 8, 8, 16, 16, 3, 3, s2, true, false},     {1, 3, 16, 16, 14, 14, 3, 3, s2, false, false},
      // A group's blocks go in chunks of up to three: with AVX-512 64 (4 blocks of 16: 2 + 2),
      // 80 (5: 3 + 2), 96 (6: 3 + 3), 112 (7: 3 + 2 + 2), 40 and 56 (blocks of 16, the last
      // partly used: 3, 2 + 2); with AVX2 blocks of 8 (40: 3 + 2, 56: 3 + 2 + 2, 64: 3 + 3 + 2).
      {1, 2, 64, 64, 6, 11, 3, 3, s1, true, true},     {1, 2, 80, 80, 5, 9, 3, 3, s2, true, false},
      {2, 2, 96, 96, 4, 7, 3, 3, s1, false, true},     {1, 2, 112, 112, 5, 6, 3, 3, s1, true, true},
      {1, 3, 40, 40, 6, 10, 3, 3, s1, true, false},    {1, 2, 56, 56, 7, 9, 3, 3, s2, true, true},
      // Groups narrower than a vector share it: widths 2, 4 and 8, the last block with
      // fewer groups (5 of 4, 7 of 8, 11 of 2 on 16 lanes), a 1x1 kernel.
      {2, 5, 4, 4, 9, 11, 3, 3, s2, true, true},       {1, 11, 2, 2, 10, 10, 3, 3, s1, true, true},
      {1, 32, 4, 4, 8, 9, 3, 3, s1, true, false},      {1, 6, 8, 8, 5, 7, 1, 1, s2, false, true},
      // Rows of 16-pixel tiles for a lone block of 16 with AVX-512 (then 8s: 37 = 16 + 16 +
      // 5; 4-pixel tiles for the chunks of AVX2, 37 = 9 x 4 + 1), also a
      // 12-wide group in one block with AVX-512; RegNet's 120 and 168-wide groups (blocks of
      // 16 with AVX-512, the last half used: 3 + 3 + 2 and 3 + 3 + 3 + 2), 24 (2 blocks).
      {1, 3, 16, 16, 5, 37, 3, 3, s1, true, true},     {2, 2, 12, 12, 4, 35, 3, 3, s1, true, false},
      {1, 2, 120, 120, 4, 9, 3, 3, s2, true, true},    {1, 2, 168, 168, 3, 5, 3, 3, s1, true, false},
      {1, 3, 24, 24, 4, 33, 3, 3, s1, false, true},
      // Rows of 14, 28 and 56 pixels: with AVX-512 14-pixel tiles for a lone block, 7-pixel
      // ones for chunks of two and three; images of 512 and 1024 channels padded with a
      // vector of slack per pixel.
      {1, 32, 16, 16, 5, 14, 3, 3, s1, true, true},    {1, 16, 32, 32, 4, 28, 3, 3, s1, true, false},
      {2, 2, 48, 48, 5, 56, 3, 3, s2, true, true},     {1, 4, 16, 16, 5, 28, 3, 3, s2, false, true},
      {1, 64, 16, 16, 4, 14, 3, 3, s1, true, true},    {1, 8, 64, 64, 3, 56, 3, 3, s1, true, false},
      // Images over 1 MiB: every unit of blocks at each row in turn (ResNeXt's first stage,
      // a small-group block; RegNet-like chunks of three blocks), strides 1 and 2.
      {2, 32, 4, 4, 40, 40, 3, 3, s1, true, true},     {2, 2, 48, 48, 36, 45, 3, 3, s2, true, false},
  };
  std::uint32_t seed = 8100;
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      CAPTURE(threads);
      CAPTURE(i);
      arena.execute([&] { run_grouped_case(cases[i], seed); });
      seed += 4;
    }
  }
}

TEST_CASE("grouped conv on NHWC images: random group widths, kernels, strides, dilations, pads") {
  using A = cpu::Activation;
  std::mt19937 rng(31337);
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t widths[] = {1, 2, 3, 4, 5, 8, 12, 16, 17, 24, 32, 40};
  tbb::task_arena arena(2);
  std::uint32_t seed = 8600;
  for (int i = 0; i < 80; ++i) {
    GroupedCase k{};
    k.n = pick(1, 2);
    k.group = pick(2, 6);
    k.cg = widths[pick(0, 11)];
    k.mg = widths[pick(0, 11)];
    k.kh = pick(1, 5);
    k.kw = pick(1, 5);
    k.p.stride_h = pick(1, 3);
    k.p.stride_w = pick(1, 3);
    k.p.dilation_h = pick(1, 2);
    k.p.dilation_w = pick(1, 2);
    k.p.pad_top = pick(0, 3);
    k.p.pad_bottom = pick(0, 3);
    k.p.pad_left = pick(0, 3);
    k.p.pad_right = pick(0, 3);
    const std::int64_t span_h = (k.kh - 1) * k.p.dilation_h + 1, span_w = (k.kw - 1) * k.p.dilation_w + 1;
    k.h = std::max<std::int64_t>(pick(1, 12), span_h - k.p.pad_top - k.p.pad_bottom);
    k.w = std::max<std::int64_t>(pick(1, 24), span_w - k.p.pad_left - k.p.pad_right);
    const int post = static_cast<int>(pick(0, 2));
    k.p.post = {post == 0 ? A::none : post == 1 ? A::relu : A::clip, -0.5f, 0.5f};
    k.bias = pick(0, 1) == 1;
    k.residual = pick(0, 1) == 1;
    CAPTURE(i);
    CAPTURE(k.group);
    CAPTURE(k.cg);
    CAPTURE(k.mg);
    CAPTURE(k.h);
    CAPTURE(k.w);
    CAPTURE(k.kh);
    CAPTURE(k.kw);
    arena.execute([&] { run_grouped_case(k, seed); });
    seed += 4;
  }
}

TEST_CASE("grouped conv on NHWC images: errors") {
  auto w = random_f32({16, 4, 3, 3}, 1);
  expect_error([&] { (void)cpu::pack_grouped_nhwc(w.view(), 3); }, Errc::bad_attribute, kernels_tag);
  expect_error([&] { (void)cpu::pack_grouped_nhwc(w.view(), 0); }, Errc::bad_attribute, kernels_tag);
  const cpu::PackedGroupedNhwc packed = cpu::pack_grouped_nhwc(w.view(), 4);
  auto x = random_f32({1, 6, 6, 16}, 2);
  Buf<float> y({1, 4, 4, 16});
  // The weights' group is 4: a conv of group 2, or an input of 12 channels, does not fit.
  expect_error([&] { cpu::conv_grouped_nhwc({.group = 2}, x.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  auto x12 = random_f32({1, 6, 6, 12}, 3);
  expect_error([&] { cpu::conv_grouped_nhwc({.group = 4}, x12.view(), packed, nullptr, y.view()); },
               Errc::bad_op_inputs, kernels_tag);
  Buf<float> y_wrong({1, 5, 4, 16});
  expect_error([&] { cpu::conv_grouped_nhwc({.group = 4}, x.view(), packed, nullptr, y_wrong.view()); },
               Errc::bad_op_inputs, kernels_tag);
  cpu::conv_grouped_nhwc({.group = 4}, x.view(), packed, nullptr, y.view());  // fits: no error
  // 4-wide groups share vectors; a packing that says another count of groups per vector
  // (a vector's lanes not whole groups) is refused, not read past.
  cpu::PackedGroupedNhwc odd = cpu::pack_grouped_nhwc(w.view(), 4);
  REQUIRE(odd.gv > 1);
  odd.gv += 1;
  expect_error([&] { cpu::conv_grouped_nhwc({.group = 4}, x.view(), odd, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
}

TEST_CASE("grouped conv by Winograd on NHWC images: the products per group, against the reference conv") {
  using A = cpu::Activation;
  if (cpu::isa() == cpu::Isa::baseline) {
    CHECK_FALSE(cpu::winograd_nhwc_fits(32, 64, 3, 3, {.group = 2}));
    MESSAGE("skipped: Winograd on NHWC needs AVX2 or AVX-512");
    return;
  }
  const cpu::Conv2dParams s1{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .post = {A::relu}};
  const cpu::Conv2dParams none{};
  const cpu::Conv2dParams dil2{.pad_top = 2, .pad_left = 2, .pad_bottom = 2, .pad_right = 2, .dilation_h = 2,
                               .dilation_w = 2, .post = {A::clip, 0.0f, 1.0f}};
  // Group widths 16 (RegNetY-800MF), 24 (two groups: 48 channels, a vector's multiple),
  // 48 and 128 (RegNetX); inputs and outputs per group unequal; odd outputs (partial
  // tiles); no pads; dilation 2; the whole batch step by step (few tiles) and blocks of
  // tiles per task (a 40x40 image).
  const std::vector<GroupedCase> cases = {
      {1, 3, 16, 16, 9, 9, 3, 3, s1, true, true},      {2, 2, 24, 24, 7, 11, 3, 3, s1, true, false},
      {1, 2, 48, 48, 12, 12, 3, 3, none, false, true}, {1, 2, 128, 128, 6, 6, 3, 3, s1, true, true},
      {1, 2, 16, 32, 10, 13, 3, 3, s1, true, false},   {1, 2, 32, 32, 16, 16, 3, 3, dil2, true, true},
      {1, 4, 16, 16, 40, 40, 3, 3, s1, true, true},
  };
  std::uint32_t seed = 9100;
  for (const int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const GroupedCase& k = cases[i];
      CAPTURE(threads);
      CAPTURE(i);
      arena.execute([&] {
        check_grouped(k, seed, 1e-3f,
                      [&](const cpu::Conv2dParams& p, const ge::TensorView& x, const ge::TensorView& w,
                          const ge::TensorView* b, const ge::TensorView& y, const ge::TensorView* z) {
                        REQUIRE(cpu::winograd_nhwc_fits(k.cg, k.mg * k.group, 3, 3, p));
                        const cpu::PackedWinogradNhwc packed = cpu::pack_winograd_nhwc(w, k.group);
                        CHECK(packed.group == k.group);
                        cpu::conv_winograd_nhwc(p, x, packed, b, y, z);
                      });
      });
      seed += 4;
    }
  }
  // Errors: a group that does not divide the outputs; weights packed for another group or
  // an input whose channels are not the groups' sum.
  auto w = random_f32({32, 16, 3, 3}, 1);
  expect_error([&] { (void)cpu::pack_winograd_nhwc(w.view(), 3); }, Errc::bad_attribute, kernels_tag);
  expect_error([&] { (void)cpu::pack_winograd_nhwc(w.view(), 0); }, Errc::bad_attribute, kernels_tag);
  const cpu::PackedWinogradNhwc packed = cpu::pack_winograd_nhwc(w.view(), 2);
  auto x = random_f32({1, 6, 6, 32}, 2);
  Buf<float> y({1, 6, 6, 32});
  const cpu::Conv2dParams g2{.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .group = 2};
  cpu::Conv2dParams g1 = g2;
  g1.group = 1;
  expect_error([&] { cpu::conv_winograd_nhwc(g1, x.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  auto x16 = random_f32({1, 6, 6, 16}, 3);
  expect_error([&] { cpu::conv_winograd_nhwc(g2, x16.view(), packed, nullptr, y.view()); }, Errc::bad_op_inputs,
               kernels_tag);
  cpu::conv_winograd_nhwc(g2, x.view(), packed, nullptr, y.view());  // fits: no error
  CHECK_FALSE(cpu::winograd_nhwc_fits(10, 20, 3, 3, {.group = 2}));  // 20 channels: no vector's multiple
}
