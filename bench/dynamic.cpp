// bench/dynamic: what dynamic shapes cost on the main set, and how well ge says so before
// the run. Per model (ResNet-50 and MobileNetV2 built in code; the torch exports of
// ../shared/models/export_models.py with --exports DIR) compiled with batch gears 1,2,8 in
// hybrid mode, at batches 1, 3 and 8:
//   - the plan that serves the batch, and CompiledModel::cost's expected latency against
//     the measured p50 (the estimate's error), over ge::calibrate's speeds;
//   - at batch 3: the range plan (hybrid), the gear padded to 8 (pad_to_gear), and a
//     fixed-shape compile for batch 3, side by side (the dynamic tax of each way);
//   - the peak resident memory of a process (a fresh one per way, `--reap`) that compiles
//     the model and runs 100 random batches in 1..8: gears 1,2,8 in hybrid mode, a range
//     1~8 (its plans made per batch, and the range plan alone), eight gears 1..8, and a
//     fixed compile at batch 8 running batch 8 only (the floor); and for the torch
//     exports, ONNX Runtime over the same 100 batches in a process of its own
//     (bench/peers/ort_bench.js --random-batches), when node and its package are there.
//
//   ge_bench_dynamic [--exports DIR] [--threads T] [--seconds S] [--only rss|cost]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "ge/ge.hpp"
#include "ge/onnx.hpp"
#include "model_runs.hpp"
#include "ort_peer.hpp"
#include "processes.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

#ifndef GE_SOURCE_DIR
#define GE_SOURCE_DIR ""
#endif

namespace {

using ge_bench::InputData;

struct Model {
  std::string name;
  ge::Graph graph;
  std::string input;
  std::vector<std::int64_t> dims;  // without the batch
  ge::DataType dtype;
  std::filesystem::path file{};    // the ONNX file, for ONNX Runtime (exports only)
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

// `speed` after ge::learn_speed on a session's first runs at the smallest and the largest
// gear (batch 1 and 8): at each, two warm-up runs (the first touches of the arena and
// the weights), then three traced runs.
ge::MachineSpeed learned_speed(const std::shared_ptr<const ge::CompiledModel>& model, const Model& m, int threads,
                               ge::MachineSpeed speed) {
  ge::Session s(model, {.threads = threads, .trace = true});
  for (const std::int64_t batch : {1, 8}) {
    const InputData in = input(m, batch);
    const ge::TensorView view{const_cast<std::byte*>(in.bytes.data()), in.dtype, in.dims};
    for (int i = 0; i < 2; ++i) (void)s.run({view});
    for (int i = 0; i < 3; ++i) ge::learn_speed(speed, *s.run({view}).trace);
  }
  return speed;
}

// The main set; with `only` >= 0, only that model's graph is made (the others are named
// with empty graphs), so that a process measuring one model's memory holds no other.
std::vector<Model> main_set(const std::string& exports, int only = -1) {
  const auto wanted = [&](std::size_t i) { return only < 0 || static_cast<std::size_t>(only) == i; };
  std::vector<Model> models;
  models.push_back({"ResNet-50", wanted(0) ? ge::models::resnet50("-1,3,224,224") : ge::Graph{}, "data", {3, 224, 224},
                    ge::DataType::f32});
  models.push_back({"MobileNetV2", wanted(1) ? ge::models::mobilenet_v2("-1,3,224,224") : ge::Graph{}, "data",
                    {3, 224, 224}, ge::DataType::f32});
  if (!exports.empty()) {
    const std::filesystem::path dir(exports);
    for (const auto& [name, file, input] : {std::tuple{"ResNet-50 (torch)", "resnet50_dyn.onnx", "input"},
                                            std::tuple{"MobileNetV2 (torch)", "mobilenet_v2_dyn.onnx", "input"},
                                            std::tuple{"BERT (torch)", "bert_tiny_dyn.onnx", "input_ids"}}) {
      const bool bert = std::string(input) == "input_ids";
      models.push_back({name, wanted(models.size()) ? ge::onnx::load(dir / file) : ge::Graph{}, input,
                        bert ? std::vector<std::int64_t>{128} : std::vector<std::int64_t>{3, 224, 224},
                        bert ? ge::DataType::i64 : ge::DataType::f32, dir / file});
    }
  }
  return models;
}

const char* const ways[] = {"hybrid 1,2,8", "range, plans per batch", "range plan alone", "gears 1..8", "fixed 8 (floor)"};

// One way of the memory table, in a process of its own: compile, then 100 random batches.
int rss_child(const std::string& exports, int index, int way, int threads) {
  const std::vector<Model> models = main_set(exports, index);  // only this one's graph in memory
  const Model& m = models.at(static_cast<std::size_t>(index));
  ge::BuildOptions o;
  bool specialize = true;
  std::int64_t lo = 1;
  switch (way) {
    case 0: o = {{"ge.inputShape", shape(m, "-1")}, {"ge.dynamicBatchSize", "1,2,8"}, {"ge.compileHybridMode", "1"}}; break;
    case 1: o = {{"ge.inputShape", shape(m, "1~8")}}; break;
    case 2: o = {{"ge.inputShape", shape(m, "1~8")}}; specialize = false; break;
    case 3: o = {{"ge.inputShape", shape(m, "-1")}, {"ge.dynamicBatchSize", "1,2,3,4,5,6,7,8"}}; break;
    default: o = {{"ge.inputShape", shape(m, "8")}}; lo = 8; break;
  }
  const auto model = ge::compile(m.graph, o);
  ge::Session s(model, {.threads = threads, .specialize_ranges = specialize});
  std::vector<InputData> inputs;
  for (std::int64_t b = 1; b <= 8; ++b) inputs.push_back(input(m, b));
  std::uint64_t x = 3;
  for (int i = 0; i < 100; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::int64_t b = lo + static_cast<std::int64_t>((x >> 33) % static_cast<std::uint64_t>(9 - lo));
    InputData& in = inputs[static_cast<std::size_t>(b - 1)];
    (void)s.run({ge::TensorView{in.bytes.data(), in.dtype, in.dims}});
  }
  return 0;
}

void print_rss_table(const std::vector<Model>& models, const std::string& exports, int threads);

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--reap") return ge_bench::reap(argv + 2);
  if (argc > 5 && std::string(argv[1]) == "--rss-child")
    return rss_child(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  std::string exports, only;  // --only rss: the memory table alone
  int threads = 0;
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--exports") exports = argv[i + 1];
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    else if (flag == "--seconds") seconds = std::atof(argv[i + 1]);
    else if (flag == "--only") only = argv[i + 1];
  }
  if (!only.empty() && only != "rss" && only != "cost") {
    std::fprintf(stderr, "ge_bench_dynamic: --only '%s'; expected rss or cost\n", only.c_str());
    return 2;
  }
  std::printf("CPU ISA (ge::cpu_isa): %s\n", std::string(ge::cpu_isa()).c_str());
  const ge::MachineSpeed speed = ge::calibrate(threads);
  std::printf("speeds (ge::calibrate): %s\n\n", speed.to_text().c_str());

  const std::vector<Model> models = main_set(exports);
  if (only == "rss") {
    print_rss_table(models, exports, threads);
    return 0;
  }

  std::printf("cost: the model over ge::calibrate's rates; learned: the same after ge::learn_speed on a session's first "
              "runs at batches 1 and 8 (each kernel's steps scaled by how they ran there; batch 3 is out of sample)\n");
  std::printf("%-20s %5s | %-22s | %10s %10s %7s | %10s %7s\n", "model", "batch", "plan", "cost ms", "p50 ms", "error",
              "learned ms", "error");
  std::printf("%s\n", std::string(106, '-').c_str());
  double abs_error = 0, abs_learned = 0;
  int rows = 0;
  std::vector<std::string> tax, ranges;
  for (const Model& m : models) {
    const auto model = ge::compile(m.graph, {{"ge.inputShape", shape(m, "-1")}, {"ge.dynamicBatchSize", "1,2,8"},
                                             {"ge.compileHybridMode", "1"}});
    const ge::MachineSpeed learned = learned_speed(model, m, threads, speed);
    const auto row = [&](std::int64_t batch, bool pad) {
      const std::vector<std::vector<std::int64_t>> dims{[&] {
        std::vector<std::int64_t> d{batch};
        d.insert(d.end(), m.dims.begin(), m.dims.end());
        return d;
      }()};
      const ge::ShapeCost c = model->cost(dims, speed, {.pad_to_gear = pad});
      const double ms = p50(model, m, batch, threads, pad, seconds);
      const double err = c.expected_ms / ms - 1.0;
      const double lc = model->cost(dims, learned, {.pad_to_gear = pad}).expected_ms;
      const double lerr = lc / ms - 1.0;
      abs_error += std::fabs(err);
      abs_learned += std::fabs(lerr);
      ++rows;
      const std::string plan = c.plan == ge::PlanKind::gear
                                   ? "gear " + std::to_string(c.gear) + (pad ? " (padded " + std::to_string(static_cast<int>(c.padding_waste * 100 + 0.5)) + "%)" : "")
                                   : std::string(ge::to_string(c.plan)) + " plan";
      std::printf("%-20s %5lld | %-22s | %10.2f %10.2f %+6.0f%% | %10.2f %+6.0f%%\n", m.name.c_str(),
                  static_cast<long long>(batch), plan.c_str(), c.expected_ms, ms, err * 100, lc, lerr * 100);
      return ms;
    };
    row(1, false);
    const double range_ms = row(3, false);
    const double padded_ms = row(3, true);
    row(8, false);
    if (only == "cost") continue;
    const double fixed_ms = p50(ge::compile(m.graph, {{"ge.inputShape", shape(m, "3")}}), m, 3, threads, false, seconds);
    char line[300];
    std::snprintf(line, sizeof line, "%-20s | hybrid %8.2f ms (%.2fx) | padded to 8 %8.2f ms (%.2fx) | fixed %8.2f ms",
                  m.name.c_str(), range_ms, range_ms / fixed_ms, padded_ms, padded_ms / fixed_ms, fixed_ms);
    tax.emplace_back(line);
    // A range 1~8 (no gears) at three batches against fixed compiles: the default
    // session (plans per batch where the range plan works out shapes) and the range plan.
    const auto ranged = ge::compile(m.graph, {{"ge.inputShape", shape(m, "1~8")}});
    std::string r = m.name;
    r.resize(20, ' ');
    for (const std::int64_t b : {2, 5, 7}) {
      const double f = p50(ge::compile(m.graph, {{"ge.inputShape", shape(m, std::to_string(b))}}), m, b, threads, false, seconds);
      ge::Session plain(ranged, {.threads = threads, .specialize_ranges = false});
      std::vector<InputData> in{input(m, b)};
      const double alone = ge_bench::time_ours(plain, in, 2, 5, seconds).p50;
      const double made = p50(ranged, m, b, threads, false, seconds);
      std::snprintf(line, sizeof line, " | %lld: %.2fx %.2fx", static_cast<long long>(b), made / f, alone / f);
      r += line;
    }
    ranges.push_back(r);
  }
  std::printf("\nmean |error| of the expected latency: %.0f%% over %d rows; learned from the first runs: %.0f%%\n",
              100 * abs_error / rows, rows, 100 * abs_learned / rows);
  if (only == "cost") return 0;
  std::printf("\nbatch 3, gears 1,2,8: the ways to run it against a compile for exactly batch 3 (p50, ratio)\n");
  for (const std::string& l : tax) std::printf("%s\n", l.c_str());
  std::printf("\na range 1~8 against fixed compiles (p50 ratio) at batch 2, 5, 7: the default session, then the range "
              "plan alone (specialize_ranges off)\n");
  for (const std::string& l : ranges) std::printf("%s\n", l.c_str());

  print_rss_table(models, exports, threads);
  return 0;
}

namespace {

// The memory table: a fresh process per model and way (this program with --rss-child),
// and ONNX Runtime over the same batches for the exports.
void print_rss_table(const std::vector<Model>& models, const std::string& exports, int threads) {
  std::printf("\npeak RSS (MiB) of a process compiling the model and running 100 random batches in 1..8, %d threads\n",
              threads);
  ge_bench::OrtPeer ort = ge_bench::OrtPeer::find(GE_SOURCE_DIR);
  std::printf("%-20s", "model");
  for (const char* w : ways) std::printf(" | %22s", w);
  std::printf(" | %22s\n", "ONNX Runtime, same runs");
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  for (std::size_t i = 0; i < models.size(); ++i) {
    std::printf("%-20s", models[i].name.c_str());
    for (int w = 0; w < 5; ++w) {
      const ge_bench::Child c = ge_bench::spawn_measured(
          {self, "--rss-child", exports, std::to_string(i), std::to_string(w), std::to_string(threads)});
      std::printf(" | %22s", c.ok() ? (std::to_string(static_cast<int>(c.max_rss_mib + 0.5)) + " MiB").c_str() : "failed");
      std::fflush(stdout);
    }
    std::string peer = "-";
    if (!models[i].file.empty() && ort.available()) {
      const ge_bench::OrtResult o =
          ge_bench::run_ort(ort, models[i].file, 1, threads > 0 ? threads : 2, {}, 0, 1, 0, {"--random-batches", "100:1:8"});
      peer = o.ok ? std::to_string(static_cast<int>(o.wait4_rss_mib + 0.5)) + " MiB" : "failed";
    }
    std::printf(" | %22s\n", peer.c_str());
  }
  if (!ort.available()) std::printf("(ONNX Runtime: %s)\n", ort.why_not.c_str());
}

}  // namespace
