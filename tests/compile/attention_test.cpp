// Tests of fuse_attention on multi-head attention with heads as an axis (ge/compile/passes.hpp):
// the [batch, seq, heads, dim] operands reached through Transposes, Q, K and V picked out
// of one packed projection (Split + Squeeze or Gather), an additive mask, inference
// Dropout on the way; each fused graph computes what it replaced, and the patterns that
// are another function are left alone. Also the FusedAttention op's mask rules.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "support/graph_eval.hpp"

#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"

using ge::DataType;
using ge::Graph;
using ge::GraphBuilder;
using ge::Tensor;
using ge::Value;
using ge::test::check_same;
using ge::test::check_unchanged;
using ge::test::count;
using ge::test::expect_error;

namespace {

constexpr std::int64_t kHeads = 2, kDim = 4, kSeq = 5;

Value transpose(GraphBuilder& b, Value x, std::vector<std::int64_t> perm) {
  return b.op("Transpose", {x}, {{"perm", std::move(perm)}});
}

// A lower-triangular causal mask: 0 on and below the diagonal, -1e9 above.
Value causal_mask(GraphBuilder& b) {
  std::vector<float> m(kSeq * kSeq);
  for (std::int64_t r = 0; r < kSeq; ++r)
    for (std::int64_t c = 0; c < kSeq; ++c) m[static_cast<std::size_t>(r * kSeq + c)] = c > r ? -1e9f : 0.0f;
  return b.constant("causal", Tensor::from<float>({kSeq, kSeq}, m));
}

// Scores to context: [+ mask] Softmax [Dropout], then by V and back to [batch, seq, heads*dim].
Value finish(GraphBuilder& b, Value scores, Value mask, Value v_bhsd, bool dropout) {
  if (mask.valid()) scores = b.op("Add", {scores, mask}, {}, "masked");
  Value p = b.op("Softmax", {scores}, {{"axis", std::int64_t{-1}}});
  if (dropout)  // torch's export of a Dropout module left in training with p = 0
    p = b.op("Dropout", {p, b.scalar(0.0), b.constant(Tensor::from<bool>({}, {true}))});
  const Value o = transpose(b, b.op("MatMul", {p, v_bhsd}, {}, "context"), {0, 2, 1, 3});
  return b.op("Reshape", {o, b.int64s({0, 0, kHeads * kDim})}, {}, "merged");
}

// HF-style: Q, K, V [batch, seq, heads, dim] graph inputs moved to [batch, heads, seq, dim],
// K^T straight from K's input layout, scores divided by sqrt(dim), a [batch, 1, 1, seq]
// padding mask.
Graph heads_graph(const char* batch, bool k_through_bhsd, bool with_mask) {
  GraphBuilder b;
  const std::string shape = std::string(batch) + "," + std::to_string(kSeq) + "," + std::to_string(kHeads) + "," +
                            std::to_string(kDim);
  const Value q = b.input("q", DataType::f32, shape), k = b.input("k", DataType::f32, shape);
  const Value v = b.input("v", DataType::f32, shape);
  const Value kt = k_through_bhsd ? transpose(b, transpose(b, k, {0, 2, 1, 3}), {0, 1, 3, 2}) : transpose(b, k, {0, 2, 3, 1});
  const Value s = b.op("Div", {b.op("MatMul", {transpose(b, q, {0, 2, 1, 3}), kt}), b.scalar(2.0)});
  const Value mask = with_mask ? b.input("mask", DataType::f32, std::string(batch) + ",1,1," + std::to_string(kSeq)) : Value{};
  b.output(finish(b, s, mask, transpose(b, v, {0, 2, 1, 3}), false));
  return b.build();
}

enum class Unbind { split, gather };

// A packed projection [batch, seq, 3*heads*dim] viewed as [batch, seq, 3, heads, dim],
// moved to [3, batch, heads, seq, dim] and unbound on axis 0; Q scaled before the product.
Graph packed_graph(const char* batch, Unbind unbind, bool dropout) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, std::string(batch) + "," + std::to_string(kSeq) + ",8");
  const Value qkv = b.op("MatMul", {x, b.random_uniform("w_qkv", {8, 3 * kHeads * kDim}, 3, -0.5, 0.5)});
  const Value moved = transpose(b, b.op("Reshape", {qkv, b.int64s({0, 0, 3, kHeads, kDim})}), {2, 0, 3, 1, 4});
  std::vector<Value> parts;
  if (unbind == Unbind::split) {
    for (const Value& p : b.op_n("Split", {moved, b.int64s({1, 1, 1})}, {{"axis", std::int64_t{0}}}, 3))
      parts.push_back(b.op("Squeeze", {p, b.int64s({0})}));
  } else {
    for (std::int64_t i = 0; i < 3; ++i)
      parts.push_back(b.op("Gather", {moved, b.constant(Tensor::from<std::int64_t>({}, {i - (i == 2 ? 3 : 0)}))},
                           {{"axis", std::int64_t{0}}}));
  }
  const Value q = b.op("Mul", {parts[0], b.scalar(0.5)});
  const Value s = b.op("MatMul", {q, transpose(b, parts[1], {0, 1, 3, 2})});
  b.output(finish(b, s, causal_mask(b), parts[2], dropout));
  return b.build();
}

const ge::Node& fused_node(const Graph& f) {
  for (const ge::Node& n : f.nodes())
    if (n.op == "FusedAttention") return n;
  FAIL("no FusedAttention");
  return f.nodes()[0];
}

}  // namespace

TEST_CASE("fuse_attention: heads as an axis, the Transposes absorbed as layouts, a padding mask") {
  for (const char* batch : {"2", "1~3"})
    for (const bool k_through_bhsd : {false, true})
      for (const bool with_mask : {true, false}) {
        CAPTURE(batch);
        CAPTURE(k_through_bhsd);
        CAPTURE(with_mask);
        const Graph g = heads_graph(batch, k_through_bhsd, with_mask);
        const Graph f = ge::fuse_attention(g);
        CHECK(count(f, "FusedAttention") == 1);
        CHECK(count(f, "Transpose") == 0);
        CHECK(count(f, "Softmax") == 0);
        const ge::Node& n = fused_node(f);
        CHECK(n.inputs.size() == (with_mask ? 4 : 3));
        CHECK(n.attrs.at("scale").as_float() == doctest::Approx(0.5));
        for (const char* a : {"q_layout", "k_layout", "v_layout", "out_layout"}) CHECK(n.attrs.at(a).as_string() == "bshd");
        check_same(g, f, 1e-5);
      }
}

TEST_CASE("fuse_attention: Q, K and V unbound from one packed projection, a causal mask, Dropout with p = 0") {
  for (const Unbind unbind : {Unbind::split, Unbind::gather})
    for (const char* batch : {"2", "1~3"}) {
      CAPTURE(batch);
      CAPTURE(unbind == Unbind::split);
      const Graph g = packed_graph(batch, unbind, true);
      ge::PassStats st;
      const Graph f = ge::fuse_attention(g, &st);
      CHECK(count(f, "FusedAttention") == 1);
      CHECK(count(f, "Transpose") == 0);  // every move folded into a layout
      CHECK(count(f, "Split") == 0);
      CHECK(count(f, "Squeeze") == 0);
      CHECK(count(f, "Dropout") == 0);
      CHECK(count(f, "Gather") == 3);  // each a slice of the packed [batch, seq, 3, heads, dim]
      const ge::Node& n = fused_node(f);
      CHECK(n.attrs.at("scale").as_float() == doctest::Approx(0.5));
      CHECK(n.attrs.at("q_layout").as_string() == "bshd");
      CHECK(n.attrs.at("k_layout").as_string() == "bshd");
      CHECK(n.attrs.at("out_layout").as_string() == "bshd");
      check_same(g, f, 1e-5);
      // The whole pipeline gives the same outputs.
      check_same(g, ge::optimize(g), 1e-5);
    }
}

TEST_CASE("fuse_attention leaves other functions alone") {
  // Softmax over the heads' sequence axis of the queries, not the keys.
  {
    GraphBuilder b;
    const Value q = b.input("q", DataType::f32, "2,2,5,4"), k = b.input("k", DataType::f32, "2,2,5,4");
    const Value s = b.op("MatMul", {q, transpose(b, k, {0, 1, 3, 2})});
    b.output(b.op("MatMul", {b.op("Softmax", {s}, {{"axis", std::int64_t{2}}}), b.input("v", DataType::f32, "2,2,5,4")}));
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_attention(g));
  }
  // A mask wider than the scores (the Add broadcasts the scores up): not a mask.
  {
    GraphBuilder b;
    const Value q = b.input("q", DataType::f32, "1,2,5,4"), k = b.input("k", DataType::f32, "1,2,5,4");
    const Value s = b.op("MatMul", {q, transpose(b, k, {0, 1, 3, 2})});
    const Value masked = b.op("Add", {s, b.input("mask", DataType::f32, "3,1,5,5")});
    b.output(b.op("MatMul", {b.op("Softmax", {masked}), b.input("v", DataType::f32, "1,2,5,4")}));
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_attention(g));
  }
  // A Dropout that drops in training (p = 0.1) is no identity: the attention is not fused
  // across it.
  {
    GraphBuilder b;
    const Value q = b.input("q", DataType::f32, "1,2,5,4"), k = b.input("k", DataType::f32, "1,2,5,4");
    const Value s = b.op("MatMul", {q, transpose(b, k, {0, 1, 3, 2})});
    const Value p = b.op("Dropout", {b.op("Softmax", {s}), b.scalar(0.1), b.constant(Tensor::from<bool>({}, {true}))});
    b.output(b.op("MatMul", {p, b.input("v", DataType::f32, "1,2,5,4")}));
    const Graph g = b.build();
    const Graph f = ge::fuse_attention(g);
    CHECK(count(f, "FusedAttention") == 0);
    CHECK(count(f, "Dropout") == 1);
  }
  // Unequal parts of a Split are no unbind: the Transpose stays.
  {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "3,2,4");
    const auto parts = b.op_n("Split", {transpose(b, x, {1, 0, 2}), b.int64s({1, 1})}, {{"axis", std::int64_t{0}}}, 2);
    b.output(b.op("Squeeze", {parts[0], b.int64s({0})}));
    b.output(parts[1]);
    const Graph g = b.build();
    check_unchanged(g, ge::fuse_attention(g));
  }
}

TEST_CASE("FusedAttention with heads: a mask that broadcasts, or repeats over the batch, and one that does not fit") {
  const auto build = [](const char* mask, const char* q_layout = "bhsd", const char* v_layout = "bhsd") {
    GraphBuilder b;
    const Value q = b.input("q", DataType::f32, "4,2,5,3"), k = b.input("k", DataType::f32, "4,2,7,3");
    const Value v = b.input("v", DataType::f32, "4,2,7,6");
    const Value m = mask != nullptr ? b.input("m", DataType::f32, mask) : Value{};
    const Value y = b.op("FusedAttention", {q, k, v, m},
                         {{"q_layout", std::string(q_layout)}, {"k_layout", std::string("bhsd")},
                          {"v_layout", std::string(v_layout)}, {"out_layout", std::string("bhsd")}});
    return b.graph().value(y.id()).desc.shape.to_string();
  };
  CHECK(build(nullptr) == "4,2,5,6");
  CHECK(build("7") == "4,2,5,6");
  CHECK(build("4,1,5,7") == "4,2,5,6");
  CHECK(build("2,2,5,7") == "4,2,5,6");  // two windows' masks over four batches: b reads b mod 2
  expect_error([&] { (void)build("3,2,5,7"); }, ge::Errc::bad_op_inputs, "does not broadcast");
  expect_error([&] { (void)build("5,5"); }, ge::Errc::bad_op_inputs, "does not broadcast");
  expect_error([&] { (void)build("1,4,2,5,7"); }, ge::Errc::bad_op_inputs, "does not broadcast");
  expect_error([&] { (void)build(nullptr, "bsd"); }, ge::Errc::bad_op_inputs, "heads");
  expect_error([&] { (void)build(nullptr, "bhsd", "bshd"); }, ge::Errc::bad_op_inputs, "heads differ");
}

TEST_CASE("FusedAttention's kernel: a mask repeated over the batch gives each batch its window's mask") {
  // Batch 4 with two windows' masks: batches 0 and 2 read mask 0, batches 1 and 3 mask 1;
  // the same as four batches with the mask laid out for each.
  const auto graph = [](bool repeated) {
    GraphBuilder b;
    const Value q = b.input("q", DataType::f32, "4,2,5,3"), k = b.input("k", DataType::f32, "4,2,7,3");
    const Value v = b.input("v", DataType::f32, "4,2,7,6");
    const Value m2 = b.random_uniform("m", {2, 1, 5, 7}, 9, -3.0, 3.0);
    const Value m = repeated ? m2 : b.op("Tile", {m2, b.int64s({2, 1, 1, 1})});
    b.output(b.op("FusedAttention", {q, k, v, m},
                  {{"q_layout", std::string("bhsd")}, {"k_layout", std::string("bhsd")},
                   {"v_layout", std::string("bhsd")}, {"out_layout", std::string("bhsd")}, {"scale", 0.7}},
                  "attn"));
    return b.build();
  };
  check_same(graph(false), graph(true), 1e-6);
}

namespace {

// Swin's windowed attention: scores of B = images * 2 windows, a relative-position bias
// [1, heads, 5, 5], and in shifted blocks a mask per window added in a view that splits
// the batch ([images, windows, heads, 5, 5]) and then merges it back.
Graph windows_graph(const char* batch, bool shifted) {
  GraphBuilder b;
  const std::string shape = std::string(batch) + ",2,5,4";
  const Value q = b.input("q", DataType::f32, shape), k = b.input("k", DataType::f32, shape);
  const Value v = b.input("v", DataType::f32, shape);
  Value s = b.op("MatMul", {b.op("Mul", {q, b.scalar(0.5)}), transpose(b, k, {0, 1, 3, 2})});
  s = b.op("Add", {s, b.random_uniform("bias", {1, 2, 5, 5}, 4, -1.0, 1.0)});
  if (shifted) {
    const Value view = b.op("Reshape", {s, b.int64s({-1, 2, 2, 5, 5})});
    const Value masked = b.op("Add", {view, b.random_uniform("shift", {1, 2, 1, 5, 5}, 5, -4.0, 0.0)});
    s = b.op("Reshape", {masked, b.int64s({-1, 2, 5, 5})});
  }
  b.output(b.op("MatMul", {b.op("Softmax", {s}, {{"axis", std::int64_t{-1}}}), v}));
  return b.build();
}

}  // namespace

TEST_CASE("fuse_attention: windowed attention with a bias and a mask per window in a view of the batch") {
  for (const char* batch : {"4", "2~6"})
    for (const bool shifted : {false, true}) {
      CAPTURE(batch);
      CAPTURE(shifted);
      const Graph g = windows_graph(batch, shifted);
      const Graph f = ge::fuse_attention(g);
      REQUIRE(count(f, "FusedAttention") == 1);
      CHECK(count(f, "Reshape") == 0);
      CHECK(count(f, "Add") == 0);
      const ge::Node& n = fused_node(f);
      REQUIRE(n.inputs.size() == 4);
      const Tensor* mask = f.constant_of(n.inputs[3]);
      REQUIRE(mask != nullptr);
      // Bias and window masks summed into one constant: [windows, heads, 5, 5] when shifted.
      CHECK(mask->dims() == (shifted ? std::vector<std::int64_t>{2, 2, 5, 5} : std::vector<std::int64_t>{1, 2, 5, 5}));
      check_same(g, f, 1e-5);
    }
  // A mask that differs per image (its first view axis not 1) is no window mask.
  GraphBuilder b;
  const Value q = b.input("q", DataType::f32, "4,2,5,4"), k = b.input("k", DataType::f32, "4,2,5,4");
  const Value s = b.op("MatMul", {q, transpose(b, k, {0, 1, 3, 2})});
  const Value view = b.op("Reshape", {s, b.int64s({-1, 2, 2, 5, 5})});
  const Value masked = b.op("Add", {view, b.random_uniform("per_image", {2, 2, 1, 5, 5}, 5, -4.0, 0.0)});
  const Value back = b.op("Reshape", {masked, b.int64s({-1, 2, 5, 5})});
  b.output(b.op("MatMul", {b.op("Softmax", {back}, {{"axis", std::int64_t{-1}}}), b.input("v", DataType::f32, "4,2,5,4")}));
  const Graph g = b.build();
  check_unchanged(g, ge::fuse_attention(g));
}

TEST_CASE("fuse_attention passes chains of Identity and inference Dropout by; a graph output keeps its node") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,3");
  const Value i = b.op("Identity", {x});
  const Value d = b.op("Dropout", {i, b.scalar(0.0), b.constant(Tensor::from<bool>({}, {true}))});
  const Value e = b.op("Dropout", {d});  // no training mode: the identity
  b.output(b.op("Relu", {e}, {}, "y"));
  b.output(b.op("Identity", {e}, {}, "kept"));
  const Graph g = b.build();
  ge::PassStats st;
  const Graph f = ge::fuse_attention(g, &st);
  CHECK(count(f, "Dropout") == 0);
  CHECK(count(f, "Identity") == 1);  // makes a graph output
  CHECK(st.nodes_removed == 3);
  check_same(g, f, 0.0);
}
