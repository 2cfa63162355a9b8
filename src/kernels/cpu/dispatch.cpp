// The one map from an ISA level to the kernels that run at it (dispatch.hpp). Each level's
// table is spelled out whole, so that what a machine runs is read here, not searched for.
#include "kernels/cpu/dispatch.hpp"

namespace ge::cpu {
namespace {

CpuKernels baseline_kernels() noexcept {
  CpuKernels k;
  k.isa = Isa::baseline;
  k.lanes = 8;
  k.vm_map = vm::map_base;
  k.vm_max = vm::max_base;
  k.vm_exp_shift_sum = vm::exp_shift_sum_base;
  k.vm_scale = vm::scale_base;
  k.gemm_kblock = gemm_kblock_base;
  k.gemm_block = gemm_block_base;
  k.gemm_rowa_block = gemm_rowa_base;
  k.depthwise_nhwc_rows = depthwise_nhwc_rows_base;
  k.depthwise_nhwc_row_at = depthwise_nhwc_row_at_base;
  k.winograd_inputs = winograd_inputs_base;
  k.winograd_outputs = winograd_outputs_base;
  k.few_channels_rows = few_channels_rows_base;
  k.grouped8 = grouped8_base;
  k.grouped16 = grouped16_base;
  k.grouped_small[0] = grouped_small2_base;
  k.grouped_small[1] = grouped_small4_base;
  k.max_pool_nhwc = max_pool_nhwc_base;
  k.avg_pool_nhwc = avg_pool_nhwc_base;
  // No baseline variant: the small-M GEMM, the ring and plane depthwise rows, the NHWC
  // Winograd transforms, the direct conv rows, the NCHW max pool row, the interleave
  // and the 3-D conv's masked patches (from AVX2 on); the masked depthwise planes and the
  // 8-wide small groups (AVX-512 only).
  return k;
}

#if GE_X86_KERNELS
CpuKernels avx2_kernels() noexcept {
  CpuKernels k = baseline_kernels();
  k.isa = Isa::avx2;
  k.lanes = 8;
  k.vm_map = vm::map_avx2;
  k.vm_max = vm::max_avx2;
  k.vm_exp_shift_sum = vm::exp_shift_sum_avx2;
  k.vm_scale = vm::scale_avx2;
  k.gemm_kblock = gemm_kblock_avx2;
  k.gemm_block = gemm_block_avx2;
  k.gemm_rowa_block = gemm_rowa_avx2;
  k.gemm_small_m = gemm_small_m_avx2;
  k.depthwise_nhwc_rows = depthwise_nhwc_rows_avx2;
  k.depthwise_nhwc_row_at = depthwise_nhwc_row_at_avx2;
  k.depthwise_ring_row5 = depthwise_ring_row5_avx2;
  k.depthwise_ring_row7 = depthwise_ring_row7_avx2;
  k.depthwise_planes = depthwise_planes_avx2;
  k.winograd_nhwc_inputs = winograd_nhwc_inputs_avx2;
  k.winograd_nhwc_outputs = winograd_nhwc_outputs_avx2;
  k.winograd_inputs = winograd_inputs_avx2;
  k.winograd_outputs = winograd_outputs_avx2;
  k.direct_conv_rows = direct_conv_rows_avx2;
  k.pack_patches_nd_masked = pack_patches_nd_masked_avx2;
  k.few_channels_rows = few_channels_rows_avx2;
  k.grouped8 = grouped8_avx2;  // (blocks of 16 lanes are AVX-512's: grouped16 stays the portable loop)
  k.grouped_small[0] = grouped_small2_avx2;
  k.grouped_small[1] = grouped_small4_avx2;
  k.max_pool_row = max_pool_row_avx2;
  k.max_pool_nhwc = max_pool_nhwc_avx2;
  k.avg_pool_nhwc = avg_pool_nhwc_avx2;
  k.interleave = interleave_avx2;
  return k;
}

CpuKernels avx512_kernels() noexcept {
  CpuKernels k = avx2_kernels();
  k.isa = Isa::avx512;
  k.lanes = 16;
  k.vm_map = vm::map_avx512;
  k.vm_max = vm::max_avx512;
  k.vm_exp_shift_sum = vm::exp_shift_sum_avx512;
  k.vm_scale = vm::scale_avx512;
  k.gemm_kblock = gemm_kblock_avx512;
  k.gemm_block = gemm_block_avx512;
  k.gemm_rowa_block = gemm_rowa_avx512;
  k.gemm_small_m = gemm_small_m_avx512;
  k.depthwise_nhwc_rows = depthwise_nhwc_rows_avx512;
  k.depthwise_nhwc_row_at = depthwise_nhwc_row_at_avx512;
  k.depthwise_ring_row5 = depthwise_ring_row5_avx512;
  k.depthwise_ring_row7 = depthwise_ring_row7_avx512;
  k.depthwise_planes = depthwise_planes_avx512;
  k.depthwise_planes_masked = depthwise_planes_masked_avx512;
  k.winograd_nhwc_inputs = winograd_nhwc_inputs_avx512;
  k.winograd_nhwc_outputs = winograd_nhwc_outputs_avx512;
  k.winograd_inputs = winograd_inputs_avx512;
  k.winograd_outputs = winograd_outputs_avx512;
  k.direct_conv_rows = direct_conv_rows_avx512;
  k.pack_patches_nd_masked = pack_patches_nd_masked_avx512;
  k.few_channels_rows = few_channels_rows_avx512;
  k.grouped8 = grouped8_avx512;
  k.grouped16 = grouped16_avx512;
  k.grouped_small[0] = grouped_small2_avx512;
  k.grouped_small[1] = grouped_small4_avx512;
  k.grouped_small[2] = grouped_small8_avx512;
  k.max_pool_row = max_pool_row_avx512;
  k.max_pool_nhwc = max_pool_nhwc_avx512;
  k.avg_pool_nhwc = avg_pool_nhwc_avx512;
  k.interleave = interleave_avx512;
  return k;
}
#endif

}  // namespace

CpuKernels kernels_for(Isa level) noexcept {
  if (level > isa()) level = isa();
#if GE_X86_KERNELS
  if (level == Isa::avx512) return avx512_kernels();
  if (level == Isa::avx2) return avx2_kernels();
#endif
  return baseline_kernels();
}

const CpuKernels& kernels() noexcept {
  static const CpuKernels table = kernels_for(isa());
  return table;
}

}  // namespace ge::cpu
