// bench/dynamic: what dynamic shapes cost on the main set, and how well ge says so before
// the run. Per model (ResNet-50 and MobileNetV2 built in code; the torch exports of
// ../shared/models/export_models.py with --exports DIR) compiled with batch gears 1,2,8 in
// hybrid mode, at batches 1, 3 and 8:
//   - the plan that serves the batch, and CompiledModel::cost's expected latency against
//     the measured p50 (the estimate's error), over ge::calibrate's speeds;
//   - at batch 3: the range plan (hybrid), the gear padded to 8 (pad_to_gear), and a
//     fixed-shape compile for batch 3, side by side (the dynamic tax of each way).
//
//   ge_bench_dynamic [--exports DIR] [--threads T] [--seconds S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "ge/onnx.hpp"
#include "model_runs.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

namespace {

using ge_bench::InputData;

struct Model {
  std::string name;
  ge::Graph graph;
  std::string input;
  std::vector<std::int64_t> dims;  // without the batch
  ge::DataType dtype;
};

std::string shape(const Model& m, const std::string& batch) {
  std::string s = m.input + ":" + batch;
  for (const auto d : m.dims) s += "," + std::to_string(d);
  return s;
}

InputData input(const Model& m, std::int64_t batch) {
  std::vector<std::int64_t> d{batch};
  d.insert(d.end(), m.dims.begin(), m.dims.end());
  return m.dtype == ge::DataType::i64 ? ge_bench::random_input(ge::DataType::i64, d, 7, 0, 999)
                                      : ge_bench::random_f32(d, 7);
}

double p50(const std::shared_ptr<const ge::CompiledModel>& model, const Model& m, std::int64_t batch, int threads,
           bool pad, double seconds) {
  ge::Session s(model, {.threads = threads, .pad_to_gear = pad});
  std::vector<InputData> in{input(m, batch)};
  return ge_bench::time_ours(s, in, 2, 5, seconds).p50;
}

}  // namespace

int main(int argc, char** argv) {
  std::string exports;
  int threads = 0;
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--exports") exports = argv[i + 1];
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    else if (flag == "--seconds") seconds = std::atof(argv[i + 1]);
  }
  std::printf("CPU ISA (ge::cpu_isa): %s\n", std::string(ge::cpu_isa()).c_str());
  const ge::MachineSpeed speed = ge::calibrate(threads);
  std::printf("speeds (ge::calibrate): %s\n\n", speed.to_text().c_str());

  std::vector<Model> models;
  models.push_back({"ResNet-50", ge::models::resnet50("-1,3,224,224"), "data", {3, 224, 224}, ge::DataType::f32});
  models.push_back({"MobileNetV2", ge::models::mobilenet_v2("-1,3,224,224"), "data", {3, 224, 224}, ge::DataType::f32});
  if (!exports.empty()) {
    const std::filesystem::path dir(exports);
    models.push_back({"ResNet-50 (torch)", ge::onnx::load(dir / "resnet50_dyn.onnx"), "input", {3, 224, 224}, ge::DataType::f32});
    models.push_back({"MobileNetV2 (torch)", ge::onnx::load(dir / "mobilenet_v2_dyn.onnx"), "input", {3, 224, 224},
                      ge::DataType::f32});
    models.push_back({"BERT (torch)", ge::onnx::load(dir / "bert_tiny_dyn.onnx"), "input_ids", {128}, ge::DataType::i64});
  }

  std::printf("%-20s %5s | %-22s | %10s %10s %7s\n", "model", "batch", "plan", "cost ms", "p50 ms", "error");
  std::printf("%s\n", std::string(86, '-').c_str());
  double abs_error = 0;
  int rows = 0;
  std::vector<std::string> tax;
  for (const Model& m : models) {
    const auto model = ge::compile(m.graph, {{"ge.inputShape", shape(m, "-1")}, {"ge.dynamicBatchSize", "1,2,8"},
                                             {"ge.compileHybridMode", "1"}});
    const auto row = [&](std::int64_t batch, bool pad) {
      const std::vector<std::vector<std::int64_t>> dims{[&] {
        std::vector<std::int64_t> d{batch};
        d.insert(d.end(), m.dims.begin(), m.dims.end());
        return d;
      }()};
      const ge::ShapeCost c = model->cost(dims, speed, {.pad_to_gear = pad});
      const double ms = p50(model, m, batch, threads, pad, seconds);
      const double err = c.expected_ms / ms - 1.0;
      abs_error += std::fabs(err);
      ++rows;
      const std::string plan = c.plan == ge::PlanKind::gear
                                   ? "gear " + std::to_string(c.gear) + (pad ? " (padded " + std::to_string(static_cast<int>(c.padding_waste * 100 + 0.5)) + "%)" : "")
                                   : std::string(ge::to_string(c.plan)) + " plan";
      std::printf("%-20s %5lld | %-22s | %10.2f %10.2f %+6.0f%%\n", m.name.c_str(), static_cast<long long>(batch),
                  plan.c_str(), c.expected_ms, ms, err * 100);
      return ms;
    };
    row(1, false);
    const double range_ms = row(3, false);
    const double padded_ms = row(3, true);
    row(8, false);
    const double fixed_ms = p50(ge::compile(m.graph, {{"ge.inputShape", shape(m, "3")}}), m, 3, threads, false, seconds);
    char line[200];
    std::snprintf(line, sizeof line, "%-20s | range plan %8.2f ms (%.2fx) | padded to 8 %8.2f ms (%.2fx) | fixed %8.2f ms",
                  m.name.c_str(), range_ms, range_ms / fixed_ms, padded_ms, padded_ms / fixed_ms, fixed_ms);
    tax.emplace_back(line);
  }
  std::printf("\nmean |error| of the expected latency: %.0f%% over %d rows\n", 100 * abs_error / rows, rows);
  std::printf("\nbatch 3, gears 1,2,8: the ways to run it against a compile for exactly batch 3 (p50, ratio)\n");
  for (const std::string& l : tax) std::printf("%s\n", l.c_str());
  return 0;
}
