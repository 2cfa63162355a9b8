// acl/ops/acl_cblas.h: GEMM and GEMV. f32 and f16 run ge's Gemm op (compiled once per
// transposition for any shape, in a cache of their own; ge::execute_op), int8 sums exactly.
//
// GE runs these as its "GEMM" single op (inputs A, B, C, alpha, beta; output C), which a
// program must have compiled (atc --singleop) and loaded first; ge computes them directly,
// so they need nothing loaded. The checks are GE's: non-null pointers, m, n, k > 0,
// leading dimensions -1, ACL_COMPUTE_HIGH_PRECISION, transA/transB N, T or NZ and transC N
// or NZ (ge refuses the NZ layouts with ACL_ERROR_FORMAT_NOT_MATCH). A GEMV is a GEMM with
// one column: op(A) m x n times x (n x 1) into y (m x 1).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl_internal.hpp"
#include "acl/ops/acl_cblas.h"
#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace acl {

namespace {

// One product C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, checked.
struct Gemm {
  bool trans_a = false;
  bool trans_b = false;
  std::int64_t m = 0, n = 0, k = 0;
  int type_a = ACL_FLOAT, type_b = ACL_FLOAT, type_c = ACL_FLOAT;
};

std::string text(int v) { return std::to_string(v); }

bool read_trans(int t, const char* which) {
  require(t >= ACL_TRANS_N && t <= ACL_TRANS_NZ, std::string(which) + " is " + text(t) +
                                                     "; expected ACL_TRANS_N, ACL_TRANS_T or ACL_TRANS_NZ");
  require(t != ACL_TRANS_NZ, std::string(which) + " is ACL_TRANS_NZ, the device's packed fractal layout; the CPU takes "
                                                  "ACL_TRANS_N and ACL_TRANS_T",
          ACL_ERROR_FORMAT_NOT_MATCH);
  return t == ACL_TRANS_T;
}

void read_trans_c(int t) {
  require(t == ACL_TRANS_N || t == ACL_TRANS_NZ, "transC is " + text(t) + "; expected ACL_TRANS_N or ACL_TRANS_NZ");
  require(t == ACL_TRANS_N, "transC is ACL_TRANS_NZ, the device's packed fractal layout; the CPU takes ACL_TRANS_N",
          ACL_ERROR_FORMAT_NOT_MATCH);
}

void check_types(int a, int b, int c) {
  const bool ok = (a == ACL_FLOAT16 && b == ACL_FLOAT16 && (c == ACL_FLOAT16 || c == ACL_FLOAT)) ||
                  (a == ACL_FLOAT && b == ACL_FLOAT && c == ACL_FLOAT) ||
                  (a == ACL_INT8 && b == ACL_INT8 && c == ACL_INT32);
  require(ok, "types A " + text(a) + ", B " + text(b) + ", C " + text(c) +
                  "; expected f16, f16 with f16 or f32 C; f32, f32, f32; or int8, int8, int32",
          ACL_ERROR_UNSUPPORTED_DATA_TYPE);
}

// The checks both the call and its handle make (GE's order).
Gemm make_gemm(int trans_a, int trans_b, int trans_c, int m, int n, int k, int type_a, int type_b, int type_c,
               int compute) {
  require(m > 0 && n > 0 && k > 0, "m " + text(m) + ", n " + text(n) + ", k " + text(k) + "; each must be > 0");
  Gemm g;
  g.trans_a = read_trans(trans_a, "transA");
  g.trans_b = read_trans(trans_b, "transB");
  read_trans_c(trans_c);
  require(compute == ACL_COMPUTE_HIGH_PRECISION, "compute type " + text(compute) +
                                                     "; only ACL_COMPUTE_HIGH_PRECISION is supported (as on GE)");
  check_types(type_a, type_b, type_c);
  g.m = m;
  g.n = n;
  g.k = k;
  g.type_a = type_a;
  g.type_b = type_b;
  g.type_c = type_c;
  return g;
}

void require_leading_dims(int lda, int ldb, int ldc) {
  require(lda == -1 && ldb == -1 && ldc == -1, "lda/incx " + text(lda) + ", ldb " + text(ldb) + ", ldc/incy " +
                                                   text(ldc) + "; GE takes only -1 (dense row-major matrices)");
}

float scalar(const void* p, int type) {
  if (type == ACL_FLOAT16) {
    std::uint16_t h;
    std::memcpy(&h, p, sizeof h);
    return ge::cpu::half_to_float(h);
  }
  float f;
  std::memcpy(&f, p, sizeof f);
  return f;
}

std::vector<float> widen(const void* p, int type, std::int64_t count) {
  std::vector<float> out(static_cast<std::size_t>(count));
  if (type == ACL_FLOAT16) {
    const auto* h = static_cast<const std::uint16_t*>(p);
    for (std::int64_t i = 0; i < count; ++i) out[static_cast<std::size_t>(i)] = ge::cpu::half_to_float(h[i]);
  } else {
    std::memcpy(out.data(), p, out.size() * sizeof(float));
  }
  return out;
}

// op(A) x op(B) in f32 by ge's Gemm op, compiled fuzzy (for every shape of rank 2) once
// per transposition pair, in a cache apart from the programs' aclopCompile cache.
std::vector<float> product(const Gemm& g, const std::vector<float>& fa, const std::vector<float>& fb) {
  static ge::OpCompiler compiler(16);
  const auto desc = [](std::int64_t rows, std::int64_t cols) {
    return ge::OpTensor{ge::DataType::f32, ge::Shape{rows, cols}, ge::Format::nd, std::nullopt};
  };
  ge::OpCompileRequest r;
  r.op_type = "Gemm";
  r.inputs = {g.trans_a ? desc(g.k, g.m) : desc(g.m, g.k), g.trans_b ? desc(g.n, g.k) : desc(g.k, g.n)};
  r.outputs = {desc(g.m, g.n)};
  r.flag = ge::CompileFlag::fuzzy;
  r.attrs = {{"transA", ge::Attribute(std::int64_t{g.trans_a})}, {"transB", ge::Attribute(std::int64_t{g.trans_b})}};
  const auto op = compiler.compile(r);
  std::vector<float> y(static_cast<std::size_t>(g.m * g.n));
  const std::int64_t a_dims[] = {g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k};
  const std::int64_t b_dims[] = {g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n};
  const std::int64_t y_dims[] = {g.m, g.n};
  const ge::TensorView in[] = {ge::TensorView(std::span<const float>(fa), ge::ViewDims(a_dims)),
                               ge::TensorView(std::span<const float>(fb), ge::ViewDims(b_dims))};
  const ge::TensorView out[] = {ge::TensorView(std::span<float>(y), ge::ViewDims(y_dims))};
  (void)ge::execute_op(*op, in, out);
  return y;
}

void run_float(const Gemm& g, const void* alpha, const void* a, const void* b, const void* beta, void* c) {
  const float al = scalar(alpha, g.type_c);
  const float be = scalar(beta, g.type_c);
  // alpha 0: A and B are not read (BLAS's rule; their product may overflow or be NaN).
  std::vector<float> y = al == 0.0f ? std::vector<float>(static_cast<std::size_t>(g.m * g.n))
                                    : product(g, widen(a, g.type_a, g.m * g.k), widen(b, g.type_b, g.k * g.n));
  if (al != 1.0f && al != 0.0f) {
    for (float& v : y) v *= al;
  }
  if (be != 0.0f) {  // beta 0: C is not read (it may hold anything)
    const std::vector<float> old = widen(c, g.type_c, g.m * g.n);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += be * old[i];
  }
  if (g.type_c == ACL_FLOAT16) {
    auto* h = static_cast<std::uint16_t*>(c);
    for (std::size_t i = 0; i < y.size(); ++i) h[i] = ge::cpu::float_to_half(y[i]);
  } else {
    std::memcpy(c, y.data(), y.size() * sizeof(float));
  }
}

// int8 products summed exactly; alpha * sum + beta * C wraps to int32 as the hardware does.
void run_int8(const Gemm& g, const void* alpha, const void* a, const void* b, const void* beta, void* c) {
  std::int32_t al, be;
  std::memcpy(&al, alpha, sizeof al);
  std::memcpy(&be, beta, sizeof be);
  const auto* pa = static_cast<const std::int8_t*>(a);
  const auto* pb = static_cast<const std::int8_t*>(b);
  auto* pc = static_cast<std::int32_t*>(c);
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t j = 0; j < g.n; ++j) {
      std::int64_t sum = 0;
      for (std::int64_t p = 0; p < g.k; ++p) {
        const std::int64_t x = g.trans_a ? pa[p * g.m + i] : pa[i * g.k + p];
        const std::int64_t w = g.trans_b ? pb[j * g.k + p] : pb[p * g.n + j];
        sum += x * w;
      }
      std::int64_t v = static_cast<std::int64_t>(al) * sum;
      if (be != 0) v += static_cast<std::int64_t>(be) * pc[i * g.n + j];
      pc[i * g.n + j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    }
}

void run(std::string_view api, const Gemm& g, const void* alpha, const void* a, const void* b, const void* beta,
         void* c, aclrtStream stream) {
  require_stream(stream, api);
  run_task(api, stream, [&] {
    if (g.type_a == ACL_INT8)
      run_int8(g, alpha, a, b, beta, c);
    else
      run_float(g, alpha, a, b, beta, c);
  });
}

void require_pointers(const void* alpha, const void* a, const void* b, const void* beta, const void* c) {
  require(alpha != nullptr && beta != nullptr, "alpha or beta is null");
  require(a != nullptr && b != nullptr && c != nullptr, "a matrix (or vector) pointer is null");
}

aclError gemm_ex(std::string_view api, int trans_a, int trans_b, int trans_c, int m, int n, int k, const void* alpha,
                 const void* a, int lda, int type_a, const void* b, int ldb, int type_b, const void* beta, void* c,
                 int ldc, int type_c, int compute, aclrtStream stream) {
  return guard(api, [&] {
    require_initialized(api);
    require_pointers(alpha, a, b, beta, c);
    const Gemm g = make_gemm(trans_a, trans_b, trans_c, m, n, k, type_a, type_b, type_c, compute);
    require_leading_dims(lda, ldb, ldc);
    run(api, g, alpha, a, b, beta, c, stream);
    return ACL_SUCCESS;
  });
}

aclError gemv_ex(std::string_view api, int trans_a, int m, int n, const void* alpha, const void* a, int lda,
                 int type_a, const void* x, int incx, int type_x, const void* beta, void* y, int incy, int type_y,
                 int compute, aclrtStream stream) {
  return gemm_ex(api, trans_a, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, type_a, x, incx, type_x, beta, y, incy,
                 type_y, compute, stream);
}

std::size_t bytes_of(int type, std::int64_t count) {
  const std::size_t each = type == ACL_INT8 ? 1 : type == ACL_FLOAT16 ? 2 : 4;
  return each * static_cast<std::size_t>(count);
}

// A handle whose aclopExecWithHandle takes (A, B, C, alpha, beta) and gives C.
aclError make_handle(std::string_view api, aclopHandle** handle, int trans_a, int trans_b, int trans_c, int m, int n,
                     int k, int type_a, int type_b, int type_c, int compute) {
  return guard(api, [&] {
    require_initialized(api);
    require(handle != nullptr, "the pointer to store the handle in is null");
    const Gemm g = make_gemm(trans_a, trans_b, trans_c, m, n, k, type_a, type_b, type_c, compute);
    auto h = std::make_unique<aclopHandle>();
    h->num_inputs = 5;
    h->num_outputs = 1;
    h->direct = [g, name = std::string(api)](const aclDataBuffer* const* in, aclDataBuffer* const* out,
                                             aclrtStream stream) {
      require(in != nullptr && out != nullptr, "the input or output buffers are null");
      const std::size_t need[] = {bytes_of(g.type_a, g.m * g.k), bytes_of(g.type_b, g.k * g.n),
                                  bytes_of(g.type_c, g.m * g.n), bytes_of(g.type_c, 1), bytes_of(g.type_c, 1)};
      const char* names[] = {"A", "B", "C", "alpha", "beta"};
      for (int i = 0; i < 5; ++i) {
        require(in[i] != nullptr && in[i]->data != nullptr, std::string("input ") + names[i] + "'s buffer is null");
        require(in[i]->size >= need[i], std::string("input ") + names[i] + "'s buffer holds " +
                                            std::to_string(in[i]->size) + " bytes; it needs " +
                                            std::to_string(need[i]));
      }
      require(out[0] != nullptr && out[0]->data != nullptr, "output C's buffer is null");
      require(out[0]->size >= need[2], "output C's buffer holds " + std::to_string(out[0]->size) +
                                           " bytes; it needs " + std::to_string(need[2]));
      if (in[2]->data != out[0]->data) std::memmove(out[0]->data, in[2]->data, need[2]);
      run(name + " handle", g, in[3]->data, in[0]->data, in[1]->data, in[4]->data, out[0]->data, stream);
    };
    *handle = h.release();
    return ACL_SUCCESS;
  });
}

}  // namespace

}  // namespace acl

extern "C" {

aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n, int k,
                       const void* alpha, const void* matrixA, int lda, aclDataType dataTypeA, const void* matrixB,
                       int ldb, aclDataType dataTypeB, const void* beta, void* matrixC, int ldc, aclDataType dataTypeC,
                       aclComputeType type, aclrtStream stream) {
  return acl::gemm_ex("aclblasGemmEx", acl::raw(transA), acl::raw(transB), acl::raw(transC), m, n, k, alpha, matrixA,
                      lda, acl::raw(dataTypeA), matrixB, ldb, acl::raw(dataTypeB), beta, matrixC, ldc,
                      acl::raw(dataTypeC), acl::raw(type), stream);
}

aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n, int k,
                      const aclFloat16* alpha, const aclFloat16* matrixA, int lda, const aclFloat16* matrixB, int ldb,
                      const aclFloat16* beta, aclFloat16* matrixC, int ldc, aclComputeType type, aclrtStream stream) {
  return acl::gemm_ex("aclblasHgemm", acl::raw(transA), acl::raw(transB), acl::raw(transC), m, n, k, alpha, matrixA,
                      lda, ACL_FLOAT16, matrixB, ldb, ACL_FLOAT16, beta, matrixC, ldc, ACL_FLOAT16, acl::raw(type),
                      stream);
}

aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n, int k,
                       const int32_t* alpha, const int8_t* matrixA, int lda, const int8_t* matrixB, int ldb,
                       const int32_t* beta, int32_t* matrixC, int ldc, aclComputeType type, aclrtStream stream) {
  return acl::gemm_ex("aclblasS8gemm", acl::raw(transA), acl::raw(transB), acl::raw(transC), m, n, k, alpha, matrixA,
                      lda, ACL_INT8, matrixB, ldb, ACL_INT8, beta, matrixC, ldc, ACL_INT32, acl::raw(type), stream);
}

aclError aclblasGemvEx(aclTransType transA, int m, int n, const void* alpha, const void* a, int lda,
                       aclDataType dataTypeA, const void* x, int incx, aclDataType dataTypeX, const void* beta, void* y,
                       int incy, aclDataType dataTypeY, aclComputeType type, aclrtStream stream) {
  return acl::gemv_ex("aclblasGemvEx", acl::raw(transA), m, n, alpha, a, lda, acl::raw(dataTypeA), x, incx,
                      acl::raw(dataTypeX), beta, y, incy, acl::raw(dataTypeY), acl::raw(type), stream);
}

aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16* alpha, const aclFloat16* a, int lda,
                      const aclFloat16* x, int incx, const aclFloat16* beta, aclFloat16* y, int incy,
                      aclComputeType type, aclrtStream stream) {
  return acl::gemv_ex("aclblasHgemv", acl::raw(transA), m, n, alpha, a, lda, ACL_FLOAT16, x, incx, ACL_FLOAT16, beta, y,
                      incy, ACL_FLOAT16, acl::raw(type), stream);
}

aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t* alpha, const int8_t* a, int lda,
                       const int8_t* x, int incx, const int32_t* beta, int32_t* y, int incy, aclComputeType type,
                       aclrtStream stream) {
  return acl::gemv_ex("aclblasS8gemv", acl::raw(transA), m, n, alpha, a, lda, ACL_INT8, x, incx, ACL_INT8, beta, y,
                      incy, ACL_INT32, acl::raw(type), stream);
}

aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                      int k, aclDataType dataTypeA, aclDataType dataTypeB, aclDataType dataTypeC,
                                      aclComputeType type, aclopHandle** handle) {
  return acl::make_handle("aclblasCreateHandleForGemmEx", handle, acl::raw(transA), acl::raw(transB), acl::raw(transC),
                          m, n, k, acl::raw(dataTypeA), acl::raw(dataTypeB), acl::raw(dataTypeC), acl::raw(type));
}

aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                     int k, aclComputeType type, aclopHandle** handle) {
  return acl::make_handle("aclblasCreateHandleForHgemm", handle, acl::raw(transA), acl::raw(transB), acl::raw(transC),
                          m, n, k, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, acl::raw(type));
}

aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                      int k, aclComputeType type, aclopHandle** handle) {
  return acl::make_handle("aclblasCreateHandleForS8gemm", handle, acl::raw(transA), acl::raw(transB), acl::raw(transC),
                          m, n, k, ACL_INT8, ACL_INT8, ACL_INT32, acl::raw(type));
}

aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA, aclDataType dataTypeX,
                                      aclDataType dataTypeY, aclComputeType type, aclopHandle** handle) {
  return acl::make_handle("aclblasCreateHandleForGemvEx", handle, acl::raw(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n,
                          acl::raw(dataTypeA), acl::raw(dataTypeX), acl::raw(dataTypeY), acl::raw(type));
}

aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type, aclopHandle** handle) {
  return acl::make_handle("aclblasCreateHandleForHgemv", handle, acl::raw(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n,
                          ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, acl::raw(type));
}

aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type, aclopHandle** handle) {
  return acl::make_handle("aclblasCreateHandleForS8gemv", handle, acl::raw(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n,
                          ACL_INT8, ACL_INT8, ACL_INT32, acl::raw(type));
}

}  // extern "C"
