#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <tbb/task_arena.h>

#include "kernel_test.hpp"
#include "kernels/cpu/reduce/reduce.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;

namespace {

// Reference: accumulate each input element into its output slot.
std::vector<float> ref_reduce(const Buf<float>& x, const std::vector<std::int64_t>& axes, cpu::ReduceOp op) {
  const std::size_t r = x.dims.size();
  std::vector<bool> red(r, false);
  for (auto a : axes) red[static_cast<std::size_t>(a)] = true;
  std::int64_t ny = 1, count = 1;
  for (std::size_t i = 0; i < r; ++i) (red[i] ? count : ny) *= x.dims[i];
  std::vector<double> acc(static_cast<std::size_t>(ny), op == cpu::ReduceOp::max ? -1e300 : 0.0);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    std::int64_t rem = i, o = 0, stride = 1;
    for (std::size_t d = r; d-- > 0;) {
      const std::int64_t idx = rem % x.dims[d];
      rem /= x.dims[d];
      if (!red[d]) {
        o += idx * stride;
        stride *= x.dims[d];
      }
    }
    double& a = acc[static_cast<std::size_t>(o)];
    a = op == cpu::ReduceOp::max ? std::max<double>(a, x[i]) : a + x[i];
  }
  std::vector<float> y(acc.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] = static_cast<float>(op == cpu::ReduceOp::mean ? acc[i] / static_cast<double>(count) : acc[i]);
  }
  return y;
}

}  // namespace

TEST_CASE("reduce sum, mean, max over axis sets, keepdims and not") {
  const std::vector<std::int64_t> dims = {3, 4, 5, 17};
  auto x = random_f32(dims, 1);
  const std::vector<std::vector<std::int64_t>> axis_sets = {{0}, {1}, {3}, {2, 3}, {0, 2}, {1, 3}, {0, 1, 2, 3}, {0, 3}, {}};
  for (const auto& axes : axis_sets) {
    for (auto op : {cpu::ReduceOp::sum, cpu::ReduceOp::mean, cpu::ReduceOp::max}) {
      for (bool keep : {true, false}) {
        CAPTURE(axes.size());
        CAPTURE(static_cast<int>(op));
        std::vector<std::int64_t> out;
        for (std::size_t i = 0; i < dims.size(); ++i) {
          const bool r = std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end();
          if (!r) out.push_back(dims[i]);
          else if (keep) out.push_back(1);
        }
        Buf<float> y(out);
        cpu::reduce({.op = op, .axes = axes}, x.view(), y.view());
        check_close(y.v, ref_reduce(x, axes, op), 1e-5f, 1e-5f);
      }
    }
  }
}

TEST_CASE("reduce integers, empty axes, NaN, and errors") {
  Buf<std::int64_t> x({2, 3}, {1, 2, 3, 4, 5, 7});
  Buf<std::int64_t> y({2});
  cpu::reduce({.op = cpu::ReduceOp::sum, .axes = {1}}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{6, 16});
  cpu::reduce({.op = cpu::ReduceOp::mean, .axes = {1}}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{2, 5});
  Buf<std::int64_t> y3({1, 3});
  cpu::reduce({.op = cpu::ReduceOp::max, .axes = {0}}, x.view(), y3.view());
  CHECK(y3.v == std::vector<std::int64_t>{4, 5, 7});
  Buf<float> e({2, 0}), ey({2});
  cpu::reduce({.op = cpu::ReduceOp::sum, .axes = {1}}, e.view(), ey.view());
  CHECK(ey.v == std::vector<float>{0, 0});
  Buf<float> n({3}, {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f}), ny({1});
  cpu::reduce({.op = cpu::ReduceOp::max, .axes = {0}}, n.view(), ny.view());
  CHECK(std::isnan(ny[0]));
  expect_error([&] { cpu::reduce({.axes = {2}}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  expect_error([&] { cpu::reduce({.axes = {1, 1}}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  Buf<std::int64_t> wrong({3});
  expect_error([&] { cpu::reduce({.axes = {1}}, x.view(), wrong.view()); }, Errc::bad_op_inputs, kernels_tag);
  Buf<std::uint8_t> b({2}, ge::DataType::u8), by({1}, ge::DataType::u8);
  expect_error([&] { cpu::reduce({.axes = {0}}, b.view(), by.view()); }, Errc::unsupported, kernels_tag);
}

TEST_CASE("arg_max: ties, select_last_index, NaN, axes") {
  Buf<float> x({2, 4}, {1, 3, 3, 2, 5, 5, 5, 5});
  Buf<std::int64_t> y({2, 1});
  cpu::arg_max({.axis = 1}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{1, 0});
  cpu::arg_max({.axis = 1, .select_last_index = true}, x.view(), y.view());
  CHECK(y.v == std::vector<std::int64_t>{2, 3});
  Buf<std::int64_t> y0({4});
  cpu::arg_max({.axis = 0}, x.view(), y0.view());
  CHECK(y0.v == std::vector<std::int64_t>{1, 1, 1, 1});
  Buf<float> n({3}, {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f});
  Buf<std::int64_t> ny(std::vector<std::int64_t>{});
  cpu::arg_max({.axis = 0}, n.view(), ny.view());
  CHECK(ny[0] == 1);
  Buf<std::int32_t> xi({3, 2}, {1, 9, 8, 2, 8, 3});
  Buf<std::int64_t> yi({1, 2});
  cpu::arg_max({.axis = 0}, xi.view(), yi.view());
  CHECK(yi.v == std::vector<std::int64_t>{1, 0});
  expect_error([&] { cpu::arg_max({.axis = 2}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag);
  Buf<float> yf({2, 1});
  expect_error([&] { cpu::arg_max({.axis = 1}, x.view(), yf.view()); }, Errc::type_mismatch, kernels_tag);
}

TEST_CASE("reduce over many rows into few outputs (a global pool of one NHWC image) in parts") {
  // Kept inner channels, reduced pixels: the rows are cut into parts summed apart and then
  // combined; the result must not depend on how many threads ran the parts.
  for (const std::vector<std::int64_t>& dims :
       {std::vector<std::int64_t>{1, 40, 40, 40}, {2, 64, 64, 24}, {1, 75, 75, 33}, {3, 300, 7}, {1, 9, 9, 1100}}) {
    CAPTURE(dims.size());
    CAPTURE(dims.back());
    auto x = random_f32(dims, 7);
    const std::vector<std::int64_t> axes = dims.size() == 4 ? std::vector<std::int64_t>{1, 2}
                                                             : std::vector<std::int64_t>{1};
    std::vector<std::int64_t> out = dims;
    for (auto a : axes) out[static_cast<std::size_t>(a)] = 1;
    for (auto op : {cpu::ReduceOp::sum, cpu::ReduceOp::mean, cpu::ReduceOp::max}) {
      Buf<float> y(out), y1(out);
      cpu::reduce({.op = op, .axes = axes}, x.view(), y.view());
      check_close(y.v, ref_reduce(x, axes, op), 1e-5f, 1e-5f);
      tbb::task_arena one(1);
      one.execute([&] { cpu::reduce({.op = op, .axes = axes}, x.view(), y1.view()); });
      CHECK(y1.v == y.v);
    }
  }
  // NaN in one part reaches the maximum; integer sums wrap in any part.
  Buf<float> x({1, 64, 64, 16});
  x.v.assign(x.v.size(), 1.0f);
  x[16 * 3000 + 5] = std::numeric_limits<float>::quiet_NaN();
  Buf<float> y({1, 1, 1, 16});
  cpu::reduce({.op = cpu::ReduceOp::max, .axes = {1, 2}}, x.view(), y.view());
  CHECK(std::isnan(y[5]));
  CHECK(y[4] == 1.0f);
  Buf<std::int32_t> xi({1, 4096, 16});
  xi.v.assign(xi.v.size(), std::numeric_limits<std::int32_t>::max() / 1024);
  Buf<std::int32_t> yi({1, 16});
  cpu::reduce({.op = cpu::ReduceOp::sum, .axes = {1}}, xi.view(), yi.view());
  std::uint32_t want = 0;
  for (int i = 0; i < 4096; ++i) want += static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max() / 1024);
  CHECK(yi[0] == static_cast<std::int32_t>(want));
}
