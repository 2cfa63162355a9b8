// Tests of ge/compile/cpu_isa.hpp: the name of the kernels' dispatch, and GE_CPU_ISA's cap
// (the compile tests run again under GE_CPU_ISA=baseline and avx2, tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "ge/compile/cpu_isa.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/common.hpp"

TEST_CASE("cpu_isa: one of the named instruction sets, the one the kernels dispatch to") {
  const std::string_view isa = ge::cpu_isa();
  const std::string_view base = isa.substr(0, isa.find('+'));
  CHECK((base == "baseline" || base == "avx2" || base == "avx512"));
  const std::string_view expected[] = {"baseline", "avx2", "avx512"};
  CHECK(base == expected[static_cast<int>(ge::cpu::isa())]);
  CHECK(isa.ends_with("+amx") == ge::cpu::amx_bf16_usable());
  CHECK(isa.ends_with("+bf16") == (ge::cpu::bf16_kernels() == ge::cpu::Bf16Kernels::dot));
  CHECK(ge::cpu_isa() == isa);  // settled once per process
}

TEST_CASE("cpu_isa: capped by GE_CPU_ISA") {
  const char* cap = std::getenv("GE_CPU_ISA");
  const std::string_view isa = ge::cpu_isa();
  if (cap != nullptr && std::string_view(cap) == "baseline") CHECK(isa.starts_with("baseline"));
  if (cap != nullptr && std::string_view(cap) == "avx2") CHECK((isa.starts_with("baseline") || isa.starts_with("avx2")));
}
