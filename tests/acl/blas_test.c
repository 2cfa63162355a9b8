/* acl/ops/acl_cblas.h: GEMM and GEMV in f32, f16 (widened to f32, rounded back) and int8
 * (summed exactly into int32), transposed or not, direct and through handles, checked
 * against a plain reference; and GE's argument rules. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/ops/acl_cblas.h"
#include "check.h"

/* IEEE half from float for the values used here (normal range, round to nearest even). */
static aclFloat16 to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a == 0) return sign;
  const uint32_t r = a - 0x38000000u;
  return (uint16_t)(sign | ((r + 0x0fffu + ((r >> 13) & 1u)) >> 13));
}

static float from_half(aclFloat16 h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t bits = e == 0 ? sign : (sign | ((e + 112) << 23) | (m << 13));
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* C = alpha * op(A) * op(B) + beta * C in double, A stored m x k (k x m when ta), B k x n
 * (n x k when tb). */
static void reference(int ta, int tb, int m, int n, int k, double alpha, const double *a, const double *b,
                      double beta, double *c) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = alpha * s + beta * c[i * n + j];
    }
}

enum { M = 3, N = 4, K = 5 };

static double av(int i) { return (double)((i * 7) % 11 - 5); }
static double bv(int i) { return (double)((i * 5) % 9 - 4) * 0.5; }

static void test_gemm_f32(aclrtStream s) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      double a[M * K], b[K * N], c[M * N];
      float fa[M * K], fb[K * N], fc[M * N];
      for (int i = 0; i < M * K; ++i) fa[i] = (float)(a[i] = av(i));
      for (int i = 0; i < K * N; ++i) fb[i] = (float)(b[i] = bv(i));
      for (int i = 0; i < M * N; ++i) fc[i] = (float)(c[i] = i);
      const float alpha = 2.0f, beta = 0.5f;
      reference(ta, tb, M, N, K, alpha, a, b, beta, c);
      CHECK_OK(aclblasGemmEx(ta ? ACL_TRANS_T : ACL_TRANS_N, tb ? ACL_TRANS_T : ACL_TRANS_N, ACL_TRANS_N, M, N, K,
                             &alpha, fa, -1, ACL_FLOAT, fb, -1, ACL_FLOAT, &beta, fc, -1, ACL_FLOAT,
                             ACL_COMPUTE_HIGH_PRECISION, s));
      CHECK_OK(aclrtSynchronizeStream(s));
      float want[M * N];
      for (int i = 0; i < M * N; ++i) want[i] = (float)c[i];
      CHECK(close_floats(fc, want, M * N));
    }
  /* beta 0: C is not read, even when it holds NaN */
  float fa[M * K], fb[K * N], fc[M * N];
  double a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) fa[i] = (float)(a[i] = av(i));
  for (int i = 0; i < K * N; ++i) fb[i] = (float)(b[i] = bv(i));
  for (int i = 0; i < M * N; ++i) {
    fc[i] = NAN;
    c[i] = 0;
  }
  const float one = 1.0f, zero = 0.0f;
  reference(0, 0, M, N, K, 1.0, a, b, 0.0, c);
  CHECK_OK(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, &one, fa, -1, ACL_FLOAT, fb, -1, ACL_FLOAT,
                         &zero, fc, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s));
  float want[M * N];
  for (int i = 0; i < M * N; ++i) want[i] = (float)c[i];
  CHECK(close_floats(fc, want, M * N));

  /* alpha 0: A and B are not read, even when they hold NaN; C = beta * C */
  const float two = 2.0f;
  for (int i = 0; i < M * K; ++i) fa[i] = NAN;
  for (int i = 0; i < M * N; ++i) {
    fc[i] = (float)i;
    want[i] = 2.0f * (float)i;
  }
  CHECK_OK(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, &zero, fa, -1, ACL_FLOAT, fb, -1, ACL_FLOAT,
                         &two, fc, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s));
  CHECK(close_floats(fc, want, M * N));

  /* another shape through the same compiled (fuzzy) op */
  {
    enum { M2 = 7, N2 = 2, K2 = 9 };
    double a2[M2 * K2], b2[K2 * N2], c2[M2 * N2];
    float fa2[M2 * K2], fb2[K2 * N2], fc2[M2 * N2], want2[M2 * N2];
    for (int i = 0; i < M2 * K2; ++i) fa2[i] = (float)(a2[i] = av(i));
    for (int i = 0; i < K2 * N2; ++i) fb2[i] = (float)(b2[i] = bv(i));
    for (int i = 0; i < M2 * N2; ++i) fc2[i] = (float)(c2[i] = 0);
    reference(0, 1, M2, N2, K2, 1.0, a2, b2, 0.0, c2);
    CHECK_OK(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, M2, N2, K2, &one, fa2, -1, ACL_FLOAT, fb2, -1,
                           ACL_FLOAT, &zero, fc2, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s));
    for (int i = 0; i < M2 * N2; ++i) want2[i] = (float)c2[i];
    CHECK(close_floats(fc2, want2, M2 * N2));
  }
}

static void test_gemm_f16(aclrtStream s) {
  double a[M * K], b[K * N], c[M * N];
  aclFloat16 ha[M * K], hb[K * N], hc[M * N];
  float fc[M * N];
  for (int i = 0; i < M * K; ++i) ha[i] = to_half((float)(a[i] = av(i)));
  for (int i = 0; i < K * N; ++i) hb[i] = to_half((float)(b[i] = bv(i)));
  for (int i = 0; i < M * N; ++i) hc[i] = to_half((float)(c[i] = i));
  const aclFloat16 alpha = to_half(1.0f), beta = to_half(2.0f);
  reference(1, 0, M, N, K, 1.0, a, b, 2.0, c); /* A read as stored K x M */
  CHECK_OK(aclblasHgemm(ACL_TRANS_T, ACL_TRANS_N, ACL_TRANS_N, M, N, K, &alpha, ha, -1, hb, -1, &beta, hc, -1,
                        ACL_COMPUTE_HIGH_PRECISION, s));
  for (int i = 0; i < M * N; ++i) fc[i] = from_half(hc[i]);
  float want[M * N];
  for (int i = 0; i < M * N; ++i) want[i] = (float)c[i]; /* small halves: exact */
  CHECK(close_floats(fc, want, M * N));

  /* f16 inputs, f32 output; alpha and beta of C's type */
  reference(0, 0, M, N, K, 1.0, a, b, 0.0, c);
  const float one = 1.0f, zero = 0.0f;
  for (int i = 0; i < M * K; ++i) ha[i] = to_half((float)a[i]);
  CHECK_OK(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, &one, ha, -1, ACL_FLOAT16, hb, -1,
                         ACL_FLOAT16, &zero, fc, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s));
  for (int i = 0; i < M * N; ++i) want[i] = (float)c[i];
  CHECK(close_floats(fc, want, M * N));
}

static void test_gemm_int8(aclrtStream s) {
  int8_t a[M * K], b[K * N];
  int32_t c[M * N];
  double da[M * K], db[K * N], dc[M * N];
  for (int i = 0; i < M * K; ++i) da[i] = a[i] = (int8_t)((i * 37) % 255 - 127);
  for (int i = 0; i < K * N; ++i) db[i] = b[i] = (int8_t)((i * 53) % 255 - 127);
  for (int i = 0; i < M * N; ++i) dc[i] = c[i] = i - 6;
  const int32_t alpha = 3, beta = -2;
  reference(0, 1, M, N, K, 3, da, db, -2, dc);
  CHECK_OK(aclblasS8gemm(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, M, N, K, &alpha, a, -1, b, -1, &beta, c, -1,
                         ACL_COMPUTE_HIGH_PRECISION, s));
  int exact = 1;
  for (int i = 0; i < M * N; ++i) exact = exact && c[i] == (int32_t)dc[i];
  CHECK(exact);
}

static void test_gemv(aclrtStream s) {
  /* op(A) is M x K: y (M) = alpha * op(A) x (K) + beta * y */
  double a[M * K], x[K], y[M];
  float fa[M * K], fx[K], fy[M];
  for (int i = 0; i < M * K; ++i) fa[i] = (float)(a[i] = av(i));
  for (int i = 0; i < K; ++i) fx[i] = (float)(x[i] = bv(i));
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < M; ++i) fy[i] = (float)(y[i] = 1.0 + i);
    reference(t, 0, M, 1, K, 1.5, a, x, 1.0, y);
    const float alpha = 1.5f, beta = 1.0f;
    CHECK_OK(aclblasGemvEx(t ? ACL_TRANS_T : ACL_TRANS_N, M, K, &alpha, fa, -1, ACL_FLOAT, fx, -1, ACL_FLOAT, &beta,
                           fy, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s));
    float want[M];
    for (int i = 0; i < M; ++i) want[i] = (float)y[i];
    CHECK(close_floats(fy, want, M));
  }
  aclFloat16 ha[M * K], hx[K], hy[M];
  for (int i = 0; i < M * K; ++i) ha[i] = to_half(fa[i]);
  for (int i = 0; i < K; ++i) hx[i] = to_half(fx[i]);
  for (int i = 0; i < M; ++i) y[i] = 0;
  reference(0, 0, M, 1, K, 1.0, a, x, 0.0, y);
  const aclFloat16 one = to_half(1.0f), zero = to_half(0.0f);
  CHECK_OK(aclblasHgemv(ACL_TRANS_N, M, K, &one, ha, -1, hx, -1, &zero, hy, -1, ACL_COMPUTE_HIGH_PRECISION, s));
  int same = 1;
  for (int i = 0; i < M; ++i) same = same && from_half(hy[i]) == (float)y[i];
  CHECK(same);
  int8_t ia[M * K], ix[K];
  int32_t iy[M] = {0, 0, 0};
  for (int i = 0; i < M * K; ++i) ia[i] = (int8_t)av(i);
  for (int i = 0; i < K; ++i) ix[i] = (int8_t)(i - 2);
  const int32_t ione = 1, izero = 0;
  CHECK_OK(aclblasS8gemv(ACL_TRANS_N, M, K, &ione, ia, -1, ix, -1, &izero, iy, -1, ACL_COMPUTE_HIGH_PRECISION, s));
  int exact = 1;
  for (int i = 0; i < M; ++i) {
    int32_t want = 0;
    for (int p = 0; p < K; ++p) want += ia[i * K + p] * ix[p];
    exact = exact && iy[i] == want;
  }
  CHECK(exact);
}

static void test_handles(aclrtStream s) {
  aclopHandle *h = NULL;
  CHECK_OK(aclblasCreateHandleForGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, ACL_FLOAT, ACL_FLOAT,
                                        ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, &h));
  double a[M * K], b[K * N], c[M * N];
  float fa[M * K], fb[K * N], fc[M * N], alpha = 1.0f, beta = 1.0f;
  for (int i = 0; i < M * K; ++i) fa[i] = (float)(a[i] = av(i));
  for (int i = 0; i < K * N; ++i) fb[i] = (float)(b[i] = bv(i));
  for (int i = 0; i < M * N; ++i) fc[i] = (float)(c[i] = 1.0);
  reference(0, 0, M, N, K, 1.0, a, b, 1.0, c);
  aclDataBuffer *in[5] = {aclCreateDataBuffer(fa, sizeof fa), aclCreateDataBuffer(fb, sizeof fb),
                          aclCreateDataBuffer(fc, sizeof fc), aclCreateDataBuffer(&alpha, sizeof alpha),
                          aclCreateDataBuffer(&beta, sizeof beta)};
  aclDataBuffer *out[1] = {aclCreateDataBuffer(fc, sizeof fc)};
  CHECK_OK(aclopExecWithHandle(h, 5, (const aclDataBuffer *const *)in, 1, out, s));
  float want[M * N];
  for (int i = 0; i < M * N; ++i) want[i] = (float)c[i];
  CHECK(close_floats(fc, want, M * N));
  CHECK_ACL(aclopExecWithHandle(h, 4, (const aclDataBuffer *const *)in, 1, out, s), ACL_ERROR_INVALID_PARAM);
  aclDataBuffer *small = aclCreateDataBuffer(fa, 8);
  aclDataBuffer *bad_in[5] = {small, in[1], in[2], in[3], in[4]};
  CHECK_ACL(aclopExecWithHandle(h, 5, (const aclDataBuffer *const *)bad_in, 1, out, s), ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "bytes") != NULL);
  aclopDestroyHandle(h);
  aclDestroyDataBuffer(small);
  for (int i = 0; i < 5; ++i) aclDestroyDataBuffer(in[i]);
  aclDestroyDataBuffer(out[0]);

  CHECK_OK(aclblasCreateHandleForHgemm(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, 2, 2, 2, ACL_COMPUTE_HIGH_PRECISION, &h));
  aclopDestroyHandle(h);
  CHECK_OK(aclblasCreateHandleForS8gemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, 2, ACL_COMPUTE_HIGH_PRECISION, &h));
  aclopDestroyHandle(h);
  CHECK_OK(aclblasCreateHandleForGemvEx(ACL_TRANS_N, 2, 2, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT,
                                        ACL_COMPUTE_HIGH_PRECISION, &h));
  aclopDestroyHandle(h);
  CHECK_OK(aclblasCreateHandleForHgemv(ACL_TRANS_T, 2, 2, ACL_COMPUTE_HIGH_PRECISION, &h));
  aclopDestroyHandle(h);

  /* S8 GEMV through its handle: inputs (A, x, y, alpha, beta), output y */
  CHECK_OK(aclblasCreateHandleForS8gemv(ACL_TRANS_N, 2, 3, ACL_COMPUTE_HIGH_PRECISION, &h));
  int8_t ia[6] = {1, 2, 3, 4, 5, 6}, ix[3] = {1, -1, 2};
  int32_t iy[2] = {10, 20}, ialpha = 2, ibeta = 1;
  aclDataBuffer *vin[5] = {aclCreateDataBuffer(ia, sizeof ia), aclCreateDataBuffer(ix, sizeof ix),
                           aclCreateDataBuffer(iy, sizeof iy), aclCreateDataBuffer(&ialpha, 4),
                           aclCreateDataBuffer(&ibeta, 4)};
  aclDataBuffer *vout[1] = {aclCreateDataBuffer(iy, sizeof iy)};
  CHECK_OK(aclopExecWithHandle(h, 5, (const aclDataBuffer *const *)vin, 1, vout, s));
  CHECK(iy[0] == 2 * (1 - 2 + 6) + 10 && iy[1] == 2 * (4 - 5 + 12) + 20);
  for (int i = 0; i < 5; ++i) aclDestroyDataBuffer(vin[i]);
  aclDestroyDataBuffer(vout[0]);
  aclopDestroyHandle(h);

  CHECK_ACL(aclblasCreateHandleForGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 0, 1, 1, ACL_FLOAT, ACL_FLOAT,
                                         ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, &h),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclblasCreateHandleForHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 1, 1, 1, ACL_COMPUTE_HIGH_PRECISION,
                                        NULL),
            ACL_ERROR_INVALID_PARAM);
}

static void test_errors(aclrtStream s) {
  float a[4] = {0}, b[4] = {0}, c[4] = {0}, one = 1.0f;
#define GEMM(ta, tb, tc, m, lda, typeA, typeC, type, stream, A)                                                    \
  aclblasGemmEx(ta, tb, tc, m, 2, 2, &one, A, lda, typeA, b, -1, typeA, &one, c, -1, typeC, type, stream)
  CHECK_OK(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a));
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s,
                 NULL),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 0, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_INVALID_PARAM); /* lda must be -1 */
  CHECK(strstr(aclGetRecentErrMsg(), "-1") != NULL);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_LOW_PRECISION, s, a),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(GEMM(ACL_TRANS_NZ, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(GEMM(ACL_TRANS_NZ_T, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s,
                 a),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_T, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_NZ, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT16, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_INT8, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, s, a),
            ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  int not_a_stream = 0;
  CHECK_ACL(GEMM(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, -1, ACL_FLOAT, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION,
                 &not_a_stream, a),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclblasGemvEx(ACL_TRANS_N, 2, 2, &one, a, -1, ACL_FLOAT, b, 1, ACL_FLOAT, &one, c, -1, ACL_FLOAT,
                          ACL_COMPUTE_HIGH_PRECISION, s),
            ACL_ERROR_INVALID_PARAM); /* incx must be -1 */
  CHECK_ACL(aclblasGemvEx(ACL_TRANS_N, 2, 2, NULL, a, -1, ACL_FLOAT, b, -1, ACL_FLOAT, &one, c, -1, ACL_FLOAT,
                          ACL_COMPUTE_HIGH_PRECISION, s),
            ACL_ERROR_INVALID_PARAM);
#undef GEMM
}

int main(void) {
  float a[1] = {0}, one = 1.0f;
  CHECK_ACL(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 1, 1, 1, &one, a, -1, ACL_FLOAT, a, -1, ACL_FLOAT,
                          &one, a, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, NULL),
            ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  aclrtStream s = NULL;
  CHECK_OK(aclrtCreateStream(&s));
  test_gemm_f32(s);
  test_gemm_f32(NULL);
  test_gemm_f16(s);
  test_gemm_int8(s);
  test_gemv(s);
  test_handles(s);
  test_errors(s);
  CHECK_OK(aclrtDestroyStream(s));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl blas");
}
