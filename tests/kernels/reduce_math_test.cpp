// The reductions beyond sum, mean and max (min, prod, sum of squares, L1, L2, log-sum,
// log-sum-exp), ArgMin and CumSum.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "kernel_test.hpp"
#include "kernels/cpu/reduce/reduce.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;
using cpu::ReduceOp;

TEST_CASE("reduce min, prod, sum_square, l1, l2, log_sum, log_sum_exp on f32") {
  // x [2, 3]: rows {1, -2, 3} and {0.5, 4, -1}.
  Buf<float> x({2, 3}, {1, -2, 3, 0.5f, 4, -1});
  Buf<float> rows({2}), cols({1, 3});
  const auto run = [&](ReduceOp op, std::vector<std::int64_t> axes, Buf<float>& y) {
    cpu::reduce({.op = op, .axes = std::move(axes)}, x.view(), y.view());
  };
  run(ReduceOp::min, {1}, rows);
  check_close(rows.v, {-2, -1}, 0, 0);
  run(ReduceOp::prod, {1}, rows);
  check_close(rows.v, {-6, -2}, 1e-6f, 0);
  run(ReduceOp::sum_square, {0}, cols);
  check_close(cols.v, {1.25f, 20, 10}, 1e-6f, 0);
  run(ReduceOp::l1, {1}, rows);
  check_close(rows.v, {6, 5.5f}, 1e-6f, 0);
  run(ReduceOp::l2, {0}, cols);
  check_close(cols.v, {std::sqrt(1.25f), std::sqrt(20.0f), std::sqrt(10.0f)}, 1e-6f, 0);
  Buf<float> pos({2, 2}, {1, 2, 3, 4}), pr({2});
  cpu::reduce({.op = ReduceOp::log_sum, .axes = {1}}, pos.view(), pr.view());
  check_close(pr.v, {std::log(3.0f), std::log(7.0f)}, 1e-6f, 0);
  run(ReduceOp::log_sum_exp, {1}, rows);
  check_close(rows.v,
              {static_cast<float>(std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0))),
               static_cast<float>(std::log(std::exp(0.5) + std::exp(4.0) + std::exp(-1.0)))},
              1e-6f, 0);
}

TEST_CASE("reduce log_sum_exp stays finite on large values; NaN and empty axes") {
  Buf<double> d({3}, {1, 2, 3}), dy({1});
  cpu::reduce({.op = ReduceOp::log_sum_exp, .axes = {0}}, d.view(), dy.view());
  CHECK(dy[0] == doctest::Approx(std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0))).epsilon(1e-12));
  Buf<float> big({2}, {1000, 1000}), y({1});
  cpu::reduce({.op = ReduceOp::log_sum_exp, .axes = {0}}, big.view(), y.view());
  CHECK(y[0] == doctest::Approx(1000 + std::log(2.0)));
  Buf<float> n({3}, {1.0f, std::numeric_limits<float>::quiet_NaN(), -2.0f});
  cpu::reduce({.op = ReduceOp::min, .axes = {0}}, n.view(), y.view());
  CHECK(std::isnan(y[0]));
  Buf<float> e({2, 0}), ey({2});
  const float inf = std::numeric_limits<float>::infinity();
  const std::pair<ReduceOp, float> empty[] = {{ReduceOp::min, inf},       {ReduceOp::prod, 1},
                                              {ReduceOp::sum_square, 0},  {ReduceOp::l2, 0},
                                              {ReduceOp::log_sum, -inf},  {ReduceOp::log_sum_exp, -inf}};
  for (const auto& [op, want] : empty) {
    CAPTURE(static_cast<int>(op));
    cpu::reduce({.op = op, .axes = {1}}, e.view(), ey.view());
    CHECK(ey.v == std::vector<float>{want, want});
  }
}

TEST_CASE("reduce min, prod, sum_square, l1 on integers wrap; the float-only ones refuse them") {
  Buf<std::int32_t> x({2, 2}, {-3, 5, 65536, 65536});
  Buf<std::int32_t> y({2});
  cpu::reduce({.op = ReduceOp::min, .axes = {1}}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int32_t>{-3, 65536});
  cpu::reduce({.op = ReduceOp::prod, .axes = {1}}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int32_t>{-15, 0});  // 2^32 wraps to 0
  cpu::reduce({.op = ReduceOp::l1, .axes = {1}}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int32_t>{8, 131072});
  Buf<std::int64_t> xl({3}, {2, -3, 4}), yl(std::vector<std::int64_t>{});
  cpu::reduce({.op = ReduceOp::sum_square, .axes = {0}}, xl.view(), yl.view());
  CHECK(yl[0] == 29);
  for (ReduceOp op : {ReduceOp::l2, ReduceOp::log_sum, ReduceOp::log_sum_exp})
    expect_error([&] { cpu::reduce({.op = op, .axes = {1}}, x.view(), y.view()); }, Errc::unsupported, kernels_tag,
                 "expected f32");
  expect_error([&] { cpu::reduce({.op = ReduceOp::prod, .axes = {3}}, x.view(), y.view()); }, Errc::bad_attribute,
               kernels_tag, "ReduceProd");
}

TEST_CASE("arg_max with min: the smallest entry, ties, NaN") {
  Buf<float> x({2, 4}, {3, 1, 1, 2, 5, 5, 5, 5});
  Buf<std::int64_t> y({2, 1});
  cpu::arg_max({.axis = 1, .min = true}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{1, 0});
  cpu::arg_max({.axis = 1, .select_last_index = true, .min = true}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{2, 3});
  Buf<float> n({3}, {1.0f, std::numeric_limits<float>::quiet_NaN(), -2.0f});
  Buf<std::int64_t> ny(std::vector<std::int64_t>{});
  cpu::arg_max({.axis = 0, .min = true}, n.view(), ny.view());
  CHECK(ny[0] == 1);
  expect_error([&] { cpu::arg_max({.axis = 2, .min = true}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag,
               "ArgMin");
}

TEST_CASE("cum_sum: inclusive, exclusive, reverse, along inner and outer axes") {
  Buf<double> x({2, 3}, {1, 2, 3, 4, 5, 6}), y({2, 3});
  cpu::cum_sum({.axis = 1}, x.view(), y.view());
  CHECK(y.v == std::vector<double>{1, 3, 6, 4, 9, 15});
  cpu::cum_sum({.axis = 1, .exclusive = true}, x.view(), y.view());
  CHECK(y.v == std::vector<double>{0, 1, 3, 0, 4, 9});
  cpu::cum_sum({.axis = 1, .reverse = true}, x.view(), y.view());
  CHECK(y.v == std::vector<double>{6, 5, 3, 15, 11, 6});
  cpu::cum_sum({.axis = 1, .exclusive = true, .reverse = true}, x.view(), y.view());
  CHECK(y.v == std::vector<double>{5, 3, 0, 11, 6, 0});
  cpu::cum_sum({.axis = 0}, x.view(), y.view());
  CHECK(y.v == std::vector<double>{1, 2, 3, 5, 7, 9});
  Buf<std::int32_t> xi({2}, {2147483647, 1}), yi({2});
  cpu::cum_sum({.axis = 0}, xi.view(), yi.view());
  CHECK(yi.v == std::vector<std::int32_t>{2147483647, -2147483647 - 1});
  expect_error([&] { cpu::cum_sum({.axis = 2}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag, "axis 2");
  Buf<float> yf({2, 3});
  expect_error([&] { cpu::cum_sum({.axis = 0}, x.view(), yf.view()); }, Errc::type_mismatch, kernels_tag);
  Buf<double> wrong({3, 2});
  expect_error([&] { cpu::cum_sum({.axis = 0}, x.view(), wrong.view()); }, Errc::bad_op_inputs, kernels_tag);
}
