// If and Loop built in code (GraphBuilder::if_, GraphBuilder::loop): shapes inferred
// through the bodies, run with batch gears and with a range, written to ONNX and read
// back; bad bodies refused naming the node.
#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::GraphBuilder;
using ge::Tensor;
using ge::Value;
using Values = std::vector<Value>;

namespace {

template <class T>
std::vector<T> vec(std::span<const T> s) {
  return {s.begin(), s.end()};
}

// y = sum(x) > 0 ? x * 2 : relu(x) - 1; then z = Loop: acc <- acc * 0.5 + x, n times
// (n an input), with the accumulator after each step stacked.
ge::Graph model() {
  GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "-1,3");
  const Value n = b.input("n", DataType::i64, "");
  const Value positive = b.op("Greater", {b.op("ReduceSum", {x}, {{"keepdims", std::int64_t{0}}}), b.scalar(0)});
  const Value y = b.if_(
      positive, {x}, [](GraphBuilder&, const Values& in) { return Values{in[0] * 2.0}; },
      [](GraphBuilder&, const Values& in) { return Values{in[0].relu() - 1.0}; }, "branch")[0];
  const Values loop = b.loop(
      n, Value{}, {y}, {x},
      [](GraphBuilder& body, const Values& in) {
        const Value acc = in[2] * 0.5 + in[3];
        return Values{body.op("Identity", {in[1]}), acc, acc};
      },
      "steps");
  b.output(y);
  b.output(loop[0]);
  b.output(loop[1]);
  return b.build();
}

struct Want {
  std::vector<float> y, acc, stacked;
};

Want reference(const std::vector<float>& x, std::int64_t n) {
  float sum = 0;
  for (const float v : x) sum += v;
  Want w;
  for (const float v : x) w.y.push_back(sum > 0 ? v * 2 : std::max(v, 0.f) - 1);
  std::vector<float> acc = w.y;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < acc.size(); ++k) acc[k] = acc[k] * 0.5f + x[k];
    w.stacked.insert(w.stacked.end(), acc.begin(), acc.end());
  }
  w.acc = acc;
  return w;
}

}  // namespace

TEST_CASE("builder control flow: If and Loop run with gears and with a range") {
  const ge::Graph g = model();
  const ge::Node& branch = g.nodes()[*g.find_node("branch")];
  CHECK(branch.attrs.at("then_branch").as_graph().inputs().size() == 1);
  CHECK(g.value(g.outputs()[0]).desc.shape.to_string() == "-1,3");
  CHECK(g.value(g.outputs()[2]).desc.shape.to_string() == "-1,-1,3");  // stacked: iterations first
  for (const bool gears : {true, false}) {
    CAPTURE(gears);
    ge::BuildOptions o;
    if (gears)
      o.set("INPUT_SHAPE", "x:-1,3;n:").set("DYNAMIC_BATCH_SIZE", "1,2,4");
    else
      o.set("INPUT_SHAPE", "x:1~4,3;n:");
    const auto model = ge::compile(g, o);
    // A gear fixes the If's outputs (both branches give [batch, 3]): an ordinary step;
    // the Loop's count comes at run time, so it stays data-dependent.
    for (const auto& plan : model->plans()) CHECK(plan->data_dependent_steps == (gears ? 1U : 2U));
    ge::Session s(model, {.threads = 1});
    for (const std::int64_t batch : {1, 2, 4}) {
      for (const std::int64_t n : {0, 3}) {
        std::vector<float> x;
        for (std::int64_t i = 0; i < batch * 3; ++i) x.push_back(std::sin(static_cast<float>(i + batch + n)) - 0.2f);
        const std::int64_t dims[] = {batch, 3};
        std::int64_t steps = n;
        const auto r = s.run({ge::TensorView{x.data(), DataType::f32, dims}, ge::TensorView{&steps, DataType::i64, {}}});
        const Want w = reference(x, n);
        REQUIRE(r.outputs.size() == 3);
        CHECK(vec(r.outputs[0].values<float>()) == w.y);
        const auto acc = vec(r.outputs[1].values<float>());
        REQUIRE(acc.size() == w.acc.size());
        for (std::size_t k = 0; k < acc.size(); ++k) CHECK(acc[k] == doctest::Approx(w.acc[k]));
        CHECK(r.outputs[2].dims == std::vector<std::int64_t>{n, batch, 3});
        const auto stacked = vec(r.outputs[2].values<float>());
        REQUIRE(stacked.size() == w.stacked.size());
        for (std::size_t k = 0; k < stacked.size(); ++k) CHECK(stacked[k] == doctest::Approx(w.stacked[k]));
      }
    }
  }
}

TEST_CASE("builder control flow: a carried value may grow; bad bodies are errors naming the node") {
  GraphBuilder b;
  const Value start = b.input("start", DataType::f32, "1");
  // Each iteration appends one element: the carried value's dim is unknown after the loop.
  const Value grown = b.loop(b.constant("three", Tensor::scalar<std::int64_t>(3)), Value{}, {start}, {},
                             [](GraphBuilder& body, const Values& in) {
                               return Values{body.op("Identity", {in[1]}), ge::concat({in[2], in[2] * 2.0}, 0)};
                             },
                             "grow")[0];
  CHECK(!grown.shape().is_static());
  b.output(grown);
  ge::Session s(ge::compile(b.build()), {.threads = 1});
  float one = 1;
  const std::int64_t d1[] = {1};
  const auto r = s.run({ge::TensorView{&one, DataType::f32, d1}});
  CHECK(r.outputs[0].dims == std::vector<std::int64_t>{8});
  CHECK(vec(r.outputs[0].values<float>()) == std::vector<float>{1, 2, 2, 4, 2, 4, 4, 8});

  GraphBuilder bad;
  const Value x = bad.input("x", DataType::f32, "2");
  const Value c = bad.input("c", DataType::boolean, "");
  ge::test::expect_error(
      [&] {
        (void)bad.if_(
            c, {x}, [](GraphBuilder&, const Values& in) { return Values{in[0], in[0]}; },
            [](GraphBuilder&, const Values& in) { return Values{in[0]}; }, "uneven");
      },
      ge::Errc::bad_model, "uneven", "then_branch gives 2");
  ge::test::expect_error(
      [&] {
        (void)bad.loop(Value{}, c, {x}, {}, [](GraphBuilder& body, const Values& in) {
          return Values{body.op("Identity", {in[1]}), body.op("Cast", {in[2]}, {{"to", "i64"}})};
        }, "retyped");
      },
      ge::Errc::type_mismatch, "retyped", "carried value 0");
  ge::test::expect_error(
      [&] {
        GraphBuilder other;
        const Value stranger = other.input("s", DataType::f32, "2");
        (void)bad.if_(
            c, {x}, [&](GraphBuilder&, const Values&) { return Values{stranger}; },
            [](GraphBuilder&, const Values& in) { return Values{in[0]}; }, "foreign");
      },
      ge::Errc::invalid_argument, "foreign/then/");
}
