/* The runtime family: aclInit/aclFinalize, device 0, run mode, streams, memory, the
 * process calls of acl_base.h; calls before aclInit are ACL_ERROR_UNINITIALIZE. Contexts,
 * events and callbacks have their own programs (rt_context_test.c, rt_event_test.c,
 * rt_callback_test.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static void test_before_init(void) {
  void *p = NULL;
  aclrtStream s = NULL;
  CHECK_ACL(aclFinalize(), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclrtCreateStream(&s), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclrtMallocHost(&p, 16), ACL_ERROR_UNINITIALIZE);
  CHECK(strlen(aclGetRecentErrMsg()) > 0);
}

static void test_init(void) {
  CHECK_ACL(aclInit("/no/such/acl.json"), ACL_ERROR_INVALID_FILE);
  const char *path = "acl_rt_test_config.json";
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("not json", f);
    fclose(f);
  }
  CHECK_ACL(aclInit(path), ACL_ERROR_INVALID_FILE);
  f = fopen(path, "w");
  if (f) {
    fputs(" {\"dump\": {}}\n", f);
    fclose(f);
  }
  CHECK_OK(aclInit(path));
  CHECK_ACL(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
  CHECK_OK(aclFinalize());
  CHECK_ACL(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE); /* GE's code for a second aclFinalize */
  CHECK_OK(aclInit(NULL)); /* again after aclFinalize */
  remove(path);
}

static void test_device(void) {
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_ACL(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
  CHECK_ACL(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  int32_t id = -1;
  CHECK_OK(aclrtGetDevice(&id));
  CHECK(id == 0);
  CHECK_ACL(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
  uint32_t count = 0;
  CHECK_OK(aclrtGetDeviceCount(&count));
  CHECK(count == 1);
  CHECK_ACL(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
  CHECK_ACL(aclrtSetTsDevice((aclrtTsId)9), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_OK(aclrtSynchronizeDeviceWithTimeout(10));
  CHECK_ACL(aclrtSynchronizeDeviceWithTimeout(-5), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_ACL(aclrtResetDevice(0), ACL_ERROR_INVALID_PARAM); /* not set any more */
  CHECK_ACL(aclrtResetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
  /* the default context went with the last reset: no device for this thread */
  CHECK_ACL(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK(strstr(aclGetRecentErrMsg(), "context") != NULL);
  CHECK_ACL(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL);
  /* aclrtResetDeviceForce releases every aclrtSetDevice at once */
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtResetDeviceForce(0));
  CHECK_ACL(aclrtResetDevice(0), ACL_ERROR_INVALID_PARAM);
}

/* Samples branch on the run mode: ACL_HOST copies to device memory, ACL_DEVICE may not. */
static void test_run_mode(void) {
  aclrtRunMode mode = ACL_DEVICE;
  CHECK_ACL(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
  unsetenv("GE_ACL_RUN_MODE");
  CHECK_OK(aclrtGetRunMode(&mode));
  CHECK(mode == ACL_HOST);
  setenv("GE_ACL_RUN_MODE", "device", 1);
  CHECK_OK(aclrtGetRunMode(&mode));
  CHECK(mode == ACL_DEVICE);
  setenv("GE_ACL_RUN_MODE", "npu", 1);
  CHECK_ACL(aclrtGetRunMode(&mode), ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "npu") != NULL);
  unsetenv("GE_ACL_RUN_MODE");
  CHECK(ACL_DEVICE == 0 && ACL_HOST == 1);

  /* Both branches of a sample work: the same data arrives either way. */
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) setenv("GE_ACL_RUN_MODE", "device", 1);
    CHECK_OK(aclrtGetRunMode(&mode));
    float input[4] = {1, 2, 3, 4};
    void *dev = NULL;
    CHECK_OK(aclrtMalloc(&dev, sizeof input, ACL_MEM_MALLOC_HUGE_FIRST));
    if (mode == ACL_HOST) {
      CHECK_OK(aclrtMemcpy(dev, sizeof input, input, sizeof input, ACL_MEMCPY_HOST_TO_DEVICE));
    } else {
      CHECK_OK(aclrtMemcpy(dev, sizeof input, input, sizeof input, ACL_MEMCPY_DEVICE_TO_DEVICE));
    }
    CHECK(((float *)dev)[3] == 4.0f);
    CHECK_OK(aclrtFree(dev));
  }
  unsetenv("GE_ACL_RUN_MODE");
}

static void test_last_error(void) {
  (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
  CHECK_OK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
  void *p = NULL;
  CHECK_ACL(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL)); /* cleared */
  CHECK_ACL(aclrtGetDevice(&(int32_t){0}), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_ACL(aclrtPeekAtLastError((aclrtLastErrLevel)3), ACL_ERROR_INVALID_PARAM);
}

static void test_version_and_names(void) {
  int32_t major = 0, minor = 0, patch = -1;
  CHECK_OK(aclrtGetVersion(&major, &minor, &patch));
  CHECK(major == ACL_MAJOR_VERSION && minor == ACL_MINOR_VERSION && patch == ACL_PATCH_VERSION);
  CHECK_ACL(aclrtGetVersion(NULL, &minor, &patch), ACL_ERROR_INVALID_PARAM);
  CHECK(strcmp(aclrtGetSocName(), "ge-cpu") == 0);
  CHECK_OK(aclrtSetOpWaitTimeout(30));
  CHECK_OK(aclrtSetOpExecuteTimeOut(60));
  aclAppLog(ACL_DEBUG, __func__, __FILE__, __LINE__, "not printed at the default level %d", 3);
}

static void test_streams(void) {
  aclrtStream a = NULL, b = NULL;
  CHECK_ACL(aclrtCreateStream(&a), ACL_ERROR_RT_CONTEXT_NULL); /* no device set on this thread */
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtCreateStream(&a));
  CHECK_OK(aclrtCreateStream(&b));
  CHECK(a != NULL && b != NULL && a != b);
  CHECK_OK(aclrtSynchronizeStream(a));
  CHECK_OK(aclrtSynchronizeStream(NULL)); /* the default stream */
  CHECK_ACL(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyStream(a));
  CHECK_ACL(aclrtDestroyStream(a), ACL_ERROR_INVALID_PARAM); /* twice */
  CHECK_ACL(aclrtSynchronizeStream(a), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
  int not_a_stream = 0;
  CHECK_ACL(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_INVALID_PARAM);
  aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
  CHECK_OK(aclrtStreamQuery(b, &status));
  CHECK(status == ACL_STREAM_STATUS_COMPLETE);
  CHECK_ACL(aclrtStreamQuery(b, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 5));
  int32_t sid = -1;
  CHECK_OK(aclrtStreamGetId(b, &sid));
  CHECK(sid > 0);
  CHECK_OK(aclrtStreamGetId(NULL, &sid));
  CHECK(sid == 0);
  CHECK_OK(aclrtSetStreamFailureMode(b, ACL_STOP_ON_FAILURE));
  CHECK_ACL(aclrtSetStreamFailureMode(b, 7), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyStream(b));

  aclrtStream c = NULL;
  CHECK_OK(aclrtCreateStreamWithConfig(&c, 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
  CHECK_ACL(aclrtCreateStreamWithConfig(&b, 8, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtCreateStreamWithConfig(&b, 0, 0x400u), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyStream(c));
  CHECK_OK(aclrtResetDevice(0));
}

/* The async copies and fills of a stream: done when the call returns, as if synchronized. */
static void test_async_memory(void) {
  CHECK_OK(aclrtSetDevice(0));
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  unsigned char src[64], dst[64];
  for (int i = 0; i < 64; ++i) src[i] = (unsigned char)i;
  memset(dst, 0, sizeof dst);
  CHECK_OK(aclrtMemcpyAsync(dst, sizeof dst, src, 32, ACL_MEMCPY_HOST_TO_DEVICE, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK(dst[31] == 31 && dst[32] == 0);
  CHECK_OK(aclrtMemcpyAsync(dst, sizeof dst, src, 64, ACL_MEMCPY_DEVICE_TO_HOST, NULL)); /* the default stream */
  CHECK(dst[63] == 63);
  CHECK_ACL(aclrtMemcpyAsync(dst, 8, src, 9, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemcpyAsync(NULL, 8, src, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemcpyAsync(dst, 8, src, 8, (aclrtMemcpyKind)99, s), ACL_ERROR_INVALID_PARAM);

  CHECK_OK(aclrtMemset(dst, sizeof dst, 0xAB, 16));
  CHECK(dst[0] == 0xAB && dst[15] == 0xAB && dst[16] == 16);
  CHECK_OK(aclrtMemsetAsync(dst, sizeof dst, 0, sizeof dst, s));
  CHECK(dst[63] == 0);
  CHECK_ACL(aclrtMemset(dst, 4, 0, 5), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemset(NULL, 4, 0, 4), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemsetAsync(dst, 4, 0, 5, s), ACL_ERROR_INVALID_PARAM);

  /* 2-D: 3 rows of 4 bytes from rows 8 apart into rows 5 apart */
  memset(dst, 0, sizeof dst);
  CHECK_OK(aclrtMemcpy2d(dst, 5, src, 8, 4, 3, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(dst[0] == 0 && dst[3] == 3 && dst[4] == 0 && dst[5] == 8 && dst[10] == 16 && dst[13] == 19);
  CHECK_OK(aclrtMemcpy2dAsync(dst, 5, src, 8, 4, 3, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  CHECK_ACL(aclrtMemcpy2d(dst, 3, src, 8, 4, 3, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);

  CHECK_OK(aclrtDestroyStream(s));
  CHECK_ACL(aclrtMemcpyAsync(dst, 8, src, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtResetDevice(0));
}

static void test_memory_kinds(void) {
  void *p = NULL;
  CHECK_OK(aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMemFlush(p, 100));
  CHECK_OK(aclrtMemInvalidate(p, 100));
  CHECK_ACL(aclrtMemFlush(NULL, 100), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemInvalidate(p, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtFree(p));
  CHECK_OK(aclrtMallocAlign32(&p, 10, ACL_MEM_MALLOC_HUGE1G_ONLY));
  CHECK_OK(aclrtFree(p));
  size_t free_bytes = 0, total = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));
  CHECK(total > 0 && free_bytes > 0 && free_bytes <= total);
  CHECK_ACL(aclrtGetMemInfo((aclrtMemAttr)40, &free_bytes, &total), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtGetMemInfo(ACL_DDR_MEM, NULL, &total), ACL_ERROR_INVALID_PARAM);
}

/* The deprecated 32-bit size and aclUpdateDataBuffer (acl_base.h). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static void test_buffers(void) {
  char a[16], b[40];
  aclDataBuffer *buf = aclCreateDataBuffer(a, sizeof a);
  CHECK(aclGetDataBufferSize(buf) == 16);
  CHECK(aclGetDataBufferSize(NULL) == 0);
  CHECK_OK(aclUpdateDataBuffer(buf, b, sizeof b));
  CHECK(aclGetDataBufferAddr(buf) == b && aclGetDataBufferSize(buf) == 40 && aclGetDataBufferSizeV2(buf) == 40);
  CHECK_ACL(aclUpdateDataBuffer(NULL, b, 4), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclDestroyDataBuffer(buf));
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void test_memory(void) {
  void *dev = NULL, *host = NULL;
  CHECK_OK(aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_NORMAL_ONLY));
  CHECK(dev != NULL && (uintptr_t)dev % 64 == 0);
  CHECK_OK(aclrtMallocHost(&host, 100));
  CHECK(host != NULL);
  memset(host, 7, 100);
  CHECK_OK(aclrtMemcpy(dev, 100, host, 100, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(((unsigned char *)dev)[99] == 7);
  memset(host, 0, 100);
  CHECK_OK(aclrtMemcpy(host, 100, dev, 50, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK(((unsigned char *)host)[49] == 7 && ((unsigned char *)host)[50] == 0);
  CHECK_ACL(aclrtMemcpy(host, 10, dev, 50, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM); /* count > destMax */
  CHECK_ACL(aclrtMemcpy(NULL, 10, dev, 5, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemcpy(host, 10, NULL, 5, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemcpy(host, 10, dev, 5, (aclrtMemcpyKind)9), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtMemcpy(host, 10, dev, 5, ACL_MEMCPY_DEFAULT));
  CHECK_ACL(aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMalloc(NULL, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMalloc(&host, 8, (aclrtMemMallocPolicy)77), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtFreeHost(dev), ACL_ERROR_INVALID_PARAM); /* device memory through the host call */
  CHECK_OK(aclrtFree(dev));
  CHECK_ACL(aclrtFree(dev), ACL_ERROR_INVALID_PARAM); /* twice */
  CHECK_ACL(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtFreeHost(host));
  CHECK_ACL(aclrtMallocHost(NULL, 8), ACL_ERROR_INVALID_PARAM);
}

int main(void) {
  test_before_init();
  test_init();
  test_device();
  test_run_mode();
  test_version_and_names();
  test_last_error();
  test_streams();
  test_async_memory();
  test_memory();
  test_memory_kinds();
  test_buffers();
  aclrtStream s = NULL;
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtCreateStream(&s));
  CHECK_OK(aclFinalize()); /* destroys the streams */
  CHECK_OK(aclInit(NULL));
  CHECK_ACL(aclrtGetDevice(&(int32_t){0}), ACL_ERROR_RT_CONTEXT_NULL); /* the context went too */
  CHECK_OK(aclrtSetDevice(0));
  CHECK_ACL(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl rt");
}
