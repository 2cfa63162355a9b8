#pragma once
// The runtime's shared state: rt.cpp (device, contexts, streams, memory), rt_event.cpp
// (events) and rt_report.cpp (callbacks, task failures) all work on one `State` under its
// one mutex.
//
// Handles (contexts, streams, events) are numbers handed out once per process, never
// reused, so that a destroyed handle is recognised as such and not taken for a new one.
// Each thread has one current context (a handle); a stream and an event belong to the
// context current when they were made. The null stream is a context's default stream: its
// record, made when first needed, is keyed by the context's own handle.
//
// Work on a stream runs when it is issued; only callbacks wait, in the queue of the thread
// subscribed to their stream, until that thread's aclrtProcessReport runs them.
// `Stream::unfinished` counts a stream's callbacks not yet done, which is what
// aclrtSynchronizeStream waits for.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "acl/acl_internal.hpp"

namespace acl::rt {

using Clock = std::chrono::steady_clock;

struct Context {
  bool is_default = false;  ///< the device's default context (aclrtSetDevice)
  std::map<int, std::int64_t> options{};  ///< aclrtCtxSetSysParamOpt
};

struct Stream {
  void* context = nullptr;
  std::uint32_t id = 0;  ///< aclrtStreamGetId; 0 for a default stream
  std::uint32_t priority = 0;
  std::uint32_t flags = 0;
  std::uint64_t failure_mode = 0;
  std::optional<std::uint64_t> subscriber;  ///< the thread of aclrtSubscribeReport
  std::size_t unfinished = 0;               ///< callbacks queued, or blocking ones running
};

struct Event {
  void* context = nullptr;
  std::uint32_t flags = 0;
  std::optional<Clock::time_point> recorded;  ///< when aclrtRecordEvent ran; none: not recorded
};

struct Callback {
  void* stream = nullptr;  ///< the key of its stream in `State::streams`
  aclrtCallback fn = nullptr;
  void* data = nullptr;
  bool block = true;
};

struct State {
  std::mutex mutex;
  std::condition_variable changed;  ///< a callback was queued or finished
  int device_refs = 0;
  void* default_context = nullptr;
  std::uintptr_t next_handle = 1;
  std::uint32_t next_stream_id = 1;
  std::map<void*, Context> contexts;
  std::map<void*, Stream> streams;
  std::map<void*, Event> events;
  std::set<void*> device_memory;
  std::set<void*> host_memory;
  std::map<std::uint64_t, std::deque<Callback>> queues;  ///< per subscribed thread
  std::map<int, std::int64_t> options;  ///< aclrtSetSysParamOpt
  std::uint32_t op_wait_timeout = 0;
  std::uint32_t op_execute_timeout = 0;
};

/// The process's runtime state.
[[nodiscard]] State& state();
/// A fresh handle (never handed out before). Call with the mutex held.
[[nodiscard]] void* new_handle(State& s);
/// This thread's current context, as set (possibly destroyed since).
[[nodiscard]] void*& current_context_slot() noexcept;
/// This thread's current context, live; CallError ACL_ERROR_RT_CONTEXT_NULL when there is
/// none or it was destroyed. Mutex held.
[[nodiscard]] void* current_context(State& s, std::string_view api);
/// The record of `stream` (null: the current context's default stream, made on demand),
/// which must be used in its own context: ACL_ERROR_INVALID_PARAM for a stream that is not
/// one (or destroyed), ACL_ERROR_RT_CONTEXT_NULL without a current context,
/// ACL_ERROR_RT_STREAM_CONTEXT for a stream of another context. Mutex held.
[[nodiscard]] std::pair<void*, Stream*> find_stream(State& s, aclrtStream stream, std::string_view api);
/// The calling thread's id as aclrtSubscribeReport takes it (its pthread_t).
[[nodiscard]] std::uint64_t this_thread_id() noexcept;
/// Runs the callbacks still queued for stream `key` here, on this thread (the mutex is
/// released around each call), and marks them done.
void run_queued(std::unique_lock<std::mutex>& lock, State& s, void* key);
/// Waits until no stream in `keys` (all streams when empty) has unfinished callbacks; runs
/// those queued for this thread itself first. False when `timeout_ms` (>= 0) passed.
[[nodiscard]] bool wait_streams(std::unique_lock<std::mutex>& lock, State& s, const std::vector<void*>& keys,
                                int timeout_ms);
/// Erases every stream and event of `context` (queued callbacks of its streams are dropped).
/// Mutex held.
void erase_context_objects(State& s, void* context);

}  // namespace acl::rt
