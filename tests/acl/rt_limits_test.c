/* The runtime's limits, as a hostile caller finds them: sizes whose rounding or products
 * wrap, a callback that synchronizes its own stream, a dump path held past its stop, BLAS
 * sizes beyond memory. Each gets GE's code; nothing crashes or hangs. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_dump.h"
#include "acl/ops/acl_cblas.h"
#include "check.h"

static void test_malloc_sizes(void) {
  void *p = NULL;
  CHECK_ACL(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  CHECK_ACL(aclrtMalloc(&p, SIZE_MAX - 62, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  CHECK_ACL(aclrtMallocHost(&p, SIZE_MAX), ACL_ERROR_BAD_ALLOC);
  CHECK(p == NULL);
  CHECK_OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtFree(p));
}

static void test_copy_2d_spans(void) {
  char a[64] = {0}, b[64] = {0};
  /* rows whose byte span passes the end of the address space (a pitch beyond a buffer
   * that is still in the address space cannot be told from a real one) */
  CHECK_ACL(aclrtMemcpy2d(a, (size_t)1 << 62, b, (size_t)1 << 62, 1, 5, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemcpy2d(a, SIZE_MAX / 2, b, 8, 8, 3, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtMemcpy2d(a, 8, b, 8, 8, ((size_t)5 << 20) + 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "rows") != NULL);
  memset(b, 7, sizeof b);
  CHECK_OK(aclrtMemcpy2d(a, 16, b, 8, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(a[0] == 7 && a[7] == 7 && a[8] == 0 && a[48] == 7 && a[56] == 0);
}

/* A blocking callback that synchronizes the stream it runs for: it does not wait for
 * itself. */
static aclrtStream cb_stream;
static aclError cb_sync_result = -1;
static void sync_own_stream(void *data) {
  (void)data;
  cb_sync_result = aclrtSynchronizeStream(cb_stream);
}

static void test_callback_syncs_own_stream(void) {
  CHECK_OK(aclrtCreateStream(&cb_stream));
  CHECK_OK(aclrtSubscribeReport((uint64_t)pthread_self(), cb_stream));
  CHECK_OK(aclrtLaunchCallback(sync_own_stream, NULL, ACL_CALLBACK_BLOCK, cb_stream));
  CHECK_OK(aclrtProcessReport(2000));
  CHECK(cb_sync_result == ACL_SUCCESS);
  CHECK_OK(aclrtSynchronizeStream(cb_stream));
  CHECK_OK(aclrtUnSubscribeReport((uint64_t)pthread_self(), cb_stream));
  CHECK_OK(aclrtDestroyStream(cb_stream));
}

static void test_dump_path_outlives_stop(void) {
  char path[251];
  memset(path, 'd', sizeof path - 1);
  path[sizeof path - 1] = '\0';
  CHECK_OK(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, path));
  const char *p = acldumpGetPath(DATA_DUMP);
  CHECK(p != NULL && strcmp(p, path) == 0);
  CHECK_OK(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS));
  CHECK(p != NULL && strlen(p) == sizeof path - 1); /* still readable */
  CHECK(acldumpGetPath(DATA_DUMP) == NULL);
}

static void test_blas_sizes(void) {
  float alpha = 1, beta = 0, x = 0;
  CHECK_ACL(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, INT_MAX, INT_MAX, INT_MAX, &alpha, &x, -1, ACL_FLOAT, &x,
                          -1, ACL_FLOAT, &beta, &x, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, NULL),
            ACL_ERROR_BAD_ALLOC);
}

int main(void) {
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  test_malloc_sizes();
  test_copy_2d_spans();
  test_callback_syncs_own_stream();
  test_dump_path_outlives_stop();
  test_blas_sizes();
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl rt limits");
}
