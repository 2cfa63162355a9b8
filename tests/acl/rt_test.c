/* The runtime family: aclInit/aclFinalize, device 0, streams, memory; calls before aclInit
 * are ACL_ERROR_UNINITIALIZE. */
#include <stdint.h>
#include <stdio.h>

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
  CHECK_ACL(aclFinalize(), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL)); /* again after aclFinalize */
  remove(path);
}

static void test_device(void) {
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_ACL(aclrtSetDevice(1), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclrtSetDevice(-1), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_ACL(aclrtResetDevice(0), ACL_ERROR_INVALID_PARAM); /* not set any more */
  CHECK_ACL(aclrtResetDevice(3), ACL_ERROR_INVALID_PARAM);
}

static void test_streams(void) {
  aclrtStream a = NULL, b = NULL;
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
  CHECK_OK(aclrtDestroyStream(b));
}

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
  test_streams();
  test_memory();
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  CHECK_OK(aclFinalize()); /* destroys the streams */
  CHECK_OK(aclInit(NULL));
  CHECK_ACL(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclFinalize());
  return check_report("acl rt");
}
