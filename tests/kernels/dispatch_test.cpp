// The CPU kernels' ISA table (src/kernels/cpu/dispatch.hpp): what each level a machine has
// holds, and that the levels' variants agree, called side by side in one process (the
// GE_CPU_ISA entries of ctest run whole suites at one level each).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

namespace cpu = ge::cpu;
using cpu::CpuKernels;
using cpu::Isa;

namespace {

std::vector<Isa> dispatch_levels() {
  std::vector<Isa> out{Isa::baseline};
  if (cpu::isa() >= Isa::avx2) out.push_back(Isa::avx2);
  if (cpu::isa() >= Isa::avx512) out.push_back(Isa::avx512);
  return out;
}

}  // namespace

TEST_CASE("kernels(): the table of isa(), and no level above the CPU's") {
  const CpuKernels& k = cpu::kernels();
  CHECK(k.isa == cpu::isa());
  CHECK(k.lanes == (k.isa == Isa::avx512 ? 16 : 8));
  CHECK(&cpu::kernels() == &k);                            // filled once
  CHECK(cpu::kernels_for(Isa::avx512).isa == cpu::isa());  // capped at the CPU's (and GE_CPU_ISA's) level
}

TEST_CASE("each level's table: the portable kernels everywhere, the vector-only ones from AVX2, AVX-512's own") {
  for (const Isa level : dispatch_levels()) {
    CAPTURE(static_cast<int>(level));
    const CpuKernels k = cpu::kernels_for(level);
    CHECK(k.isa == level);
    // Every level: the GEMM blocks, the vector math, the NHWC depthwise rows, the NCHW
    // Winograd transforms, the few-channel and grouped convs, the NHWC pools.
    for (const bool present :
         {k.gemm_kblock != nullptr, k.gemm_block != nullptr, k.gemm_rowa_block != nullptr, k.vm_map != nullptr,
          k.vm_max != nullptr, k.vm_exp_shift_sum != nullptr, k.vm_scale != nullptr, k.depthwise_nhwc_rows != nullptr,
          k.depthwise_nhwc_row_at != nullptr, k.winograd_inputs != nullptr, k.winograd_outputs != nullptr,
          k.few_channels_rows != nullptr, k.grouped8 != nullptr, k.grouped16 != nullptr, k.grouped_small[0] != nullptr,
          k.grouped_small[1] != nullptr, k.max_pool_nhwc != nullptr, k.avg_pool_nhwc != nullptr})
      CHECK(present);
    // From AVX2 on: the kernels that have no portable form.
    const bool vector = level >= Isa::avx2;
    CHECK((k.gemm_small_m != nullptr) == vector);
    CHECK((k.depthwise_ring_row5 != nullptr) == vector);
    CHECK((k.depthwise_ring_row7 != nullptr) == vector);
    CHECK((k.depthwise_planes != nullptr) == vector);
    CHECK((k.winograd_nhwc_inputs != nullptr) == vector);
    CHECK((k.winograd_nhwc_outputs != nullptr) == vector);
    CHECK((k.direct_conv_rows != nullptr) == vector);
    CHECK((k.max_pool_row != nullptr) == vector);
    CHECK((k.interleave != nullptr) == vector);
    CHECK((k.pack_patches_nd_masked != nullptr) == vector);
    // AVX-512 only: masked depthwise planes, 16-lane grouped blocks of 8-wide groups.
    const bool wide = level == Isa::avx512;
    CHECK((k.depthwise_planes_masked != nullptr) == wide);

    CHECK((k.grouped_small[2] != nullptr) == wide);
    // Each level its own variants: no two levels share a GEMM block kernel.
    const CpuKernels base = cpu::kernels_for(Isa::baseline);
    const bool own = k.gemm_block != base.gemm_block;
    CHECK(own == (level != Isa::baseline));
    // The NCHW Winograd transforms too (the baseline's gather floats one at a time).
    CHECK((k.winograd_inputs != base.winograd_inputs) == (level != Isa::baseline));
    CHECK((k.winograd_outputs != base.winograd_outputs) == (level != Isa::baseline));
  }
}

TEST_CASE("each level's vector math gives the same values (e^x, the maximum, a scaled sum)") {
  std::vector<float> x(203);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -20.0f + 0.2f * static_cast<float>(i);
  const auto n = static_cast<std::int64_t>(x.size());
  for (const Isa level : dispatch_levels()) {
    CAPTURE(static_cast<int>(level));
    const CpuKernels k = cpu::kernels_for(level);
    std::vector<float> y(x.size());
    k.vm_map(cpu::vm::Map::exp, x.data(), y.data(), n);
    for (std::size_t i = 0; i < x.size(); ++i)
      CHECK(y[i] == doctest::Approx(std::exp(static_cast<double>(x[i]))).epsilon(2e-6));
    CHECK(k.vm_max(x.data(), n) == x.back());
    std::vector<float> e(x.size());
    const float sum = k.vm_exp_shift_sum(x.data(), e.data(), n, x.back());
    double want = 0;
    for (const float v : x) want += std::exp(static_cast<double>(v) - x.back());
    CHECK(sum == doctest::Approx(want).epsilon(1e-5));
    k.vm_scale(e.data(), n, 0.5f);
    CHECK(e.back() == doctest::Approx(0.5).epsilon(1e-6));
  }
}
