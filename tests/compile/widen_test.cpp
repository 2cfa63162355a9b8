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
#include "ge/compile/kernel.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/ops/registry.hpp"
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

// Single ops (compile_op) in f16/bf16 compute in f32 as graphs do: the f32 kernel between
// casts, results rounded back to the output's type.
TEST_CASE("compile_op: f16 and bf16 Add run in f32 and round back to nearest even") {
  const std::vector<float> a = {1.f, -2.5f, 1000.f, 0.1f, 65504.f, 3.f};
  const std::vector<float> b = {0.0009765625f, 0.75f, 0.3f, 0.2f, 16.f, -3.f};
  for (const DataType t : {DataType::f16, DataType::bf16}) {
    CAPTURE(ge::to_string(t));
    const auto op = ge::compile_op("Add", {ge::OpTensor{t, ge::Shape{6}}, ge::OpTensor{t, ge::Shape{6}}},
                                   {ge::OpTensor{t, ge::Shape{6}}});
    CHECK(op->outputs.at(0).dtype == t);
    CHECK(std::string(op->kernel->name()).find("widened(") == 0);
    std::vector<std::uint16_t> x(6), y(6), z(6, 0);
    for (std::size_t i = 0; i < 6; ++i) {
      x[i] = t == DataType::f16 ? to_half(a[i]) : to_bhalf(a[i]);
      y[i] = t == DataType::f16 ? to_half(b[i]) : to_bhalf(b[i]);
    }
    const std::int64_t dims[] = {6};
    ge::execute_op(*op, std::vector<ge::TensorView>{{x.data(), t, dims}, {y.data(), t, dims}},
                   std::vector<ge::TensorView>{{z.data(), t, dims}});
    for (std::size_t i = 0; i < 6; ++i) {
      CAPTURE(i);
      if (t == DataType::f16) {
        // Exactly the f32 sum rounded to nearest even (65504 + 16 is a tie: to even, infinity).
        CHECK(z[i] == to_half(from_half(x[i]) + from_half(y[i])));
      } else {
        CHECK(from_bhalf(z[i]) == doctest::Approx(from_bhalf(x[i]) + from_bhalf(y[i])).epsilon(1e-2));
      }
    }
  }
}

TEST_CASE("compile_op: an f16 MatMul with constant weights and an f16 Conv agree with f32 arithmetic") {
  const DataType t = DataType::f16;
  const std::vector<float> ws = ramp(12, -1.f, 0.25f);
  const ge::Tensor w = half_tensor(t, {3, 4}, ws);
  const auto mm = ge::compile_op("MatMul", {ge::OpTensor{t, ge::Shape{2, 3}}, ge::OpTensor::constant_of(w)},
                                 {ge::OpTensor{t, ge::Shape{2, 4}}});
  const std::vector<float> xs = {1.f, -2.f, 0.5f, 3.f, 0.25f, -1.f};
  std::vector<std::uint16_t> x(6), y(8, 0);
  for (std::size_t i = 0; i < 6; ++i) x[i] = to_half(xs[i]);
  const std::int64_t xd[] = {2, 3}, wd[] = {3, 4}, yd[] = {2, 4};
  ge::execute_op(*mm,
                 std::vector<ge::TensorView>{{x.data(), t, xd},
                                             {const_cast<std::byte*>(w.bytes().data()), t, wd}},
                 std::vector<ge::TensorView>{{y.data(), t, yd}});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      float acc = 0.f;
      for (int k = 0; k < 3; ++k) acc += xs[static_cast<std::size_t>(i * 3 + k)] * ws[static_cast<std::size_t>(k * 4 + j)];
      CHECK(y[static_cast<std::size_t>(i * 4 + j)] == to_half(acc));
    }
  // Conv 1 -> 1 channel, 2x2 ones over a 3x3 ramp: each output sums four inputs.
  const auto conv = ge::compile_op("Conv", {ge::OpTensor{t, ge::Shape{1, 1, 3, 3}}, ge::OpTensor{t, ge::Shape{1, 1, 2, 2}}},
                                   {ge::OpTensor{t, ge::Shape{1, 1, 2, 2}}});
  std::vector<std::uint16_t> cx(9), cw(4, to_half(1.f)), cy(4, 0);
  for (std::size_t i = 0; i < 9; ++i) cx[i] = to_half(static_cast<float>(i) * 0.5f);
  const std::int64_t cxd[] = {1, 1, 3, 3}, cwd[] = {1, 1, 2, 2}, cyd[] = {1, 1, 2, 2};
  ge::execute_op(*conv, std::vector<ge::TensorView>{{cx.data(), t, cxd}, {cw.data(), t, cwd}},
                 std::vector<ge::TensorView>{{cy.data(), t, cyd}});
  const float expect[4] = {4.f, 6.f, 10.f, 12.f};  // (0+1+3+4)/2, (1+2+4+5)/2, ...
  for (std::size_t i = 0; i < 4; ++i) CHECK(from_half(cy[i]) == expect[i]);
}

TEST_CASE("compile_op: Cast from f16 keeps its own kernel (no widening)") {
  const auto cast = ge::compile_op("Cast", {ge::OpTensor{DataType::f16, ge::Shape{2}}}, {}, {{"to", "f32"}});
  CHECK(std::string(cast->kernel->name()).find("widened(") == std::string::npos);
  const std::vector<std::uint16_t> x = {to_half(1.5f), to_half(-0.25f)};
  std::vector<float> y(2);
  const std::int64_t d[] = {2};
  ge::execute_op(*cast, std::vector<ge::TensorView>{{const_cast<std::uint16_t*>(x.data()), DataType::f16, d}},
                 std::vector<ge::TensorView>{{y.data(), DataType::f32, d}});
  CHECK(y == std::vector<float>{1.5f, -0.25f});
}

TEST_CASE("compile_op: a half op that f32 cannot serve stays no_kernel, saying so") {
  // Two ops of this test's own: one whose kernel never fits f32, one that takes no f32.
  for (const char* name : {"WidenTestNoF32Kernel", "WidenTestNoF32Type"}) {
    if (ge::OpRegistry::global().try_find(name) != nullptr) continue;
    ge::OpSchema s;
    s.name = name;
    s.doc = "a test op";
    s.inputs = {{"X", "T"}};
    s.outputs = {{"Y", "T"}};
    const bool f32 = std::string(name) == "WidenTestNoF32Kernel";
    s.types = {{"T", f32 ? ge::TypeSet{DataType::f16, DataType::f32} : ge::TypeSet{DataType::f16}}};
    s.infer = [](const ge::InferContext& c) { return std::vector<ge::TensorDesc>{c.input(0)}; };
    ge::OpRegistry::global().add(std::move(s));
    ge::KernelRegistry::global().add({.op = name,
                                      .name = "test.never",
                                      .engines = ge::engines(ge::Engine::vector),
                                      .fits = [](const ge::KernelRequest&) { return false; },
                                      .make = [](const ge::KernelRequest&) -> std::shared_ptr<const ge::Kernel> {
                                        return nullptr;
                                      }});
  }
  for (const char* name : {"WidenTestNoF32Kernel", "WidenTestNoF32Type"}) {
    CAPTURE(name);
    ge::test::expect_error([&] { (void)ge::compile_op(name, {ge::OpTensor{DataType::f16, ge::Shape{2}}}, {}); },
                 ge::Errc::no_kernel, "no f32 kernel serves it either");
  }
}

// The widened kernel is the op's f32 kernel on the inputs' exact f32 values: its f16
// results are the f32 op's results on the same values rounded once, bit for bit.
TEST_CASE("compile_op: f16 ops give the f32 op's results rounded to f16, bit for bit") {
  struct Case {
    const char* op;
    std::vector<std::vector<std::int64_t>> inputs;
    ge::Attributes attrs;
  };
  const std::vector<Case> cases = {
      {"Relu", {{2, 5}}, {}},
      {"Sigmoid", {{7}}, {}},
      {"Softmax", {{3, 4}}, {{"axis", std::int64_t{1}}}},
      {"Add", {{2, 3}, {3}}, {}},
      {"MatMul", {{3, 4}, {4, 5}}, {}},
      {"Gemm", {{2, 3}, {4, 3}, {4}}, {{"transB", std::int64_t{1}}}},
      {"ReduceMean", {{2, 3, 4}}, {{"axes", std::vector<std::int64_t>{1}}}},
      {"Transpose", {{2, 3, 4}}, {{"perm", std::vector<std::int64_t>{2, 0, 1}}}},
      {"MaxPool", {{1, 2, 5, 5}}, {{"kernel_shape", std::vector<std::int64_t>{2, 2}}}},
      {"AveragePool",
       {{1, 2, 5, 5}},
       {{"kernel_shape", std::vector<std::int64_t>{3, 3}}, {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}}},
      {"Conv", {{1, 3, 6, 6}, {4, 3, 3, 3}, {4}}, {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}}},
      {"LayerNormalization", {{2, 6}, {6}, {6}}, {{"axis", std::int64_t{1}}}},
  };
  std::uint32_t seed = 1;
  const auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>((seed >> 8) & 0xffff) / 16384.0f - 2.0f;
  };
  for (const Case& c : cases) {
    CAPTURE(c.op);
    std::vector<std::vector<std::uint16_t>> halves;
    std::vector<std::vector<float>> floats;
    std::vector<ge::OpTensor> h_desc, f_desc;
    for (const auto& dims : c.inputs) {
      std::size_t n = 1;
      for (const std::int64_t d : dims) n *= static_cast<std::size_t>(d);
      std::vector<std::uint16_t> h(n);
      std::vector<float> f(n);
      for (std::size_t i = 0; i < n; ++i) {
        h[i] = to_half(next());
        f[i] = from_half(h[i]);
      }
      halves.push_back(std::move(h));
      floats.push_back(std::move(f));
      std::vector<ge::Dim> shape(dims.begin(), dims.end());
      h_desc.push_back({DataType::f16, ge::Shape(shape)});
      f_desc.push_back({DataType::f32, ge::Shape(shape)});
    }
    const auto fop = ge::compile_op(c.op, f_desc, {}, c.attrs);
    const auto hop = ge::compile_op(c.op, h_desc, {}, c.attrs);
    REQUIRE(hop->outputs.size() == fop->outputs.size());
    std::vector<ge::TensorView> fin, hin;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      fin.emplace_back(floats[i].data(), DataType::f32, c.inputs[i]);
      hin.emplace_back(halves[i].data(), DataType::f16, c.inputs[i]);
    }
    const auto dims = fop->output_dims(fin);
    std::vector<std::vector<float>> fout;
    std::vector<std::vector<std::uint16_t>> hout;
    std::vector<ge::TensorView> fv, hv;
    for (std::size_t o = 0; o < dims.size(); ++o) {
      std::size_t n = 1;
      for (const std::int64_t d : dims[o]) n *= static_cast<std::size_t>(d);
      fout.emplace_back(n);
      hout.emplace_back(n);
    }
    for (std::size_t o = 0; o < dims.size(); ++o) {
      fv.emplace_back(fout[o].data(), DataType::f32, dims[o]);
      hv.emplace_back(hout[o].data(), DataType::f16, dims[o]);
    }
    ge::execute_op(*fop, fin, fv);
    ge::execute_op(*hop, hin, hv);
    for (std::size_t o = 0; o < dims.size(); ++o) {
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < fout[o].size(); ++i) wrong += hout[o][i] != to_half(fout[o][i]);
      CHECK(wrong == 0);
    }
  }
}
