#pragma once
// Private to src/runtime: a plan bound to a run context's arena (`Bound`), and one run of
// it (`PlanRun`): the run's inputs and outputs bound, memory for the values whose size is
// known only as it runs, each step launched on its stream, the outputs handed back.

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/compile/plan.hpp"
#include "ge/device/device.hpp"
#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/session.hpp"
#include "runtime/session_impl.hpp"

namespace ge::detail {

// The steady clock in nanoseconds (traces).
std::int64_t now_ns() noexcept;

// Host memory for results, aligned for vector loads; `what` names it in the
// out_of_memory error.
std::shared_ptr<void> allocate_host(std::int64_t bytes, const std::string& what);

// What a launch runs: a kernel on prepared views.
struct StepLaunch {
  const Kernel* kernel = nullptr;
  std::span<const TensorView> in, out;
};

// A plan bound to one context: data pointers, dims, prepared launches, and the scratch a
// run of it reuses, so that a run of a static plan allocates nothing.
struct Bound {
  std::shared_ptr<const Plan> plan;
  StepGraph graph;
  bool flat = false;                            // run as one loop in step order
  std::vector<void*> data;                      // per value
  std::vector<std::vector<std::int64_t>> dims;  // per value
  std::vector<TensorView> views;                // static plans: every step's in, then out views
  std::vector<StepLaunch> launches;             // static plans: per step
  std::vector<std::vector<std::int32_t>> value_views;  // per input/output value: indices into views
  std::vector<std::vector<std::int32_t>> waits, records;  // per step: event indices
  std::vector<std::shared_ptr<void>> dynamic;   // per value: per-run memory of `dynamic` values
  std::vector<std::int64_t> dynamic_bytes;      // per value: its capacity
  std::unique_ptr<std::atomic<std::int32_t>[]> waiting;  // per step: the scheduler's counters
};

// `plan` bound to `arena` (the plan's arena values at their offsets in it).
std::unique_ptr<Bound> bind_plan(const std::shared_ptr<const Plan>& plan, void* arena);

// One run of a bound plan.
class PlanRun {
 public:
  PlanRun(const Plan& plan, Bound& b, Device& dev, const std::vector<Stream>& streams, const std::vector<Event>& events,
          std::span<const TensorView> outputs, bool caller_outputs, OutputSink sink,
          const std::shared_ptr<RunTrace>& trace, std::int64_t limit = 0, std::int64_t arena = 0)
      : plan_(plan), b_(b), dev_(dev), streams_(streams), events_(events), outputs_(outputs),
        caller_outputs_(caller_outputs), sink_(sink), trace_(trace), limit_(limit), used_(arena) {}

  // Binds the run's inputs and (static plans) outputs.
  void bind(std::span<const TensorView> inputs);
  // Step `s`: waits for its events, runs, records its events (timed when traced).
  void step(std::int32_t s);
  // The outputs' real dims and data, into the sink; outputs that are graph inputs or
  // constants are copied.
  void collect_outputs();

 private:
  void dynamic_step(const PlanStep& step, Stream stream);
  void* storage_for(std::size_t v, std::int64_t bytes);
  void charge(std::int64_t bytes, const std::string& what);
  void* caller_buffer(std::size_t o, std::int64_t bytes) const;

  const Plan& plan_;
  Bound& b_;
  Device& dev_;
  const std::vector<Stream>& streams_;
  const std::vector<Event>& events_;
  std::span<const TensorView> outputs_;
  bool caller_outputs_;
  OutputSink sink_;
  const std::shared_ptr<RunTrace>& trace_;  // set once the steps start, when tracing
  std::int64_t limit_ = 0;                  // the session's memory_limit (0: none)
  std::atomic<std::int64_t> used_{0};       // the arena, then what the run allocated
};

}  // namespace ge::detail
