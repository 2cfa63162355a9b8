// ge::Graph: names, low-level construction, validate(), topological_order().
#include <doctest/doctest.h>

#include "ge/graph/graph.hpp"
#include "ge/ops/registry.hpp"
#include "ops/infer_helpers.hpp"

using ge::DataType;
using ge::Errc;
using ge::Shape;
using ge::test::expect_error;

namespace {
ge::TensorDesc f32(std::string_view s) { return {DataType::f32, Shape::parse(s)}; }
}  // namespace

TEST_CASE("a small graph validates and keeps its entities") {
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f32, Shape::parse("1~8,16"), ge::Format::nd);
  const auto w = g.add_constant("w", ge::Tensor::random(DataType::f32, {16, 4}, 7));
  const auto y = g.declare_value("y", f32("1~8,4"));
  const auto z = g.declare_value("z", f32("1~8,4"));
  CHECK(g.add_node("mm", "MatMul", {x, w}, {y}) == 0);
  CHECK(g.add_node("act", "Relu", {y}, {z}) == 1);
  g.add_output(z);
  CHECK_NOTHROW(g.validate());
  CHECK(g.inputs().size() == 1);
  CHECK(g.inputs()[0].index == 0);
  CHECK(g.constants().size() == 1);
  CHECK(g.values().size() == 4);
  CHECK(g.value(y).source == ge::ValueSource::node);
  CHECK(g.value(y).producer == 0);
  CHECK(g.find_value("w") == w);
  CHECK_FALSE(g.find_value("nope"));
  CHECK(g.find_node("act") == 1u);
  CHECK(g.constant_of(w) != nullptr);
  CHECK(g.constant_of(x) == nullptr);
  CHECK(g.topological_order() == std::vector<std::size_t>{0, 1});
  // Copies share constant buffers.
  const ge::Graph copy = g;
  CHECK(copy.constants()[0].tensor.shares_buffer_with(g.constants()[0].tensor));
}

TEST_CASE("names are unique; the error names both entities") {
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f32, Shape{2});
  expect_error([&] { (void)g.add_constant("x", ge::Tensor::scalar(1.f)); }, Errc::duplicate_name, "'x'", "input 'x'");
  const auto y = g.declare_value("y", f32("2"));
  g.add_node("n", "Relu", {x}, {y});
  expect_error([&] { (void)g.declare_value("y", f32("2")); }, Errc::duplicate_name, "'y'", "node 'n'");
  const auto y2 = g.declare_value("y2", f32("2"));
  expect_error([&] { (void)g.add_node("n", "Relu", {x}, {y2}); }, Errc::duplicate_name, "'n'", "Relu");
  expect_error([&] { (void)g.add_input("", DataType::f32, Shape{}); }, Errc::invalid_argument, "empty name");
  expect_error([&] { (void)g.add_input("u", DataType::undefined, Shape{}); }, Errc::invalid_argument, "'u'",
               "undefined");
}

TEST_CASE("add_node rejects ids that are not values and outputs already produced") {
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f32, Shape{2});
  const auto y = g.declare_value("y", f32("2"));
  expect_error([&] { (void)g.add_node("a", "Relu", {42}, {y}); }, Errc::bad_graph, "node 'a'", "value id 42");
  expect_error([&] { (void)g.add_node("a", "Relu", {x}, {x}); }, Errc::bad_graph, "node 'a'", "already input 'x'");
  expect_error([&] { (void)g.add_node("a", "Relu", {x}, {99}); }, Errc::bad_graph, "output 0", "99");
  expect_error([&] { (void)g.add_node("a", "Split", {x}, {y, y}); }, Errc::bad_graph, "two of its outputs");
  g.add_node("a", "Relu", {x}, {y});
  g.add_output(y);
  expect_error([&] { g.add_output(y); }, Errc::bad_graph, "already a graph output");
  expect_error([&] { g.add_output(1234); }, Errc::bad_graph, "1234");
  expect_error([&] { (void)g.value(77); }, Errc::bad_graph, "77");
}

TEST_CASE("validate: unproduced inputs, cycles, no outputs") {
  {
    ge::Graph g;
    const auto dangling = g.declare_value("ghost", f32("2"));
    const auto y = g.declare_value("y", f32("2"));
    g.add_node("relu", "Relu", {dangling}, {y});
    g.add_output(y);
    expect_error([&] { g.validate(); }, Errc::bad_graph, "node 'relu'", "input 0", "'ghost'",
                 "no input, constant or node");
  }
  {
    // a -> b -> c -> a, plus an entry node before the cycle.
    ge::Graph g;
    const auto x = g.add_input("x", DataType::f32, Shape{2});
    const auto va = g.declare_value("va", f32("2"));
    const auto vb = g.declare_value("vb", f32("2"));
    const auto vc = g.declare_value("vc", f32("2"));
    const auto vx = g.declare_value("vx", f32("2"));
    g.add_node("entry", "Relu", {x}, {vx});
    g.add_node("a", "Add", {vx, vc}, {va});
    g.add_node("b", "Relu", {va}, {vb});
    g.add_node("c", "Relu", {vb}, {vc});
    g.add_output(vc);
    expect_error([&] { g.validate(); }, Errc::bad_graph, "cycle", "'a'", "'b'", "'c'");
    expect_error([&] { (void)g.topological_order(); }, Errc::bad_graph, "'c' -> 'a'");
  }
  {
    ge::Graph g;
    const auto x = g.add_input("x", DataType::f32, Shape{2});
    const auto y = g.declare_value("y", f32("2"));
    g.add_node("r", "Relu", {x}, {y});
    expect_error([&] { g.validate(); }, Errc::bad_graph, "no output");
    const auto z = g.declare_value("z", f32("2"));
    g.add_output(z);
    expect_error([&] { g.validate(); }, Errc::bad_graph, "'z'", "produced by nothing");
  }
}

TEST_CASE("validate checks each node against its schema") {
  const auto single = [](const char* op, ge::TensorDesc in, ge::TensorDesc out, ge::Attributes attrs = {}) {
    ge::Graph g;
    const auto x = g.add_input("x", in.dtype, in.shape);
    const auto y = g.declare_value("y", out);
    g.add_node("node1", op, {x}, {y}, std::move(attrs));
    g.add_output(y);
    return g;
  };
  CHECK_NOTHROW(single("Relu", f32("1~8,3"), f32("-1,3")).validate());  // recorded shape may be looser
  expect_error([&] { single("Rellu", f32("2"), f32("2")).validate(); }, Errc::unknown_op, "'Rellu'",
               "did you mean 'Relu'");
  expect_error(
      [&] {
        single("Relu", {DataType::i8, Shape{2}}, {DataType::f32, Shape{2}}).validate();
      },
      Errc::type_mismatch, "node 'node1'", "output 0", "'y'", "recorded as f32", "gives i8");
  expect_error([&] { single("Relu", f32("2,3"), f32("3,2")).validate(); }, Errc::incompatible_shapes, "node 'node1'",
               "[3,2]", "[2,3]");
  expect_error(
      [&] {
        single("Sqrt", {DataType::i64, Shape{2}}, {DataType::i64, Shape{2}}).validate();
      },
      Errc::type_mismatch, "node 'node1'", "input 0 (X) is i64");
  expect_error(
      [&] {
        single("Softmax", f32("2,3"), f32("2,3"), {{"axis", 5}}).validate();
      },
      Errc::bad_attribute, "node 'node1'", "axis 5");
  expect_error([&] { single("Add", f32("2"), f32("2")).validate(); }, Errc::bad_op_inputs, "node 'node1'", "takes 2");
}

TEST_CASE("topological order is stable: ties keep insertion order") {
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f32, Shape{2});
  // Nodes added out of order: n0 reads n2's output.
  const auto v2 = g.declare_value("v2", f32("2"));
  const auto v0 = g.declare_value("v0", f32("2"));
  const auto v1 = g.declare_value("v1", f32("2"));
  g.add_node("n0", "Relu", {v2}, {v0});
  g.add_node("n1", "Relu", {x}, {v1});
  g.add_node("n2", "Relu", {x}, {v2});
  g.add_output(v0);
  g.add_output(v1);
  CHECK(g.topological_order() == std::vector<std::size_t>{1, 2, 0});
  CHECK_NOTHROW(g.validate());
}
