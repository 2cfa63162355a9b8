/* The model family: aclmdlLoadFromFile/LoadFromMem/Unload, descriptions, datasets, the
 * gear calls with the ACL_DYNAMIC_TENSOR_NAME input (batch, image size, dims), range
 * models through aclmdlSetDatasetTensorDesc, aclmdlExecute, and the documented errors.
 * argv[1]: the folder of model files tests/acl/make_models.cpp writes. */
#include <stdlib.h>

#include "check.h"

static char dir[1024];

static const char *path_of(const char *name) {
  static char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

static uint32_t load(const char *name) {
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(path_of(name), &id));
  return id;
}

/* A dataset of n host buffers of the given sizes (freed by free_dataset). */
static aclmdlDataset *dataset_of(size_t n, const size_t *sizes) {
  aclmdlDataset *d = aclmdlCreateDataset();
  for (size_t i = 0; i < n; ++i) {
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, sizes[i] ? sizes[i] : 1, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclmdlAddDatasetBuffer(d, aclCreateDataBuffer(p, sizes[i])));
  }
  return d;
}

static void free_dataset(aclmdlDataset *d) {
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(d); ++i) {
    aclDataBuffer *b = aclmdlGetDatasetBuffer(d, i);
    CHECK_OK(aclrtFree(aclGetDataBufferAddr(b)));
    CHECK_OK(aclDestroyDataBuffer(b));
  }
  CHECK_OK(aclmdlDestroyDataset(d));
}

static float *data_of(aclmdlDataset *d, size_t i) { return (float *)aclGetDataBufferAddr(aclmdlGetDatasetBuffer(d, i)); }

/* batch.gem: x f32[-1,3,2,2], y = channel sums (2 channels), z = 2x + 1; gears 1,2,4. */
static void test_batch_gears(void) {
  const uint32_t id = load("batch.gem");
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  CHECK(aclmdlGetNumInputs(desc) == 2); /* x and the gear input */
  CHECK(aclmdlGetNumOutputs(desc) == 2);
  CHECK(strcmp(aclmdlGetInputNameByIndex(desc, 0), "x") == 0);
  CHECK(strcmp(aclmdlGetInputNameByIndex(desc, 1), ACL_DYNAMIC_TENSOR_NAME) == 0);
  size_t gear_index = 99;
  CHECK_OK(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &gear_index));
  CHECK(gear_index == 1);
  CHECK_ACL(aclmdlGetInputIndexByName(desc, "nope", &gear_index), ACL_ERROR_INVALID_PARAM);
  CHECK(aclmdlGetInputSizeByIndex(desc, 0) == 4 * 3 * 2 * 2 * sizeof(float)); /* the largest gear */
  CHECK(aclmdlGetInputSizeByIndex(desc, 1) == sizeof(int64_t));
  CHECK(aclmdlGetOutputSizeByIndex(desc, 0) == 4 * 2 * 2 * 2 * sizeof(float));
  aclmdlIODims dims;
  CHECK_OK(aclmdlGetInputDims(desc, 0, &dims));
  CHECK(dims.dimCount == 4 && dims.dims[0] == -1 && dims.dims[1] == 3 && strcmp(dims.name, "x") == 0);
  aclmdlBatch batch;
  CHECK_OK(aclmdlGetDynamicBatch(desc, &batch));
  CHECK(batch.batchCount == 3 && batch.batch[0] == 1 && batch.batch[1] == 2 && batch.batch[2] == 4);
  aclmdlHW hw;
  CHECK_OK(aclmdlGetDynamicHW(desc, (size_t)-1, &hw));
  CHECK(hw.hwCount == 0);
  /* Before a run, the current output dims are the largest gear's. */
  CHECK_OK(aclmdlGetCurOutputDims(desc, 0, &dims));
  CHECK(dims.dimCount == 4 && dims.dims[0] == 4 && dims.dims[1] == 2);

  const size_t in_sizes[] = {aclmdlGetInputSizeByIndex(desc, 0), aclmdlGetInputSizeByIndex(desc, 1)};
  const size_t out_sizes[] = {aclmdlGetOutputSizeByIndex(desc, 0), aclmdlGetOutputSizeByIndex(desc, 1)};
  aclmdlDataset *in = dataset_of(2, in_sizes), *out = dataset_of(2, out_sizes);
  float *x = data_of(in, 0);
  for (int i = 0; i < 48; ++i) x[i] = (float)(i % 5) - 1.0f;
  /* Batch 2: the gear, then the run. */
  CHECK_OK(aclmdlSetDynamicBatchSize(id, in, gear_index, 2));
  CHECK(*(const int64_t *)aclGetDataBufferAddr(aclmdlGetDatasetBuffer(in, 1)) == 2);
  CHECK_OK(aclmdlExecute(id, in, out));
  aclTensorDesc *yd = aclmdlGetDatasetTensorDesc(out, 0);
  CHECK(yd != NULL && aclGetTensorDescNumDims(yd) == 4);
  int64_t d0 = 0, d1 = 0;
  CHECK_OK(aclGetTensorDescDimV2(yd, 0, &d0));
  CHECK_OK(aclGetTensorDescDimV2(yd, 1, &d1));
  CHECK(d0 == 2 && d1 == 2);
  const float *y = data_of(out, 0), *z = data_of(out, 1);
  for (int n = 0; n < 2; ++n)
    for (int m = 0; m < 2; ++m)
      for (int p = 0; p < 4; ++p) {
        float s = 0;
        for (int c = 0; c < 3; ++c) s += x[n * 12 + c * 4 + p];
        CHECK(y[n * 8 + m * 4 + p] == (s > 0 ? s : 0));
      }
  for (int i = 0; i < 24; ++i) CHECK(z[i] == 2 * x[i] + 1);
  CHECK_OK(aclmdlGetCurOutputDims(desc, 0, &dims));
  CHECK(dims.dims[0] == 2);
  /* Errors: a batch that is no gear, the wrong index, the wrong gear call, ranges. */
  CHECK_ACL(aclmdlSetDynamicBatchSize(id, in, gear_index, 3), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetDynamicBatchSize(id, in, 0, 2), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetDynamicHWSize(id, in, gear_index, 4, 4), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetDynamicBatchSize(id + 1000, in, gear_index, 2), ACL_ERROR_INVALID_MODEL_ID);
  const int64_t real[] = {2, 3, 2, 2};
  aclTensorDesc *rd = aclCreateTensorDesc(ACL_FLOAT, 4, real, ACL_FORMAT_NCHW);
  CHECK_ACL(aclmdlSetDatasetTensorDesc(in, rd, 0), ACL_ERROR_INVALID_PARAM); /* a gear is chosen */
  /* A fresh dataset without a gear runs the largest (batch 4). */
  aclmdlDataset *in4 = dataset_of(2, in_sizes);
  CHECK_OK(aclmdlExecute(id, in4, out));
  CHECK_OK(aclGetTensorDescDimV2(aclmdlGetDatasetTensorDesc(out, 0), 0, &d0));
  CHECK(d0 == 4);
  /* Buffers that disagree with the model. */
  aclmdlDataset *one = dataset_of(1, in_sizes);
  CHECK_ACL(aclmdlExecute(id, one, out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  const size_t small[] = {16, 16};
  aclmdlDataset *tiny_out = dataset_of(2, small), *tiny_in = dataset_of(2, small);
  CHECK_ACL(aclmdlExecute(id, in, tiny_out), ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
  CHECK_ACL(aclmdlExecute(id, tiny_in, out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  CHECK_ACL(aclmdlExecute(id, NULL, out), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(rd);
  free_dataset(one);
  free_dataset(tiny_out);
  free_dataset(tiny_in);
  free_dataset(in4);
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
  CHECK_ACL(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);
}

/* image.gem: img f32[1,2,-1,-1], gears 4x4 and 8x6. */
static void test_image_gears(void) {
  const uint32_t id = load("image.gem");
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  aclmdlHW hw;
  CHECK_OK(aclmdlGetDynamicHW(desc, (size_t)-1, &hw));
  CHECK(hw.hwCount == 2 && hw.hw[1][0] == 8 && hw.hw[1][1] == 6);
  const size_t in_sizes[] = {aclmdlGetInputSizeByIndex(desc, 0), aclmdlGetInputSizeByIndex(desc, 1)};
  const size_t out_sizes[] = {aclmdlGetOutputSizeByIndex(desc, 0)};
  CHECK(in_sizes[1] == 2 * sizeof(int64_t));
  aclmdlDataset *in = dataset_of(2, in_sizes), *out = dataset_of(1, out_sizes);
  float *x = data_of(in, 0);
  for (int i = 0; i < 32; ++i) x[i] = (float)i;
  CHECK_OK(aclmdlSetDynamicHWSize(id, in, 1, 4, 4));
  CHECK_OK(aclmdlExecute(id, in, out));
  const float *y = data_of(out, 0);
  for (int i = 0; i < 32; ++i) CHECK(y[i] == 2 * x[i] + 1);
  int64_t h = 0;
  CHECK_OK(aclGetTensorDescDimV2(aclmdlGetDatasetTensorDesc(out, 0), 2, &h));
  CHECK(h == 4);
  CHECK_ACL(aclmdlSetDynamicHWSize(id, in, 1, 6, 8), ACL_ERROR_INVALID_PARAM); /* 6x8 is no gear; 8x6 is */
  CHECK_ACL(aclmdlSetDynamicBatchSize(id, in, 1, 1), ACL_ERROR_INVALID_PARAM);
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
}

/* dims.gem: a f32[2,-1], b f32[-1]; gears 3,3 and 5,5; y = a + b. */
static void test_dims_gears(void) {
  const uint32_t id = load("dims.gem");
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  size_t count = 0;
  CHECK_OK(aclmdlGetInputDynamicGearCount(desc, (size_t)-1, &count));
  CHECK(count == 2);
  aclmdlIODims gears[2];
  CHECK_OK(aclmdlGetInputDynamicDims(desc, (size_t)-1, gears, 2));
  CHECK(gears[1].dimCount == 3 && gears[1].dims[0] == 2 && gears[1].dims[1] == 5 && gears[1].dims[2] == 5);
  CHECK_ACL(aclmdlGetInputDynamicDims(desc, (size_t)-1, gears, 1), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetInputDynamicDims(desc, 0, gears, 2), ACL_ERROR_INVALID_PARAM);  /* index must be -1 */
  CHECK_ACL(aclmdlGetInputDynamicGearCount(desc, 0, &count), ACL_ERROR_INVALID_PARAM);
  const size_t in_sizes[] = {aclmdlGetInputSizeByIndex(desc, 0), aclmdlGetInputSizeByIndex(desc, 1),
                             aclmdlGetInputSizeByIndex(desc, 2)};
  const size_t out_sizes[] = {aclmdlGetOutputSizeByIndex(desc, 0)};
  aclmdlDataset *in = dataset_of(3, in_sizes), *out = dataset_of(1, out_sizes);
  float *a = data_of(in, 0), *b = data_of(in, 1);
  for (int i = 0; i < 6; ++i) a[i] = (float)i;
  for (int i = 0; i < 3; ++i) b[i] = 100.0f * (float)i;
  CHECK_OK(aclmdlSetInputDynamicDims(id, in, 2, &gears[0]));
  CHECK_OK(aclmdlExecute(id, in, out));
  const float *y = data_of(out, 0);
  for (int i = 0; i < 6; ++i) CHECK(y[i] == a[i] + b[i % 3]);
  aclmdlIODims other = gears[0];
  other.dims[1] = 4;
  CHECK_ACL(aclmdlSetInputDynamicDims(id, in, 2, &other), ACL_ERROR_INVALID_PARAM);
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
}

/* hybrid_dims.gem: dims.gem in hybrid mode (ge.compileHybridMode=1): dims between the gears
 * (4,4) run on the range plan; dims outside the gears' hull are refused when set. */
static void test_hybrid_dims(void) {
  const uint32_t id = load("hybrid_dims.gem");
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  size_t count = 0;
  CHECK_OK(aclmdlGetInputDynamicGearCount(desc, (size_t)-1, &count));
  CHECK(count == 2); /* the gears; the range plan is no gear */
  aclmdlIODims gears[2];
  CHECK_OK(aclmdlGetInputDynamicDims(desc, (size_t)-1, gears, 2));
  const size_t in_sizes[] = {aclmdlGetInputSizeByIndex(desc, 0), aclmdlGetInputSizeByIndex(desc, 1),
                             aclmdlGetInputSizeByIndex(desc, 2)};
  const size_t out_sizes[] = {aclmdlGetOutputSizeByIndex(desc, 0)};
  aclmdlDataset *in = dataset_of(3, in_sizes), *out = dataset_of(1, out_sizes);
  float *a = data_of(in, 0), *b = data_of(in, 1);
  for (int i = 0; i < 8; ++i) a[i] = (float)i;
  for (int i = 0; i < 4; ++i) b[i] = 100.0f * (float)i;
  aclmdlIODims between = gears[0];
  between.dims[1] = 4;
  between.dims[2] = 4;
  CHECK_OK(aclmdlSetInputDynamicDims(id, in, 2, &between));
  CHECK_OK(aclmdlExecute(id, in, out));
  const float *y = data_of(out, 0);
  for (int i = 0; i < 8; ++i) CHECK(y[i] == a[i] + b[i % 4]);
  aclTensorDesc *yd = aclmdlGetDatasetTensorDesc(out, 0);
  CHECK(yd != NULL && aclGetTensorDescNumDims(yd) == 2 && aclGetTensorDescDim(yd, 1) == 4);
  /* A gear still runs its own plan. */
  CHECK_OK(aclmdlSetInputDynamicDims(id, in, 2, &gears[1]));
  CHECK_OK(aclmdlExecute(id, in, out));
  /* Outside the hull of the gears (3~5): refused when set. */
  aclmdlIODims outside = gears[0];
  outside.dims[1] = 6;
  outside.dims[2] = 6;
  CHECK_ACL(aclmdlSetInputDynamicDims(id, in, 2, &outside), ACL_ERROR_INVALID_PARAM);
  /* a's fixed dim is 2, not 3. */
  aclmdlIODims wrong = between;
  wrong.dims[0] = 3;
  CHECK_ACL(aclmdlSetInputDynamicDims(id, in, 2, &wrong), ACL_ERROR_INVALID_PARAM);
  /* Inside the hull, but a + b cannot broadcast [2,4] with [5]: the run says so. */
  aclmdlIODims clash = gears[0];
  clash.dims[1] = 4;
  clash.dims[2] = 5;
  CHECK_OK(aclmdlSetInputDynamicDims(id, in, 2, &clash));
  CHECK(aclmdlExecute(id, in, out) != ACL_SUCCESS);
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
}

/* range.gem: x f32[1~8,4], y = 2x + 1: the real input description per run. */
static void test_range(void) {
  const uint32_t id = load("range.gem");
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  CHECK(aclmdlGetNumInputs(desc) == 1);
  aclmdlIODimsRange range;
  CHECK_OK(aclmdlGetInputDimsRange(desc, 0, &range));
  CHECK(range.rangeCount == 2 && range.range[0][0] == 1 && range.range[0][1] == 8 && range.range[1][0] == 4);
  const size_t in_sizes[] = {aclmdlGetInputSizeByIndex(desc, 0)};
  const size_t out_sizes[] = {aclmdlGetOutputSizeByIndex(desc, 0)};
  CHECK(in_sizes[0] == 8 * 4 * sizeof(float));
  aclmdlDataset *in = dataset_of(1, in_sizes), *out = dataset_of(1, out_sizes);
  float *x = data_of(in, 0);
  for (int i = 0; i < 12; ++i) x[i] = (float)i;
  CHECK_ACL(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM); /* no real description yet */
  const int64_t real[] = {3, 4};
  aclTensorDesc *rd = aclCreateTensorDesc(ACL_FLOAT, 2, real, ACL_FORMAT_ND);
  CHECK_OK(aclmdlSetDatasetTensorDesc(in, rd, 0));
  CHECK_OK(aclmdlExecute(id, in, out));
  aclTensorDesc *yd = aclmdlGetDatasetTensorDesc(out, 0);
  int64_t rows = 0;
  CHECK_OK(aclGetTensorDescDimV2(yd, 0, &rows));
  CHECK(rows == 3 && aclGetTensorDescSize(yd) == 12 * sizeof(float));
  const float *y = data_of(out, 0);
  for (int i = 0; i < 12; ++i) CHECK(y[i] == 2 * x[i] + 1);
  CHECK_ACL(aclmdlSetDynamicBatchSize(id, in, 1, 2), ACL_ERROR_MODEL_NOT_DYNAMIC);
  const int64_t too_many[] = {9, 4};
  aclTensorDesc *big = aclCreateTensorDesc(ACL_FLOAT, 2, too_many, ACL_FORMAT_ND);
  CHECK_OK(aclmdlSetDatasetTensorDesc(in, big, 0));
  CHECK(aclmdlExecute(id, in, out) != ACL_SUCCESS); /* outside 1~8 */
  aclDestroyTensorDesc(rd);
  aclDestroyTensorDesc(big);
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
}

/* Files: from memory, missing, corrupted, truncated; fixed models have no gears. */
static void test_files(void) {
  FILE *f = fopen(path_of("fixed.gem"), "rb");
  CHECK(f != NULL);
  if (f == NULL) return;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = (unsigned char *)malloc((size_t)n);
  CHECK(fread(bytes, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromMem(bytes, (size_t)n, &id));
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  aclmdlBatch batch;
  CHECK_OK(aclmdlGetDynamicBatch(desc, &batch));
  CHECK(batch.batchCount == 0);
  CHECK(aclmdlGetNumInputs(desc) == 1);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
  CHECK_ACL(aclmdlLoadFromFile(path_of("missing.gem"), &id), ACL_ERROR_INVALID_FILE);
  CHECK_ACL(aclmdlLoadFromMem(bytes, (size_t)n / 2, &id), ACL_ERROR_PARSE_MODEL); /* truncated */
  bytes[n - 3] ^= 0x40;
  CHECK_ACL(aclmdlLoadFromMem(bytes, (size_t)n, &id), ACL_ERROR_PARSE_MODEL); /* corrupted */
  CHECK_ACL(aclmdlLoadFromMem(NULL, 10, &id), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadFromMem(bytes, 0, &id), ACL_ERROR_INVALID_PARAM);
  aclmdlDataset *ds = aclmdlCreateDataset();
  const int64_t d2[] = {2, 3};
  aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 2, d2, ACL_FORMAT_ND);
  CHECK_ACL(aclmdlSetDatasetTensorDesc(ds, td, (size_t)1 << 40), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetDatasetTensorDesc(ds, NULL, 0), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(td);
  CHECK_OK(aclmdlDestroyDataset(ds));
  CHECK_ACL(aclmdlLoadFromFile(path_of("fixed.gem"), NULL), ACL_ERROR_INVALID_PARAM);
  CHECK(aclmdlGetNumInputs(NULL) == 0);
  free(bytes);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ge_acl_mdl_test MODEL_DIR\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s", argv[1]);
  uint32_t id = 0;
  CHECK_ACL(aclmdlLoadFromFile(path_of("batch.gem"), &id), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  test_batch_gears();
  test_image_gears();
  test_dims_gears();
  test_hybrid_dims();
  test_range();
  test_files();
  /* aclFinalize unloads what is still loaded. */
  const uint32_t left = load("fixed.gem");
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  CHECK_OK(aclInit(NULL));
  CHECK_ACL(aclmdlUnload(left), ACL_ERROR_INVALID_MODEL_ID);
  CHECK_OK(aclFinalize());
  return check_report("acl.mdl");
}
