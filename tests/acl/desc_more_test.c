/* The tensor-description calls of GE's acl_base.h beyond create/get (names, format and
 * dims setters, aclTransTensorDescFormat, dynamic inputs, value ranges, the deprecated
 * aclGetTensorDescDim, the exception-time accessors), and aclInit(""), which GE reads as
 * "no configuration". */
#include <stdint.h>

#include "op_util.h"

static void test_init_empty_path(void) {
  CHECK_OK(aclInit(""));  /* AclLite's default: no configuration file */
  CHECK_ACL(aclInit(""), ACL_ERROR_REPEAT_INITIALIZE);
  CHECK_OK(aclFinalize());
  CHECK_ACL(aclInit("/no/such/acl.json"), ACL_ERROR_INVALID_FILE);  /* a path that is given must exist */
}

static void test_names_and_dims(void) {
  const int64_t d[3] = {2, -1, 4};
  aclTensorDesc *t = aclCreateTensorDesc(ACL_FLOAT, 3, d, ACL_FORMAT_ND);
  CHECK(strcmp(aclGetTensorDescName(t), "") == 0);
  aclSetTensorDescName(t, "images");
  CHECK(strcmp(aclGetTensorDescName(t), "images") == 0);
  aclSetTensorDescName(t, NULL);
  CHECK(strcmp(aclGetTensorDescName(t), "") == 0);
  aclSetTensorDescName(NULL, "x"); /* nothing happens */
  CHECK(strcmp(aclGetTensorDescName(NULL), "") == 0);
  CHECK(aclGetTensorDescDim(t, 0) == 2 && aclGetTensorDescDim(t, 1) == -1 && aclGetTensorDescDim(t, 2) == 4);
  CHECK(aclGetTensorDescDim(t, 3) == -1 && aclGetTensorDescDim(NULL, 0) == -1);
  /* format and dims replaced */
  CHECK_OK(aclSetTensorFormat(t, ACL_FORMAT_NCHW));
  CHECK(aclGetTensorDescFormat(t) == ACL_FORMAT_NCHW);
  CHECK_ACL(aclSetTensorFormat(t, (aclFormat)77), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorFormat(NULL, ACL_FORMAT_ND), ACL_ERROR_INVALID_PARAM);
  int64_t range[3][ACL_TENSOR_SHAPE_RANGE_NUM] = {{2, 2}, {1, 8}, {4, 4}};
  CHECK_OK(aclSetTensorShapeRange(t, 3, range));
  const int64_t d4[4] = {1, 3, 5, 7};
  CHECK_OK(aclSetTensorShape(t, 4, d4));
  CHECK(dims_are(t, 4, d4) && aclGetTensorDescElementCount(t) == 105);
  int64_t r[2] = {0, 0};
  CHECK_OK(aclGetTensorDescDimRange(t, 1, 2, r));
  CHECK(r[0] == 3 && r[1] == 3); /* the ranges went with the old dims */
  CHECK_ACL(aclSetTensorShape(t, -1, d4), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorShape(t, 2, NULL), ACL_ERROR_INVALID_PARAM);
  const int64_t bad[2] = {2, -5};
  CHECK_ACL(aclSetTensorShape(t, 2, bad), ACL_ERROR_INVALID_PARAM);
  CHECK(dims_are(t, 4, d4)); /* a refused call changes nothing */
  const int64_t none[1] = {-2};
  CHECK_OK(aclSetTensorShape(t, 1, none));
  CHECK(aclGetTensorDescNumDims(t) == (size_t)ACL_UNKNOWN_RANK);
  /* origin and storage: kept */
  CHECK_OK(aclSetTensorOriginFormat(t, ACL_FORMAT_NHWC));
  CHECK_OK(aclSetTensorOriginShape(t, 4, d4));
  CHECK_OK(aclSetTensorStorageFormat(t, ACL_FORMAT_NCHW));
  CHECK_OK(aclSetTensorStorageShape(t, 4, d4));
  CHECK_ACL(aclSetTensorOriginFormat(t, (aclFormat)-7), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorStorageShape(NULL, 4, d4), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorOriginShape(t, 1, NULL), ACL_ERROR_INVALID_PARAM);
  /* dynamic input, value range */
  CHECK_OK(aclSetTensorDynamicInput(t, "x"));
  CHECK_ACL(aclSetTensorDynamicInput(t, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorDynamicInput(NULL, "x"), ACL_ERROR_INVALID_PARAM);
  int64_t values[2][ACL_TENSOR_VALUE_RANGE_NUM] = {{0, 10}, {-3, -3}};
  CHECK_OK(aclSetTensorValueRange(t, 2, values));
  values[1][0] = 5;
  CHECK_ACL(aclSetTensorValueRange(t, 2, values), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorValueRange(t, 1, NULL), ACL_ERROR_INVALID_PARAM);
  /* exception-time accessors */
  CHECK(aclGetTensorDescByIndex(t, 0) == t);
  CHECK(aclGetTensorDescByIndex(t, 1) == NULL);
  CHECK(aclGetTensorDescByIndex(NULL, 0) == NULL);
  CHECK(aclGetTensorDescAddress(t) == NULL);
  aclDestroyTensorDesc(t);
}

static void test_trans_format(void) {
  const int64_t nchw[4] = {1, 3, 5, 7}, nhwc[4] = {1, 5, 7, 3}, hwcn[4] = {5, 7, 3, 1};
  aclTensorDesc *t = aclCreateTensorDesc(ACL_FLOAT16, 4, nchw, ACL_FORMAT_NCHW);
  aclTensorDesc *u = NULL;
  CHECK_OK(aclTransTensorDescFormat(t, ACL_FORMAT_NHWC, &u));
  CHECK(u != NULL && dims_are(u, 4, nhwc) && aclGetTensorDescFormat(u) == ACL_FORMAT_NHWC &&
        aclGetTensorDescType(u) == ACL_FLOAT16);
  aclTensorDesc *v = NULL;
  CHECK_OK(aclTransTensorDescFormat(u, ACL_FORMAT_HWCN, &v));
  CHECK(v != NULL && dims_are(v, 4, hwcn));
  aclTensorDesc *w = NULL;
  CHECK_OK(aclTransTensorDescFormat(v, ACL_FORMAT_NCHW, &w));
  CHECK(w != NULL && dims_are(w, 4, nchw));
  aclTensorDesc *x = NULL;
  CHECK_ACL(aclTransTensorDescFormat(t, ACL_FORMAT_NC1HWC0, &x), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK(x == NULL);
  const int64_t d2[2] = {3, 4};
  aclTensorDesc *flat = aclCreateTensorDesc(ACL_FLOAT, 2, d2, ACL_FORMAT_NCHW);
  CHECK_ACL(aclTransTensorDescFormat(flat, ACL_FORMAT_NHWC, &x), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(aclTransTensorDescFormat(NULL, ACL_FORMAT_NHWC, &x), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclTransTensorDescFormat(t, ACL_FORMAT_NHWC, NULL), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(t);
  aclDestroyTensorDesc(u);
  aclDestroyTensorDesc(v);
  aclDestroyTensorDesc(w);
  aclDestroyTensorDesc(flat);
}

/* A packed storage format makes an op refuse the description rather than misread it. */
static void test_storage_format_in_ops(void) {
  const int64_t d[2] = {2, 2};
  const float a[4] = {1, 2, 3, 4};
  Tensor in[2] = {f32_tensor(2, d, a), f32_tensor(2, d, a)};
  Tensor y = f32_output(2, d, 4);
  CHECK_OK(aclSetTensorStorageFormat(in[0].desc, ACL_FORMAT_ND));
  CHECK_OK(compile_and_run("Add", 2, in, 1, &y, NULL));
  CHECK(((float *)y.data)[3] == 8.0f);
  CHECK_OK(aclSetTensorStorageFormat(in[0].desc, ACL_FORMAT_FRACTAL_NZ));
  CHECK_ACL(compile_and_run("Add", 2, in, 1, &y, NULL), ACL_ERROR_FORMAT_NOT_MATCH);
  for (int k = 0; k < 2; ++k) free_tensor(&in[k]);
  free_tensor(&y);
}

int main(void) {
  test_init_empty_path();
  CHECK_OK(aclInit(NULL));
  test_names_and_dims();
  test_trans_format();
  test_storage_format_in_ops();
  CHECK_OK(aclFinalize());
  return check_report("acl desc_more");
}
