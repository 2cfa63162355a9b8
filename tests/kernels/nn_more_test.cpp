// Further network kernels (kernels/cpu/nn/nn_more.hpp): hand-checked values and argument errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "kernel_test.hpp"
#include "kernels/cpu/nn/nn_more.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

TEST_CASE("batch_norm_training: the batch's statistics and the running ones") {
  // One channel, values 1 and 3: mean 2, variance 1.
  Buf<float> x({2, 1}, {1, 3});
  Buf<float> scale({1}, {2}), b({1}, {0.5F}), mean({1}, {10}), var({1}, {4});
  Buf<float> y({2, 1}), rm({1}), rv({1});
  const ge::TensorView rmv = rm.view(), rvv = rv.view();
  cpu::batch_norm_training({.epsilon = 0, .momentum = 0.75F}, x.view(), scale.view(), b.view(), mean.view(),
                           var.view(), y.view(), &rmv, &rvv);
  CHECK(y.v[0] == doctest::Approx(-1.5));
  CHECK(y.v[1] == doctest::Approx(2.5));
  CHECK(rm.v[0] == doctest::Approx(10 * 0.75 + 2 * 0.25));
  CHECK(rv.v[0] == doctest::Approx(4 * 0.75 + 1 * 0.25));
  // Errors: a per-channel input of the wrong length, a wrong type, a rank-1 X.
  Buf<float> bad({2});
  expect_error([&] { cpu::batch_norm_training({}, x.view(), bad.view(), b.view(), mean.view(), var.view(), y.view(), nullptr, nullptr); },
               Errc::bad_op_inputs, kernels_tag);
  Buf<double> xd({2, 1});
  expect_error([&] { cpu::batch_norm_training({}, xd.view(), scale.view(), b.view(), mean.view(), var.view(), y.view(), nullptr, nullptr); },
               Errc::type_mismatch, kernels_tag);
  Buf<float> x1({2});
  expect_error([&] { cpu::batch_norm_training({}, x1.view(), scale.view(), b.view(), mean.view(), var.view(), x1.view(), nullptr, nullptr); },
               Errc::bad_op_inputs, kernels_tag);
}

TEST_CASE("lrn, mean_variance_normalization, window_function, det, max_unpool: values and errors") {
  // LRN size 2 over channels {1, 2}: channel 0 sums 1 + 4, channel 1 sums 4 (the window clips).
  Buf<float> x({1, 2, 1}, {1, 2}), y({1, 2, 1});
  cpu::lrn({.alpha = 2, .beta = 1, .bias = 1, .size = 2}, x.view(), y.view());
  CHECK(y.v[0] == doctest::Approx(1.0 / (1 + 5)));
  CHECK(y.v[1] == doctest::Approx(2.0 / (1 + 4)));
  expect_error([&] { cpu::lrn({.size = 0}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  // No channels (found by fuzz_compile_op): nothing to do, and no offset from a null X.
  const std::vector<std::int64_t> empty_dims{2, 0, 3};
  const ge::TensorView empty{nullptr, ge::DataType::f32, empty_dims};
  cpu::lrn({.size = 3}, empty, empty);
  // MVN over axis 1: (1, 3) -> (-1, 1).
  Buf<float> m({1, 2}, {1, 3}), my({1, 2});
  const std::int64_t axes[1] = {1};
  cpu::mean_variance_normalization(axes, m.view(), my.view());
  CHECK(my.v[0] == doctest::Approx(-1));
  CHECK(my.v[1] == doctest::Approx(1));
  const std::int64_t bad_axes[2] = {1, 1};
  expect_error([&] { cpu::mean_variance_normalization(bad_axes, m.view(), my.view()); }, Errc::bad_attribute,
               kernels_tag);
  // Hann, periodic, length 4: 0, 0.5, 1, 0.5.
  Buf<float> w({4});
  cpu::window_function(cpu::WindowFn::hann, true, w.view());
  CHECK(w.v[0] == doctest::Approx(0));
  CHECK(w.v[1] == doctest::Approx(0.5));
  CHECK(w.v[2] == doctest::Approx(1));
  Buf<std::int32_t> wi({4});
  expect_error([&] { cpu::window_function(cpu::WindowFn::hann, true, wi.view()); }, Errc::type_mismatch, kernels_tag);
  // Det of [[0, 2], [3, 4]] = -6 (a pivot swap); a non-square input is refused.
  Buf<float> a({2, 2}, {0, 2, 3, 4}), d(std::vector<std::int64_t>{});
  cpu::det(a.view(), d.view());
  CHECK(d.v[0] == doctest::Approx(-6));
  Buf<float> ns({2, 3});
  expect_error([&] { cpu::det(ns.view(), d.view()); }, Errc::bad_op_inputs, kernels_tag);
  // MaxUnpool: indices in the unpooled [1, 1, 2, 2] land at the same coordinates of a
  // [1, 1, 3, 3] output; one outside the unpooled dims is refused.
  Buf<float> ux({1, 1, 1, 2}, {7, 8}), uy({1, 1, 3, 3});
  Buf<std::int64_t> ui({1, 1, 1, 2}, {1, 3});
  const std::int64_t pooled[4] = {1, 1, 2, 2};
  cpu::max_unpool(ux.view(), ui.view(), pooled, uy.view());
  CHECK(uy.v == std::vector<float>{0, 7, 0, 0, 8, 0, 0, 0, 0});
  Buf<std::int64_t> far({1, 1, 1, 2}, {1, 4});
  expect_error([&] { cpu::max_unpool(ux.view(), far.view(), pooled, uy.view()); }, Errc::bad_op_inputs, kernels_tag);
}
