#pragma once
// Internal to the kernels written with GCC vector extensions (depthwise.cpp,
// conv_direct.cpp): the vector of V floats (an AVX2 ymm or an AVX-512 zmm), the even
// lanes of two of them (stride-2 reads) and the fused activation on a vector. Use only inside functions compiled for the
// vector's ISA and always inlined: by-value vectors never cross a call.
#include <type_traits>

#include "kernels/cpu/gemm.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // always inlined into functions of the vector's ISA

namespace ge::cpu {

// (A vector_size typedef that depends on a template parameter is silently dropped by
// GCC: they live at namespace scope.)
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf16 __attribute__((vector_size(64)));
template <int V>
using VecOf = std::conditional_t<V == 8, vf8, vf16>;

// The even lanes of the 2V floats in `a` then `b`.
template <int V>
inline __attribute__((always_inline)) VecOf<V> even_lanes(VecOf<V> a, VecOf<V> b) {
#if defined(__clang__)
  if constexpr (V == 8) {
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
  } else {
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  }
#else
  typedef int vi8 __attribute__((vector_size(32)));
  typedef int vi16 __attribute__((vector_size(64)));
  if constexpr (V == 8) {
    return __builtin_shuffle(a, b, vi8{0, 2, 4, 6, 8, 10, 12, 14});
  } else {
    return __builtin_shuffle(a, b, vi16{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
  }
#endif
}

// `p` on every lane of `v`, as `apply_post` on one value (ReLU maps NaN to 0, Clip keeps it).
template <class Vec>
inline __attribute__((always_inline)) Vec apply_post_v(Vec v, const PostOp& p) {
  const Vec zero = Vec{} + 0.0f;
  if (p.kind == Activation::relu) return v > zero ? v : zero;
  if (p.kind == Activation::clip) {
    const Vec lo = Vec{} + p.lo, hi = Vec{} + p.hi;
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  }
  return v;
}

}  // namespace ge::cpu

#pragma GCC diagnostic pop
