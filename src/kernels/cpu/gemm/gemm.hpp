#pragma once
/// \file
/// Single-precision GEMM for the CPU kernels, and the MatMul and Gemm ops built on it.
///
/// The core multiplies packed operands: A in panels of `kGemmMR` rows, B in panels of
/// `kGemmNR` columns, both zero-padded and stored over the whole K. A register-tiled
/// 6x16 micro-kernel (GCC vector extensions, compiled for AVX-512, AVX2+FMA and baseline
/// x86-64, the widest the CPU runs chosen once at start-up) runs over cache blocks of K;
/// output blocks run in parallel with oneTBB on the caller's task arena. Epilogues (bias, residual add, ReLU/clip) are fused into the
/// micro-kernel's store.
///
/// ```
/// ge::cpu::matmul(a, b, y);                                // numpy matmul
/// ge::cpu::gemm({.alpha = 1, .beta = 1, .trans_b = true}, a, b, &c, y);  // ONNX Gemm
/// auto pb = ge::cpu::pack_matmul_b(w);                     // pack a constant B once
/// ge::cpu::matmul(a, pb, y);
/// ```

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Rows of a packed A panel (the micro-kernel's M tile).
inline constexpr std::int64_t kGemmMR = 6;
/// The K block of every f32 product: a row's sum is taken block by block (each block's
/// products in K order from zero, then added to the sum so far), so that a row's result
/// does not depend on which kernel computed it or how many rows came with it.
inline constexpr std::int64_t kGemmKc = 256;
/// Columns of a packed B panel (the micro-kernel's N tile).
inline constexpr std::int64_t kGemmNR = 16;

/// Floats needed by an A of `m` x `k` packed in MR-row panels.
[[nodiscard]] inline std::int64_t packed_a_size(std::int64_t m, std::int64_t k) noexcept {
  return (m + kGemmMR - 1) / kGemmMR * kGemmMR * k;
}
/// Floats needed by a B of `k` x `n` packed in NR-column panels.
[[nodiscard]] inline std::int64_t packed_b_size(std::int64_t k, std::int64_t n) noexcept {
  return (n + kGemmNR - 1) / kGemmNR * kGemmNR * k;
}

/// A post-op applied to each output element after bias and residual.
enum class Activation : std::uint8_t {
  none,  ///< identity
  relu,  ///< max(x, 0)
  clip,  ///< min(max(x, lo), hi), e.g. ReLU6 with lo = 0, hi = 6
  gelu,       ///< x * Phi(x) (exact, through erfc); GEMM epilogues only
  gelu_tanh,  ///< the tanh approximation of gelu; GEMM epilogues only
  sigmoid,       ///< 1 / (1 + e^-x); GEMM epilogues and `activate` only
  silu,          ///< x * sigmoid(x) (Swish); GEMM epilogues and `activate` only
  hard_sigmoid,  ///< min(max(alpha x + beta, 0), 1); GEMM epilogues and `activate` only
  hard_swish,    ///< x * min(max(x / 6 + 1/2, 0), 1); GEMM epilogues and `activate` only
  leaky_relu,    ///< x >= 0 ? x : alpha x; GEMM epilogues and `activate` only
};

/// Whether `a` is applied by a pass over a finished block of the output (the maps with
/// exp, erfc or a gate) rather than on each value before it is stored: GEMM epilogues run
/// it per block while the block is in cache; other kernels leave it to `activate`.
[[nodiscard]] constexpr bool is_map(Activation a) noexcept {
  return a == Activation::gelu || a == Activation::gelu_tanh || a == Activation::sigmoid || a == Activation::silu ||
         a == Activation::hard_sigmoid || a == Activation::hard_swish || a == Activation::leaky_relu;
}

/// An activation with its bounds (only `clip` reads them).
struct PostOp {
  Activation kind = Activation::none;                          ///< which activation
  float lo = -std::numeric_limits<float>::infinity();          ///< clip's lower bound
  float hi = std::numeric_limits<float>::infinity();           ///< clip's upper bound
  float alpha = 0.2f;                                          ///< hard_sigmoid's slope, leaky_relu's
  float beta = 0.5f;                                           ///< hard_sigmoid's offset
};

/// `p`'s map kind (`is_map`) on `rows` rows of `cols` floats at `c` (row stride `ldc`), in
/// place, vectorised; nothing for the other kinds.
void map_rows(const PostOp& p, float* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols) noexcept;

/// `p`'s map kind on every element of `y` (f32, contiguous), in place, over the thread
/// pool: the activation of a conv whose kernel does not apply it on the fly.
void activate(const PostOp& p, float* y, std::int64_t n);

/// `p` applied to one value, as the vector epilogues do: ReLU maps NaN to 0, Clip keeps it.
[[nodiscard]] inline float apply_post(float v, const PostOp& p) noexcept {
  switch (p.kind) {
    case Activation::none: return v;
    case Activation::relu: return v > 0.0f ? v : 0.0f;
    case Activation::clip:
      v = v < p.lo ? p.lo : v;
      return v > p.hi ? p.hi : v;
    case Activation::gelu: return 0.5f * v * std::erfc(-v * 0.70710678118654752f);
    case Activation::gelu_tanh:
      return 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
    case Activation::sigmoid: return 1.0f / (1.0f + std::exp(-v));
    case Activation::silu: return v / (1.0f + std::exp(-v));
    case Activation::hard_sigmoid: return std::min(std::max(p.alpha * v + p.beta, 0.0f), 1.0f);
    case Activation::hard_swish: return v * std::min(std::max(v / 6.0f + 0.5f, 0.0f), 1.0f);
    case Activation::leaky_relu: return v < 0.0f ? p.alpha * v : v;
  }
  return v;
}

/// A quantize-dequantize round trip, elementwise: `y = (sat(rint(x / scale) + zp, lo, hi) - zp) * scale`,
/// the value a QuantizeLinear then DequantizeLinear of the same scale and zero point give
/// (`lo`, `hi`: the quantized type's range, 0..255 or -128..127). NaN stays NaN. A QDQ
/// model's pair as one op, or the next op's quantization in a product's epilogue
/// (kernels/cpu/int8/int8.hpp, where `fake_quant` is).
struct FakeQuant {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  std::int32_t lo = 0, hi = 255;
};
void fake_quant(const FakeQuant& q, const float* x, std::int64_t n, float* y) noexcept;

/// What happens to a result element before it is stored in C:
/// `C = act((accumulate ? C : 0) + A*B + bias_m[i] + bias_n[j] + residual[i, j])`.
struct GemmEpilogue {
  const float* bias_m = nullptr;    ///< one bias per row of C, or null
  const float* bias_n = nullptr;    ///< one bias per column of C, or null
  const float* residual = nullptr;  ///< a matrix added element-wise, or null
  std::int64_t ld_residual = 0;     ///< the row stride of `residual`
  bool accumulate = false;          ///< add to what C holds instead of overwriting it
  PostOp post{};                      ///< the activation applied last
  /// (Set by `gemm_rowmajor_a`.) A and C outgrow L2: the tiles fetch the next tile's rows.
  bool fetch_ahead = false;
};

/// Packs rows [0, m) and columns [0, k) of `alpha * op(A)` into MR-row panels at `dst`
/// (`packed_a_size(m, k)` floats). `op(A)[i][p]` is `a[i*lda + p]`, or `a[p*lda + i]` when
/// `trans`.
void pack_a(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, bool trans, float alpha, float* dst);

/// Packs `op(B)` (k x n) into NR-column panels at `dst` (`packed_b_size(k, n)` floats).
/// `op(B)[p][j]` is `b[p*ldb + j]`, or `b[j*ldb + p]` when `trans`.
void pack_b(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans, float* dst);

/// `C[m x n] (ldc) = epilogue(packed_a * packed_b)`. Runs output blocks in parallel on the
/// caller's task arena unless `parallel` is false.
void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, const float* packed_a, const float* packed_b,
                 float* c, std::int64_t ldc, const GemmEpilogue& ep, bool parallel = true);

/// The same product with A not packed: row-major, row stride `lda` (`a[i*lda + p]`),
/// read in place by the micro-kernel (edge tiles pack their small slice of A; rows a
/// multiple of 4 KiB apart are packed first).
void gemm_rowmajor_a(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                     const float* packed_b, float* c, std::int64_t ldc, const GemmEpilogue& ep, bool parallel = true);

/// Products of few rows by a packed B (gemm_small_m.cpp): columns [n0, n1) (n0 a
/// multiple of kGemmNR) of C[m x n] (row stride ldc) = A (m x k, row-major, row stride
/// lda) times B packed by `pack_b` (all of its columns' panels from column 0) plus
/// bias_n[j] (or null). Serial; the recurrent layers' steps and `matmul` with few rows
/// use it. `gemm_small_m_fits`: m < 12 on AVX2 or AVX-512 (where
/// the general GEMM's 6- and 12-row tiles leave accumulators idle).
[[nodiscard]] bool gemm_small_m_fits(std::int64_t m) noexcept;
void gemm_small_m(std::int64_t m, std::int64_t n0, std::int64_t n1, std::int64_t k, const float* a, std::int64_t lda,
                  const float* packed_b, float* c, std::int64_t ldc, const float* bias_n);

/// One K block of a product whose B the caller packs block by block (conv packs its
/// image patches straight into B blocks): for rows `[m0, m1)` of C (`m0` a multiple of
/// MR; `m`: all rows of A) and the `n` columns of `b_block`,
/// `C[i][col0 + j] (+)= A[i][k0 .. k0+kc) * b_block[.][j]`. `packed_a` is A (m x k) as
/// `pack_a` packs it over its whole `k`; `b_block` holds ceil(n/NR) panels of kc x NR
/// (zero-padded columns), panel p at `b_block + p * b_panel_stride`. `c` points at
/// C[0][0]; `first`: overwrite C (unless `ep.accumulate`); `last`: apply the epilogue
/// (its column indices are `col0 + j`). Serial; callers run blocks in parallel.
void gemm_packed_kblock(std::int64_t m, std::int64_t m0, std::int64_t m1, std::int64_t k, std::int64_t k0,
                        std::int64_t kc, const float* packed_a, const float* b_block, std::int64_t b_panel_stride,
                        std::int64_t n, float* c, std::int64_t ldc, std::int64_t col0, const GemmEpilogue& ep,
                        bool first, bool last);

/// Plain strided SGEMM: `C = epilogue(alpha * op(A) * op(B))`, packing both operands.
void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda, bool trans_a,
           const float* b, std::int64_t ldb, bool trans_b, float* c, std::int64_t ldc, const GemmEpilogue& ep,
           bool parallel = true);

/// A constant right-hand matrix of MatMul packed once (e.g. at compile time): its `k` x `n`
/// and the NR-column panels.
struct PackedMatMulB {
  std::int64_t k = 0;  ///< rows of B
  std::int64_t n = 0;  ///< columns of B
  bool bf16 = false;   ///< `panels` holds bf16 VNNI panels (kernels/cpu/gemm/amx.hpp), run by the bf16 kernels
  Scratch panels;      ///< `packed_b_size(k, n)` floats, or `bf16_packed_b_size(k, n)` bf16
};

/// Packs a 2-D f32 `b` (K x N; with `trans`, N x K and packed as its transpose) for
/// `matmul(a, packed, y)`; in bf16 for the bf16 kernels when `bf16` is asked and
/// `bf16_usable()`. Raises `Errc::type_mismatch` for another type and
/// `Errc::rank_mismatch` unless rank 2.
[[nodiscard]] PackedMatMulB pack_matmul_b(const TensorView& b, bool bf16 = false, bool trans = false);

/// ONNX MatMul on f32: numpy matmul with broadcast batch dims; a 1-D A is a row vector
/// and a 1-D B a column vector, whose dim is then dropped. `y.dims` must be the result's
/// dims. Raises `Errc::type_mismatch` (not f32), `Errc::bad_op_inputs` (inner dims or
/// output dims wrong), `Errc::incompatible_shapes` (batch dims do not broadcast).
void matmul(const TensorView& a, const TensorView& b, const TensorView& y);

/// MatMul of `a` (rank >= 1, last dim K) by a pre-packed 2-D B, with an optional fused
/// epilogue (`bias_n`, `residual` with the output's row stride, activation); bf16 with
/// f32 accumulation when B was packed so. Same errors.
void matmul(const TensorView& a, const PackedMatMulB& b, const TensorView& y, const GemmEpilogue& ep = {});

/// `matmul(a * s, b, y, ep)` for a 2-D `a` [M, K] whose rows fall in `groups` equal runs
/// (images), the columns of run g scaled by `s[g*K .. g*K+K)`: a squeeze-and-excitation
/// gate (one factor per image and channel) applied by the 1x1 conv that reads the gated
/// image. Where a run has more rows than B has columns (and B is f32), B's rows are
/// scaled instead (a copy of the panels per run: K x N products, not M/groups x K);
/// otherwise A is scaled into a pooled buffer. `groups` must divide M. Same errors as
/// `matmul`.
void matmul_scaled_k(const TensorView& a, const float* s, std::int64_t groups, const PackedMatMulB& b,
                     const TensorView& y, const GemmEpilogue& ep = {});

/// Resolved attributes of ONNX Gemm.
struct GemmParams {
  float alpha = 1.0f;    ///< scale of op(A) * op(B)
  float beta = 1.0f;     ///< scale of C
  bool trans_a = false;  ///< use A transposed
  bool trans_b = false;  ///< use B transposed
};

/// ONNX Gemm on f32: `y = alpha * op(a) * op(b) + beta * c`, `a`, `b` 2-D, `c` null or
/// unidirectionally broadcastable to `y` (M x N). Raises `Errc::type_mismatch`,
/// `Errc::rank_mismatch`, `Errc::bad_op_inputs` (inner or output dims wrong),
/// `Errc::incompatible_shapes` (C does not broadcast).
void gemm(const GemmParams& p, const TensorView& a, const TensorView& b, const TensorView* c, const TensorView& y);

}  // namespace ge::cpu
