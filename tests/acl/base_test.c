/* The base family: tensor descriptions (create, ranges, const, placement, getters, -2,
 * the unused optional input, sizes that overflow), data buffers, aclDataTypeSize and the
 * half-float conversions. */
#include <math.h>
#include <stdint.h>

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

/* Counts and sizes that overflow a size_t are 0, with the reason recorded (issue 32). */
static void test_size_overflow(void) {
  const int64_t big[2] = {((int64_t)1 << 62) + 1, 4};
  aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, big, ACL_FORMAT_ND);
  CHECK(d != NULL);
  CHECK(aclGetTensorDescElementCount(d) == 0);
  CHECK(strstr(aclGetRecentErrMsg(), "4611686018427387905,4") != NULL);
  CHECK(aclGetTensorDescSize(d) == 0);
  CHECK(strstr(aclGetRecentErrMsg(), "aclGetTensorDescSize") != NULL);
  aclDestroyTensorDesc(d);
  /* the count fits, the bytes do not: 2^62 f32s */
  const int64_t bytes_big[1] = {(int64_t)1 << 62};
  d = aclCreateTensorDesc(ACL_FLOAT, 1, bytes_big, ACL_FORMAT_ND);
  CHECK(aclGetTensorDescElementCount(d) == ((size_t)1 << 62));
  CHECK(aclGetTensorDescSize(d) == 0);
  CHECK(strstr(aclGetRecentErrMsg(), "overflow") != NULL);
  aclDestroyTensorDesc(d);
  /* a 0 dim: no elements, however large the others */
  const int64_t empty[3] = {0, (int64_t)1 << 62, (int64_t)1 << 62};
  d = aclCreateTensorDesc(ACL_FLOAT, 3, empty, ACL_FORMAT_ND);
  CHECK(aclGetTensorDescElementCount(d) == 0 && aclGetTensorDescSize(d) == 0);
  aclDestroyTensorDesc(d);
  /* the largest that fits */
  const int64_t fits[2] = {(int64_t)1 << 30, (int64_t)1 << 31};
  d = aclCreateTensorDesc(ACL_INT64, 2, fits, ACL_FORMAT_ND);
  CHECK(aclGetTensorDescElementCount(d) == ((size_t)1 << 61) && aclGetTensorDescSize(d) == ((size_t)1 << 61) * 8);
  aclDestroyTensorDesc(d);
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* aclFloatToFloat16 / aclFloat16ToFloat: IEEE binary16, round to nearest even. */
static void test_float16(void) {
  CHECK(aclFloatToFloat16(1.0f) == 0x3c00 && aclFloatToFloat16(-2.0f) == 0xc000);
  CHECK(aclFloatToFloat16(0.0f) == 0x0000 && aclFloatToFloat16(-0.0f) == 0x8000);
  CHECK(aclFloatToFloat16(65504.0f) == 0x7bff);
  /* ties to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 -> 1 (even); 1 + 3*2^-11 -> 1 + 2^-9 */
  CHECK(aclFloatToFloat16(1.0f + 0.00048828125f) == 0x3c00);
  CHECK(aclFloatToFloat16(1.0f + 3 * 0.00048828125f) == 0x3c02);
  CHECK(aclFloatToFloat16(1.0f + 0.00048828125f + 1e-7f) == 0x3c01); /* above halfway: up */
  /* overflow: 65519.99 stays finite, 65520 (halfway to 2^16) rounds to infinity */
  CHECK(aclFloatToFloat16(65519.0f) == 0x7bff);
  CHECK(aclFloatToFloat16(65520.0f) == 0x7c00 && aclFloatToFloat16(-1e30f) == 0xfc00);
  CHECK(aclFloatToFloat16(INFINITY) == 0x7c00 && aclFloatToFloat16(-INFINITY) == 0xfc00);
  /* NaN stays NaN (exponent all ones, mantissa non-zero), sign kept */
  const aclFloat16 nan = aclFloatToFloat16(NAN);
  CHECK((nan & 0x7c00) == 0x7c00 && (nan & 0x03ff) != 0);
  CHECK((aclFloatToFloat16(bits_float(0xffc00001u)) & 0xfc00) == 0xfc00);
  /* subnormals: 2^-24 is the least, 2^-25 a tie to 0, just above it rounds up; 2^-14 - 2^-24 the largest */
  CHECK(aclFloatToFloat16(5.9604644775390625e-8f) == 0x0001);
  CHECK(aclFloatToFloat16(2.98023223876953125e-8f) == 0x0000);
  CHECK(aclFloatToFloat16(3.0e-8f) == 0x0001);
  CHECK(aclFloatToFloat16(3 * 2.98023223876953125e-8f) == 0x0002); /* 1.5 * 2^-24: tie to even 2 */
  CHECK(aclFloatToFloat16(6.097555160522461e-5f) == 0x03ff);
  CHECK(aclFloatToFloat16(6.103515625e-5f) == 0x0400); /* 2^-14: the least normal */
  CHECK(aclFloatToFloat16(1e-10f) == 0x0000 && aclFloatToFloat16(-1e-10f) == 0x8000);
  /* back to float: exact */
  CHECK(aclFloat16ToFloat(0x3c00) == 1.0f && aclFloat16ToFloat(0xc000) == -2.0f);
  CHECK(aclFloat16ToFloat(0x7bff) == 65504.0f);
  CHECK(aclFloat16ToFloat(0x0001) == 5.9604644775390625e-8f && aclFloat16ToFloat(0x03ff) == 6.097555160522461e-5f);
  CHECK(float_bits(aclFloat16ToFloat(0x8000)) == 0x80000000u);
  CHECK(isinf(aclFloat16ToFloat(0x7c00)) && aclFloat16ToFloat(0xfc00) < 0 && isinf(aclFloat16ToFloat(0xfc00)));
  CHECK(isnan(aclFloat16ToFloat(0x7e00)) && isnan(aclFloat16ToFloat(0x7c01)));
  /* every finite half survives the round trip */
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) continue; /* NaNs */
    bad += aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h)) != h;
  }
  CHECK(bad == 0);
}

int main(void) {
  test_size_overflow();
  test_float16();
  test_descriptions();
  test_ranges();
  test_const_and_placement();
  test_buffers_and_types();
  return check_report("acl base");
}
