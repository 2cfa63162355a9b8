// Tests of ge/compile/op_compile.hpp: the rules of single-op compile, kernel selection,
// the kernel cache (hits, misses, eviction, threads), and execution checks.
#include <doctest/doctest.h>

#include "kernels/cpu/common.hpp"

#include "support/expect_error.hpp"

#include <atomic>
#include <optional>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/core/error.hpp"

using ge::CompileFlag;
using ge::DataType;
using ge::EngineChoice;
using ge::Errc;
using ge::OpTensor;
using ge::Shape;
using ge::TensorView;

namespace {
OpTensor f32(const char* shape) { return OpTensor{DataType::f32, Shape::parse(shape)}; }

using ge::test::expect_error;

struct Buf {
  std::vector<float> data;
  std::vector<std::int64_t> dims;
  TensorView view() { return TensorView{data.data(), DataType::f32, dims}; }
};
Buf buf(std::vector<std::int64_t> dims, float start = 0.f, float step = 1.f) {
  Buf b;
  b.dims = std::move(dims);
  std::int64_t n = 1;
  for (auto d : b.dims) n *= d;
  for (std::int64_t i = 0; i < n; ++i) b.data.push_back(start + step * static_cast<float>(i));
  return b;
}
}  // namespace

TEST_CASE("compile and execute Add with a dynamic batch") {
  auto op = ge::compile_op("Add", {f32("-1,4"), f32("4")}, {f32("-1,4")});
  CHECK(op->kernel != nullptr);
  CHECK(op->engine == ge::Engine::vector);
  auto a = buf({3, 4}), b = buf({4}, 10.f), y = buf({3, 4});
  const auto dims = ge::execute_op(*op, std::vector{a.view(), b.view()}, std::vector{y.view()});
  CHECK(dims[0] == std::vector<std::int64_t>{3, 4});
  for (int i = 0; i < 12; ++i) CHECK(y.data[static_cast<std::size_t>(i)] == doctest::Approx(i + 10.0 + i % 4));
}

TEST_CASE("an identical request is a cache hit; another shape is a miss; fuzzy generalises") {
  ge::OpCompiler c(100);
  ge::OpCompileRequest r{.op_type = "Relu", .inputs = {f32("2,8")}, .outputs = {f32("2,8")}};
  const auto first = c.compile(r);
  const auto again = c.compile(r);
  CHECK(first == again);
  CHECK(c.stats().hits == 1);
  CHECK(c.stats().misses == 1);
  r.inputs = {f32("3,8")};
  r.outputs = {f32("3,8")};
  CHECK(c.compile(r) != first);
  CHECK(c.stats().misses == 2);
  // Fuzzy: 5x8 and 6x8 share the kernel compiled for -1,-1.
  r.flag = CompileFlag::fuzzy;
  r.inputs = {f32("5,8")};
  r.outputs = {f32("5,8")};
  const auto fuzzy = c.compile(r);
  r.inputs = {f32("6,8")};
  r.outputs = {f32("6,8")};
  CHECK(c.compile(r) == fuzzy);
  CHECK(fuzzy->inputs[0].shape.to_string() == "-1,-1");
  auto x = buf({7, 8}, -3.f), y = buf({7, 8});
  ge::execute_op(*fuzzy, std::vector{x.view()}, std::vector{y.view()});
  CHECK(y.data[0] == 0.f);
  CHECK(y.data[55] == doctest::Approx(52.0));
  // Attributes are part of the key.
  ge::OpCompileRequest lr{.op_type = "LeakyRelu", .inputs = {f32("4")}, .outputs = {f32("4")}, .attrs = {{"alpha", 0.1}}};
  const auto l1 = c.compile(lr);
  lr.attrs = {{"alpha", 0.2}};
  CHECK(c.compile(lr) != l1);
}

TEST_CASE("the cache evicts the least recently used kernel") {
  ge::OpCompiler c(2);
  const auto req = [](const char* s) {
    return ge::OpCompileRequest{.op_type = "Relu", .inputs = {f32(s)}, .outputs = {f32(s)}};
  };
  (void)c.compile(req("1"));
  (void)c.compile(req("2"));
  (void)c.compile(req("1"));  // hit: "2" is now the oldest
  (void)c.compile(req("3"));  // evicts "2"
  CHECK(c.stats().evictions == 1);
  (void)c.compile(req("1"));
  CHECK(c.stats().hits == 2);
  (void)c.compile(req("2"));
  CHECK(c.stats().misses == 4);
  CHECK(c.stats().size == 2);
  CHECK(ge::OpCompiler::global().stats().capacity == 20000);
}

TEST_CASE("concurrent compiles from several threads share the cache") {
  ge::OpCompiler c(64);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string s = std::to_string(1 + (i + t) % 10) + ",3";
        const auto op = c.compile({.op_type = "Sigmoid", .inputs = {f32(s.c_str())}, .outputs = {f32(s.c_str())}});
        if (op->inputs[0].shape.to_string() != s) bad.fetch_add(1);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(bad.load() == 0);
  const auto s = c.stats();
  CHECK(s.hits + s.misses == 200);
  CHECK(s.size == 10);
}

TEST_CASE("kernel selection: a 1x1 conv is a matrix product") {
  const auto w1 = ge::Tensor::random(DataType::f32, {8, 6, 1, 1}, 1);
  const auto w3 = ge::Tensor::random(DataType::f32, {8, 6, 3, 3}, 2);
  const auto pw = ge::compile_op("Conv", {f32("1,6,5,5"), OpTensor::constant_of(w1)}, {f32("1,8,5,5")});
  // Images of at most 64 pixels take the pixel-major GEMM (the output pixels as rows).
  CHECK(pw->kernel->name() == "cpu.conv2d.pointwise_gemm.pixels");
  const auto g = ge::compile_op("Conv", {f32("1,6,5,5"), OpTensor::constant_of(w3)}, {f32("1,8,5,5")},
                                {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}});
  CHECK(g->kernel->name() == "cpu.conv2d.packed_gemm.pixels");
  const auto big = ge::compile_op("Conv", {f32("1,6,9,9"), OpTensor::constant_of(w1)}, {f32("1,8,9,9")});
  CHECK(big->kernel->name() == "cpu.conv2d.pointwise_gemm");
  // Run the 3x3 one and compare one output element with a direct sum.
  auto x = buf({1, 6, 5, 5}, 0.f, 0.01f), y = buf({1, 8, 5, 5});
  std::vector<std::int64_t> wd{8, 6, 3, 3};
  const TensorView wv{const_cast<std::byte*>(w3.bytes().data()), DataType::f32, wd};
  ge::execute_op(*g, std::vector{x.view(), wv}, std::vector{y.view()});
  const float* w = reinterpret_cast<const float*>(w3.bytes().data());
  double want = 0;  // output channel 2, position (2, 2): every tap inside the image
  for (int c = 0; c < 6; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) want += double(w[((2 * 6 + c) * 3 + i) * 3 + j]) * x.data[std::size_t(c * 25 + (1 + i) * 5 + 1 + j)];
  CHECK(y.data[2 * 25 + 2 * 5 + 2] == doctest::Approx(want).epsilon(1e-4));
  // Few input channels (an image's first conv) run direct where the CPU has AVX2 or AVX-512.
  const auto first = ge::compile_op("Conv", {f32("1,3,9,9"), OpTensor::constant_of(ge::Tensor::random(DataType::f32, {8, 3, 3, 3}, 3))},
                                    {f32("1,8,5,5")}, {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}, {"strides", std::vector<std::int64_t>{2, 2}}});
  CHECK(first->kernel->name() == (ge::cpu::isa() == ge::cpu::Isa::baseline ? "cpu.conv2d.packed_gemm.pixels" : "cpu.conv2d.packed_gemm.direct"));
}

TEST_CASE("ranges and unknown rank: accepted at compile time, checked at run time") {
  const auto op = ge::compile_op("Relu", {f32("1~8,16")}, {f32("1~8,16")});
  auto ok = buf({4, 16}, -8.f), y = buf({4, 16});
  ge::execute_op(*op, std::vector{ok.view()}, std::vector{y.view()});
  auto big = buf({9, 16}), ybig = buf({9, 16});
  expect_error([&] { ge::execute_op(*op, std::vector{big.view()}, std::vector{ybig.view()}); }, Errc::out_of_range,
               "outside the compiled '1~8,16'");
  const auto any = ge::compile_op("Relu", {f32("-2")}, {f32("-2")});
  auto x3 = buf({2, 3, 4}), y3 = buf({2, 3, 4});
  ge::execute_op(*any, std::vector{x3.view()}, std::vector{y3.view()});
  CHECK(y3.data[23] == 23.f);
}

TEST_CASE("an unused optional input is an UNDEFINED description") {
  // Clip(x, min omitted, max = 1).
  const auto op = ge::compile_op("Clip", {f32("4"), OpTensor::undefined(), OpTensor::constant_of(ge::Tensor::scalar(1.0f))},
                                 {f32("4")});
  auto x = buf({4}, -1.f), y = buf({4});
  float one = 1.f;
  const TensorView hi{&one, DataType::f32, {}};
  ge::execute_op(*op, std::vector{x.view(), TensorView{}, hi}, std::vector{y.view()});
  CHECK(y.data == std::vector<float>{-1.f, 0.f, 1.f, 1.f});
  expect_error([] { (void)ge::compile_op("Relu", {OpTensor::undefined()}, {f32("4")}); }, Errc::bad_op_inputs,
               "not optional");
  expect_error(
      [] {
        (void)ge::compile_op("Clip", {f32("4"), OpTensor{DataType::undefined, Shape{2}, ge::Format::undefined}}, {f32("4")});
      },
      Errc::bad_op_inputs, "UNDEFINED and no dims");
}

TEST_CASE("constant data must be the same at execution") {
  const auto w = ge::Tensor::random(DataType::f32, {2, 3, 1, 1}, 9);
  const auto op = ge::compile_op("Conv", {f32("1,3,2,2"), OpTensor::constant_of(w)}, {f32("1,2,2,2")});
  auto x = buf({1, 3, 2, 2}), y = buf({1, 2, 2, 2});
  std::vector<std::int64_t> wd{2, 3, 1, 1};
  std::vector<float> same(reinterpret_cast<const float*>(w.bytes().data()), reinterpret_cast<const float*>(w.bytes().data()) + 6);
  ge::execute_op(*op, std::vector{x.view(), TensorView{same.data(), DataType::f32, wd}}, std::vector{y.view()});
  std::vector<float> other = same;
  other[3] += 1.f;
  expect_error(
      [&] {
        ge::execute_op(*op, std::vector{x.view(), TensorView{other.data(), DataType::f32, wd}}, std::vector{y.view()});
      },
      Errc::const_mismatch, "input 1 is constant");
  expect_error(
      [&] {
        (void)ge::compile_op(
            "Conv",
            {f32("1,3,2,2"), OpTensor{DataType::f32, Shape{2, 3, 1, 1}, ge::Format::nd, ge::Tensor::scalar(1.f)}},
            {f32("1,2,2,2")});
      },
      Errc::bad_op_inputs, "constant with data");
}

TEST_CASE("bad requests are ge::Errors") {
  expect_error([] { (void)ge::compile_op("Rleu", {f32("4")}, {f32("4")}); }, Errc::unknown_op, "Rleu");
  expect_error(
      [] {
        (void)ge::compile_op("Relu", {f32("4")}, {f32("4")}, {}, EngineChoice::system, CompileFlag::exact, "/tmp/k.o");
      },
      Errc::invalid_argument, "reserved");
  expect_error(
      [] {
        (void)ge::OpCompiler::global().compile(
            {.op_type = "Relu", .inputs = {f32("4")}, .outputs = {f32("4")}, .num_inputs = 2});
      },
      Errc::bad_op_inputs, "numInputs is 2 but 1");
  expect_error(
      [] {
        (void)ge::OpCompiler::global().compile(
            {.op_type = "Relu", .inputs = {f32("4")}, .outputs = {f32("4")}, .num_outputs = 0});
      },
      Errc::bad_op_inputs, "numOutputs is 0 but 1");
  expect_error([] { (void)ge::compile_op("Add", {f32("4")}, {f32("4")}); }, Errc::bad_op_inputs, "1 inputs given");
  expect_error(
      [] {
        (void)ge::compile_op("Conv", {f32("1,3,8,8"), f32("4,3,3,3")}, {f32("1,4,6,6")}, {}, EngineChoice::host);
      },
      Errc::engine_unsupported, "host engine cannot run it");
  expect_error(
      [] {
        (void)ge::compile_op("Relu", {f32("4")}, {OpTensor{DataType::i64, Shape{4}}});
      },
      Errc::type_mismatch, "output 0");
  expect_error([] { (void)ge::compile_op("Relu", {f32("4")}, {f32("5")}); }, Errc::incompatible_shapes, "output 0");
}

TEST_CASE("execution checks the tensors") {
  const auto op = ge::compile_op("Add", {f32("2,2"), f32("2,2")}, {f32("2,2")});
  auto a = buf({2, 2}), b = buf({2, 2}), y = buf({2, 2}), wrong = buf({3, 2});
  expect_error([&] { ge::execute_op(*op, std::vector{a.view()}, std::vector{y.view()}); }, Errc::bad_tensor, "[Add] 1 inputs given; it takes 2");
  expect_error(
      [&] {
        ge::execute_op(*op, std::vector{a.view(), b.view()}, std::vector{wrong.view()});
      },
      Errc::bad_tensor, "must be f32[2,2]");
  TensorView null_a = a.view();
  null_a.data = nullptr;
  expect_error([&] { ge::execute_op(*op, std::vector{null_a, b.view()}, std::vector{y.view()}); }, Errc::bad_tensor, "null");
  TensorView i64 = a.view();
  i64.dtype = DataType::i64;
  expect_error([&] { ge::execute_op(*op, std::vector{i64, b.view()}, std::vector{y.view()}); }, Errc::bad_tensor, "is i64");
  expect_error(
      [&] {
        ge::execute_op(*op, std::vector{wrong.view(), b.view()}, std::vector{y.view()});
      },
      Errc::out_of_range, "'3,2'");
}

TEST_CASE("execute_op: buffers that know their extent, overflow, and outputs that overlap inputs") {
  const auto relu = ge::compile_op("Relu", {f32("-1,-1")}, {f32("-1,-1")});
  std::vector<float> one(1), y(8);
  expect_error([&] {
    ge::execute_op(*relu, std::vector{TensorView(std::span(one), {2, 4})}, std::vector{TensorView(std::span(y), {2, 4})});
  }, Errc::bad_tensor, "input 0 with dims 2,4 needs 32 bytes; its buffer holds 4");
  expect_error([&] {
    ge::execute_op(*relu, std::vector{TensorView(std::span(y), {2, 4})}, std::vector{TensorView(std::span(one), {2, 4})});
  }, Errc::bad_tensor, "output 0 with dims 2,4 needs 32 bytes");
  const std::int64_t two33 = std::int64_t{1} << 33;
  expect_error([&] {
    ge::execute_op(*relu, std::vector{TensorView(y.data(), DataType::f32, {two33, two33})},
                   std::vector{TensorView(y.data(), DataType::f32, {two33, two33})});
  }, Errc::int_overflow, "overflows int64");
  // Relu works in place: the output may be exactly its input.
  auto x = buf({2, 4}, -4.f);
  ge::execute_op(*relu, std::vector{x.view()}, std::vector{x.view()});
  CHECK(x.data == std::vector<float>{0, 0, 0, 0, 0, 1, 2, 3});
  // Overlapping an input any other way, or where the op has no in-place form: refused.
  std::vector<float> big(12);
  expect_error([&] {
    ge::execute_op(*relu, std::vector{TensorView(big.data(), DataType::f32, {2, 4})},
                   std::vector{TensorView(big.data() + 2, DataType::f32, {2, 4})});
  }, Errc::bad_tensor, "overlaps input 0");
  const auto w = ge::Tensor::random(DataType::f32, {4, 4, 1, 1}, 1);
  const auto conv = ge::compile_op("Conv", {f32("1,4,3,3"), OpTensor::constant_of(w)}, {f32("1,4,3,3")});
  auto cx = buf({1, 4, 3, 3});
  std::vector<std::int64_t> wd{4, 4, 1, 1};
  const TensorView wv{const_cast<std::byte*>(w.bytes().data()), DataType::f32, wd};
  expect_error(
      [&] {
        ge::execute_op(*conv, std::vector{cx.view(), wv}, std::vector{cx.view()});
      },
      Errc::bad_tensor, "overlaps input 0");
  auto cy = buf({1, 4, 3, 3});
  ge::execute_op(*conv, std::vector{cx.view(), wv}, std::vector{cy.view()});  // still usable
}

TEST_CASE("compile_op: only trailing optional outputs may be left out (a fuzzer's finding)") {
  // TopK with one output description compiled, and its kernel then wrote a second one
  // past the caller's span.
  const auto k = OpTensor::constant_of(ge::Tensor::from<std::int64_t>({1}, {2}));
  expect_error(
      [&] {
        (void)ge::compile_op("TopK", {f32("4"), k}, {f32("2")});
      },
      Errc::bad_op_inputs, "asks for 1 output(s); the op has 2 required ones");
  const auto both = ge::compile_op("TopK", {f32("4"), k}, {});
  CHECK(both->outputs.size() == 2);
  // An optional trailing output may still be left out: MaxPool without Indices.
  const auto pool = ge::compile_op("MaxPool", {f32("1,1,4,4")}, {f32("1,1,2,2")}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
  CHECK(pool->outputs.size() == 1);
}

TEST_CASE("single-op compile is refused on a target that does not offer it") {
  ge::OpCompileRequest r;
  r.op_type = "Relu";
  r.inputs = {ge::OpTensor{ge::DataType::f32, ge::Shape{4}}};
  r.outputs = {ge::OpTensor{ge::DataType::f32, ge::Shape{4}}};
  ge::OpCompiler compiler;
  for (const char* name : {"ascend950", "ipv350"}) {
    r.target = &ge::find_target(name);
    ge::test::expect_error([&] { (void)compiler.compile(r); }, ge::Errc::unsupported, name, "no single-op compile");
  }
  r.target = &ge::find_target("atlas_a2");
  CHECK(compiler.compile(r)->kernel != nullptr);
}

TEST_CASE("packed conv weights from a model file: every NCHW variant's size is checked before a kernel reads them") {
  // A model file's part (`OpCompileRequest::packed`) whose buffer does not fit its numbers
  // is bad_model, for each packing `pack_conv_weights` makes; the part as packed loads.
  struct Variant {
    const char* x;
    std::vector<std::int64_t> w;
    ge::Attributes attrs;
    ge::Precision precision;
  };
  const std::vector<std::int64_t> pads{1, 1, 1, 1};
  std::vector<Variant> variants{
      {"1,6,5,5", {8, 6, 3, 3}, {{"pads", pads}}, ge::Precision::f32},                                       // pixels
      {"1,6,20,20", {8, 6, 3, 3}, {{"strides", std::vector<std::int64_t>{2, 2}}}, ge::Precision::f32},      // A panels
      {"1,16,10,10", {16, 16, 3, 3}, {{"pads", pads}}, ge::Precision::f32},                                  // Winograd
      {"1,8,10,10", {8, 1, 3, 3}, {{"pads", pads}, {"group", std::int64_t{8}}}, ge::Precision::f32},        // depthwise
      {"1,3,9,9", {8, 3, 3, 3}, {{"pads", pads}}, ge::Precision::f32},                                       // direct
  };
  if (ge::bf16_supported()) {
    variants.push_back({"1,16,10,10", {16, 16, 3, 3}, {{"pads", pads}}, ge::Precision::bf16});   // bf16 Winograd
    variants.push_back({"1,6,20,20", {8, 6, 3, 3}, {{"strides", std::vector<std::int64_t>{2, 2}}},
                        ge::Precision::bf16});                                                    // bf16 rows
  }
  int checked = 0;
  for (const Variant& v : variants) {
    const auto w = ge::Tensor::random(DataType::f32, v.w, 7);
    ge::OpCompileRequest req{.op_type = "Conv", .inputs = {f32(v.x), OpTensor::constant_of(w)}, .attrs = v.attrs,
                             .precision = v.precision};
    ge::OpCompiler first;
    const auto op = first.compile(req);
    CAPTURE(op->kernel->name());
    const std::optional<ge::PackedState> state = op->kernel->packed_state();
    REQUIRE(state.has_value());
    REQUIRE(!state->parts.empty());
    REQUIRE(state->parts[0].buffers.size() == 1);
    ge::OpCompiler again;
    req.packed = &*state;
    CHECK(again.compile(req)->kernel->name() == op->kernel->name());
    ge::PackedState bad = *state;
    auto& buf = bad.parts[0].buffers[0];
    REQUIRE(buf.size() >= 64);
    buf = buf.first(buf.size() - 64);  // 16 floats short
    req.packed = &bad;
    ge::OpCompiler third;
    expect_error([&] { (void)third.compile(req); }, Errc::bad_model, "do not fit it", "wrong size");
    ++checked;
  }
  CHECK(checked == static_cast<int>(variants.size()));
}
