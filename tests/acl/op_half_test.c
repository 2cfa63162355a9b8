/* Single ops on ACL_FLOAT16 and ACL_BF16 tensors (docs/acl.md, "Half floats"): they compile
 * and run in f32 between casts, the results rounded back to the output's type, as the
 * fp16 samples of GE's single-op API expect. Values are checked against the same
 * arithmetic in f32 on the half inputs, rounded once. */
#include <math.h>
#include <stdint.h>

#include "op_util.h"

/* bf16 bits of a float (round to nearest even; the values here are finite). */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* A half tensor (type ACL_FLOAT16 or ACL_BF16, `format`) of the floats, rounded. */
static Tensor half_tensor(aclDataType type, aclFormat format, int rank, const int64_t *dims, const float *values) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)dims[i];
  Tensor t;
  t.desc = aclCreateTensorDesc(type, rank, dims, format);
  uint16_t *h = calloc(n, sizeof(uint16_t));
  for (size_t i = 0; values != NULL && i < n; ++i)
    h[i] = type == ACL_FLOAT16 ? aclFloatToFloat16(values[i]) : to_bf16(values[i]);
  t.data = h;
  t.buf = aclCreateDataBuffer(h, n * sizeof(uint16_t));
  return t;
}

/* Element i of a half tensor as a float. */
static float half_at(aclDataType type, const Tensor *t, size_t i) {
  const uint16_t h = ((const uint16_t *)t->data)[i];
  return type == ACL_FLOAT16 ? aclFloat16ToFloat(h) : from_bf16(h);
}

static float round_to(aclDataType type, float f) {
  return type == ACL_FLOAT16 ? aclFloat16ToFloat(aclFloatToFloat16(f)) : from_bf16(to_bf16(f));
}

static void test_add(aclDataType type) {
  const int64_t d[2] = {2, 3};
  const float a[6] = {1.0f, -2.5f, 1000.0f, 0.1f, 3.0f, 65504.0f};
  const float b[6] = {0.0009765625f, 0.75f, 0.3f, 0.2f, -3.0f, -1.0f};
  Tensor in[2] = {half_tensor(type, ACL_FORMAT_ND, 2, d, a), half_tensor(type, ACL_FORMAT_ND, 2, d, b)};
  Tensor y = half_tensor(type, ACL_FORMAT_ND, 2, d, NULL);
  CHECK_OK(compile_and_run("Add", 2, in, 1, &y, NULL));
  int wrong = 0;
  for (size_t i = 0; i < 6; ++i) {
    /* the sum of the half inputs in f32, rounded once to the output's type */
    const float expect = round_to(type, half_at(type, &in[0], i) + half_at(type, &in[1], i));
    wrong += half_at(type, &y, i) != expect;
  }
  CHECK(wrong == 0);
  CHECK(aclGetTensorDescType(y.desc) == type);
  /* an f32 output for half inputs is no Add ge has */
  Tensor f = f32_output(2, d, 6);
  CHECK_ACL(compile_op("Add", 2, in, 1, &f, NULL), ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  Tensor all[] = {in[0], in[1], y, f};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

/* MatMulV2 with a bias and transpose_x2, in f16 or bf16. */
static void test_matmul(aclDataType type) {
  const int64_t da[2] = {2, 3}, db[2] = {4, 3}, dbias[1] = {4}, dy[2] = {2, 4};
  const float a[6] = {1, -2, 0.5f, 3, 0.25f, -1}, b[12] = {1, 2, 3, -1, 0, 1, 0.5f, 0.5f, 0.5f, 2, -2, 1},
              bias[4] = {0.5f, -0.5f, 0.25f, 1};
  Tensor in[3] = {half_tensor(type, ACL_FORMAT_ND, 2, da, a), half_tensor(type, ACL_FORMAT_ND, 2, db, b),
                  half_tensor(type, ACL_FORMAT_ND, 1, dbias, bias)};
  Tensor y = half_tensor(type, ACL_FORMAT_ND, 2, dy, NULL);
  aclopAttr *attr = aclopCreateAttr();
  CHECK_OK(aclopSetAttrBool(attr, "transpose_x2", 1));
  CHECK_OK(compile_and_run("MatMulV2", 3, in, 1, &y, attr));
  int wrong = 0;
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 4; ++j) {
      float acc = half_at(type, &in[2], j);
      for (size_t k = 0; k < 3; ++k) acc += half_at(type, &in[0], i * 3 + k) * half_at(type, &in[1], j * 3 + k);
      const float got = half_at(type, &y, i * 4 + j), expect = round_to(type, acc);
      wrong += fabsf(got - expect) > fabsf(expect) * (type == ACL_FLOAT16 ? 1e-3f : 1e-2f);
    }
  CHECK(wrong == 0);
  aclopDestroyAttr(attr);
  Tensor all[] = {in[0], in[1], in[2], y};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

/* An fp16 NHWC Conv2D (the Conv2D sample's op): x [1, 4, 4, 2], filter HWCN [3, 3, 2, 3]. */
static void test_conv2d_f16(void) {
  const int64_t dx[4] = {1, 4, 4, 2}, dw[4] = {3, 3, 2, 3}, dy[4] = {1, 4, 4, 3};
  float xv[32], wv[54];
  for (int i = 0; i < 32; ++i) xv[i] = (float)(i % 7) * 0.25f - 0.5f;
  for (int i = 0; i < 54; ++i) wv[i] = (float)(i % 5) * 0.125f - 0.25f;
  Tensor in[2] = {half_tensor(ACL_FLOAT16, ACL_FORMAT_NHWC, 4, dx, xv),
                  half_tensor(ACL_FLOAT16, ACL_FORMAT_HWCN, 4, dw, wv)};
  Tensor y = half_tensor(ACL_FLOAT16, ACL_FORMAT_NHWC, 4, dy, NULL);
  aclopAttr *attr = aclopCreateAttr();
  const int64_t strides[4] = {1, 1, 1, 1}, pads[4] = {1, 1, 1, 1};
  CHECK_OK(aclopSetAttrListInt(attr, "strides", 4, strides));
  CHECK_OK(aclopSetAttrListInt(attr, "pads", 4, pads));
  CHECK_OK(compile_and_run("Conv2D", 2, in, 1, &y, attr));
  int wrong = 0;
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 4; ++w)
      for (int o = 0; o < 3; ++o) {
        float acc = 0;
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw)
            for (int c = 0; c < 2; ++c) {
              const int ih = h - 1 + kh, iw = w - 1 + kw;
              if (ih < 0 || ih >= 4 || iw < 0 || iw >= 4) continue;
              acc += half_at(ACL_FLOAT16, &in[0], (size_t)((ih * 4 + iw) * 2 + c)) *
                     half_at(ACL_FLOAT16, &in[1], (size_t)(((kh * 3 + kw) * 2 + c) * 3 + o));
            }
        const float got = half_at(ACL_FLOAT16, &y, (size_t)((h * 4 + w) * 3 + o)), expect = round_to(ACL_FLOAT16, acc);
        wrong += fabsf(got - expect) > 2e-3f * fmaxf(1.0f, fabsf(expect)); /* a rounding of another order */
      }
  CHECK(wrong == 0);
  aclopDestroyAttr(attr);
  Tensor all[] = {in[0], in[1], y};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

/* As Ascend's Conv2D sample calls it: fp16, x NHWC [2, 6, 5, 3], the filter NCHW [6, 3, 3, 3],
 * the bias an unused optional input, no data_format, strides/pads/dilations all [1,1,1,1],
 * aclopCompileAndExecute on a stream. */
static void test_conv2d_sample_style(void) {
  const int64_t dx[4] = {2, 6, 5, 3}, dw[4] = {6, 3, 3, 3}, dy[4] = {2, 6, 5, 6};
  float xv[180], wv[162];
  for (int i = 0; i < 180; ++i) xv[i] = (float)((i * 7) % 11) * 0.125f - 0.5f;
  for (int i = 0; i < 162; ++i) wv[i] = (float)((i * 5) % 9) * 0.0625f - 0.25f;
  Tensor in[3] = {half_tensor(ACL_FLOAT16, ACL_FORMAT_NHWC, 4, dx, xv),
                  half_tensor(ACL_FLOAT16, ACL_FORMAT_NCHW, 4, dw, wv), no_tensor()};
  Tensor y = half_tensor(ACL_FLOAT16, ACL_FORMAT_NHWC, 4, dy, NULL);
  aclopAttr *attr = aclopCreateAttr();
  const int64_t ones[4] = {1, 1, 1, 1};
  CHECK_OK(aclopSetAttrListInt(attr, "strides", 4, ones));
  CHECK_OK(aclopSetAttrListInt(attr, "pads", 4, ones));
  CHECK_OK(aclopSetAttrListInt(attr, "dilations", 4, ones));
  aclrtStream stream = NULL;
  CHECK_OK(aclrtCreateStream(&stream));
  Arrays i = arrays_of(3, in), o = arrays_of(1, &y);
  CHECK_OK(aclopCompileAndExecute("Conv2D", 3, (const aclTensorDesc *const *)i.desc, (const aclDataBuffer *const *)i.buf,
                                  1, (const aclTensorDesc *const *)o.desc, o.buf, attr, ACL_ENGINE_SYS, ACL_COMPILE_SYS,
                                  NULL, stream));
  CHECK_OK(aclrtSynchronizeStream(stream));
  int wrong = 0;
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 6; ++h)
      for (int w = 0; w < 5; ++w)
        for (int oc = 0; oc < 6; ++oc) {
          float acc = 0;
          for (int c = 0; c < 3; ++c)
            for (int kh = 0; kh < 3; ++kh)
              for (int kw = 0; kw < 3; ++kw) {
                const int ih = h - 1 + kh, iw = w - 1 + kw;
                if (ih < 0 || ih >= 6 || iw < 0 || iw >= 5) continue;
                acc += half_at(ACL_FLOAT16, &in[0], (size_t)(((n * 6 + ih) * 5 + iw) * 3 + c)) *
                       half_at(ACL_FLOAT16, &in[1], (size_t)(((oc * 3 + c) * 3 + kh) * 3 + kw));
              }
          const float got = half_at(ACL_FLOAT16, &y, (size_t)(((n * 6 + h) * 5 + w) * 6 + oc));
          const float expect = round_to(ACL_FLOAT16, acc);
          wrong += fabsf(got - expect) > 2e-3f * fmaxf(1.0f, fabsf(expect));
        }
  CHECK(wrong == 0);
  CHECK_OK(aclrtDestroyStream(stream));
  aclopDestroyAttr(attr);
  Tensor all[] = {in[0], in[1], in[2], y};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

/* Cast between f16 and f32 runs as it is (no widening needed). */
static void test_cast(void) {
  const int64_t d[1] = {3};
  const float v[3] = {1.5f, -0.25f, 65504.0f};
  Tensor x = half_tensor(ACL_FLOAT16, ACL_FORMAT_ND, 1, d, v), y = f32_output(1, d, 3);
  aclopAttr *attr = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(attr, "dst_type", ACL_FLOAT));
  CHECK_OK(compile_and_run("Cast", 1, &x, 1, &y, attr));
  CHECK(close_floats((float *)y.data, v, 3));
  aclopDestroyAttr(attr);
  free_tensor(&x);
  free_tensor(&y);
}

int main(void) {
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0)); /* a current context, for the stream of the Conv2D sample case */
  test_add(ACL_FLOAT16);
  test_add(ACL_BF16);
  test_matmul(ACL_FLOAT16);
  test_matmul(ACL_BF16);
  test_conv2d_f16();
  test_conv2d_sample_style();
  test_cast();
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl half floats");
}
