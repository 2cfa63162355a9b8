// Callbacks on streams (aclrtSubscribeReport, aclrtLaunchCallback, aclrtProcessReport,
// aclrtUnSubscribeReport) and the exception callbacks told of failed tasks.
//
// A callback is the one kind of stream work that does not run when issued: it joins the
// queue of the thread subscribed to its stream and runs in that thread's
// aclrtProcessReport, as on GE, where the application's own thread runs it. Until it has
// run (or, for ACL_CALLBACK_NO_BLOCK, been taken), the stream is unfinished and
// aclrtSynchronizeStream waits; a thread synchronizing a stream it serves itself runs the
// callbacks there instead of waiting for itself.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "acl/rt.hpp"

/// What an exception callback is given (acl_rt.h's aclrtExceptionInfo).
struct rtExceptionInfo {
  std::uint32_t task_id = 0;
  std::uint32_t stream_id = 0;
  std::uint32_t thread_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t error_code = 0;
};

namespace acl {

namespace {

struct Reporters {
  std::mutex mutex;
  aclrtExceptionInfoCallback single = nullptr;           // aclrtSetExceptionInfoCallback
  std::vector<aclrtExceptionInfoCallback> registered;    // aclrtExceptionInfoCallbackRegister
  std::uint32_t failed_tasks = 0;
};

Reporters& reporters() {
  static Reporters r;
  return r;
}

// The callbacks of `key` taken out of the queue of the thread that serves it.
std::vector<rt::Callback> take_queued(rt::State& s, void* key) {
  std::vector<rt::Callback> out;
  const auto it = s.streams.find(key);
  if (it == s.streams.end() || !it->second.subscriber) return out;
  auto& queue = s.queues[*it->second.subscriber];
  for (auto q = queue.begin(); q != queue.end();) {
    if (q->stream == key) {
      out.push_back(*q);
      q = queue.erase(q);
    } else {
      ++q;
    }
  }
  return out;
}

// The streams of the blocking callbacks this thread is running (innermost last): such a
// callback counts as unfinished work of its stream, and a synchronize of that stream from
// inside it would otherwise wait for itself.
thread_local std::vector<void*> running_here;

struct Running {
  explicit Running(void* key) { running_here.push_back(key); }
  ~Running() { running_here.pop_back(); }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
};

std::size_t running_on(void* key) {
  return static_cast<std::size_t>(std::count(running_here.begin(), running_here.end(), key));
}

void finish(rt::State& s, void* key) {
  const auto it = s.streams.find(key);
  if (it != s.streams.end() && it->second.unfinished > 0) --it->second.unfinished;
  s.changed.notify_all();
}

void run_all(std::unique_lock<std::mutex>& lock, rt::State& s, const std::vector<rt::Callback>& callbacks) {
  for (const rt::Callback& c : callbacks) {
    lock.unlock();
    {
      const Running running(c.stream);
      c.fn(c.data);
    }
    lock.lock();
    finish(s, c.stream);
  }
}

bool serves_a_stream(const rt::State& s, std::uint64_t thread) {
  return std::any_of(s.streams.begin(), s.streams.end(),
                     [&](const auto& e) { return e.second.subscriber && *e.second.subscriber == thread; });
}

// The stream of a subscription call: any stream of the current context, the null one
// included. Mutex held.
std::pair<void*, rt::Stream*> subscription_stream(rt::State& s, aclrtStream stream, std::string_view api) {
  return rt::find_stream(s, stream, api);
}

}  // namespace

namespace rt {

void run_queued(std::unique_lock<std::mutex>& lock, State& s, void* key) { run_all(lock, s, take_queued(s, key)); }

bool wait_streams(std::unique_lock<std::mutex>& lock, State& s, const std::vector<void*>& keys, int timeout_ms) {
  const auto watched = [&](void* key) { return keys.empty() || std::find(keys.begin(), keys.end(), key) != keys.end(); };
  // First the callbacks this thread would have to run itself.
  std::vector<Callback> mine;
  if (const auto own = s.queues.find(this_thread_id()); own != s.queues.end()) {
    for (auto q = own->second.begin(); q != own->second.end();) {
      if (watched(q->stream)) {
        mine.push_back(*q);
        q = own->second.erase(q);
      } else {
        ++q;
      }
    }
  }
  run_all(lock, s, mine);
  const auto done = [&] {
    return std::none_of(s.streams.begin(), s.streams.end(),
                        [&](const auto& e) { return watched(e.first) && e.second.unfinished > running_on(e.first); });
  };
  if (timeout_ms < 0) {
    s.changed.wait(lock, done);
    return true;
  }
  return s.changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
}

}  // namespace rt

void report_task_failure(aclrtStream stream, aclError code) noexcept {
  try {
    rtExceptionInfo info;
    info.thread_id = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    info.error_code = static_cast<std::uint32_t>(code);
    if (stream != nullptr) {
      rt::State& s = rt::state();
      std::lock_guard lock(s.mutex);
      const auto it = s.streams.find(stream);
      info.stream_id = it != s.streams.end() ? it->second.id : 0xFFFFFFFFu;
    }
    std::vector<aclrtExceptionInfoCallback> calls;
    {
      Reporters& r = reporters();
      std::lock_guard lock(r.mutex);
      info.task_id = ++r.failed_tasks;
      if (r.single != nullptr) calls.push_back(r.single);
      for (const auto c : r.registered)
        if (c != r.single) calls.push_back(c);
    }
    for (const auto c : calls) c(&info);
  } catch (...) {
    // No memory to tell of the failure: the failing call still returns its code.
  }
}

}  // namespace acl

extern "C" {

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return acl::guard("aclrtSubscribeReport", [&] {
    acl::require_initialized("aclrtSubscribeReport");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    const auto [key, record] = acl::subscription_stream(s, stream, "aclrtSubscribeReport");
    acl::require(!record->subscriber, "the stream is subscribed already (thread " +
                                          std::to_string(record->subscriber.value_or(0)) + ")",
                 ACL_ERROR_REPEAT_SUBSCRIBE);
    record->subscriber = threadId;
    (void)s.queues[threadId];
    return ACL_SUCCESS;
  });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream stream) {
  return acl::guard("aclrtLaunchCallback", [&] {
    acl::require_initialized("aclrtLaunchCallback");
    acl::require(fn != nullptr, "the callback is null");
    const int b = acl::raw(blockType);
    acl::require(b == ACL_CALLBACK_NO_BLOCK || b == ACL_CALLBACK_BLOCK,
                 "blockType " + std::to_string(b) + " is not an aclrtCallbackBlockType");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    const auto [key, record] = acl::rt::find_stream(s, stream, "aclrtLaunchCallback");
    acl::require(record->subscriber.has_value(),
                 "no thread serves the stream's callbacks; call aclrtSubscribeReport first",
                 ACL_ERROR_RT_STREAM_NO_CB_REG);
    s.queues[*record->subscriber].push_back(acl::rt::Callback{key, fn, userData, b == ACL_CALLBACK_BLOCK});
    ++record->unfinished;
    s.changed.notify_all();
    return ACL_SUCCESS;
  });
}

aclError aclrtProcessReport(int32_t timeout) {
  return acl::guard("aclrtProcessReport", [&] {
    acl::require_initialized("aclrtProcessReport");
    acl::require(timeout == -1 || timeout > 0, "timeout " + std::to_string(timeout) + " ms; expected -1 (for ever) or > 0");
    acl::rt::State& s = acl::rt::state();
    std::unique_lock lock(s.mutex);
    const std::uint64_t me = acl::rt::this_thread_id();
    acl::require(acl::serves_a_stream(s, me), "this thread serves no stream; call aclrtSubscribeReport with its id",
                 ACL_ERROR_THREAD_NOT_SUBSCRIBE);
    // Wakes for a callback, or when the subscription ends (aclrtUnSubscribeReport, aclFinalize).
    const auto ready = [&] { return !s.queues[me].empty() || !acl::serves_a_stream(s, me); };
    if (timeout < 0) {
      s.changed.wait(lock, ready);
    } else {
      acl::require(s.changed.wait_for(lock, std::chrono::milliseconds(timeout), ready),
                   "no callback came within " + std::to_string(timeout) + " ms", ACL_ERROR_WAIT_CALLBACK_TIMEOUT);
    }
    acl::require(!s.queues[me].empty() || acl::serves_a_stream(s, me),
                 "this thread's subscription ended while it waited", ACL_ERROR_THREAD_NOT_SUBSCRIBE);
    while (!s.queues[me].empty()) {
      const acl::rt::Callback c = s.queues[me].front();
      s.queues[me].pop_front();
      if (!c.block) acl::finish(s, c.stream);  // the stream does not wait for it to end
      lock.unlock();
      {
        std::optional<acl::Running> running;
        if (c.block) running.emplace(c.stream);
        c.fn(c.data);
      }
      lock.lock();
      if (c.block) acl::finish(s, c.stream);
    }
    return ACL_SUCCESS;
  });
}

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  return acl::guard("aclrtLaunchHostFunc", [&] {
    acl::require_initialized("aclrtLaunchHostFunc");
    acl::require(fn != nullptr, "the function is null");
    {
      acl::rt::State& s = acl::rt::state();
      std::lock_guard lock(s.mutex);
      (void)acl::rt::find_stream(s, stream, "aclrtLaunchHostFunc");
    }
    fn(args);  // the stream's earlier work is done: its turn is now
    return ACL_SUCCESS;
  });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return acl::guard("aclrtUnSubscribeReport", [&] {
    acl::require_initialized("aclrtUnSubscribeReport");
    acl::rt::State& s = acl::rt::state();
    std::unique_lock lock(s.mutex);
    const auto [key, record] = acl::subscription_stream(s, stream, "aclrtUnSubscribeReport");
    acl::require(record->subscriber && *record->subscriber == threadId,
                 "thread " + std::to_string(threadId) + " does not serve the stream", ACL_ERROR_STREAM_NOT_SUBSCRIBE);
    void* const k = key;
    acl::rt::run_queued(lock, s, k);
    const auto it = s.streams.find(k);
    if (it != s.streams.end()) it->second.subscriber.reset();
    s.changed.notify_all();
    return ACL_SUCCESS;
  });
}

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  return acl::guard("aclrtSetExceptionInfoCallback", [&] {
    acl::require_initialized("aclrtSetExceptionInfoCallback");
    acl::Reporters& r = acl::reporters();
    std::lock_guard lock(r.mutex);
    r.single = callback;
    return ACL_SUCCESS;
  });
}

aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
  return acl::guard("aclrtExceptionInfoCallbackRegister", [&] {
    acl::require_initialized("aclrtExceptionInfoCallbackRegister");
    acl::require(callback != nullptr, "the callback is null");
    acl::Reporters& r = acl::reporters();
    std::lock_guard lock(r.mutex);
    if (std::find(r.registered.begin(), r.registered.end(), callback) == r.registered.end())
      r.registered.push_back(callback);
    return ACL_SUCCESS;
  });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
  return acl::guard("aclrtExceptionInfoCallbackUnregister", [&] {
    acl::require_initialized("aclrtExceptionInfoCallbackUnregister");
    acl::require(callback != nullptr, "the callback is null");
    acl::Reporters& r = acl::reporters();
    std::lock_guard lock(r.mutex);
    std::erase(r.registered, callback);
    return ACL_SUCCESS;
  });
}

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info) { return info ? info->task_id : 0xFFFFFFFFu; }
uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->stream_id : 0xFFFFFFFFu;
}
uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->thread_id : 0xFFFFFFFFu;
}
uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->device_id : 0xFFFFFFFFu;
}
uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->error_code : 0xFFFFFFFFu;
}

}  // extern "C"
