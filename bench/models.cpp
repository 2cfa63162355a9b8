// bench/models: ge next to ONNX Runtime on the example models, on the same ONNX files.
// Each model (ResNet-50 and MobileNetV2 at 224x224, the BERT-style encoder at sequence
// 128) is built in code, saved with ge::onnx::save (one file per batch, fixed shapes),
// compiled by ge at that batch and run with 2 threads; bench/peers/ort_bench.js runs the
// same file with ONNX Runtime (2 intra-op threads) in a child process. Then the peak
// resident memory of a whole `gec run` next to ONNX Runtime's, each a fresh process.
//
//   ge_bench_models [--quick] [--models resnet50,...,bert_export] [--seconds S]
//                   [--dir DIR] [--exports DIR] [--no-ort] [--no-rss]
//   ge_bench_models --suite [--quick] [--suite-models a,b,...] ...   (bench/suite.cpp)
//
// The `_export` rows run torch's exports of the same three models (dynamic batch, opset
// 13: Shape/Gather/Concat before Reshape, LayerNorm and GELU decomposed), made on the fly
// by ../shared/models/export_models.py when python3-torch and python3-torchvision are
// installed (or read from --exports DIR), each compiled once with batch gears 1,8; ORT
// runs the same file with the batch given.
//
// --quick: batch 1 only, about 1 s per row (a smoke run). --seconds: the time each row
// is measured for (default 3; at least 5 runs). --dir: where the .onnx files go (kept;
// default a temporary directory, removed at the end).
//
// Latency is the p50/p90 over the timed runs after 3 warm-up runs (nearest rank);
// throughput is batch / mean latency. GFLOP/s counts the contractions of our compiled
// plan (`ge::plan_flops`) over our p50; the peak is measured by an FMA loop per core
// (bench/peak.hpp; the cpuid-and-clock figure is printed beside it) and printed. Bars: ours/ORT p50 <= 1.0 on every row; our peak RSS <= 0.6x ORT's.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "peak.hpp"
#include "models/bert_encoder.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

#ifndef GE_WITH_ONNX
int main() {
  std::printf("ge_bench_models: needs the ONNX exporter; configure with GE_WITH_ONNX=ON (libonnx-dev, libprotobuf-dev)\n");
  return 0;
}
#else
#include "ge/onnx.hpp"
#include "model_runs.hpp"
#include "ort_peer.hpp"
#include "processes.hpp"
#include "suite.hpp"

namespace {

using namespace ge_bench;

namespace fs = std::filesystem;
constexpr int threads = 2;

#ifndef GE_SOURCE_DIR
#define GE_SOURCE_DIR ""
#endif
#ifndef GE_GEC_PATH
#define GE_GEC_PATH ""
#endif

// ---------------------------------------------------------------------------------------
// The models.

struct ModelSpec {
  std::string key;    // for --models
  std::string name;   // in the tables
  std::string unit;   // img/s, seq/s
  std::function<ge::Graph(std::int64_t batch)> build;
  std::function<std::vector<InputData>(std::int64_t batch)> inputs;
  std::function<std::vector<std::string>(std::int64_t batch)> ort_shapes;  // --shape arguments
  std::function<std::string(std::int64_t batch)> gec_shape;               // "" : not in the RSS table
  // A torch export (shared/models/export_models.py): the file with a dynamic batch in the
  // exports' folder, compiled once with batch gears 1,8 (`gears`), instead of `build`.
  std::string exported{};
  std::string gears{};
};

constexpr std::int64_t image = 224, seq = 128, hidden = 256;

std::vector<ModelSpec> all_models() {
  const auto image_shape = [](std::int64_t b) {
    return std::to_string(b) + ",3," + std::to_string(image) + "," + std::to_string(image);
  };
  const auto image_inputs = [](std::int64_t b) {
    return std::vector<InputData>{random_f32({b, 3, image, image}, 7)};
  };
  const auto image_ort = [=](std::int64_t b) { return std::vector<std::string>{"data:" + image_shape(b)}; };
  const auto image_gec = [=](std::int64_t b) { return "data:" + image_shape(b); };
  return {
      {"resnet50", "ResNet-50", "img/s", [=](std::int64_t b) { return ge::models::resnet50(image_shape(b)); },
       image_inputs, image_ort, image_gec},
      {"mobilenet_v2", "MobileNetV2", "img/s", [=](std::int64_t b) { return ge::models::mobilenet_v2(image_shape(b)); },
       image_inputs, image_ort, image_gec},
      {"bert", "BERT encoder", "seq/s",
       [](std::int64_t b) { return ge::models::bert_encoder(std::to_string(b), std::to_string(seq)); },
       [](std::int64_t b) {
         return std::vector<InputData>{random_f32({b, seq, hidden}, 7), ones_i64({b, seq})};
       },
       [](std::int64_t b) {
         const std::string bs = std::to_string(b) + "," + std::to_string(seq);
         return std::vector<std::string>{"hidden_states:" + bs + "," + std::to_string(hidden), "attention_mask:" + bs};
       },
       [](std::int64_t) { return std::string(); }},
      {"resnet50_export", "ResNet-50 (torch)", "img/s", nullptr, image_inputs,
       [](std::int64_t) { return std::vector<std::string>{}; }, [](std::int64_t) { return std::string(); },
       "resnet50_dyn.onnx", "input:-1,3,224,224"},
      {"mobilenet_v2_export", "MobileNetV2 (torch)", "img/s", nullptr, image_inputs,
       [](std::int64_t) { return std::vector<std::string>{}; }, [](std::int64_t) { return std::string(); },
       "mobilenet_v2_dyn.onnx", "input:-1,3,224,224"},
      {"bert_export", "BERT (torch)", "seq/s", nullptr,
       [](std::int64_t b) { return std::vector<InputData>{ones_i64({b, seq})}; },
       [](std::int64_t) { return std::vector<std::string>{}; }, [](std::int64_t) { return std::string(); },
       "bert_tiny_dyn.onnx", "input_ids:-1,128"},
  };
}

const std::vector<std::string> model_keys{"resnet50", "mobilenet_v2", "bert", "resnet50_export", "mobilenet_v2_export",
                                          "bert_export"};

// The torch exports: `dir` when given, else made now into `into` by the export script
// beside the project (../shared/models/export_models.py) with Debian's python3, which
// needs python3-torch and python3-torchvision. Empty, with the reason, when not possible.
std::pair<fs::path, std::string> find_exports(const std::string& dir, const fs::path& into) {
  std::error_code ec;
  if (!dir.empty()) {
    if (!fs::exists(fs::path(dir) / "manifest.json", ec)) return {{}, "no manifest.json in --exports " + dir};
    return {dir, ""};
  }
  const fs::path script = fs::path(GE_SOURCE_DIR) / ".." / "shared" / "models" / "export_models.py";
  if (!fs::exists(script, ec)) return {{}, "no " + script.string()};
  if (!executable("/usr/bin/python3")) return {{}, "no /usr/bin/python3"};
  const fs::path out = into / "exports";
  fs::create_directories(out);
  const std::string cmd = "/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1 && /usr/bin/python3 '" +
                          script.string() + "' '" + out.string() + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0 || !fs::exists(out / "manifest.json", ec))
    return {{}, "the export script failed (needs python3-torch, python3-torchvision)"};
  return {out, ""};
}

// ---------------------------------------------------------------------------------------
// Our side.

// The model's own sensitivity to bf16: f32 inputs rounded to bf16 (to nearest even).
std::vector<InputData> rounded_to_bf16(std::vector<InputData> inputs) {
  for (InputData& in : inputs) {
    if (in.dtype != ge::DataType::f32) continue;
    for (std::size_t i = 0; i + 4 <= in.bytes.size(); i += 4) {
      std::uint32_t u = 0;
      std::memcpy(&u, in.bytes.data() + i, 4);
      u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
      std::memcpy(in.bytes.data() + i, &u, 4);
    }
  }
  return inputs;
}

// ge with Precision::bf16 on the same inputs: its timing, its error against ge f32, and
// the error of ge f32 itself when only the f32 inputs are rounded to bf16 (how much the
// model amplifies a bf16-sized change; -1 when no input is f32).
struct Bf16Result {
  Timing timing;
  double error = 0, floor = -1;
};

Bf16Result time_bf16(const std::shared_ptr<const ge::CompiledModel>& bf16_model, ge::Session& f32_session,
                     std::vector<InputData>& inputs, int warmup, int min_runs, double seconds) {
  ge::Session session(bf16_model, {.threads = threads});
  Bf16Result r;
  r.timing = time_ours(session, inputs, warmup, min_runs, seconds);
  const auto want = outputs_of(f32_session, inputs);
  r.error = relative_error(outputs_of(session, inputs), want);
  if (std::any_of(inputs.begin(), inputs.end(), [](const InputData& in) { return in.dtype == ge::DataType::f32; })) {
    auto rounded = rounded_to_bf16(inputs);
    r.floor = relative_error(outputs_of(f32_session, rounded), want);
  }
  return r;
}

struct Row {
  std::string model, unit;
  std::int64_t batch = 0;
  Timing ours;
  OrtResult ort;
  std::optional<double> flops;
  std::int64_t opset = 0;  // of the file
  bool from_file = false;  // ge compiled the graph loaded back from the file
  std::optional<Bf16Result> bf16{};
};

void print_latency_table(const std::vector<Row>& rows, const Peak& peak, bool ort_available) {
  std::printf("\n%-19s %5s | %10s %10s | %10s %10s | %8s %4s | %10s %10s | %8s %7s | %s\n", "model", "batch", "ours p50",
              "ours p90", "ORT p50", "ORT p90", "ours/ORT", "bar", "ours /s", "ORT /s", "GFLOP/s", "% peak", "runs");
  std::printf("%s\n", std::string(148, '-').c_str());
  bool all_pass = true;
  for (const Row& r : rows) {
    const bool have_ort = r.ort.ok;
    const double ratio = have_ort ? r.ours.p50 / r.ort.p50 : 0;
    if (have_ort && ratio > 1.0) all_pass = false;
    const double gflops = r.flops ? *r.flops / (r.ours.p50 * 1e6) : 0;
    const auto per_s = [&](double mean_ms) { return static_cast<double>(r.batch) * 1000.0 / mean_ms; };
    std::printf("%-19s %5lld | %10s %10s | %10s %10s | %8s %4s | %10s %10s | %8s %7s | %d/%s\n", r.model.c_str(),
                static_cast<long long>(r.batch), fmt("%.2f ms", r.ours.p50).c_str(), fmt("%.2f ms", r.ours.p90).c_str(),
                have_ort ? fmt("%.2f ms", r.ort.p50).c_str() : "-", have_ort ? fmt("%.2f ms", r.ort.p90).c_str() : "-",
                have_ort ? fmt("%.3f", ratio).c_str() : "-", have_ort ? (ratio <= 1.0 ? "ok" : "MISS") : "-",
                (fmt("%.1f ", per_s(r.ours.mean)) + r.unit.substr(0, 3)).c_str(),
                have_ort ? (fmt("%.1f ", per_s(r.ort.mean)) + r.unit.substr(0, 3)).c_str() : "-",
                r.flops ? fmt("%.1f", gflops).c_str() : "-",
                r.flops && peak.gflops > 0 ? fmt("%.1f%%", 100.0 * gflops / peak.gflops).c_str() : "-", r.ours.runs,
                have_ort ? std::to_string(r.ort.runs).c_str() : "-");
  }
  std::printf("ours/ORT: the ratio of the p50s (bar: <= 1.0 on every row: %s). /s: batch / mean latency. GFLOP/s: "
              "the contractions of our plan (ge::plan_flops) over our p50; %% of the peak above. runs: ours/ORT.\n",
              !ort_available ? "ORT not available" : all_pass ? "met" : "NOT met");
  for (const Row& r : rows)
    if (!r.from_file) {
      std::printf("note: %s was compiled from the graph in memory: its file needs opset %lld and ge::onnx::load reads "
                  "opsets %lld to %lld (the saver's tests check that a file read back runs like its graph)\n",
                  r.model.c_str(), static_cast<long long>(r.opset), static_cast<long long>(ge::onnx::min_opset),
                  static_cast<long long>(ge::onnx::max_opset));
      break;
    }
}

void print_bf16_table(const std::vector<Row>& rows) {
  if (std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.bf16.has_value(); })) return;
  std::printf("\nprecision bf16 (%s: convs and constant-weight matmuls in bf16, f32 accumulation)\n",
              std::string(ge::cpu_isa()).c_str());
  std::printf("%-19s %5s | %10s %10s | %10s | %9s %9s | %9s %9s\n", "model", "batch", "bf16 p50", "f32 p50",
              "ORT p50", "bf16/f32", "bf16/ORT", "error", "floor");
  std::printf("%s\n", std::string(106, '-').c_str());
  for (const Row& r : rows) {
    if (!r.bf16) continue;
    const Bf16Result& b = *r.bf16;
    std::printf("%-19s %5lld | %10s %10s | %10s | %9s %9s | %9s %9s\n", r.model.c_str(),
                static_cast<long long>(r.batch), fmt("%.2f ms", b.timing.p50).c_str(), fmt("%.2f ms", r.ours.p50).c_str(),
                r.ort.ok ? fmt("%.2f ms", r.ort.p50).c_str() : "-", fmt("%.3f", b.timing.p50 / r.ours.p50).c_str(),
                r.ort.ok ? fmt("%.3f", b.timing.p50 / r.ort.p50).c_str() : "-", fmt("%.2e", b.error).c_str(),
                b.floor >= 0 ? fmt("%.2e", b.floor).c_str() : "-");
  }
  std::printf("error: max |bf16 - f32| over max |f32| of the outputs (ge f32 the reference). floor: the same for ge "
              "f32 with only its f32 inputs rounded to bf16: how much the model itself amplifies a bf16-sized "
              "change (random weights: large).\n");
}

struct Args {
  bool quick = false, ort = true, rss = true, bf16 = true;
  double seconds = 3.0;
  std::vector<std::string> models{"resnet50", "mobilenet_v2", "bert", "resnet50_export", "mobilenet_v2_export",
                                  "bert_export"};
  std::string dir, exports;
};

constexpr const char* usage =
    "usage: ge_bench_models [--quick] [--models resnet50,mobilenet_v2,bert,resnet50_export,mobilenet_v2_export,"
    "bert_export] [--seconds S] [--dir DIR] [--exports DIR] [--no-ort] [--no-rss] [--no-bf16]\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "ge_bench_models: %s\n%s", what.c_str(), usage);
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  bool seconds_set = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--quick") a.quick = true;
    else if (arg == "--no-ort") a.ort = false;
    else if (arg == "--no-bf16") a.bf16 = false;
    else if (arg == "--no-rss") a.rss = false;
    else if (arg == "--dir") a.dir = value();
    else if (arg == "--exports") a.exports = value();
    else if (arg == "--seconds") {
      const std::string v = value();
      char* end = nullptr;
      a.seconds = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(a.seconds >= 0)) usage_error("--seconds '" + v + "': expected a number >= 0");
      seconds_set = true;
    } else if (arg == "--models") {
      const std::string v = value();
      a.models.clear();
      for (std::size_t start = 0; start <= v.size();) {
        std::size_t end = v.find(',', start);
        if (end == std::string::npos) end = v.size();
        const std::string m = v.substr(start, end - start);
        if (std::find(model_keys.begin(), model_keys.end(), m) == model_keys.end())
          usage_error("--models '" + v + "': '" + m +
                      "' is not one of resnet50, mobilenet_v2, bert, resnet50_export, mobilenet_v2_export, bert_export");
        a.models.push_back(m);
        start = end + 1;
      }
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else {
      usage_error("unknown argument '" + arg + "'");
    }
  }
  if (a.quick && !seconds_set) a.seconds = 1.0;
  return a;
}

// What every row of a run shares: the options, the peer, the batches and run counts.
struct Bench {
  const Args& args;
  OrtPeer& ort;
  std::vector<std::int64_t> batches;
  int min_runs = 5, warmup = 3;
  bool bf16 = false;  // bf16 rows too
  fs::path dir;       // where the built models' files go
};

// The static-gears bar on a torch export: 100 batch gears compile in under 1 s (ONNX load apart).
void gears_bar(const ModelSpec& m, const fs::path& file) {
  ge::Graph g = ge::onnx::load(file);
  std::string gears;
  for (int b = 1; b <= 100; ++b) gears += (b > 1 ? "," : "") + std::to_string(b);
  const auto t0 = clock_type::now();
  const auto many = ge::compile(std::move(g), {{"ge.inputShape", m.gears}, {"ge.dynamicBatchSize", gears}});
  const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  std::size_t fixed = 0;
  for (const auto& p : many->plans()) fixed += p->static_shapes ? 1 : 0;
  std::printf("%s: compile with 100 batch gears %.0f ms (bar < 1000 ms: %s), %zu of %zu plans static\n",
              m.name.c_str(), ms, ms < 1000 ? "met" : "NOT met", fixed, many->plans().size());
}

// The rows of a torch export `file`: compiled once with batch gears 1,8, each batch run on its gear.
void export_rows(const Bench& b, const ModelSpec& m, const fs::path& file, std::vector<Row>& rows) {
  gears_bar(m, file);
  const ge::BuildOptions gear_options{{"ge.inputShape", m.gears}, {"ge.dynamicBatchSize", "1,8"}};
  const auto model = ge::compile(ge::onnx::load(file), gear_options);
  ge::Session session(model, {.threads = threads});
  const auto bf16_model = b.bf16 ? ge::compile(ge::onnx::load(file), gear_options, ge::default_target(),
                                               {.precision = ge::Precision::bf16})
                                 : nullptr;
  for (const std::int64_t batch : b.batches) {
    Row row{m.name, m.unit, batch, {}, {}, {}, 13, true};
    const auto& plan = *model->plans()[batch == 1 ? 0 : 1];
    row.flops = ge::plan_flops(plan);
    auto inputs = m.inputs(batch);
    row.ours = time_ours(session, inputs, b.warmup, b.min_runs, b.args.seconds);
    if (bf16_model) row.bf16 = time_bf16(bf16_model, session, inputs, b.warmup, b.min_runs, b.args.seconds);
    if (b.ort.available()) row.ort = run_ort(b.ort, file, batch, threads, {}, b.warmup, b.min_runs, b.args.seconds);
    std::fprintf(stderr, "  %s batch %lld: ours p50 %.2f ms (plan: %zu steps, %s, arena %.2f MiB)%s\n",
                 m.name.c_str(), static_cast<long long>(batch), row.ours.p50, plan.steps.size(),
                 plan.static_shapes ? "static" : "run-time shapes", static_cast<double>(plan.arena_bytes()) / (1 << 20),
                 row.ort.ok ? (", ORT p50 " + fmt("%.2f ms", row.ort.p50)).c_str() : "");
    rows.push_back(std::move(row));
  }
}

// The rows of a model built in code: one file per batch, saved, compiled and run; the
// files are listed in `files` ("<model>/<batch>") for the RSS table.
void built_rows(const Bench& b, const ModelSpec& m, std::vector<Row>& rows,
                std::vector<std::pair<std::string, fs::path>>& files) {
  for (const std::int64_t batch : b.batches) {
    const ge::Graph built = m.build(batch);
    const fs::path file = b.dir / (m.key + "_b" + std::to_string(batch) + ".onnx");
    ge::onnx::save(built, file);
    files.emplace_back(m.key + "/" + std::to_string(batch), file);
    Row row{m.name, m.unit, batch, {}, {}, {}, ge::onnx::save_opset(built), false};
    // The file itself where the importer reads its opset, else the same graph in memory.
    std::optional<ge::Graph> loaded;
    if (row.opset <= ge::onnx::max_opset) {
      loaded = ge::onnx::load(file);
      row.from_file = true;
    }
    {
      const auto model = ge::compile(loaded ? *loaded : built);
      row.flops = ge::plan_flops(*model->plans()[0]);
      ge::Session session(model, {.threads = threads});
      auto inputs = m.inputs(batch);
      row.ours = time_ours(session, inputs, b.warmup, b.min_runs, b.args.seconds);
      if (b.bf16) {
        const auto bf16_model =
            ge::compile(loaded ? *loaded : built, {}, ge::default_target(), {.precision = ge::Precision::bf16});
        row.bf16 = time_bf16(bf16_model, session, inputs, b.warmup, b.min_runs, b.args.seconds);
      }
    }
    if (b.ort.available())
      row.ort = run_ort(b.ort, file, batch, threads, m.ort_shapes(batch), b.warmup, b.min_runs, b.args.seconds);
    std::fprintf(stderr, "  %s batch %lld: ours p50 %.2f ms%s\n", m.name.c_str(), static_cast<long long>(batch),
                 row.ours.p50, row.ort.ok ? (", ORT p50 " + fmt("%.2f ms", row.ort.p50)).c_str() : "");
    rows.push_back(std::move(row));
  }
}

// Peak resident memory: a whole `gec run` and a whole ORT script run, each a fresh
// process, on the same file and batch, with 1 warm-up and 3 timed runs each.
void print_rss_table(const Bench& b, const std::vector<std::pair<std::string, fs::path>>& files) {
  const std::string gec = GE_GEC_PATH;
  std::printf("\npeak resident memory (wait4 ru_maxrss of a fresh process; 1 warm-up + 3 runs, %d threads)\n",
              threads);
  if (!executable(gec)) {
    std::printf("gec: not available ('%s'); build the target gec\n", gec.c_str());
    return;
  }
  std::printf("%-13s %5s | %10s | %10s %10s | %9s %4s\n", "model", "batch", "gec run", "ORT", "(node)", "gec/ORT",
              "bar");
  std::printf("%s\n", std::string(74, '-').c_str());
  bool all_pass = true;
  for (const ModelSpec& m : all_models()) {
    if (std::find(b.args.models.begin(), b.args.models.end(), m.key) == b.args.models.end()) continue;
    for (const std::int64_t batch : b.batches) {
      const std::string shape = m.gec_shape(batch);
      if (shape.empty()) continue;
      const auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) {
        return f.first == m.key + "/" + std::to_string(batch);
      });
      const fs::path& file = it->second;
      const Child g = spawn_measured({gec, "run", "--model", file.string(), "--shape", shape, "--iterations", "3",
                                      "--threads", std::to_string(threads)});
      OrtResult o;
      if (b.ort.available()) o = run_ort(b.ort, file, batch, threads, m.ort_shapes(batch), 1, 3, 0.0);
      if (!g.ok()) std::fprintf(stderr, "gec run failed on %s:\n%s\n", file.string().c_str(), g.out.c_str());
      const double ratio = g.ok() && o.ok ? g.max_rss_mib / o.wait4_rss_mib : 0;
      if (g.ok() && o.ok && ratio > 0.6) all_pass = false;
      std::printf("%-13s %5lld | %10s | %10s %10s | %9s %4s\n", m.name.c_str(), static_cast<long long>(batch),
                  g.ok() ? fmt("%.1f MiB", g.max_rss_mib).c_str() : "failed",
                  o.ok ? fmt("%.1f MiB", o.wait4_rss_mib).c_str() : "-",
                  o.ok ? fmt("%.1f MiB", o.baseline_rss_mib).c_str() : "-",
                  g.ok() && o.ok ? fmt("%.3f", ratio).c_str() : "-",
                  g.ok() && o.ok ? (ratio <= 0.6 ? "ok" : "MISS") : "-");
    }
  }
  std::printf("gec/ORT: the ratio of peak RSS (bar: <= 0.6: %s); (node): Node's own RSS before ONNX Runtime "
              "loads, part of ORT's figure.\n",
              !b.ort.available() ? "ORT not available" : all_pass ? "met" : "NOT met");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--reap") == 0) return reap(argv + 2);
  if (suite_requested(argc, argv)) return suite_main(argc, argv);  // --suite: bench/suite.cpp
  const Args args = parse_args(argc, argv);
  try {
    const Peak peak = machine_peak(threads);
    OrtPeer ort = args.ort ? OrtPeer::find(GE_SOURCE_DIR) : OrtPeer{};
    if (!args.ort) ort.why_not = "--no-ort";
    Bench b{.args = args,
            .ort = ort,
            .batches = args.quick ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{1, 8},
            .min_runs = args.quick ? 3 : 5,
            .warmup = 3,
            .bf16 = args.bf16 && ge::bf16_supported(),
            .dir = args.dir};
    const bool temp_dir = b.dir.empty();
    if (temp_dir) b.dir = fs::temp_directory_path() / ("ge_bench_models_" + std::to_string(getpid()));
    fs::create_directories(b.dir);

    std::printf("bench/models: ge vs ONNX Runtime, %d threads, on the same ONNX files (in %s)\n", threads,
                b.dir.string().c_str());
    std::printf("%s\n", peak.derivation.c_str());
    std::printf("precision bf16: %s (ge::cpu_isa: %s)\n",
                b.bf16 ? "bf16 kernels present: bf16 rows after the f32 table"
                : args.bf16 ? "skipped: this CPU has neither AVX512-BF16 nor AMX-BF16"
                            : "skipped (--no-bf16)",
                std::string(ge::cpu_isa()).c_str());
    if (b.bf16) {
      const double dot = ge_bench::bf16_dot_peak();
      if (dot > 0.0)
        std::printf("one core's bf16 dot-product peak (vdpbf16ps loop): %.1f GFLOP/s, %.2fx its f32 FMA peak\n", dot,
                    dot * threads / peak.gflops);
    }
    if (!ort.available()) std::printf("ORT: not available (run npm ci in bench/peers): %s\n", ort.why_not.c_str());
    std::fflush(stdout);  // before the progress lines on stderr

    std::vector<Row> rows;
    std::vector<std::pair<std::string, fs::path>> files;  // for the RSS table: "<model>/<batch>" -> file
    const bool any_export = std::any_of(args.models.begin(), args.models.end(),
                                        [](const std::string& k) { return k.ends_with("_export"); });
    const auto [exports, no_exports] = any_export ? find_exports(args.exports, b.dir) : std::pair<fs::path, std::string>{};
    if (any_export && exports.empty()) std::printf("torch exports: skipped: %s\n", no_exports.c_str());
    if (!exports.empty()) std::printf("torch exports: %s (compiled once each with batch gears 1,8)\n", exports.string().c_str());
    for (const ModelSpec& m : all_models()) {
      if (std::find(args.models.begin(), args.models.end(), m.key) == args.models.end()) continue;
      if (m.exported.empty()) {
        built_rows(b, m, rows, files);
      } else if (!exports.empty()) {
        export_rows(b, m, exports / m.exported, rows);
      }
    }
    if (ort.available()) std::printf("ONNX Runtime %s (onnxruntime-node, CPU execution provider)\n", ort.version.c_str());
    print_latency_table(rows, peak, ort.available());
    print_bf16_table(rows);
    if (args.rss) print_rss_table(b, files);
    if (temp_dir) {
      std::error_code ec;
      fs::remove_all(b.dir, ec);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ge_bench_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
#endif  // GE_WITH_ONNX
