// Tests of padding to a gear (SessionOptions::pad_to_gear, CompiledModel::padding()): the
// compile-time analysis says which gear values no op mixes across, a padded run's outputs
// equal an unpadded run's bit for bit, and padding that would change results is refused
// naming the op (or, in hybrid mode, left to the range plan).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/calibrate.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;
using Ints = std::vector<std::int64_t>;

namespace {

std::vector<float> ramp(std::int64_t n, int seed = 0) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37 + static_cast<std::size_t>(seed)) % 23) * 0.1f - 1.f;
  return v;
}

// x [-1, 16]: relu(x W + b) + softmax(x) along `softmax_axis`.
ge::Graph mlp(std::int64_t softmax_axis = 1) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,16");
  const auto h = b.op("Relu", {b.op("Add", {b.op("MatMul", {x, b.random_weights("w", {16, 16}, 3)}),
                                            b.random_weights("bias", {16}, 4)})}, {}, "h");
  b.output(b.op("Add", {h, b.op("Softmax", {x}, {{"axis", softmax_axis}}, "softmax")}, {}, "y"));
  return b.build();
}

// A small CNN: x [-1, 3, -1, -1] -> conv 3x3 -> relu -> global pool -> flatten -> gemm.
ge::Graph cnn() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,3,-1,-1");
  const auto c = b.op("Relu", {b.op("Conv", {x, b.random_weights("cw", {8, 3, 3, 3}, 5)},
                                    {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}}, "conv")});
  const auto f = b.op("Flatten", {b.op("GlobalAveragePool", {c})});
  b.output(b.op("Gemm", {f, b.random_weights("fw", {4, 8}, 6), b.random_weights("fb", {4}, 7)}, {{"transB", std::int64_t{1}}},
                "logits"));
  return b.build();
}

// A transformer-like block over x [-1, -1, 8] (batch, sequence): the rows through a
// reshape to [b*s, 8], a MatMul and back, then attention scores over the sequence.
ge::Graph block() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,-1,8");
  const auto shape = b.op("Shape", {x});
  const auto flat = b.op("Reshape", {x, b.constant("flat", ge::Tensor::from<std::int64_t>({2}, {-1, 8}))});
  const auto y = b.op("MatMul", {flat, b.random_weights("w", {8, 8}, 8)});
  const auto back = b.op("Reshape", {y, shape}, {}, "back");
  const auto scores = b.op("MatMul", {back, b.op("Transpose", {back}, {{"perm", Ints{0, 2, 1}}})}, {}, "scores");
  b.output(b.op("Softmax", {scores}, {{"axis", std::int64_t{-1}}}, "attention"));
  return b.build();
}

struct Ran {
  std::vector<std::vector<float>> outputs;
  std::vector<Ints> dims;
  ge::RunResult result;
};

Ran run(const std::shared_ptr<const ge::CompiledModel>& model, const Ints& dims, bool pad) {
  std::int64_t n = 1;
  for (const auto d : dims) n *= d;
  std::vector<float> x = ramp(n);
  ge::Session s(model, {.threads = 1, .pad_to_gear = pad});
  Ran r;
  r.result = s.run({ge::TensorView{x.data(), DataType::f32, dims}});
  for (const auto& o : r.result.outputs) {
    const auto v = o.values<float>();
    r.outputs.emplace_back(v.begin(), v.end());
    r.dims.push_back(o.dims);
  }
  return r;
}

}  // namespace

TEST_CASE("padding analysis: the batch of an MLP is independent; a softmax across it is not, named") {
  const auto model = ge::compile(mlp(), {{"ge.inputShape", "x:-1,16"}, {"ge.dynamicBatchSize", "1,4,8"}});
  REQUIRE(model->padding().size() == 1);
  const ge::GearPadding& p = model->padding()[0];
  CHECK(p.independent);
  CHECK(p.reason.empty());
  CHECK(p.dims == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}});
  CHECK(p.output_axis == std::vector<std::int32_t>{0});
  CHECK(p.output_factor == Ints{1});

  const auto across = ge::compile(mlp(0), {{"ge.inputShape", "x:-1,16"}, {"ge.dynamicBatchSize", "1,4,8"}});
  REQUIRE(across->padding().size() == 1);
  CHECK_FALSE(across->padding()[0].independent);
  CHECK(across->padding()[0].reason.find("'softmax' (Softmax)") != std::string::npos);
  // A model without gears has nothing to pad.
  CHECK(ge::compile(mlp(), {{"ge.inputShape", "x:2,16"}})->padding().empty());
}

TEST_CASE("pad_to_gear: batch 3 runs on gear 4, the outputs sliced back equal an unpadded run bit for bit") {
  const auto model = ge::compile(mlp(), {{"ge.inputShape", "x:-1,16"}, {"ge.dynamicBatchSize", "1,4,8"}});
  for (const std::int64_t batch : {2, 3, 5, 7}) {
    CAPTURE(batch);
    const Ran padded = run(model, {batch, 16}, true);
    const Ran fixed = run(ge::compile(mlp(), {{"ge.inputShape", "x:" + std::to_string(batch) + ",16"}}), {batch, 16}, false);
    CHECK(padded.result.plan == ge::PlanKind::gear);
    CHECK(padded.result.gear == (batch <= 4 ? 1 : 2));
    CHECK(padded.result.padding_waste == doctest::Approx(1.0 - static_cast<double>(batch) / (batch <= 4 ? 4 : 8)));
    CHECK(padded.dims[0] == Ints{batch, 16});
    CHECK(padded.outputs == fixed.outputs);
  }
  // A gear's own batch is not padded; beyond the largest gear nothing holds it.
  CHECK(run(model, {4, 16}, true).result.padding_waste == 0);
  std::vector<float> x = ramp(9 * 16);
  ge::Session s(model, {.pad_to_gear = true});
  ge::test::expect_error([&] { (void)s.run({ge::TensorView{x.data(), DataType::f32, {9, 16}}}); }, Errc::no_matching_gear,
                         "match no gear");
}

TEST_CASE("pad_to_gear: refused where padding would change results; hybrid mode runs those unpadded") {
  const ge::BuildOptions opts{{"ge.inputShape", "x:-1,16"}, {"ge.dynamicBatchSize", "1,4,8"}};
  const auto across = ge::compile(mlp(0), opts);
  std::vector<float> x = ramp(3 * 16);
  ge::Session s(across, {.pad_to_gear = true});
  ge::test::expect_error([&] { (void)s.run({ge::TensorView{x.data(), DataType::f32, {3, 16}}}); }, Errc::padding_unsafe,
                         "x:3,16", "gear 1", "would change the results", "'softmax' (Softmax)");
  ge::BuildOptions hybrid = opts;
  hybrid.set("ge.compileHybridMode", "1");
  const Ran r = run(ge::compile(mlp(0), hybrid), {3, 16}, true);
  CHECK(r.result.plan == ge::PlanKind::signature);  // unpadded, on a plan made for batch 3
  CHECK(r.result.padding_waste == 0);
  CHECK(r.outputs == run(ge::compile(mlp(0), {{"ge.inputShape", "x:3,16"}}), {3, 16}, false).outputs);
  // pad_to_gear needs gears.
  ge::test::expect_error([&] { ge::Session none(ge::compile(mlp(), {{"ge.inputShape", "x:2,16"}}), {.pad_to_gear = true}); },
                         Errc::missing_gears, "pad_to_gear", "without gears");
}

TEST_CASE("pad_to_gear: a CNN pads its batch, not its image size (the conv mixes pixels)") {
  const auto batch = ge::compile(cnn(), {{"ge.inputShape", "x:-1,3,8,8"}, {"ge.dynamicBatchSize", "2,4"}});
  REQUIRE(batch->padding().size() == 1);
  CHECK(batch->padding()[0].independent);
  const Ran padded = run(batch, {3, 3, 8, 8}, true);
  CHECK(padded.result.gear == 1);
  CHECK(padded.dims[0] == Ints{3, 4});
  CHECK(padded.outputs == run(ge::compile(cnn(), {{"ge.inputShape", "x:3,3,8,8"}}), {3, 3, 8, 8}, false).outputs);

  const auto image = ge::compile(cnn(), {{"ge.inputShape", "x:1,3,-1,-1"}, {"ge.dynamicImageSize", "8,8;16,16"},
                                         {"ge.inputFormat", "NCHW"}});
  REQUIRE(image->padding().size() == 2);  // H and W
  for (const auto& p : image->padding()) {
    CHECK_FALSE(p.independent);
    CHECK(p.reason.find("Conv)") != std::string::npos);  // the conv, with its Relu fused
  }
  std::vector<float> x = ramp(3 * 8 * 12);
  ge::Session s(image, {.pad_to_gear = true});
  ge::test::expect_error([&] { (void)s.run({ge::TensorView{x.data(), DataType::f32, {1, 3, 8, 12}}}); },
                         Errc::padding_unsafe, "Conv)", "mixes elements across the padded dim");
}

TEST_CASE("pad_to_gear: a transformer block pads the batch through reshapes, not the sequence") {
  const auto model = ge::compile(block(), {{"ge.inputShape", "x:-1,-1,8"}, {"ge.dynamicDims", "2,4;4,8;8,8"}});
  REQUIRE(model->padding().size() == 2);
  CHECK(model->padding()[0].independent);
  CHECK(model->padding()[0].output_axis == std::vector<std::int32_t>{0});
  // The sequence rides through the reshape to [b*s, 8] (inside the rows' axis, its rows
  // still apart) and is refused where the attention scores contract over it.
  CHECK_FALSE(model->padding()[1].independent);
  CHECK(model->padding()[1].reason.find("'scores' (MatMul)") != std::string::npos);
  // Batch 3, sequence 8: padded to gear 1 (4, 8), the smallest that holds it.
  const Ran padded = run(model, {3, 8, 8}, true);
  CHECK(padded.result.gear == 1);
  CHECK(padded.dims[0] == Ints{3, 8, 8});
  CHECK(padded.outputs == run(ge::compile(block(), {{"ge.inputShape", "x:3,8,8"}}), {3, 8, 8}, false).outputs);
  // Sequence 6 would need padding along the sequence.
  std::vector<float> x = ramp(2 * 6 * 8);
  ge::Session s(model, {.pad_to_gear = true});
  ge::test::expect_error([&] { (void)s.run({ge::TensorView{x.data(), DataType::f32, {2, 6, 8}}}); }, Errc::padding_unsafe,
                         "'scores' (MatMul)");
}

TEST_CASE("pad_to_gear: a mean over the batch, or the batch size read as data, is not independent") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,4");
  b.output(b.op("ReduceMean", {x}, {{"axes", Ints{0}}}, "mean"));
  const auto reduce = ge::compile(b.build(), {{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "2,4"}});
  REQUIRE(reduce->padding().size() == 1);
  CHECK(reduce->padding()[0].reason.find("'mean' (ReduceMean)") != std::string::npos);

  ge::GraphBuilder c;
  const auto y = c.input("x", DataType::f32, "-1,4");
  const auto n = c.op("Cast", {c.op("Gather", {c.op("Shape", {y}), c.constant("zero", ge::Tensor::scalar<std::int64_t>(0))})},
                      {{"to", "f32"}});
  c.output(c.op("Div", {y, n}, {}, "scaled"));
  const auto size = ge::compile(c.build(), {{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "2,4"}});
  REQUIRE(size->padding().size() == 1);
  CHECK_FALSE(size->padding()[0].independent);
  CHECK(size->padding()[0].reason.find("size of the padded dim") != std::string::npos);
}

TEST_CASE("pad_to_gear: into the caller's output buffers, checked against the real dims") {
  const auto model = ge::compile(mlp(), {{"ge.inputShape", "x:-1,16"}, {"ge.dynamicBatchSize", "1,4"}});
  std::vector<float> x = ramp(3 * 16), y(3 * 16, -7.f), small(2 * 16);
  ge::Session s(model, {.pad_to_gear = true});
  const auto r = s.run({ge::TensorView{x.data(), DataType::f32, {3, 16}}}, {ge::TensorView{y.data(), DataType::f32, {3, 16}}});
  CHECK(r.outputs[0].data == y.data());
  CHECK(y == run(ge::compile(mlp(), {{"ge.inputShape", "x:3,16"}}), {3, 16}, false).outputs[0]);
  ge::test::expect_error(
      [&] { (void)s.run({ge::TensorView{x.data(), DataType::f32, {3, 16}}}, {ge::TensorView{small.data(), DataType::f32, {2, 16}}}); },
      Errc::bad_tensor, "output 0 ('y')", "[3,16]");
}

TEST_CASE("batch invariance: a row of a matrix product has the same bits whatever the rows beside it") {
  // Padding relies on it: the kernels take small-M, edge-row and full-tile paths by M,
  // and each must sum a row's products in the same order (K blocks of 256).
  for (const std::int64_t k : {100, 700}) {
    ge::GraphBuilder b;
    const auto x = b.input("x", DataType::f32, "-1," + std::to_string(k));
    b.output(b.op("Gemm", {x, b.random_weights("w", {k, 40}, 9), b.random_weights("c", {40}, 10)}, {}, "y"));
    const ge::Graph g = b.build();
    const auto at = [&](std::int64_t m) {
      std::vector<float> in = ramp(m * k);
      ge::Session s(ge::compile(g, {{"ge.inputShape", "x:" + std::to_string(m) + "," + std::to_string(k)}}), {.threads = 2});
      const ge::RunResult r = s.run({ge::TensorView{in.data(), DataType::f32, {m, k}}});
      const auto v = r.outputs[0].values<float>();
      return std::vector<float>(v.begin(), v.end());
    };
    const std::vector<float> all = at(200);
    for (const std::int64_t m : {1, 2, 3, 5, 6, 7, 11, 12, 13, 17, 128}) {
      CAPTURE(k);
      CAPTURE(m);
      CHECK(at(m) == std::vector<float>(all.begin(), all.begin() + m * 40));
    }
  }
}

TEST_CASE("calibrate: this machine's speeds, positive, with the threads asked") {
  const ge::MachineSpeed s = ge::calibrate(1);
  CHECK(s.gemm_gflops > 0.1);
  CHECK(s.stream_gbs > 0.01);
  CHECK(s.step_us > 0);
  CHECK(s.threads == 1);
  ge::test::expect_error([] { (void)ge::calibrate(-1); }, Errc::invalid_argument, "threads -1");
}
