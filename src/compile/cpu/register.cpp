#include "compile/cpu/lower.hpp"

namespace ge {

void register_cpu_kernels(KernelRegistry& registry) {
  cpu_lower::register_cpu_elementwise(registry);
  cpu_lower::register_cpu_nn(registry);
}

}  // namespace ge
