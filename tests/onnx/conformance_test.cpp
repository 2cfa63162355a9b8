// The ONNX backend test data (Debian's libonnx-testdata) run through the importer, the
// compiler and a session: every case directory holds model.onnx and test_data_set_*/
// with input_N.pb and output_N.pb (TensorProto).
//
// Skipped by the plain `onnx` test (it forks a process per case, which must not happen
// in a process whose thread pools have started); CTest runs it as `onnx.conformance`:
//   ge_onnx_tests --test-case='onnx conformance*' --no-skip
// Environment: GE_ONNX_TESTDATA (default /usr/share/libonnx-testdata/data),
// GE_CONFORMANCE_REPORT (a path: writes the report as Markdown there),
// GE_CONFORMANCE_FILTER (only cases whose name contains it).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"

namespace {

namespace fs = std::filesystem;

// The passes measured when this bar was set (Debian libonnx-testdata 1.12.0, all four
// suites). The test fails when fewer cases pass: a regression.
constexpr int min_passes = 1004;

// What the report says about the figures, as measured when the bar was set.
constexpr const char* notes = R"(Notes, as measured when the bar was set (1004 passed, 9 failed, 59 skipped; ONNX Runtime 1.30 passes 959):

- models of opsets below 11 (239 cases: 127 of opset 6, 36 of 7, 33 of 9, 30 of 10, 11 of 1
  and 2 of 8) are converted to opset 11 at import by onnx's version converter
  (`src/onnx/upgrade.cpp`); that brought 104 more passes (372 before, 476 after);
- the element-wise and activation family of issue #17 (Sum, Mean, BitShift, And/Or/Xor,
  IsNaN/IsInf, Sign, Round, Floor, Ceil, Reciprocal, the trigonometric and hyperbolic maps,
  Softplus, Softsign, Mish, Elu, Selu, Celu, ThresholdedRelu, PRelu, Shrink, LessOrEqual,
  GreaterOrEqual) and f64 and unsigned arithmetic brought 124 more (600); Pow of mixed and
  integer types, and PRelu of opsets below 7 (a [C] slope per channel, made [C,1,...] before
  the conversion) 13 more (613); Clip on integers 3 more (616);
- the reductions of issue #17 (ReduceMin, ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2,
  ReduceLogSum, ReduceLogSumExp on f32, f64 and the integers they allow), ArgMin and CumSum
  (exclusive, reverse; its axis an input) brought 76 more (692); GatherElements,
  ScatterElements and Size 48 more (740: with them the expanded NegativeLogLikelihoodLoss
  and LayerNormalization graphs run); Tile, DepthToSpace (DCR, CRD) and SpaceToDepth 10 more
  (750); NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss 86 more (836: with them the
  expanded SoftmaxCrossEntropyLoss graphs run, once LogSoftmax in place stopped reading the
  exponentials it had written over its input); Dropout (inference), CastLike, Hardmax,
  EyeLike, OneHot and GlobalMaxPool 30 more (866); GatherND, ScatterND, Compress,
  ReverseSequence and Unique 17 more (883); f16/bf16 graphs computed in f32 (widen_half_floats:
  f16 Min, Max, Mod) 3 more (886); RNN, GRU, LSTM and the training domain's Adagrad, Adam,
  Momentum 18 more (904); 3-D Conv, ConvTranspose, MaxPool and AveragePool, MaxPool's Indices
  and u8, BatchNormalization training, LRN, MeanVarianceNormalization, the window functions,
  Det and MaxUnpool 34 more (938); DFT, STFT, MelWeightMatrix and TfIdfVectorizer 13 more (951);
  Resize cubic, tf_half_pixel_for_nn and tf_crop_and_resize (and linear align_corners
  downsampling fixed), QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
  ConvInteger, QLinearMatMul, QLinearConv, NonMaxSuppression, RoiAlign and GridSample 48 more
  (999); If, Loop and Scan with subgraphs (issue #37) 5 more (1004: test_if, test_loop11,
  test_scan9_sum and the two expanded Range graphs, which loop);
- the 9 failures are not ge's to fix: Dropout in training mode with a ratio above 0 (random
  masks: 4 cases), four cases whose test data contradicts the model (CastLike to and from
  bf16, plain and expanded: input 'like' declared [3,4], data [1]), and test_adam_multiple,
  whose expected output was made with epsilon 1e-2 while the node leaves epsilon at its
  default 1e-6 (ge gives 0.755959 as the definition does; 1e-2 gives the expected 0.759136);
- the 59 skips: sequences and optionals (32, among them If and Loop over sequences: 4),
  strings (18: StringNormalizer, casts to and from STRING), random numbers (Bernoulli,
  RandomUniformLike: 6), the training domain's Gradient (2) and Scan of opset 8 (1: a batch
  axis and sequence_lens, which onnx's version converter does not carry to Scan-9).
)";

const char* const suites[] = {"node", "simple", "pytorch-converted", "pytorch-operator"};

enum class Outcome { pass, fail, skip };

struct Result {
  Outcome outcome = Outcome::fail;
  std::string reason;  // skip: what is unsupported; fail: the first error; pass: the ops run
};

// The distinct ops of the imported graph, sorted, joined by spaces.
std::string ops_text(const ge::Graph& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.nodes()) ops.push_back(n.op);
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  std::string s;
  for (const auto& op : ops) s += (s.empty() ? "" : " ") + op;
  return s;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits = 0;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// The elements as doubles, for any type (f16/bf16 decoded here).
std::vector<double> values(ge::DataType t, const void* data, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  const auto* b = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (t) {
      case ge::DataType::f16: {
        std::uint16_t h;
        std::memcpy(&h, b + 2 * i, 2);
        v[i] = half_to_float(h);
        break;
      }
      case ge::DataType::bf16: {
        std::uint16_t h;
        std::memcpy(&h, b + 2 * i, 2);
        const std::uint32_t bits = std::uint32_t{h} << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        v[i] = f;
        break;
      }
#define GE_CASE(DT, T)              \
  case ge::DataType::DT: {          \
    T x;                            \
    std::memcpy(&x, b + sizeof(T) * i, sizeof(T)); \
    v[i] = static_cast<double>(x);  \
    break;                          \
  }
        GE_CASE(f32, float)
        GE_CASE(f64, double)
        GE_CASE(i8, std::int8_t)
        GE_CASE(i16, std::int16_t)
        GE_CASE(i32, std::int32_t)
        GE_CASE(i64, std::int64_t)
        GE_CASE(u8, std::uint8_t)
        GE_CASE(u16, std::uint16_t)
        GE_CASE(u32, std::uint32_t)
        GE_CASE(u64, std::uint64_t)
        GE_CASE(boolean, std::uint8_t)
#undef GE_CASE
      case ge::DataType::undefined: break;
    }
  }
  return v;
}

bool is_float(ge::DataType t) {
  return t == ge::DataType::f32 || t == ge::DataType::f64 || t == ge::DataType::f16 || t == ge::DataType::bf16;
}

std::string bracket_dims(const std::vector<std::int64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// "" when equal within tolerance, else what differs.
std::string compare(const ge::Output& got, const ge::Tensor& want, std::size_t k) {
  const std::string which = "output " + std::to_string(k) + " (" + got.name + ")";
  if (got.dtype != want.dtype())
    return which + " has type " + std::string(ge::to_string(got.dtype)) + "; expected " +
           std::string(ge::to_string(want.dtype()));
  if (got.dims != want.dims()) return which + " has dims " + bracket_dims(got.dims) + "; expected " + bracket_dims(want.dims());
  const auto n = want.element_count();
  const auto a = values(got.dtype, got.data, n);
  const auto b = values(want.dtype(), want.bytes().data(), n);
  const bool f = is_float(want.dtype());
  const double rtol = want.dtype() == ge::DataType::f16 || want.dtype() == ge::DataType::bf16 ? 1e-2 : 1e-3;
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool ok = false;
    if (!f) ok = a[i] == b[i];
    else if (std::isnan(b[i])) ok = std::isnan(a[i]);
    else if (std::isinf(b[i])) ok = a[i] == b[i];
    else ok = std::abs(a[i] - b[i]) <= 1e-7 + rtol * std::abs(b[i]);
    if (!ok) {
      std::ostringstream os;
      os << which << " element " << i << " is " << a[i] << "; expected " << b[i];
      return os.str();
    }
  }
  return {};
}

std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p);
  }
  return out;
}

// Removes "(node 'x')" and the like, so that reasons group across models.
std::string reason_key(const std::string& message) {
  std::string s;
  for (std::size_t i = 0; i < message.size();) {
    bool where = false;
    for (const char* w : {" (node ", " (input ", " (initializer ", " (graph)"})
      where = where || message.compare(i, std::strlen(w), w) == 0;
    if (where) {
      const auto close = message.find(')', i);
      if (close == std::string::npos) break;
      i = close + 1;
      continue;
    }
    s += message[i++];
  }
  // "... does not support (opset N): what": keep what, across opsets.
  if (const auto at = s.find(" does not support"); at != std::string::npos)
    if (const auto colon = s.find(": ", at); colon != std::string::npos) s = s.substr(colon + 2);
  return s;
}

// One case, run in this process.
Result run_case(const fs::path& dir) {
  ge::Graph g;
  try {
    g = ge::onnx::load(dir / "model.onnx");
  } catch (const ge::Error& e) {
    if (e.code() == ge::Errc::unsupported_op) return {Outcome::skip, reason_key(e.what())};
    return {Outcome::fail, std::string("load: ") + e.what()};
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().starts_with("test_data_set_")) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return {Outcome::skip, "no test data sets"};
  std::shared_ptr<const ge::CompiledModel> model;
  std::string compiled_for;
  for (const auto& set : sets) {
    const std::string stage = set.filename().string() + ": ";
    std::vector<ge::Tensor> ins, outs;
    try {
      for (const auto& p : numbered(set, "input_")) ins.push_back(ge::onnx::load_tensor(p));
      for (const auto& p : numbered(set, "output_")) outs.push_back(ge::onnx::load_tensor(p));
    } catch (const ge::Error& e) {
      if (e.code() == ge::Errc::unsupported_op) return {Outcome::skip, "test data: " + reason_key(e.what())};
      return {Outcome::fail, stage + "test data: " + e.what()};
    }
    if (ins.size() != g.inputs().size())
      return {Outcome::fail, stage + std::to_string(ins.size()) + " input files for " +
                                 std::to_string(g.inputs().size()) + " graph inputs"};
    // The test data stores bf16 tensors as u16 (numpy has no bf16): the same bits.
    const auto as_bf16 = [](const ge::Tensor& t) {
      return ge::Tensor(ge::DataType::bf16, t.dims(), std::vector<std::byte>(t.bytes().begin(), t.bytes().end()));
    };
    for (std::size_t i = 0; i < ins.size(); ++i)
      if (ins[i].dtype() == ge::DataType::u16 && g.inputs()[i].dtype == ge::DataType::bf16) ins[i] = as_bf16(ins[i]);
    for (std::size_t k = 0; k < outs.size() && k < g.outputs().size(); ++k)
      if (outs[k].dtype() == ge::DataType::u16 && g.value(g.outputs()[k]).desc.dtype == ge::DataType::bf16)
        outs[k] = as_bf16(outs[k]);
    // INPUT_SHAPE from the data where the model's inputs are dynamic (or, in a few
    // cases of the test data, declared with other shapes than the data has).
    bool dynamic = false;
    for (std::size_t i = 0; i < ins.size(); ++i) {
      const ge::Shape& declared = g.inputs()[i].shape;
      dynamic = dynamic || !declared.is_static() || declared.values() != ins[i].dims();
    }
    std::string shapes;
    for (std::size_t i = 0; i < ins.size(); ++i) {
      std::string d;
      for (std::size_t k = 0; k < ins[i].dims().size(); ++k) d += (k ? "," : "") + std::to_string(ins[i].dims()[k]);
      shapes += (i ? ";" : "") + d;
    }
    try {
      if (!model || (dynamic && shapes != compiled_for)) {
        ge::BuildOptions opts;
        if (dynamic) opts.set("ge.inputShape", shapes);
        model = ge::compile(g, opts);
        compiled_for = shapes;
      }
    } catch (const ge::Error& e) {
      return {Outcome::fail, stage + "compile: " + e.what()};
    }
    std::vector<std::vector<std::byte>> buffers;
    std::vector<ge::TensorView> views;
    for (const auto& t : ins) buffers.emplace_back(t.bytes().begin(), t.bytes().end());
    for (std::size_t i = 0; i < ins.size(); ++i)
      views.push_back(ge::TensorView{buffers[i].data(), ins[i].dtype(), ins[i].dims()});
    try {
      ge::Session s(model, {.threads = 1});
      const auto r = s.run(views);
      if (r.outputs.size() != outs.size())
        return {Outcome::fail, stage + std::to_string(r.outputs.size()) + " outputs; expected " +
                                   std::to_string(outs.size())};
      for (std::size_t k = 0; k < outs.size(); ++k)
        if (auto d = compare(r.outputs[k], outs[k], k); !d.empty()) return {Outcome::fail, stage + d};
    } catch (const ge::Error& e) {
      return {Outcome::fail, stage + "run: " + e.what()};
    }
  }
  return {Outcome::pass, ops_text(g)};
}

// One case in a child process, so that a crash or a hang is a failure, not the end.
Result run_isolated(const fs::path& dir) {
  int fd[2];
  if (pipe(fd) != 0) return {Outcome::fail, "pipe failed"};
  const pid_t pid = fork();
  if (pid < 0) return {Outcome::fail, "fork failed"};
  if (pid == 0) {
    close(fd[0]);
    alarm(120);
    Result r;
    try {
      r = run_case(dir);
    } catch (const std::exception& e) {
      r = {Outcome::fail, std::string("exception: ") + e.what()};
    }
    std::string msg = std::to_string(static_cast<int>(r.outcome)) + r.reason;
    for (std::size_t off = 0; off < msg.size();) {
      const auto w = write(fd[1], msg.data() + off, msg.size() - off);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    _exit(0);
  }
  close(fd[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<std::size_t>(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return {Outcome::fail, WTERMSIG(status) == SIGALRM ? "timed out (120 s)"
                                                       : "crashed (signal " + std::to_string(WTERMSIG(status)) + ")"};
  if (msg.empty()) return {Outcome::fail, "the child process reported nothing"};
  return {static_cast<Outcome>(msg[0] - '0'), msg.substr(1)};
}

// A failure without its case-specific details: quoted names become '...', numbers N.
std::string fail_key(const std::string& reason) {
  std::string in = reason;
  if (in.starts_with("test_data_set_")) in = in.substr(in.find(": ") + 2);
  std::string s;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < in.size();) {
    if (in[i] == '\'') {
      const auto close = in.find('\'', i + 1);
      if (close == std::string::npos) break;
      s += "'...'";
      i = close + 1;
    } else if (std::isdigit(static_cast<unsigned char>(in[i])) != 0 && (i == 0 || !alnum(in[i - 1]))) {
      while (i < in.size() && (std::isdigit(static_cast<unsigned char>(in[i])) != 0 || in[i] == '.')) ++i;
      s += 'N';
    } else {
      s += in[i++];
    }
  }
  return s.substr(0, 160);
}

}  // namespace

TEST_CASE("onnx conformance: the ONNX backend test data" * doctest::skip()) {
  const char* env = std::getenv("GE_ONNX_TESTDATA");
  const fs::path root = env != nullptr ? fs::path(env) : fs::path("/usr/share/libonnx-testdata/data");
  if (!fs::is_directory(root / "node")) {
    MESSAGE("no ONNX test data at " << root.string() << " (install libonnx-testdata); nothing to run");
    return;
  }
  const char* filter = std::getenv("GE_CONFORMANCE_FILTER");
  int run = 0, passed = 0, failed = 0, skipped = 0;
  std::map<std::string, std::array<int, 3>> per_suite;  // passed, failed, skipped
  std::vector<std::pair<std::string, std::string>> failures;      // case, reason
  std::map<std::string, std::vector<std::string>> skip_groups;    // reason -> cases
  std::map<std::string, std::vector<std::string>> fail_groups;    // reason kind -> cases
  std::map<std::string, std::vector<std::string>> passed_by_op;   // op -> cases that ran it and passed
  for (const char* suite : suites) {
    const fs::path dir = root / suite;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    for (const auto& c : cases) {
      const std::string name = std::string(suite) + "/" + c.filename().string();
      if (filter != nullptr && name.find(filter) == std::string::npos) continue;
      const Result r = run_isolated(c);
      switch (r.outcome) {
        case Outcome::pass:
          ++per_suite[suite][0];
          ++run;
          ++passed;
          for (std::istringstream ops(r.reason); ops >> std::ws && !ops.eof();) {
            std::string op;
            ops >> op;
            passed_by_op[op].push_back(name);
          }
          break;
        case Outcome::fail:
          ++per_suite[suite][1];
          ++run;
          ++failed;
          failures.emplace_back(name, r.reason);
          fail_groups[fail_key(r.reason)].push_back(name);
          break;
        case Outcome::skip:
          ++per_suite[suite][2];
          ++skipped;
          skip_groups[r.reason].push_back(name);
          break;
      }
    }
  }
  std::ostringstream report;
  report << "# ONNX conformance\n\n"
         << "The ONNX backend test data (Debian package `libonnx-testdata`, ONNX 1.12.0; suites `node`, `simple`,\n"
         << "`pytorch-converted`, `pytorch-operator`) loaded with `ge::onnx::load`, compiled with `ge::compile`\n"
         << "(INPUT_SHAPE from the test data where the model's inputs are dynamic) and run with a `ge::Session`;\n"
         << "outputs compared within rtol 1e-3, atol 1e-7 (floats; 1e-2 for f16/bf16), exactly for integers and\n"
         << "bools. Written by the CTest test `onnx.conformance` when GE_CONFORMANCE_REPORT names a file\n"
         << "(`GE_CONFORMANCE_REPORT=$PWD/docs/conformance.md ctest -R onnx.conformance`).\n\n"
         << "| cases | run | passed | failed | skipped (unsupported) |\n|---|---|---|---|---|\n"
         << "| " << run + skipped << " | " << run << " | " << passed << " | " << failed << " | " << skipped << " |\n\n"
         << "| suite | passed | failed | skipped |\n|---|---|---|---|\n";
  for (const auto& [suite, c] : per_suite) report << "| " << suite << " | " << c[0] << " | " << c[1] << " | " << c[2] << " |\n";
  report << "\n"
         << "`onnx.conformance` fails when fewer than " << min_passes
         << " cases pass (the count measured when the bar was set): a regression bar, since the failures\n"
         << "are kernel or schema limits outside the importer.\n\n"
         << notes << "\n";
  report << "## Failures by kind (" << failed << ")\n\n";
  for (const auto& [kind, names] : fail_groups) {
    report << "- " << names.size() << " x `" << kind << "`:";
    for (const auto& n : names) report << " " << n.substr(n.find('/') + 1);
    report << "\n";
  }
  report << "\n## Failures, first error of each (" << failed << ")\n\n";
  for (const auto& [name, reason] : failures) report << "- `" << name << "`: " << reason.substr(0, 300) << "\n";
  std::vector<std::pair<std::string, std::vector<std::string>>> skips(skip_groups.begin(), skip_groups.end());
  std::stable_sort(skips.begin(), skips.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  report << "\n## Skipped: unsupported (" << skipped << "), by reason\n\n";
  for (const auto& [reason, names] : skips) {
    report << "- " << names.size() << " x " << reason << ":";
    for (const auto& n : names) report << " " << n.substr(n.find('/') + 1);
    report << "\n";
  }
  report << "\n## Passed, by op (the ops of the imported graph)\n\n";
  for (const auto& [op, names] : passed_by_op) {
    report << "- " << op << " (" << names.size() << "):";
    for (const auto& n : names) report << " " << n.substr(n.find('/') + 1);
    report << "\n";
  }
  if (const char* out = std::getenv("GE_CONFORMANCE_REPORT")) {
    std::ofstream f(out);
    f << report.str();
  }
  std::cout << "onnx conformance: " << run + skipped << " cases, " << run << " run, " << passed << " passed, " << failed
            << " failed, " << skipped << " skipped (unsupported)\n";
  for (std::size_t i = 0; i < failures.size() && i < 20; ++i)
    std::cout << "  FAIL " << failures[i].first << ": " << failures[i].second.substr(0, 200) << "\n";
  if (filter == nullptr) CHECK(passed >= min_passes);
}
