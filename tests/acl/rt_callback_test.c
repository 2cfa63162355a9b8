/* Callbacks on streams, written the way GE's asynchronous samples use them: a thread of the
 * application loops on aclrtProcessReport, subscribed to a stream with
 * aclrtSubscribeReport; the main thread launches callbacks and synchronizes. And the
 * exception callbacks, told of a task that fails on a stream. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "op_util.h"

static atomic_int worker_exit;
static pthread_t worker;

static void *process_reports(void *arg) {
  aclrtContext ctx = (aclrtContext)arg;
  (void)aclrtSetCurrentContext(ctx);
  while (!atomic_load(&worker_exit)) (void)aclrtProcessReport(20);
  return NULL;
}

struct Note {
  int value;
  int on_worker;   /* ran on the subscribed thread */
  int done_first;  /* how many callbacks had run before this one */
};
static int callbacks_run;

static void note_callback(void *data) {
  struct Note *n = (struct Note *)data;
  n->on_worker = pthread_equal(pthread_self(), worker);
  n->done_first = callbacks_run++;
  n->value = 42;
}

static void test_sample_pattern(aclrtContext ctx) {
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  atomic_store(&worker_exit, 0);
  CHECK(pthread_create(&worker, NULL, process_reports, ctx) == 0);
  CHECK_OK(aclrtSubscribeReport((uint64_t)worker, s));
  CHECK_ACL(aclrtSubscribeReport((uint64_t)worker, s), ACL_ERROR_REPEAT_SUBSCRIBE);
  enum { n = 8 };
  struct Note notes[n];
  memset(notes, 0, sizeof notes);
  callbacks_run = 0;
  for (int i = 0; i < n; ++i)
    CHECK_OK(aclrtLaunchCallback(note_callback, &notes[i], i % 2 ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  for (int i = 0; i < n; i += 2) CHECK(notes[i].value == 42); /* the blocking ones have finished */
  CHECK_OK(aclrtSynchronizeDevice());
  aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
  CHECK_OK(aclrtStreamQuery(s, &status));
  CHECK(status == ACL_STREAM_STATUS_COMPLETE);
  CHECK_ACL(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_ERROR_STREAM_NOT_SUBSCRIBE);
  CHECK_OK(aclrtUnSubscribeReport((uint64_t)worker, s));
  CHECK_ACL(aclrtUnSubscribeReport((uint64_t)worker, s), ACL_ERROR_STREAM_NOT_SUBSCRIBE);
  atomic_store(&worker_exit, 1);
  pthread_join(worker, NULL);
  for (int i = 0; i < n; ++i) CHECK(notes[i].value == 42 && notes[i].on_worker && notes[i].done_first == i);
  /* unsubscribed: callbacks have nowhere to run */
  CHECK_ACL(aclrtLaunchCallback(note_callback, &notes[0], ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
  CHECK_OK(aclrtDestroyStream(s));
}

static int self_count;
static void count_callback(void *data) {
  (void)data;
  ++self_count;
}

static void test_rules(void) {
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  const uint64_t me = (uint64_t)pthread_self();
  CHECK_ACL(aclrtProcessReport(10), ACL_ERROR_THREAD_NOT_SUBSCRIBE);
  CHECK_ACL(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
  CHECK_OK(aclrtSubscribeReport(me, s));
  CHECK_ACL(aclrtProcessReport(10), ACL_ERROR_WAIT_CALLBACK_TIMEOUT); /* nothing queued */
  CHECK_ACL(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM); /* GE: -1 or > 0 */
  CHECK_ACL(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtLaunchCallback(count_callback, NULL, (aclrtCallbackBlockType)5, s), ACL_ERROR_INVALID_PARAM);
  int not_a_stream = 0;
  CHECK_ACL(aclrtSubscribeReport(me, &not_a_stream), ACL_ERROR_INVALID_PARAM);

  /* this thread serves the stream: its own aclrtProcessReport runs the callbacks */
  self_count = 0;
  CHECK_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, s));
  CHECK_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, s));
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  CHECK_OK(aclrtStreamQuery(s, &status));
  CHECK(status == ACL_STREAM_STATUS_NOT_READY && self_count == 0);
  CHECK_OK(aclrtProcessReport(1));
  CHECK(self_count == 2);
  /* ... and synchronizing runs them rather than waiting for itself */
  CHECK_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK(self_count == 3);
  CHECK_OK(aclrtUnSubscribeReport(me, s));

  /* a thread that never processes: synchronizing times out; unsubscribing runs them */
  const uint64_t idle = me + 1;
  CHECK_OK(aclrtSubscribeReport(idle, s));
  CHECK_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, s));
  CHECK_ACL(aclrtSynchronizeStreamWithTimeout(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  CHECK_ACL(aclrtSynchronizeDeviceWithTimeout(20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  CHECK(self_count == 3);
  CHECK_OK(aclrtUnSubscribeReport(idle, s));
  CHECK(self_count == 4);
  CHECK_OK(aclrtSynchronizeStream(s));

  /* the default stream takes callbacks too; destroying a stream runs what it still holds */
  CHECK_OK(aclrtSubscribeReport(idle, NULL));
  CHECK_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, NULL));
  CHECK_OK(aclrtUnSubscribeReport(idle, NULL));
  CHECK(self_count == 5);
  CHECK_OK(aclrtSubscribeReport(idle, s));
  CHECK_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_NO_BLOCK, s));
  CHECK_OK(aclrtDestroyStream(s));
  CHECK(self_count == 6);

  /* aclrtLaunchHostFunc needs no subscription: the function has run when the call returns */
  CHECK_OK(aclrtLaunchHostFunc(NULL, count_callback, NULL));
  CHECK(self_count == 7);
  CHECK_ACL(aclrtLaunchHostFunc(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtLaunchHostFunc(s, count_callback, NULL), ACL_ERROR_INVALID_PARAM); /* destroyed */
  CHECK(self_count == 7);
}

/* --- exception callbacks ------------------------------------------------------------ */

static int exceptions;
static uint32_t seen_code, seen_stream, seen_device, seen_task, seen_thread;
static void on_exception(aclrtExceptionInfo *info) {
  ++exceptions;
  seen_code = aclrtGetErrorCodeFromExceptionInfo(info);
  seen_stream = aclrtGetStreamIdFromExceptionInfo(info);
  seen_device = aclrtGetDeviceIdFromExceptionInfo(info);
  seen_task = aclrtGetTaskIdFromExceptionInfo(info);
  seen_thread = aclrtGetThreadIdFromExceptionInfo(info);
}
static int registered_calls;
static void on_exception_registered(aclrtExceptionInfo *info) {
  (void)info;
  ++registered_calls;
}

/* Gather with index 7 into 3 values: the kernel fails on the stream. */
static aclError gather_out_of_range(aclrtStream s, int index) {
  const int64_t data_dims[1] = {3}, index_dims[1] = {2}, out_dims[1] = {2};
  const float data[3] = {1, 2, 3};
  const int64_t indices[2] = {0, index};
  Tensor in[2] = {f32_tensor(1, data_dims, data), make_tensor(ACL_INT64, 1, index_dims, indices, sizeof indices)};
  Tensor out = f32_output(1, out_dims, 2);
  const aclTensorDesc *descs[2] = {in[0].desc, in[1].desc};
  const aclDataBuffer *bufs[2] = {in[0].buf, in[1].buf};
  const aclTensorDesc *odescs[1] = {out.desc};
  aclDataBuffer *obufs[1] = {out.buf};
  const aclError r = aclopCompileAndExecute("Gather", 2, descs, bufs, 1, odescs, obufs, NULL, ACL_ENGINE_SYS,
                                            ACL_COMPILE_SYS, NULL, s);
  free_tensor(&in[0]);
  free_tensor(&in[1]);
  free_tensor(&out);
  return r;
}

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aclrtSetExceptionInfoCallback */
#endif

static void test_exceptions(void) {
  CHECK(aclrtGetErrorCodeFromExceptionInfo(NULL) == 0xFFFFFFFFu);
  CHECK(aclrtGetTaskIdFromExceptionInfo(NULL) == 0xFFFFFFFFu);
  CHECK(aclrtGetStreamIdFromExceptionInfo(NULL) == 0xFFFFFFFFu);
  CHECK(aclrtGetThreadIdFromExceptionInfo(NULL) == 0xFFFFFFFFu);
  CHECK(aclrtGetDeviceIdFromExceptionInfo(NULL) == 0xFFFFFFFFu);
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  int32_t sid = -1;
  CHECK_OK(aclrtStreamGetId(s, &sid));
  CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
  CHECK_OK(gather_out_of_range(s, 1)); /* a good run: no exception */
  CHECK(exceptions == 0);
  const aclError r = gather_out_of_range(s, 7);
  CHECK(r != ACL_SUCCESS);
  CHECK(exceptions == 1);
  CHECK(seen_code == (uint32_t)r && seen_device == 0 && seen_stream == (uint32_t)sid && seen_task >= 1 &&
        seen_thread != 0);
  /* a bad argument is the call's error, not a failed task */
  CHECK_ACL(aclopCompileAndExecute("Gather", 2, NULL, NULL, 1, NULL, NULL, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS,
                                   NULL, s),
            ACL_ERROR_INVALID_PARAM);
  CHECK(exceptions == 1);
  /* registered ones are called as well, once each */
  CHECK_OK(aclrtExceptionInfoCallbackRegister(on_exception_registered));
  CHECK_OK(aclrtExceptionInfoCallbackRegister(on_exception_registered));
  CHECK(gather_out_of_range(NULL, 9) == r); /* the default stream */
  CHECK(exceptions == 2 && registered_calls == 1 && seen_stream == 0);
  CHECK_OK(aclrtExceptionInfoCallbackUnregister(on_exception_registered));
  CHECK_OK(aclrtExceptionInfoCallbackUnregister(on_exception_registered)); /* never there: fine */
  CHECK_ACL(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
  CHECK(gather_out_of_range(s, 9) == r);
  CHECK(exceptions == 2 && registered_calls == 1);
  CHECK_OK(aclrtDestroyStream(s));
}

int main(void) {
  CHECK_ACL(aclrtProcessReport(1), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  aclrtContext ctx = NULL;
  CHECK_OK(aclrtGetCurrentContext(&ctx));
  test_sample_pattern(ctx);
  test_rules();
  test_exceptions();
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl rt_callback");
}
