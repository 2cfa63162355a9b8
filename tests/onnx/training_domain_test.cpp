// The optimizers of ONNX's training domain (ai.onnx.preview.training) at import and save:
// a model that imports only that domain loads; other ops of the domain are refused; the
// saver writes the optimizers back in their domain.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string>

#include "ge/core/error.hpp"
#include "ge/onnx.hpp"
#include "support/expect_error.hpp"
#include "support/onnx_model.hpp"

namespace {

using ge::test::expect_error;
using ge::test::Model;
constexpr int kFloat = ::onnx::TensorProto_DataType_FLOAT;
constexpr int kInt64 = ::onnx::TensorProto_DataType_INT64;
constexpr const char* kTraining = "ai.onnx.preview.training";

// Model imports only the training domain, with one `op` node over X, G and one state.
Model training_model(const std::string& op) {
  Model m;
  m.m.mutable_opset_import(0)->set_domain(kTraining);
  m.m.mutable_opset_import(0)->set_version(1);
  m.input("R", kFloat, {});
  m.input("T", kInt64, {});
  for (const char* n : {"X", "G", "S"}) m.input(n, kFloat, {3});
  auto* n = m.node(op, {"R", "T", "X", "G", "S"}, {"X_new", "S_new"}, "opt");
  n->set_domain(kTraining);
  m.output("X_new");
  m.output("S_new");
  return m;
}

}  // namespace

TEST_CASE("onnx training domain: optimizers load without a default-domain opset, and save back") {
  const ge::Graph g = training_model("Adagrad").load();
  REQUIRE(g.nodes().size() == 1);
  CHECK(g.nodes()[0].op == "Adagrad");
  const std::vector<std::byte> bytes = ge::onnx::save_bytes(g);
  ::onnx::ModelProto saved;
  REQUIRE(saved.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  CHECK(saved.graph().node(0).domain() == kTraining);
  const auto& ops = saved.opset_import();
  CHECK(std::any_of(ops.begin(), ops.end(), [](const auto& o) { return o.domain() == kTraining && o.version() == 1; }));
  const ge::Graph back = ge::onnx::load_bytes(bytes);
  CHECK(back.nodes()[0].op == "Adagrad");
}

TEST_CASE("onnx training domain: other ops of the domain, and default ops without their opset, are refused") {
  expect_error([] { (void)training_model("Gradient").load(); }, ge::Errc::unsupported_op,
               "ai.onnx.preview.training:Gradient");
  Model m = training_model("Adagrad");
  m.node("Relu", {"X_new"}, {"Y"}, "relu");
  m.output("Y");
  expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "default ONNX domain");
}
