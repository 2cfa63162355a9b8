// The runtime: device 0 (the CPU), run mode, contexts and streams. Memory is in
// rt_memory.cpp, events in rt_event.cpp, callbacks and task failures in rt_report.cpp; the
// state they share is rt.hpp's.
#include "acl/rt.hpp"

#include <pthread.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace acl::rt {

State& state() {
  static State s;
  return s;
}

void* new_handle(State& s) {
  // Multiples of 16, so that the handles look like the aligned pointers GE hands out.
  return reinterpret_cast<void*>(s.next_handle++ << 4);
}

void*& current_context_slot() noexcept {
  thread_local void* current = nullptr;
  return current;
}

void* current_context(State& s, std::string_view api) {
  void* c = current_context_slot();
  require(c != nullptr, std::string(api) + ": this thread has no current context; call aclrtSetDevice or "
                                           "aclrtCreateContext (or aclrtSetCurrentContext) first",
          ACL_ERROR_RT_CONTEXT_NULL);
  require(s.contexts.count(c) == 1, std::string(api) + ": this thread's current context was destroyed (by "
                                                       "aclrtDestroyContext, aclrtResetDevice or aclFinalize)",
          ACL_ERROR_RT_CONTEXT_NULL);
  return c;
}

std::pair<void*, Stream*> find_stream(State& s, aclrtStream stream, std::string_view api) {
  if (stream == nullptr) {
    void* ctx = current_context(s, api);
    Stream& d = s.streams[ctx];  // the default stream's record: keyed by its context
    d.context = ctx;
    return {ctx, &d};
  }
  const auto it = s.streams.find(stream);
  require(it != s.streams.end() && it->first != it->second.context,
          std::string(api) + ": the stream was not made by aclrtCreateStream or is destroyed");
  void* ctx = current_context(s, api);
  require(it->second.context == ctx,
          std::string(api) + ": the stream belongs to another context than this thread's current one; "
                             "call aclrtSetCurrentContext with the stream's context first",
          ACL_ERROR_RT_STREAM_CONTEXT);
  return {it->first, &it->second};
}

std::uint64_t this_thread_id() noexcept { return static_cast<std::uint64_t>(pthread_self()); }

void erase_context_objects(State& s, void* context) {
  std::set<void*> gone;
  for (auto it = s.streams.begin(); it != s.streams.end();) {
    if (it->second.context == context) {
      gone.insert(it->first);
      it = s.streams.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [thread, queue] : s.queues)
    std::erase_if(queue, [&](const Callback& c) { return gone.count(c.stream) == 1; });
  std::erase_if(s.events, [&](const auto& e) { return e.second.context == context; });
  s.changed.notify_all();
}

}  // namespace acl::rt

namespace acl {

namespace {

void require_device(int32_t id) {
  require(id == 0, "device " + std::to_string(id) + " does not exist; device 0 (the CPU) is the only one",
          ACL_ERROR_RT_INVALID_DEVICEID);
}

void check_stream(aclrtStream stream, std::string_view api) {
  rt::State& s = rt::state();
  std::lock_guard lock(s.mutex);
  (void)rt::find_stream(s, stream, api);
}

aclError synchronize(std::string_view api, aclrtStream stream, int32_t timeout) {
  return guard(api, [&] {
    require_initialized(api);
    require(timeout >= -1, "timeout " + std::to_string(timeout) + " ms; expected -1 (none) or >= 0");
    rt::State& s = rt::state();
    std::unique_lock lock(s.mutex);
    // The null stream without a context: nothing can be pending on it.
    if (stream == nullptr && rt::current_context_slot() == nullptr) return ACL_SUCCESS;
    const auto [key, record] = rt::find_stream(s, stream, api);
    require(rt::wait_streams(lock, s, {key}, timeout),
            "the stream's callbacks did not finish within " + std::to_string(timeout) + " ms",
            ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    return ACL_SUCCESS;
  });
}

aclError reset_device(std::string_view api, int32_t deviceId, bool force) {
  return guard(api, [&] {
    require_initialized(api);
    require_device(deviceId);
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    require(s.device_refs > 0, "device 0 was not set (aclrtSetDevice)");
    s.device_refs = force ? 0 : s.device_refs - 1;
    if (s.device_refs == 0 && s.default_context != nullptr) {
      rt::erase_context_objects(s, s.default_context);
      s.contexts.erase(s.default_context);
      if (rt::current_context_slot() == s.default_context) rt::current_context_slot() = nullptr;
      s.default_context = nullptr;
    }
    return ACL_SUCCESS;
  });
}

aclError create_stream(std::string_view api, aclrtStream* stream, uint32_t priority, uint32_t flags) {
  return guard(api, [&] {
    require_initialized(api);
    require(stream != nullptr, "the pointer to store the stream in is null");
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    void* ctx = rt::current_context(s, api);
    void* h = rt::new_handle(s);
    s.streams[h] = rt::Stream{ctx, s.next_stream_id++, priority, flags, ACL_CONTINUE_ON_FAILURE, std::nullopt, 0};
    *stream = h;
    return ACL_SUCCESS;
  });
}

int check_option(const aclSysParamOpt& opt) {
  const int o = raw(opt);
  require(o >= ACL_OPT_DETERMINISTIC && o <= ACL_OPT_ENABLE_KERNEL_EARLY_START,
          "option " + std::to_string(o) + " is not an aclSysParamOpt");
  return o;
}

// The options of the current context (`context`) or of the process. Mutex held.
std::map<int, std::int64_t>& options_of(rt::State& s, bool context, std::string_view api) {
  return context ? s.contexts.at(rt::current_context(s, api)).options : s.options;
}

aclError get_option(std::string_view api, bool context, const aclSysParamOpt& opt, int64_t* value) {
  return guard(api, [&] {
    require_initialized(api);
    require(value != nullptr, "the pointer to store the value in is null");
    const int o = check_option(opt);
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    const auto& options = options_of(s, context, api);
    const auto it = options.find(o);
    require(it != options.end(), "option " + std::to_string(o) + " was not set", ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    *value = it->second;
    return ACL_SUCCESS;
  });
}

aclError set_option(std::string_view api, bool context, const aclSysParamOpt& opt, int64_t value) {
  return guard(api, [&] {
    require_initialized(api);
    const int o = check_option(opt);
    require(value >= 0, "value " + std::to_string(value) + "; expected >= 0");
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    options_of(s, context, api)[o] = value;
    return ACL_SUCCESS;
  });
}


}  // namespace

void require_stream(aclrtStream stream, std::string_view api) {
  if (stream == nullptr) return;  // the default stream: usable with or without a context
  check_stream(stream, api);
}

void release_runtime() noexcept {
  rt::State& s = rt::state();
  std::lock_guard lock(s.mutex);
  s.streams.clear();
  s.events.clear();
  s.contexts.clear();
  s.queues.clear();
  s.options.clear();
  s.default_context = nullptr;
  s.device_refs = 0;
  s.changed.notify_all();
  // Memory stays: the caller owns it until aclrtFree, which aclFinalize does not do for it.
  // Threads' current contexts are stale handles now, recognised as destroyed.
}

}  // namespace acl

extern "C" {

aclError aclrtSetDevice(int32_t deviceId) {
  return acl::guard("aclrtSetDevice", [&] {
    acl::require_initialized("aclrtSetDevice");
    acl::require_device(deviceId);
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    if (s.default_context == nullptr) {
      s.default_context = acl::rt::new_handle(s);
      s.contexts[s.default_context] = acl::rt::Context{true, {}};
    }
    ++s.device_refs;
    acl::rt::current_context_slot() = s.default_context;
    return ACL_SUCCESS;
  });
}

aclError aclrtResetDevice(int32_t deviceId) { return acl::reset_device("aclrtResetDevice", deviceId, false); }
aclError aclrtResetDeviceForce(int32_t deviceId) { return acl::reset_device("aclrtResetDeviceForce", deviceId, true); }

aclError aclrtGetDevice(int32_t* deviceId) {
  return acl::guard("aclrtGetDevice", [&] {
    acl::require_initialized("aclrtGetDevice");
    acl::require(deviceId != nullptr, "the pointer to store the device in is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    (void)acl::rt::current_context(s, "aclrtGetDevice");
    *deviceId = 0;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return acl::guard("aclrtGetDeviceCount", [&] {
    acl::require_initialized("aclrtGetDeviceCount");
    acl::require(count != nullptr, "the pointer to store the count in is null");
    *count = 1;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return acl::guard("aclrtGetRunMode", [&] {
    acl::require_initialized("aclrtGetRunMode");
    acl::require(runMode != nullptr, "the pointer to store the run mode in is null");
    const char* env = std::getenv("GE_ACL_RUN_MODE");
    const std::string mode = env != nullptr ? env : "host";
    acl::require(mode == "host" || mode == "device",
                 "GE_ACL_RUN_MODE is '" + mode + "'; expected 'host' (ACL_HOST) or 'device' (ACL_DEVICE)");
    *runMode = mode == "device" ? ACL_DEVICE : ACL_HOST;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetTsDevice(aclrtTsId tsId) {
  return acl::guard("aclrtSetTsDevice", [&] {
    acl::require_initialized("aclrtSetTsDevice");
    const int t = acl::raw(tsId);
    acl::require(t == ACL_TS_ID_AICORE || t == ACL_TS_ID_AIVECTOR, "tsId " + std::to_string(t) +
                                                                       " is not ACL_TS_ID_AICORE or ACL_TS_ID_AIVECTOR");
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  return acl::guard("aclrtSynchronizeDevice", [&] {
    acl::require_initialized("aclrtSynchronizeDevice");
    acl::require(timeout >= -1, "timeout " + std::to_string(timeout) + " ms; expected -1 (none) or >= 0");
    acl::rt::State& s = acl::rt::state();
    std::unique_lock lock(s.mutex);
    (void)acl::rt::current_context(s, "aclrtSynchronizeDevice");
    acl::require(acl::rt::wait_streams(lock, s, {}, timeout),
                 "callbacks did not finish within " + std::to_string(timeout) + " ms", ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeDevice(void) { return aclrtSynchronizeDeviceWithTimeout(-1); }

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  return acl::guard("aclrtGetVersion", [&] {
    acl::require(majorVersion != nullptr && minorVersion != nullptr && patchVersion != nullptr,
                 "a pointer to store a version number in is null");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetOpWaitTimeout(uint32_t timeout) {
  return acl::guard("aclrtSetOpWaitTimeout", [&] {
    acl::require_initialized("aclrtSetOpWaitTimeout");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    s.op_wait_timeout = timeout;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetOpExecuteTimeOut(uint32_t timeout) {
  return acl::guard("aclrtSetOpExecuteTimeOut", [&] {
    acl::require_initialized("aclrtSetOpExecuteTimeOut");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    s.op_execute_timeout = timeout;
    return ACL_SUCCESS;
  });
}

const char* aclrtGetSocName(void) { return "ge-cpu"; }

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  const int l = acl::raw(level);
  if (l != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
  return acl::last_error_code();
}

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  const int l = acl::raw(level);
  if (l != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
  return std::exchange(acl::last_error_code(), ACL_SUCCESS);
}

// --- contexts ------------------------------------------------------------------------

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return acl::guard("aclrtCreateContext", [&] {
    acl::require_initialized("aclrtCreateContext");
    acl::require(context != nullptr, "the pointer to store the context in is null");
    acl::require_device(deviceId);
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    void* h = acl::rt::new_handle(s);
    s.contexts[h] = acl::rt::Context{false, {}};
    acl::rt::current_context_slot() = h;
    *context = h;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return acl::guard("aclrtDestroyContext", [&] {
    acl::require_initialized("aclrtDestroyContext");
    acl::require(context != nullptr, "the context is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    const auto it = s.contexts.find(context);
    acl::require(it != s.contexts.end(), "the context was not made by aclrtCreateContext or is destroyed");
    acl::require(!it->second.is_default,
                 "the context is the device's default context, which aclrtResetDevice releases");
    acl::rt::erase_context_objects(s, context);
    s.contexts.erase(it);
    if (acl::rt::current_context_slot() == context) acl::rt::current_context_slot() = nullptr;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return acl::guard("aclrtSetCurrentContext", [&] {
    acl::require_initialized("aclrtSetCurrentContext");
    acl::require(context != nullptr, "the context is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    acl::require(s.contexts.count(context) == 1, "the context was not made by aclrtCreateContext or aclrtSetDevice, "
                                                 "or is destroyed");
    acl::rt::current_context_slot() = context;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return acl::guard("aclrtGetCurrentContext", [&] {
    acl::require_initialized("aclrtGetCurrentContext");
    acl::require(context != nullptr, "the pointer to store the context in is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    *context = acl::rt::current_context(s, "aclrtGetCurrentContext");
    return ACL_SUCCESS;
  });
}

// --- system options ------------------------------------------------------------------


aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return acl::get_option("aclrtCtxGetSysParamOpt", true, opt, value);
}
aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return acl::set_option("aclrtCtxSetSysParamOpt", true, opt, value);
}
aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return acl::get_option("aclrtGetSysParamOpt", false, opt, value);
}
aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return acl::set_option("aclrtSetSysParamOpt", false, opt, value);
}

// --- streams -------------------------------------------------------------------------

aclError aclrtCreateStream(aclrtStream* stream) { return acl::create_stream("aclrtCreateStream", stream, 0, 0); }

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  constexpr uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                             ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
  const aclError e = acl::guard("aclrtCreateStreamWithConfig", [&] {
    acl::require(priority <= 7 && (flag & ~known) == 0, "priority " + std::to_string(priority) + ", flag " +
                                                            std::to_string(flag) +
                                                            "; expected a priority 0..7 and ACL_STREAM_* flags");
    return ACL_SUCCESS;
  });
  if (e != ACL_SUCCESS) return e;
  return acl::create_stream("aclrtCreateStreamWithConfig", stream, priority, flag);
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return acl::synchronize("aclrtSynchronizeStream", stream, -1);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return acl::synchronize("aclrtSynchronizeStreamWithTimeout", stream, timeout);
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return acl::guard("aclrtStreamQuery", [&] {
    acl::require_initialized("aclrtStreamQuery");
    acl::require(status != nullptr, "the pointer to store the status in is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    const auto [key, record] = acl::rt::find_stream(s, stream, "aclrtStreamQuery");
    *status = record->unfinished == 0 ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t* streamId) {
  return acl::guard("aclrtStreamGetId", [&] {
    acl::require_initialized("aclrtStreamGetId");
    acl::require(streamId != nullptr, "the pointer to store the id in is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    if (stream == nullptr) {
      *streamId = 0;
      return ACL_SUCCESS;
    }
    const auto [key, record] = acl::rt::find_stream(s, stream, "aclrtStreamGetId");
    *streamId = static_cast<int32_t>(record->id);
    return ACL_SUCCESS;
  });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  return acl::guard("aclrtSetStreamFailureMode", [&] {
    acl::require_initialized("aclrtSetStreamFailureMode");
    acl::require(mode == ACL_CONTINUE_ON_FAILURE || mode == ACL_STOP_ON_FAILURE,
                 "mode " + std::to_string(mode) + "; expected ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    acl::rt::find_stream(s, stream, "aclrtSetStreamFailureMode").second->failure_mode = mode;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return acl::guard("aclrtDestroyStream", [&] {
    acl::require_initialized("aclrtDestroyStream");
    acl::require(stream != nullptr, "the stream is null");
    acl::rt::State& s = acl::rt::state();
    std::unique_lock lock(s.mutex);
    (void)acl::rt::find_stream(s, stream, "aclrtDestroyStream");
    acl::rt::run_queued(lock, s, stream);
    s.streams.erase(stream);  // gone already if a callback destroyed it
    s.changed.notify_all();
    return ACL_SUCCESS;
  });
}

}  // extern "C"
