// bench/recurrent: the recurrent layers (LSTM, GRU, RNN) and 3-D convolutions, each
// compiled through the single-op path (`ge::compile_op`, constant weights packed at
// compile time) and run as the runtime runs it (`Kernel::run` on a oneTBB arena of T
// threads); a MatMul by constant weights beside them for the GEMM's rate on this machine;
// then, with --exports DIR (bench/export_recurrent.py's files: LSTM and GRU stacks,
// r3d_18, r2plus1d_18), each model compiled and run by a Session next to ONNX Runtime
// (bench/peers) on the same file in the same run.
//
//   ge_bench_recurrent [layers|models|all (default)] [--threads T (default 2)]
//                      [--reps R (default 7)] [--exports DIR] [--no-ort]
//   GE_BENCH_ONLY=LSTM ge_bench_recurrent layers   # only the rows whose name has it
//
// Each figure is the median over R timed runs after a warm-up (the minimum beside it):
// the machine is shared, and the median is the steadier of the two. "cpu ms" is the
// calling thread's CPU time (the least over the runs): with --threads 1 it is the
// kernel's time without the moments other processes held the core. GFLOP/s and % of
// the peak are of the median. GFLOP/s counts a
// multiply-add as 2: for a layer X W^T over all steps plus h R^T per step; for a conv its
// MACs.
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ge/ge.hpp"
#include "peak.hpp"

#ifdef GE_WITH_ONNX
#include "ge/onnx.hpp"
#include "ort_peer.hpp"
#endif

namespace {

using clock_type = std::chrono::steady_clock;
using Ints = std::vector<std::int64_t>;

struct Times {
  double min = 0, median = 0, cpu = 0;  // cpu: the calling thread's CPU time, the least of the runs
};

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

Times time_it(const std::function<void()>& f, int reps) {
  f();  // warm-up
  std::vector<double> t;
  double cpu = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double c0 = thread_cpu_ms();
    const auto t0 = clock_type::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    cpu = std::min(cpu, thread_cpu_ms() - c0);
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2], cpu};
}

ge::OpTensor f32(const Ints& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return ge::OpTensor{ge::DataType::f32, ge::Shape::parse(s)};
}

ge::TensorView view(const ge::Tensor& t) {
  return ge::TensorView{const_cast<std::byte*>(t.bytes().data()), t.dtype(), t.dims()};
}

// GE_BENCH_ONLY=text: only the rows whose description contains it.
bool wanted(const std::string& what) {
  const char* env = std::getenv("GE_BENCH_ONLY");
  return env == nullptr || *env == 0 || what.find(env) != std::string::npos;
}

// One op with inputs `ins` (constants where `constant[i]`), timed; prints a row.
void bench_op(const char* what, const std::string& op_type, const std::vector<ge::Tensor>& ins,
              const std::vector<bool>& constant, const std::vector<Ints>& outs, const ge::Attributes& attrs,
              double flops, tbb::task_arena& arena, int reps, double peak) {
  if (!wanted(what)) return;
  std::vector<ge::OpTensor> descs;
  for (std::size_t i = 0; i < ins.size(); ++i)
    descs.push_back(constant[i] ? ge::OpTensor::constant_of(ins[i]) : f32(Ints(ins[i].dims().begin(), ins[i].dims().end())));
  std::vector<ge::OpTensor> out_descs;
  std::vector<ge::Tensor> out_tensors;
  for (const Ints& d : outs) {
    out_descs.push_back(f32(d));
    out_tensors.push_back(ge::Tensor::full(ge::DataType::f32, d, 0.0));
  }
  const auto op = ge::compile_op(op_type, descs, out_descs, attrs);
  std::vector<ge::TensorView> in_views, out_views;
  for (const ge::Tensor& t : ins) in_views.push_back(view(t));
  for (const ge::Tensor& t : out_tensors) out_views.push_back(view(t));
  Times t;
  arena.execute([&] { t = time_it([&] { op->kernel->run(in_views, out_views); }, reps); });
  const double gf = flops / (t.median * 1e-3) * 1e-9;
  std::printf("| %-44s | %-22s | %9.3f | %9.3f | %9.3f | %7.1f | %5.1f%% |\n", what,
              std::string(op->kernel->name()).c_str(), t.median, t.min, t.cpu, gf, 100.0 * gf / peak);
  std::fflush(stdout);
}

void bench_layers(int threads, int reps, double peak) {
  tbb::task_arena arena(threads);
  std::printf("| layer                                        | kernel                 | p50 ms    | min ms    | cpu ms    "
              "| GFLOP/s | %%peak |\n|---|---|---|---|---|---|---|\n");
  // The machine's GEMM: a MatMul by constant weights, 1024 x 256 x 1024 and the shape of
  // an LSTM's input projection.
  for (const Ints& mkn : {Ints{1024, 256, 1024}, Ints{512, 256, 4096}, Ints{8, 512, 2048}}) {
    const ge::Tensor a = ge::Tensor::random(ge::DataType::f32, Ints{mkn[0], mkn[1]}, 1);
    const ge::Tensor b = ge::Tensor::random(ge::DataType::f32, Ints{mkn[1], mkn[2]}, 2);
    const std::string what = "MatMul " + std::to_string(mkn[0]) + "x" + std::to_string(mkn[1]) + "x" + std::to_string(mkn[2]);
    bench_op(what.c_str(), "MatMul", {a, b}, {false, true}, {Ints{mkn[0], mkn[2]}}, {},
             2.0 * static_cast<double>(mkn[0] * mkn[1] * mkn[2]), arena, reps, peak);
  }
  struct Rnn {
    const char* op;
    std::int64_t gates, S, N, I, H, D;
    bool lbr;
  };
  const Rnn layers[] = {
      {"LSTM", 4, 64, 8, 256, 512, 2, false},  {"LSTM", 4, 64, 8, 1024, 512, 2, false},
      {"LSTM", 4, 64, 1, 256, 512, 1, false},  {"GRU", 3, 64, 8, 256, 512, 2, true},
      {"GRU", 3, 64, 8, 1024, 512, 2, true},   {"GRU", 3, 64, 8, 256, 512, 2, false},
      {"RNN", 1, 64, 8, 256, 512, 2, false},   {"LSTM", 4, 128, 32, 128, 128, 1, false},
  };
  for (const Rnn& l : layers) {
    const std::int64_t gh = l.gates * l.H;
    const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, Ints{l.S, l.N, l.I}, 1);
    const ge::Tensor w = ge::Tensor::random(ge::DataType::f32, Ints{l.D, gh, l.I}, 2);
    const ge::Tensor r = ge::Tensor::random(ge::DataType::f32, Ints{l.D, gh, l.H}, 3);
    const ge::Tensor b = ge::Tensor::random(ge::DataType::f32, Ints{l.D, 2 * gh}, 4);
    ge::Attributes attrs{{"hidden_size", l.H}, {"direction", l.D == 2 ? "bidirectional" : "forward"}};
    if (std::string(l.op) == "GRU") attrs.emplace("linear_before_reset", std::int64_t{l.lbr ? 1 : 0});
    const double flops = 2.0 * static_cast<double>(l.S * l.N * l.D * gh * (l.I + l.H));
    char what[96];
    std::snprintf(what, sizeof what, "%s S%lld N%lld I%lld H%lld D%lld%s", l.op, static_cast<long long>(l.S),
                  static_cast<long long>(l.N), static_cast<long long>(l.I), static_cast<long long>(l.H),
                  static_cast<long long>(l.D), std::string(l.op) == "GRU" ? (l.lbr ? " lbr1" : " lbr0") : "");
    std::vector<Ints> outs{Ints{l.S, l.D, l.N, l.H}, Ints{l.D, l.N, l.H}};
    bench_op(what, l.op, {x, w, r, b}, {false, true, true, true}, outs, attrs, flops, arena, reps, peak);
  }
  // 3-D convs: r3d_18's at a 16 x 112 x 112 clip (and the brief 8 x 56 x 56 one), and
  // r2plus1d_18's (1, 3, 3) spatial and (3, 1, 1) temporal ones.
  struct Conv3 {
    std::int64_t n, c, m;
    Ints in, k, s, pad;
  };
  const Conv3 convs[] = {
      {1, 3, 64, {16, 112, 112}, {3, 7, 7}, {1, 2, 2}, {1, 3, 3}},
      {1, 64, 64, {8, 56, 56}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
      {1, 64, 64, {16, 56, 56}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
      {1, 64, 128, {16, 56, 56}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}},
      {1, 64, 128, {16, 56, 56}, {1, 1, 1}, {2, 2, 2}, {0, 0, 0}},
      {1, 128, 128, {8, 28, 28}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
      {1, 256, 256, {4, 14, 14}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
      {1, 512, 512, {2, 7, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
      {1, 64, 144, {16, 56, 56}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}},
      {1, 144, 64, {16, 56, 56}, {3, 1, 1}, {1, 1, 1}, {1, 0, 0}},
  };
  for (const Conv3& cv : convs) {
    Ints xd{cv.n, cv.c}, wd{cv.m, cv.c}, yd{cv.n, cv.m}, pads;
    double taps = 1, pixels = 1;
    for (std::size_t a = 0; a < 3; ++a) {
      xd.push_back(cv.in[a]);
      wd.push_back(cv.k[a]);
      const std::int64_t o = (cv.in[a] + 2 * cv.pad[a] - cv.k[a]) / cv.s[a] + 1;
      yd.push_back(o);
      taps *= static_cast<double>(cv.k[a]);
      pixels *= static_cast<double>(o);
    }
    pads = cv.pad;
    pads.insert(pads.end(), cv.pad.begin(), cv.pad.end());
    const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, xd, 1);
    const ge::Tensor w = ge::Tensor::random(ge::DataType::f32, wd, 2);
    const ge::Tensor b = ge::Tensor::random(ge::DataType::f32, Ints{cv.m}, 3);
    const ge::Attributes attrs{{"strides", cv.s}, {"pads", pads}, {"kernel_shape", cv.k}};
    const double flops = 2.0 * static_cast<double>(cv.n * cv.m * cv.c) * taps * pixels;
    char what[96];
    std::snprintf(what, sizeof what, "Conv3d %lld->%lld %lldx%lldx%lld k%lldx%lldx%lld s%lld%lld%lld",
                  static_cast<long long>(cv.c), static_cast<long long>(cv.m), static_cast<long long>(cv.in[0]),
                  static_cast<long long>(cv.in[1]), static_cast<long long>(cv.in[2]), static_cast<long long>(cv.k[0]),
                  static_cast<long long>(cv.k[1]), static_cast<long long>(cv.k[2]), static_cast<long long>(cv.s[0]),
                  static_cast<long long>(cv.s[1]), static_cast<long long>(cv.s[2]));
    bench_op(what, "Conv", {x, w, b}, {false, true, true}, {yd}, attrs, flops, arena, reps, peak);
  }
  // 3-D pools (C3D / I3D style): MaxPool 3x3x3 stride 2 and AveragePool 2x2x2.
  for (const bool is_max : {true, false}) {
    const Ints xd{1, 64, 16, 56, 56}, k = is_max ? Ints{3, 3, 3} : Ints{2, 2, 2}, st{2, 2, 2};
    const Ints pads = is_max ? Ints{1, 1, 1, 1, 1, 1} : Ints{0, 0, 0, 0, 0, 0};
    const Ints yd = is_max ? Ints{1, 64, 8, 28, 28} : Ints{1, 64, 8, 28, 28};
    const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, xd, 1);
    const double flops = 64.0 * 8 * 28 * 28 * static_cast<double>(k[0] * k[1] * k[2]);  // one op per tap
    bench_op(is_max ? "MaxPool3d 64 16x56x56 k3 s2 p1 (op/tap)" : "AveragePool3d 64 16x56x56 k2 s2 (op/tap)",
             is_max ? "MaxPool" : "AveragePool", {x}, {false}, {yd},
             {{"kernel_shape", k}, {"strides", st}, {"pads", pads}}, flops, arena, reps, peak);
  }
}

#ifdef GE_WITH_ONNX
// bench/export_recurrent.py's manifest: "<file> <input>:<d0,d1,...>" per line.
void bench_models(const std::string& dir, int threads, int reps, bool with_ort) {
  std::ifstream manifest(std::filesystem::path(dir) / "manifest.txt");
  if (!manifest) {
    std::printf("no %s/manifest.txt: run bench/export_recurrent.py %s first\n", dir.c_str(), dir.c_str());
    return;
  }
  ge_bench::OrtPeer ort = ge_bench::OrtPeer::find(GE_SOURCE_DIR);
  if (!with_ort) ort.why_not = "--no-ort";
  if (!ort.available()) std::printf("ORT: not available (%s)\n", ort.why_not.c_str());
  std::printf("\n| model | input | ours p50 ms | ours min ms | ORT p50 ms | ORT mean ms | ours/ORT (p50) |\n|---|---|---|---|---|---|---|\n");
  for (std::string line; std::getline(manifest, line);) {
    std::istringstream ls(line);
    std::string file, input;
    if (!(ls >> file >> input)) continue;
    const std::filesystem::path path = std::filesystem::path(dir) / file;
    const std::string dims = input.substr(input.find(':') + 1);
    Ints d;
    for (std::stringstream ds(dims); ds.good();) {
      std::string v;
      std::getline(ds, v, ',');
      d.push_back(std::stoll(v));
    }
    const auto model = ge::compile(ge::onnx::load(path.string()), {{"ge.inputShape", input}});
    ge::Session session(model, {.threads = threads});
    const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, d, 7);
    const ge::TensorView in = view(x);
    const Times t = time_it([&] { (void)session.run({in}); }, reps);
    ge_bench::OrtResult o;
    if (ort.available()) o = ge_bench::run_ort(ort, path, d[0], threads, {input}, 1, reps, 0.0);
    if (o.ok)
      std::printf("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.3f |\n", file.c_str(), dims.c_str(), t.median, t.min,
                  o.p50, o.mean, t.median / o.p50);
    else
      std::printf("| %s | %s | %.2f | %.2f | - | - | - |\n", file.c_str(), dims.c_str(), t.median, t.min);
    std::fflush(stdout);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef GE_WITH_ONNX
  if (argc > 2 && std::string(argv[1]) == "--reap") return ge_bench::reap(argv + 2);  // ORT's child (processes.hpp)
#endif
  try {
    std::string what = "all", exports;
    int threads = 2, reps = 7;
    bool with_ort = true;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const auto value = [&] {
        if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
        return std::string(argv[++i]);
      };
      if (a == "--threads") threads = std::max(1, std::stoi(value()));
      else if (a == "--reps") reps = std::max(1, std::stoi(value()));
      else if (a == "--exports") exports = value();
      else if (a == "--no-ort") with_ort = false;
      else what = a;
    }
    const ge_bench::Peak peak = ge_bench::machine_peak(threads);
    std::printf("bench/recurrent: %d threads, median of %d runs; %s\n", threads, reps, peak.derivation.c_str());
    __builtin_cpu_init();
    std::printf("CPU: %s, %u logical cores; AVX-512F %s, AVX2+FMA %s, bf16 kernels (AVX512-BF16 or AMX-BF16) %s; the kernels run %s\n\n",
                ge_bench::cpu_model().c_str(), std::thread::hardware_concurrency(),
                __builtin_cpu_supports("avx512f") ? "yes" : "no",
                __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "yes" : "no",
                ge::bf16_supported() ? "yes" : "no", std::string(ge::cpu_isa()).c_str());
    if (what == "layers" || what == "all") bench_layers(threads, reps, peak.gflops);
    if ((what == "models" || what == "all") && !exports.empty()) {
#ifdef GE_WITH_ONNX
      bench_models(exports, threads, reps, with_ort);
#else
      std::printf("models: needs the ONNX importer (GE_WITH_ONNX)\n");
#endif
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench/recurrent: %s\n", e.what());
    return 1;
  }
}
