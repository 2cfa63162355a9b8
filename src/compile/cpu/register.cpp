// The built-in CPU kernels: every op family's registration.
#include "compile/cpu/lower.hpp"

namespace ge {

void register_cpu_kernels(KernelRegistry& registry) {
  cpu_lower::register_cpu_elementwise(registry);
  cpu_lower::register_cpu_nn(registry);
  cpu_lower::register_cpu_matmul(registry);
  cpu_lower::register_cpu_norm(registry);
  cpu_lower::register_cpu_pool(registry);
  cpu_lower::register_cpu_reduce(registry);
  cpu_lower::register_cpu_indexing(registry);
  cpu_lower::register_cpu_rearrange(registry);
  cpu_lower::register_cpu_loss(registry);
  cpu_lower::register_cpu_one_hot(registry);
  cpu_lower::register_cpu_selection(registry);
  cpu_lower::register_cpu_quantize(registry);
  cpu_lower::register_cpu_detection(registry);
  cpu_lower::register_cpu_control_flow(registry);
  cpu_lower::register_cpu_shape_ops(registry);
  cpu_lower::register_cpu_host(registry);
  cpu_lower::register_cpu_math(registry);
  cpu_lower::register_cpu_einsum(registry);
  cpu_lower::register_cpu_recurrent(registry);
  cpu_lower::register_cpu_optimizers(registry);
  cpu_lower::register_cpu_window_nd(registry);
  cpu_lower::register_cpu_half(registry);
  cpu_lower::register_cpu_nn_more(registry);
  cpu_lower::register_cpu_spectral(registry);
}

}  // namespace ge
