// Dynamic shapes on torch's exports (tests/support/exports.hpp): hybrid mode runs a batch
// between the gears on the range plan, and padding to a gear is proved safe along the
// batch of all three models and gives a fixed-shape compile's outputs bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"
#include "support/exports.hpp"

namespace {

struct DynamicExport {
  const char* name;
  const char* input;
  std::vector<std::int64_t> dims;  // without the batch
  ge::DataType dtype;
};

const DynamicExport bert{"bert_tiny", "input_ids", {128}, ge::DataType::i64};
const DynamicExport mobilenet{"mobilenet_v2", "input", {3, 224, 224}, ge::DataType::f32};
const DynamicExport resnet{"resnet50", "input", {3, 224, 224}, ge::DataType::f32};

std::string shape(const DynamicExport& m, const std::string& batch) {
  std::string s = std::string(m.input) + ":" + batch;
  for (const auto d : m.dims) s += "," + std::to_string(d);
  return s;
}

std::vector<std::byte> input(const DynamicExport& m, std::int64_t batch) {
  std::int64_t n = batch;
  for (const auto d : m.dims) n *= d;
  std::vector<std::byte> bytes(static_cast<std::size_t>(n * ge::size_of(m.dtype)));
  for (std::int64_t i = 0; i < n; ++i) {
    if (m.dtype == ge::DataType::i64) {
      const std::int64_t id = (i * 7919) % 1000;
      std::memcpy(bytes.data() + i * 8, &id, 8);
    } else {
      const float v = static_cast<float>((i * 37) % 101) / 50.f - 1.f;
      std::memcpy(bytes.data() + i * 4, &v, 4);
    }
  }
  return bytes;
}

ge::RunResult run(const std::shared_ptr<const ge::CompiledModel>& model, const DynamicExport& m, std::int64_t batch, bool pad) {
  std::vector<std::byte> in = input(m, batch);
  std::vector<std::int64_t> dims{batch};
  dims.insert(dims.end(), m.dims.begin(), m.dims.end());
  ge::Session s(model, {.threads = 2, .pad_to_gear = pad});
  return s.run({ge::TensorView{in.data(), m.dtype, dims}});
}

std::vector<float> values(const ge::RunResult& r) {
  const auto v = r.outputs[0].values<float>();
  return {v.begin(), v.end()};
}

void check_padding(const DynamicExport& m) {
  const auto dir = ge::test::torch_exports();
  if (!dir) return;
  const ge::Graph g = ge::onnx::load(*dir / (std::string(m.name) + "_dyn.onnx"));
  const auto model = ge::compile(g, {{"ge.inputShape", shape(m, "-1")}, {"ge.dynamicBatchSize", "1,4"}});
  REQUIRE(model->padding().size() == 1);
  CHECK(model->padding()[0].independent);
  CHECK(model->padding()[0].reason == "");
  CHECK(model->padding()[0].output_axis == std::vector<std::int32_t>{0});
  const auto padded = run(model, m, 3, true);
  CHECK(padded.gear == 1);
  CHECK(padded.padding_waste == doctest::Approx(0.25));
  const auto fixed = run(ge::compile(g, {{"ge.inputShape", shape(m, "3")}}), m, 3, false);
  CHECK(padded.outputs[0].dims == fixed.outputs[0].dims);
  CHECK(values(padded) == values(fixed));  // bit for bit
}

}  // namespace

TEST_CASE("torch export: BERT's batch pads to a gear with a fixed compile's outputs, bit for bit") { check_padding(bert); }

TEST_CASE("torch export: MobileNetV2's batch pads to a gear with a fixed compile's outputs, bit for bit") {
  check_padding(mobilenet);
}

TEST_CASE("torch export: ResNet-50's batch pads to a gear with a fixed compile's outputs, bit for bit") {
  check_padding(resnet);
}

TEST_CASE("torch export: BERT in hybrid mode runs batch 3 on a plan made for it, batch 2 on its gear") {
  const auto dir = ge::test::torch_exports();
  if (!dir) return;
  const ge::Graph g = ge::onnx::load(*dir / "bert_tiny_dyn.onnx");
  const auto model = ge::compile(g, {{"ge.inputShape", shape(bert, "-1")}, {"ge.dynamicBatchSize", "1,2,8"},
                                     {"ge.compileHybridMode", "1"}});
  REQUIRE(model->plans().size() == 4);
  // The range plan works out the exporter's shapes as it runs: batch 3 gets a static plan
  // of its own at its first run (specialize_ranges, the default).
  const auto between = run(model, bert, 3, false);
  CHECK(between.plan == ge::PlanKind::signature);
  CHECK(model->plans().back()->data_dependent_steps > 0);
  CHECK(run(model, bert, 2, false).plan == ge::PlanKind::gear);
  const auto fixed = values(run(ge::compile(g, {{"ge.inputShape", shape(bert, "3")}}), bert, 3, false));
  const auto got = values(between);
  REQUIRE(got.size() == fixed.size());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::fabs(got[i] - fixed[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(fixed[i])));
  }
  CHECK(got == fixed);  // the same static plan a compile for batch 3 makes
}
