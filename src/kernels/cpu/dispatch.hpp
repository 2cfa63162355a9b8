// The CPU kernels' instruction-set choice, in one place. The kernel families compile their
// hot loops once per ISA (a template over the vector width, instantiated in functions with
// a `target` attribute, named `<kernel>_<isa>` and declared below); `kernels()` is the
// table of the variants this process runs, filled once from `isa()` (the CPU, capped by
// GE_CPU_ISA) by dispatch.cpp, the only code that maps an ISA to a function. A family
// reads its entry (`kernels().gemm_block(...)`); null means no variant at this ISA and
// the family takes its portable path. The CPU feature probes of the bf16 and int8
// families (AVX512_BF16, AMX, VNNI: amx.cpp, int8.cpp) stay with them: they also hold the
// run-time caps the tests set.
#pragma once

#include <cstdint>

#include "kernels/cpu/common.hpp"

// The target attributes of the variants: x86-64 with GCC or clang (elsewhere only the
// baseline variants are built, and the table holds those). AVX-512 code is built for
// F + DQ + BW + VL (every AVX-512 CPU since Skylake-X and Zen 4): without DQ, GCC turns a
// compare's mask into a vector select lane by lane.
#if defined(__x86_64__) && defined(__GNUC__)
#define GE_X86_KERNELS 1
#define GE_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define GE_AVX512_FEATURES "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"
#define GE_TARGET_AVX512 __attribute__((target(GE_AVX512_FEATURES)))
#else
#define GE_X86_KERNELS 0
#endif

namespace ge::cpu {

namespace vm {
enum class Map : std::uint8_t;  // vmath.hpp
}  // namespace vm

struct Conv2dParams;
struct GemmEpilogue;
struct Pool2dParams;

// The argument blocks of the families' row kernels (each defined in its family's file).
struct DepthwiseNhwcRows;  // depthwise/depthwise_nhwc.cpp
struct DepthwiseRingRows;  // depthwise/depthwise_ring.cpp
struct DepthwisePlanes;    // depthwise/depthwise.cpp
struct WinogradNhwcTiles;  // conv/conv_nhwc.cpp
struct WinogradTiles;      // conv/conv_winograd.cpp
struct DirectConvRows;     // conv/conv_direct.cpp
struct FewChannelsRows;    // conv/conv_few_channels_nhwc.cpp
struct GroupedConvRows;    // conv/conv_grouped_nhwc.cpp
class GroupedTapRows;      // conv/conv_grouped_nhwc.cpp
struct PoolShape;          // pool/pool.cpp
struct NdPatches;          // conv/conv_nd_gemm.cpp
struct NdTapPlan;          // conv/conv_nd_gemm.cpp

// The signatures of the table's kernels.
using GemmKBlockFn = void(std::int64_t m, std::int64_t m0, std::int64_t m1, std::int64_t k, std::int64_t k0,
                          std::int64_t kc, const float* pa, const float* bblock, std::int64_t bstride, std::int64_t n,
                          float* c, std::int64_t ldc, std::int64_t col0, const GemmEpilogue& ep, bool first, bool last);
using GemmBlockFn = void(std::int64_t n, std::int64_t k, std::int64_t m0, std::int64_t m1, std::int64_t n0,
                         std::int64_t n1, const float* pa, const float* pb, float* c, std::int64_t ldc,
                         const GemmEpilogue& ep);
using GemmRowABlockFn = void(std::int64_t n, std::int64_t k, std::int64_t m0, std::int64_t m1, std::int64_t n0,
                             std::int64_t n1, const float* a, std::int64_t lda, const float* pb, float* c,
                             std::int64_t ldc, const GemmEpilogue& ep);
using GemmSmallMFn = void(std::int64_t m, std::int64_t n0, std::int64_t n1, std::int64_t k, const float* a,
                          std::int64_t lda, const float* pb, float* c, std::int64_t ldc, const float* bias);
using DepthwiseNhwcRowsFn = void(const DepthwiseNhwcRows& d, std::int64_t b, std::int64_t e);
using DepthwiseNhwcRowAtFn = void(const DepthwiseNhwcRows& d, std::int64_t oy, const float* const* rowp, float* out,
                                  const float* res);
using DepthwiseRingRowFn = void(const DepthwiseRingRows& g, const float* const* prow, float* out, const float* res,
                                std::int64_t c0, std::int64_t cn);
using DepthwisePlanesFn = void(const DepthwisePlanes& d, std::int64_t b, std::int64_t e, float* buf,
                               const float* masks);
using DepthwiseMaskedFn = void(const DepthwisePlanes& d, std::int64_t b, std::int64_t e, const std::uint32_t* masks);
using WinogradNhwcInputsFn = void(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t n, float* v,
                                  std::int64_t xs);
using WinogradNhwcOutputsFn = void(const WinogradNhwcTiles& k, std::int64_t t0, std::int64_t n, const float* m,
                                   std::int64_t xs);
using WinogradInputsFn = void(const WinogradTiles& k, std::int64_t ci, std::int64_t t0, float* dst,
                              std::int64_t xi_stride);
using WinogradOutputsFn = void(const WinogradTiles& k, std::int64_t co, std::int64_t t0, const float* src,
                               std::int64_t xi_stride);
using PackPatchesNdFn = void(const NdPatches& pt, NdTapPlan& plan, std::int64_t q0, std::int64_t q1, std::int64_t n0,
                             std::int64_t ncols, float* dst, std::int64_t panel_stride);
using DirectConvRowsFn = void(const DirectConvRows& d, std::int64_t b, std::int64_t e, float* buf);
using FewChannelsRowsFn = void(const FewChannelsRows& d, std::int64_t b, std::int64_t e);
using GroupedConvFn = void(const GroupedConvRows& d, GroupedTapRows& src, std::int64_t b, std::int64_t e);
using MaxPoolRowFn = void(const float* const* rows, std::int64_t nrows, std::int64_t w, float* col,
                          std::int64_t pad_left, float* out, std::int64_t ow, std::int64_t sw, std::int64_t kw);
using PoolNhwcFn = void(const Pool2dParams& p, const PoolShape& s, std::int64_t c, const float* x, float* y,
                        std::int64_t b, std::int64_t e);
using InterleaveFn = void(std::int64_t n, const std::uint32_t* src, std::int64_t sb, std::int64_t ld, std::int64_t m,
                          std::int64_t b0, std::int64_t b1, std::int64_t r0, std::int64_t r1, std::uint32_t* dst);

using VmMapFn = void(vm::Map f, const float* x, float* y, std::int64_t n);
using VmMaxFn = float(const float* x, std::int64_t n);
using VmExpShiftSumFn = float(const float* x, float* y, std::int64_t n, float shift);
using VmScaleFn = void(float* y, std::int64_t n, float k);

/// The kernels of one ISA level. Null: no variant at this level (the family's portable
/// path, or the kernel is not offered).
struct CpuKernels {
  Isa isa = Isa::baseline;
  std::int64_t lanes = 8;  ///< the vector width weights and planes are laid out for: 16 (AVX-512), else 8

  // elementwise/ (vmath.hpp)
  VmMapFn* vm_map = nullptr;
  VmMaxFn* vm_max = nullptr;
  VmExpShiftSumFn* vm_exp_shift_sum = nullptr;
  VmScaleFn* vm_scale = nullptr;
  // gemm/
  GemmKBlockFn* gemm_kblock = nullptr;
  GemmBlockFn* gemm_block = nullptr;
  GemmRowABlockFn* gemm_rowa_block = nullptr;
  GemmSmallMFn* gemm_small_m = nullptr;
  // depthwise/
  DepthwiseNhwcRowsFn* depthwise_nhwc_rows = nullptr;
  DepthwiseNhwcRowAtFn* depthwise_nhwc_row_at = nullptr;
  DepthwiseRingRowFn* depthwise_ring_row5 = nullptr;  ///< 5 taps wide, stride and dilation 1
  DepthwiseRingRowFn* depthwise_ring_row7 = nullptr;  ///< 7 taps wide
  DepthwisePlanesFn* depthwise_planes = nullptr;
  DepthwiseMaskedFn* depthwise_planes_masked = nullptr;
  // conv/
  WinogradNhwcInputsFn* winograd_nhwc_inputs = nullptr;
  WinogradNhwcOutputsFn* winograd_nhwc_outputs = nullptr;
  WinogradInputsFn* winograd_inputs = nullptr;
  WinogradOutputsFn* winograd_outputs = nullptr;
  DirectConvRowsFn* direct_conv_rows = nullptr;
  PackPatchesNdFn* pack_patches_nd_masked = nullptr;  ///< 3-D conv patches, horizontal stride 1 or 2
  FewChannelsRowsFn* few_channels_rows = nullptr;
  GroupedConvFn* grouped8 = nullptr;     ///< groups in blocks of 8 lanes
  GroupedConvFn* grouped16 = nullptr;    ///< blocks of 16
  GroupedConvFn* grouped_small[3] = {};  ///< groups 2, 4, 8 wide, blocks of `lanes`
  // pool/
  MaxPoolRowFn* max_pool_row = nullptr;
  PoolNhwcFn* max_pool_nhwc = nullptr;
  PoolNhwcFn* avg_pool_nhwc = nullptr;
  // movement/
  InterleaveFn* interleave = nullptr;  ///< 2 to 4 columns of 32-bit words
};

/// The table for `isa()`, filled at the first call.
[[nodiscard]] const CpuKernels& kernels() noexcept;

/// The table for ISA level `level` (no wider than `isa()`: tests compare the levels a
/// machine runs).
[[nodiscard]] CpuKernels kernels_for(Isa level) noexcept;

// The variants, `<kernel>_<isa>` (base: no target attribute), defined by the families.
namespace vm {
VmMapFn map_base;
VmMaxFn max_base;
VmExpShiftSumFn exp_shift_sum_base;
VmScaleFn scale_base;
#if GE_X86_KERNELS
GE_TARGET_AVX2 VmMapFn map_avx2;
GE_TARGET_AVX2 VmMaxFn max_avx2;
GE_TARGET_AVX2 VmExpShiftSumFn exp_shift_sum_avx2;
GE_TARGET_AVX2 VmScaleFn scale_avx2;
GE_TARGET_AVX512 VmMapFn map_avx512;
GE_TARGET_AVX512 VmMaxFn max_avx512;
GE_TARGET_AVX512 VmExpShiftSumFn exp_shift_sum_avx512;
GE_TARGET_AVX512 VmScaleFn scale_avx512;
#endif
}  // namespace vm

GemmKBlockFn gemm_kblock_base;
GemmBlockFn gemm_block_base;
GemmRowABlockFn gemm_rowa_base;
DepthwiseNhwcRowsFn depthwise_nhwc_rows_base;
DepthwiseNhwcRowAtFn depthwise_nhwc_row_at_base;
WinogradInputsFn winograd_inputs_base;
WinogradOutputsFn winograd_outputs_base;
FewChannelsRowsFn few_channels_rows_base;
GroupedConvFn grouped8_base, grouped16_base, grouped_small2_base, grouped_small4_base;
PoolNhwcFn max_pool_nhwc_base, avg_pool_nhwc_base;
#if GE_X86_KERNELS
GE_TARGET_AVX2 GemmKBlockFn gemm_kblock_avx2;
GE_TARGET_AVX2 GemmBlockFn gemm_block_avx2;
GE_TARGET_AVX2 GemmRowABlockFn gemm_rowa_avx2;
GE_TARGET_AVX2 GemmSmallMFn gemm_small_m_avx2;
GE_TARGET_AVX2 DepthwiseNhwcRowsFn depthwise_nhwc_rows_avx2;
GE_TARGET_AVX2 DepthwiseNhwcRowAtFn depthwise_nhwc_row_at_avx2;
GE_TARGET_AVX2 DepthwiseRingRowFn depthwise_ring_row5_avx2, depthwise_ring_row7_avx2;
GE_TARGET_AVX2 DepthwisePlanesFn depthwise_planes_avx2;
GE_TARGET_AVX2 WinogradNhwcInputsFn winograd_nhwc_inputs_avx2;
GE_TARGET_AVX2 WinogradNhwcOutputsFn winograd_nhwc_outputs_avx2;
GE_TARGET_AVX2 WinogradInputsFn winograd_inputs_avx2;
GE_TARGET_AVX2 WinogradOutputsFn winograd_outputs_avx2;
GE_TARGET_AVX2 DirectConvRowsFn direct_conv_rows_avx2;
GE_TARGET_AVX2 PackPatchesNdFn pack_patches_nd_masked_avx2;
GE_TARGET_AVX2 FewChannelsRowsFn few_channels_rows_avx2;
GE_TARGET_AVX2 GroupedConvFn grouped8_avx2, grouped_small2_avx2, grouped_small4_avx2;
GE_TARGET_AVX2 MaxPoolRowFn max_pool_row_avx2;
GE_TARGET_AVX2 PoolNhwcFn max_pool_nhwc_avx2, avg_pool_nhwc_avx2;
GE_TARGET_AVX2 InterleaveFn interleave_avx2;

GE_TARGET_AVX512 GemmKBlockFn gemm_kblock_avx512;
GE_TARGET_AVX512 GemmBlockFn gemm_block_avx512;
GE_TARGET_AVX512 GemmRowABlockFn gemm_rowa_avx512;
GE_TARGET_AVX512 GemmSmallMFn gemm_small_m_avx512;
GE_TARGET_AVX512 DepthwiseNhwcRowsFn depthwise_nhwc_rows_avx512;
GE_TARGET_AVX512 DepthwiseNhwcRowAtFn depthwise_nhwc_row_at_avx512;
GE_TARGET_AVX512 DepthwiseRingRowFn depthwise_ring_row5_avx512, depthwise_ring_row7_avx512;
GE_TARGET_AVX512 DepthwisePlanesFn depthwise_planes_avx512;
GE_TARGET_AVX512 DepthwiseMaskedFn depthwise_planes_masked_avx512;
GE_TARGET_AVX512 WinogradNhwcInputsFn winograd_nhwc_inputs_avx512;
GE_TARGET_AVX512 WinogradNhwcOutputsFn winograd_nhwc_outputs_avx512;
GE_TARGET_AVX512 WinogradInputsFn winograd_inputs_avx512;
GE_TARGET_AVX512 WinogradOutputsFn winograd_outputs_avx512;
GE_TARGET_AVX512 DirectConvRowsFn direct_conv_rows_avx512;
GE_TARGET_AVX512 PackPatchesNdFn pack_patches_nd_masked_avx512;
GE_TARGET_AVX512 FewChannelsRowsFn few_channels_rows_avx512;
GE_TARGET_AVX512 GroupedConvFn grouped8_avx512, grouped16_avx512, grouped_small2_avx512, grouped_small4_avx512,
    grouped_small8_avx512;
GE_TARGET_AVX512 MaxPoolRowFn max_pool_row_avx512;
GE_TARGET_AVX512 PoolNhwcFn max_pool_nhwc_avx512, avg_pool_nhwc_avx512;
GE_TARGET_AVX512 InterleaveFn interleave_avx512;
#endif

}  // namespace ge::cpu
