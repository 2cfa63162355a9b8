// Tests of the import of opsets below 11 (src/onnx/upgrade.cpp): onnx's version converter
// brings them to opset 11 before import, and what it cannot convert is refused with its
// reason.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "ge/core/error.hpp"
#include "ge/onnx.hpp"
#include "support/expect_error.hpp"
#include "support/graph_eval.hpp"
#include "support/onnx_model.hpp"

namespace {

using ge::test::expect_error;
using ge::test::Model;

std::vector<float> floats_of(const ge::Tensor& t) {
  const auto* p = reinterpret_cast<const float*>(t.bytes().data());
  return {p, p + t.element_count()};
}

std::vector<std::string> ops_of(const ge::Graph& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.nodes()) ops.push_back(n.op);
  return ops;
}

}  // namespace

TEST_CASE("onnx: opsets below 11 are converted to 11 and run") {
  SUBCASE("Relu, unchanged between opsets 6 and 11") {
    for (std::int64_t v : {6, 7, 8, 9, 10}) {
      Model m(v);
      m.input("x", ::onnx::TensorProto_DataType_FLOAT, {3});
      m.node("Relu", {"x"}, {"y"}, "relu");
      m.output("y");
      const ge::Graph g = m.load();
      CHECK(ops_of(g) == std::vector<std::string>{"Relu"});
      const auto y = ge::test::run(g, {{"x", ge::Tensor::from<float>({3}, {-1.f, 0.5f, 2.f})}});
      CHECK(floats_of(y.at(0)) == std::vector<float>{0.f, 0.5f, 2.f});
    }
  }
  SUBCASE("Upsample with a scales attribute (opset 7) becomes Resize") {
    Model m(7);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 1, 1, 2});
    auto* n = m.node("Upsample", {"x"}, {"y"}, "up");
    auto* a = n->add_attribute();
    a->set_name("scales");
    a->set_type(::onnx::AttributeProto_AttributeType_FLOATS);
    for (float s : {1.f, 1.f, 2.f, 2.f}) a->add_floats(s);
    m.output("y");
    const ge::Graph g = m.load();
    CHECK(ops_of(g).back() == "Resize");
    const auto y = ge::test::run(g, {{"x", ge::Tensor::from<float>({1, 1, 1, 2}, {1.f, 2.f})}});
    CHECK(y.at(0).dims() == std::vector<std::int64_t>{1, 1, 2, 4});
    CHECK(floats_of(y.at(0)) == std::vector<float>{1.f, 1.f, 2.f, 2.f, 1.f, 1.f, 2.f, 2.f});
  }
  SUBCASE("Gemm of opset 6 with a broadcast C: the converter needs the shapes, inferred first") {
    Model m(6);
    m.input("a", ::onnx::TensorProto_DataType_FLOAT, {2, 2});
    m.f32("b", {2, 2}, {1.f, 0.f, 0.f, 1.f});
    m.f32("c", {2}, {10.f, 20.f});
    auto* n = m.node("Gemm", {"a", "b", "c"}, {"y"}, "gemm");
    auto* a = n->add_attribute();
    a->set_name("broadcast");
    a->set_type(::onnx::AttributeProto_AttributeType_INT);
    a->set_i(1);
    m.output("y");
    const ge::Graph g = m.load();
    const auto y = ge::test::run(g, {{"a", ge::Tensor::from<float>({2, 2}, {1.f, 2.f, 3.f, 4.f})}});
    CHECK(floats_of(y.at(0)) == std::vector<float>{11.f, 22.f, 13.f, 24.f});
  }
}

TEST_CASE("onnx: PRelu before opset 7 applies a [C] slope per channel") {
  Model m(6);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 2, 2});
  m.f32("slope", {2}, {0.5f, 0.25f});
  m.node("PRelu", {"x", "slope"}, {"y"}, "prelu");
  m.output("y");
  const ge::Graph g = m.load();
  const auto y = ge::test::run(g, {{"x", ge::Tensor::from<float>({1, 2, 2}, {-2.f, -4.f, -2.f, 4.f})}});
  CHECK(floats_of(y.at(0)) == std::vector<float>{-1.f, -2.f, -0.5f, 4.f});
}

TEST_CASE("onnx: what the version converter cannot convert is refused naming the op and the opset") {
  // Resize first appears in opset 10: a model of opset 9 that uses it has no adapter.
  Model m(9);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 1, 2, 2});
  m.f32("scales", {4}, {1.f, 1.f, 2.f, 2.f});
  m.node("Resize", {"x", "scales"}, {"y"}, "resize");
  m.output("y");
  expect_error([&] { (void)m.load(); }, ge::Errc::unsupported_op, "opset 9", "version converter", "Resize");
  Model zero(0);
  zero.input("x", ::onnx::TensorProto_DataType_FLOAT, {3});
  zero.node("Relu", {"x"}, {"y"}, "relu");
  zero.output("y");
  expect_error([&] { (void)zero.load(); }, ge::Errc::bad_model, "opset 0");
}

// The converter's adapters index inputs and attributes the schema requires without
// looking: a tiny file (under 100 bytes) with a node that lacks them once killed the
// process. Each node is checked against its schema at the model's opset first.
TEST_CASE("onnx: old-opset nodes that do not match their schema are bad_model naming the node, never a crash") {
  SUBCASE("Upsample of opset 9 with no inputs (the 92-byte file)") {
    Model m(9);
    m.node("Upsample", {}, {"y"}, "up");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "node 'up' (Upsample)", "schema", "opset 9");
  }
  SUBCASE("Resize of opset 10 with one input") {
    Model m(10);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 1, 2, 2});
    m.node("Resize", {"x"}, {"y"}, "resize");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "node 'resize' (Resize)", "opset 10");
  }
  SUBCASE("Upsample of opset 8 without its scales attribute, or with no input") {
    Model m(8);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 1, 2, 2});
    m.node("Upsample", {"x"}, {"y"}, "up8");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "node 'up8' (Upsample)", "scales");
    Model none(8);
    none.node("Upsample", {}, {"y"}, "");
    none.output("y");
    expect_error([&] { (void)none.load(); }, ge::Errc::bad_model, "node #0 (Upsample)");
  }
  SUBCASE("Upsample of opset 9 whose scales input is an empty name") {
    Model m(9);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 1, 2, 2});
    m.node("Upsample", {"x", ""}, {"y"}, "up");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "node 'up' (Upsample)");
  }
  SUBCASE("an attribute of the wrong type (Slice of opset 9 with starts as a float)") {
    Model m(9);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, {4});
    auto* n = m.node("Slice", {"x"}, {"y"}, "slice");
    for (const char* name : {"starts", "ends"}) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(::onnx::AttributeProto_AttributeType_FLOAT);
      a->set_f(1.f);
    }
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "node 'slice' (Slice)", "opset 9");
  }
  SUBCASE("Gemm of opset 6 whose input shapes are unknown: the adapter would read their dims") {
    Model m(6);
    m.input("a", ::onnx::TensorProto_DataType_FLOAT, std::nullopt);
    m.input("b", ::onnx::TensorProto_DataType_FLOAT, std::nullopt);
    m.input("c", ::onnx::TensorProto_DataType_FLOAT, std::nullopt);
    m.node("Gemm", {"a", "b", "c"}, {"y"}, "gemm");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::unsupported_op, "node 'gemm' (Gemm)", "rank 2");
  }
  SUBCASE("an op that does not exist in the model's opset, or a deprecated one") {
    Model m(10);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1, 1, 2, 2});
    m.f32("scales", {4}, {1.f, 1.f, 2.f, 2.f});
    m.node("Upsample", {"x", "scales"}, {"y"}, "up10");
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::unsupported_op, "node 'up10' (Upsample)", "deprecated");
  }
}

// onnx's shape inference (run before the converter, for the adapters that need shapes)
// trusts the shapes it is given: a GRU of opset 5 whose X and W have one dim (and whose R
// nothing makes) crashed it. The inference and the conversion run in a child process: a
// crash there is bad_model here, and the process goes on converting.
TEST_CASE("onnx: a model that crashes onnx's shape inference or converter is bad_model, the process lives on") {
  for (int k = 0; k < 3; ++k) {
    Model m(5);
    m.input("v0", ::onnx::TensorProto_DataType_FLOAT, std::nullopt);
    m.input("v2", ::onnx::TensorProto_DataType_FLOAT, {2});
    m.node("GRU", {"v2", "v2", "v4", "v0"}, {"v5"}, "gru");
    m.output("v5");
    const ge::Error e = ge::test::error_of([&] { (void)m.load(); });
    CAPTURE(e.what());
    CHECK(e.code() == ge::Errc::bad_model);
    CHECK(std::string(e.what()).find("opset 5") != std::string::npos);
  }
  Model good(7);
  good.input("x", ::onnx::TensorProto_DataType_FLOAT, {3});
  good.node("Relu", {"x"}, {"y"}, "relu");
  good.output("y");
  CHECK(good.load().nodes().size() == 1);
}
