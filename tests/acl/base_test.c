/* The base family: tensor descriptions (create, ranges, const, placement, getters, -2,
 * the unused optional input), data buffers and aclDataTypeSize. */
#include "check.h"

static void test_descriptions(void) {
  const int64_t dims[] = {2, 3, 4};
  aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 3, dims, ACL_FORMAT_NCHW);
  CHECK(d != NULL);
  CHECK(aclGetTensorDescType(d) == ACL_FLOAT);
  CHECK(aclGetTensorDescFormat(d) == ACL_FORMAT_NCHW);
  CHECK(aclGetTensorDescNumDims(d) == 3);
  CHECK(aclGetTensorDescElementCount(d) == 24);
  CHECK(aclGetTensorDescSize(d) == 96);
  int64_t v = 0;
  CHECK_OK(aclGetTensorDescDimV2(d, 1, &v));
  CHECK(v == 3);
  CHECK_ACL(aclGetTensorDescDimV2(d, 3, &v), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclGetTensorDescDimV2(d, 0, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclGetTensorDescDimV2(NULL, 0, &v), ACL_ERROR_INVALID_PARAM);
  int64_t r[2] = {0, 0};
  CHECK_OK(aclGetTensorDescDimRange(d, 2, 2, r));
  CHECK(r[0] == 4 && r[1] == 4);
  CHECK_ACL(aclGetTensorDescDimRange(d, 2, 1, r), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclGetTensorDescDimRange(d, 5, 2, r), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(d);

  /* a scalar: no dims, one element */
  aclTensorDesc *s = aclCreateTensorDesc(ACL_INT64, 0, NULL, ACL_FORMAT_ND);
  CHECK(s != NULL && aclGetTensorDescNumDims(s) == 0 && aclGetTensorDescElementCount(s) == 1);
  CHECK(aclGetTensorDescSize(s) == 8);
  aclDestroyTensorDesc(s);

  /* bad arguments: no description */
  CHECK(aclCreateTensorDesc(ACL_FLOAT, -1, dims, ACL_FORMAT_ND) == NULL);
  CHECK(aclCreateTensorDesc(ACL_FLOAT, 2, NULL, ACL_FORMAT_ND) == NULL);
  CHECK(aclCreateTensorDesc((aclDataType)5, 1, dims, ACL_FORMAT_ND) == NULL); /* 5 is no aclDataType */
  CHECK(aclCreateTensorDesc(ACL_FLOAT, 1, dims, (aclFormat)99) == NULL);
  CHECK(strlen(aclGetRecentErrMsg()) > 0);
  /* getters on null */
  CHECK(aclGetTensorDescType(NULL) == ACL_DT_UNDEFINED && aclGetTensorDescFormat(NULL) == ACL_FORMAT_UNDEFINED);
  CHECK(aclGetTensorDescNumDims(NULL) == 0 && aclGetTensorDescSize(NULL) == 0 && aclGetTensorDescElementCount(NULL) == 0);
  aclDestroyTensorDesc(NULL); /* allowed */
}

static void test_ranges(void) {
  const int64_t dims[] = {-1, 16};
  aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  CHECK(aclGetTensorDescElementCount(d) == 0 && aclGetTensorDescSize(d) == 0); /* unknown extent */
  int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {16, 16}};
  CHECK_OK(aclSetTensorShapeRange(d, 2, range));
  int64_t r[2];
  CHECK_OK(aclGetTensorDescDimRange(d, 0, 2, r));
  CHECK(r[0] == 1 && r[1] == 8);
  int64_t unbounded[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{2, -1}, {16, 16}};
  CHECK_OK(aclSetTensorShapeRange(d, 2, unbounded)); /* hi -1: unbounded */
  CHECK_OK(aclGetTensorDescDimRange(d, 0, 2, r));
  CHECK(r[0] == 2 && r[1] == -1);
  /* the count must equal the dims */
  CHECK_ACL(aclSetTensorShapeRange(d, 1, range), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorShapeRange(d, 3, range), ACL_ERROR_INVALID_PARAM);
  int64_t reversed[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{8, 1}, {16, 16}};
  CHECK_ACL(aclSetTensorShapeRange(d, 2, reversed), ACL_ERROR_INVALID_PARAM);
  int64_t negative[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{-3, 4}, {16, 16}};
  CHECK_ACL(aclSetTensorShapeRange(d, 2, negative), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorShapeRange(NULL, 2, range), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorShapeRange(d, 2, NULL), ACL_ERROR_INVALID_PARAM);
  /* an unknown dim without a range: any value */
  aclTensorDesc *u = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  CHECK_OK(aclGetTensorDescDimRange(u, 0, 2, r));
  CHECK(r[0] == 0 && r[1] == -1);
  aclDestroyTensorDesc(u);
  aclDestroyTensorDesc(d);

  /* unknown rank: dims exactly {-2} */
  const int64_t rank2[] = {-2};
  aclTensorDesc *k = aclCreateTensorDesc(ACL_FLOAT, 1, rank2, ACL_FORMAT_ND);
  CHECK(aclGetTensorDescNumDims(k) == (size_t)ACL_UNKNOWN_RANK);
  int64_t one[1][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 2}};
  CHECK_ACL(aclSetTensorShapeRange(k, 1, one), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(k);
}

static void test_const_and_placement(void) {
  const int64_t dims[] = {2};
  aclTensorDesc *d = aclCreateTensorDesc(ACL_INT64, 1, dims, ACL_FORMAT_ND);
  int64_t data[2] = {3, 4};
  CHECK_OK(aclSetTensorConst(d, data, sizeof data));
  CHECK_ACL(aclSetTensorConst(NULL, data, sizeof data), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorConst(d, NULL, 16), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclSetTensorPlaceMent(d, ACL_MEMTYPE_HOST));
  CHECK_ACL(aclSetTensorPlaceMent(d, (aclMemType)7), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetTensorPlaceMent(NULL, ACL_MEMTYPE_HOST), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(d);

  /* the unused optional input */
  aclTensorDesc *none = aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, NULL, ACL_FORMAT_UNDEFINED);
  CHECK(none != NULL && aclGetTensorDescType(none) == ACL_DT_UNDEFINED && aclGetTensorDescNumDims(none) == 0);
  aclDestroyTensorDesc(none);
}

static void test_buffers_and_types(void) {
  float x[4];
  aclDataBuffer *b = aclCreateDataBuffer(x, sizeof x);
  CHECK(b != NULL && aclGetDataBufferAddr(b) == x && aclGetDataBufferSizeV2(b) == sizeof x);
  CHECK_OK(aclDestroyDataBuffer(b));
  CHECK_ACL(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK(aclGetDataBufferAddr(NULL) == NULL && aclGetDataBufferSizeV2(NULL) == 0);
  aclDataBuffer *empty = aclCreateDataBuffer(NULL, 0);
  CHECK(empty != NULL);
  CHECK_OK(aclDestroyDataBuffer(empty));

  CHECK(aclDataTypeSize(ACL_FLOAT) == 4 && aclDataTypeSize(ACL_FLOAT16) == 2 && aclDataTypeSize(ACL_BF16) == 2);
  CHECK(aclDataTypeSize(ACL_INT8) == 1 && aclDataTypeSize(ACL_UINT8) == 1 && aclDataTypeSize(ACL_BOOL) == 1);
  CHECK(aclDataTypeSize(ACL_INT16) == 2 && aclDataTypeSize(ACL_UINT16) == 2);
  CHECK(aclDataTypeSize(ACL_INT32) == 4 && aclDataTypeSize(ACL_UINT32) == 4);
  CHECK(aclDataTypeSize(ACL_INT64) == 8 && aclDataTypeSize(ACL_UINT64) == 8 && aclDataTypeSize(ACL_DOUBLE) == 8);
  CHECK(aclDataTypeSize(ACL_DT_UNDEFINED) == 0 && aclDataTypeSize(ACL_STRING) == 0);
  CHECK(aclDataTypeSize((aclDataType)99) == 0);
}

int main(void) {
  test_descriptions();
  test_ranges();
  test_const_and_placement();
  test_buffers_and_types();
  return check_report("acl base");
}
