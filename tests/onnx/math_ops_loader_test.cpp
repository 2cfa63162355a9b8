// The math ops (Range, HardSigmoid, Not, Mod, Min, Max, InstanceNormalization, Trilu,
// Einsum) in ONNX models written here with ONNX's protobuf classes: loaded, compiled and
// run through a session and compared with values worked out by hand; and the models the
// importer must refuse, each with a message naming the node or the equation.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/onnx_model.hpp"

namespace {

using Ints = std::vector<std::int64_t>;
constexpr int kFloat = ::onnx::TensorProto_DataType_FLOAT;
constexpr int kInt64 = ::onnx::TensorProto_DataType_INT64;
constexpr int kBool = ::onnx::TensorProto_DataType_BOOL;

using ge::test::expect_error;
using ge::test::Model;
using ge::test::set_int;
using ge::test::set_float;
using ge::test::set_string;



// Compiles and runs `g` on the inputs; each output as doubles with its dims.
struct Out {
  Ints dims;
  std::vector<double> v;
};
std::vector<Out> run(const ge::Graph& g, const std::vector<ge::TensorView>& in) {
  auto model = ge::compile(g);
  ge::Session s(model, {.threads = 1});
  const auto r = s.run(in);
  std::vector<Out> out;
  for (const auto& o : r.outputs) {
    Out x{o.dims, {}};
    switch (o.dtype) {
      case ge::DataType::f32:
        for (const float f : o.values<float>()) x.v.push_back(f);
        break;
      case ge::DataType::i64:
        for (const std::int64_t i : o.values<std::int64_t>()) x.v.push_back(static_cast<double>(i));
        break;
      default:
        for (const std::uint8_t b : o.values<std::uint8_t>()) x.v.push_back(b);
    }
    out.push_back(std::move(x));
  }
  return out;
}

void check_near(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK_MESSAGE(got[i] == doctest::Approx(want[i]).epsilon(1e-5), i);
}

}  // namespace

TEST_CASE("onnx: HardSigmoid, Min, Max, Mod, Trilu and Einsum on one input") {
  Model m(17);
  m.input("x", kFloat, {2, 3});
  m.f32("c", {3}, {0.5f, -1.f, 2.f});
  set_float(m.node("HardSigmoid", {"x"}, {"hs"}, "hs"), "alpha", 0.5f);
  m.node("Min", {"x", "c"}, {"mn"}, "min");
  m.node("Max", {"x", "hs", "c"}, {"mx"}, "max");
  set_int(m.node("Mod", {"x", "c"}, {"md"}, "mod"), "fmod", 1);
  set_int(m.node("Trilu", {"x"}, {"lo"}, "tril"), "upper", 0);
  set_string(m.node("Einsum", {"x", "x"}, {"gram"}, "gram"), "equation", "ij,kj->ik");
  for (const char* o : {"hs", "mn", "mx", "md", "lo", "gram"}) m.output(o);
  const ge::Graph g = m.load();
  CHECK(g.value(g.outputs()[5]).desc.shape == ge::Shape{2, 2});
  std::vector<float> x{-2.f, 0.f, 3.f, 1.f, -0.5f, 5.f};
  const Ints dims{2, 3};
  const auto out = run(g, {ge::TensorView{x.data(), ge::DataType::f32, dims}});
  REQUIRE(out.size() == 6);
  check_near(out[0].v, {0.f, 0.5f, 1.f, 1.f, 0.25f, 1.f});
  check_near(out[1].v, {-2.f, -1.f, 2.f, 0.5f, -1.f, 2.f});
  check_near(out[2].v, {0.5f, 0.5f, 3.f, 1.f, 0.25f, 5.f});
  check_near(out[3].v, {-0.f, 0.f, 1.f, 0.f, -0.5f, 1.f});
  check_near(out[4].v, {-2.f, 0.f, 0.f, 1.f, -0.5f, 0.f});
  check_near(out[5].v, {13.f, 13.f, 13.f, 26.25f});
}

TEST_CASE("onnx: InstanceNormalization and Not") {
  Model m(17);
  m.input("x", kFloat, {1, 2, 2, 2});
  m.input("b", kBool, {3});
  m.f32("scale", {2}, {1.f, 0.5f});
  m.f32("bias", {2}, {0.f, 10.f});
  set_float(m.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "inorm"), "epsilon", 0.f);
  m.node("Not", {"b"}, {"nb"}, "not");
  m.output("y");
  m.output("nb");
  const ge::Graph g = m.load();
  std::vector<float> x{1.f, 1.f, 3.f, 3.f, 0.f, 0.f, 0.f, 4.f};
  std::vector<std::uint8_t> b{1, 0, 1};
  const Ints xd{1, 2, 2, 2}, bd{3};
  const auto out =
      run(g, {ge::TensorView{x.data(), ge::DataType::f32, xd}, ge::TensorView{b.data(), ge::DataType::boolean, bd}});
  // Plane 0: mean 2, var 1; plane 1: mean 1, var 3.
  const double s3 = std::sqrt(3.0);
  check_near(out[0].v, {-1, -1, 1, 1, 10 - 0.5 / s3, 10 - 0.5 / s3, 10 - 0.5 / s3, 10 + 1.5 / s3});
  CHECK(out[1].v == std::vector<double>{0, 1, 0});
}

TEST_CASE("onnx: Range from initializers has a static shape; from graph inputs it is sized per run") {
  Model m(17);
  m.input("start", kFloat, {});
  m.input("limit", kFloat, {});
  m.i64("s", {}, {3});
  m.i64("l", {}, {-3});
  m.i64("d", {}, {-2});
  m.f32("delta", {}, {0.75f});
  m.node("Range", {"s", "l", "d"}, {"ints"}, "range_const");
  m.node("Range", {"start", "limit", "delta"}, {"floats"}, "range_dyn");
  m.output("ints");
  m.output("floats");
  const ge::Graph g = m.load();
  CHECK(g.value(g.outputs()[0]).desc.shape == ge::Shape{3});
  CHECK(g.value(g.outputs()[1]).desc.shape.to_string() == "-1");
  float start = 1.f, limit = 3.f;
  const Ints scalar{};
  const auto out =
      run(g, {ge::TensorView{&start, ge::DataType::f32, scalar}, ge::TensorView{&limit, ge::DataType::f32, scalar}});
  CHECK(out[0].v == std::vector<double>{3, 1, -1});
  CHECK(out[1].dims == Ints{3});
  check_near(out[1].v, {1.0, 1.75, 2.5});
}

TEST_CASE("onnx: the math ops' refusals name the node or the equation") {
  {
    Model m(17);
    m.input("x", kFloat, {3});
    m.node("Mod", {"x", "x"}, {"y"}, "float_mod");  // fmod defaults to 0
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_attribute, "float_mod", "fmod=1");
  }
  {
    Model m(17);
    m.input("x", kFloat, {3});
    m.node("Trilu", {"x"}, {"y"}, "tri1d");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_op_inputs, "tri1d", "rank >= 2");
  }
  {
    Model m(17);
    m.input("x", kFloat, {2, 3});
    set_string(m.node("Einsum", {"x"}, {"y"}, "ein"), "equation", "ij->k");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_attribute, "ein", "equation 'ij->k'");
  }
  {
    Model m(17);
    m.i64("s", {}, {0});
    m.i64("l", {}, {4});
    m.i64("d", {}, {0});
    m.node("Range", {"s", "l", "d"}, {"y"}, "range0");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::invalid_argument, "range0", "delta");
  }
  {
    Model m(17);
    m.input("start", kInt64, {});
    m.i64("l", {}, {4});
    m.i64("d", {}, {0});
    m.node("Range", {"start", "l", "d"}, {"y"}, "range_rt");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::invalid_argument, "range_rt", "delta");
  }
}

TEST_CASE("onnx: a runtime Range with delta 0 fails the run with a clear error") {
  Model m(17);
  m.input("start", kFloat, {});
  m.input("delta", kFloat, {});
  m.f32("limit", {}, {4.f});
  m.node("Range", {"start", "limit", "delta"}, {"y"}, "my_range");
  m.output("y");
  const ge::Graph g = m.load();
  auto model = ge::compile(g);
  ge::Session s(model, {.threads = 1});
  float start = 0.f, delta = 0.f;
  const Ints scalar{};
  expect_error(
      [&] {
        (void)s.run(
            {ge::TensorView{&start, ge::DataType::f32, scalar}, ge::TensorView{&delta, ge::DataType::f32, scalar}});
      },
      ge::Errc::invalid_argument, "[Range]", "delta is 0 at run time");
}
