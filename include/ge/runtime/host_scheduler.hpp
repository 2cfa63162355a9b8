#pragma once
/// \file
/// The host scheduler: runs the steps of a plan as their dependencies complete, on a
/// oneTBB arena (hidden in the .cpp), handing each ready step to a body (the device
/// launcher).
///
/// A plan whose steps form one chain (one stream) runs as a flat loop in step order with
/// no scheduler in the way. Otherwise every step waits for its predecessor on its own
/// stream and for the events it waits on; a finished step runs its first ready successor
/// itself and hands the others to idle threads.
///
/// ```
/// auto streams = ge::assign_streams(preds, engines);
/// auto graph = ge::StepGraph::from(streams);
/// ge::HostScheduler scheduler(2);
/// scheduler.run(graph, [&](std::int32_t step) { launch(step); });
/// ```

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "ge/compile/streams.hpp"
#include "ge/core/api.hpp"
#include "ge/core/function_ref.hpp"

namespace ge {

/// The dependencies the scheduler honours, in compressed form: per step, its number of
/// predecessors and the list of its successors.
struct GE_API StepGraph {
  std::vector<std::int32_t> pred_count;  ///< per step
  std::vector<std::int32_t> succ_begin;  ///< per step, into `succ`; one more at the end
  std::vector<std::int32_t> succ;        ///< successors, grouped by step
  std::vector<std::int32_t> roots;       ///< steps with no predecessor
  bool chain = true;                     ///< steps i -> i+1 only: run as a flat loop

  /// The number of steps.
  [[nodiscard]] std::size_t size() const noexcept { return pred_count.size(); }

  /// From explicit predecessor lists (each predecessor an earlier step). Throws
  /// `Errc::invalid_argument` for a predecessor that is not an earlier step.
  [[nodiscard]] static StepGraph from_preds(const std::vector<std::vector<std::int32_t>>& preds);
  /// From a stream assignment: each step waits for the previous step of its stream and
  /// for the events it waits on; nothing else (the device's semantics).
  [[nodiscard]] static StepGraph from(const StreamAssignment& streams);
};

/// Runs step graphs on a fixed number of threads. Thread-safe: several threads may run
/// graphs on one scheduler at once.
class GE_API HostScheduler {
 public:
  /// `threads` = 0 uses every core.
  explicit HostScheduler(int threads = 0);
  ~HostScheduler();
  HostScheduler(const HostScheduler&) = delete;
  HostScheduler& operator=(const HostScheduler&) = delete;

  /// The number of threads runs use.
  [[nodiscard]] int threads() const noexcept;

  /// Runs `body(step)` once for every step, each after all its predecessors returned.
  /// If a body throws, no further step starts; the first exception is rethrown once the
  /// steps already running have returned, and the scheduler stays usable.
  void run(const StepGraph& graph, FunctionRef<void(std::int32_t)> body);
  /// The same, counting each step's unfinished predecessors in `waiting` (at least
  /// `graph.size()` counters, not shared with another run at once): a run that allocates
  /// nothing of its own.
  void run(const StepGraph& graph, FunctionRef<void(std::int32_t)> body, std::span<std::atomic<std::int32_t>> waiting);

  /// Runs `f()` inside this scheduler's arena, so that kernels' own parallel loops use
  /// its threads and no more.
  void within(FunctionRef<void()> f);

  /// Hands `job` to one of this scheduler's threads and returns at once (a thread of
  /// oneTBB's runs it in the arena, also where `threads` is 1). `job` must not throw; the
  /// caller waits for it by its own means (`Session::run_async` counts its jobs).
  void enqueue(std::function<void()> job);

 private:
  struct GE_HIDDEN Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ge
