// `gec calibrate`: this machine's speeds for the cost model (ge::calibrate), printed and
// optionally kept in a file; `gec cost`: what a shape will cost on a compiled model
// before it runs (CompiledModel::cost): which plan serves it, memory, padding, FLOPs,
// expected latency.
//
//   $ gec calibrate --threads 2 -o speed.txt
//   gemm_gflops=412.3 stream_gbs=21.7 step_us=1.8 threads=2
//   $ gec cost --model bert.onnx --input_shape input_ids:-1,128 --dynamic_batch_size 1,2,8
//              --shape input_ids:3,128 --pad_to_gear --calibration speed.txt
//   plan        gear 2 (padded: 62.5% waste)
//   ...

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/runtime/calibrate.hpp"
#include "json.hpp"
#include "model.hpp"

namespace gec {

namespace {

ge::MachineSpeed speed_of(const Args& a, int threads) {
  if (const auto file = a.get("calibration")) {
    std::ifstream in(*file);
    if (!in) throw UsageError("--calibration " + *file + ": cannot read the file");
    std::stringstream text;
    text << in.rdbuf();
    try {
      return ge::MachineSpeed::parse(text.str());
    } catch (const ge::Error& e) {
      throw UsageError("--calibration " + *file + ": " + e.what());
    }
  }
  return ge::calibrate(threads);
}

}  // namespace

int run_calibrate(std::span<const std::string> args) {
  const std::vector<Flag> flags{{"threads", true, "host threads to measure with (default: every core)"},
                                {"output", true, "also write the figures to FILE (-o FILE), for gec cost --calibration"},
                                {"help", false, "print this help and exit"}};
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::printf("usage: gec calibrate [--threads T] [-o FILE]\n\nMeasures this machine's speeds for the cost model "
                "(gec cost): an f32 matrix product, element-wise streaming, the fixed cost of a step.\n\nflags:\n%s",
                describe_flags(flags).c_str());
    return 0;
  }
  if (!a.positionals.empty()) throw UsageError("unexpected argument '" + a.positionals.front() + "'");
  const int threads = static_cast<int>(parse_int("threads", a.get("threads").value_or("0"), 0));
  const ge::MachineSpeed s = ge::calibrate(threads);
  std::printf("%s\n", s.to_text().c_str());
  if (const auto out = a.get("output")) {
    std::ofstream f(*out);
    if (!(f << s.to_text() << "\n")) throw UsageError("--output " + *out + ": cannot write the file");
  }
  return 0;
}

int run_cost(std::span<const std::string> args) {
  std::vector<Flag> flags = shared_model_flags();
  flags.push_back({"shape", true, "the input dims to cost, INPUT_SHAPE style: name:dims;name:dims (required unless static)"});
  flags.push_back({"pad_to_gear", false, "cost it as a session with pad_to_gear would run it"});
  flags.push_back({"threads", true, "host threads the session would use (default: every core)"});
  flags.push_back({"calibration", true, "the machine's speeds from FILE (gec calibrate -o FILE); default: measured now"});
  flags.push_back({"json", false, "print one line of JSON"});
  flags.push_back({"help", false, "print this help and exit"});
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::printf("usage: gec cost --model M [build options] --shape name:dims;... [--pad_to_gear] [--calibration FILE]\n\n"
                "Compiles the model and says, without running it, which plan would serve the shape (a gear, padded\n"
                "to one, the range plan, or a plan per signature made at the first run), its memory, padding waste,\n"
                "FLOPs and expected latency on this machine.\n\nflags:\n%s",
                describe_flags(flags).c_str());
    return 0;
  }
  if (!a.positionals.empty()) throw UsageError("unexpected argument '" + a.positionals.front() + "'");
  if (!a.has("model")) throw UsageError("--model is required");
  const int threads = static_cast<int>(parse_int("threads", a.get("threads").value_or("0"), 0));
  const auto model = load_model(a);
  const auto dims = model_run_dims(a, *model);
  const ge::MachineSpeed speed = speed_of(a, threads);
  const ge::ShapeCost c = model->cost(dims, speed, {.pad_to_gear = a.has("pad_to_gear")});
  const std::string plan = c.plan == ge::PlanKind::gear ? "gear " + std::to_string(c.gear)
                           : c.plan == ge::PlanKind::signature ? "a plan for this signature, made at the first run"
                                                               : std::string(ge::to_string(c.plan)) + " plan";
  if (a.has("json")) {
    JsonWriter j;
    j.begin_object().key("plan").value(std::string(ge::to_string(c.plan))).key("gear").value(c.gear);
    j.key("plan_made").value(c.plan_made).key("build_ms").value(c.build_ms).key("padding_waste").value(c.padding_waste);
    j.key("arena_bytes").value(c.arena_bytes).key("io_bytes").value(c.io_bytes).key("total_bytes").value(c.total_bytes);
    j.key("flops").value(c.flops).key("steps").value(static_cast<std::uint64_t>(c.steps));
    j.key("expected_ms").value(c.expected_ms).key("speed").value(speed.to_text()).end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  }
  std::printf("plan        %s", plan.c_str());
  if (c.padding_waste > 0) std::printf(" (padded: %.1f%% waste)", c.padding_waste * 100);
  std::printf("\n");
  if (!c.plan_made) std::printf("build       %.1f ms to make the plan (measured now)\n", c.build_ms);
  std::printf("memory      arena %lld bytes, inputs and outputs %lld bytes, %lld in all\n",
              static_cast<long long>(c.arena_bytes), static_cast<long long>(c.io_bytes),
              static_cast<long long>(c.total_bytes));
  std::printf("work        %.3f GFLOP in %zu steps\n", c.flops / 1e9, c.steps);
  std::printf("latency     %.3f ms expected (%s)\n", c.expected_ms, speed.to_text().c_str());
  return 0;
}

}  // namespace gec
