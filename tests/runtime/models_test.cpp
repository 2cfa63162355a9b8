// The three example models compiled with four batch gears and with a batch range: every
// plan verifies, and runs match the reference interpreter.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/ge.hpp"
#include "support/reference.hpp"

namespace {

using ge::ref::RefTensor;

struct Case {
  std::string name;
  ge::Graph gears_graph;   // batch -1, for INPUT_SHAPE + DYNAMIC_BATCH_SIZE
  ge::Graph range_graph;   // batch 1~4
  std::string input_shape; // INPUT_SHAPE with -1 batch
  std::vector<RefTensor> inputs;  // batch 2
};

std::vector<ge::TensorView> views(std::vector<RefTensor>& ts) {
  std::vector<ge::TensorView> v;
  for (RefTensor& t : ts) v.push_back({t.bytes.data(), t.dtype, t.dims});
  return v;
}

void check_against(const std::vector<RefTensor>& expected, const ge::RunResult& r, const std::string& what) {
  REQUIRE(r.outputs.size() == expected.size());
  for (std::size_t o = 0; o < expected.size(); ++o) {
    INFO(what << " output " << o);
    REQUIRE(r.outputs[o].dims == expected[o].dims);
    // Random weights make large logits (ResNet-50: ~1e4): the absolute tolerance scales
    // with the largest expected value, so elements near zero are not held to 1e-4.
    double scale = 0;
    for (const double v : expected[o].to_doubles()) scale = std::max(scale, std::abs(v));
    std::string why;
    const bool ok = ge::ref::all_close(expected[o], static_cast<const float*>(r.outputs[o].data),
                                       expected[o].elements(), 1e-3, 1e-4 + 1e-5 * scale, &why);
    CHECK_MESSAGE(ok, why);
  }
}

void run_case(Case& c) {
  INFO(c.name);
  const auto expected = ge::ref::run_reference(c.range_graph, c.inputs);
  auto in = views(c.inputs);

  // Four batch gears.
  ge::BuildOptions opts{{"ge.inputShape", c.input_shape}, {"ge.dynamicBatchSize", "1,2,3,4"}};
  auto gears = ge::compile(c.gears_graph, opts);
  REQUIRE(gears->plans().size() == 4);
  for (const auto& p : gears->plans()) {
    ge::verify(*p);
    CHECK(p->static_shapes);
    CHECK(p->memory.arena_bytes >= p->memory.lower_bound);
  }
  CHECK(gears->arena_bytes() == gears->plans()[3]->arena_bytes());
  ge::Session gs(gears, {.threads = 2});
  const auto r = gs.run(in);
  CHECK(r.gear == 1);
  check_against(expected, r, "gears");

  // A batch range: one plan, planned for batch 4.
  auto range = ge::compile(c.range_graph);
  REQUIRE(range->plans().size() == 1);
  ge::verify(*range->plans()[0]);
  ge::Session rs(range, {.threads = 2});
  check_against(expected, rs.run(in), "range");
}

}  // namespace

TEST_CASE("models: ResNet-50 with batch gears and a batch range matches the reference") {
  Case c{"resnet50", ge::models::resnet50("-1,3,64,64"), ge::models::resnet50("1~4,3,64,64"), "data:-1,3,64,64",
         {RefTensor::random(ge::DataType::f32, {2, 3, 64, 64}, 11)}};
  run_case(c);
}

TEST_CASE("models: MobileNetV2 with batch gears and a batch range matches the reference") {
  Case c{"mobilenet_v2", ge::models::mobilenet_v2("-1,3,64,64"), ge::models::mobilenet_v2("1~4,3,64,64"),
         "data:-1,3,64,64", {RefTensor::random(ge::DataType::f32, {2, 3, 64, 64}, 12)}};
  run_case(c);
}

TEST_CASE("models: the BERT-style encoder with batch gears and a batch range matches the reference") {
  RefTensor mask(ge::DataType::i64, {2, 16});
  auto m = mask.as<std::int64_t>();
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = (i % 16) < (i < 16 ? 16u : 11u) ? 1 : 0;  // padding in row 2
  Case c{"bert_encoder", ge::models::bert_encoder("-1", "16"), ge::models::bert_encoder("1~4", "16"),
         "hidden_states:-1,16,256;attention_mask:-1,16",
         {RefTensor::random(ge::DataType::f32, {2, 16, 256}, 13), mask}};
  run_case(c);
}
