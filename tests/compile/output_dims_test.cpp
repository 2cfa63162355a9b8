// Tests of CompiledOp::output_dims: a single op's output dims for real inputs, so that a
// caller can size the views execute_op writes.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;
using ge::OpTensor;
using ge::Shape;
using ge::TensorView;
using ge::test::expect_error;

TEST_CASE("output_dims: the real output dims, then execute_op into views of those dims") {
  const auto op = ge::compile_op("MatMul", {OpTensor{DataType::f32, Shape::parse("-1,4")},
                                            OpTensor{DataType::f32, Shape::parse("4,1~8")}},
                                 {OpTensor{DataType::f32, Shape::parse("-1,1~8")}});
  std::vector<float> a(3 * 4, 1.f), b(4 * 5, 2.f);
  const std::int64_t ad[] = {3, 4}, bd[] = {4, 5};
  const std::vector<TensorView> in{{a.data(), DataType::f32, ad}, {b.data(), DataType::f32, bd}};
  const auto dims = op->output_dims(in);
  REQUIRE(dims.size() == 1);
  CHECK(dims[0] == std::vector<std::int64_t>{3, 5});
  std::vector<float> y(static_cast<std::size_t>(dims[0][0] * dims[0][1]));
  const std::vector<TensorView> out{{y.data(), DataType::f32, dims[0]}};
  CHECK(ge::execute_op(*op, in, out) == dims);
  CHECK(y[0] == 8.f);
}

TEST_CASE("output_dims: a data-dependent op gives the largest dims; bad inputs are ge::Errors") {
  const auto nz = ge::compile_op("NonZero", {OpTensor{DataType::f32, Shape::parse("2,3")}}, {});
  std::vector<float> x{0, 1, 0, 2, 0, 3};
  const std::int64_t xd[] = {2, 3};
  const std::vector<TensorView> in{{x.data(), DataType::f32, xd}};
  CHECK(nz->output_dims(in) == std::vector<std::vector<std::int64_t>>{{2, 6}});  // rank x every element

  const auto relu = ge::compile_op("Relu", {OpTensor{DataType::f32, Shape::parse("-1,4")}}, {});
  const std::int64_t wrong[] = {2, 5};
  expect_error([&] { (void)relu->output_dims(std::vector<TensorView>{{x.data(), DataType::f32, wrong}}); },
               Errc::out_of_range, "outside the compiled");
  expect_error([&] { (void)relu->output_dims({}); }, Errc::bad_tensor, "0 inputs given; it takes 1");
}
