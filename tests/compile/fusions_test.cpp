// Tests of the fusions of exporters' decompositions (ge/compile/passes.hpp:
// fuse_layer_norm, fuse_gelu, fuse_matmul_epilogue) and of the FusedMatMul op: each
// pattern as torch exports it fuses, computes what it replaced, and is left alone when
// one condition of the pattern fails.
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

struct LnParts {
  double exponent = 2.0;
  double eps = 1e-5;
  std::vector<std::int64_t> axes{-1};
  bool affine = true;
  bool extra_reader = false;  // the centred value read outside the pattern too
};

// LayerNorm over the last dim as torch's opset-13 export spells it.
Graph layer_norm_graph(const LnParts& p) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,5,8");
  const Value m = b.op("ReduceMean", {x}, {{"axes", p.axes}}, "mean");
  const Value d = b.op("Sub", {x, m}, {}, "sub");
  const Value sq = b.op("Pow", {d, b.scalar(p.exponent)}, {}, "pow");
  const Value v = b.op("ReduceMean", {sq}, {{"axes", p.axes}}, "var");
  const Value s = b.op("Sqrt", {b.op("Add", {v, b.scalar(p.eps)}, {}, "add_eps")}, {}, "sqrt");
  Value y = b.op("Div", {d, s}, {}, "div");
  if (p.affine) {
    y = b.op("Mul", {y, b.random_uniform("gamma", {8}, 1, 0.5, 1.5)}, {}, "mul");
    y = b.op("Add", {y, b.random_uniform("beta", {8}, 2, -0.5, 0.5)}, {}, "ln_out");
  }
  b.output(y);
  if (p.extra_reader) b.output(d);
  return b.build();
}

// Exact GELU as torch exports it: x * (1 + erf(x / sqrt 2)) * 0.5.
Graph gelu_graph(double root = std::sqrt(2.0), double one = 1.0, double half = 0.5, bool half_first = false) {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~4,16");
  const Value e = b.op("Erf", {b.op("Div", {x, b.scalar(root)}, {}, "div")}, {}, "erf");
  const Value p = b.op("Add", {e, b.scalar(one)}, {}, "plus");
  Value y;
  if (half_first) y = b.op("Mul", {b.op("Mul", {x, b.scalar(half)}, {}, "half"), p}, {}, "gelu_out");
  else y = b.op("Mul", {b.op("Mul", {x, p}, {}, "times"), b.scalar(half)}, {}, "gelu_out");
  b.output(y.relu("after"));
  return b.build();
}

}  // namespace

TEST_CASE("fuse_layer_norm: torch's decomposed LayerNorm becomes one LayerNormalization") {
  const Graph g = layer_norm_graph({});
  ge::PassStats st;
  const Graph f = ge::fuse_layer_norm(g, &st);
  CHECK(st.nodes_added == 1);
  CHECK(st.nodes_removed == 9);
  REQUIRE(f.nodes().size() == 1);
  const ge::Node& ln = f.nodes()[0];
  CHECK(ln.op == "LayerNormalization");
  CHECK(ln.attrs.at("epsilon").as_float() == doctest::Approx(1e-5));
  CHECK(f.value(ln.outputs[0]).name == "ln_out");
  check_same(g, f, 1e-5);
  // Without the affine part: Scale is ones, no B.
  const Graph plain = layer_norm_graph({.affine = false});
  const Graph pf = ge::fuse_layer_norm(plain);
  CHECK(count(pf, "LayerNormalization") == 1);
  check_same(plain, pf, 1e-5);
  // The positive last axis and d * d spell the same thing.
  const Graph pos = layer_norm_graph({.axes = {2}});
  CHECK(count(ge::fuse_layer_norm(pos), "LayerNormalization") == 1);
}

TEST_CASE("fuse_layer_norm leaves other functions alone") {
  for (const LnParts& p : {LnParts{.exponent = 3.0}, LnParts{.axes = {1}}, LnParts{.axes = {-2}},
                           LnParts{.extra_reader = true}}) {
    const Graph g = layer_norm_graph(p);
    check_unchanged(g, ge::fuse_layer_norm(g));
  }
}

TEST_CASE("fuse_gelu: Div/Erf/Add/Mul/Mul becomes one Gelu, in either product order") {
  for (const bool half_first : {false, true}) {
    const Graph g = gelu_graph(std::sqrt(2.0), 1.0, 0.5, half_first);
    ge::PassStats st;
    const Graph f = ge::fuse_gelu(g, &st);
    CHECK(st.nodes_added == 1);
    CHECK(count(f, "Gelu") == 1);
    CHECK(count(f, "Erf") == 0);
    CHECK(f.nodes().size() == 2);
    CHECK(f.value(ge::test::node(f, "gelu_out").outputs[0]).name == "gelu_out");
    check_same(g, f, 1e-5);
  }
}

TEST_CASE("fuse_gelu leaves other constants alone") {
  for (const auto& [root, one, half] : std::vector<std::tuple<double, double, double>>{
           {2.0, 1.0, 0.5}, {std::sqrt(2.0), 2.0, 0.5}, {std::sqrt(2.0), 1.0, 0.25}}) {
    const Graph g = gelu_graph(root, one, half);
    check_unchanged(g, ge::fuse_gelu(g));
  }
}

TEST_CASE("fuse_matmul_epilogue: MatMul + bias [+ Gelu or Relu] [+ residual] into FusedMatMul") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,3,8");
  const Value r = b.input("r", DataType::f32, "2,3,16");
  const Value w1 = b.random_weights("w1", {8, 16}, 1);
  const Value h = b.op("Add", {b.random_uniform("b1", {16}, 2, -1, 1), b.op("MatMul", {x, w1}, {}, "mm1")}, {}, "bias1");
  const Value a = b.op("Gelu", {h}, {}, "gelu");
  const Value w2 = b.random_weights("w2", {16, 16}, 3);
  const Value y2 = b.op("Add", {b.op("Add", {b.op("MatMul", {a, w2}, {}, "mm2"), b.random_uniform("b2", {16}, 4, -1, 1)}),
                                r},
                        {}, "res");
  const Value w3 = b.random_weights("w3", {16, 4}, 5);
  const Value y3 = b.op("MatMul", {y2, w3}, {}, "mm3").relu("relu3");
  const Value y4 = b.op("MatMul", {y3, b.random_weights("w4", {4, 4}, 6)}, {}, "mm4");  // nothing to fuse
  b.output(y4);
  const Graph g = b.build();
  ge::PassStats st;
  const Graph f = ge::fuse_matmul_epilogue(g, &st);
  CHECK(st.nodes_added == 3);
  CHECK(count(f, "FusedMatMul") == 3);
  CHECK(count(f, "MatMul") == 1);
  CHECK(f.nodes().size() == 4);
  CHECK(ge::test::node(f, "mm1").attrs.at("activation").as_string() == "Gelu");
  CHECK(ge::test::node(f, "mm2").inputs.size() == 4);  // A, B, bias, residual
  CHECK(ge::test::node(f, "mm3").attrs.at("activation").as_string() == "Relu");
  CHECK(ge::test::node(f, "mm3").inputs.size() == 2);
  check_same(g, f, 1e-5);
}

TEST_CASE("FusedMatMul: a broadcasting residual, a bias of the wrong size, a B that is not constant") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "3,8");
  const Value r = b.input("r", DataType::f32, "1,16");
  const Value w = b.random_weights("w", {8, 16}, 1);
  b.output(b.op("Add", {b.op("MatMul", {x, w}, {}, "mm"), r}, {}, "res"));
  const Graph g = b.build();
  const Graph f = ge::fuse_matmul_epilogue(g);
  CHECK(count(f, "FusedMatMul") == 1);
  check_same(g, f, 1e-5);

  const auto bad = [](std::vector<std::int64_t> bias, bool constant_b) {
    GraphBuilder gb;
    const Value x = gb.input("x", DataType::f32, "3,8");
    const Value w = constant_b ? gb.random_weights("w", {8, 16}, 1) : gb.input("w", DataType::f32, "8,16");
    (void)gb.op("FusedMatMul", {x, w, gb.random_uniform("b", std::move(bias), 2, -1, 1)}, {}, "fm");
  };
  expect_error([&] { bad({8}, true); }, ge::Errc::bad_op_inputs, "bias", "[16]");
  const auto op = [](bool constant_b) {
    std::vector<ge::OpTensor> ins{ge::OpTensor{DataType::f32, ge::Shape{3, 8}},
                                  constant_b ? ge::OpTensor::constant_of(Tensor::random(DataType::f32, {8, 16}, 1))
                                             : ge::OpTensor{DataType::f32, ge::Shape{8, 16}}};
    return ge::compile_op("FusedMatMul", ins, {ge::OpTensor{DataType::f32, ge::Shape{3, 16}}});
  };
  CHECK(op(true)->kernel != nullptr);
  expect_error([&] { (void)op(false); }, ge::Errc::no_kernel, "constant");
}

TEST_CASE("optimize fuses a transformer layer as exported: LayerNorm, GELU, MatMul epilogues") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~4,6,8");
  const Value h = b.op("Add", {b.op("MatMul", {x, b.random_weights("w1", {8, 32}, 1)}), b.random_uniform("b1", {32}, 2, -1, 1)});
  const Value e = b.op("Erf", {b.op("Div", {h, b.scalar(std::sqrt(2.0))})});
  const Value gl = b.op("Mul", {b.op("Mul", {h, b.op("Add", {e, b.scalar(1.0)})}), b.scalar(0.5)});
  const Value o = b.op("Add", {b.op("MatMul", {gl, b.random_weights("w2", {32, 8}, 3)}), b.random_uniform("b2", {8}, 4, -1, 1)});
  const Value s = b.op("Add", {x, o});
  const Value m = b.op("ReduceMean", {s}, {{"axes", std::vector<std::int64_t>{-1}}});
  const Value d = b.op("Sub", {s, m});
  const Value v = b.op("ReduceMean", {b.op("Pow", {d, b.scalar(2.0)})}, {{"axes", std::vector<std::int64_t>{-1}}});
  const Value n = b.op("Div", {d, b.op("Sqrt", {b.op("Add", {v, b.scalar(1e-5)})})});
  b.output(b.op("Add", {b.op("Mul", {n, b.random_uniform("g", {8}, 5, 0.5, 1.5)}), b.random_uniform("be", {8}, 6, -1, 1)}));
  const Graph g = b.build();
  std::vector<ge::PassStats> stats;
  const Graph f = ge::optimize(g, &stats);
  CHECK(count(f, "FusedMatMul") == 2);
  CHECK(count(f, "LayerNormalization") == 1);
  CHECK(count(f, "Erf") == 0);
  CHECK(f.nodes().size() == 3);  // the residual Add went into the second product
  check_same(g, f, 1e-5);
}

TEST_CASE("FusedMatMul with an activation and a residual computes act(A B + bias) + residual") {
  const auto graph = [](bool fused) {
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,5,8");
    const Value r = b.input("r", DataType::f32, "2,5,16");
    const Value w = b.random_weights("w", {8, 16}, 1);
    const Value bias = b.random_uniform("bias", {16}, 2, -1, 1);
    for (const char* act : {"Gelu", "Relu"}) {
      if (fused) {
        b.output(b.op("FusedMatMul", {x, w, bias, r}, {{"activation", act}}));
      } else {
        b.output(b.op("Add", {b.op(act, {b.op("Add", {b.op("MatMul", {x, w}), bias})}), r}));
      }
    }
    return b.build();
  };
  const Graph plain = graph(false);
  const Graph fused = graph(true);
  const auto in = ge::test::random_inputs(plain);
  CHECK(ge::test::relative_error(ge::test::run(fused, in), ge::test::run(plain, in)) <= 1e-5);
}

namespace {

// Attention as torch's nn.MultiheadAttention exports it: [seq, batch*heads, dim] values,
// Q and V through Transpose [1,0,2], K^T through [1,2,0], Q divided by sqrt(dim), the
// output transposed back.
Graph attention_graph(bool torch_layout, double divisor = 8.0, std::int64_t softmax_axis = -1) {
  GraphBuilder b;
  const char* shape = torch_layout ? "5,6,8" : "6,5,8";  // [seq, batch, dim] or [batch, seq, dim]
  const Value q = b.input("q", DataType::f32, shape);
  const Value k = b.input("k", DataType::f32, shape);
  const Value v = b.input("v", DataType::f32, shape);
  const auto t = [&](Value x, std::vector<std::int64_t> perm) { return b.op("Transpose", {x}, {{"perm", perm}}); };
  const Value qs = b.op("Div", {torch_layout ? t(q, {1, 0, 2}) : q, b.scalar(divisor)});
  const Value s = b.op("MatMul", {qs, torch_layout ? t(k, {1, 2, 0}) : t(k, {0, 2, 1})});
  const Value p = b.op("Softmax", {s}, {{"axis", softmax_axis}});
  const Value o = b.op("MatMul", {p, torch_layout ? t(v, {1, 0, 2}) : v}, {}, "context");
  b.output(torch_layout ? t(o, {1, 0, 2}) : o);
  return b.build();
}

}  // namespace

TEST_CASE("fuse_attention: MatMul, Softmax, MatMul with the scale and torch's transposes, in either layout") {
  for (const bool torch_layout : {true, false}) {
    CAPTURE(torch_layout);
    const Graph g = attention_graph(torch_layout);
    ge::PassStats st;
    const Graph f = ge::fuse_attention(g, &st);
    REQUIRE(f.nodes().size() == 1);
    const ge::Node& n = f.nodes()[0];
    CHECK(n.op == "FusedAttention");
    CHECK(n.attrs.at("scale").as_float() == doctest::Approx(0.125));
    CHECK(n.attrs.at("q_layout").as_string() == (torch_layout ? "sbd" : "bsd"));
    CHECK(n.attrs.at("k_layout").as_string() == (torch_layout ? "sbd" : "bsd"));
    CHECK(n.attrs.at("out_layout").as_string() == (torch_layout ? "sbd" : "bsd"));
    check_same(g, f, 1e-5);
  }
  // Softmax over another axis is another function.
  const Graph other = attention_graph(true, 8.0, 1);
  check_unchanged(other, ge::fuse_attention(other));
}

TEST_CASE("FusedAttention refuses inputs that do not fit") {
  const auto build = [](const char* q, const char* k, const char* v) {
    GraphBuilder b;
    (void)b.op("FusedAttention", {b.input("q", DataType::f32, q), b.input("k", DataType::f32, k),
                                  b.input("v", DataType::f32, v)});
  };
  expect_error([&] { build("2,5,8", "2,5,4", "2,5,8"); }, ge::Errc::bad_op_inputs, "feature dims");
  expect_error([&] { build("2,5,8", "3,5,8", "3,5,8"); }, ge::Errc::bad_op_inputs, "batches");
  expect_error([&] { build("2,5,8", "2,6,8", "2,5,8"); }, ge::Errc::bad_op_inputs, "sequence lengths");
  expect_error([&] { build("2,5,8,1", "2,5,8", "2,5,8"); }, ge::Errc::bad_op_inputs, "rank 3");
  // A shape range fits, and the output keeps it.
  GraphBuilder b;
  const Value y = b.op("FusedAttention", {b.input("q", DataType::f32, "1~4,5,8"), b.input("k", DataType::f32, "1~4,7,8"),
                                          b.input("v", DataType::f32, "1~4,7,3")});
  CHECK(b.graph().value(y.id()).desc.shape.to_string() == "1~4,5,3");
}
