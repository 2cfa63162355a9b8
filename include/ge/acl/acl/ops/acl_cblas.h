/* ge's acl C API: the BLAS calls GE offers on a stream: matrix-matrix (GEMM) and
 * matrix-vector (GEMV) products, C = alpha * op(A) * op(B) + beta * C.
 *
 * Matrices are dense and row-major (ND): A holds op(A) (m x k) as m x k, or as k x m with
 * ACL_TRANS_T; B holds op(B) (k x n) as k x n, or n x k with ACL_TRANS_T; C is m x n. The
 * leading dimensions (lda, ldb, ldc; incx, incy) must be -1, as GE requires. alpha and beta
 * point at one value of C's type. beta 0: C is not read. ge computes on the CPU: f16 widened
 * to f32 and rounded back, int8 products summed exactly in int32. The packed layouts
 * (ACL_TRANS_NZ, ACL_TRANS_NZ_T) are ACL_ERROR_FORMAT_NOT_MATCH. The work is done when the
 * call returns; a kernel failure calls the exception callback (acl_rt.h).
 *
 *   float alpha = 1, beta = 0;
 *   aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, m, n, k, &alpha, a, -1, ACL_FLOAT16,
 *                 b, -1, ACL_FLOAT16, &beta, c, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, stream);
 */
#ifndef GE_ACL_OPS_ACL_CBLAS_H_
#define GE_ACL_OPS_ACL_CBLAS_H_

#include "../acl_rt.h"
#include "../acl_op.h"
#include "../acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a matrix is stored: as it is (N), transposed (T), or in the device's packed fractal
 * layout (NZ, NZ_T; not on the CPU). */
typedef enum aclTransType { ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_NZ, ACL_TRANS_NZ_T } aclTransType;

/* The precision asked for: GE's calls take only ACL_COMPUTE_HIGH_PRECISION. */
typedef enum aclComputeType { ACL_COMPUTE_HIGH_PRECISION, ACL_COMPUTE_LOW_PRECISION } aclComputeType;

/* y = alpha * op(A) * x + beta * y, op(A) m x n (A stored n x m with ACL_TRANS_T), x of n
 * values, y of m. Types: A and x ACL_FLOAT16 with y ACL_FLOAT16 or ACL_FLOAT; ACL_INT8
 * with ACL_INT32; ACL_FLOAT with ACL_FLOAT. */
ACL_FUNC_VISIBILITY aclError aclblasGemvEx(aclTransType transA, int m, int n, const void *alpha, const void *a, int lda,
                                           aclDataType dataTypeA, const void *x, int incx, aclDataType dataTypeX,
                                           const void *beta, void *y, int incy, aclDataType dataTypeY,
                                           aclComputeType type, aclrtStream stream);
/* A handle for aclopExecWithHandle: inputs (A, x, y, alpha, beta), output y. */
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA,
                                                          aclDataType dataTypeX, aclDataType dataTypeY,
                                                          aclComputeType type, aclopHandle **handle);
/* aclblasGemvEx all in ACL_FLOAT16. */
ACL_FUNC_VISIBILITY aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16 *alpha,
                                          const aclFloat16 *a, int lda, const aclFloat16 *x, int incx,
                                          const aclFloat16 *beta, aclFloat16 *y, int incy, aclComputeType type,
                                          aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type,
                                                         aclopHandle **handle);
/* aclblasGemvEx with ACL_INT8 A and x, ACL_INT32 y. */
ACL_FUNC_VISIBILITY aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t *alpha, const int8_t *a,
                                           int lda, const int8_t *x, int incx, const int32_t *beta, int32_t *y,
                                           int incy, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type,
                                                          aclopHandle **handle);

/* C = alpha * op(A) * op(B) + beta * C (transC: ACL_TRANS_N). Types: A and B ACL_FLOAT16
 * with C ACL_FLOAT16 or ACL_FLOAT; ACL_INT8 with ACL_INT32; ACL_FLOAT with ACL_FLOAT. */
ACL_FUNC_VISIBILITY aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                           int k, const void *alpha, const void *matrixA, int lda,
                                           aclDataType dataTypeA, const void *matrixB, int ldb, aclDataType dataTypeB,
                                           const void *beta, void *matrixC, int ldc, aclDataType dataTypeC,
                                           aclComputeType type, aclrtStream stream);
/* A handle for aclopExecWithHandle: inputs (A, B, C, alpha, beta), output C. */
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB, aclTransType transC,
                                                          int m, int n, int k, aclDataType dataTypeA,
                                                          aclDataType dataTypeB, aclDataType dataTypeC,
                                                          aclComputeType type, aclopHandle **handle);
/* aclblasGemmEx all in ACL_FLOAT16. */
ACL_FUNC_VISIBILITY aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                          int k, const aclFloat16 *alpha, const aclFloat16 *matrixA, int lda,
                                          const aclFloat16 *matrixB, int ldb, const aclFloat16 *beta,
                                          aclFloat16 *matrixC, int ldc, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB, aclTransType transC,
                                                         int m, int n, int k, aclComputeType type,
                                                         aclopHandle **handle);
/* aclblasGemmEx with ACL_INT8 A and B, ACL_INT32 C. */
ACL_FUNC_VISIBILITY aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                           int k, const int32_t *alpha, const int8_t *matrixA, int lda,
                                           const int8_t *matrixB, int ldb, const int32_t *beta, int32_t *matrixC,
                                           int ldc, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB, aclTransType transC,
                                                          int m, int n, int k, aclComputeType type,
                                                          aclopHandle **handle);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_OPS_ACL_CBLAS_H_ */
