#pragma once
// Private: what session.cpp and session_async.cpp share of a Session.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/plan_select.hpp"
#include "ge/runtime/session.hpp"

namespace ge {

struct Session::Impl {
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

  Impl(int threads, std::shared_ptr<const CompiledModel> model);  // in session.cpp, where Context is complete
};

namespace detail {
// Checks a run's inputs against the model's: count, type, dims, buffers. Returns their dims.
std::vector<std::vector<std::int64_t>> checked_inputs(std::span<const TensorView> inputs, const std::vector<ModelIO>& mi);
// The views of `named` in the order of the model's `io` (its inputs or outputs): each
// exactly once by name; `what` is "input" or "output".
std::vector<TensorView> by_name(std::span<const NamedTensor> named, const std::vector<ModelIO>& io, const char* what);
}  // namespace detail

}  // namespace ge
