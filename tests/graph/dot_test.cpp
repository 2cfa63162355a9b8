// ge::to_dot: Graphviz text with op types, shapes, streams; names quoted and escaped.
#include <doctest/doctest.h>

#include "ge/graph/builder.hpp"
#include "ge/graph/dot.hpp"

namespace {
bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("to_dot shows inputs, nodes with op types, edges with shapes, outputs") {
  ge::GraphBuilder b;
  auto x = b.input("data", ge::DataType::f32, "1~8,16");
  auto w = b.random_weights("w", {16, 4}, 1);
  b.output(x.matmul(w, "mm").relu("act"));
  const ge::Graph g = b.build();
  const std::string dot = ge::to_dot(g);
  CHECK(dot.rfind("digraph \"ge\" {", 0) == 0);
  CHECK(dot.back() == '\n');
  CHECK(has(dot, "}\n"));
  CHECK(has(dot, "in0 [shape=ellipse"));
  CHECK(has(dot, "label=\"data\\nf32[1~8,16]\""));
  CHECK(has(dot, "n0 [shape=box"));
  CHECK(has(dot, "label=\"mm\\nMatMul\""));
  CHECK(has(dot, "label=\"act\\nRelu\""));
  CHECK(has(dot, "in0 -> n0 [label=\"f32[1~8,16]\"]"));
  CHECK(has(dot, "n0 -> n1 [label=\"f32[1~8,4]\"]"));
  CHECK(has(dot, "n1 -> out0"));
  CHECK_FALSE(has(dot, "c0"));  // constants hidden by default
  CHECK_FALSE(has(dot, "stream"));

  const std::string full = ge::to_dot(g, {.node_streams = {1, -1}, .show_constants = true, .name = "my \"model\""});
  CHECK(has(full, "digraph \"my \\\"model\\\"\""));
  CHECK(has(full, "c0 [shape=box, style=dashed"));
  CHECK(has(full, "c0 -> n0 [label=\"f32[16,4]\"]"));
  CHECK(has(full, "label=\"mm\\nMatMul\\nstream 1\""));
  CHECK_FALSE(has(full, "stream -1"));
}

TEST_CASE("to_dot escapes names with quotes, backslashes and newlines") {
  ge::GraphBuilder b;
  auto x = b.input("a\"b\\c\nd", ge::DataType::f32, "2");
  b.output(x.relu("r\"1"));
  const std::string dot = ge::to_dot(b.build());
  CHECK(has(dot, "label=\"a\\\"b\\\\c\\nd\\nf32[2]\""));
  CHECK(has(dot, "label=\"r\\\"1\\nRelu\""));
  // Every quote inside a label is escaped: the count of unescaped quotes is even.
  std::size_t quotes = 0;
  for (std::size_t i = 0; i < dot.size(); ++i)
    if (dot[i] == '"' && (i == 0 || dot[i - 1] != '\\')) ++quotes;
  CHECK(quotes % 2 == 0);
}
