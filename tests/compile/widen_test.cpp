// Tests of ge::widen_half_floats (ge/compile/passes.hpp) and of compiling f16/bf16
// graphs: half floats are storage at the graph's edges, the ops between compute in f32.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"

using ge::DataType;

namespace {

// Round to nearest even; enough for the values here (normal, finite).
std::uint16_t to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return static_cast<std::uint16_t>(sign);
  std::uint32_t h = sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  const std::uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(h);
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const int exp = (h >> 10) & 0x1f;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) return std::bit_cast<float>(sign) + (mant ? std::ldexp(static_cast<float>(mant), -24) : 0.f);
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(exp - 15 + 127) << 23) | (mant << 13));
}

std::uint16_t to_bhalf(float f) { return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16); }
float from_bhalf(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

ge::Tensor half_tensor(DataType t, std::vector<std::int64_t> dims, const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t h = t == DataType::f16 ? to_half(values[i]) : to_bhalf(values[i]);
    std::memcpy(bytes.data() + 2 * i, &h, 2);
  }
  return ge::Tensor(t, std::move(dims), std::move(bytes));
}

std::vector<float> ramp(std::size_t n, float start, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// y = Relu(x @ w + b) in half type t, and its f32 twin.
ge::Graph mlp(DataType t) {
  ge::GraphBuilder b;
  const auto x = b.input("x", t, "2,3");
  const auto w = b.constant("w", half_tensor(t, {3, 4}, ramp(12, -1.f, 0.25f)));
  const auto bias = b.constant("b", half_tensor(t, {4}, {0.5f, -0.5f, 0.25f, 1.f}));
  b.output((x.matmul(w) + bias).relu("y"));
  return b.build();
}

std::size_t count_op(const ge::Graph& g, const std::string& op) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes().begin(), g.nodes().end(), [&](const ge::Node& n) { return n.op == op; }));
}

}  // namespace

TEST_CASE("widen_half_floats: inputs and outputs keep their types, one Cast each, f32 between") {
  for (const DataType t : {DataType::f16, DataType::bf16}) {
    CAPTURE(ge::to_string(t));
    const ge::Graph g = mlp(t);
    ge::PassStats st;
    const ge::Graph w = ge::widen_half_floats(g, &st);
    CHECK(st.pass == "widen_half_floats");
    CHECK(st.nodes_added == 2);
    CHECK(st.constants_added == 2);
    CHECK(count_op(w, "Cast") == 2);
    REQUIRE(w.inputs().size() == 1);
    CHECK(w.inputs()[0].dtype == t);
    REQUIRE(w.outputs().size() == 1);
    const ge::ValueInfo& y = w.value(w.outputs()[0]);
    CHECK(y.name == "y");
    CHECK(y.desc.dtype == t);
    CHECK(w.value(*w.find_value("x.f32")).desc.dtype == DataType::f32);
    CHECK(w.value(*w.find_value("y.f32")).desc.dtype == DataType::f32);
    for (const ge::Constant& c : w.constants()) CHECK(c.tensor.dtype() == DataType::f32);
    for (const ge::Node& n : w.nodes())
      if (n.op != "Cast")
        for (const ge::ValueId v : n.outputs) CHECK(w.value(v).desc.dtype == DataType::f32);
  }
}

TEST_CASE("compile: an f16 and a bf16 graph run, with a notice, and agree with f32 arithmetic") {
  const std::vector<float> xs = {1.f, -2.f, 0.5f, 3.f, 0.25f, -1.f};
  const std::vector<float> ws = ramp(12, -1.f, 0.25f);
  const std::vector<float> bs = {0.5f, -0.5f, 0.25f, 1.f};
  for (const DataType t : {DataType::f16, DataType::bf16}) {
    CAPTURE(ge::to_string(t));
    const auto model = ge::compile(mlp(t));
    CHECK(std::any_of(model->config().warnings.begin(), model->config().warnings.end(),
                      [](const std::string& w) { return w.find("compute it in f32") != std::string::npos; }));
    CHECK(model->inputs().at(0).dtype == t);
    CHECK(model->outputs().at(0).dtype == t);
    const auto round = [&](float f) { return t == DataType::f16 ? from_half(to_half(f)) : from_bhalf(to_bhalf(f)); };
    std::vector<std::uint16_t> x(6);
    for (std::size_t i = 0; i < 6; ++i) x[i] = t == DataType::f16 ? to_half(xs[i]) : to_bhalf(xs[i]);
    ge::Session s(model);
    const std::int64_t dims[] = {2, 3};
    const auto r = s.run({ge::TensorView{x.data(), t, dims}});
    REQUIRE(r.outputs.size() == 1);
    CHECK(r.outputs[0].dtype == t);
    const auto* y = reinterpret_cast<const std::uint16_t*>(r.outputs[0].data);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float acc = round(bs[j]);
        for (int k = 0; k < 3; ++k) acc += round(xs[i * 3 + k]) * round(ws[k * 4 + j]);
        const float expect = std::max(acc, 0.f);
        const float got = t == DataType::f16 ? from_half(y[i * 4 + j]) : from_bhalf(y[i * 4 + j]);
        CAPTURE(i);
        CAPTURE(j);
        CHECK(got == doctest::Approx(expect).epsilon(t == DataType::f16 ? 1e-3 : 1e-2));
      }
  }
}

TEST_CASE("widen_half_floats: graphs whose half floats only pass through Casts stay as they are") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "4");
  const auto h = x.cast(DataType::f16, "h");
  b.output(h);
  b.output(x.relu("r").cast(DataType::bf16, "r16").cast(DataType::f32, "r32"));
  const ge::Graph g = b.build();
  ge::PassStats st;
  const ge::Graph w = ge::widen_half_floats(g, &st);
  CHECK(st.nodes_added == 0);
  CHECK(st.constants_added == 0);
  CHECK(w.nodes().size() == g.nodes().size());
  const auto model = ge::compile(g);
  CHECK(model->config().warnings.empty());
}

TEST_CASE("widen_half_floats: a Cast that makes a half output stays; a passed-through input keeps its type") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f16, "3");
  const auto s = (x + x).cast(DataType::f32, "s32");
  b.output(s.sigmoid("sig").cast(DataType::f16, "out16"));
  b.output(x);
  const ge::Graph w = ge::widen_half_floats(b.build());
  // x -> Cast(f32); Add; Cast(to f32 now); Sigmoid; Cast to f16 (kept): no Cast added at the outputs.
  CHECK(count_op(w, "Cast") == 3);
  CHECK(w.value(w.outputs()[0]).name == "out16");
  CHECK(w.value(w.outputs()[0]).desc.dtype == DataType::f16);
  CHECK(w.value(w.outputs()[1]).name == "x");
  CHECK(w.value(w.outputs()[1]).desc.dtype == DataType::f16);
  const auto model = ge::compile(w);
  ge::Session sess(model);
  std::vector<std::uint16_t> xin = {to_half(0.f), to_half(1.f), to_half(-2.f)};
  const std::int64_t dims[] = {3};
  const auto r = sess.run({ge::TensorView{xin.data(), DataType::f16, dims}});
  const auto* y = reinterpret_cast<const std::uint16_t*>(r.outputs[0].data);
  CHECK(from_half(y[0]) == doctest::Approx(0.5).epsilon(1e-3));
  CHECK(from_half(y[1]) == doctest::Approx(1.0 / (1.0 + std::exp(-2.0))).epsilon(1e-3));
  CHECK(from_half(y[2]) == doctest::Approx(1.0 / (1.0 + std::exp(4.0))).epsilon(1e-3));
  const auto* xo = reinterpret_cast<const std::uint16_t*>(r.outputs[1].data);
  CHECK(std::vector<std::uint16_t>(xo, xo + 3) == xin);
}

TEST_CASE("widen_half_floats: an invalid graph is refused with validate's error") {
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f16, ge::Shape::parse("2"));
  const auto y = g.declare_value("y", ge::TensorDesc{DataType::f16, ge::Shape::parse("2")});
  g.add_node("r", "Relu", {x}, {y});
  // no outputs
  ge::test::expect_error([&] { (void)ge::widen_half_floats(g); }, ge::Errc::bad_graph, "output");
}
