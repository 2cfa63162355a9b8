/* Contexts: one current context per thread; aclrtSetDevice makes the default one current,
 * aclrtCreateContext makes another and makes it current; a stream (and an event) belongs to
 * the context current when it was made and is used there; destroying a context destroys its
 * streams; destroyed handles are recognised. Threads share the runtime. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

static void test_before_init(void) {
  aclrtContext c = NULL;
  aclrtRunMode mode;
  CHECK_ACL(aclrtCreateContext(&c, 0), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclrtGetCurrentContext(&c), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclrtGetRunMode(&mode), ACL_ERROR_UNINITIALIZE);
}

static void test_single_thread(void) {
  aclrtContext cur = NULL, dflt = NULL, mine = NULL, other = NULL;
  CHECK_ACL(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtGetCurrentContext(&dflt));
  CHECK(dflt != NULL);
  CHECK_ACL(aclrtGetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);

  /* creating makes current */
  CHECK_OK(aclrtCreateContext(&mine, 0));
  CHECK(mine != NULL && mine != dflt);
  CHECK_OK(aclrtGetCurrentContext(&cur));
  CHECK(cur == mine);
  CHECK_ACL(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtCreateContext(&other, 1), ACL_ERROR_RT_INVALID_DEVICEID);
  int32_t dev = -1;
  CHECK_OK(aclrtGetDevice(&dev));
  CHECK(dev == 0);

  /* a stream of `mine` is used in `mine` only */
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  CHECK_OK(aclrtSetCurrentContext(dflt));
  CHECK_ACL(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
  CHECK(strstr(aclGetRecentErrMsg(), "context") != NULL);
  char a[8] = {0}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_ACL(aclrtMemcpyAsync(a, 8, b, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_STREAM_CONTEXT);
  CHECK(a[0] == 0); /* nothing copied */
  CHECK_ACL(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
  CHECK_OK(aclrtSetCurrentContext(mine));
  CHECK_OK(aclrtMemcpyAsync(a, 8, b, 8, ACL_MEMCPY_HOST_TO_DEVICE, s));
  CHECK(a[7] == 8);
  CHECK_OK(aclrtSynchronizeStream(s));

  /* bad handles */
  CHECK_ACL(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
  int not_a_context = 0;
  CHECK_ACL(aclrtSetCurrentContext(&not_a_context), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtDestroyContext(&not_a_context), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtDestroyContext(dflt), ACL_ERROR_INVALID_PARAM); /* the default one: aclrtResetDevice's */
  CHECK_ACL(aclrtSetCurrentContext(s), ACL_ERROR_INVALID_PARAM); /* a stream is no context */
  CHECK_ACL(aclrtSynchronizeStream(mine), ACL_ERROR_INVALID_PARAM); /* nor a context a stream */

  /* destroying the current context: its streams go, the thread has no context */
  CHECK_OK(aclrtDestroyContext(mine));
  CHECK_ACL(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_ACL(aclrtDestroyContext(mine), ACL_ERROR_INVALID_PARAM); /* twice */
  CHECK_ACL(aclrtSetCurrentContext(mine), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSetCurrentContext(dflt));
  CHECK_ACL(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM); /* went with its context */

  /* destroying a context current elsewhere leaves this thread's alone */
  CHECK_OK(aclrtCreateContext(&other, 0));
  CHECK_OK(aclrtSetCurrentContext(dflt));
  CHECK_OK(aclrtDestroyContext(other));
  CHECK_OK(aclrtGetCurrentContext(&cur));
  CHECK(cur == dflt);

  /* aclrtSetDevice switches back to the default context */
  CHECK_OK(aclrtCreateContext(&other, 0));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtGetCurrentContext(&cur));
  CHECK(cur == dflt);
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclrtResetDevice(0));
  /* the explicit context outlives the device's reset */
  CHECK_OK(aclrtSetCurrentContext(other));
  CHECK_OK(aclrtDestroyContext(other));
}

/* System options: per context (aclrtCtx*) and per process. */
static void test_options(void) {
  int64_t v = -1;
  CHECK_ACL(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_ERROR_RT_CONTEXT_NULL); /* no context */
  aclrtContext a = NULL, b = NULL;
  CHECK_OK(aclrtCreateContext(&a, 0));
  CHECK_ACL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  CHECK_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
  CHECK_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
  CHECK(v == 1);
  CHECK_OK(aclrtCreateContext(&b, 0));
  CHECK_ACL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET); /* b's own */
  CHECK_OK(aclrtSetCurrentContext(a));
  CHECK_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
  CHECK(v == 1);
  CHECK_ACL(aclrtCtxSetSysParamOpt((aclSysParamOpt)9, 1), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  CHECK_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 0));
  CHECK_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
  CHECK(v == 0);
  CHECK_ACL(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyContext(b));
  CHECK_OK(aclrtDestroyContext(a));
}

/* Thread work: make a context and a stream, copy on it, report. */
struct Job {
  aclrtContext shared;      /* a context made by the main thread */
  aclrtStream shared_stream;
  int index;
  aclError no_context;      /* aclrtGetCurrentContext before anything */
  aclError foreign_stream;  /* the main thread's stream without its context */
  aclError with_context;    /* the same after aclrtSetCurrentContext */
  aclError own;             /* a context and stream of the thread's own */
  aclrtContext own_context;
  int copied;
};

static void *thread_main(void *arg) {
  struct Job *job = (struct Job *)arg;
  aclrtContext cur = NULL;
  job->no_context = aclrtGetCurrentContext(&cur);
  job->foreign_stream = aclrtSynchronizeStream(job->shared_stream);
  job->with_context = aclrtSetCurrentContext(job->shared);
  if (job->with_context == ACL_SUCCESS) job->with_context = aclrtSynchronizeStream(job->shared_stream);
  aclrtContext ctx = NULL;
  aclrtStream s = NULL;
  int src[256], dst[256];
  for (int i = 0; i < 256; ++i) src[i] = job->index * 1000 + i;
  job->own = aclrtCreateContext(&ctx, 0);
  if (job->own == ACL_SUCCESS) job->own = aclrtCreateStream(&s);
  for (int round = 0; round < 50 && job->own == ACL_SUCCESS; ++round) {
    job->own = aclrtMemcpyAsync(dst, sizeof dst, src, sizeof src, ACL_MEMCPY_HOST_TO_DEVICE, s);
    if (job->own == ACL_SUCCESS) job->own = aclrtSynchronizeStream(s);
  }
  job->copied = job->own == ACL_SUCCESS && dst[255] == job->index * 1000 + 255;
  aclrtContext now = NULL;
  if (job->own == ACL_SUCCESS && aclrtGetCurrentContext(&now) == ACL_SUCCESS && now != ctx) job->own = -1;
  job->own_context = ctx;
  if (job->own == ACL_SUCCESS) job->own = aclrtDestroyStream(s);
  if (job->own == ACL_SUCCESS) job->own = aclrtDestroyContext(ctx);
  return NULL;
}

static void test_threads(void) {
  aclrtContext shared = NULL;
  aclrtStream stream = NULL;
  CHECK_OK(aclrtCreateContext(&shared, 0));
  CHECK_OK(aclrtCreateStream(&stream));
  enum { n = 6 };
  pthread_t threads[n];
  struct Job jobs[n];
  for (int i = 0; i < n; ++i) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].shared = shared;
    jobs[i].shared_stream = stream;
    jobs[i].index = i;
    CHECK(pthread_create(&threads[i], NULL, thread_main, &jobs[i]) == 0);
  }
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < n; ++i) {
    CHECK(jobs[i].no_context == ACL_ERROR_RT_CONTEXT_NULL); /* contexts are per thread */
    CHECK(jobs[i].foreign_stream == ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(jobs[i].with_context == ACL_SUCCESS);
    CHECK(jobs[i].own == ACL_SUCCESS);
    CHECK(jobs[i].copied);
    for (int j = 0; j < i; ++j) CHECK(jobs[i].own_context != jobs[j].own_context);
  }
  /* the main thread's current context is still its own */
  aclrtContext cur = NULL;
  CHECK_OK(aclrtGetCurrentContext(&cur));
  CHECK(cur == shared);
  CHECK_OK(aclrtDestroyStream(stream));
  CHECK_OK(aclrtDestroyContext(shared));
}

int main(void) {
  test_before_init();
  CHECK_OK(aclInit(NULL));
  test_single_thread();
  test_options();
  test_threads();
  /* aclFinalize destroys the contexts: after a new aclInit the old handle is stale */
  aclrtContext c = NULL;
  CHECK_OK(aclrtCreateContext(&c, 0));
  CHECK_OK(aclFinalize());
  CHECK_OK(aclInit(NULL));
  aclrtContext cur = NULL;
  CHECK_ACL(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_ACL(aclrtSetCurrentContext(c), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclFinalize());
  return check_report("acl rt_context");
}
