#pragma once
// The commands of `gec`. Each command lives in its own file and has one entry point with
// this signature; main.cpp dispatches to it through its table (one row per command).
//
// A command gets the arguments after its name, writes its result to stdout and returns
// the exit status: 0 on success. It reports bad input by throwing: `gec::UsageError`
// (bad command line) or `ge::Error` (bad option values); main.cpp prints either as
// `gec: error: ...` and exits with 2. Warnings go to stderr as `gec: warning: ...`.

#include <span>
#include <string>

namespace gec {

/// `gec gears`: checks build options against a target and prints the gears as JSON.
int run_gears(std::span<const std::string> args);

/// `gec gears --from_histogram FILE`: chooses gears from observed shapes (run_gears hands
/// over to it when the flag is given).
int run_gears_from_histogram(std::span<const std::string> args);

/// `gec ops`: lists every registered op (text, or JSON with --json).
int run_ops(std::span<const std::string> args);

/// `gec compile`: loads an ONNX model, compiles every gear, prints a summary.
int run_compile(std::span<const std::string> args);

/// `gec run`: compiles an ONNX model and runs it: latency percentiles, throughput, .npy outputs.
int run_run(std::span<const std::string> args);

/// `gec calibrate`: measures this machine's speeds for the cost model.
int run_calibrate(std::span<const std::string> args);
/// `gec cost`: what a shape will cost on a compiled model before it runs.
int run_cost(std::span<const std::string> args);
/// `gec quantize`: an f32 ONNX model into a QDQ model (ge::quantize_qdq), calibrated on
/// .npy inputs or seeded random ones.
int run_quantize(std::span<const std::string> args);
/// `gec --singleop FILE.json --output DIR` (or `gec singleop ...`): GE's atc --singleop,
/// one offline single-op model per op of FILE.json for aclopSetModelDir / aclopLoad.
int run_singleop(std::span<const std::string> args);

}  // namespace gec
