/* A single op through the acl C API, as a GE application writes it: initialise, pick
 * device 0 and a stream, describe the inputs with a ranged dim (rows: any of 1..16),
 * compile Add once for the range, then execute it at two shapes; aclopExecuteV2 rewrites
 * the output description with the real dims. Prints the results and "single_op: ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define COLS 4

#define CHECK_RET(call)                                                                  \
  do {                                                                                   \
    aclError ret_ = (call);                                                              \
    if (ret_ != ACL_SUCCESS) {                                                           \
      fprintf(stderr, "%s failed: %d (%s)\n", #call, ret_, aclGetRecentErrMsg());        \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

/* Describes an f32 [rows, COLS] tensor; rows < 0 means "any of 1..16". */
static aclTensorDesc *describe(int64_t rows) {
  const int64_t dims[2] = {rows, COLS};
  aclTensorDesc *desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  if (desc != NULL && rows < 0) {
    int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 16}, {COLS, COLS}};
    if (aclSetTensorShapeRange(desc, 2, range) != ACL_SUCCESS) {
      aclDestroyTensorDesc(desc);
      return NULL;
    }
  }
  return desc;
}

/* Runs y = a + b on device memory for `rows` rows and prints y; 0 on success. */
static int run_add(aclrtStream stream, int64_t rows) {
  const size_t bytes = (size_t)rows * COLS * sizeof(float);
  float *host = NULL;
  void *dev[3] = {NULL, NULL, NULL};
  CHECK_RET(aclrtMallocHost((void **)&host, bytes));
  for (int i = 0; i < 3; ++i) CHECK_RET(aclrtMalloc(&dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  for (int64_t i = 0; i < rows * COLS; ++i) host[i] = (float)i;
  CHECK_RET(aclrtMemcpy(dev[0], bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_RET(aclrtMemcpy(dev[1], bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

  aclTensorDesc *inDesc[2] = {describe(rows), describe(rows)};
  aclTensorDesc *outDesc[1] = {describe(-1)}; /* the real dims come back in it */
  aclDataBuffer *inputs[2] = {aclCreateDataBuffer(dev[0], bytes), aclCreateDataBuffer(dev[1], bytes)};
  aclDataBuffer *outputs[1] = {aclCreateDataBuffer(dev[2], bytes)};
  CHECK_RET(aclopExecuteV2("Add", 2, inDesc, inputs, 1, outDesc, outputs, NULL, stream));
  CHECK_RET(aclrtSynchronizeStream(stream));

  int64_t realRows = 0;
  CHECK_RET(aclGetTensorDescDimV2(outDesc[0], 0, &realRows));
  CHECK_RET(aclrtMemcpy(host, bytes, dev[2], bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  printf("Add at [%lld, %d]: output [%lld, %d] =", (long long)rows, COLS, (long long)realRows, COLS);
  int ok = realRows == rows;
  for (int64_t i = 0; i < rows * COLS; ++i) {
    printf(" %g", (double)host[i]);
    ok = ok && host[i] == 2.0f * (float)i;
  }
  printf("\n");

  for (int i = 0; i < 2; ++i) {
    aclDestroyTensorDesc(inDesc[i]);
    CHECK_RET(aclDestroyDataBuffer(inputs[i]));
  }
  aclDestroyTensorDesc(outDesc[0]);
  CHECK_RET(aclDestroyDataBuffer(outputs[0]));
  for (int i = 0; i < 3; ++i) CHECK_RET(aclrtFree(dev[i]));
  CHECK_RET(aclrtFreeHost(host));
  return ok ? 0 : 1;
}

int main(void) {
  CHECK_RET(aclInit(NULL));
  CHECK_RET(aclrtSetDevice(0));
  aclrtStream stream = NULL;
  CHECK_RET(aclrtCreateStream(&stream));

  /* Compile once for rows in 1..16. */
  const aclTensorDesc *inDesc[2] = {describe(-1), describe(-1)};
  const aclTensorDesc *outDesc[1] = {describe(-1)};
  CHECK_RET(aclopCompile("Add", 2, inDesc, 1, outDesc, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
  aclDestroyTensorDesc(inDesc[0]);
  aclDestroyTensorDesc(inDesc[1]);
  aclDestroyTensorDesc(outDesc[0]);

  /* Execute at two shapes inside the range: one compiled op serves both. */
  const int failed = run_add(stream, 2) || run_add(stream, 5);

  CHECK_RET(aclrtDestroyStream(stream));
  CHECK_RET(aclrtResetDevice(0));
  CHECK_RET(aclFinalize());
  if (failed) {
    fprintf(stderr, "single_op: wrong results\n");
    return 1;
  }
  printf("single_op: ok\n");
  return 0;
}
