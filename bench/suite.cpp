// bench/suite.cpp: `ge_bench_models --suite`, ge next to ONNX Runtime on every model of
// bench/export_suite.py (torchvision 0.14's classifiers, segmenters and video networks with
// random weights, and our own transformers, recurrent stacks, U-Net, generator and
// point-cloud block), exported once into a cache folder with a dynamic batch.
//
//   ge_bench_models --suite [--quick] [--suite-models a,b,...] [--exports DIR] [--dir DIR]
//                           [--seconds S] [--timeout S] [--rounds R] [--batches B,...] [--no-ort]
//
// Each model is compiled once with batch gears 1,8 (--quick: 1; --batches: those) and run at each batch in a
// child process of its own (`--suite-child`: a crash or a hang there is that model's row,
// never the end of the suite), then ONNX Runtime runs the same file on the same input
// (bench/peers/ort_bench.js --input, --save-outputs). Per row: the p50s, their ratio and
// the max relative error of ge's outputs against ORT's (flagged over 1e-3); then the
// geometric mean of the ratios per batch and the worst five rows. Timing as bench/models
// (bench/model_runs.hpp): warm-up runs, then runs until --seconds (default 3; --quick 1)
// have passed and at least 5 (--quick 3) were made. --rounds R (default 1) goes over the
// suite R times, each model's ge then ORT in turn, and keeps each side's lowest p50: on a
// shared machine a burst of another tenant's load during one side's turn otherwise
// decides a row (the same build's rows moved by 1.5-2x between runs on a noisy VM; rounds
// of one model back to back often fell in the same burst). Each side's timing carries where
// the first two CPUs were meanwhile (`core_to_core_ns` before and after it: near, far or
// mixed, the row's "cores" column): a VM's host moves its vCPUs between core complexes,
// and whole models ran up to 1.7x slower while they were far apart. The summary also gives
// the geometric mean over the rows whose two sides were timed in one placement.
#include "suite.hpp"

#ifdef GE_WITH_ONNX
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "ge/onnx.hpp"
#include "model_runs.hpp"
#include "ort_peer.hpp"
#include "peak.hpp"
#include "processes.hpp"

#ifndef GE_SOURCE_DIR
#define GE_SOURCE_DIR ""
#endif

namespace ge_bench {
namespace {

namespace fs = std::filesystem;

constexpr int suite_threads = 2;
constexpr double error_flag = 1e-3;  // rows whose outputs differ from ORT's by more are flagged

struct SuiteArgs {
  bool quick = false, ort = true;
  double seconds = 3.0;
  int timeout = 0;                  // seconds per model in ge; 0: 900 (--quick 120)
  int rounds = 1;                   // measurements per model, each side's lowest p50 kept
  std::vector<std::int64_t> batches;  // empty: 1 and 8 (--quick: 1)
  std::vector<std::string> models;  // empty: every model of the manifest
  std::string exports, dir;
};

constexpr const char* suite_usage =
    "usage: ge_bench_models --suite [--quick] [--suite-models a,b,...] [--exports DIR] [--dir DIR] [--seconds S] "
    "[--timeout S] [--rounds R] [--batches B,...] [--no-ort]\n";

[[noreturn]] void suite_usage_error(const std::string& what) {
  std::fprintf(stderr, "ge_bench_models --suite: %s\n%s", what.c_str(), suite_usage);
  std::exit(2);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  if (!text.empty() && text.back() == sep) out.emplace_back();
  return out;
}

double number_arg(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !(x >= 0)) suite_usage_error(flag + " '" + v + "': expected a number >= 0");
  return x;
}

SuiteArgs parse_suite_args(int argc, char** argv) {
  SuiteArgs a;
  bool seconds_set = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) suite_usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--suite") continue;
    if (arg == "--quick") a.quick = true;
    else if (arg == "--no-ort") a.ort = false;
    else if (arg == "--exports") a.exports = value();
    else if (arg == "--dir") a.dir = value();
    else if (arg == "--timeout") a.timeout = static_cast<int>(number_arg(arg, value()));
    else if (arg == "--rounds") {
      a.rounds = static_cast<int>(number_arg(arg, value()));
      if (a.rounds < 1 || a.rounds > 10) suite_usage_error("--rounds: expected 1 to 10");
    }
    else if (arg == "--seconds") {
      a.seconds = number_arg(arg, value());
      seconds_set = true;
    } else if (arg == "--batches") {
      for (const std::string& b : split(value(), ',')) {
        const double x = number_arg(arg, b);
        if (x < 1 || x > 64 || x != std::floor(x)) suite_usage_error("--batches '" + b + "': expected whole batches 1 to 64");
        a.batches.push_back(static_cast<std::int64_t>(x));
      }
    } else if (arg == "--suite-models") {
      const std::string v = value();
      for (const std::string& m : split(v, ','))
        if (m.empty()) suite_usage_error("--suite-models '" + v + "': an empty name");
        else a.models.push_back(m);
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(suite_usage, stdout);
      std::exit(0);
    } else {
      suite_usage_error("unknown argument '" + arg + "'");
    }
  }
  if (a.quick && !seconds_set) a.seconds = 1.0;
  if (a.timeout == 0) a.timeout = a.quick ? 120 : 900;
  if (a.exports.empty()) a.exports = (fs::path(GE_SOURCE_DIR) / "build" / "suite-models").string();
  return a;
}

// ---------------------------------------------------------------------------------------
// The manifest bench/export_suite.py writes: one row per model.

struct Entry {
  std::string name, status, file, input, dtype, dims, kind, note;
  std::int64_t high = 0, opset = 0;
};

std::vector<Entry> read_manifest(const fs::path& path) {
  std::ifstream in(path);
  std::vector<Entry> out;
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    const auto c = split(line, '\t');
    if (c.size() != 10) continue;
    out.push_back({c[0], c[1], c[2], c[3], c[4], c[5], c[7], c[9], std::atoll(c[6].c_str()), std::atoll(c[8].c_str())});
  }
  return out;
}

// Exports what is missing from `dir` (the script skips what is there) and reads the
// manifest; exits with a message when there is none.
std::vector<Entry> suite_manifest(const SuiteArgs& a) {
  const fs::path dir = a.exports, script = fs::path(GE_SOURCE_DIR) / "bench" / "export_suite.py";
  std::error_code ec;
  if (executable("/usr/bin/python3") && fs::exists(script, ec) &&
      std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") == 0) {
    std::string cmd = "/usr/bin/python3 '" + script.string() + "' '" + dir.string() + "'";
    for (const std::string& m : a.models) cmd += " '" + m + "'";
    cmd += " 1>&2";
    std::fprintf(stderr, "exporting what %s lacks (bench/export_suite.py)\n", dir.string().c_str());
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "the export script failed (above)\n");
  } else {
    std::fprintf(stderr, "no /usr/bin/python3 with torch and torchvision: using %s as it is\n", dir.string().c_str());
  }
  std::vector<Entry> all = read_manifest(dir / "manifest.tsv");
  if (all.empty()) {
    std::fprintf(stderr, "ge_bench_models --suite: no models in %s/manifest.tsv\n", dir.string().c_str());
    std::exit(1);
  }
  if (a.models.empty()) return all;
  std::vector<Entry> picked;
  for (const std::string& m : a.models) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const Entry& e) { return e.name == m; });
    if (it == all.end()) suite_usage_error("--suite-models: no model '" + m + "' (bench/export_suite.py --list)");
    picked.push_back(*it);
  }
  return picked;
}

std::vector<std::int64_t> input_dims(const Entry& e, std::int64_t batch) {
  std::vector<std::int64_t> dims{batch};
  for (const std::string& d : split(e.dims, ',')) dims.push_back(std::atoll(d.c_str()));
  return dims;
}

std::string joined(const std::vector<std::int64_t>& dims, std::size_t from = 0) {
  std::string s;
  for (std::size_t i = from; i < dims.size(); ++i) s += (i > from ? "," : "") + std::to_string(dims[i]);
  return s;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

void write_file(const fs::path& path, const void* data, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::vector<std::byte> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

// ---------------------------------------------------------------------------------------
// The child: one model in ge, compiled once with its batch gears, each batch timed.
//   --suite-child FILE INPUT DTYPE DIMS GEARS PREFIX WARMUP MIN_RUNS SECONDS TIMEOUT
// reads PREFIX_b<B>.in, writes ge's outputs (f32, one after the other) to PREFIX_b<B>.ge
// and prints one line per batch: `ok B p50 p90 mean runs NS0 NS1` (NS: `core_to_core_ns`
// before and after the timed runs) or `error B what` (B 0: the load or the compile).

int suite_child(char** argv) {
  const std::string file = argv[0], input = argv[1], dtype = argv[2], dims = argv[3], gears = argv[4],
                    prefix = argv[5];
  const int warmup = std::atoi(argv[6]), min_runs = std::atoi(argv[7]);
  const double seconds = std::atof(argv[8]);
  alarm(static_cast<unsigned>(std::atoi(argv[9])));  // a hang ends as SIGALRM: the parent says so
  std::shared_ptr<const ge::CompiledModel> model;
  try {
    // One batch (--quick): compiled at that batch; more: once, with them as batch gears.
    const bool one = gears.find(',') == std::string::npos;
    model = ge::compile(ge::onnx::load(file), one ? ge::BuildOptions{{"ge.inputShape", input + ":" + gears + "," + dims}}
                                                  : ge::BuildOptions{{"ge.inputShape", input + ":-1," + dims},
                                                                     {"ge.dynamicBatchSize", gears}});
  } catch (const std::exception& e) {
    std::printf("error 0 %s\n", first_line(e.what()).c_str());
    return 0;
  }
  ge::Session session(model, {.threads = suite_threads});
  for (const std::string& b : split(gears, ',')) {
    try {
      const fs::path in = prefix + "_b" + b + ".in";
      std::vector<std::int64_t> shape{std::atoll(b.c_str())};
      for (const std::string& d : split(dims, ',')) shape.push_back(std::atoll(d.c_str()));
      std::vector<InputData> inputs{{dtype == "i64" ? ge::DataType::i64 : ge::DataType::f32, shape, read_file(in)}};
      std::vector<float> flat;
      for (const auto& o : outputs_of(session, inputs)) flat.insert(flat.end(), o.begin(), o.end());  // a warm-up too
      write_file(prefix + "_b" + b + ".ge", flat.data(), flat.size() * sizeof(float));
      const double before = core_to_core_ns();
      const Timing t = time_ours(session, inputs, std::max(0, warmup - 1), min_runs, seconds);
      const double after = core_to_core_ns();
      std::printf("ok %s %.4f %.4f %.4f %d %.0f %.0f\n", b.c_str(), t.p50, t.p90, t.mean, t.runs, before, after);
    } catch (const std::exception& e) {
      std::printf("error %s %s\n", b.c_str(), first_line(e.what()).c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// The parent.

struct SuiteRow {
  std::string model, kind;
  std::int64_t batch = 0;  // 0: the model as a whole (not exported, not compiled)
  std::optional<Timing> ge;
  std::string ge_error;    // why there is no timing
  OrtResult ort;
  std::optional<double> error;  // max relative error against ORT
  std::string note;
  std::string ge_cores, ort_cores;  // where the two CPUs were during each side's kept timing (`cores_apart`)
};

struct Suite {
  const SuiteArgs& args;
  OrtPeer& ort;
  std::vector<std::int64_t> batches;
  int warmup = 3, min_runs = 5;
  fs::path work;
  std::vector<SuiteRow> rows;
};

void print_row(const SuiteRow& r) {
  const bool ratio = r.ge && r.ort.ok;
  std::string note = r.note;
  if (!r.ge_error.empty()) note = "ge: " + r.ge_error + (note.empty() ? "" : "; " + note);
  const auto dash = [](const std::string& t) { return t.empty() ? std::string("-") : t; };
  const std::string cores = r.ge_cores.empty() && r.ort_cores.empty() ? "-" : dash(r.ge_cores) + "/" + dash(r.ort_cores);
  std::printf("%-28s %-14s %5s | %10s %10s | %7s | %-11s | %9s %4s | %s\n", r.model.c_str(), r.kind.c_str(),
              r.batch > 0 ? std::to_string(r.batch).c_str() : "-", r.ge ? fmt("%.2f ms", r.ge->p50).c_str() : "-",
              r.ort.ok ? fmt("%.2f ms", r.ort.p50).c_str() : "-",
              ratio ? fmt("%.3f", r.ge->p50 / r.ort.p50).c_str() : "-", cores.c_str(),
              r.error ? fmt("%.1e", *r.error).c_str() : "-", r.error ? (*r.error <= error_flag ? "ok" : "DIFF") : "",
              note.c_str());
  std::fflush(stdout);
}

// The outputs of ge and ORT (flat f32 files) against each other: the error, or a note.
void compare(SuiteRow& row, const fs::path& ge_file, const fs::path& ort_file) {
  const std::vector<std::byte> g = read_file(ge_file), o = read_file(ort_file);
  if (g.empty() || o.empty()) return;
  if (g.size() != o.size()) {
    row.note = "outputs differ in size: ge " + std::to_string(g.size() / 4) + ", ORT " + std::to_string(o.size() / 4);
    return;
  }
  std::vector<std::vector<float>> got(1, std::vector<float>(g.size() / 4)), want(1, std::vector<float>(o.size() / 4));
  std::memcpy(got[0].data(), g.data(), g.size());
  std::memcpy(want[0].data(), o.data(), o.size());
  row.error = relative_error(got, want);
  if (std::all_of(want[0].begin(), want[0].end(), [](float x) { return x == 0; })) row.note = "ORT's outputs are all 0";
}

// ge's side of one model: the child's lines into the rows (one per batch).
void run_ge(const Suite& s, const Entry& e, const std::string& prefix, std::vector<SuiteRow>& rows) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::string gears;
  for (const std::int64_t b : s.batches) gears += (gears.empty() ? "" : ",") + std::to_string(b);
  const Child c = spawn({self.string(), "--suite-child", (fs::path(s.args.exports) / e.file).string(), e.input,
                         e.dtype, e.dims, gears, prefix, std::to_string(s.warmup), std::to_string(s.min_runs),
                         std::to_string(s.args.seconds), std::to_string(s.args.timeout)});
  std::istringstream lines(c.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string what;
    std::int64_t batch = 0;
    in >> what >> batch;
    Timing t;
    std::string text;
    double before = -1.0, after = -1.0;
    if (what == "ok") in >> t.p50 >> t.p90 >> t.mean >> t.runs >> before >> after;
    else std::getline(in >> std::ws, text);
    for (SuiteRow& r : rows) {
      if (batch != 0 && r.batch != batch) continue;
      if (what == "ok") {
        r.ge = t;
        r.ge_cores = cores_apart(before, after);
      } else if (r.ge_error.empty())
        r.ge_error = (batch == 0 ? "load/compile: " : "run: ") + text;
    }
  }
  std::string ended;
  if (!c.started) ended = "the child did not start";
  else if (WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGALRM)
    ended = "timed out after " + std::to_string(s.args.timeout) + " s (--timeout)";
  else if (WIFSIGNALED(c.status)) ended = std::string("crashed: ") + strsignal(WTERMSIG(c.status));
  else if (!c.ok()) ended = "exited with status " + std::to_string(WEXITSTATUS(c.status));
  for (SuiteRow& r : rows)
    if (!r.ge && r.ge_error.empty()) r.ge_error = ended.empty() ? "no result" : ended;
}

// ORT on one model at one batch, its input from `in` (`extra`: more ort_bench.js flags).
// `cores`: where the two CPUs were (`cores_apart` of probes before and after).
OrtResult ort_on(Suite& s, const Entry& e, std::int64_t batch, const std::string& in, std::string& cores,
                 std::vector<std::string> extra = {}) {
  const std::string shape = e.input + ":" + joined(input_dims(e, batch));
  extra.insert(extra.begin(), {"--input", e.input + ":" + in});
  const double before = core_to_core_ns();
  OrtResult o = run_ort(s.ort, fs::path(s.args.exports) / e.file, batch, suite_threads, {shape}, s.warmup, s.min_runs,
                        s.args.seconds, extra);
  cores = cores_apart(before, core_to_core_ns());
  return o;
}

void run_model(Suite& s, const Entry& e) {
  if (e.status != "ok") {
    SuiteRow r{e.name, e.kind, 0, {}, {}, {}, {}, {}, {}, {}};
    r.note = "export " + e.status + ": " + e.note;
    print_row(r);
    s.rows.push_back(std::move(r));
    return;
  }
  std::fprintf(stderr, "  %s (%s, input %s [N,%s], opset %lld)\n", e.name.c_str(), e.kind.c_str(), e.input.c_str(),
               e.dims.c_str(), static_cast<long long>(e.opset));
  const std::string prefix = (s.work / e.name).string();
  const auto path = [&](std::int64_t b, const char* ext) { return prefix + "_b" + std::to_string(b) + ext; };
  std::vector<SuiteRow> rows;
  for (const std::int64_t b : s.batches) {
    const auto dims = input_dims(e, b);
    const InputData in = e.dtype == "i64" ? random_input(ge::DataType::i64, dims, 7, 0, static_cast<double>(e.high))
                                          : random_input(ge::DataType::f32, dims, 7);
    write_file(path(b, ".in"), in.bytes.data(), in.bytes.size());
    rows.push_back({e.name, e.kind, b, {}, {}, {}, {}, {}, {}, {}});
  }
  run_ge(s, e, prefix, rows);
  for (SuiteRow& r : rows) {
    if (s.ort.available()) {
      r.ort = ort_on(s, e, r.batch, path(r.batch, ".in"), r.ort_cores, {"--save-outputs", path(r.batch, ".ort")});
      if (!r.ort.ok) r.note = "ORT failed (its message above on stderr)";
      if (r.ge && r.ort.ok) compare(r, path(r.batch, ".ge"), path(r.batch, ".ort"));
    }
  }
  for (SuiteRow& r : rows) {
    print_row(r);
    // (the input stays for the later rounds)
    for (const char* ext : s.args.rounds > 1 ? std::vector<const char*>{".ge", ".ort"}
                                             : std::vector<const char*>{".in", ".ge", ".ort"}) {
      std::error_code ec;
      fs::remove(path(r.batch, ext), ec);
    }
    s.rows.push_back(std::move(r));
  }
}

// A later round of one model: ge again (a fresh child), then ORT again on the same input;
// each side keeps its lowest p50.
void remeasure(Suite& s, const Entry& e) {
  std::vector<SuiteRow*> mine;
  for (SuiteRow& r : s.rows)
    if (r.model == e.name && r.batch > 0 && r.ge) mine.push_back(&r);
  if (mine.empty()) return;
  std::fprintf(stderr, "  %s (again)\n", e.name.c_str());
  const std::string prefix = (s.work / e.name).string();
  const auto path = [&](std::int64_t b, const char* ext) { return prefix + "_b" + std::to_string(b) + ext; };
  std::vector<SuiteRow> again;
  for (const SuiteRow* r : mine) again.push_back({r->model, r->kind, r->batch, {}, {}, {}, {}, {}, {}, {}});
  run_ge(s, e, prefix, again);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    SuiteRow& r = *mine[i];
    if (again[i].ge && again[i].ge->p50 < r.ge->p50) {
      r.ge = again[i].ge;
      r.ge_cores = again[i].ge_cores;
    }
    if (s.ort.available() && r.ort.ok) {
      std::string cores;
      const OrtResult o = ort_on(s, e, r.batch, path(r.batch, ".in"), cores);
      if (o.ok && o.p50 < r.ort.p50) {
        r.ort = o;
        r.ort_cores = cores;
      }
    }
    std::error_code ec;
    fs::remove(path(r.batch, ".ge"), ec);
  }
}

// ---------------------------------------------------------------------------------------
// The summary: the geometric mean of ge/ORT per batch, the worst five rows, the failures.

void print_summary(const Suite& s) {
  std::printf("\nsummary (ge/ORT: the ratio of the p50s; error: max |ge - ORT| over max |ORT| of the outputs, "
              "flagged DIFF over %.0e)\n", error_flag);
  std::vector<const SuiteRow*> timed;
  for (const SuiteRow& r : s.rows)
    if (r.ge && r.ort.ok) timed.push_back(&r);
  for (const std::int64_t b : s.batches) {
    double logs = 0;
    int n = 0, over = 0, diff = 0;
    for (const SuiteRow* r : timed)
      if (r->batch == b) {
        const double ratio = r->ge->p50 / r->ort.p50;
        logs += std::log(ratio);
        ++n;
        over += ratio > 1.0 ? 1 : 0;
        diff += r->error && *r->error > error_flag ? 1 : 0;
      }
    if (n > 0)
      std::printf("batch %lld: geometric mean ge/ORT %.3f over %d models; %d above 1.0; %d with outputs flagged DIFF\n",
                  static_cast<long long>(b), std::exp(logs / n), n, over, diff);
    // The same over the rows whose two sides were timed with the CPUs in one placement.
    for (const char* where : {"near", "far"}) {
      double l = 0;
      int k = 0, above = 0;
      for (const SuiteRow* r : timed)
        if (r->batch == b && r->ge_cores == where && r->ort_cores == where) {
          const double ratio = r->ge->p50 / r->ort.p50;
          l += std::log(ratio);
          ++k;
          above += ratio > 1.0 ? 1 : 0;
        }
      if (k > 0)
        std::printf("  both sides %s: geometric mean %.3f over %d models; %d above 1.0\n", where, std::exp(l / k), k,
                    above);
    }
  }
  std::sort(timed.begin(), timed.end(),
            [](const SuiteRow* x, const SuiteRow* y) { return x->ge->p50 / x->ort.p50 > y->ge->p50 / y->ort.p50; });
  std::printf("worst five rows:\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(5, timed.size()); ++i) print_row(*timed[i]);
  std::vector<const SuiteRow*> failed;
  for (const SuiteRow& r : s.rows)
    if (!r.ge) failed.push_back(&r);
  std::printf("%zu rows without a ge timing (export failed or skipped, load, compile or run failed)%s\n",
              failed.size(), failed.empty() ? "" : ":");
  for (const SuiteRow* r : failed) print_row(*r);
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

bool suite_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--suite") == 0 || std::strcmp(argv[i], "--suite-models") == 0 ||
        std::strcmp(argv[i], "--suite-child") == 0)
      return true;
  return false;
}

int suite_main(int argc, char** argv) {
  if (argc == 12 && std::strcmp(argv[1], "--suite-child") == 0) return suite_child(argv + 2);
  const SuiteArgs args = parse_suite_args(argc, argv);
  const auto start = clock_type::now();
  try {
    const std::vector<Entry> models = suite_manifest(args);
    OrtPeer ort = args.ort ? OrtPeer::find(GE_SOURCE_DIR) : OrtPeer{};
    if (!args.ort) ort.why_not = "--no-ort";
    Suite s{.args = args,
            .ort = ort,
            .batches = !args.batches.empty() ? args.batches
                       : args.quick      ? std::vector<std::int64_t>{1}
                                         : std::vector<std::int64_t>{1, 8},
            .warmup = args.quick ? 1 : 3,
            .min_runs = args.quick ? 3 : 5,
            .work = args.dir.empty() ? fs::temp_directory_path() / ("ge_bench_suite_" + std::to_string(getpid()))
                                     : fs::path(args.dir),
            .rows = {}};
    fs::create_directories(s.work);
    std::printf("bench/models --suite: ge vs ONNX Runtime, %d threads, %zu models of %s%s\n", suite_threads,
                models.size(), args.exports.c_str(),
                args.rounds > 1 ? (", " + std::to_string(args.rounds) + " rounds (each side's lowest p50)").c_str() : "");
    std::printf("CPU: %s, %u cores online, load average %s\n%s\n", cpu_model().c_str(),
                static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)), load_average().c_str(),
                machine_peak(suite_threads).derivation.c_str());
    if (!ort.available()) std::printf("ORT: not available (run npm ci in bench/peers): %s\n", ort.why_not.c_str());
    const double apart = core_to_core_ns();
    if (apart > 0.0)
      std::printf(
          "the first two CPUs %.0f ns apart now (a cache line one way); each row's \"cores\": where they were "
          "during ge's / ORT's timed runs, near (<= 100 ns) or far, mixed when the two probes disagree\n",
          apart);
    std::printf("\n%-28s %-14s %5s | %10s %10s | %7s | %-11s | %9s %4s | %s\n%s\n", "model", "kind", "batch", "ge p50",
                "ORT p50", "ge/ORT", "cores", "error", "", "note", std::string(126, '-').c_str());
    std::fflush(stdout);
    for (const Entry& e : models) run_model(s, e);
    // Later rounds go over the whole suite again (a burst of another tenant's load lasts
    // longer than one model's turn: rounds back to back shared it), then the table again.
    for (int round = 2; round <= args.rounds; ++round) {
      std::fprintf(stderr, "round %d of %d\n", round, args.rounds);
      for (const Entry& e : models)
        if (e.status == "ok") remeasure(s, e);
    }
    if (args.rounds > 1) {
      std::printf("\nafter %d rounds, each side's lowest p50:\n", args.rounds);
      for (const SuiteRow& r : s.rows) print_row(r);
    }
    print_summary(s);
    if (ort.available()) std::printf("ONNX Runtime %s (onnxruntime-node, CPU execution provider)\n", ort.version.c_str());
    std::printf("suite time %.0f s; load average at the end %s\n",
                std::chrono::duration<double>(clock_type::now() - start).count(), load_average().c_str());
    if (args.dir.empty()) {
      std::error_code ec;
      fs::remove_all(s.work, ec);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ge_bench_models --suite: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ge_bench
#endif  // GE_WITH_ONNX
