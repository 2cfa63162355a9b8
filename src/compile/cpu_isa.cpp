// ge::cpu_isa (include/ge/compile/cpu_isa.hpp): the kernels' run-time dispatch, named.
#include "ge/compile/cpu_isa.hpp"

#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/common.hpp"

namespace ge {

std::string_view cpu_isa() noexcept {
  static constexpr std::string_view names[] = {"baseline", "avx2", "avx512"};
  static constexpr std::string_view with_amx[] = {"baseline+amx", "avx2+amx", "avx512+amx"};
  static constexpr std::string_view with_dot[] = {"baseline+bf16", "avx2+bf16", "avx512+bf16"};
  const auto i = static_cast<std::size_t>(cpu::isa());
  switch (cpu::bf16_kernels()) {
    case cpu::Bf16Kernels::amx: return with_amx[i];
    case cpu::Bf16Kernels::dot: return with_dot[i];
    case cpu::Bf16Kernels::none: break;
  }
  return names[i];
}

}  // namespace ge
