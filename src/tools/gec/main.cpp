// gec: the ge command line. A dispatcher over a table of commands; each command lives in
// its own file (declared in commands.hpp), so adding a command is a file and a row below.
//
//   gec gears --input_shape "data:-1,3,416,416" --dynamic_batch_size "1,2,4,8"
//   gec --log_level debug compile --model m.onnx     (ge's log, include/ge/core/log.hpp)
//   gec --singleop ops.json --output op_models       (GE's atc --singleop)
//   gec quantize m.onnx -o m_qdq.onnx                 (post-training int8, QDQ)
//
// Exit status: 0 success, 2 bad command line or bad input (a ge::Error), 1 anything else.

#include <array>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/compile/cpu_isa.hpp"
#include "ge/core/error.hpp"
#include "ge/core/log.hpp"
#include "ge/core/version.hpp"
#include "ge/options/option.hpp"

namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(std::span<const std::string> args);
};

constexpr std::array commands{
    Command{"gears", "check build options for dynamic inputs against a target; print the gears as JSON",
            gec::run_gears},
    Command{"ops", "list every registered op: inputs, attributes, engines, in-place (--json for scripts)",
            gec::run_ops},
    Command{"compile", "compile an ONNX model for build options: inputs, outputs, per gear nodes, streams, memory",
            gec::run_compile},
    Command{"run", "compile and run an ONNX model: latency percentiles, throughput, outputs as .npy",
            gec::run_run},
    Command{"cost", "what input dims will cost on a compiled model before it runs: plan, memory, padding, FLOPs, latency",
            gec::run_cost},
    Command{"calibrate", "measure this machine's speeds for the cost model (gec cost --calibration)",
            gec::run_calibrate},
    Command{"quantize", "quantize an f32 ONNX model into a QDQ model (int8 weights, u8 activations), calibrated",
            gec::run_quantize},
    Command{"singleop", "compile a JSON list of single ops into op model files (also: gec --singleop F --output D)",
            gec::run_singleop},
};

std::string usage() {
  std::string out =
      "usage: gec <command> [flags]\n"
      "       gec <command> --help\n"
      "       gec --version       the version and the instruction set the kernels run\n"
      "\n"
      "--log_level LEVEL (anywhere on the line): off, error, warn (the default), info or debug;\n"
      "  info says what ge decided for the model, debug the kernel of every node.\n"
      "  GE_LOG_LEVEL sets it too.\n"
      "\n"
      "commands:\n";
  for (const Command& c : commands) {
    std::string name = "  " + std::string(c.name);
    name.resize(std::max<std::size_t>(name.size(), 12), ' ');
    out += name + "  " + std::string(c.summary) + "\n";
  }
  out += "\nexit status: 0 success, 2 bad command line or bad input, 1 internal error\n";
  return out;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "gec: error: %s\n", message.c_str());
  return 2;
}

// Takes `--log_level LEVEL` (or `--log_level=LEVEL`) out of `args`, wherever it stands, and
// sets ge's log level; ge's messages go to stderr as `gec: <level>: ...`. Throws
// gec::UsageError for a flag without a value or given twice, ge::Error for an unknown level.
void take_log_level(std::vector<std::string>& args) {
  std::optional<std::string> level;
  for (std::size_t i = 0; i < args.size();) {
    std::optional<std::string> value;
    if (args[i] == "--") break;  // the rest are values
    const std::string flag = gec::flag_spelling(args[i]);  // --log-level is --log_level too
    if (flag == "--log_level") {
      if (i + 1 >= args.size()) throw gec::UsageError("flag '--log_level' needs a value");
      value = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    } else if (flag.starts_with("--log_level=")) {
      value = args[i].substr(std::string_view("--log_level=").size());
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
      continue;
    }
    if (level) throw gec::UsageError("flag '--log_level' given twice");
    level = value;
  }
  ge::set_log_sink([](ge::LogLevel l, std::string_view message) {
    const std::string_view name = l == ge::LogLevel::warn ? "warning" : ge::to_string(l);
    std::fprintf(stderr, "gec: %.*s: %.*s\n", static_cast<int>(name.size()), name.data(),
                 static_cast<int>(message.size()), message.data());
  });
  if (level) ge::set_log_level(*level);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    take_log_level(args);
  } catch (const gec::UsageError& e) {
    return fail(std::string(e.what()) + " (see 'gec --help')");
  } catch (const ge::Error& e) {
    return fail("--log_level: " + std::string(e.what()) + " [" + std::string(ge::to_string(e.code())) + "]");
  }
  if (args.empty()) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  // GE's atc spelling: `gec --singleop ops.json --output DIR` is the singleop command.
  if (gec::flag_spelling(args[0]).starts_with("--singleop")) args.insert(args.begin(), "singleop");
  const std::string& name = args[0];
  if (name == "--version") {
    std::printf("gec (ge) %s\ncpu isa: %s\n", ge::version(), std::string(ge::cpu_isa()).c_str());
    return 0;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  for (const Command& c : commands) {
    if (c.name != name) continue;
    try {
      return c.run(std::span<const std::string>(args).subspan(1));
    } catch (const gec::UsageError& e) {
      return fail(std::string(e.what()) + " (see 'gec " + name + " --help')");
    } catch (const ge::Error& e) {
      return fail(std::string(e.what()) + " [" + std::string(ge::to_string(e.code())) + "]");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gec: internal error: %s\n", e.what());
      return 1;
    }
  }
  std::array<std::string_view, commands.size()> names{};
  for (std::size_t i = 0; i < commands.size(); ++i) names[i] = commands[i].name;
  std::string msg = "unknown command '" + name + "'";
  if (const auto near = ge::closest_spelling(name, names)) msg += "; did you mean '" + std::string(*near) + "'";
  msg += "; see 'gec --help'";
  return fail(msg);
}
