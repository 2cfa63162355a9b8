// Tests of Session::run by name: inputs in any order, outputs into the caller's buffers
// by name, and the errors that name what is wrong.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;
using ge::NamedTensor;
using ge::TensorView;
using ge::test::expect_error;

namespace {
// y = a - b, z = a * b: two inputs whose order matters, two outputs.
std::shared_ptr<const ge::CompiledModel> two_by_two() {
  ge::GraphBuilder b;
  const auto a = b.input("a", DataType::f32, "2");
  const auto c = b.input("b", DataType::f32, "2");
  b.output(b.op("Sub", {a, c}, {}, "y"));
  b.output(b.op("Mul", {a, c}, {}, "z"));
  return ge::compile(b.build());
}
}  // namespace

TEST_CASE("run by name: any order, the same as by position") {
  ge::Session s(two_by_two());
  std::vector<float> a{5, 7}, b{1, 2};
  const std::int64_t d[] = {2};
  const TensorView va{a.data(), DataType::f32, d}, vb{b.data(), DataType::f32, d};
  const ge::RunResult named = s.run({{"b", vb}, {"a", va}});
  const ge::RunResult positional = s.run({va, vb});
  CHECK(named["y"].values<float>()[0] == 4.f);
  CHECK(named["y"].values<float>()[1] == 5.f);
  CHECK(positional["y"].values<float>()[1] == 5.f);
  CHECK(named["z"].values<float>()[1] == 14.f);

  // Outputs into the caller's buffers, by name and in any order.
  std::vector<float> y(2), z(2);
  const ge::RunResult bound = s.run({{"a", va}, {"b", vb}}, {{"z", {z.data(), DataType::f32, d}}, {"y", {y.data(), DataType::f32, d}}});
  CHECK(y == std::vector<float>{4, 5});
  CHECK(z == std::vector<float>{5, 14});
  CHECK(bound["z"].data == z.data());
}

TEST_CASE("run by name: unknown, missing and repeated names are bad_tensor naming them") {
  ge::Session s(two_by_two());
  std::vector<float> a{5, 7};
  const std::int64_t d[] = {2};
  const TensorView v{a.data(), DataType::f32, d};
  expect_error([&] { (void)s.run({{"a", v}, {"c", v}}); }, Errc::bad_tensor, "no graph input is named 'c'",
               "(the model's inputs: 'a', 'b')");
  expect_error([&] { (void)s.run({{"a", v}}); }, Errc::bad_tensor, "input 'b' is not given");
  expect_error([&] { (void)s.run({{"a", v}, {"a", v}, {"b", v}}); }, Errc::bad_tensor, "input 'a' is given twice");
  std::vector<float> y(2);
  expect_error([&] { (void)s.run({{"a", v}, {"b", v}}, {{"y", {y.data(), DataType::f32, d}}}); }, Errc::bad_tensor,
               "output 'z' is not given");
  expect_error([&] { (void)s.run({{"a", v}, {"b", v}}, {{"w", {y.data(), DataType::f32, d}}}); }, Errc::bad_tensor,
               "no graph output is named 'w'");
}

TEST_CASE("run by name: a misspelt name gets the nearest one") {
  ge::GraphBuilder b;
  b.output(b.op("Relu", {b.input("pixels", DataType::f32, "2")}, {}, "y"));
  ge::Session s(ge::compile(b.build()));
  std::vector<float> x{-1, 1};
  const std::int64_t d[] = {2};
  expect_error([&] { (void)s.run({{"pixel", {x.data(), DataType::f32, d}}}); }, Errc::bad_tensor,
               "no graph input is named 'pixel'; did you mean 'pixels'?");
}
