// `gec quantize`: post-training static quantization of an f32 ONNX model into a QDQ model
// (ge::quantize_qdq, include/ge/runtime/quantize.hpp): calibrated on .npy inputs or on
// seeded random ones, written with ge::onnx::save, and a report printed.
//
//   $ gec quantize resnet50.onnx -o resnet50_qdq.onnx --samples 16 --method percentile
//   $ gec quantize bert.onnx -o bert_qdq.onnx --calibration "ids0.npy;ids1.npy" --ops MatMul,Gemm

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/core/error.hpp"
#include "ge/runtime/quantize.hpp"
#include "npy.hpp"
#if defined(GE_WITH_ONNX)
#include "ge/onnx.hpp"
#endif

namespace gec {

namespace {

#if defined(GE_WITH_ONNX)
namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

ge::Tensor read_tensor(const std::string& path) {
  NpyArray a = read_npy(path);
  return ge::Tensor(a.dtype, std::move(a.dims), std::move(a.bytes));
}

// One set from a directory: <input name>.npy per graph input.
std::vector<ge::Tensor> set_from_dir(const fs::path& dir, const ge::Graph& g) {
  std::vector<ge::Tensor> set;
  for (const ge::GraphInput& in : g.inputs()) {
    const fs::path file = dir / (in.name + ".npy");
    if (!fs::is_regular_file(file))
      throw UsageError("--calibration: " + dir.string() + " has no " + file.filename().string() + " for input '" +
                       in.name + "'");
    set.push_back(read_tensor(file.string()));
  }
  return set;
}

// The sets of --calibration: a directory (each subdirectory one set, or the directory
// itself one set) or files: `a.npy,b.npy` one set, sets separated by ';'.
std::vector<std::vector<ge::Tensor>> read_calibration(const std::string& spec, const ge::Graph& g) {
  std::vector<std::vector<ge::Tensor>> sets;
  if (fs::is_directory(spec)) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(spec))
      if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) dirs.push_back(spec);
    for (const fs::path& d : dirs) sets.push_back(set_from_dir(d, g));
    return sets;
  }
  for (const std::string& set : split(spec, ';')) {
    if (set.empty()) throw UsageError("--calibration '" + spec + "': an empty set; expected a.npy,b.npy;c.npy,d.npy");
    sets.emplace_back();
    for (const std::string& file : split(set, ',')) {
      if (file.empty()) throw UsageError("--calibration '" + spec + "': an empty file name");
      sets.back().push_back(read_tensor(file));
    }
  }
  return sets;
}

ge::QuantizeOptions options_of(const Args& a, const ge::Graph& g) {
  ge::QuantizeOptions o;
  if (const auto c = a.get("calibration")) o.calibration = read_calibration(*c, g);
  if (const auto n = a.get("samples")) {
    if (a.has("calibration")) throw UsageError("--samples sets how many random sets to make; drop it with --calibration");
    o.random_samples = static_cast<std::size_t>(parse_int("samples", *n, 1));
  }
  if (const auto s = a.get("seed")) o.seed = static_cast<std::uint64_t>(parse_int("seed", *s, 0));
  if (const auto t = a.get("threads")) o.threads = static_cast<int>(parse_int("threads", *t, 0));
  const std::string method = a.get("method").value_or(a.has("percentile") ? "percentile" : "minmax");
  if (method == "percentile") {
    o.method = ge::CalibrationMethod::percentile;
  } else if (method != "minmax") {
    throw UsageError("--method '" + method + "': expected minmax or percentile");
  } else if (a.has("percentile")) {
    throw UsageError("--percentile goes with --method percentile, not minmax");
  }
  if (const auto p = a.get("percentile")) {
    std::size_t used = 0;
    try {
      o.percentile = std::stod(*p, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != p->size()) throw UsageError("--percentile '" + *p + "' is not a number");
  }
  if (const auto ops = a.get("ops")) o.op_types = split(*ops, ',');
  return o;
}
#endif

constexpr const char* help_text =
    "usage: gec quantize MODEL.onnx --output OUT.onnx [--calibration SETS] [--samples N] [--seed S]\n"
    "                    [--method minmax|percentile] [--percentile P] [--ops Conv,MatMul,Gemm]\n\n"
    "Post-training static quantization of an f32 ONNX model into a QDQ model: the data input of\n"
    "each Conv, MatMul and Gemm with a constant weight gets a QuantizeLinear/DequantizeLinear pair\n"
    "(u8, per tensor, its range calibrated), the weight int8 per output channel (symmetric), the\n"
    "bias int32 (scale x_scale * w_scale). The rest of the model stays f32.\n\n"
    "--calibration SETS gives the calibration inputs as .npy files:\n"
    "  a.npy,b.npy            one set: one file per graph input, in input order\n"
    "  a0.npy,b0.npy;a1.npy,b1.npy   several sets, separated by ';' (quote it for the shell)\n"
    "  DIR                    each subdirectory of DIR (in name order) is one set holding\n"
    "                         <input name>.npy per input; without subdirectories DIR is one set\n"
    "Without it, --samples seeded random sets (default 8): float inputs standard normal, integer\n"
    "inputs in [0, 100) (an input named *mask*: all ones); a ranged or unknown dim takes its\n"
    "lower bound (at least 1).\n\n"
    "--method minmax (default) takes each value's min and max over all sets; percentile clips that\n"
    "range to [-t, t], t the --percentile P (default 99.999) of |x| over all its values.\n\n"
    "flags:\n%s\nexample:\n  gec quantize resnet50.onnx -o resnet50_qdq.onnx --samples 16 --method percentile\n";

}  // namespace

int run_quantize(std::span<const std::string> args) {
  const std::vector<Flag> flags{
      {"model", true, "the f32 ONNX model (or give it as the first argument)"},
      {"output", true, "the QDQ ONNX model to write (-o FILE) (required)"},
      {"calibration", true, "calibration inputs as .npy files: a.npy,b.npy[;a1.npy,b1.npy...] or a directory"},
      {"samples", true, "random calibration sets to make without --calibration (default 8)"},
      {"seed", true, "the seed of the random sets (default 0)"},
      {"method", true, "minmax (default) or percentile"},
      {"percentile", true, "with --method percentile: P in (0, 100] (default 99.999)"},
      {"ops", true, "the op types to quantize (default Conv,MatMul,Gemm)"},
      {"threads", true, "calibration threads (default: every core)"},
      {"help", false, "print this help and exit"}};
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::printf(help_text, describe_flags(flags).c_str());
    return 0;
  }
  std::string model = a.get("model").value_or("");
  if (a.positionals.size() > (model.empty() ? 1u : 0u))
    throw UsageError("unexpected argument '" + a.positionals.back() + "'; quantize takes one model");
  if (model.empty() && !a.positionals.empty()) model = a.positionals.front();
  if (model.empty()) throw UsageError("a model is required: gec quantize MODEL.onnx --output OUT.onnx");
  const auto output = a.get("output");
  if (!output) throw UsageError("--output OUT.onnx is required");
#if !defined(GE_WITH_ONNX)
  throw UsageError("this gec was built without the ONNX importer (GE_WITH_ONNX=OFF); it cannot read " + model);
#else
  const ge::Graph graph = ge::onnx::load(model);
  const ge::QuantizeOptions options = options_of(a, graph);
  ge::QuantizeReport report;
  const ge::Graph q = ge::quantize_qdq(graph, options, &report);
  ge::onnx::save(q, *output);
  std::printf("model %s: %zu nodes\n%s", model.c_str(), graph.nodes().size(), report.to_string().c_str());
  std::printf("wrote %s: %zu nodes, opset %lld (%.2f MiB)\n", output->c_str(), q.nodes().size(),
              static_cast<long long>(ge::onnx::save_opset(q)),
              static_cast<double>(std::filesystem::file_size(*output)) / (1024.0 * 1024.0));
  return 0;
#endif
}

}  // namespace gec
