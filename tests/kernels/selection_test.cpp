// The kernels of issue #17's losses, one-hot, tuple-indexing and selection ops: exact
// small cases and the errors only the data can show (indices, lengths, depth).
#include <doctest/doctest.h>

#include "kernel_test.hpp"
#include "kernels/cpu/nn/loss.hpp"
#include "kernels/cpu/movement/nd_indexing.hpp"
#include "kernels/cpu/movement/one_hot.hpp"
#include "kernels/cpu/movement/selection.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

TEST_CASE("nll_loss and softmax_cross_entropy: reductions, ignore_index, a target outside the classes") {
  Buf<float> x({2, 3}, {-1, -2, -3, -4, -5, -6});
  Buf<std::int64_t> t({2}, {2, 0});
  Buf<float> w({3}, {1, 1, 3});
  Buf<float> none({2}), one(std::vector<std::int64_t>{});
  cpu::nll_loss({.reduction = cpu::LossReduction::none}, x.view(), t.view(), nullptr, none.view());
  CHECK(none.v == std::vector<float>{3, 4});
  const ge::TensorView wv = w.view();
  cpu::nll_loss({}, x.view(), t.view(), &wv, one.view());
  CHECK(one.v[0] == doctest::Approx((9.0 + 4.0) / 4.0));
  cpu::nll_loss({.reduction = cpu::LossReduction::sum, .ignore_index = 2}, x.view(), t.view(), nullptr, one.view());
  CHECK(one.v[0] == 4);
  Buf<std::int64_t> bad({2}, {3, 0});
  expect_error([&] { cpu::nll_loss({}, x.view(), bad.view(), nullptr, one.view()); }, Errc::index_out_of_range,
               kernels_tag, "target 3");
  Buf<float> lp({2, 3});
  const ge::TensorView lpv = lp.view();
  cpu::softmax_cross_entropy({.reduction = cpu::LossReduction::none}, x.view(), t.view(), nullptr, none.view(), &lpv);
  CHECK(lp.v[0] == doctest::Approx(-0.407606));
  CHECK(none.v[0] == doctest::Approx(2.407606));
}

TEST_CASE("one_hot, eye_like and hardmax: exact cases and bad depth or axis") {
  Buf<std::int64_t> idx({3}, {0, -1, 5});
  Buf<std::int32_t> depth(std::vector<std::int64_t>{}, {3});
  Buf<float> values({2}, {0, 7});
  Buf<float> y({3, 3});
  cpu::one_hot(1, idx.view(), depth.view(), values.view(), y.view());
  CHECK(y.v == std::vector<float>{7, 0, 0, 0, 0, 7, 0, 0, 0});
  Buf<std::int32_t> zero(std::vector<std::int64_t>{}, {0});
  expect_error([&] { cpu::one_hot(1, idx.view(), zero.view(), values.view(), y.view()); }, Errc::bad_op_inputs,
               kernels_tag, "depth");
  expect_error([&] { cpu::one_hot(2, idx.view(), depth.view(), values.view(), y.view()); }, Errc::bad_attribute,
               kernels_tag, "axis 2");
  Buf<std::int32_t> eye({2, 3});
  cpu::eye_like(1, eye.view());
  CHECK(eye.v == std::vector<std::int32_t>{0, 1, 0, 0, 0, 1});
  Buf<float> x({2, 2}, {1, 1, 0, 2}), h({2, 2});
  cpu::hardmax(1, x.view(), h.view());
  CHECK(h.v == std::vector<float>{1, 0, 0, 1});
  expect_error([&] { cpu::hardmax(2, x.view(), h.view()); }, Errc::bad_attribute, kernels_tag, "axis 2");
}

TEST_CASE("gather_nd and scatter_nd: batch dims, negative indices, an index outside its dim") {
  Buf<float> x({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  Buf<std::int64_t> i2({2, 2}, {0, 1, -1, 0});
  Buf<float> y({2, 2});
  cpu::gather_nd(0, x.view(), i2.view(), y.view());
  CHECK(y.v == std::vector<float>{2, 3, 4, 5});
  Buf<std::int64_t> ib({2, 1}, {1, 0});
  cpu::gather_nd(1, x.view(), ib.view(), y.view());
  CHECK(y.v == std::vector<float>{2, 3, 4, 5});
  Buf<std::int64_t> far({2, 2}, {0, 2, 0, 0});
  expect_error([&] { cpu::gather_nd(0, x.view(), far.view(), y.view()); }, Errc::index_out_of_range, kernels_tag,
               "index 2");
  expect_error([&] { cpu::gather_nd(2, x.view(), ib.view(), y.view()); }, Errc::bad_attribute, kernels_tag,
               "batch_dims 2");
  Buf<std::int64_t> i1({2, 1}, {1, 1});
  Buf<float> u({2, 2, 2}, {1, 1, 1, 1, 2, 2, 2, 2}), s({2, 2, 2});
  cpu::scatter_nd(cpu::ScatterReduction::add, x.view(), i1.view(), u.view(), s.view());
  CHECK(s.v == std::vector<float>{0, 1, 2, 3, 7, 8, 9, 10});
}

TEST_CASE("compress, reverse_sequence and unique: exact cases and bad lengths") {
  Buf<float> x({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<std::uint8_t> cond({2}, {0, 1}, ge::DataType::boolean);
  Buf<float> y({2, 1});
  cpu::compress(1, x.view(), cond.view(), y.view());
  CHECK(y.v == std::vector<float>{2, 5});
  Buf<std::uint8_t> long_cond({4}, {1, 1, 1, 1}, ge::DataType::boolean);
  expect_error([&] { cpu::compress(1, x.view(), long_cond.view(), y.view()); }, Errc::bad_op_inputs, kernels_tag,
               "longer");
  Buf<std::int64_t> lens({3}, {2, 1, 0});
  Buf<float> r({2, 3});
  cpu::reverse_sequence(0, 1, x.view(), lens.view(), r.view());
  CHECK(r.v == std::vector<float>{4, 2, 3, 1, 5, 6});
  Buf<std::int64_t> too_long({3}, {3, 0, 0});
  expect_error([&] { cpu::reverse_sequence(0, 1, x.view(), too_long.view(), r.view()); }, Errc::bad_op_inputs,
               kernels_tag, "sequence_lens[0]");
  expect_error([&] { cpu::reverse_sequence(1, 1, x.view(), lens.view(), r.view()); }, Errc::bad_attribute, kernels_tag,
               "time_axis");
  Buf<float> v({5}, {2, 1, 2, 3, 1});
  const cpu::UniqueResult sorted = cpu::unique(true, std::nullopt, v.view());
  CHECK(sorted.first == std::vector<std::int64_t>{1, 0, 3});
  CHECK(sorted.inverse == std::vector<std::int64_t>{1, 0, 1, 2, 0});
  CHECK(sorted.counts == std::vector<std::int64_t>{2, 2, 1});
  const cpu::UniqueResult seen = cpu::unique(false, std::nullopt, v.view());
  CHECK(seen.first == std::vector<std::int64_t>{0, 1, 3});
  Buf<float> uy({3});
  cpu::unique_values(std::nullopt, v.view(), seen, uy.view());
  CHECK(uy.v == std::vector<float>{2, 1, 3});
  expect_error([&] { (void)cpu::unique(true, 1, v.view()); }, Errc::bad_attribute, kernels_tag, "axis 1");
}
