// The activations applied as a pass over a finished block of output (`is_map` kinds):
// per block in the GEMM epilogues, over a whole output for the other conv kernels.
#include "kernels/cpu/common.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

namespace ge::cpu {

void map_rows(const PostOp& p, float* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols) noexcept {
  vm::Map f{};
  switch (p.kind) {
    case Activation::gelu: f = vm::Map::gelu; break;
    case Activation::gelu_tanh: f = vm::Map::gelu_tanh; break;
    case Activation::sigmoid: f = vm::Map::sigmoid; break;
    case Activation::silu: f = vm::Map::silu; break;
    case Activation::hard_swish: f = vm::Map::hard_swish; break;
    case Activation::hard_sigmoid:  // (a slope and offset of its own: no vmath map, the scalar rule)
      for (std::int64_t r = 0; r < rows; ++r) {
        float* row = c + r * ldc;
        for (std::int64_t j = 0; j < cols; ++j) row[j] = apply_post(row[j], p);
      }
      return;
    case Activation::leaky_relu:  // a select of its own slope: a plain loop the compiler vectorises
      for (std::int64_t r = 0; r < rows; ++r) {
        float* row = c + r * ldc;
        const float a = p.alpha;
        for (std::int64_t j = 0; j < cols; ++j) row[j] = row[j] < 0.0f ? a * row[j] : row[j];
      }
      return;
    default: return;
  }
  if (ldc == cols) {  // (whole rows: one pass, not a call and a part-vector tail per row of 72)
    vm::map(f, c, c, rows * cols);
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r) vm::map(f, c + r * ldc, c + r * ldc, cols);
}

void activate(const PostOp& p, float* y, std::int64_t n) {
  if (!is_map(p.kind) || n <= 0) return;
  parallel_for(n, 16384, [&](std::int64_t b, std::int64_t e) { map_rows(p, y + b, 0, 1, e - b); });
}

}  // namespace ge::cpu
