// Real exported models: torch's ONNX exports of ResNet-50, MobileNetV2 and a BERT-style
// encoder (opset 13, dynamic batch: Shape/Gather/Concat before Reshape, LayerNorm and GELU
// decomposed), made by ../shared/models/export_models.py. With batch gears every plan is
// static (no data-dependent step, no value allocated per run), the arenas stay within an
// independent liveness bound, and the outputs equal torch's reference at batch 2.
//
// The exports: tests/support/exports.hpp (GE_EXPORTS_DIR, else the script runs once).
// Without them the test says why and checks nothing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"
#include "ge/runtime/trace.hpp"
#include "support/exports.hpp"

namespace fs = std::filesystem;

namespace {

std::optional<fs::path> exports() { return ge::test::torch_exports(); }

std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE(f);
  const std::string chars((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// `got` equals torch's output within 1e-4 of the output's largest magnitude.
void check_torch(std::span<const float> got, const std::vector<std::byte>& want_bytes) {
  REQUIRE(got.size() * sizeof(float) == want_bytes.size());
  std::vector<float> want(got.size());
  std::memcpy(want.data(), want_bytes.data(), want_bytes.size());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  CHECK(diff <= 1e-4 * scale);
}

struct Export {
  const char* name;
  const char* input;
  std::vector<std::int64_t> dims;  // without the batch
  ge::DataType dtype;
  std::vector<std::int64_t> out_dims;  // at batch 2
  double bound_b1_mib, bound_b8_mib;   // the independent liveness bound of the issue
};

std::string csv_dims(const std::vector<std::int64_t>& d) {
  std::string s;
  for (const auto x : d) s += "," + std::to_string(x);
  return s;
}

void check_export(const Export& e) {
  const auto dir = exports();
  if (!dir) return;
  const fs::path file = *dir / (std::string(e.name) + "_dyn.onnx");
  const auto model = ge::compile(ge::onnx::load(file), {{"ge.inputShape", std::string(e.input) + ":-1" + csv_dims(e.dims)},
                                                        {"ge.dynamicBatchSize", "1,2,8"}});
  REQUIRE(model->plans().size() == 3);
  for (const auto& p : model->plans()) {
    CAPTURE(p->gear);
    CHECK(p->static_shapes);
    CHECK(p->data_dependent_steps == 0);
    CHECK(p->per_run_values == 0);
  }
  CHECK(static_cast<double>(model->plans()[0]->arena_bytes()) <= e.bound_b1_mib * (1 << 20));
  CHECK(static_cast<double>(model->plans()[2]->arena_bytes()) <= e.bound_b8_mib * (1 << 20));

  // torch's reference pair at batch 2.
  std::vector<std::byte> in = read_file(*dir / (std::string(e.name) + "_ref_in.bin"));
  const std::vector<std::byte> want_bytes = read_file(*dir / (std::string(e.name) + "_ref_out.bin"));
  std::vector<std::int64_t> dims{2};
  dims.insert(dims.end(), e.dims.begin(), e.dims.end());
  ge::Session s(model, {.threads = 2});
  const auto r = s.run({ge::TensorView{in.data(), e.dtype, dims}});
  CHECK(r.gear == 1);
  REQUIRE(r.outputs[0].dims == e.out_dims);
  check_torch(r.outputs[0].values<float>(), want_bytes);
}

}  // namespace

TEST_CASE("torch export: BERT-style encoder, batch gears 1,2,8: static plans, torch's outputs") {
  check_export({"bert_tiny", "input_ids", {128}, ge::DataType::i64, {2, 128, 256}, 1.625, 13.0});
}

TEST_CASE("torch export: MobileNetV2, batch gears 1,2,8: static plans, torch's outputs") {
  check_export({"mobilenet_v2", "input", {3, 224, 224}, ge::DataType::f32, {2, 1000}, 9.19, 73.5});
}

TEST_CASE("torch export: ResNet-50, batch gears 1,2,8: static plans, torch's outputs") {
  check_export({"resnet50", "input", {3, 224, 224}, ge::DataType::f32, {2, 1000}, 9.19, 73.5});
}

TEST_CASE("torch export: BERT over a shape range with AC_PARALLEL_ENABLE puts the run-time shape work on the host stream") {
  const auto dir = exports();
  if (!dir) return;
  const auto model = ge::compile(ge::onnx::load(*dir / "bert_tiny_dyn.onnx"),
                                 {{"ge.inputShape", "input_ids:1~8,128"}, {"ac_parallel_enable", "1"}});
  REQUIRE(model->plans().size() == 1);
  const ge::Plan& p = *model->plans()[0];
  CHECK_FALSE(p.static_shapes);  // a range plan keeps the run-time path
  REQUIRE(p.streams.host_stream >= 0);
  std::size_t host = 0, vector = 0;
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    const bool on_host = p.streams.stream[s] == p.streams.host_stream;
    CHECK(on_host == (p.steps[s].engine == ge::Engine::host));
    (on_host ? host : vector) += 1;
    if (p.steps[s].op == "Shape") CHECK(on_host);
  }
  // The run-time shape arithmetic left: what uses the batch (fold_constants follows
  // Shape, Gather, Unsqueeze and Concat to the dims they give; the rest folded).
  CHECK(host >= 2);
  CHECK(vector > 20);
  // Still torch's outputs, and the trace shows the host stream's work.
  std::vector<std::byte> in = read_file(*dir / "bert_tiny_ref_in.bin");
  const std::vector<std::byte> want_bytes = read_file(*dir / "bert_tiny_ref_out.bin");
  const std::vector<std::int64_t> dims{2, 128};
  // (The range plan itself: by default a session would make a static plan for batch 2.)
  ge::Session s(model, {.threads = 2, .trace = true, .specialize_ranges = false});
  const auto r = s.run({ge::TensorView{in.data(), ge::DataType::i64, dims}});
  CHECK(r.plan == ge::PlanKind::range);
  check_torch(r.outputs[0].values<float>(), want_bytes);
  REQUIRE(r.trace != nullptr);
  const std::string trace = ge::chrome_trace(std::span<const ge::RunTrace>(r.trace.get(), 1));
  CHECK(trace.find("(host engine)") != std::string::npos);
}
