// Events: made in the current context, recorded on a stream of it. Work runs when issued,
// so a recorded event is complete at once; it keeps the time it was recorded at for
// aclrtEventElapsedTime.
#include <string>

#include "acl/rt.hpp"

namespace acl {

namespace {

constexpr std::uint32_t known_event_flags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                                            ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

aclError create_event(std::string_view api, aclrtEvent* event, std::uint32_t flags) {
  return guard(api, [&] {
    require_initialized(api);
    require(event != nullptr, "the pointer to store the event in is null");
    require((flags & ~known_event_flags) == 0,
            "flag " + std::to_string(flags) + " has bits that are no ACL_EVENT_* flag");
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    void* ctx = rt::current_context(s, api);
    void* h = rt::new_handle(s);
    s.events[h] = rt::Event{ctx, flags, std::nullopt};
    *event = h;
    return ACL_SUCCESS;
  });
}

// The event's record: ACL_ERROR_INVALID_PARAM for null, unknown or destroyed. Mutex held.
rt::Event& find_event(rt::State& s, aclrtEvent event, std::string_view what = "the event") {
  require(event != nullptr, std::string(what) + " is null");
  const auto it = s.events.find(event);
  require(it != s.events.end(), std::string(what) + " was not made by aclrtCreateEvent or is destroyed");
  return it->second;
}

// The event and the stream it is recorded on (or reset on), both of the current context.
rt::Event& event_on_stream(rt::State& s, aclrtEvent event, aclrtStream stream, std::string_view api) {
  rt::Event& e = find_event(s, event);
  const auto [key, record] = rt::find_stream(s, stream, api);
  require(e.context == record->context, "the event and the stream belong to different contexts",
          ACL_ERROR_RT_STREAM_CONTEXT);
  return e;
}

template <class Status>
aclError query(std::string_view api, aclrtEvent event, Status* status, Status complete, Status not_ready) {
  return guard(api, [&] {
    require_initialized(api);
    require(status != nullptr, "the pointer to store the status in is null");
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    *status = find_event(s, event).recorded ? complete : not_ready;
    return ACL_SUCCESS;
  });
}

aclError synchronize_event(std::string_view api, aclrtEvent event, int32_t timeout) {
  return guard(api, [&] {
    require_initialized(api);
    require(timeout >= -1, "timeout " + std::to_string(timeout) + " ms; expected -1 (none) or >= 0");
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    (void)find_event(s, event);  // recorded: done; not recorded: nothing to wait for
    return ACL_SUCCESS;
  });
}

}  // namespace

}  // namespace acl

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) { return acl::create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC); }

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  return acl::create_event("aclrtCreateEventWithFlag", event, flag);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return acl::create_event("aclrtCreateEventExWithFlag", event, flag);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return acl::guard("aclrtDestroyEvent", [&] {
    acl::require_initialized("aclrtDestroyEvent");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    (void)acl::find_event(s, event);
    s.events.erase(event);
    return ACL_SUCCESS;
  });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return acl::guard("aclrtRecordEvent", [&] {
    acl::require_initialized("aclrtRecordEvent");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    acl::event_on_stream(s, event, stream, "aclrtRecordEvent").recorded = acl::rt::Clock::now();
    return ACL_SUCCESS;
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  return acl::guard("aclrtResetEvent", [&] {
    acl::require_initialized("aclrtResetEvent");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    acl::event_on_stream(s, event, stream, "aclrtResetEvent").recorded.reset();
    return ACL_SUCCESS;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return acl::guard("aclrtStreamWaitEvent", [&] {
    acl::require_initialized("aclrtStreamWaitEvent");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    (void)acl::find_event(s, event);  // events of other contexts may be waited for
    (void)acl::rt::find_stream(s, stream, "aclrtStreamWaitEvent");
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  return acl::query("aclrtQueryEvent", event, status, ACL_EVENT_STATUS_COMPLETE, ACL_EVENT_STATUS_NOT_READY);
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  return acl::query("aclrtQueryEventStatus", event, status, ACL_EVENT_RECORDED_STATUS_COMPLETE,
                    ACL_EVENT_RECORDED_STATUS_NOT_READY);
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  return acl::query("aclrtQueryEventWaitStatus", event, status, ACL_EVENT_WAIT_STATUS_COMPLETE,
                    ACL_EVENT_WAIT_STATUS_NOT_READY);
}

aclError aclrtSynchronizeEvent(aclrtEvent event) { return acl::synchronize_event("aclrtSynchronizeEvent", event, -1); }

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  return acl::synchronize_event("aclrtSynchronizeEventWithTimeout", event, timeout);
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  return acl::guard("aclrtEventElapsedTime", [&] {
    acl::require_initialized("aclrtEventElapsedTime");
    acl::require(ms != nullptr, "the pointer to store the time in is null");
    acl::rt::State& s = acl::rt::state();
    std::lock_guard lock(s.mutex);
    const acl::rt::Event& start = acl::find_event(s, startEvent, "the start event");
    const acl::rt::Event& end = acl::find_event(s, endEvent, "the end event");
    acl::require(start.recorded && end.recorded, "an event was not recorded (aclrtRecordEvent)",
                 ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    acl::require(*end.recorded >= *start.recorded, "the end event was recorded before the start event",
                 ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
    *ms = std::chrono::duration<float, std::milli>(*end.recorded - *start.recorded).count();
    return ACL_SUCCESS;
  });
}

}  // extern "C"
