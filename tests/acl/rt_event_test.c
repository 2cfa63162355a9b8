/* Events: made in the current context, recorded on its streams; work runs when issued, so a
 * recorded event is complete at once and carries its time (aclrtEventElapsedTime). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aclrtQueryEvent */
#endif

static void test_lifecycle(void) {
  aclrtEvent e = NULL, f = NULL, g = NULL;
  CHECK_ACL(aclrtCreateEvent(&e), ACL_ERROR_RT_CONTEXT_NULL); /* no context yet */
  CHECK_OK(aclrtSetDevice(0));
  aclrtStream s = NULL, t = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  CHECK_OK(aclrtCreateStream(&t));
  CHECK_OK(aclrtCreateEvent(&e));
  CHECK_OK(aclrtCreateEventWithFlag(&f, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));
  CHECK_OK(aclrtCreateEventExWithFlag(&g, ACL_EVENT_SYNC));
  CHECK(e != NULL && f != NULL && g != NULL && e != f && f != g);
  CHECK_ACL(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
  aclrtEvent bad = NULL;
  CHECK_ACL(aclrtCreateEventWithFlag(&bad, 0x80000000u), ACL_ERROR_INVALID_PARAM);

  /* not recorded yet */
  aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  aclrtEventStatus st = ACL_EVENT_STATUS_COMPLETE;
  aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_COMPLETE;
  CHECK_OK(aclrtQueryEventStatus(e, &rs));
  CHECK(rs == ACL_EVENT_RECORDED_STATUS_NOT_READY);
  CHECK_OK(aclrtQueryEvent(e, &st));
  CHECK(st == ACL_EVENT_STATUS_NOT_READY);
  CHECK_OK(aclrtQueryEventWaitStatus(e, &ws));
  CHECK(ws == ACL_EVENT_WAIT_STATUS_NOT_READY);
  float ms = -1;
  CHECK_ACL(aclrtEventElapsedTime(&ms, e, f), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  CHECK_OK(aclrtSynchronizeEvent(e)); /* nothing to wait for */

  /* record on one stream, wait on another, time between two records */
  CHECK_OK(aclrtRecordEvent(e, s));
  sleep_ms(20);
  CHECK_OK(aclrtRecordEvent(f, NULL)); /* the default stream */
  CHECK_OK(aclrtStreamWaitEvent(t, e));
  CHECK_OK(aclrtSynchronizeEvent(e));
  CHECK_OK(aclrtSynchronizeEventWithTimeout(f, 10));
  CHECK_OK(aclrtQueryEventStatus(e, &rs));
  CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
  CHECK_OK(aclrtQueryEvent(e, &st));
  CHECK(st == ACL_EVENT_STATUS_COMPLETE);
  CHECK_OK(aclrtEventElapsedTime(&ms, e, f));
  CHECK(ms >= 19.0f && ms < 5000.0f);
  CHECK_ACL(aclrtEventElapsedTime(&ms, f, e), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
  CHECK_ACL(aclrtEventElapsedTime(NULL, e, f), ACL_ERROR_INVALID_PARAM);

  /* reset: not recorded again */
  CHECK_OK(aclrtResetEvent(e, s));
  CHECK_OK(aclrtQueryEventStatus(e, &rs));
  CHECK(rs == ACL_EVENT_RECORDED_STATUS_NOT_READY);

  /* bad calls */
  int not_an_event = 0;
  CHECK_ACL(aclrtRecordEvent(NULL, s), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtRecordEvent(&not_an_event, s), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtRecordEvent(e, &not_an_event), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtQueryEventStatus(e, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtStreamWaitEvent(t, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtSynchronizeEventWithTimeout(e, -3), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyEvent(e));
  CHECK_ACL(aclrtDestroyEvent(e), ACL_ERROR_INVALID_PARAM); /* twice */
  CHECK_ACL(aclrtSynchronizeEvent(e), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtQueryEventStatus(e, &rs), ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "destroyed") != NULL);

  /* an event and a stream of different contexts */
  aclrtContext other = NULL;
  CHECK_OK(aclrtCreateContext(&other, 0));
  aclrtStream os = NULL;
  CHECK_OK(aclrtCreateStream(&os));
  CHECK_ACL(aclrtRecordEvent(f, os), ACL_ERROR_RT_STREAM_CONTEXT);
  /* destroying the context destroys its events */
  aclrtEvent oe = NULL;
  CHECK_OK(aclrtCreateEvent(&oe));
  CHECK_OK(aclrtDestroyContext(other));
  CHECK_ACL(aclrtDestroyEvent(oe), ACL_ERROR_INVALID_PARAM);

  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtDestroyEvent(f));
  CHECK_OK(aclrtDestroyEvent(g));
  CHECK_OK(aclrtDestroyStream(s));
  CHECK_OK(aclrtDestroyStream(t));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclrtResetDevice(0));
}

int main(void) {
  aclrtEvent e = NULL;
  CHECK_ACL(aclrtCreateEvent(&e), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  test_lifecycle();
  /* aclFinalize destroys the events */
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtCreateEvent(&e));
  CHECK_OK(aclFinalize());
  CHECK_OK(aclInit(NULL));
  CHECK_ACL(aclrtDestroyEvent(e), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclFinalize());
  return check_report("acl rt_event");
}
