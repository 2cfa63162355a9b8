// `gec compile` and `gec run`: an ONNX model through ge::compile (every gear), a summary
// of the plans; and runs of it with seeded random (or .npy) inputs, latency percentiles,
// and the outputs written as .npy files.
//
//   $ gec compile --model resnet50.onnx --input_shape data:-1,3,224,224 --dynamic_batch_size 1,2,4,8
//   $ gec run --model resnet50.onnx --input_shape data:-1,3,224,224 --dynamic_batch_size 1,8
//         --shape data:8,3,224,224 --iterations 20 --threads 2 --output_dir out/   (one line)

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/compile/plan_svg.hpp"
#include "ge/core/detail/file_write.hpp"
#include "ge/graph/dot.hpp"
#include "ge/options/option.hpp"
#include "ge/runtime/session.hpp"
#include "ge/runtime/trace.hpp"
#include "json.hpp"
#include "model.hpp"
#include <cstdlib>

#include "npy.hpp"
#if defined(GE_WITH_ONNX)
#include "ge/onnx.hpp"
#endif

namespace gec {

std::vector<Flag> shared_model_flags() {
  std::vector<Flag> flags{{"model", true, "the ONNX model file, or a compiled model file (gec compile -o) (required)"}};
  for (const ge::OptionInfo& o : ge::options_table()) flags.push_back({o.flag, true, o.summary});
  flags.push_back({"target", true, "the target product (default: cpu); see 'gec gears --help'"});
  flags.push_back({"streams", true, "vector-engine streams per plan, >= 1 (default 4): 1 runs the steps in order, each kernel on every thread"});
  flags.push_back({"precision", true, "f32 (default) or bf16: convs and constant-weight matmuls in bf16 with f32 accumulation on CPUs with AVX512-BF16 or AMX-BF16"});
  flags.push_back({"cache_dir", true, "a folder of compiled models: load the one made from the same model and flags, else compile and store it there"});
  return flags;
}

namespace {

// The flags both commands share: the model, every build option, the target.
std::vector<Flag> model_flags(bool run) {
  std::vector<Flag> flags = shared_model_flags();
  if (!run) flags.front().help = "the ONNX model file (required)";
  if (run) {
    flags.push_back({"shape", true, "the real input shapes, INPUT_SHAPE style: name:dims;name:dims (default: an --input file's, the model's or the first gear's)"});
    flags.push_back({"input", true, "inputs from .npy files: name=file.npy,name=file.npy (others: seeded random data)"});
    flags.push_back({"iterations", true, "timed runs (default 10), after one warm-up run"});
    flags.push_back({"threads", true, "host scheduler threads (default: every core)"});
    flags.push_back({"seed", true, "the seed of the random inputs (default 1)"});
    flags.push_back({"output_dir", true, "write each output of the last run as <dir>/<name>.npy"});
    flags.push_back({"trace", true, "write the timed runs as a Chrome trace (Perfetto, chrome://tracing) to FILE"});
    flags.push_back({"profile", false, "print kernel time per op type and for the top 20 nodes (calls, ms, share, GFLOP/s)"});
    flags.push_back({"pad_to_gear", false, "pad inputs matching no gear to the smallest gear holding them, where the compiler proved it safe"});
  } else {
    flags.push_back({"dot", true, "write the compiled graph as Graphviz text to FILE (streams as colours, fusions marked)"});
    flags.push_back({"plan_svg", true, "write a plan's memory plan (values over steps and arena offsets) as SVG to FILE"});
    flags.push_back({"gear", true, "the plan --dot and --plan_svg show: gear N (default: the first plan)"});
    flags.push_back({"json", false, "print the summary as one line of JSON"});
    flags.push_back({"output", true, "write the compiled model to FILE (-o FILE): 'gec run --model FILE', ge::load_compiled and aclmdlLoadFromFile load it"});
    flags.push_back({"portable", false, "with -o: the weights in the graph's layout, packed at load for any CPU (default: packed for this CPU's ISA)"});
  }
  flags.push_back({"help", false, "print this help and exit"});
  return flags;
}

std::string usage(bool run, const std::vector<Flag>& flags) {
  std::string out = run ? "usage: gec run --model M.onnx [build options] [--shape name:dims;...] [--input name=f.npy,...]\n"
                          "               [--iterations N] [--threads T] [--seed S] [--output_dir DIR]\n"
                          "               [--trace FILE.json] [--profile] [--pad_to_gear]\n"
                          "\n"
                          "Compiles the model as 'gec compile' does, fills the inputs with seeded random data (or\n"
                          "reads .npy files), runs it once to warm up and N times timed, and prints the latency\n"
                          "percentiles (p50, p90, p99) and the throughput. --trace and --profile record the timed\n"
                          "runs step by step (docs/observe.md).\n"
                        : "usage: gec compile --model M.onnx [--input_shape ...] [--dynamic_batch_size|--dynamic_image_size|\n"
                          "                   --dynamic_dims ...] [--input_format ...] [--target NAME]\n"
                          "                   [--ac_parallel_enable 0|1] [--dot FILE] [--plan_svg FILE] [--gear N]\n"
                          "                   [--json] [-o FILE.gem]\n"
                          "\n"
                          "Loads the model, checks the options against it and the target, compiles every gear\n"
                          "(or the range plan), and prints the inputs and outputs, and per plan the node count,\n"
                          "streams, arena bytes, bytes without reuse and the lower bound.\n";
  out += "\nflags:\n" + describe_flags(flags);
  out += "\nexit status: 0 success, 2 bad flags, a bad model or bad option values\n";
  return out;
}

struct Loaded {
  std::string path;
  std::shared_ptr<const ge::CompiledModel> model;
  std::size_t source_nodes = 0;
  bool cache = false;  // compiled with --cache_dir
};

// True when `path` starts as a model file of ge::save does.
bool is_model_file(const std::string& path) {
  char head[8] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(head, sizeof head) && std::memcmp(head, "GEMODEL", 8) == 0;
}

ge::CompileSettings compile_settings(const Args& a, bool progress) {
  ge::CompileSettings settings;
  if (const auto st = a.get("streams")) {
    char* end = nullptr;
    const long v = std::strtol(st->c_str(), &end, 10);
    if (st->empty() || *end != '\0' || v < 1 || v > 64) throw UsageError("--streams " + *st + ": expected a count from 1 to 64");
    settings.max_streams = static_cast<int>(v);
  }
  if (const auto p = a.get("precision")) {
    try {
      settings.precision = ge::parse_precision(*p);
    } catch (const ge::Error&) {
      throw UsageError("--precision " + *p + ": expected f32 or bf16");
    }
  }
  if (progress && isatty(STDERR_FILENO) != 0)
    settings.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rgec: compiled plan %zu of %zu", done, total);
      if (done == total) std::fputc('\n', stderr);
    };
  settings.keep_weights = a.has("portable");  // a portable file needs every weight in the graph's layout
  if (const auto dir = a.get("cache_dir")) settings.cache_dir = *dir;
  return settings;
}

// A compiled model file: its build options and settings are in it.
Loaded load_model_file(const Args& a, const std::string& path, const ge::CompileSettings& settings) {
  for (const auto& entry : a.values) {
    const std::string& name = entry.first;
    const bool build_flag = name == "target" || name == "streams" || name == "precision" || name == "portable" ||
                            name == "cache_dir" ||
                            std::any_of(ge::options_table().begin(), ge::options_table().end(),
                                        [&](const ge::OptionInfo& o) { return o.flag == name; });
    if (build_flag)
      throw UsageError("--" + name + ": " + path + " is a compiled model file, which carries its build options and settings; drop --" + name);
  }
  auto model = ge::load_compiled(path, settings);
  return Loaded{path, model, model->graph().nodes().size()};
}

Loaded load_and_compile(const Args& a, bool progress) {
  const auto path = a.get("model");
  if (!path) throw UsageError("--model is required");
  ge::CompileSettings settings = compile_settings(a, progress);
  if (is_model_file(*path)) return load_model_file(a, *path, settings);
#if !defined(GE_WITH_ONNX)
  throw UsageError("this gec was built without the ONNX importer (GE_WITH_ONNX=OFF); --model reads only "
                   "compiled model files here");
#else
  ge::Graph graph = ge::onnx::load(*path);
  const std::size_t source_nodes = graph.nodes().size();
  ge::BuildOptions options;
  for (const auto& [name, value] : a.values)
    for (const ge::OptionInfo& o : ge::options_table())
      if (o.flag == name) options.set(o.id, value);
  const ge::Target& target = ge::find_target(a.get("target").value_or("cpu"));
  return Loaded{*path, ge::compile(std::move(graph), options, target, settings), source_nodes, !settings.cache_dir.empty()};
#endif
}

std::string io_text(const ge::ModelIO& io) {
  return io.name + " " + std::string(ge::to_string(io.dtype)) + "[" + io.shape.to_string() + "]";
}

std::vector<std::string> input_names(const ge::CompiledModel& m) {
  std::vector<std::string> names;
  for (const ge::ModelIO& io : m.inputs()) names.push_back(io.name);
  return names;
}

// The plan --dot and --plan_svg show: --gear N, else the first; null when no plan was
// made at compile time.
const ge::Plan* shown_plan(const ge::CompiledModel& m, const std::optional<std::string>& gear) {
  const auto& plans = m.plans();
  const ge::Plan* shown = plans.empty() ? nullptr : plans.front().get();
  if (!gear) return shown;
  const std::int64_t gear_index = parse_int("gear", *gear, 0);
  const bool geared = !plans.empty() && plans.front()->gear >= 0;
  if (plans.empty())
    throw UsageError("--gear " + *gear + ": the model has no plan made at compile time (an unbounded dim: a plan per "
                     "input signature, made at run time)");
  if (!geared && gear_index != 0)
    throw UsageError("--gear " + *gear + ": the model has one plan and no gears; expected 0 or no --gear");
  if (geared) {
    const auto it = std::find_if(plans.begin(), plans.end(), [&](const auto& p) { return p->gear == gear_index; });
    if (it == plans.end())
      throw UsageError("--gear " + *gear + ": the model has gears 0 to " + std::to_string(m.gears().size() - 1) +
                       "; expected one of them");
    shown = it->get();
  }
  return shown;
}

// --dot: the compiled graph, its nodes coloured by the streams of plan `shown`.
void write_dot(const std::string& file, const std::string& stem, const ge::CompiledModel& m, const ge::Plan* shown) {
  ge::DotOptions d;
  d.name = stem;
  if (shown != nullptr) {
    d.node_streams.assign(m.graph().nodes().size(), -1);
    for (std::size_t s = 0; s < shown->steps.size(); ++s)
      if (const auto n = m.graph().find_node(shown->steps[s].name)) d.node_streams[*n] = shown->streams.stream[s];
    // The values as this plan has them (a gear's static dims, not the hull's ranges).
    std::unordered_map<std::string_view, const ge::TensorDesc*> in_plan;
    for (const ge::PlanValue& v : shown->values) in_plan.emplace(v.name, &v.desc);
    for (const ge::ValueInfo& v : m.graph().values()) {
      const auto it = in_plan.find(v.name);
      d.value_descs.push_back(it != in_plan.end() ? *it->second : v.desc);
    }
  }
  if (const auto why = ge::detail::write_file_atomically(file, ge::to_dot(m.graph(), d)))
    throw UsageError("cannot write --dot file '" + file + "': " + *why);
}

// --plan_svg: the memory plan of plan `shown`.
void write_plan_svg(const std::string& file, const std::string& stem, const ge::Plan* shown,
                    const std::vector<std::string>& names) {
  if (shown == nullptr)
    throw UsageError("--plan_svg: the model has no plan made at compile time (an unbounded dim: a plan per input "
                     "signature, made at run time); give ranges or gears for it");
  ge::PlanSvgOptions o;
  o.title = stem + (shown->gear >= 0 ? ", gear " + std::to_string(shown->gear) : std::string()) + ": " +
            shown->describe_inputs(names);
  if (const auto why = ge::detail::write_file_atomically(file, ge::plan_svg(*shown, o)))
    throw UsageError("cannot write --plan_svg file '" + file + "': " + *why);
}

// The Transposes the layout passes put into the compiled graph (`<value>.to_nhwc` and
// `<value>.to_nchw`, conv_frames' `<value>.to_nchw_frames` and `<value>.to_ncdhw`,
// docs/passes.md), and all its Transposes.
struct TransposeCount {
  std::size_t layout = 0, all = 0;
};
TransposeCount transposes(const ge::CompiledModel& m) {
  TransposeCount t;
  for (const ge::Node& n : m.graph().nodes()) {
    if (n.op != "Transpose") continue;
    ++t.all;
    if (n.name.find(".to_nhwc") != std::string::npos || n.name.find(".to_nchw") != std::string::npos ||
        n.name.find(".to_ncdhw") != std::string::npos)
      ++t.layout;
  }
  return t;
}

// A quantized (QDQ) model's compiled graph: the products running in int8 (a FusedConv,
// FusedMatMul or FusedPointwiseDepthwise with a quantized input, docs/passes.md) and the
// quantize-dequantize round trips left as ops of their own.
struct QuantCount {
  std::size_t int8 = 0, fake_quant = 0;
};
QuantCount quantized(const ge::CompiledModel& m) {
  QuantCount q;
  for (const ge::Node& n : m.graph().nodes()) {
    if (n.op == "FakeQuant") ++q.fake_quant;
    for (const char* a : {"x_scale", "pointwise_x_scale"})
      if (const auto it = n.attrs.find(a); it != n.attrs.end() && it->second.as_float() > 0.0) ++q.int8;
  }
  return q;
}

// `gec compile --json`: the model, its inputs and outputs, and each plan.
void print_compile_json(const Loaded& l, const std::vector<std::string>& names) {
  const ge::CompiledModel& m = *l.model;
  JsonWriter j;
  j.begin_object().key("model").value(l.path).key("mode").value(std::string(ge::to_string(m.mode())));
  j.key("nodes").value(static_cast<std::uint64_t>(l.source_nodes));
  j.key("compiled_nodes").value(static_cast<std::uint64_t>(m.graph().nodes().size()));
  j.key("layout_transposes").value(static_cast<std::uint64_t>(transposes(m).layout));
  const QuantCount q = quantized(m);
  j.key("int8_products").value(static_cast<std::uint64_t>(q.int8));
  j.key("fake_quant_ops").value(static_cast<std::uint64_t>(q.fake_quant));
  for (const bool in : {true, false}) {
    j.key(in ? "inputs" : "outputs").begin_array();
    for (const ge::ModelIO& io : in ? m.inputs() : m.outputs())
      j.begin_object()
          .key("name").value(io.name)
          .key("dtype").value(std::string(ge::to_string(io.dtype)))
          .key("shape").value(io.shape.to_string())
          .end_object();
    j.end_array();
  }
  j.key("hybrid").value(m.hybrid());
  j.key("padding").begin_array();
  for (const ge::GearPadding& p : m.padding())
    j.begin_object().key("value").value(static_cast<std::uint64_t>(p.value)).key("independent").value(p.independent)
        .key("reason").value(p.reason).end_object();
  j.end_array();
  j.key("plans_per_signature").value(m.plans_per_signature());
  j.key("plans").begin_array();
  for (const auto& p : m.plans()) {
    j.begin_object().key("gear").value(p->gear).key("inputs").begin_object();
    for (std::size_t i = 0; i < names.size(); ++i) j.key(names[i]).value(p->input_shapes[i].to_string());
    j.end_object();
    j.key("nodes").value(static_cast<std::uint64_t>(p->steps.size()));
    j.key("static").value(p->static_shapes);
    j.key("data_dependent_steps").value(static_cast<std::uint64_t>(p->data_dependent_steps));
    j.key("per_run_values").value(static_cast<std::uint64_t>(p->per_run_values));
    j.key("folded_nodes").value(static_cast<std::uint64_t>(p->folded_nodes));
    j.key("streams").value(p->streams.stream_count);
    j.key("arena_bytes").value(p->memory.arena_bytes);
    j.key("no_reuse_bytes").value(p->memory.no_reuse_bytes);
    j.key("lower_bound").value(p->memory.lower_bound);
    j.end_object();
  }
  j.end_array().key("arena_bytes").value(m.arena_bytes()).end_object();
  std::printf("%s\n", j.str().c_str());
}

// `gec compile`: the model, what the passes did, its inputs and outputs, and each plan.
void print_compile_summary(const Loaded& l, const std::vector<std::string>& names) {
  const ge::CompiledModel& m = *l.model;
  std::printf("model %s: %zu nodes, %zu after the passes (", l.path.c_str(), l.source_nodes, m.graph().nodes().size());
  for (std::size_t i = 0; i < m.pass_stats().size(); ++i)
    std::printf("%s%s -%zu +%zu", i ? ", " : "", m.pass_stats()[i].pass.c_str(), m.pass_stats()[i].nodes_removed,
                m.pass_stats()[i].nodes_added);
  std::printf(")\n");
  const TransposeCount t = transposes(m);
  std::printf("layout  %zu layout transposes (NCHW<->NHWC), %zu Transposes in all\n", t.layout, t.all);
  if (const QuantCount q = quantized(m); q.int8 + q.fake_quant > 0)
    std::printf("int8    %zu products in int8 (%s), %zu quantize-dequantize ops left in f32\n", q.int8,
                ge::int8_supported() ? "AVX512-VNNI" : "none here: this CPU has no AVX512-VNNI", q.fake_quant);
  if (l.cache)
    std::printf("cache   %s\n", m.pass_stats().empty() ? "loaded from the compile cache (no passes ran)"
                                                       : "compiled, and stored in the compile cache");
  for (const ge::ModelIO& io : m.inputs()) std::printf("input   %s\n", io_text(io).c_str());
  for (const ge::ModelIO& io : m.outputs()) std::printf("output  %s\n", io_text(io).c_str());
  std::printf("mode    %s", std::string(ge::to_string(m.mode())).c_str());
  if (m.hybrid()) std::printf(", hybrid (inputs matching no gear run on the range plan)");
  if (m.plans_per_signature()) std::printf(" (an unbounded dim: a plan per input signature, made at run time)");
  std::printf("\n");
  for (const auto& p : m.plans()) {
    const std::string kind = p->static_shapes ? "static" : std::to_string(p->data_dependent_steps) +
                                                              " data-dependent steps, " + std::to_string(p->per_run_values) +
                                                              " values allocated per run";
    std::printf("%s %s: %zu nodes (%s; %zu folded for its shapes), %d streams, arena %lld bytes, no reuse %lld, "
                "lower bound %lld\n",
                p->gear >= 0 ? ("gear " + std::to_string(p->gear)).c_str() : m.hybrid() ? "range plan" : "plan",
                p->describe_inputs(names).c_str(),
                p->steps.size(), kind.c_str(), p->folded_nodes, p->streams.stream_count,
                static_cast<long long>(p->memory.arena_bytes), static_cast<long long>(p->memory.no_reuse_bytes),
                static_cast<long long>(p->memory.lower_bound));
  }
  if (!m.plans().empty()) std::printf("arena   %lld bytes for every plan\n", static_cast<long long>(m.arena_bytes()));
  for (const ge::GearPadding& p : m.padding()) {
    std::string dims;
    for (const auto& [input, axis] : p.dims)
      dims += (dims.empty() ? "" : ", ") + names[input] + " dim " + std::to_string(axis);
    std::printf("padding gear value %zu (%s): %s\n", p.value, dims.c_str(),
                p.independent ? "independent, --pad_to_gear pads it" : ("not independent: " + p.reason).c_str());
  }
}

// The .npy file of each input that --input names (empty for the others).
std::vector<std::string> input_files(const Args& a, const std::vector<std::string>& names) {
  std::vector<std::string> files(names.size());
  const auto list = a.get("input");
  for (std::size_t start = 0; list && start <= list->size();) {
    const std::size_t end = std::min(list->find(',', start), list->size());
    const std::string item = list->substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError("--input '" + *list + "': expected name=file.npy,name=file.npy");
    const auto k = static_cast<std::size_t>(std::find(names.begin(), names.end(), item.substr(0, eq)) - names.begin());
    if (k == names.size()) throw UsageError("--input names the input '" + item.substr(0, eq) + "', which the model does not have");
    files[k] = item.substr(eq + 1), start = end + 1;
  }
  return files;
}

// The real input dims of `gec run`: --shape, an --input file's (`run_inputs`), the model's or the first plan's.
std::vector<std::vector<std::int64_t>> run_dims(const Args& a, const ge::CompiledModel& m,
                                                const std::vector<std::string>& names) {
  std::vector<std::vector<std::int64_t>> dims(names.size());
  std::vector<bool> given(names.size(), false);
  if (const auto text = a.get("shape")) {
    const ge::InputShape shapes = ge::InputShape::parse(*text);
    for (std::size_t e = 0; e < shapes.entries().size(); ++e) {
      const auto& entry = shapes.entries()[e];
      std::size_t k = e;
      if (shapes.named()) {
        k = static_cast<std::size_t>(std::find(names.begin(), names.end(), entry.name) - names.begin());
        if (k == names.size()) throw UsageError("--shape names the input '" + entry.name + "', which the model does not have");
      } else if (k >= names.size()) {
        throw UsageError("--shape gives more inputs than the model's " + std::to_string(names.size()));
      }
      if (!entry.shape.is_static()) throw UsageError("--shape '" + *text + "': every dim must be fixed");
      dims[k] = entry.shape.values();
      given[k] = true;
    }
  }
  const std::vector<std::string> files = input_files(a, names);  // (their dims: the files', `run_inputs`)
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (given[i]) continue;
    const ge::Shape& s = m.plans().empty() ? m.inputs()[i].shape : m.plans().front()->input_shapes[i];
    if (!s.is_static() && !files[i].empty()) continue;
    if (!s.is_static())
      throw UsageError("input '" + names[i] + "' has the dynamic shape " + s.to_string() +
                       "; give its dims with --shape (or its values with --input)");
    dims[i] = s.values();
  }
  return dims;
}

// The inputs of `gec run`: the .npy files of --input (whose dims replace `dims`), else
// random data seeded with `seed`.
std::vector<NpyArray> run_inputs(const Args& a, const ge::CompiledModel& m, const std::vector<std::string>& names,
                                 std::vector<std::vector<std::int64_t>>& dims, std::uint64_t seed) {
  std::vector<NpyArray> data(names.size());
  const std::vector<std::string> files = input_files(a, names);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (files[i].empty()) {
      data[i] = random_array(m.inputs()[i].dtype, dims[i], rng);
      continue;
    }
    data[i] = read_npy(files[i]);
    dims[i] = data[i].dims;
  }
  return data;
}

// The timed runs of `gec run`: each run's milliseconds (sorted), the traces to write,
// the profile, the wall time of them all and the last result.
struct Timed {
  std::vector<double> ms;
  std::vector<ge::RunTrace> traces;
  ge::Profile profile;
  double total_s = 0;
  ge::RunResult last;
};

Timed timed_runs(ge::Session& session, std::span<const ge::TensorView> views, int iterations, bool profile,
                 bool keep_traces) {
  Timed t;
  t.last = session.run(views);  // warm-up (and the first binding)
  const auto t_all = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    t.last = session.run(views);
    t.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (t.last.trace) {
      if (profile) t.profile.add(*t.last.trace);
      if (keep_traces) t.traces.push_back(*t.last.trace);
    }
  }
  t.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
  std::sort(t.ms.begin(), t.ms.end());
  return t;
}

// `gec run`'s report: the model and input dims, latency percentiles, throughput, outputs.
void print_run(const Loaded& l, const std::vector<std::string>& names,
               const std::vector<std::vector<std::int64_t>>& dims, const Timed& t, int threads) {
  const auto pct = [&](double p) {
    const auto idx = static_cast<std::size_t>(std::clamp(p * static_cast<double>(t.ms.size()) - 1e-9, 0.0,
                                                         static_cast<double>(t.ms.size() - 1)));
    return t.ms[idx];
  };
  const ge::RunResult& r = t.last;
  const std::string padded =
      r.padding_waste > 0 ? " (padded: " + std::to_string(static_cast<int>(r.padding_waste * 100 + 0.5)) + "% waste)" : "";
  std::printf("model %s, %s%s, %d threads\n", l.path.c_str(),
              r.gear >= 0                     ? ("gear " + std::to_string(r.gear) + padded + ", ").c_str()
              : r.plan == ge::PlanKind::fixed ? ""
                                              : (std::string(ge::to_string(r.plan)) + " plan, ").c_str(),
              [&] {
                std::string s;
                for (std::size_t i = 0; i < names.size(); ++i) {
                  s += (i ? "; " : "") + names[i] + ":";
                  for (std::size_t d = 0; d < dims[i].size(); ++d) s += (d ? "," : "") + std::to_string(dims[i][d]);
                }
                return s;
              }().c_str(),
              threads);
  const int iterations = static_cast<int>(t.ms.size());
  std::printf("latency over %d runs: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms (min %.3f, max %.3f)\n", iterations,
              pct(0.50), pct(0.90), pct(0.99), t.ms.front(), t.ms.back());
  std::printf("throughput: %.1f runs/s\n", static_cast<double>(iterations) / t.total_s);
  for (const ge::Output& o : r.outputs)
    std::printf("output %s %s[%s] %lld bytes\n", o.name.c_str(), std::string(ge::to_string(o.dtype)).c_str(),
                o.shape().to_string().c_str(), static_cast<long long>(o.bytes));
}

// --output_dir: each output as `<name>.npy`, the name's other characters made `_`.
void write_outputs(const std::string& dir, const ge::RunResult& r) {
  std::filesystem::create_directories(dir);
  for (const ge::Output& o : r.outputs) {
    std::string file = o.name;
    for (char& c : file)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    write_npy((std::filesystem::path(dir) / (file + ".npy")).string(), o.view());
  }
}

}  // namespace

int run_compile(std::span<const std::string> args) {
  const std::vector<Flag> flags = model_flags(false);
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::fputs(usage(false, flags).c_str(), stdout);
    return 0;
  }
  if (!a.positionals.empty()) throw UsageError("unexpected argument '" + a.positionals.front() + "'");
  const auto gear = a.get("gear");
  if (gear) (void)parse_int("gear", *gear, 0);
  if (gear && !a.has("dot") && !a.has("plan_svg"))
    throw UsageError("--gear chooses the plan of --dot or --plan_svg; give one of them");
  if (a.has("portable") && !a.has("output")) throw UsageError("--portable says how -o writes the weights; give -o FILE");
  const Loaded l = load_and_compile(a, true);
  const ge::CompiledModel& m = *l.model;
  const auto names = input_names(m);
  // Plans: those made now; with an unbounded range none is (they are made per signature).
  const ge::Plan* shown = shown_plan(m, gear);
  const std::string stem = std::filesystem::path(l.path).stem().string();
  if (const auto dot = a.get("dot")) write_dot(*dot, stem, m, shown);
  if (const auto svg = a.get("plan_svg")) write_plan_svg(*svg, stem, shown, names);
  if (a.has("json")) {
    print_compile_json(l, names);
  } else {
    print_compile_summary(l, names);
  }
  if (const auto out = a.get("output")) {
    ge::save(m, *out, a.has("portable") ? ge::ModelWeights::portable : ge::ModelWeights::packed);
    if (!a.has("json"))
      std::printf("model file: %s (%.1f MiB)\n", out->c_str(), static_cast<double>(std::filesystem::file_size(*out)) / 1048576.0);
  }
  return 0;
}

int run_run(std::span<const std::string> args) {
  const std::vector<Flag> flags = model_flags(true);
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::fputs(usage(true, flags).c_str(), stdout);
    return 0;
  }
  if (!a.positionals.empty()) throw UsageError("unexpected argument '" + a.positionals.front() + "'");
  const int iterations = static_cast<int>(parse_int("iterations", a.get("iterations").value_or("10"), 1));
  const int threads = static_cast<int>(parse_int("threads", a.get("threads").value_or("0"), 0));
  const auto seed = static_cast<std::uint64_t>(parse_int("seed", a.get("seed").value_or("1"), 0));
  const auto trace_file = a.get("trace");
  const bool profile = a.has("profile");
  // Checked before the run, without touching the file (it is written whole at the end).
  if (trace_file) {
    const std::filesystem::path tp(*trace_file), dir = tp.has_parent_path() ? tp.parent_path() : ".";
    if (std::filesystem::is_directory(tp) || ::access(dir.c_str(), W_OK) != 0)
      throw UsageError("cannot write --trace file '" + *trace_file + "'");
  }
  const Loaded l = load_and_compile(a, true);
  const ge::CompiledModel& m = *l.model;
  const auto names = input_names(m);
  std::vector<std::vector<std::int64_t>> dims = run_dims(a, m, names);
  std::vector<NpyArray> data = run_inputs(a, m, names, dims, seed);
  std::vector<ge::TensorView> views;
  for (NpyArray& d : data) views.push_back(d.view());

  ge::Session session(l.model,
                      {.threads = threads, .trace = trace_file.has_value() || profile, .pad_to_gear = a.has("pad_to_gear")});
  for (const std::string& n : session.notices()) std::fprintf(stderr, "gec: notice: %s\n", n.c_str());
  const Timed t = timed_runs(session, views, iterations, profile, trace_file.has_value());
  print_run(l, names, dims, t, session.threads());
  if (trace_file) {
    try {
      ge::write_chrome_trace(*trace_file, t.traces);
    } catch (const ge::Error&) {
      throw UsageError("cannot write --trace file '" + *trace_file + "'");
    }
    std::printf("trace: %zu runs written to %s (open in https://ui.perfetto.dev or chrome://tracing)\n",
                t.traces.size(), trace_file->c_str());
  }
  if (profile) std::printf("\nprofile of the %d timed runs\n%s", iterations, t.profile.table(20).c_str());
  if (const auto dir = a.get("output_dir")) write_outputs(*dir, t.last);
  return 0;
}

std::shared_ptr<const ge::CompiledModel> load_model(const Args& a) { return load_and_compile(a, true).model; }

std::vector<std::vector<std::int64_t>> model_run_dims(const Args& a, const ge::CompiledModel& m) {
  return run_dims(a, m, input_names(m));
}

}  // namespace gec
