#pragma once
/// \file
/// What a run did, step by step: `ge::RunTrace` (recorded when
/// `SessionOptions::trace` is on), written as a Chrome trace (`ge::chrome_trace`, opened
/// by Perfetto and chrome://tracing) or summed into a per-op profile (`ge::Profile`).
///
/// ```
/// ge::Session session(model, {.threads = 2, .trace = true});
/// std::vector<ge::RunTrace> runs;
/// ge::Profile profile;
/// for (int i = 0; i < 10; ++i) {
///   ge::RunResult r = session.run(inputs);
///   runs.push_back(*r.trace);
///   profile.add(*r.trace);
/// }
/// ge::write_chrome_trace("resnet50.json", runs);
/// std::puts(profile.table(20).c_str());
/// ```
///
/// A trace holds, per step of the plan that ran, when its kernel started and ended, on
/// which host thread, and how long it waited for its cross-stream events; and the real
/// dims of every value. Recording costs two clock reads per step (three with event
/// waits); with tracing off the runtime does no work for it. On the CPU device a launch
/// runs the kernel before it returns, so a step's span is its kernel's time (for plans
/// with run-time shapes, with the step's shape inference).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ge/core/api.hpp"

namespace ge {

struct Plan;

/// One step of a traced run. Times are nanoseconds of the steady clock.
struct StepTiming {
  std::int64_t wait_start = 0;  ///< before its event waits (== `start` when it has none)
  std::int64_t start = 0;       ///< its kernel's launch
  std::int64_t end = 0;         ///< its kernel's return
  std::int32_t thread = -1;     ///< the host thread (numbered from 0 in order of first use)
};

/// One traced run. See the file comment.
struct GE_API RunTrace {
  std::shared_ptr<const Plan> plan;               ///< the plan that ran
  std::int64_t start = 0;                         ///< the run's start (steady clock, ns)
  std::int64_t end = 0;                           ///< its end
  std::vector<StepTiming> steps;                  ///< per plan step
  /// Per plan value, its real dims in this run, for plans whose dims are known only at
  /// run time; empty for a static plan, whose values' dims are the plan's.
  std::vector<std::vector<std::int64_t>> dims;

  /// The real dims of plan value `v` in this run.
  [[nodiscard]] std::vector<std::int64_t> value_dims(std::size_t v) const;

  /// The run's wall time in milliseconds.
  [[nodiscard]] double wall_ms() const noexcept { return static_cast<double>(end - start) * 1e-6; }
};

/// The runs as Chrome trace event JSON: one process per run kind of view (streams, host
/// threads), one track per stream (named with its engine) and per host thread; one slice
/// per kernel launch (name, op type, input and output dims, step, thread, FLOPs where
/// known); one slice per cross-stream event wait and a flow arrow from the step that
/// records each event to the step that waits for it. Runs follow each other on one time
/// line, from the first run's start.
[[nodiscard]] GE_API std::string chrome_trace(std::span<const RunTrace> runs);
/// Writes `chrome_trace(runs)` to `path`. Throws `Errc::invalid_argument` naming the path when it cannot.
GE_API void write_chrome_trace(const std::filesystem::path& path, std::span<const RunTrace> runs);

/// Kernel time summed over traced runs: per op type and per node.
class GE_API Profile {
 public:
  /// One line of the profile.
  struct Row {
    std::string name;              ///< the node's name, or the op type for a per-op row
    std::string op;                ///< the op type
    std::string kernel;            ///< the kernel's name (node rows), e.g. `cpu.fused_conv2d.winograd`
    std::int64_t calls = 0;        ///< launches counted
    double total_ms = 0;           ///< kernel time summed
    double mean_us = 0;            ///< per launch
    double share = 0;              ///< of all kernel time, 0..1
    std::optional<double> gflops;  ///< FLOPs / time where the op's FLOPs are known
  };

  /// Adds one run's kernel times. Throws `Errc::invalid_argument` for a trace without a
  /// plan or whose step count is not its plan's.
  void add(const RunTrace& run);

  /// The runs added.
  [[nodiscard]] std::int64_t runs() const noexcept { return runs_; }
  /// All kernel time, in milliseconds.
  [[nodiscard]] double total_ms() const noexcept;
  /// Per op type, most time first.
  [[nodiscard]] std::vector<Row> by_op() const;
  /// Per node, most time first, at most `n`.
  [[nodiscard]] std::vector<Row> top_nodes(std::size_t n = 20) const;
  /// Both as a printable table (per op type, then the top `n` nodes).
  [[nodiscard]] std::string table(std::size_t n = 20) const;

 private:
  struct Acc {
    std::string op;
    std::string kernel;
    std::int64_t calls = 0;
    std::int64_t ns = 0;
    double flops = 0;            // of the launches whose FLOPs are known
    std::int64_t flops_ns = 0;   // their time
  };
  static Row row(const std::string& name, const Acc& a, double total_ns);
  std::vector<std::pair<std::string, Acc>> nodes_;  // in first-seen order
  std::unordered_map<std::string, std::size_t> index_;  // node name -> nodes_ entry
  std::int64_t runs_ = 0;
};

}  // namespace ge
