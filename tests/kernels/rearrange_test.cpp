// Tile, DepthToSpace (DCR, CRD) and SpaceToDepth on small known tensors, and the errors.
#include <doctest/doctest.h>

#include <numeric>

#include "kernel_test.hpp"
#include "kernels/cpu/movement/rearrange.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

TEST_CASE("tile repeats along each axis; a zero repeat empties the output") {
  Buf<float> x({2, 2}, {1, 2, 3, 4});
  Buf<float> y({4, 4});
  cpu::tile(x.view(), y.view());
  CHECK(y.v == std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4});
  Buf<std::int64_t> xi({3}, {7, 8, 9}), yi({6});
  cpu::tile(xi.view(), yi.view());
  CHECK(yi.v == std::vector<std::int64_t>{7, 8, 9, 7, 8, 9});
  Buf<float> empty({0, 4});
  cpu::tile(x.view(), empty.view());
  Buf<float> bad({3, 4});
  expect_error([&] { cpu::tile(x.view(), bad.view()); }, Errc::bad_op_inputs, kernels_tag, "repeated");
}

TEST_CASE("depth_to_space DCR and CRD, and space_to_depth undoing DCR") {
  // x [1, 4, 1, 2]: channel k holds {10k, 10k + 1}.
  Buf<float> x({1, 4, 1, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Buf<float> y({1, 1, 2, 4});
  cpu::depth_to_space({.block = 2}, x.view(), y.view());
  CHECK(y.v == std::vector<float>{0, 10, 1, 11, 20, 30, 21, 31});
  Buf<float> x2({1, 8, 1, 1});
  std::iota(x2.v.begin(), x2.v.end(), 0.0f);
  Buf<float> dcr({1, 2, 2, 2}), crd({1, 2, 2, 2});
  cpu::depth_to_space({.block = 2}, x2.view(), dcr.view());
  CHECK(dcr.v == std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7});
  cpu::depth_to_space({.block = 2, .crd = true}, x2.view(), crd.view());
  CHECK(crd.v == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
  Buf<float> back({1, 4, 1, 2});
  cpu::space_to_depth(2, y.view(), back.view());
  CHECK(back.v == x.v);
  expect_error([&] { cpu::depth_to_space({.block = 0}, x.view(), y.view()); }, Errc::bad_attribute, kernels_tag,
               "blocksize 0");
  Buf<float> y3({1, 0, 3, 6});
  expect_error([&] { cpu::depth_to_space({.block = 3}, x.view(), y3.view()); }, Errc::bad_op_inputs, kernels_tag,
               "multiple");
  Buf<float> s3({1, 9, 0, 0});
  expect_error([&] { cpu::space_to_depth(3, x.view(), s3.view()); }, Errc::bad_op_inputs, kernels_tag, "multiple");
  Buf<float> flat({4});
  expect_error([&] { cpu::space_to_depth(2, flat.view(), y.view()); }, Errc::bad_op_inputs, kernels_tag,
               "[N, C, H, W]");
}
