// bench/int8: quantized models (issue 36). For each torch export of the main set
// (../shared/models/export_models.py: ResNet-50, MobileNetV2, the BERT-style encoder) it
// makes the QDQ model `gec quantize` makes (ge::quantize_qdq: 8 seeded random calibration
// sets, min-max ranges, per-channel int8 weights, u8 activations), saves it, and times at
// batch 1 and 8 (compiled once with batch gears 1,8, 2 threads):
//
//   ge on the QDQ file (int8 kernels where the CPU has AVX512-VNNI), ge on the f32 file,
//   ONNX Runtime on the f32 file and on the same QDQ file (bench/peers/ort_bench.js).
//
// Bars: ge int8 / ORT f32 <= 0.5 and ge int8 / ORT QDQ <= 1.0. Accuracy: the top-1 class
// of ge int8 against ge f32 (image models) on the export's reference inputs and on 64
// seeded random images, and max |int8 - f32| / max |f32| over those outputs.
//
//   ge_bench_int8 [--exports DIR] [--quick] [--seconds S] [--no-ort] [--keep DIR] [--percentile P] [--samples N]
//
// --percentile P: calibrate activation ranges at that percentile of |x| instead of min-max;
// --samples N: that many random calibration sets (default 8).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "peak.hpp"

#ifndef GE_WITH_ONNX
int main() {
  std::printf("ge_bench_int8: needs the ONNX importer; configure with GE_WITH_ONNX=ON\n");
  return 0;
}
#else

#include <unistd.h>

#include "ge/onnx.hpp"
#include "model_runs.hpp"
#include "ort_peer.hpp"
#include "processes.hpp"

using namespace ge_bench;
namespace fs = std::filesystem;

#ifndef GE_SOURCE_DIR
#define GE_SOURCE_DIR ""
#endif

namespace {

constexpr int threads = 2;

struct Spec {
  std::string name, file, gears, ref_in;
  bool image = true;
  std::int64_t ref_batch = 2;
};

const Spec specs[] = {
    {"ResNet-50", "resnet50_dyn.onnx", "input:-1,3,224,224", "resnet50_ref_in.bin"},
    {"MobileNetV2", "mobilenet_v2_dyn.onnx", "input:-1,3,224,224", "mobilenet_v2_ref_in.bin"},
    {"BERT (torch)", "bert_tiny_dyn.onnx", "input_ids:-1,128", "bert_tiny_ref_in.bin", false},
};

std::vector<InputData> inputs_of(const Spec& s, std::int64_t batch, std::uint64_t seed) {
  if (s.image) return {random_input(ge::DataType::f32, {batch, 3, 224, 224}, seed)};
  return {random_input(ge::DataType::i64, {batch, 128}, seed, 0, 1000)};
}

// The export's reference inputs (raw little-endian, batch 2), one input of batch 1 per
// sample; none when the file is missing or not that size.
std::vector<InputData> reference_inputs(const Spec& s, const fs::path& dir) {
  std::ifstream f(dir / s.ref_in, std::ios::binary);
  if (!f) return {};
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::size_t one = s.image ? 3 * 224 * 224 * 4 : 128 * 8;
  if (bytes.size() != one * static_cast<std::size_t>(s.ref_batch)) return {};
  std::vector<InputData> out;
  for (std::int64_t b = 0; b < s.ref_batch; ++b) {
    InputData in{s.image ? ge::DataType::f32 : ge::DataType::i64,
                 s.image ? std::vector<std::int64_t>{1, 3, 224, 224} : std::vector<std::int64_t>{1, 128},
                 std::vector<std::byte>(one)};
    std::memcpy(in.bytes.data(), bytes.data() + static_cast<std::size_t>(b) * one, one);
    out.push_back(std::move(in));
  }
  return out;
}

// Rows of [rows, classes] whose argmax agree; the rows compared.
std::pair<int, int> top1_agreement(const std::vector<float>& a, const std::vector<float>& b, std::size_t classes) {
  int same = 0, rows = 0;
  for (std::size_t r = 0; r + classes <= a.size(); r += classes, ++rows) {
    const auto ia = std::max_element(a.begin() + static_cast<std::ptrdiff_t>(r), a.begin() + static_cast<std::ptrdiff_t>(r + classes));
    const auto ib = std::max_element(b.begin() + static_cast<std::ptrdiff_t>(r), b.begin() + static_cast<std::ptrdiff_t>(r + classes));
    same += (ia - a.begin()) == (ib - b.begin()) ? 1 : 0;
  }
  return {same, rows};
}

struct Args {
  std::string exports;
  bool quick = false, ort = true;
  double seconds = 3.0;
  std::string keep;
  double percentile = 0;  // 0: min-max ranges
  std::size_t samples = 8;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--exports") a.exports = value();
    else if (arg == "--quick") a.quick = true;
    else if (arg == "--no-ort") a.ort = false;
    else if (arg == "--seconds") a.seconds = std::stod(value());
    else if (arg == "--keep") a.keep = value();
    else if (arg == "--percentile") a.percentile = std::stod(value());
    else if (arg == "--samples") a.samples = static_cast<std::size_t>(std::stoul(value()));
    else throw std::runtime_error("unknown argument '" + arg +
                                  "'; usage: ge_bench_int8 [--exports DIR] [--quick] [--seconds S] [--no-ort] [--keep DIR] "
                                  "[--percentile P] [--samples N]");
  }
  if (a.quick) a.seconds = 1.0;
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--reap") return ge_bench::reap(argv + 2);  // ORT's child (processes.hpp)
  try {
    const Args args = parse(argc, argv);
    fs::path dir = args.exports;
    if (dir.empty() || !fs::exists(dir / "manifest.json")) {
      std::printf("ge_bench_int8: give --exports DIR, a folder that `/usr/bin/python3 ../shared/models/export_models.py "
                  "DIR` made\n");
      return 2;
    }
    const fs::path out = args.keep.empty() ? fs::temp_directory_path() / ("ge_bench_int8_" + std::to_string(getpid()))
                                           : fs::path(args.keep);
    fs::create_directories(out);
    OrtPeer ort = args.ort ? OrtPeer::find(GE_SOURCE_DIR) : OrtPeer{};
    if (args.ort && !ort.available()) std::printf("ONNX Runtime: not available (%s)\n", ort.why_not.c_str());
    const double fma = ge_bench::measured_core_peak(ge_bench::kernel_lanes()), int8 = ge_bench::int8_dot_peak();
    std::printf("CPU: %s; ge::cpu_isa %s; int8 kernels: %s. One core: f32 FMA %.1f GFLOP/s, int8 vpdpbusd %.1f GOP/s\n",
                ge_bench::cpu_model().c_str(), std::string(ge::cpu_isa()).c_str(),
                ge::int8_supported() ? "AVX512-VNNI" : "none (the QDQ models run their FakeQuants in f32)", fma, int8);
    const std::vector<std::int64_t> batches = args.quick ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{1, 8};
    std::printf("\n%-13s %5s | %10s %10s | %10s %10s | %9s %4s | %9s %4s | %-14s %9s\n", "model", "batch", "ge int8",
                "ge f32", "ORT f32", "ORT QDQ", "int8/ORT", "bar", "/ORT QDQ", "bar", "top-1 agree", "error");
    std::printf("%s\n", std::string(130, '-').c_str());
    for (const Spec& s : specs) {
      const fs::path f32_file = dir / s.file, qdq_file = out / (fs::path(s.file).stem().string() + "_qdq.onnx");
      ge::QuantizeReport report;
      ge::QuantizeOptions qo;
      qo.random_samples = args.samples;
      if (args.percentile > 0) {
        qo.method = ge::CalibrationMethod::percentile;
        qo.percentile = args.percentile;
      }
      ge::onnx::save(ge::quantize_qdq(ge::onnx::load(f32_file), qo, &report), qdq_file);
      const ge::BuildOptions gears{{"ge.inputShape", s.gears}, {"ge.dynamicBatchSize", "1,8"}};
      ge::Session f32(ge::compile(ge::onnx::load(f32_file), gears), {.threads = threads});
      ge::Session q8(ge::compile(ge::onnx::load(qdq_file), gears), {.threads = threads});
      // Accuracy: the reference inputs and 64 random images (8 runs of 8).
      std::vector<std::vector<float>> want, got;
      // The reference inputs (batch 2, no gear of its own) one by one, at batch 1.
      for (auto& one : reference_inputs(s, dir)) {
        std::vector<InputData> in{one};
        want.push_back(outputs_of(f32, in).at(0));
        got.push_back(outputs_of(q8, in).at(0));
      }
      for (std::uint64_t seed = 100; seed < (args.quick ? 102u : 108u); ++seed) {
        auto in = inputs_of(s, 8, seed);
        want.push_back(outputs_of(f32, in).at(0));
        got.push_back(outputs_of(q8, in).at(0));
      }
      int same = 0, rows = 0, ref_same = 0, ref_rows = 0;
      if (s.image)
        for (std::size_t i = 0; i < want.size(); ++i) {
          const auto [a, n] = top1_agreement(got[i], want[i], 1000);
          same += a;
          rows += n;
          if (i < static_cast<std::size_t>(s.ref_batch)) {
            ref_same += a;
            ref_rows += n;
          }
        }
      const double error = relative_error(got, want);
      for (const std::int64_t batch : batches) {
        auto in = inputs_of(s, batch, 7);
        const Timing t8 = time_ours(q8, in, 3, 5, args.seconds);
        const Timing t32 = time_ours(f32, in, 3, 5, args.seconds);
        OrtResult o32, o8;
        if (ort.available()) {
          o32 = run_ort(ort, f32_file, batch, threads, {}, 3, 5, args.seconds);
          o8 = run_ort(ort, qdq_file, batch, threads, {}, 3, 5, args.seconds);
        }
        const double r32 = o32.ok ? t8.p50 / o32.p50 : 0, r8 = o8.ok ? t8.p50 / o8.p50 : 0;
        std::printf("%-13s %5lld | %7.2f ms %7.2f ms | %10s %10s | %9s %4s | %9s %4s | %-14s %9.2e\n", s.name.c_str(),
                    static_cast<long long>(batch), t8.p50, t32.p50, o32.ok ? fmt("%.2f ms", o32.p50).c_str() : "-",
                    o8.ok ? fmt("%.2f ms", o8.p50).c_str() : "-", o32.ok ? fmt("%.3f", r32).c_str() : "-",
                    o32.ok ? (r32 <= 0.5 ? "ok" : "MISS") : "-", o8.ok ? fmt("%.3f", r8).c_str() : "-",
                    o8.ok ? (r8 <= 1.0 ? "ok" : "MISS") : "-",
                    s.image ? (std::to_string(ref_same) + "/" + std::to_string(ref_rows) + ", " + std::to_string(same) + "/" +
                               std::to_string(rows))
                                  .c_str()
                            : "n/a",
                    error);
      }
      const std::string said = report.to_string();
      std::fprintf(stderr, "  %s: %s\n", s.name.c_str(), said.substr(0, said.find('\n')).c_str());
    }
    std::printf("int8/ORT: ge on the QDQ file over ORT on the f32 file (bar <= 0.5); /ORT QDQ: over ORT on the same QDQ "
                "file (bar <= 1.0). top-1 agree: image rows whose top class ge int8 and ge f32 share, on the export's "
                "reference inputs, then on those and 64 seeded random images. error: max |int8 - f32| / max |f32| over those outputs.%s\n",
                ort.version.empty() ? "" : (" ORT " + ort.version).c_str());
    if (args.keep.empty()) fs::remove_all(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ge_bench_int8: %s\n", e.what());
    return 1;
  }
  return 0;
}

#endif
