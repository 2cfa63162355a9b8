/* A compiled model with batch gears through the acl C API, as a GE application runs an
 * offline model: load the file, find the gear input by ACL_DYNAMIC_TENSOR_NAME, and run
 * batch 1 and batch 4 through datasets, choosing each gear with
 * aclmdlSetDynamicBatchSize. Prints each image's top class and "model_gears: ok" when the
 * first image gives the same logits in both gears.
 *   ge_example_acl_model_gears resnet50.gem     (written by ge_example_acl_save_resnet50) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK_RET(call)                                                           \
  do {                                                                            \
    aclError ret_ = (call);                                                       \
    if (ret_ != ACL_SUCCESS) {                                                    \
      fprintf(stderr, "%s failed: %d (%s)\n", #call, ret_, aclGetRecentErrMsg()); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

/* A dataset with one device buffer of `size` bytes per entry of `sizes`. */
static aclmdlDataset *make_dataset(const size_t *sizes, size_t n) {
  aclmdlDataset *d = aclmdlCreateDataset();
  for (size_t i = 0; d != NULL && i < n; ++i) {
    void *p = NULL;
    if (aclrtMalloc(&p, sizes[i], ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclmdlAddDatasetBuffer(d, aclCreateDataBuffer(p, sizes[i])) != ACL_SUCCESS)
      return NULL;
  }
  return d;
}

static void destroy_dataset(aclmdlDataset *d) {
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(d); ++i) {
    aclDataBuffer *b = aclmdlGetDatasetBuffer(d, i);
    aclrtFree(aclGetDataBufferAddr(b));
    aclDestroyDataBuffer(b);
  }
  aclmdlDestroyDataset(d);
}

/* Runs `batch` images (image i: pixels seeded by i) and copies image 0's logits out. */
static int run_batch(uint32_t id, aclmdlDesc *desc, size_t gear_input, uint64_t batch, float *first) {
  const size_t in_sizes[2] = {aclmdlGetInputSizeByIndex(desc, 0), aclmdlGetInputSizeByIndex(desc, gear_input)};
  const size_t out_sizes[1] = {aclmdlGetOutputSizeByIndex(desc, 0)};
  aclmdlDataset *in = make_dataset(in_sizes, 2), *out = make_dataset(out_sizes, 1);
  if (in == NULL || out == NULL) return 1;
  float *x = (float *)aclGetDataBufferAddr(aclmdlGetDatasetBuffer(in, 0));
  const size_t per_image = 3 * 224 * 224;
  for (size_t i = 0; i < batch * per_image; ++i) x[i] = (float)((i % per_image) * 7 % 255) / 255.0f - 0.5f;
  CHECK_RET(aclmdlSetDynamicBatchSize(id, in, gear_input, batch));
  CHECK_RET(aclmdlExecute(id, in, out));
  aclTensorDesc *y = aclmdlGetDatasetTensorDesc(out, 0);
  int64_t n = 0, classes = 0;
  CHECK_RET(aclGetTensorDescDimV2(y, 0, &n));
  CHECK_RET(aclGetTensorDescDimV2(y, 1, &classes));
  const float *logits = (const float *)aclGetDataBufferAddr(aclmdlGetDatasetBuffer(out, 0));
  printf("batch %llu: output [%lld, %lld]", (unsigned long long)batch, (long long)n, (long long)classes);
  for (int64_t b = 0; b < n; ++b) {
    int64_t top = 0;
    for (int64_t c = 1; c < classes; ++c)
      if (logits[b * classes + c] > logits[b * classes + top]) top = c;
    printf("%s image %lld: class %lld", b ? "," : ";", (long long)b, (long long)top);
  }
  printf("\n");
  memcpy(first, logits, (size_t)classes * sizeof(float));
  destroy_dataset(in);
  destroy_dataset(out);
  return n == (int64_t)batch ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "resnet50.gem";
  aclrtStream stream = NULL;
  uint32_t id = 0;
  CHECK_RET(aclInit(NULL));
  CHECK_RET(aclrtSetDevice(0));
  CHECK_RET(aclrtCreateStream(&stream));
  CHECK_RET(aclmdlLoadFromFile(path, &id));
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_RET(aclmdlGetDesc(desc, id));
  size_t gear_input = 0;
  CHECK_RET(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &gear_input));
  aclmdlBatch gears;
  CHECK_RET(aclmdlGetDynamicBatch(desc, &gears));
  printf("%s: %zu inputs, batch gears", path, aclmdlGetNumInputs(desc));
  for (size_t i = 0; i < gears.batchCount; ++i) printf(" %llu", (unsigned long long)gears.batch[i]);
  printf("\n");
  static float one[1000], four[1000];
  if (run_batch(id, desc, gear_input, 1, one) != 0 || run_batch(id, desc, gear_input, 4, four) != 0) return 1;
  /* The gears' kernels differ (per batch size), so their sums round differently: compare
   * relative to the largest logit. */
  float worst = 0, largest = 0;
  for (int c = 0; c < 1000; ++c) {
    worst = fmaxf(worst, fabsf(one[c] - four[c]));
    largest = fmaxf(largest, fabsf(one[c]));
  }
  worst /= largest > 0 ? largest : 1;
  printf("image 0: largest logit difference between batch 1 and batch 4: %g of the largest logit\n", (double)worst);
  aclmdlDestroyDesc(desc);
  CHECK_RET(aclmdlUnload(id));
  CHECK_RET(aclrtDestroyStream(stream));
  CHECK_RET(aclrtResetDevice(0));
  CHECK_RET(aclFinalize());
  if (worst > 1e-3f) return 1;
  printf("model_gears: ok\n");
  return 0;
}
