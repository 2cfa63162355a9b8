#pragma once
/// \file
/// bf16 matrix products with f32 accumulation, on AMX (Intel Advanced Matrix Extensions,
/// AMX-BF16) or with AVX512-BF16's dot products where AMX is missing: the kernels behind
/// `Precision::bf16` for Conv and constant-weight MatMul/Gemm.
///
/// Operands: A (M x K) in bf16, row-major with its K padded to a multiple of 32 (the
/// tile's depth) and zeros there; B (K x N) in "VNNI" panels of 16 columns, each panel
/// K/2 rows of 16 column pairs `(B[2r][j], B[2r+1][j])`, K padded likewise. A 2 x 2 block
/// of 16 x 16 f32 accumulator tiles (32 x 32 of C) runs over all of K with two A tiles
/// and two B tiles: the 8 tile registers. The result leaves the tiles through a small
/// f32 buffer, where the epilogue (C's old value, bias, residual, activation) of
/// `GemmEpilogue` is applied on the way to C.
///
/// Without AMX, blocks of 12 rows x 32 columns accumulate in zmm registers, one K pair
/// per `vdpbf16ps` (the VNNI panels are that instruction's operand order).
///
/// f32 -> bf16 rounds to nearest even (NaN stays NaN). `bf16_usable()` is false on CPUs
/// without AVX512-BF16; the callers then keep f32.
///
/// ```
/// auto b = ge::cpu::pack_matmul_b(w, /*bf16=*/true);  // once; f32 panels without bf16 kernels
/// ge::cpu::matmul(a, b, y);                      // bf16 products when b is bf16
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

namespace ge::cpu {

/// The bf16 kernels of this process, best first: AMX tiles (AMX-BF16), AVX-512
/// dot products (`vdpbf16ps`, AVX512-BF16: AMD Zen 4 and 5, Intel Cooper Lake and later),
/// or none (the callers keep f32).
enum class Bf16Kernels : std::uint8_t { none, dot, amx };

/// The best bf16 kernels this CPU has (checked once: CPUID, XCR0 and, for AMX, the Linux
/// tile-data permission, requested here), capped by `cap_bf16_kernels` and GE_CPU_ISA.
[[nodiscard]] Bf16Kernels bf16_kernels() noexcept;

/// Caps the bf16 kernels of this process at `most` (no cap by default: `amx`), e.g. to
/// test the dot-product kernels or the f32 fallback on an AMX machine. Packing reads it
/// (f32 panels under `none`), and so does every bf16 product when it runs: weights packed
/// in bf16 fail with `Errc::internal` under `none`, and run on the other kernel kind when
/// the cap moves between `amx` and `dot` (the packing is the same). For tests: pack and
/// run under one cap.
void cap_bf16_kernels(Bf16Kernels most) noexcept;

/// Caps the bf16 kernels for its lifetime, then restores the cap it found (tests).
class Bf16KernelsCap {
 public:
  explicit Bf16KernelsCap(Bf16Kernels most) noexcept;
  ~Bf16KernelsCap();
  Bf16KernelsCap(const Bf16KernelsCap&) = delete;
  Bf16KernelsCap& operator=(const Bf16KernelsCap&) = delete;

 private:
  Bf16Kernels before_;
};

/// Whether bf16 kernels run here (AMX or AVX512-BF16).
[[nodiscard]] inline bool bf16_usable() noexcept { return bf16_kernels() != Bf16Kernels::none; }

/// Whether the AMX tiles run them.
[[nodiscard]] inline bool amx_bf16_usable() noexcept { return bf16_kernels() == Bf16Kernels::amx; }

/// The tile depth: K of every bf16 operand is padded to a multiple of it.
inline constexpr std::int64_t kBf16K = 32;

/// `k` rounded up to the tile depth.
[[nodiscard]] inline std::int64_t bf16_k(std::int64_t k) noexcept { return (k + kBf16K - 1) / kBf16K * kBf16K; }

/// `k` rounded up to a pair: the depth `gemm_bf16_block` reads (the dot products take K in
/// pairs; the tiles round it up to `bf16_k` themselves, over the operands' zero padding).
[[nodiscard]] inline std::int64_t bf16_depth(std::int64_t k) noexcept { return (k + 1) / 2 * 2; }

/// f32 -> bf16, round to nearest even; NaN stays a (quiet) NaN.
[[nodiscard]] std::uint16_t to_bf16(float v) noexcept;
/// bf16 -> f32 (exact).
[[nodiscard]] float from_bf16(std::uint16_t v) noexcept;

/// Converts rows [0, m) and columns [0, k) of row-major f32 `a` (row stride `lda`) to
/// bf16 rows at `dst` (row stride `ld_dst` >= bf16_k(k)), zero-padding each row to
/// bf16_k(k); rows [m, rows_pad) become zero rows.
void convert_rows_bf16(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, std::uint16_t* dst,
                       std::int64_t ld_dst, std::int64_t rows_pad);

/// `n` floats at `src` to bf16 at `dst`, as `to_bf16` rounds them, except that with the
/// bf16 kernels (`vcvtneps2bf16`) f32 denormals become zeros of their sign.
void to_bf16_run(const float* src, std::int64_t n, std::uint16_t* dst) noexcept;

/// Elements of one VNNI panel of 16 columns over `k` rows.
[[nodiscard]] inline std::int64_t bf16_panel_size(std::int64_t k) noexcept { return bf16_k(k) * 16; }

/// Elements of `op(B)` (k x n) in VNNI panels.
[[nodiscard]] inline std::int64_t bf16_packed_b_size(std::int64_t k, std::int64_t n) noexcept {
  return (n + 15) / 16 * bf16_panel_size(k);
}

/// Packs `op(B)` (k x n; `op(B)[p][j]` is `b[p*ldb + j]`, or `b[j*ldb + p]` when `trans`)
/// into VNNI panels at `dst` (`bf16_packed_b_size(k, n)` elements).
void pack_b_bf16(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans, std::uint16_t* dst);

/// Converts rows [0, rows) of an f32 block of 16-column panels (`src`: row r of panel p at
/// `src + p * src_panel_stride + r * 16`, `panels` panels) to VNNI panels at `dst` (panel
/// p at `dst + p * dst_panel_stride`, starting at K row `row0`, which is even); a missing
/// odd last row is zero.
void panels_to_vnni(std::int64_t panels, std::int64_t rows, const float* src, std::int64_t src_panel_stride,
                    std::uint16_t* dst, std::int64_t dst_panel_stride, std::int64_t row0);

/// Zeroes VNNI rows [row0, row_end) (even bounds) of `panels` panels: the K padding.
void zero_vnni_rows(std::int64_t panels, std::int64_t row0, std::int64_t row_end, std::uint16_t* dst,
                    std::int64_t dst_panel_stride);

/// The product of one block, serial: for rows i in [0, m) of A (bf16 rows at `a + i * lda`,
/// valid up to the next multiple of 16 rows) and columns j in [0, n) of the VNNI panels at
/// `b` (panel stride `b_panel_stride`) over K = `depth` (even: `bf16_depth(k)`; A's rows and
/// B's panels hold zeros from there up to `bf16_k(depth)`, where the AMX tiles read):
/// `C[row0 + i][col0 + j] = epilogue(A[i] . B[:, j])`, C at `c` with row stride `ldc`; the
/// epilogue's row and column indices are `row0 + i` and `col0 + j`. The dot products read
/// only `depth`: K = 16 or 24 is half or three quarters of the tiles' 32.
void gemm_bf16_block(std::int64_t m, std::int64_t n, std::int64_t depth, const std::uint16_t* a, std::int64_t lda,
                     const std::uint16_t* b, std::int64_t b_panel_stride, float* c, std::int64_t ldc,
                     std::int64_t row0, std::int64_t col0, const GemmEpilogue& ep);

/// `C[m x n] = epilogue(A * B)` with A (m x k) f32 row-major (row stride `lda`, converted
/// to bf16 here) and B packed by `pack_b_bf16`; parallel on the caller's task arena.
void matmul_bf16(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                 const std::uint16_t* b, float* c, std::int64_t ldc, const GemmEpilogue& ep);

}  // namespace ge::cpu
