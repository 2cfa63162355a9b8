#pragma once
// Private: what session.cpp and session_async.cpp share of a Session.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/plan_select.hpp"
#include "ge/runtime/session.hpp"
#include "runtime/boundary.hpp"

namespace ge {

// Where a run's outputs go: into `result` (when given: descriptions, and memory the run
// allocates unless the caller gave buffers), else into the caller's views `into`, whose
// dims become the outputs' real dims (Session::run_into).
struct OutputSink {
  RunResult* result = nullptr;
  std::span<TensorView> into{};
};

// A RunResult's description of the run, from its RunInfo, and back.
inline void set_info(RunResult& r, const RunInfo& info) {
  r.gear = info.gear;
  r.plan = info.plan;
  r.padding_waste = info.padding_waste;
  r.arena_bytes = info.arena_bytes;
  r.trace = info.trace;
}
inline RunInfo info_of(const RunResult& r) { return {r.gear, r.plan, r.padding_waste, r.arena_bytes, r.trace}; }

// Everything a run touches: a run (and an async run's job) reads only this, never the
// Session object, so that a Session destroyed from one of its own run_async callbacks can
// hand its Impl to the last job in flight, which frees it (see ~Session).
struct Session::Impl {
  std::shared_ptr<const CompiledModel> model;
  std::shared_ptr<Device> device;  // before the contexts, which free their memory through it
  bool tracing = false;
  bool pad_to_gear = false;
  std::int64_t memory_limit = 0;
  HostScheduler scheduler;
  PlanSelector plans;
  std::mutex mutex;
  std::vector<std::unique_ptr<Context>> free;  // run contexts not in use
  // The caller's arena (SessionOptions::arena): its context, taken by one run at a time,
  // and the thread whose run holds it.
  std::unique_ptr<Context> callers;
  std::mutex callers_mutex;
  std::atomic<std::thread::id> callers_owner{};
  // Async runs not ended yet; the destructor waits for none.
  std::mutex async_mutex;
  std::condition_variable async_done;
  std::size_t in_flight = 0;
  bool orphaned = false;  // the Session is gone: the last job in flight deletes this

  Impl(int threads, std::shared_ptr<const CompiledModel> model, std::shared_ptr<Device> device, bool trace,
       std::int64_t memory_limit, bool specialize_ranges);  // in session.cpp, where Context is complete
  ~Impl();

  // A run; allocation failure is Errc::out_of_memory.
  RunResult run(std::span<const TensorView> inputs, std::span<const TensorView> outputs, bool caller_outputs,
                const std::atomic<bool>* cancel);
  RunInfo run_into(std::span<const TensorView> inputs, std::span<TensorView> outputs);
  // The run itself: its outputs into `sink`; `outputs` are the caller's buffers when
  // `caller_outputs`.
  RunInfo run_unguarded(std::span<const TensorView> inputs, std::span<const TensorView> outputs, bool caller_outputs,
                        const std::atomic<bool>* cancel, OutputSink sink);
  // With pad_to_gear: the run padded to a larger gear, when the inputs need it and may be
  // padded (src/runtime/padding.cpp); none when they match a gear or fit none.
  std::optional<RunResult> run_padded(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                                      bool caller_outputs, const std::atomic<bool>* cancel);
  // A padded run's result into `sink`.
  static RunInfo hand_padded(RunResult&& r, OutputSink sink);
};

namespace detail {
// True while this thread runs an async job of the session whose Impl is `impl`
// (session_async.cpp).
bool in_async_job_of(const void* impl) noexcept;
}  // namespace detail

}  // namespace ge
