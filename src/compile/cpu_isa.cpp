// ge::cpu_isa (include/ge/compile/cpu_isa.hpp): the kernels' run-time dispatch, named.
#include "ge/compile/cpu_isa.hpp"

#include "kernels/cpu/amx.hpp"
#include "kernels/cpu/common.hpp"

namespace ge {

std::string_view cpu_isa() noexcept {
  static constexpr std::string_view names[] = {"baseline", "avx2", "avx512"};
  static constexpr std::string_view with_amx[] = {"baseline+amx", "avx2+amx", "avx512+amx"};
  const auto i = static_cast<std::size_t>(cpu::isa());
  return cpu::amx_bf16_usable() ? with_amx[i] : names[i];
}

}  // namespace ge
