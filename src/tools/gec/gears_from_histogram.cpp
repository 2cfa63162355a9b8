// `gec gears --from_histogram FILE`: the gears to compile, chosen from the input shapes a
// service saw (ge::choose_gears, include/ge/compile/choose_gears.hpp). The model is
// compiled with --input_shape's ranges; the gears, their work and arena, the expected
// waste, and the options to compile them with are printed.
//
//   $ gec gears --model bert.onnx --input_shape "input_ids:1,1~128;attention_mask:1,1~128"
//         --from_histogram lengths.txt --max_gears 4 [--max_arena BYTES]      (one line)

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/compile/choose_gears.hpp"
#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/options/option.hpp"
#if defined(GE_WITH_ONNX)
#include "ge/onnx.hpp"
#endif

namespace gec {

namespace {

std::vector<Flag> histogram_flags() {
  return {{"model", true, "the ONNX model file (required)"},
          {"input_shape", true, "INPUT_SHAPE with ranges or -1 where the shapes vary, e.g. x:1,1~128 (as the model's, if not given)"},
          {"input_format", true, "INPUT_FORMAT of the model's inputs: NCHW, NHWC or ND"},
          {"target", true, "the target product (default: cpu)"},
          {"from_histogram", true, "FILE: one 'name:dims[;name:dims...] COUNT' per line, the shapes seen (required)"},
          {"max_gears", true, "K: at most K gears, >= 1 (required)"},
          {"max_arena", true, "BYTES: no gear whose arena is larger"},
          {"help", false, "print this help and exit"}};
}

std::string histogram_usage(const std::vector<Flag>& flags) {
  return "usage: gec gears --model M.onnx [--input_shape TEXT] --from_histogram FILE --max_gears K\n"
         "                 [--max_arena BYTES] [--input_format F] [--target NAME]\n"
         "\n"
         "Chooses at most K gears from the shapes a service saw: each seen shape runs on the\n"
         "cheapest gear that holds it, and the gears minimise the expected FLOPs (the model's, at\n"
         "the gear). Prints the gears (served count, work, arena), the expected waste against\n"
         "running every shape at its own size, and the options that compile them\n"
         "(docs/options.md, \"Choosing gears\").\n"
         "\nflags:\n" +
         describe_flags(flags) + "\nexit status: 0 success, 2 bad flags, a bad model, histogram or budget\n";
}

std::vector<ge::ObservedShapes> read_histogram(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--from_histogram: cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return ge::parse_shape_histogram(text.str());
  } catch (const ge::Error& e) {
    ge::raise(e.code(), "--from_histogram " + path + ": " + e.what());
  }
}

std::string work_text(double w, bool flops) {
  char buf[64];
  if (!flops) std::snprintf(buf, sizeof buf, "%.0f elements", w);
  else if (w >= 1e9) std::snprintf(buf, sizeof buf, "%.3f GFLOP", w / 1e9);
  else if (w >= 1e6) std::snprintf(buf, sizeof buf, "%.3f MFLOP", w / 1e6);
  else if (w >= 1e3) std::snprintf(buf, sizeof buf, "%.3f kFLOP", w / 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f FLOP", w);
  return buf;
}

void print_choice(const ge::CompiledModel& model, const ge::GearChoice& c, std::size_t max_gears) {
  std::printf("gears   %zu of at most %zu, over %zu varying dim%s (%s)\n", c.gears.size(), max_gears, c.varying_dims,
              c.varying_dims == 1 ? "" : "s", c.optimal ? "optimal" : "greedy with swaps, not proved optimal");
  std::printf("work    %s per run expected, %s at each shape's own size: waste %.2f%%\n",
              work_text(c.expected_work, c.work_is_flops).c_str(), work_text(c.own_size_work, c.work_is_flops).c_str(),
              c.waste_percent);
  for (std::size_t i = 0; i < c.gears.size(); ++i) {
    const ge::ChosenGear& g = c.gears[i];
    std::string shapes;
    for (std::size_t k = 0; k < g.shapes.size(); ++k)
      shapes += (k == 0 ? "" : ";") + model.inputs()[k].name + ":" + g.shapes[k].to_string();
    std::printf("gear %zu  %s  served %lld  %s  arena %lld bytes\n", i, shapes.c_str(),
                static_cast<long long>(g.served), work_text(g.flops, c.work_is_flops).c_str(),
                static_cast<long long>(g.arena_bytes));
  }
  std::string options = "--input_shape \"" + c.input_shape + "\"";
  if (c.option) {
    for (const ge::OptionInfo& o : ge::options_table())
      if (o.id == *c.option) options += " --" + std::string(o.flag) + " \"" + c.option_text + "\"";
    if (!c.input_format.empty()) options += " --input_format " + c.input_format;
  }
  std::printf("options %s\n", options.c_str());
}

}  // namespace

int run_gears_from_histogram(std::span<const std::string> args) {
  const std::vector<Flag> flags = histogram_flags();
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::fputs(histogram_usage(flags).c_str(), stdout);
    return 0;
  }
  if (!a.positionals.empty())
    throw UsageError("unexpected argument '" + a.positionals.front() + "'; gears takes only flags");
  const auto model_path = a.get("model");
  if (!model_path) throw UsageError("--model is required with --from_histogram");
  const auto max_gears = a.get("max_gears");
  if (!max_gears) throw UsageError("--max_gears is required with --from_histogram");
  ge::GearBudget budget{static_cast<std::size_t>(parse_int("max_gears", *max_gears, 1)), {}};
  if (const auto arena = a.get("max_arena")) budget.max_arena = parse_int("max_arena", *arena, 1);
  const std::vector<ge::ObservedShapes> seen = read_histogram(*a.get("from_histogram"));
#if !defined(GE_WITH_ONNX)
  throw UsageError("this gec was built without the ONNX importer (GE_WITH_ONNX=OFF); --model cannot be read");
#else
  ge::BuildOptions options;
  if (const auto s = a.get("input_shape")) options.set(ge::Option::input_shape, *s);
  if (const auto f = a.get("input_format")) options.set(ge::Option::input_format, *f);
  const ge::Target& target = ge::find_target(a.get("target").value_or("cpu"));
  const auto model = ge::compile(ge::onnx::load(*model_path), options, target);
  print_choice(*model, ge::choose_gears(*model, seen, budget), budget.max_gears);
  return 0;
#endif
}

}  // namespace gec
