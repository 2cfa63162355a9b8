// Control flow from ONNX files: If, Loop and Scan with subgraphs that read outer values,
// run at fixed shapes and with gears, written back by the saver and by model files; and
// bad subgraphs refused with errors that name the node.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <tuple>
#include <span>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/core/error.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/onnx_model.hpp"
#include "support/temp_dir.hpp"

namespace {

template <class T>
std::vector<T> vec(std::span<const T> s) {
  return {s.begin(), s.end()};
}

using ge::test::expect_error;
using ge::test::Model;
using ge::test::set_int;
constexpr int f32 = ::onnx::TensorProto_DataType_FLOAT;
constexpr int i64 = ::onnx::TensorProto_DataType_INT64;
constexpr int boolean = ::onnx::TensorProto_DataType_BOOL;

void set_graph(::onnx::NodeProto* n, const std::string& name, const Model& sub) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_GRAPH);
  *a->mutable_g() = sub.m.graph();
}

// y = sum(x) > 0 ? x * two : x + bias, where bias = x + x is made outside the branches.
Model if_model(int else_outputs = 1) {
  Model then_b, else_b;
  then_b.node("Mul", {"x", "two"}, {"t"});
  then_b.output("t");
  else_b.node("Add", {"x", "bias"}, {"e"});
  else_b.output("e");
  for (int k = 1; k < else_outputs; ++k) else_b.output("bias");
  Model m;
  m.input("x", f32, std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{-1, 3}));
  m.f32("two", {}, {2.f});
  m.f32("zero", {}, {0.f});
  set_int(m.node("ReduceSum", {"x"}, {"s"}), "keepdims", 0);
  m.node("Greater", {"s", "zero"}, {"c"});
  m.node("Add", {"x", "x"}, {"bias"});
  auto* n = m.node("If", {"c"}, {"y"}, "branch");
  set_graph(n, "then_branch", then_b);
  set_graph(n, "else_branch", else_b);
  m.output("y");
  return m;
}

std::vector<float> run1(const std::shared_ptr<const ge::CompiledModel>& model, std::vector<float> x,
                        std::vector<std::int64_t> dims) {
  ge::Session s(model, {.threads = 1});
  const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].dims == dims);
  return vec(r.outputs[0].values<float>());
}

// acc = acc0 + M * x; scans[i] = (acc0 + (i + 1) * x) * i, while i < M.
Model loop_model() {
  Model body;
  body.input("i", i64, {});
  body.input("cond_in", boolean, {});
  body.input("acc_in", f32, std::nullopt);
  body.node("Add", {"acc_in", "x"}, {"acc_out"});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  auto* cast = body.node("Cast", {"i"}, {"i_f"});
  set_int(cast, "to", f32);
  body.node("Mul", {"acc_out", "i_f"}, {"scan"});
  body.output("cond_out");
  body.output("acc_out");
  body.output("scan");
  Model m;
  m.input("M", i64, {});
  m.input("acc0", f32, {3});
  m.input("x", f32, {3});
  set_graph(m.node("Loop", {"M", "", "acc0"}, {"acc", "scans"}, "loop"), "body", body);
  m.output("acc");
  m.output("scans");
  return m;
}

// s0 [2], x [2, 3] -> Scan (one scan input; the body adds each slice to the state and
// also emits it) -> s, all; the node named `name`, its INTS attributes set by `ints`.
struct ScanModel {
  Model m;
  ::onnx::NodeProto* node = nullptr;
  void ints(const std::string& name, std::int64_t v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto_AttributeType_INTS);
    a->add_ints(v);
  }
};

ScanModel scan_model(const char* name) {
  Model body;
  body.input("s", f32, std::nullopt);
  body.input("col", f32, std::nullopt);
  body.node("Add", {"s", "col"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"seen"});
  body.output("s_out");
  body.output("seen");
  ScanModel sm;
  sm.m.input("s0", f32, {2});
  sm.m.input("x", f32, {2, 3});
  sm.node = sm.m.node("Scan", {"s0", "x"}, {"s", "all"}, name);
  set_graph(sm.node, "body", body);
  set_int(sm.node, "num_scan_inputs", 1);
  return sm;
}

}  // namespace

TEST_CASE("onnx control flow: If runs the branch cond picks, reading outer values") {
  const ge::Graph g = if_model().load();
  REQUIRE(g.nodes().back().op == "If");
  // The branches read x and bias from outside: both become inputs of the node and of each branch.
  CHECK(g.nodes().back().inputs.size() == 3);
  CHECK(g.nodes().back().attrs.at("then_branch").as_graph().inputs().size() == 2);
  const auto model = ge::compile(g, ge::BuildOptions().set("INPUT_SHAPE", "x:2,3"));
  CHECK(run1(model, {1, 2, 3, 4, 5, 6}, {2, 3}) == std::vector<float>{2, 4, 6, 8, 10, 12});
  CHECK(run1(model, {1, 2, 3, -4, -5, -6}, {2, 3}) == std::vector<float>{3, 6, 9, -12, -15, -18});
  // With batch gears and with a range.
  const auto gears = ge::compile(g, ge::BuildOptions().set("INPUT_SHAPE", "x:-1,3").set("DYNAMIC_BATCH_SIZE", "1,2"));
  CHECK(run1(gears, {-1, 0, 0}, {1, 3}) == std::vector<float>{-3, 0, 0});
  CHECK(run1(gears, {1, 2, 3, 4, 5, 6}, {2, 3}) == std::vector<float>{2, 4, 6, 8, 10, 12});
  const auto range = ge::compile(g, ge::BuildOptions().set("INPUT_SHAPE", "x:1~4,3"));
  CHECK(run1(range, {1, 1, 1, -1, -1, -1, -1, -1, -1}, {3, 3}) ==
        std::vector<float>{3, 3, 3, -3, -3, -3, -3, -3, -3});
}

TEST_CASE("onnx control flow: Loop carries values and stacks scan outputs") {
  const auto model = ge::compile(loop_model().load());
  ge::Session s(model, {.threads = 1});
  std::int64_t m = 3;
  std::vector<float> acc0{0, 0, 0}, x{1, 2, 3};
  const std::int64_t three[] = {3};
  const auto r = s.run({ge::TensorView{&m, ge::DataType::i64, {}}, ge::TensorView{acc0.data(), ge::DataType::f32, three},
                        ge::TensorView{x.data(), ge::DataType::f32, three}});
  REQUIRE(r.outputs.size() == 2);
  CHECK(vec(r.outputs[0].values<float>()) == std::vector<float>{3, 6, 9});
  CHECK(r.outputs[1].dims == std::vector<std::int64_t>{3, 3});
  CHECK(vec(r.outputs[1].values<float>()) == std::vector<float>{0, 0, 0, 2, 4, 6, 6, 12, 18});
  // No iterations: the carried values come back as given, the scan output is empty.
  m = 0;
  const auto none = s.run({ge::TensorView{&m, ge::DataType::i64, {}},
                           ge::TensorView{acc0.data(), ge::DataType::f32, three},
                           ge::TensorView{x.data(), ge::DataType::f32, three}});
  CHECK(vec(none.outputs[0].values<float>()) == std::vector<float>{0, 0, 0});
  CHECK(none.outputs[1].dims == std::vector<std::int64_t>{0, 3});
}

TEST_CASE("onnx control flow: a carried value grows though the file declares the first iteration's dims") {
  // As torchvision's Mask R-CNN export pastes masks: the body's input declared [0, 2].
  Model body;
  body.input("i", i64, {});
  body.input("c", boolean, {});
  body.input("acc", f32, {0, 2});
  body.i64("axes", {1}, {0});
  body.node("Unsqueeze", {"piece", "axes"}, {"row"});
  body.node("Concat", {"acc", "row"}, {"acc_out"})->add_attribute()->CopyFrom([] {
    ::onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(::onnx::AttributeProto_AttributeType_INT);
    a.set_i(0);
    return a;
  }());
  body.node("Identity", {"c"}, {"c_out"});
  body.output("c_out");
  body.output("acc_out");
  Model m;
  m.input("M", i64, {});
  m.input("piece", f32, {2});
  m.f32("acc0", {0, 2}, {});
  set_graph(m.node("Loop", {"M", "", "acc0"}, {"acc"}, "paste"), "body", body);
  m.output("acc");
  const ge::Graph g = m.load();
  CHECK(g.value(g.outputs()[0]).desc.shape.to_string() == "-1,2");
  ge::Session s(ge::compile(g), {.threads = 1});
  std::int64_t n = 3;
  std::vector<float> piece{1, 2};
  const std::int64_t d2[] = {2};
  const auto r = s.run({ge::TensorView{&n, ge::DataType::i64, {}}, ge::TensorView{piece.data(), ge::DataType::f32, d2}});
  CHECK(r.outputs[0].dims == std::vector<std::int64_t>{3, 2});
  CHECK(vec(r.outputs[0].values<float>()) == std::vector<float>{1, 2, 1, 2, 1, 2});
}

TEST_CASE("onnx control flow: Scan along an axis, reversed, stacking at another axis") {
  ScanModel sm = scan_model("scan");
  Model& m = sm.m;
  sm.ints("scan_input_axes", 1);
  sm.ints("scan_input_directions", 1);
  sm.ints("scan_output_axes", 1);
  sm.ints("scan_output_directions", 1);
  m.output("s");
  m.output("all");
  const ge::Graph g = m.load();
  CHECK(g.value(g.outputs()[1]).desc.shape == ge::Shape{2, 3});
  ge::Session s(ge::compile(g), {.threads = 1});
  std::vector<float> s0{0, 0}, x{1, 2, 3, 4, 5, 6};
  const std::int64_t d2[] = {2}, d23[] = {2, 3};
  const auto r = s.run({ge::TensorView{s0.data(), ge::DataType::f32, d2}, ge::TensorView{x.data(), ge::DataType::f32, d23}});
  CHECK(vec(r.outputs[0].values<float>()) == std::vector<float>{6, 15});
  // Columns 2, 1, 0 summed in turn (3,6 then 5,11 then 6,15), stacked along axis 1 last first.
  CHECK(r.outputs[1].dims == std::vector<std::int64_t>{2, 3});
  CHECK(vec(r.outputs[1].values<float>()) == std::vector<float>{6, 5, 3, 15, 11, 6});
}

TEST_CASE("onnx control flow: the saver and model files keep the subgraphs") {
  const ge::Graph g = if_model().load();
  const auto bytes = ge::onnx::save_bytes(g);
  const ge::Graph back = ge::onnx::load_bytes(bytes);
  const auto model = ge::compile(back, ge::BuildOptions().set("INPUT_SHAPE", "x:2,3"));
  CHECK(run1(model, {1, 2, 3, 4, 5, 6}, {2, 3}) == std::vector<float>{2, 4, 6, 8, 10, 12});
  CHECK(run1(model, {-1, -2, -3, 4, 5, -6}, {2, 3}) == std::vector<float>{-3, -6, -9, 12, 15, -18});

  const auto loop = ge::compile(ge::onnx::load_bytes(ge::onnx::save_bytes(loop_model().load())));
  ge::test::TempDir dir("ge_control_flow");
  ge::save(*loop, dir.path / "loop.gem");
  const auto loaded = ge::load_compiled(dir.path / "loop.gem");
  ge::Session s(loaded, {.threads = 1});
  std::int64_t m = 2;
  std::vector<float> acc0{1, 1, 1}, x{1, 2, 3};
  const std::int64_t three[] = {3};
  const auto r = s.run({ge::TensorView{&m, ge::DataType::i64, {}}, ge::TensorView{acc0.data(), ge::DataType::f32, three},
                        ge::TensorView{x.data(), ge::DataType::f32, three}});
  CHECK(vec(r.outputs[0].values<float>()) == std::vector<float>{3, 5, 7});
  CHECK(vec(r.outputs[1].values<float>()) == std::vector<float>{0, 0, 0, 3, 5, 7});
}

TEST_CASE("onnx control flow: bad subgraphs are errors naming the node") {
  // Branches that give different numbers of outputs.
  expect_error([&] { (void)if_model(2).load(); }, ge::Errc::bad_model, "branch", "then_branch gives 1",
               "else_branch 2");
  // A loop body whose carried value changes type.
  {
    Model body;
    body.input("i", i64, {});
    body.input("c", boolean, {});
    body.input("v", f32, std::nullopt);
    auto* cast = body.node("Cast", {"v"}, {"w"});
    set_int(cast, "to", i64);
    body.node("Identity", {"c"}, {"c_out"});
    body.output("c_out");
    body.output("w");
    Model m;
    m.input("M", i64, {});
    m.input("v0", f32, {2});
    set_graph(m.node("Loop", {"M", "", "v0"}, {"v"}, "typed_loop"), "body", body);
    m.output("v");
    expect_error([&] { (void)m.load(); }, ge::Errc::type_mismatch, "typed_loop", "carried value 0", "i64");
  }
  // A branch that reads a value nothing makes.
  {
    Model then_b, else_b;
    then_b.node("Neg", {"nowhere"}, {"t"});
    then_b.output("t");
    else_b.node("Neg", {"x"}, {"e"});
    else_b.output("e");
    Model m;
    m.input("x", f32, {2});
    m.input("c", boolean, {});
    auto* n = m.node("If", {"c"}, {"y"}, "lost");
    set_graph(n, "then_branch", then_b);
    set_graph(n, "else_branch", else_b);
    m.output("y");
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_model, "lost", "'nowhere'");
  }
  // A Loop that could never end.
  {
    Model body;
    body.input("i", i64, {});
    body.input("c", boolean, {});
    body.input("v", f32, std::nullopt);
    body.node("Identity", {"c"}, {"c_out"});
    body.node("Neg", {"v"}, {"v_out"});
    body.output("c_out");
    body.output("v_out");
    Model m;
    m.input("x", f32, {2});
    set_graph(m.node("Loop", {"", "", "x"}, {"y"}, "forever"), "body", body);
    m.output("y");
    expect_error([&] { (void)ge::compile(m.load()); }, ge::Errc::bad_model, "forever");
  }
}

TEST_CASE("onnx control flow: a cond of several elements and Scan's bad axes are errors naming the node") {
  {
    Model m = if_model();
    m.input("flags", boolean, {2});
    m.g->mutable_node(3)->set_input(0, "flags");  // the If reads a two-element cond
    expect_error([&] { (void)m.load(); }, ge::Errc::bad_op_inputs, "branch", "cond", "one element");
  }
  for (const auto& [attr, value, code] : {std::tuple{"scan_input_axes", std::int64_t{2}, ge::Errc::bad_attribute},
                                          std::tuple{"scan_output_axes", std::int64_t{-3}, ge::Errc::bad_attribute}}) {
    CAPTURE(attr);
    ScanModel sm = scan_model("bad_scan");
    sm.ints(attr, value);
    if (std::string(attr) != "scan_input_axes") sm.ints("scan_input_axes", 1);  // columns, as the body adds them
    expect_error([&] { (void)sm.m.load(); }, code, "bad_scan");
  }
}

// Two more things the held-back detection and optical-flow exports showed.
TEST_CASE("onnx: an op's type constraint is checked at load, naming the node") {
  // torch's exporter once fed Sqrt an int64 tensor; ONNX's Sqrt takes floats only.
  Model m(17);
  m.input("x", i64, {2});
  m.node("Sqrt", {"x"}, {"y"}, "coords_sqrt");
  m.output("y");
  expect_error([&] { (void)m.load(); }, ge::Errc::type_mismatch, "coords_sqrt", "Sqrt", "i64", "f32");
}
