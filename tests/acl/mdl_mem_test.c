/* Models with the caller's memory, as GE's samples load them: aclmdlQuerySize, then
 * aclrtMalloc of the work and weight memory, aclmdlLoadFromFileWithMem (and
 * ...FromMemWithMem), the three gear kinds and a range model run through it; the sizes
 * and the values checked against ge's C++ API (the NAME.sizes and conv.expected files
 * tests/acl/make_models.cpp writes), the memory shown to be the one used; the
 * description getters; aclmdlExecuteAsync; every bad call's code.
 * argv[1]: the folder of model files. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

static char dir[1024];

static const char *path_of(const char *name) {
  static char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

/* The sizes ge's C++ API gives for NAME.gem: arena bytes and weights bytes. */
static void cpp_sizes(const char *name, size_t *work, size_t *weight) {
  char file[64];
  snprintf(file, sizeof file, "%s.sizes", name);
  FILE *f = fopen(path_of(file), "r");
  unsigned long long a = 0, b = 0;
  CHECK(f != NULL && fscanf(f, "%llu %llu", &a, &b) == 2);
  if (f) fclose(f);
  *work = (size_t)a;
  *weight = (size_t)b;
}

/* What the queries report for a C++ size: whole 64-byte blocks, at least one. */
static size_t query_size(size_t bytes) { return bytes == 0 ? 64 : (bytes + 63) / 64 * 64; }

static unsigned char *read_file(const char *name, size_t *n) {
  FILE *f = fopen(path_of(name), "rb");
  CHECK(f != NULL);
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = (unsigned char *)malloc(*n);
  CHECK(fread(bytes, 1, *n, f) == *n);
  fclose(f);
  return bytes;
}

/* A model loaded the way the samples do: query, malloc, load with the memory. */
typedef struct {
  uint32_t id;
  void *work, *weight;
  size_t workSize, weightSize;
  aclmdlDesc *desc;
} Model;

static int load_with_mem(Model *m, const char *name) {
  memset(m, 0, sizeof *m);
  char file[64];
  snprintf(file, sizeof file, "%s.gem", name);
  if (aclmdlQuerySize(path_of(file), &m->workSize, &m->weightSize) != ACL_SUCCESS) return 0;
  size_t work = 0, weight = 0;
  cpp_sizes(name, &work, &weight);
  CHECK(m->workSize == query_size(work));
  CHECK(m->weightSize == query_size(weight));
  CHECK_OK(aclrtMalloc(&m->work, m->workSize, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&m->weight, m->weightSize, ACL_MEM_MALLOC_HUGE_FIRST));
  memset(m->work, 0xAB, m->workSize);
  memset(m->weight, 0xAB, m->weightSize);
  CHECK_OK(aclmdlLoadFromFileWithMem(path_of(file), &m->id, m->work, m->workSize, m->weight, m->weightSize));
  m->desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(m->desc, m->id));
  return 1;
}

static void unload(Model *m) {
  CHECK_OK(aclmdlUnload(m->id));
  CHECK_ACL(aclmdlUnload(m->id), ACL_ERROR_INVALID_MODEL_ID);
  CHECK_OK(aclmdlDestroyDesc(m->desc));
  CHECK_OK(aclrtFree(m->work));
  CHECK_OK(aclrtFree(m->weight));
}

/* Bytes of p[0..n) that no longer hold the 0xAB the test filled them with. */
static size_t touched(const void *p, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) k += ((const unsigned char *)p)[i] != 0xAB;
  return k;
}

/* Input and output datasets sized from the description, as the samples size them. */
static aclmdlDataset *inputs_of(aclmdlDesc *desc) {
  aclmdlDataset *d = aclmdlCreateDataset();
  for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
    const size_t n = aclmdlGetInputSizeByIndex(desc, i);
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(p, 0, n);
    CHECK_OK(aclmdlAddDatasetBuffer(d, aclCreateDataBuffer(p, n)));
  }
  return d;
}

/* Output buffers sized from aclmdlGetOutputDims (a gear model's: the largest gear's) and
 * the type, as msame sizes them; where a dim varies (ranges), aclmdlGetOutputSizeByIndex. */
static aclmdlDataset *outputs_of(aclmdlDesc *desc) {
  aclmdlDataset *d = aclmdlCreateDataset();
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    aclmdlIODims dims;
    CHECK_OK(aclmdlGetOutputDims(desc, i, &dims));
    size_t n = aclDataTypeSize(aclmdlGetOutputDataType(desc, i));
    int varies = 0;
    for (size_t k = 0; k < dims.dimCount; ++k) {
      varies = varies || dims.dims[k] < 0;
      n *= dims.dims[k] < 0 ? 1 : (size_t)dims.dims[k];
    }
    if (varies) n = aclmdlGetOutputSizeByIndex(desc, i);
    CHECK(n == aclmdlGetOutputSizeByIndex(desc, i));
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, n, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK_OK(aclmdlAddDatasetBuffer(d, aclCreateDataBuffer(p, n)));
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

/* conv.gem: the work memory holds the run's values, the weight memory the weights the
 * run reads; the outputs equal ge::Session's (conv.expected). */
static void test_conv(void) {
  Model m;
  CHECK(load_with_mem(&m, "conv"));
  CHECK(m.workSize > 0 && m.weightSize > 0);
  CHECK(touched(m.weight, m.weightSize) > 0); /* the weights were copied there */
  CHECK(touched(m.work, m.workSize) == 0);    /* nothing ran yet */
  CHECK(aclmdlGetNumInputs(m.desc) == 1 && aclmdlGetNumOutputs(m.desc) == 1);
  CHECK(aclmdlGetInputDataType(m.desc, 0) == ACL_FLOAT && aclmdlGetOutputDataType(m.desc, 0) == ACL_FLOAT);
  CHECK(aclmdlGetInputFormat(m.desc, 0) == ACL_FORMAT_NCHW);
  CHECK(strcmp(aclmdlGetOutputNameByIndex(m.desc, 0), "y") == 0);
  size_t index = 9;
  CHECK_OK(aclmdlGetOutputIndexByName(m.desc, "y", &index));
  CHECK(index == 0);
  CHECK_ACL(aclmdlGetOutputIndexByName(m.desc, "z", &index), ACL_ERROR_INVALID_PARAM);
  aclmdlIODims dims, dims2;
  CHECK_OK(aclmdlGetInputDims(m.desc, 0, &dims));
  CHECK_OK(aclmdlGetInputDimsV2(m.desc, 0, &dims2));
  CHECK(dims.dimCount == 4 && dims.dims[1] == 3 && dims2.dimCount == 4 && strcmp(dims.name, dims2.name) == 0 &&
        memcmp(dims.dims, dims2.dims, 4 * sizeof(int64_t)) == 0);
  CHECK_OK(aclmdlGetOutputDims(m.desc, 0, &dims));
  CHECK(dims.dimCount == 4 && dims.dims[0] == 2 && dims.dims[1] == 5 && dims.dims[3] == 4);

  aclmdlDataset *in = inputs_of(m.desc), *out = outputs_of(m.desc);
  float *x = data_of(in, 0);
  for (int i = 0; i < 96; ++i) x[i] = (float)(i % 7) * 0.5f - 1.5f;
  size_t n = 0;
  float *want = (float *)read_file("conv.expected", &n);
  CHECK(n == 2 * 5 * 4 * 4 * sizeof(float));
  aclrtStream stream = NULL;
  CHECK_OK(aclrtCreateStream(&stream));
  CHECK_OK(aclmdlExecuteAsync(m.id, in, out, stream));
  CHECK_OK(aclrtSynchronizeStream(stream));
  if (want) CHECK(close_floats(data_of(out, 0), want, 160));
  CHECK(touched(m.work, m.workSize) > 0); /* the run's values lived there */
  CHECK_OK(aclmdlExecute(m.id, in, out)); /* and again, synchronously, on the default stream too */
  CHECK_OK(aclmdlExecuteAsync(m.id, in, out, NULL));
  if (want) CHECK(close_floats(data_of(out, 0), want, 160));
  /* The run reads the weights from the caller's memory: zeroed, the conv gives 0 and y the bias. */
  memset(m.weight, 0, m.weightSize);
  CHECK_OK(aclmdlExecute(m.id, in, out));
  int same = 1;
  const float *y = data_of(out, 0);
  for (int c = 0; c < 5; ++c)
    for (int p = 1; p < 16; ++p) same = same && y[c * 16 + p] == y[c * 16];
  CHECK(same && y[0] == 0.0f); /* bias zeroed too: every value 0 */
  CHECK_ACL(aclmdlExecuteAsync(m.id, NULL, out, stream), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyStream(stream));
  CHECK_ACL(aclmdlExecuteAsync(m.id, in, out, stream), ACL_ERROR_INVALID_PARAM); /* destroyed */
  free(want);
  free_dataset(in);
  free_dataset(out);
  unload(&m);
  CHECK_ACL(aclmdlExecuteAsync(m.id, in, out, NULL), ACL_ERROR_INVALID_MODEL_ID);
}

/* The three gear kinds through the caller's memory, each gear's values checked. */
static void test_gears(void) {
  Model m;
  /* batch.gem: z = 2x + 1, y = relu(channel sums) twice; gears 1, 2, 4. */
  CHECK(load_with_mem(&m, "batch"));
  aclmdlIODims dims;
  CHECK_OK(aclmdlGetInputDims(m.desc, 0, &dims));
  CHECK(dims.dims[0] == -1); /* the batch dim varies */
  CHECK_OK(aclmdlGetOutputDims(m.desc, 0, &dims));
  CHECK(dims.dimCount == 4 && dims.dims[0] == 4 && dims.dims[1] == 2 && dims.dims[2] == 2); /* the largest gear */
  CHECK(aclmdlGetInputDataType(m.desc, 1) == ACL_INT64 && aclmdlGetInputFormat(m.desc, 1) == ACL_FORMAT_ND);
  size_t gear = 0;
  CHECK_OK(aclmdlGetInputIndexByName(m.desc, ACL_DYNAMIC_TENSOR_NAME, &gear));
  aclmdlDataset *in = inputs_of(m.desc), *out = outputs_of(m.desc);
  float *x = data_of(in, 0);
  const uint64_t batches[] = {1, 2, 4};
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 48; ++i) x[i] = (float)((i * (k + 3)) % 11) - 4.0f;
    CHECK_OK(aclmdlSetDynamicBatchSize(m.id, in, gear, batches[k]));
    CHECK_OK(aclmdlExecute(m.id, in, out));
    const float *z = data_of(out, 1);
    for (int i = 0; i < (int)batches[k] * 12; ++i) CHECK(z[i] == 2 * x[i] + 1);
    CHECK_OK(aclmdlGetCurOutputDims(m.desc, 1, &dims));
    CHECK(dims.dims[0] == (int64_t)batches[k]);
  }
  CHECK(touched(m.work, m.workSize) > 0);
  free_dataset(in);
  free_dataset(out);
  unload(&m);

  /* image.gem: y = 2 img + 1; gears 4x4, 8x6. */
  CHECK(load_with_mem(&m, "image"));
  CHECK_OK(aclmdlGetOutputDims(m.desc, 0, &dims));
  CHECK(dims.dimCount == 4 && dims.dims[2] == 8 && dims.dims[3] == 6);
  in = inputs_of(m.desc);
  out = outputs_of(m.desc);
  x = data_of(in, 0);
  for (int i = 0; i < 96; ++i) x[i] = (float)i * 0.25f;
  CHECK_OK(aclmdlSetDynamicHWSize(m.id, in, 1, 8, 6));
  CHECK_OK(aclmdlExecute(m.id, in, out));
  for (int i = 0; i < 96; ++i) CHECK(data_of(out, 0)[i] == 2 * x[i] + 1);
  CHECK_OK(aclmdlSetDynamicHWSize(m.id, in, 1, 4, 4));
  CHECK_OK(aclmdlExecute(m.id, in, out));
  for (int i = 0; i < 32; ++i) CHECK(data_of(out, 0)[i] == 2 * x[i] + 1);
  free_dataset(in);
  free_dataset(out);
  unload(&m);

  /* dims.gem: y = a + b; gears (3,3) and (5,5). */
  CHECK(load_with_mem(&m, "dims"));
  CHECK_OK(aclmdlGetOutputDims(m.desc, 0, &dims));
  CHECK(dims.dimCount == 2 && dims.dims[0] == 2 && dims.dims[1] == 5);
  size_t count = 0;
  CHECK_OK(aclmdlGetInputDynamicGearCount(m.desc, (size_t)-1, &count));
  CHECK(count == 2);
  aclmdlIODims gears[2];
  CHECK_OK(aclmdlGetInputDynamicDims(m.desc, (size_t)-1, gears, count));
  in = inputs_of(m.desc);
  out = outputs_of(m.desc);
  float *a = data_of(in, 0), *b = data_of(in, 1);
  for (int i = 0; i < 10; ++i) a[i] = (float)i;
  for (int i = 0; i < 5; ++i) b[i] = 10.0f * (float)i;
  CHECK_OK(aclmdlSetInputDynamicDims(m.id, in, 2, &gears[1]));
  CHECK_OK(aclmdlExecute(m.id, in, out));
  for (int i = 0; i < 10; ++i) CHECK(data_of(out, 0)[i] == a[i] + b[i % 5]);
  free_dataset(in);
  free_dataset(out);
  unload(&m);
}

/* range.gem through aclmdlLoadFromMemWithMem: the real descriptions per run. */
static void test_range_from_mem(void) {
  size_t n = 0;
  unsigned char *bytes = read_file("range.gem", &n);
  if (bytes == NULL) return;
  size_t work = 0, weight = 0, cwork = 0, cweight = 0;
  CHECK_OK(aclmdlQuerySizeFromMem(bytes, n, &work, &weight));
  cpp_sizes("range", &cwork, &cweight);
  CHECK(work == query_size(cwork) && weight == query_size(cweight));
  void *wp = NULL, *gp = NULL;
  CHECK_OK(aclrtMalloc(&wp, work, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&gp, weight, ACL_MEM_MALLOC_HUGE_FIRST));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromMemWithMem(bytes, n, &id, wp, work, gp, weight));
  memset(bytes, 0, n); /* the model keeps no view of the caller's file bytes */
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  aclmdlIODims dims;
  CHECK_OK(aclmdlGetOutputDims(desc, 0, &dims));
  CHECK(dims.dimCount == 2 && dims.dims[0] == -1 && dims.dims[1] == 4);
  aclmdlDataset *in = inputs_of(desc), *out = outputs_of(desc);
  float *x = data_of(in, 0);
  for (int rows = 1; rows <= 8; rows += 3) {
    for (int i = 0; i < rows * 4; ++i) x[i] = (float)(i * rows) - 7.0f;
    const int64_t real[] = {rows, 4};
    aclTensorDesc *rd = aclCreateTensorDesc(ACL_FLOAT, 2, real, ACL_FORMAT_ND);
    CHECK_OK(aclmdlSetDatasetTensorDesc(in, rd, 0));
    CHECK_OK(aclmdlExecute(id, in, out));
    aclTensorDesc *yd = aclmdlGetDatasetTensorDesc(out, 0);
    int64_t r0 = 0;
    CHECK_OK(aclGetTensorDescDimV2(yd, 0, &r0));
    CHECK(r0 == rows);
    for (int i = 0; i < rows * 4; ++i) CHECK(data_of(out, 0)[i] == 2 * x[i] + 1);
    aclDestroyTensorDesc(rd);
  }
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclrtFree(wp));
  CHECK_OK(aclrtFree(gp));
  free(bytes);
}

/* Descriptions of files not loaded; memory ge manages when a pointer is null. */
static void test_desc_and_null_memory(void) {
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDescFromFile(desc, path_of("batch.gem")));
  CHECK(aclmdlGetNumInputs(desc) == 2 && aclmdlGetNumOutputs(desc) == 2);
  aclmdlBatch batch;
  CHECK_OK(aclmdlGetDynamicBatch(desc, &batch));
  CHECK(batch.batchCount == 3 && batch.batch[2] == 4);
  CHECK_ACL(aclmdlGetDescFromFile(desc, path_of("missing.gem")), ACL_ERROR_INVALID_FILE);
  CHECK_ACL(aclmdlGetDescFromFile(NULL, path_of("batch.gem")), ACL_ERROR_INVALID_PARAM);
  size_t n = 0;
  unsigned char *bytes = read_file("fixed.gem", &n);
  CHECK_OK(aclmdlGetDescFromMem(desc, bytes, n));
  CHECK(aclmdlGetNumInputs(desc) == 1 && strcmp(aclmdlGetInputNameByIndex(desc, 0), "x") == 0);
  CHECK_OK(aclmdlDestroyDesc(desc));

  /* Null work memory: ge's own arena; null weight memory: the file's. */
  size_t work = 0, weight = 0;
  CHECK_OK(aclmdlQuerySize(path_of("conv.gem"), &work, &weight));
  void *wp = NULL;
  CHECK_OK(aclrtMalloc(&wp, weight, ACL_MEM_MALLOC_HUGE_FIRST));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFileWithMem(path_of("conv.gem"), &id, NULL, 0, wp, weight));
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclmdlLoadFromFileWithMem(path_of("conv.gem"), &id, NULL, 0, NULL, 0));
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclrtFree(wp));
  free(bytes);
}

/* aclmdlLoadWithConfig: the same loads described by a config handle; AIPP type and real names. */
static void test_config(void) {
  size_t work = 0, weight = 0;
  CHECK_OK(aclmdlQuerySize(path_of("conv.gem"), &work, &weight));
  void *wp = NULL, *gp = NULL;
  CHECK_OK(aclrtMalloc(&wp, work, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&gp, weight, ACL_MEM_MALLOC_HUGE_FIRST));
  memset(wp, 0xAB, work);
  memset(gp, 0xAB, weight);
  aclmdlConfigHandle *h = aclmdlCreateConfigHandle();
  CHECK(h != NULL);
  uint32_t id = 0;
  CHECK_ACL(aclmdlLoadWithConfig(h, &id), ACL_ERROR_INVALID_PARAM); /* no load type yet */
  size_t type = ACL_MDL_LOAD_FROM_FILE_WITH_MEM;
  const char *path = path_of("conv.gem");
  int32_t priority = 1;
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof(type)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_PATH_PTR, &path, sizeof(path)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WORKSPACE_ADDR_PTR, &wp, sizeof(wp)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WORKSPACE_SIZET, &work, sizeof(work)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WEIGHT_ADDR_PTR, &gp, sizeof(gp)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_WEIGHT_SIZET, &weight, sizeof(weight)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_PRIORITY_INT32, &priority, sizeof(priority)));
  CHECK_ACL(aclmdlSetConfigOpt(h, ACL_MDL_WEIGHT_SIZET, &priority, sizeof(priority)), ACL_ERROR_INVALID_PARAM); /* size */
  CHECK_ACL(aclmdlSetConfigOpt(h, ACL_MDL_INPUTQ_NUM_SIZET, &work, sizeof(work)), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(aclmdlSetConfigOpt(h, (aclmdlConfigAttr)777, &work, sizeof(work)), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetConfigOpt(h, ACL_MDL_PATH_PTR, NULL, sizeof(path)), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetConfigOpt(NULL, ACL_MDL_PATH_PTR, &path, sizeof(path)), ACL_ERROR_INVALID_PARAM);
  size_t queues = ACL_MDL_LOAD_FROM_FILE_WITH_Q, bad = 9;
  CHECK_ACL(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &queues, sizeof(queues)), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &bad, sizeof(bad)), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlLoadWithConfig(h, &id));
  CHECK(touched(gp, weight) > 0);
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  aclmdlDataset *in = inputs_of(desc), *out = outputs_of(desc);
  float *x = data_of(in, 0);
  for (int i = 0; i < 96; ++i) x[i] = (float)(i % 7) * 0.5f - 1.5f;
  CHECK_OK(aclmdlExecute(id, in, out));
  CHECK(touched(wp, work) > 0);
  size_t n = 0;
  float *want = (float *)read_file("conv.expected", &n);
  if (want) CHECK(close_floats(data_of(out, 0), want, 160));
  aclmdlInputAippType aipp = ACL_DYNAMIC_AIPP_NODE;
  size_t attached = 0;
  CHECK_OK(aclmdlGetAippType(id, 0, &aipp, &attached));
  CHECK(aipp == ACL_DATA_WITHOUT_AIPP && attached == ACL_INVALID_NODE_INDEX);
  CHECK_ACL(aclmdlGetAippType(id, 1, &aipp, &attached), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetAippType(id, 0, NULL, &attached), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetAippType(id + 999, 0, &aipp, &attached), ACL_ERROR_INVALID_MODEL_ID);
  CHECK(strcmp(aclmdlGetTensorRealName(desc, "y"), "y") == 0);
  CHECK(strcmp(aclmdlGetTensorRealName(desc, "x"), "x") == 0);
  CHECK(aclmdlGetTensorRealName(desc, "nope") == NULL);
  free(want);
  free_dataset(in);
  free_dataset(out);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
  /* From memory, ge's memory. */
  unsigned char *bytes = read_file("conv.gem", &n);
  const void *model = bytes;
  type = ACL_MDL_LOAD_FROM_MEM;
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof(type)));
  CHECK_ACL(aclmdlLoadWithConfig(h, &id), ACL_ERROR_INVALID_PARAM); /* no model memory set */
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_MEM_ADDR_PTR, &model, sizeof(model)));
  CHECK_OK(aclmdlSetConfigOpt(h, ACL_MDL_MEM_SIZET, &n, sizeof(n)));
  CHECK_OK(aclmdlLoadWithConfig(h, &id));
  CHECK_OK(aclmdlUnload(id));
  CHECK_ACL(aclmdlLoadWithConfig(NULL, &id), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadWithConfig(h, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlDestroyConfigHandle(h));
  CHECK_ACL(aclmdlDestroyConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtFree(wp));
  CHECK_OK(aclrtFree(gp));
  free(bytes);
}

/* As GE allows: models run one after another share one work memory (sized for the
 * largest), and two loads of one model share its weight memory. */
static void test_shared_memory(void) {
  size_t cw = 0, cg = 0, bw = 0, bg = 0;
  CHECK_OK(aclmdlQuerySize(path_of("conv.gem"), &cw, &cg));
  CHECK_OK(aclmdlQuerySize(path_of("batch.gem"), &bw, &bg));
  const size_t work = cw > bw ? cw : bw;
  void *wp = NULL, *gp = NULL;
  CHECK_OK(aclrtMalloc(&wp, work, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&gp, cg, ACL_MEM_MALLOC_HUGE_FIRST));
  uint32_t conv1 = 0, conv2 = 0, batch = 0;
  CHECK_OK(aclmdlLoadFromFileWithMem(path_of("conv.gem"), &conv1, wp, work, gp, cg));
  CHECK_OK(aclmdlLoadFromFileWithMem(path_of("conv.gem"), &conv2, wp, work, gp, cg));
  CHECK_OK(aclmdlLoadFromFileWithMem(path_of("batch.gem"), &batch, wp, work, NULL, 0));
  aclmdlDesc *cd = aclmdlCreateDesc(), *bd = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(cd, conv1));
  CHECK_OK(aclmdlGetDesc(bd, batch));
  aclmdlDataset *cin = inputs_of(cd), *cout = outputs_of(cd), *bin = inputs_of(bd), *bout = outputs_of(bd);
  float *x = data_of(cin, 0), *bx = data_of(bin, 0);
  for (int i = 0; i < 96; ++i) x[i] = (float)(i % 7) * 0.5f - 1.5f;
  for (int i = 0; i < 48; ++i) bx[i] = (float)(i % 9) - 3.0f;
  size_t n = 0;
  float *want = (float *)read_file("conv.expected", &n);
  for (int round = 0; round < 3; ++round) {
    CHECK_OK(aclmdlExecute(round % 2 ? conv2 : conv1, cin, cout));
    if (want) CHECK(close_floats(data_of(cout, 0), want, 160));
    CHECK_OK(aclmdlExecute(batch, bin, bout)); /* the largest gear */
    for (int i = 0; i < 48; ++i) CHECK(data_of(bout, 1)[i] == 2 * bx[i] + 1);
  }
  free(want);
  free_dataset(cin);
  free_dataset(cout);
  free_dataset(bin);
  free_dataset(bout);
  CHECK_OK(aclmdlDestroyDesc(cd));
  CHECK_OK(aclmdlDestroyDesc(bd));
  CHECK_OK(aclmdlUnload(conv1));
  CHECK_OK(aclmdlUnload(conv2));
  CHECK_OK(aclmdlUnload(batch));
  CHECK_OK(aclrtFree(wp));
  CHECK_OK(aclrtFree(gp));
}

/* Dynamic AIPP: the parameter set is kept and checked; no ge model input takes it. */
static void test_aipp(void) {
  CHECK(aclmdlCreateAIPP(0) == NULL);
  aclmdlAIPP *a = aclmdlCreateAIPP(2);
  CHECK(a != NULL);
  CHECK_OK(aclmdlSetAIPPInputFormat(a, ACL_YUV420SP_U8));
  CHECK_ACL(aclmdlSetAIPPInputFormat(a, (aclAippInputFormat)99), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlSetAIPPCscParams(a, 1, 256, 0, 359, 256, -88, -183, 256, 454, 0, 0, 0, 0, 0, 128, 128));
  CHECK_ACL(aclmdlSetAIPPCscParams(a, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlSetAIPPRbuvSwapSwitch(a, 0));
  CHECK_OK(aclmdlSetAIPPAxSwapSwitch(a, 1));
  CHECK_OK(aclmdlSetAIPPSrcImageSize(a, 224, 224));
  CHECK_ACL(aclmdlSetAIPPSrcImageSize(a, 0, 224), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlSetAIPPCropParams(a, 1, 0, 0, 200, 200, 1));
  CHECK_ACL(aclmdlSetAIPPCropParams(a, 1, 0, 0, 200, 200, 2), ACL_ERROR_INVALID_PARAM); /* batchIndex 2 of 2 */
  CHECK_OK(aclmdlSetAIPPScfParams(a, 0, 224, 224, 112, 112, 0));
  CHECK_OK(aclmdlSetAIPPPaddingParams(a, 1, 1, 1, 1, 1, 0));
  CHECK_ACL(aclmdlSetAIPPPaddingParams(a, 1, -1, 1, 1, 1, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlSetAIPPDtcPixelMean(a, 104, 117, 123, 0, 0));
  CHECK_OK(aclmdlSetAIPPDtcPixelMin(a, 0.0f, 0.0f, 0.0f, 0.0f, 1));
  CHECK_OK(aclmdlSetAIPPPixelVarReci(a, 1.0f, 1.0f, 1.0f, 1.0f, 1));
  CHECK_ACL(aclmdlSetAIPPPixelVarReci(NULL, 1.0f, 1.0f, 1.0f, 1.0f, 0), ACL_ERROR_INVALID_PARAM);
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(path_of("conv.gem"), &id));
  aclmdlDataset *ds = aclmdlCreateDataset();
  CHECK_ACL(aclmdlSetInputAIPP(id, ds, 0, a), ACL_ERROR_INVALID_PARAM); /* input 0 has no dynamic AIPP */
  CHECK_ACL(aclmdlSetAIPPByInputIndex(id, ds, 0, a), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetAIPPByInputIndex(id, ds, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetInputAIPP(id + 999, ds, 0, a), ACL_ERROR_INVALID_MODEL_ID);
  CHECK_OK(aclmdlDestroyDataset(ds));
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclmdlDestroyAIPP(a));
  CHECK_ACL(aclmdlDestroyAIPP(NULL), ACL_ERROR_INVALID_PARAM);
}

/* Every bad call's code. */
static void test_errors(void) {
  size_t work = 0, weight = 0;
  const char *conv = "conv.gem";
  CHECK_OK(aclmdlQuerySize(path_of(conv), &work, &weight));
  CHECK_ACL(aclmdlQuerySize(NULL, &work, &weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlQuerySize(path_of(conv), NULL, &weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlQuerySize(path_of(conv), &work, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlQuerySize(path_of("missing.gem"), &work, &weight), ACL_ERROR_INVALID_FILE);
  CHECK_ACL(aclmdlQuerySize(path_of("conv.sizes"), &work, &weight), ACL_ERROR_PARSE_MODEL); /* not a model */
  CHECK_ACL(aclmdlQuerySizeFromMem(NULL, 10, &work, &weight), ACL_ERROR_INVALID_PARAM);
  /* A model whose dims have no upper bound has no fixed work size. */
  size_t ow = 0, og = 0;
  CHECK_ACL(aclmdlQuerySize(path_of("open.gem"), &ow, &og), ACL_ERROR_FEATURE_UNSUPPORTED);
  size_t n = 0;
  unsigned char *bytes = read_file(conv, &n);
  CHECK_ACL(aclmdlQuerySizeFromMem(bytes, n / 2, &work, &weight), ACL_ERROR_PARSE_MODEL); /* truncated */
  CHECK_ACL(aclmdlQuerySizeFromMem(bytes, 0, &work, &weight), ACL_ERROR_INVALID_PARAM);

  void *wp = NULL, *gp = NULL;
  CHECK_OK(aclrtMalloc(&wp, work + 64, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&gp, weight + 64, ACL_MEM_MALLOC_HUGE_FIRST));
  uint32_t id = 0;
  const char *p = path_of(conv);
  CHECK_ACL(aclmdlLoadFromFileWithMem(p, &id, wp, work - 1, gp, weight), ACL_ERROR_INVALID_PARAM);  /* work too small */
  CHECK_ACL(aclmdlLoadFromFileWithMem(p, &id, wp, work, gp, weight - 1), ACL_ERROR_INVALID_PARAM);  /* weights too small */
  CHECK_ACL(aclmdlLoadFromFileWithMem(p, &id, (char *)wp + 8, work, gp, weight), ACL_ERROR_INVALID_PARAM); /* misaligned */
  CHECK_ACL(aclmdlLoadFromFileWithMem(p, &id, wp, work, (char *)gp + 8, weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadFromFileWithMem(p, NULL, wp, work, gp, weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadFromFileWithMem(NULL, &id, wp, work, gp, weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadFromFileWithMem(path_of("missing.gem"), &id, wp, work, gp, weight), ACL_ERROR_INVALID_FILE);
  CHECK_ACL(aclmdlLoadFromMemWithMem(bytes, n / 2, &id, wp, work, gp, weight), ACL_ERROR_PARSE_MODEL);
  CHECK_ACL(aclmdlLoadFromMemWithMem(NULL, n, &id, wp, work, gp, weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadFromMemWithMem(bytes, n, &id, wp, work - 1, gp, weight), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlLoadFromFileWithMem(path_of("open.gem"), &id, wp, work, NULL, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
  /* Sizes larger than needed are fine. */
  CHECK_OK(aclmdlLoadFromMemWithMem(bytes, n, &id, wp, work + 64, gp, weight + 64));

  /* The getters on bad indices and null descriptions: GE's "no value" results. */
  aclmdlDesc *desc = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(desc, id));
  CHECK(aclmdlGetInputDataType(desc, 5) == ACL_DT_UNDEFINED);
  CHECK(aclmdlGetOutputDataType(desc, 1) == ACL_DT_UNDEFINED);
  CHECK(aclmdlGetInputFormat(desc, 1) == ACL_FORMAT_UNDEFINED);
  CHECK(aclmdlGetOutputFormat(NULL, 0) == ACL_FORMAT_UNDEFINED);
  CHECK(strcmp(aclmdlGetOutputNameByIndex(desc, 3), "") == 0);
  CHECK(strcmp(aclmdlGetOutputNameByIndex(NULL, 0), "") == 0);
  size_t index = 0;
  CHECK_ACL(aclmdlGetOutputIndexByName(desc, NULL, &index), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetOutputIndexByName(NULL, "y", &index), ACL_ERROR_INVALID_PARAM);
  aclmdlIODims dims;
  CHECK_ACL(aclmdlGetInputDimsV2(desc, 1, &dims), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetInputDimsV2(desc, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetOutputDims(desc, 1, &dims), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlDestroyDesc(desc));
  CHECK_OK(aclmdlUnload(id));
  CHECK_ACL(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);
  CHECK_OK(aclrtFree(wp));
  CHECK_OK(aclrtFree(gp));
  free(bytes);
}

/* aclmdlUnload while another thread runs the model on the caller's work memory: unload
 * returns only once that run has ended, so the memory is the caller's again (the samples
 * free it right after); the runner's next call is ACL_ERROR_INVALID_MODEL_ID. */
typedef struct {
  uint32_t id;
  aclmdlDataset *in, *out;
  atomic_int runs;
  aclError last;
} Runner;

static void *run_until_unloaded(void *arg) {
  Runner *r = (Runner *)arg;
  (void)aclrtSetDevice(0);
  for (;;) {
    const aclError e = aclmdlExecute(r->id, r->in, r->out);
    if (e != ACL_SUCCESS) {
      r->last = e;
      break;
    }
    atomic_fetch_add(&r->runs, 1);
  }
  (void)aclrtResetDevice(0);
  return NULL;
}

static void test_unload_while_running(void) {
  for (int round = 0; round < 20; ++round) {
    Model m;
    CHECK(load_with_mem(&m, "conv"));
    Runner r = {m.id, inputs_of(m.desc), outputs_of(m.desc), 0, ACL_SUCCESS};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, run_until_unloaded, &r) == 0);
    while (atomic_load(&r.runs) < 1 + round % 3) {
      const struct timespec pause = {0, 100000};
      nanosleep(&pause, NULL);
    }
    CHECK_OK(aclmdlUnload(m.id));
    memset(m.work, 0x55, m.workSize); /* the caller's memory again */
    CHECK(pthread_join(t, NULL) == 0);
    size_t changed = 0;
    for (size_t i = 0; i < m.workSize; ++i) changed += ((const unsigned char *)m.work)[i] != 0x55;
    CHECK(changed == 0);
    CHECK(r.last == ACL_ERROR_INVALID_MODEL_ID);
    free_dataset(r.in);
    free_dataset(r.out);
    CHECK_OK(aclmdlDestroyDesc(m.desc));
    CHECK_OK(aclrtFree(m.work));
    CHECK_OK(aclrtFree(m.weight));
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ge_acl_mdl_mem_test MODEL_DIR\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s", argv[1]);
  uint32_t id = 0;
  CHECK_ACL(aclmdlLoadFromFileWithMem(path_of("conv.gem"), &id, NULL, 0, NULL, 0), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  test_conv();
  test_gears();
  test_range_from_mem();
  test_desc_and_null_memory();
  test_config();
  test_shared_memory();
  test_aipp();
  test_errors();
  test_unload_while_running();
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl.mdl_mem");
}
