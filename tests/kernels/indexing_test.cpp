// GatherElements and ScatterElements: positions along the axis, negative indices,
// reductions, and the errors.
#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include "kernel_test.hpp"
#include "kernels/cpu/movement/indexing.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;
using cpu::ScatterReduction;

TEST_CASE("gather_elements along either axis, negative indices, smaller indices") {
  Buf<float> x({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<std::int64_t> i1({2, 2}, {2, -3, 1, 1});
  Buf<float> y({2, 2});
  cpu::gather_elements(1, x.view(), i1.view(), y.view());
  CHECK(y.v == std::vector<float>{3, 1, 5, 5});
  Buf<std::int32_t> i0({1, 3}, {1, 0, -1});
  Buf<float> y0({1, 3});
  cpu::gather_elements(0, x.view(), i0.view(), y0.view());
  CHECK(y0.v == std::vector<float>{4, 2, 6});
  Buf<std::int64_t> bad({2, 2}, {0, 3, 0, 0});
  expect_error([&] { cpu::gather_elements(1, x.view(), bad.view(), y.view()); }, Errc::index_out_of_range,
               kernels_tag, "index 3");
  expect_error([&] { cpu::gather_elements(2, x.view(), i1.view(), y.view()); }, Errc::bad_attribute, kernels_tag,
               "axis 2");
  Buf<std::int64_t> big({3, 1}, {0, 0, 0});
  Buf<float> yb({3, 1});
  expect_error([&] { cpu::gather_elements(1, x.view(), big.view(), yb.view()); }, Errc::bad_op_inputs, kernels_tag,
               "exceed");
  Buf<float> flat({2}, {0, 1});
  expect_error([&] { cpu::gather_elements(0, flat.view(), i1.view(), y.view()); }, Errc::bad_op_inputs, kernels_tag,
               "rank");
}

TEST_CASE("gather_elements over the thread pool: a k-NN gather's shape, a bad index found by any task") {
  // Indices [2, 8, 5000] into data [2, 8, 300] along the last axis: 80000 copies in tasks
  // of 16384; the indices are checked as they are copied, and a bad one anywhere is the
  // error naming it.
  const std::int64_t dim = 300, k = 5000;
  auto x = ge::test::random_f32({2, 8, dim}, 11);
  Buf<std::int64_t> idx({2, 8, k});
  for (std::int64_t t = 0; t < idx.size(); ++t) idx.v[static_cast<std::size_t>(t)] = (t * 7919) % (2 * dim) - dim;
  Buf<float> y({2, 8, k});
  tbb::task_arena arena(2);
  arena.execute([&] { cpu::gather_elements(2, x.view(), idx.view(), y.view()); });
  for (std::int64_t t = 0; t < idx.size(); ++t) {
    const std::int64_t row = t / k, v = idx[t];
    REQUIRE(y[t] == x[row * dim + (v < 0 ? v + dim : v)]);
  }
  for (const std::int64_t at : {std::int64_t{0}, std::int64_t{50001}, idx.size() - 1}) {
    Buf<std::int64_t> bad = idx;
    bad.v[static_cast<std::size_t>(at)] = dim;
    CAPTURE(at);
    arena.execute([&] {
      expect_error([&] { cpu::gather_elements(2, x.view(), bad.view(), y.view()); }, Errc::index_out_of_range,
                   kernels_tag, "index 300");
    });
  }
}

TEST_CASE("scatter_elements: replace, each reduction, duplicates") {
  Buf<float> x({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<std::int64_t> idx({2, 2}, {0, 0, -1, 1});
  Buf<float> u({2, 2}, {10, 20, 30, 40});
  Buf<float> y({2, 3});
  cpu::scatter_elements({.axis = 1}, x.view(), idx.view(), u.view(), y.view());
  CHECK(y.v == std::vector<float>{20, 2, 3, 4, 40, 30});  // the later duplicate wins
  cpu::scatter_elements({.axis = 1, .reduction = ScatterReduction::add}, x.view(), idx.view(), u.view(), y.view());
  CHECK(y.v == std::vector<float>{31, 2, 3, 4, 45, 36});
  cpu::scatter_elements({.axis = 1, .reduction = ScatterReduction::mul}, x.view(), idx.view(), u.view(), y.view());
  CHECK(y.v == std::vector<float>{200, 2, 3, 4, 200, 180});
  Buf<std::int32_t> xi({3}, {5, 5, 5}), ui({2}, {7, 1}), yi({3});
  Buf<std::int32_t> ii({2}, {0, 2});
  cpu::scatter_elements({.reduction = ScatterReduction::max}, xi.view(), ii.view(), ui.view(), yi.view());
  CHECK(yi.v == std::vector<std::int32_t>{7, 5, 5});
  cpu::scatter_elements({.reduction = ScatterReduction::min}, xi.view(), ii.view(), ui.view(), yi.view());
  CHECK(yi.v == std::vector<std::int32_t>{5, 5, 1});
  Buf<std::uint8_t> xb({2}, ge::DataType::u8), ub({1}, ge::DataType::u8), yb({2}, ge::DataType::u8);
  Buf<std::int64_t> ib({1}, {1});
  cpu::scatter_elements({}, xb.view(), ib.view(), ub.view(), yb.view());  // replacing takes any type
  expect_error([&] { cpu::scatter_elements({.reduction = ScatterReduction::add}, xb.view(), ib.view(), ub.view(),
                                           yb.view()); },
               Errc::unsupported, kernels_tag, "reduction");
  Buf<float> u3({2, 3});
  expect_error([&] { cpu::scatter_elements({.axis = 1}, x.view(), idx.view(), u3.view(), y.view()); },
               Errc::bad_op_inputs, kernels_tag, "updates");
  Buf<std::int64_t> far({2, 2}, {0, 0, 0, -4});
  expect_error([&] { cpu::scatter_elements({.axis = 1}, x.view(), far.view(), u.view(), y.view()); },
               Errc::index_out_of_range, kernels_tag, "index -4");
}
