/* aclopCast and aclopCreateHandleForCast (GE's Cast single op with "truncate" and
 * "dst_type"), and the API of kernels of the caller's (compile functions, kernels,
 * aclopUpdateParams), whose binaries ge cannot run. */
#include <math.h>
#include <stdint.h>

#include "op_util.h"


/* Compiles Cast for src -> dst as a program does before aclopCast (the attributes GE's
 * aclopCast passes). */
static aclError compile_cast(Tensor *src, Tensor *dst, uint8_t truncate) {
  aclopAttr *attr = aclopCreateAttr();
  aclopSetAttrBool(attr, "truncate", truncate);
  aclopSetAttrInt(attr, "dst_type", aclGetTensorDescType(dst->desc));
  const aclError e = compile_op("Cast", 1, src, 1, dst, attr);
  aclopDestroyAttr(attr);
  return e;
}

static void test_f32_to_f16_and_back(void) {
  const int64_t d[2] = {2, 3};
  const float x[6] = {1.0f, -2.5f, 0.1f, 65504.0f, 3.14159f, -0.000123f};
  Tensor src = f32_tensor(2, d, x);
  Tensor h = make_tensor(ACL_FLOAT16, 2, d, NULL, 6 * sizeof(uint16_t));
  CHECK_ACL(aclopCast(src.desc, src.buf, h.desc, h.buf, 0, NULL), ACL_ERROR_OP_NOT_FOUND); /* not compiled yet */
  CHECK_OK(compile_cast(&src, &h, 0));
  CHECK_OK(aclopCast(src.desc, src.buf, h.desc, h.buf, 0, NULL));
  int wrong = 0;
  for (int i = 0; i < 6; ++i) wrong += ((uint16_t *)h.data)[i] != aclFloatToFloat16(x[i]);
  CHECK(wrong == 0);
  /* back to f32: exactly the half values */
  Tensor back = f32_output(2, d, 6);
  CHECK_OK(compile_cast(&h, &back, 0));
  CHECK_OK(aclopCast(h.desc, h.buf, back.desc, back.buf, 0, NULL));
  wrong = 0;
  for (int i = 0; i < 6; ++i) wrong += ((float *)back.data)[i] != aclFloat16ToFloat(((uint16_t *)h.data)[i]);
  CHECK(wrong == 0);
  CHECK(((float *)back.data)[3] == 65504.0f && ((float *)back.data)[0] == 1.0f);
  /* the same Cast through a handle */
  aclopHandle *handle = NULL;
  CHECK_OK(aclopCreateHandleForCast(src.desc, h.desc, 0, &handle));
  memset(h.data, 0, 6 * sizeof(uint16_t));
  const aclDataBuffer *in[1] = {src.buf};
  aclDataBuffer *out[1] = {h.buf};
  CHECK_OK(aclopExecWithHandle(handle, 1, in, 1, out, NULL));
  CHECK(((uint16_t *)h.data)[1] == aclFloatToFloat16(-2.5f));
  CHECK_ACL(aclopExecWithHandle(handle, 2, in, 1, out, NULL), ACL_ERROR_INVALID_PARAM);
  aclopDestroyHandle(handle);
  /* a handle for an uncompiled pair */
  Tensor i8 = make_tensor(ACL_INT8, 2, d, NULL, 6);
  handle = NULL;
  CHECK_ACL(aclopCreateHandleForCast(src.desc, i8.desc, 0, &handle), ACL_ERROR_OP_NOT_FOUND);
  CHECK(handle == NULL);
  Tensor all[] = {src, h, back, i8};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_i32_to_f32(void) {
  const int64_t d[1] = {5};
  const int32_t v[5] = {0, -7, 123456, 16777217, -2147483647 - 1};
  Tensor src = make_tensor(ACL_INT32, 1, d, v, sizeof v);
  Tensor dst = f32_output(1, d, 5);
  CHECK_OK(compile_cast(&src, &dst, 1));
  CHECK_OK(aclopCast(src.desc, src.buf, dst.desc, dst.buf, 1, NULL));
  int wrong = 0;
  for (int i = 0; i < 5; ++i) wrong += ((float *)dst.data)[i] != (float)v[i];
  CHECK(wrong == 0);
  /* truncate is an attribute of the call: the op compiled with truncate 1 serves it
   * with 0 too, as ge's Cast takes no truncate (dst_type alone selects the op) */
  CHECK_OK(aclopCast(src.desc, src.buf, dst.desc, dst.buf, 0, NULL));
  free_tensor(&src);
  free_tensor(&dst);
}

static void test_cast_errors(void) {
  const int64_t d[1] = {4};
  const float x[4] = {1.7f, -2.7f, 3, 4};
  Tensor src = f32_tensor(1, d, x);
  Tensor dst = make_tensor(ACL_INT32, 1, d, NULL, 16);
  CHECK_OK(compile_cast(&src, &dst, 0));
  CHECK_OK(aclopCast(src.desc, src.buf, dst.desc, dst.buf, 0, NULL));
  /* float to int rounds toward zero, with truncate 0 or 1 */
  const int32_t *yi = (const int32_t *)dst.data;
  CHECK(yi[0] == 1 && yi[1] == -2 && yi[2] == 3 && yi[3] == 4);
  memset(dst.data, 0, 16);
  CHECK_OK(aclopCast(src.desc, src.buf, dst.desc, dst.buf, 1, NULL));
  CHECK(yi[0] == 1 && yi[1] == -2);
  CHECK_ACL(aclopCast(NULL, src.buf, dst.desc, dst.buf, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCast(src.desc, NULL, dst.desc, dst.buf, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCast(src.desc, src.buf, NULL, dst.buf, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCast(src.desc, src.buf, dst.desc, NULL, 0, NULL), ACL_ERROR_INVALID_PARAM);
  int not_a_stream = 0;
  CHECK_ACL(aclopCast(src.desc, src.buf, dst.desc, dst.buf, 0, &not_a_stream), ACL_ERROR_INVALID_PARAM);
  /* a destination buffer too small for the dims */
  aclDataBuffer *small = aclCreateDataBuffer(dst.data, 8);
  CHECK_ACL(aclopCast(src.desc, src.buf, dst.desc, small, 0, NULL), ACL_ERROR_INVALID_PARAM);
  aclDestroyDataBuffer(small);
  /* unknown dims in a run */
  const int64_t unknown[1] = {-1};
  aclTensorDesc *dyn = aclCreateTensorDesc(ACL_FLOAT, 1, unknown, ACL_FORMAT_ND);
  CHECK_ACL(aclopCast(dyn, src.buf, dst.desc, dst.buf, 0, NULL), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(dyn);
  CHECK_ACL(aclopCreateHandleForCast(src.desc, dst.desc, 0, NULL), ACL_ERROR_INVALID_PARAM);
  aclopHandle *handle = NULL;
  CHECK_ACL(aclopCreateHandleForCast(NULL, dst.desc, 0, &handle), ACL_ERROR_INVALID_PARAM);
  free_tensor(&src);
  free_tensor(&dst);
}

/* --- kernels of the caller's --- */

static int compile_calls;
static int last_inputs;

static aclError select_kernel(int numInputs, const aclTensorDesc *const inputDesc[], int numOutputs,
                              const aclTensorDesc *const outputDesc[], const aclopAttr *opAttr,
                              aclopKernelDesc *kernelDesc) {
  (void)inputDesc;
  (void)outputDesc;
  (void)opAttr;
  ++compile_calls;
  last_inputs = numInputs + 10 * numOutputs;
  const uint32_t args[2] = {7, 8};
  size_t workspaces[2] = {64, 128};
  aclError e = aclopSetKernelArgs(kernelDesc, "bn_kernel_0", 2, args, sizeof args);
  if (e == ACL_SUCCESS) e = aclopSetKernelWorkspaceSizes(kernelDesc, 2, workspaces);
  return e;
}

static aclError failing_select(int numInputs, const aclTensorDesc *const inputDesc[], int numOutputs,
                               const aclTensorDesc *const outputDesc[], const aclopAttr *opAttr,
                               aclopKernelDesc *kernelDesc) {
  (void)numInputs, (void)inputDesc, (void)numOutputs, (void)outputDesc, (void)opAttr, (void)kernelDesc;
  return 12345;
}

static int freed_bytes;
static void free_bin(void *data, size_t length) {
  freed_bytes += (int)length;
  free(data);
}

static void test_kernels(void) {
  const int64_t d[1] = {4};
  aclTensorDesc *in[1] = {aclCreateTensorDesc(ACL_FLOAT, 1, d, ACL_FORMAT_ND)};
  aclTensorDesc *out[1] = {aclCreateTensorDesc(ACL_FLOAT, 1, d, ACL_FORMAT_ND)};
  const aclTensorDesc *const *cin = (const aclTensorDesc *const *)in;
  const aclTensorDesc *const *cout = (const aclTensorDesc *const *)out;
  CHECK_ACL(aclopUpdateParams("BatchNormCust", 1, cin, 1, cout, NULL), ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED);
  CHECK_OK(aclopRegisterCompileFunc("BatchNormCust", select_kernel));
  CHECK_ACL(aclopRegisterCompileFunc("BatchNormCust", select_kernel), ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED);
  CHECK_ACL(aclopRegisterCompileFunc(NULL, select_kernel), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopRegisterCompileFunc("X", NULL), ACL_ERROR_INVALID_PARAM);
  /* the function runs, but chose a kernel not created */
  CHECK_ACL(aclopUpdateParams("BatchNormCust", 1, cin, 1, cout, NULL), ACL_ERROR_KERNEL_NOT_FOUND);
  CHECK(compile_calls == 1 && last_inputs == 11);
  void *bin = malloc(32);
  memset(bin, 0, 32);
  CHECK_OK(aclopCreateKernel("BatchNormCust", "bn_kernel_0", "bn_kernel_0__kernel0", bin, 32, ACL_ENGINE_AICORE, free_bin));
  CHECK_ACL(aclopCreateKernel("BatchNormCust", "bn_kernel_0", "k", bin, 32, ACL_ENGINE_AICORE, NULL),
            ACL_ERROR_KERNEL_ALREADY_REGISTERED);
  char other[4] = {0};
  CHECK_ACL(aclopCreateKernel("BatchNormCust", "k1", "k", other, 0, ACL_ENGINE_AICORE, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCreateKernel("BatchNormCust", "k1", "k", NULL, 4, ACL_ENGINE_AICORE, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCreateKernel("BatchNormCust", "k1", "k", other, 4, (aclopEngineType)9, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclopUpdateParams("BatchNormCust", 1, cin, 1, cout, NULL));
  CHECK(compile_calls == 2);
  CHECK_ACL(aclopUpdateParams("BatchNormCust", -1, cin, 1, cout, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopUpdateParams("BatchNormCust", 1, NULL, 1, cout, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopUpdateParams(NULL, 1, cin, 1, cout, NULL), ACL_ERROR_INVALID_PARAM);
  /* the caller's error comes back as it is */
  CHECK_OK(aclopRegisterCompileFunc("Failing", failing_select));
  CHECK_ACL(aclopUpdateParams("Failing", 1, cin, 1, cout, NULL), 12345);
  CHECK_OK(aclopUnregisterCompileFunc("Failing"));
  /* running such an op: its binary cannot run on the CPU */
  CHECK_ACL(aclopCompile("BatchNormCust", 1, cin, 1, cout, NULL, ACL_ENGINE_SYS, ACL_COMPILE_UNREGISTERED, NULL),
            ACL_ERROR_API_NOT_SUPPORT);
  CHECK(strlen(aclGetRecentErrMsg()) > 0);
  CHECK_ACL(aclopSetKernelArgs(NULL, "k", 1, NULL, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetKernelWorkspaceSizes(NULL, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclopUnregisterCompileFunc("BatchNormCust"));
  CHECK_ACL(aclopUnregisterCompileFunc("BatchNormCust"), ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED);
  CHECK_ACL(aclopUpdateParams("BatchNormCust", 1, cin, 1, cout, NULL), ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED);
  CHECK(ACL_COMPILE_FLAG_BIN_SELECTOR == 1);
  aclDestroyTensorDesc(in[0]);
  aclDestroyTensorDesc(out[0]);
}

int main(void) {
  const int64_t d[1] = {1};
  aclTensorDesc *x = aclCreateTensorDesc(ACL_FLOAT, 1, d, ACL_FORMAT_ND);
  float v = 1.0f;
  aclDataBuffer *b = aclCreateDataBuffer(&v, sizeof v);
  CHECK_ACL(aclopCast(x, b, x, b, 0, NULL), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  test_f32_to_f16_and_back();
  test_i32_to_f32();
  test_cast_errors();
  test_kernels();
  CHECK_OK(aclFinalize());
  aclDestroyTensorDesc(x);
  aclDestroyDataBuffer(b);
  return check_report("acl op_cast");
}
