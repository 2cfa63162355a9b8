// The math ops (Range, HardSigmoid, Not, Mod, Min, Max, InstanceNormalization, Trilu,
// Einsum) through single-op compile and execution: kernels selected per type, attributes
// reaching the kernels, Range's static and data-dependent paths, fuzzy compiles reused
// across shapes, and the errors of each.
#include <doctest/doctest.h>

#include "support/op_buffers.hpp"

#include "support/expect_error.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/core/error.hpp"

using ge::Attributes;
using ge::CompileFlag;
using ge::DataType;
using ge::EngineChoice;
using ge::Errc;
using ge::OpTensor;
using ge::Shape;
using ge::Tensor;
using ge::TensorView;
using ge::test::expect_error;

namespace {

using namespace ge::test::op;  // Buf, of, zeros, iota, bools, desc, f32, konst, run

void check_near(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK_MESSAGE(got[i] == doctest::Approx(want[i]).epsilon(1e-5), i);
}

}  // namespace

TEST_CASE("Range with constant inputs has a static output; with runtime inputs it is data-dependent") {
  auto s = of<std::int64_t>({}, {2}), l = of<std::int64_t>({}, {11}), d = of<std::int64_t>({}, {3});
  const auto st = ge::compile_op("Range", {konst(s), konst(l), konst(d)}, {});
  CHECK(!st->kernel->data_dependent());
  CHECK(st->outputs[0].shape == Shape{3});
  auto y = zeros<std::int64_t>({3});
  run(*st, {s.view(), l.view(), d.view()}, {y.view()});
  CHECK(y.data == Ints{2, 5, 8});

  const auto rt = ge::compile_op("Range", {f32(""), f32(""), f32("")}, {});
  CHECK(rt->engine == ge::Engine::host);
  CHECK(rt->kernel->data_dependent());
  CHECK(rt->outputs[0].shape.to_string() == "-1");
  auto fs = of<float>({}, {1.f}), fl = of<float>({}, {-1.f}), fd = of<float>({}, {-0.5f});
  auto fy = zeros({8});  // big enough for the worst case asked for
  const auto dims = run(*rt, {fs.view(), fl.view(), fd.view()}, {fy.view()});
  CHECK(dims[0] == Ints{4});
  check_near(std::vector<float>(fy.data.begin(), fy.data.begin() + 4), {1.f, 0.5f, 0.f, -0.5f});

  auto is = of<std::int32_t>({}, {5}), il = of<std::int32_t>({}, {0}), id = of<std::int32_t>({}, {1});
  const auto ri = ge::compile_op("Range", {desc(DataType::i32, ""), desc(DataType::i32, ""), desc(DataType::i32, "")}, {});
  auto iy = zeros<std::int32_t>({2});
  CHECK(run(*ri, {is.view(), il.view(), id.view()}, {iy.view()})[0] == Ints{0});  // empty: limit below start

  auto zero = of<float>({}, {0.f});
  expect_error(
      [&] {
        run(*rt, {fs.view(), fl.view(), zero.view()}, {fy.view()});
      },
      Errc::invalid_argument, "[ge.compile] [Range]", "delta is 0 at run time", "start 1", "limit -1");
  auto z64 = of<std::int64_t>({}, {0});
  expect_error(
      [&] {
        (void)ge::compile_op("Range", {konst(s), konst(l), konst(z64)}, {});
      },
      Errc::invalid_argument, "[Range]", "delta", "is 0");
  expect_error(
      [&] {
        (void)ge::compile_op("Range", {f32("3"), f32(""), f32("")}, {});
      },
      Errc::bad_op_inputs, "input 0 (start)", "scalar");
  auto small = zeros({2});
  expect_error([&] { run(*rt, {fs.view(), fl.view(), fd.view()}, {small.view()}); }, Errc::bad_tensor, "needs");
}

TEST_CASE("HardSigmoid with its attributes; Not") {
  auto x = of<float>({4}, {-3.f, 0.f, 1.f, 3.f});
  auto y = zeros({4});
  run(*ge::compile_op("HardSigmoid", {f32("-1")}, {}, {{"alpha", 0.25}, {"beta", 0.25}}, EngineChoice::system,
                      CompileFlag::fuzzy),
      {x.view()}, {y.view()});
  check_near(y.data, {0.f, 0.25f, 0.5f, 1.f});
  run(*ge::compile_op("HardSigmoid", {f32("4")}, {}), {x.view()}, {y.view()});
  check_near(y.data, {0.f, 0.5f, 0.7f, 1.f});
  Buf<std::uint8_t> b{{1, 0, 0}, {3}, DataType::boolean}, nb{{9, 9, 9}, {3}, DataType::boolean};
  run(*ge::compile_op("Not", {desc(DataType::boolean, "3")}, {}), {b.view()}, {nb.view()});
  CHECK(nb.data == std::vector<std::uint8_t>{0, 1, 1});
  expect_error([&] { (void)ge::compile_op("HardSigmoid", {desc(DataType::f64, "3")}, {}); }, Errc::no_kernel,
               "HardSigmoid");
}

TEST_CASE("Mod: integer and fmod kernels; fmod=0 on f32 refused at compile time") {
  auto a = of<std::int32_t>({2, 2}, {-7, 7, -7, 7}), b = of<std::int32_t>({2}, {3, -3});
  auto y = zeros<std::int32_t>({2, 2});
  const OpTensor i32 = desc(DataType::i32, "2,2"), i32b = desc(DataType::i32, "2");
  run(*ge::compile_op("Mod", {i32, i32b}, {}), {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<std::int32_t>{2, -2, 2, -2});
  run(*ge::compile_op("Mod", {i32, i32b}, {}, {{"fmod", std::int64_t{1}}}), {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<std::int32_t>{-1, 1, -1, 1});
  auto fa = of<float>({3}, {5.f, -5.f, 7.5f}), fb = of<float>({}, {2.f});
  auto fy = zeros({3});
  run(*ge::compile_op("Mod", {f32("3"), f32("")}, {}, {{"fmod", std::int64_t{1}}}), {fa.view(), fb.view()}, {fy.view()});
  check_near(fy.data, {1.f, -1.f, 1.5f});
  expect_error([&] { (void)ge::compile_op("Mod", {f32("3"), f32("")}, {}); }, Errc::bad_attribute, "fmod=1");
  auto zero = of<std::int32_t>({2}, {3, 0});
  expect_error(
      [&] {
        run(*ge::compile_op("Mod", {i32, i32b}, {}), {a.view(), zero.view()}, {y.view()});
      },
      Errc::invalid_argument, "by zero");
}

TEST_CASE("Min and Max: one, two and three inputs, broadcast, i64 too") {
  auto a = of<float>({2, 2}, {1.f, 8.f, -3.f, 4.f}), b = of<float>({2}, {2.f, 5.f}), c = of<float>({}, {0.f});
  auto y = zeros({2, 2});
  run(*ge::compile_op("Max", {f32("2,2"), f32("2"), f32("")}, {}), {a.view(), b.view(), c.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{2.f, 8.f, 2.f, 5.f});
  run(*ge::compile_op("Min", {f32("2,2"), f32("2")}, {}), {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{1.f, 5.f, -3.f, 4.f});
  run(*ge::compile_op("Min", {f32("2,2")}, {}), {a.view()}, {y.view()});
  CHECK(y.data == a.data);
  auto ia = of<std::int64_t>({3}, {4, -9, 2}), ib = of<std::int64_t>({3}, {3, 1, 7});
  auto iy = zeros<std::int64_t>({3});
  run(*ge::compile_op("Max", {desc(DataType::i64, "-1"), desc(DataType::i64, "-1")}, {}, {}, EngineChoice::system,
                      CompileFlag::fuzzy),
      {ia.view(), ib.view()}, {iy.view()});
  CHECK(iy.data == Ints{4, 1, 7});
  expect_error(
      [&] {
        (void)ge::compile_op("Max", {f32("2"), desc(DataType::i64, "2")}, {});
      },
      Errc::type_mismatch, "input 1");
  // f16 Min computes through f32 (half.cpp); f16 mixed with f32 is refused by the schema.
  expect_error([&] { (void)ge::compile_op("Min", {desc(DataType::f16, "2"), f32("2")}, {}); }, Errc::type_mismatch,
               "input 1");
}

TEST_CASE("InstanceNormalization with epsilon, one kernel for every batch of a ranged input") {
  const auto op = ge::compile_op("InstanceNormalization", {f32("1~4,2,2"), f32("2"), f32("2")}, {}, {{"epsilon", 0.0}});
  auto s = of<float>({2}, {1.f, 2.f}), bias = of<float>({2}, {0.f, 1.f});
  for (const std::int64_t n : {1, 3}) {
    auto x = zeros({n, 2, 2}), y = zeros({n, 2, 2});
    for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i % 2 == 0 ? -1 : 1) * 3.f;
    run(*op, {x.view(), s.view(), bias.view()}, {y.view()});
    for (std::int64_t k = 0; k < n; ++k)
      check_near(std::vector<float>(y.data.begin() + k * 4, y.data.begin() + k * 4 + 4), {-1.f, 1.f, -1.f, 3.f});
  }
  expect_error(
      [&] {
        (void)ge::compile_op("InstanceNormalization", {f32("2,2"), f32("2"), f32("2")}, {});
      },
      Errc::bad_op_inputs, "rank >= 3");
}

TEST_CASE("Trilu: upper and lower, k constant or at run time, bool and i64") {
  auto x = of<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto y = zeros({3, 3});
  run(*ge::compile_op("Trilu", {f32("3,3")}, {}), {x.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{1, 2, 3, 0, 5, 6, 0, 0, 9});
  auto k = of<std::int64_t>({}, {-1});
  const auto lower = ge::compile_op("Trilu", {f32("-1,-1"), desc(DataType::i64, "")}, {}, {{"upper", std::int64_t{0}}});
  run(*lower, {x.view(), k.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{0, 0, 0, 4, 0, 0, 7, 8, 0});
  auto k1 = of<std::int64_t>({}, {1});
  run(*lower, {x.view(), k1.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{1, 2, 0, 4, 5, 6, 7, 8, 9});
  Buf<std::uint8_t> b{{1, 1, 1, 1}, {2, 2}, DataType::boolean}, by{{0, 0, 0, 0}, {2, 2}, DataType::boolean};
  run(*ge::compile_op("Trilu", {desc(DataType::boolean, "2,2"), konst(k1)}, {}), {b.view(), k1.view()}, {by.view()});
  CHECK(by.data == std::vector<std::uint8_t>{0, 1, 0, 0});
  auto ix = of<std::int64_t>({1, 2, 2}, {5, 6, 7, 8});
  auto iy = zeros<std::int64_t>({1, 2, 2});
  run(*ge::compile_op("Trilu", {desc(DataType::i64, "1,2,2")}, {}, {{"upper", std::int64_t{0}}}), {ix.view()}, {iy.view()});
  CHECK(iy.data == Ints{5, 0, 7, 8});
  expect_error([&] { (void)ge::compile_op("Trilu", {f32("4")}, {}); }, Errc::bad_op_inputs, "rank >= 2");
}

TEST_CASE("Einsum: attention forms, an ellipsis per shape in a fuzzy compile, bad equations") {
  const auto op = ge::compile_op("Einsum", {f32("-1,-1,-1"), f32("-1,-1,-1")}, {}, {{"equation", "bij,bjk->bik"}});
  auto a = of<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6}), b = of<float>({1, 3, 2}, {1, 0, 0, 1, 1, 1});
  auto y = zeros({1, 2, 2});
  run(*op, {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{4, 5, 10, 11});

  const auto ell = ge::compile_op("Einsum", {f32("-2")}, {}, {{"equation", "...ij->...ji"}});
  auto m = of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto mt = zeros({3, 2});
  run(*ell, {m.view()}, {mt.view()});
  CHECK(mt.data == std::vector<float>{1, 4, 2, 5, 3, 6});
  auto t3 = of<float>({2, 1, 2}, {1, 2, 3, 4});
  auto t3t = zeros({2, 2, 1});
  run(*ell, {t3.view()}, {t3t.view()});
  CHECK(t3t.data == std::vector<float>{1, 2, 3, 4});

  auto v = of<float>({3}, {1, 2, 3});
  auto outer = zeros({3, 3});
  run(*ge::compile_op("Einsum", {f32("3"), f32("3")}, {}, {{"equation", "i,j->ij"}}), {v.view(), v.view()},
      {outer.view()});
  CHECK(outer.data == std::vector<float>{1, 2, 3, 2, 4, 6, 3, 6, 9});

  expect_error(
      [&] {
        (void)ge::compile_op("Einsum", {f32("2,3")}, {}, {{"equation", "ij->i->j"}});
      },
      Errc::bad_attribute, "equation 'ij->i->j'", "does not parse");
  expect_error(
      [&] {
        (void)ge::compile_op("Einsum", {f32("2,3")}, {}, {{"equation", "ijk->i"}});
      },
      Errc::bad_op_inputs, "equation 'ijk->i'");
  expect_error(
      [&] {
        (void)ge::compile_op("Einsum", {desc(DataType::i32, "2,3")}, {}, {{"equation", "ij->i"}});
      },
      Errc::no_kernel, "Einsum");
  // A fuzzy kernel meets a rank its equation does not fit at run time.
  auto r1 = of<float>({3}, {1, 2, 3});
  auto r1y = zeros({3});
  expect_error([&] { run(*ell, {r1.view()}, {r1y.view()}); }, Errc::bad_op_inputs, "equation '...ij->...ji'");
}
