// Every op's origin (OpSchema::origin), and the importer and exporter that read it instead
// of lists of their own: each built-in op declares one; each ONNX op of the default
// domain is written at the opset it declares, each of another domain in that domain;
// ge's own ops are refused both ways; a user op's origin is honoured.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ge/core/error.hpp"
#include "ge/graph/graph.hpp"
#include "ge/onnx.hpp"
#include "ge/ops/registry.hpp"
#include "support/expect_error.hpp"
#include "support/onnx_model.hpp"

namespace {

using ge::test::expect_error;
using ge::test::Model;
constexpr int kOriginF32 = ::onnx::TensorProto_DataType_FLOAT;

// The registered ops whose origin passes `keep`.
template <class F>
std::vector<std::string> ops_where(F keep) {
  std::vector<std::string> out;
  for (const std::string& name : ge::OpRegistry::global().names())
    if (keep(ge::OpRegistry::global().find(name).origin)) out.push_back(name);
  return out;
}

// One `op` node (named `n`) from input x to output y, nothing checked: what the exporter
// is given.
ge::Graph one_node(const std::string& op) {
  ge::Graph g;
  const auto x = g.add_input("x", ge::DataType::f32, ge::Shape{2});
  const auto y = g.declare_value("y", {ge::DataType::f32, ge::Shape{2}});
  (void)g.add_node("n", op, {x}, {y});
  g.add_output(y);
  return g;
}

// The opset the exporter writes for a node that needs `since`: the lowest of 13, 17, 20
// (ge/onnx.hpp) that is not below it.
std::int64_t written_opset(std::int64_t since) { return since <= 13 ? 13 : since <= 17 ? 17 : 20; }

// The version of `domain` the model imports, or -1.
std::int64_t imported(const ::onnx::ModelProto& m, const std::string& domain) {
  for (const auto& o : m.opset_import())
    if (o.domain() == domain) return o.version();
  return -1;
}

// A model (opset `opset`) of one `op` node of `domain` named 'mine' over x [2, 2].
Model model_of(const std::string& op, const std::string& domain, std::int64_t opset = 13) {
  Model m(opset);
  m.input("x", kOriginF32, std::vector<std::int64_t>{2, 2});
  m.node(op, {"x"}, {"y"}, "mine")->set_domain(domain);
  m.output("y");
  return m;
}

// Registers a test op of `origin` in the global registry (once): Y = X.
void add_test_op(const std::string& name, const ge::OpOrigin& origin) {
  if (ge::OpRegistry::global().try_find(name) != nullptr) return;
  ge::OpSchema s;
  s.name = name;
  s.doc = "a test op: Y = X";
  s.inputs = {{"X", "T"}};
  s.outputs = {{"Y", "T"}};
  s.types = {{"T", ge::TypeSet::floats()}};
  s.infer = [](const ge::InferContext& c) { return std::vector{c.input(0)}; };
  s.origin = origin;
  ge::OpRegistry::global().add(std::move(s));
}

}  // namespace

TEST_CASE("op origin: every built-in op declares one, of a domain the importer reads") {
  for (const std::string& name : ge::OpRegistry::global().names()) {
    const ge::OpOrigin& o = ge::OpRegistry::global().find(name).origin;
    CAPTURE(name);
    CAPTURE(o.to_string());
    if (name.starts_with("GeTest")) continue;  // this file's user ops
    CHECK(o.kind != ge::OpOrigin::Kind::unset);
    if (o.kind != ge::OpOrigin::Kind::onnx) continue;
    CHECK((o.domain.empty() || o.domain == ge::onnx_training_domain));
    CHECK(o.since >= 1);
    if (o.domain.empty()) CHECK(o.since <= ge::onnx::max_opset);
  }
  const auto internal = ops_where([](const ge::OpOrigin& o) { return o.internal(); });
  // Other runtimes use these names too: a file's node of that type must not be taken as ge's.
  for (const char* op : {"FusedConv", "FusedMatMul", "FusedAttention", "FusedPointwiseDepthwise"})
    CHECK(std::find(internal.begin(), internal.end(), op) != internal.end());
  CHECK(ops_where([](const ge::OpOrigin& o) { return o.onnx_of(ge::onnx_training_domain); }) ==
        std::vector<std::string>{"Adagrad", "Adam", "Momentum"});
}

TEST_CASE("op origin: the exporter writes every ONNX op at the opset and in the domain it declares") {
  const auto onnx_ops = ops_where([](const ge::OpOrigin& o) { return o.kind == ge::OpOrigin::Kind::onnx; });
  CHECK(onnx_ops.size() > 150);
  for (const std::string& op : onnx_ops) {
    if (op.starts_with("GeTest")) continue;
    const ge::OpOrigin& o = ge::OpRegistry::global().find(op).origin;
    CAPTURE(op);
    CAPTURE(o.to_string());
    const ge::Graph g = one_node(op);
    const std::int64_t opset = written_opset(o.domain.empty() ? o.since : 13);
    CHECK(ge::onnx::save_opset(g) == opset);
    const std::vector<std::byte> bytes = ge::onnx::save_bytes(g);
    ::onnx::ModelProto m;
    REQUIRE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
    REQUIRE(m.graph().node_size() == 1);
    CHECK(m.graph().node(0).op_type() == op);
    CHECK(m.graph().node(0).domain() == o.domain);
    CHECK(imported(m, "") == opset);
    CHECK(m.opset_import_size() == (o.domain.empty() ? 1 : 2));
    if (!o.domain.empty()) CHECK(imported(m, o.domain) == o.since);
  }
}

TEST_CASE("op origin: ge's own ops are refused by the importer and the exporter") {
  const auto internal = ops_where([](const ge::OpOrigin& o) { return o.internal(); });
  REQUIRE_FALSE(internal.empty());
  for (const std::string& op : internal) {
    CAPTURE(op);
    for (const char* domain : {"", "ai.onnx"}) {
      CAPTURE(domain);
      expect_error([&] { (void)model_of(op, domain).load(); }, ge::Errc::unsupported_op,
                   "the model uses 1 thing(s) this build does not support", "op '" + op + "' (node 'mine')");
    }
    expect_error([&] { (void)ge::onnx::save_bytes(one_node(op)); }, ge::Errc::unsupported_op,
                 "cannot save the graph", "'" + op + "' (node 'n'", "made by ge's fusion pass");
    expect_error([&] { (void)ge::onnx::save_opset(one_node(op)); }, ge::Errc::unsupported_op, "'" + op + "'");
  }
}

TEST_CASE("op origin: a node's domain must be its op's") {
  expect_error([] { (void)model_of("Adam", "").load(); }, ge::Errc::unsupported_op,
               "op 'Adam' of the default domain (ge reads it from domain 'ai.onnx.preview.training') (node 'mine')");
  expect_error([] { (void)model_of("Relu", std::string(ge::onnx_training_domain)).load(); }, ge::Errc::unsupported_op,
               "op 'ai.onnx.preview.training:Relu' of domain 'ai.onnx.preview.training'");
  expect_error([] { (void)model_of("Relu", "com.example").load(); }, ge::Errc::unsupported_op,
               "op 'com.example:Relu' of domain 'com.example'");
  CHECK(model_of("Relu", "ai.onnx").load().nodes()[0].op == "Relu");
}

TEST_CASE("op origin: a user op's, as the importer and exporter read it") {
  // No origin: read from the default domain (as before origins), never written.
  add_test_op("GeTestUnset", {});
  CHECK(model_of("GeTestUnset", "").load().nodes()[0].op == "GeTestUnset");
  expect_error([] { (void)ge::onnx::save_bytes(one_node("GeTestUnset")); }, ge::Errc::unsupported_op,
               "'GeTestUnset' (node 'n')", "not ONNX ops");

  // An ONNX op of opsets 13 to 15: read to 15; written at 13, not with an op of opset 20.
  add_test_op("GeTestTo15", ge::onnx_op(13, 15));
  CHECK(model_of("GeTestTo15", "", 15).load().nodes()[0].op == "GeTestTo15");
  expect_error([] { (void)model_of("GeTestTo15", "", 17).load(); }, ge::Errc::unsupported_op,
               "op 'GeTestTo15' of opset 17 (ge reads it to opset 15) (node 'mine')");
  CHECK(ge::onnx::save_opset(one_node("GeTestTo15")) == 13);
  ge::Graph g = one_node("GeTestTo15");
  const auto z = g.declare_value("z", {ge::DataType::f32, ge::Shape{2}});
  (void)g.add_node("gelu", "Gelu", {g.outputs()[0]}, {z});
  expect_error([&] { (void)ge::onnx::save_bytes(g); }, ge::Errc::unsupported_op,
               "cannot save the graph: it needs opset 20 (for 'Gelu' (node 'gelu')), but 'GeTestTo15' (node 'n') is an op "
               "of opsets up to 15");

  // An ONNX op of an opset above those written.
  add_test_op("GeTestFrom21", ge::onnx_op(21));
  expect_error([] { (void)ge::onnx::save_opset(one_node("GeTestFrom21")); }, ge::Errc::unsupported_op,
               "cannot save the graph: 'GeTestFrom21' (node 'n') needs opset 21; ge writes opsets up to 20");
}

TEST_CASE("op origin: an op used below the opset ONNX brought it in at is a bad model") {
  // HardSwish came in at opset 14, LayerNormalization at 17 (onnx's schemas).
  expect_error([] { (void)model_of("HardSwish", "", 13).load(); }, ge::Errc::bad_model,
               "node 'mine' (HardSwish): the model imports opset 13 of the default domain, and ONNX brought "
               "'HardSwish' in at opset 14");
  CHECK(model_of("HardSwish", "", 14).load().nodes()[0].op == "HardSwish");
  CHECK(model_of("HardSwish", "ai.onnx", 17).load().nodes()[0].op == "HardSwish");
  expect_error([] { (void)model_of("LayerNormalization", "", 16).load(); }, ge::Errc::bad_model,
               "ONNX brought 'LayerNormalization' in at opset 17");
  // A user op of no origin and ge's own ops are not ONNX's to date.
  add_test_op("GeTestUnsetOld", {});
  CHECK(model_of("GeTestUnsetOld", "", 11).load().nodes()[0].op == "GeTestUnsetOld");
}
