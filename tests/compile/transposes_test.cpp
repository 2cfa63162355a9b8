// Tests of fold_transposes (ge/compile/passes.hpp): a Transpose of a Transpose becomes
// one, or none where the two undo each other; graph outputs and other readers keep what
// they read; the outputs stay.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/graph_eval.hpp"

#include "ge/compile/passes.hpp"
#include "ge/graph/builder.hpp"

using ge::DataType;
using ge::Graph;
using ge::GraphBuilder;
using ge::Value;
using ge::test::check_same;
using ge::test::count;
using ge::test::node;

namespace {

Value transpose(GraphBuilder& b, Value x, std::vector<std::int64_t> perm, const char* name) {
  return b.op("Transpose", {x}, {{"perm", perm}}, name);
}

}  // namespace

TEST_CASE("fold_transposes: NHWC and back cancels, a chain composes into one, the default perm counts") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,3,4,5");
  const Value to_nhwc = transpose(b, x, {0, 2, 3, 1}, "to_nhwc");
  const Value back = transpose(b, to_nhwc, {0, 3, 1, 2}, "back");  // undoes it
  const Value y = back.relu("relu");
  const Value a = transpose(b, y, {1, 0, 2, 3}, "a");
  const Value c = transpose(b, a, {0, 1, 3, 2}, "c");     // composes with a
  const Value d = b.op("Transpose", {c}, {}, "reversed");  // no perm: reversed
  const Value e = transpose(b, d, {3, 2, 1, 0}, "e");     // undoes the reversal
  b.output(e.sigmoid("out"));
  const Graph g = b.build();
  ge::PassStats st;
  const Graph f = ge::remove_dead_code(ge::fold_transposes(g, &st));
  CHECK(st.pass == "fold_transposes");
  CHECK(st.nodes_removed == 1);  // `back`
  CHECK(node(f, "relu").inputs[0] == f.inputs()[0].value);
  // a, c, the reversal and e fold one into the next, in order: one Transpose of y is left.
  CHECK(count(f, "Transpose") == 1);
  CHECK(node(f, "e").attrs.at("perm").as_ints() == std::vector<std::int64_t>{1, 0, 3, 2});
  CHECK(node(f, "e").inputs[0] == node(f, "relu").outputs[0]);
  check_same(g, f, 0);
}

TEST_CASE("fold_transposes keeps a graph output's name, and the first Transpose for its other readers") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,3,4");
  const Value t = transpose(b, x, {0, 2, 1}, "t");
  b.output(transpose(b, t, {0, 2, 1}, "undo"));  // a graph output: stays, as an identity Transpose of x
  b.output(t.relu("other"));
  const Graph g = b.build();
  const Graph f = ge::remove_dead_code(ge::fold_transposes(g));
  CHECK(node(f, "undo").inputs[0] == f.inputs()[0].value);
  CHECK(node(f, "undo").attrs.at("perm").as_ints() == std::vector<std::int64_t>{0, 1, 2});
  CHECK(node(f, "other").inputs[0] == node(f, "t").outputs[0]);
  CHECK(f.value(f.outputs()[0]).name == g.value(g.outputs()[0]).name);
  check_same(g, f, 0);
}

TEST_CASE("fold_transposes: a Transpose moves through a Reshape that splits or merges axes to meet another (MaxViT)") {
  // A window partition after a Transpose back to NCHW: x NHWC [2, 6, 4, 5] -> NCHW ->
  // split [2, 5, 3, 2, 2, 2] -> permute to windows; then the windows merged back and
  // permuted to NHWC through a merge Reshape. Each side keeps one Transpose: the split
  // now reads x in place, the merge writes the NHWC result.
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "2,6,4,5");
  const Value nchw = transpose(b, x, {0, 3, 1, 2}, "x.to_nchw");
  const auto shape = [&](const char* name, std::vector<std::int64_t> d) {
    return b.constant(name, ge::Tensor::from<std::int64_t>({static_cast<std::int64_t>(d.size())}, d));
  };
  const Value split = b.op("Reshape", {nchw, shape("s1", {2, 5, 3, 2, 2, 2})}, {}, "split");
  const Value windows = transpose(b, split, {0, 2, 4, 3, 5, 1}, "windows");  // [2, 3, 2, 2, 2, 5]
  const Value act = windows.relu("act");
  const Value back = transpose(b, act, {0, 5, 1, 3, 2, 4}, "back");  // [2, 5, 3, 2, 2, 2]
  const Value merged = b.op("Reshape", {back, shape("s2", {2, 5, 6, 4})}, {}, "merge");
  b.output(transpose(b, merged, {0, 2, 3, 1}, "y.to_nhwc").sigmoid("out"));
  const Graph g = b.build();
  CHECK(count(g, "Transpose") == 4);
  const Graph f = ge::remove_dead_code(ge::fold_transposes(g));
  CHECK(count(f, "Transpose") == 2);
  CHECK(count(f, "Reshape") == 2);
  // The split reads x itself; the layout Transposes folded into the model's own are named
  // after those.
  CHECK(node(f, "split").inputs[0] == f.inputs()[0].value);
  for (const ge::Node& n : f.nodes()) CHECK(n.name.find(".to_n") == std::string::npos);
  check_same(g, f, 0);
  // The same under a free batch, as torch exports it: the split's batch read by Shape and
  // Gather from the NCHW image (that Shape then reads x: the Transpose's one reader is the
  // split), the merge's -1. The batch stays one axis of its own.
  GraphBuilder d;
  const Value dx = d.input("x", DataType::f32, "1~3,6,4,5");
  const auto dshape = [&](const char* name, std::vector<std::int64_t> v) {
    return d.constant(name, ge::Tensor::from<std::int64_t>({static_cast<std::int64_t>(v.size())}, v));
  };
  const Value dnchw = transpose(d, dx, {0, 3, 1, 2}, "x.to_nchw");
  const Value batch = dnchw.shape_of("batch.shape").gather(d.scalar(0, DataType::i64), 0, "batch");
  const Value dsplit =
      d.op("Reshape", {dnchw, ge::concat({batch.unsqueeze({0}), dshape("s1", {5, 3, 2, 2, 2})}, 0)}, {}, "split");
  const Value dact = transpose(d, dsplit, {0, 2, 4, 3, 5, 1}, "windows").relu("act");
  const Value dmerged = d.op("Reshape", {transpose(d, dact, {0, 5, 1, 3, 2, 4}, "back"), dshape("s2", {-1, 5, 6, 4})},
                             {}, "merge");
  d.output(transpose(d, dmerged, {0, 2, 3, 1}, "y.to_nhwc").sigmoid("out"));
  const Graph dg = ge::fold_constants(d.build());
  CHECK(count(dg, "Transpose") == 4);
  const Graph df = ge::remove_dead_code(ge::fold_transposes(dg));
  CHECK(count(df, "Transpose") == 2);
  CHECK(node(df, "split").inputs[0] == df.inputs()[0].value);
  CHECK(df.value(node(df, "split").outputs[0]).desc.shape.dims()[0] == ge::Dim::range(1, 3));
  check_same(dg, df, 0);
  // A Reshape that mixes axes (neither a split nor a merge) stays between its Transposes.
  GraphBuilder c;
  const Value cx = c.input("x", DataType::f32, "2,6,4");
  const Value ct = transpose(c, cx, {0, 2, 1}, "t");  // [2, 4, 6]
  const Value cr = c.op("Reshape", {ct, c.constant("s", ge::Tensor::from<std::int64_t>({3}, {2, 6, 4}))}, {}, "mix");
  c.output(transpose(c, cr, {0, 2, 1}, "u"));
  const Graph cg = c.build();
  const Graph cf = ge::remove_dead_code(ge::fold_transposes(cg));
  CHECK(count(cf, "Transpose") == 2);
  check_same(cg, cf, 0);
}

TEST_CASE("fold_transposes: the layout pass's Transpose into NHWC goes into a first conv over few channels") {
  // x [2, 3, 17, 19] -> stem 3x3 stride 2 (3 -> 16) + ReLU -> depthwise 3x3 and 1x1 pairs
  // -> 1x1 (to 8): the chain's one image from outside is read only by the stem, which
  // reads it NCHW as given.
  for (const bool pooled : {false, true}) {
    CAPTURE(pooled);
    GraphBuilder b;
    const Value x = b.input("x", DataType::f32, "2,3,17,19");
    Value y = x.conv2d(b.random_weights("stem.w", {16, 3, 3, 3}, 1), b.random_uniform("stem.b", {16}, 2, -0.5, 0.5),
                       {.stride = 2, .pad = 1, .name = "stem"})
                  .relu("stem.relu");
    // With a MaxPool beside the stem (an NHWC member reading the same image), the
    // Transpose stays for it, and the stem reads NHWC too.
    std::int64_t c = 16;
    if (pooled) {
      y = ge::concat({y, x.max_pool({3, 2, 1})}, 1, "cat");
      c = 19;
    }
    for (std::uint64_t i = 0; i < 3; ++i) {
      const Value d = y.conv2d(b.random_weights("dw.w" + std::to_string(i), {c, 1, 3, 3}, 10 + i),
                               {.pad = 1, .group = c})
                          .relu();
      y = d.conv2d(b.random_weights("pw.w" + std::to_string(i), {c, c, 1, 1}, 20 + i)).relu();
    }
    b.output(y.conv2d(b.random_weights("head.w", {8, c, 1, 1}, 3), {.name = "head"}));
    const Graph g = ge::fuse_activations(b.build());
    const Graph o = ge::layout_nhwc(g);
    CHECK(count(o, "Transpose") == 2);  // the chain's image in (x, read by the stem and the pool), its output out
    ge::PassStats st;
    const Graph f = ge::remove_dead_code(ge::fold_transposes(o, &st));
    CHECK(node(f, "stem").op == "FusedConv");
    if (!pooled) {
      CHECK(st.nodes_removed == 1);
      CHECK(count(f, "Transpose") == 1);  // the head's output goes back to NCHW
      CHECK(node(f, "stem").inputs[0] == f.inputs()[0].value);
      CHECK(node(f, "stem").attrs.at("x_layout").as_string() == "NCHW");
    } else {
      CHECK(count(f, "Transpose") == 2);
      CHECK(!node(f, "stem").attrs.contains("x_layout"));
    }
    check_same(g, f, 1e-4);
  }
}
