#pragma once
/// \file
/// int8 products for quantized (QDQ) models: u8 activations times s8 weights with i32
/// sums, on AVX512-VNNI's `vpdpbusd` (4 byte products per 32-bit lane), or portable loops
/// where it is missing (a model compiled for int8 on one machine still runs on another).
///
/// The convs and constant-weight MatMuls of a QDQ model compute, per the model,
/// `y = sum_k s_x (xq_k - zp) * s_j wq_kj + bias_j` with `xq = sat(rint(x / s_x) + zp)`
/// (u8) and per-column weights `wq` (s8, symmetric). Here the f32 input is quantized once
/// as the product's operand is made, the i32 sum `sum_k xq_k wq_kj` runs in registers and
/// the epilogue gives `s_x s_j (sum - zp * colsum_j)`, then the bias, residual and
/// activation of `GemmEpilogue`: values between ops stay f32.
///
/// Weights: `pack_b_s8` takes the f32 weights the model's DequantizeLinear made and finds
/// each column's int8 grid again (scale max|w_j| / 127, or / 63): `int8_grid` says whether
/// every column lies on one exactly, which the compile pass checks before it picks these
/// kernels.
///
/// ```
/// auto b = ge::cpu::pack_b_s8(k, n, w, n, false);           // once
/// ge::cpu::matmul_u8s8(x, {.scale = 0.02f, .zero_point = 128}, b, y, {});
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

namespace ge::cpu {

/// The int8 kernels of this process: AVX512-VNNI dot products, or none (a quantized
/// model then runs its QuantizeLinear/DequantizeLinear pairs in f32; the int8 kernels'
/// portable loops serve only a model compiled elsewhere).
enum class Int8Kernels : std::uint8_t { none, vnni };

/// The int8 kernels this CPU has (CPUID and XCR0, checked once; GE_CPU_ISA below avx512
/// caps them), capped by `cap_int8_kernels`.
[[nodiscard]] Int8Kernels int8_kernels() noexcept;

/// Caps the int8 kernels (tests: the portable loops on a VNNI machine).
void cap_int8_kernels(Int8Kernels most) noexcept;

/// Caps the int8 kernels for its lifetime, then restores the cap it found (tests).
class Int8KernelsCap {
 public:
  explicit Int8KernelsCap(Int8Kernels most) noexcept;
  ~Int8KernelsCap();
  Int8KernelsCap(const Int8KernelsCap&) = delete;
  Int8KernelsCap& operator=(const Int8KernelsCap&) = delete;

 private:
  Int8Kernels before_;
};

/// Whether VNNI kernels run here.
[[nodiscard]] inline bool int8_usable() noexcept { return int8_kernels() != Int8Kernels::none; }

/// An activation's quantization in the u8 domain: `q = sat_u8(rint(x / scale) + zero_point)`
/// (an int8 activation with zero point z is the u8 one with z + 128: the same products).
struct QuantU8 {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
};

/// (`FakeQuant` and `fake_quant`, the quantize-dequantize round trip: gemm.hpp.)

/// `n` floats quantized to u8 (`QuantU8`), ties to even; NaN becomes the zero point.
void quantize_u8(const QuantU8& q, const float* x, std::int64_t n, std::uint8_t* dst) noexcept;

/// K of every int8 operand is padded to a multiple of this (one `vpdpbusd` lane's bytes).
inline constexpr std::int64_t kS8K = 4;
[[nodiscard]] inline std::int64_t s8_k(std::int64_t k) noexcept { return (k + kS8K - 1) / kS8K * kS8K; }

/// Whether every column of `op(B)` (k x n; `b[p*ldb + j]`, or `b[j*ldb + p]` when
/// `trans`) is `s_j * q` with integers q whose largest |q| is 127 (or 63: a reduced
/// range), s_j = max|B_j| / that (within f32 rounding): the dequantized weights of
/// per-column symmetric int8, as a QDQ model has them (also after a BatchNormalization
/// folded into them). `pack_b_s8` then gives back exactly those integers.
[[nodiscard]] bool int8_grid(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans) noexcept;

/// `op(B)` quantized per column and packed for the int8 kernels: panels of 16 columns,
/// each `s8_k(k) / 4` rows of 16 x 4 bytes (a lane's 4 K-consecutive weights), then the
/// columns' scales (f32) and sums of their quantized weights (i32). For conv weights
/// `kh`, `kw`, `c` say how K = (ky, kx, c) unfolds (1, 1, k for a matrix).
struct PackedS8 {
  std::int64_t k = 0, n = 0;
  std::int64_t kh = 1, kw = 1, c = 0;
  Scratch data;  ///< `packed_s8_floats(k, n)` floats' room
};
[[nodiscard]] std::int64_t packed_s8_floats(std::int64_t k, std::int64_t n) noexcept;
[[nodiscard]] PackedS8 pack_b_s8(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans);
/// Dense (group 1) OIHW conv weights [M, C, KH, KW] as the NHWC int8 conv reads them
/// (B = [KH*KW*C, M]). Raises `Errc::type_mismatch`, `Errc::rank_mismatch`.
[[nodiscard]] PackedS8 pack_conv_nhwc_s8(const TensorView& w);

/// `y[..., n] = epilogue(quantized(a) * B)` for f32 `a` [..., k] (any leading dims; its
/// rows quantized by `qa`) and B packed by `pack_b_s8`, on the caller's task arena; with
/// `out`, each result then goes through that quantize-dequantize round trip (the next
/// op's quantization, requantized in the epilogue). Raises `Errc::type_mismatch` and
/// `Errc::bad_op_inputs` for operands that do not fit.
void matmul_u8s8(const TensorView& a, const QuantU8& qa, const PackedS8& b, const TensorView& y,
                 const GemmEpilogue& ep, const FakeQuant* out = nullptr);

/// A dense conv on f32 NHWC images with the input quantized by `qx` and int8 weights
/// (`pack_conv_nhwc_s8`): `conv_gemm_nhwc`'s operands, dims and errors; padding reads the
/// zero point (the value 0). `p.post` and the bias and residual in the epilogue, `out`
/// (when given) last, as `matmul_u8s8`'s.
void conv_nhwc_u8s8(const Conv2dParams& p, const TensorView& x, const QuantU8& qx, const PackedS8& w,
                    const TensorView* bias, const TensorView& y, const TensorView* residual = nullptr,
                    const FakeQuant* out = nullptr);

/// `pointwise_depthwise_nhwc` with the pointwise conv in int8: its input quantized by
/// `qx`, its weights packed by `pack_b_s8` (B = W1^T [C, E]), its bias, activation and
/// (when given) `pw_out` round trip in the epilogue; the depthwise conv in f32 as there.
void pointwise_depthwise_u8s8(const Conv2dParams& p, const TensorView& x, const QuantU8& qx, const PackedS8& pw,
                              const float* pw_bias, const PostOp& pw_post, const FakeQuant* pw_out,
                              const PackedDepthwiseNhwc& w, const TensorView* bias, const TensorView& y,
                              const TensorView* residual = nullptr);

}  // namespace ge::cpu
