// Tests of per-plan specialisation (ge/compile/compile.hpp, ge::build_plan): the shape
// arithmetic exporters put before every Reshape (Shape -> Gather -> Unsqueeze -> Concat)
// is computed when a gear's plan is made, so that the plan is static; weights and
// kernels stay shared by the gears; a range plan keeps the run-time path.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/expect_error.hpp"

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"

using ge::DataType;
using ge::GraphBuilder;
using ge::Tensor;
using ge::Value;

namespace {

// y = Reshape(MatMul(x, W), [batch, 2, 8]) with the batch read at run time, as torch
// exports `y.view(x.size(0), 2, -1)`; then Softmax and back to [batch, 16].
ge::Graph exported_reshape() {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "-1,4");
  const Value h = b.op("MatMul", {x, b.random_weights("w", {4, 16}, 1)}, {}, "proj");
  const Value shape = b.op("Shape", {h}, {}, "shape");
  const Value batch = b.op("Gather", {shape, b.constant("zero", Tensor::scalar<std::int64_t>(0))}, {{"axis", std::int64_t{0}}},
                           "gather");
  const Value n = b.op("Unsqueeze", {batch, b.constant("axes0", Tensor::from<std::int64_t>({1}, {0}))}, {}, "unsq");
  const Value rest = b.constant("rest", Tensor::from<std::int64_t>({2}, {2, 8}));
  const Value target = b.op("Concat", {n, rest}, {{"axis", std::int64_t{0}}}, "concat");
  const Value r = b.op("Reshape", {h, target}, {}, "view");
  const Value s = b.op("Softmax", {r}, {{"axis", std::int64_t{-1}}}, "softmax");
  const Value flat = b.op("Concat", {n, b.constant("sixteen", Tensor::from<std::int64_t>({1}, {16}))},
                          {{"axis", std::int64_t{0}}}, "concat2");
  b.output(b.op("Reshape", {s, flat}, {}, "out"));
  return b.build();
}

std::vector<float> run(ge::Session& s, std::int64_t batch) {
  std::vector<float> x(static_cast<std::size_t>(batch * 4));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i));
  const std::int64_t dims[] = {batch, 4};
  const auto r = s.run({ge::TensorView{x.data(), DataType::f32, dims}});
  REQUIRE(r.outputs[0].dims == std::vector<std::int64_t>{batch, 16});
  const auto v = r.outputs[0].values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("specialise: each batch gear's plan is static, the shape arithmetic folded") {
  const auto model = ge::compile(exported_reshape(), {{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "1,3,8"}});
  REQUIRE(model->plans().size() == 3);
  for (const auto& p : model->plans()) {
    CAPTURE(p->gear);
    CHECK(p->static_shapes);
    CHECK(p->data_dependent_steps == 0);
    CHECK(p->per_run_values == 0);
    CHECK(p->folded_nodes == 5);       // Shape, Gather, Unsqueeze, two Concats
    CHECK(p->steps.size() == 4);       // MatMul, Reshape, Softmax, Reshape
    ge::verify(*p);
  }
  // One packed weight for all gears: the MatMul's kernel is the compiled graph's.
  const auto proj = [](const ge::Plan& p) {
    for (const auto& s : p.steps)
      if (s.name == "proj") return s.kernel;
    return std::shared_ptr<const ge::Kernel>{};
  };
  CHECK(proj(*model->plans()[0]) == proj(*model->plans()[2]));
  CHECK(proj(*model->plans()[0]) != nullptr);

  ge::Session s(model, {.threads = 2});
  const auto y8 = run(s, 8);
  // Each row of 8 sums to one (the Softmax over the reshaped last dim).
  for (std::size_t r = 0; r < 16; ++r) {
    double sum = 0;
    for (std::size_t k = 0; k < 8; ++k) sum += y8[r * 8 + k];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
  // The range plan keeps the run-time path and computes the same.
  const auto ranged = ge::compile(exported_reshape(), {{"ge.inputShape", "x:1~8,4"}});
  REQUIRE(ranged->plans().size() == 1);
  CHECK_FALSE(ranged->plans()[0]->static_shapes);
  CHECK(ranged->plans()[0]->data_dependent_steps > 0);
  ge::Session rs(ranged);
  CHECK(run(rs, 8) == y8);
  // An unbounded batch: a static plan per signature, made by the runtime.
  const auto open = ge::compile(exported_reshape());
  CHECK(open->plans_per_signature());
  ge::Session os(open);
  CHECK(run(os, 8) == y8);
  const auto p = ge::build_plan(*open, {ge::Shape{5, 4}});
  CHECK(p->static_shapes);
  CHECK(p->folded_nodes == 5);
}

TEST_CASE("specialise: a graph output that becomes constant is returned, and a fixed shape folds at compile") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "-1,3");
  b.output(x.relu("y"));
  b.output(b.op("Shape", {x}, {}, "dims"));
  const auto model = ge::compile(b.build(), {{"ge.inputShape", "x:-1,3"}, {"ge.dynamicBatchSize", "2,5"}});
  ge::Session s(model);
  std::vector<float> x5(15, -1.0f);
  const std::int64_t dims[] = {5, 3};
  const auto r = s.run({ge::TensorView{x5.data(), DataType::f32, dims}});
  CHECK(r.gear == 1);
  CHECK(r.outputs[1].values<std::int64_t>()[0] == 5);
  CHECK(r.outputs[1].values<std::int64_t>()[1] == 3);
  CHECK(model->plans()[1]->steps.size() == 1);
}

// One weight read by two convs, the second over a value that a gear's plan makes
// constant (a grid from the input's shape, as a model that unrolls its update steps
// makes one): both compiled kernels hold the weight packed and the graph lets its data
// go, so the gear's plan keeps the compiled kernel for the second conv (it once asked for
// the dropped data: an internal error on a valid model).
TEST_CASE("specialize: a packed weight shared by a conv whose other input a gear folds") {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "-1,3,6,6");
  const Value w = b.random_weights("W", {4, 3, 3, 3}, 7);
  const ge::Attributes pads{{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}};
  const Value a = b.op("Conv", {x, w}, pads, "conv1");
  const Value grid = b.op("ConstantOfShape", {b.op("Shape", {x}, {}, "shape")},
                          {{"value", Tensor::from<float>({1}, {0.5f})}}, "grid");
  const Value c = b.op("Conv", {grid, w}, pads, "conv2");
  b.output(b.op("Add", {a, c}, {}, "sum"));
  const ge::Graph g = b.build();
  std::vector<float> x2(2 * 3 * 6 * 6);
  for (std::size_t i = 0; i < x2.size(); ++i) x2[i] = std::sin(static_cast<float>(i));
  const std::int64_t dims[] = {2, 3, 6, 6};
  const auto run = [&](const std::shared_ptr<const ge::CompiledModel>& m) {
    ge::Session s(m, {.threads = 1});
    const auto r = s.run({ge::TensorView{x2.data(), DataType::f32, dims}});
    const auto v = r.outputs.at(0).values<float>();
    return std::vector<float>(v.begin(), v.end());
  };
  const auto fixed = run(ge::compile(g, ge::BuildOptions().set("INPUT_SHAPE", "x:2,3,6,6")));
  for (const char* option : {"DYNAMIC_BATCH_SIZE", "INPUT_SHAPE"}) {
    CAPTURE(option);
    ge::BuildOptions o;
    if (std::string(option) == "INPUT_SHAPE") {
      o.set("INPUT_SHAPE", "x:1~4,3,6,6");
    } else {
      o.set("INPUT_SHAPE", "x:-1,3,6,6").set("DYNAMIC_BATCH_SIZE", "1,2,4");
    }
    const auto got = run(ge::compile(g, o));
    REQUIRE(got.size() == fixed.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(fixed[i]).epsilon(1e-5));
  }
}

TEST_CASE("specialise: a BatchNormalization after a computed-shape Reshape compiles with batch gears") {
  // [batch, 32] -> Reshape(x, [Shape(x)[0], 2, 4, 4]) -> BatchNormalization: the passes
  // know the image's channels from the shape arithmetic (and make the norm a per-channel
  // conv); the kernels are chosen for what the passes knew, not for [-1, -1, -1, -1].
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "-1,32");
  const Value batch = b.op("Gather", {b.op("Shape", {x}, {}, "shape"), b.constant("zero", Tensor::scalar<std::int64_t>(0))},
                           {{"axis", std::int64_t{0}}}, "gather");
  const Value n = b.op("Unsqueeze", {batch, b.constant("axes0", Tensor::from<std::int64_t>({1}, {0}))}, {}, "unsq");
  const Value target = b.op("Concat", {n, b.constant("chw", Tensor::from<std::int64_t>({3}, {2, 4, 4}))},
                            {{"axis", std::int64_t{0}}}, "concat");
  const Value image = b.op("Reshape", {x, target}, {}, "to_image");
  const Value y = b.op("BatchNormalization",
                       {image, b.constant("scale", Tensor::from<float>({2}, {2.0f, -0.5f})),
                        b.constant("shift", Tensor::from<float>({2}, {1.0f, 0.25f})),
                        b.constant("mean", Tensor::from<float>({2}, {0.5f, -1.0f})),
                        b.constant("var", Tensor::from<float>({2}, {4.0f, 0.25f}))},
                       {{"epsilon", 0.0}}, "norm");
  b.output(y);
  const auto model = ge::compile(b.build(), {{"ge.inputShape", "x:-1,32"}, {"ge.dynamicBatchSize", "1,3"}});
  ge::Session s(model);
  std::vector<float> in(3 * 32);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37f * static_cast<float>(i));
  const std::int64_t dims[] = {3, 32};
  const auto r = s.run({ge::TensorView{in.data(), DataType::f32, dims}});
  REQUIRE(r.outputs[0].dims == std::vector<std::int64_t>{3, 2, 4, 4});
  const auto v = r.outputs[0].values<float>();
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool c1 = (i / 16) % 2 == 1;  // the channel of element i of [3, 2, 4, 4]
    const float want = c1 ? -0.5f * (in[i] + 1.0f) / 0.5f + 0.25f : 2.0f * (in[i] - 0.5f) / 2.0f + 1.0f;
    CHECK(v[i] == doctest::Approx(want).epsilon(1e-5));
  }
}
