#pragma once
// Internal to the kernels written with GCC vector extensions (depthwise.cpp,
// conv_direct.cpp): the vector of V floats (an AVX2 ymm or an AVX-512 zmm), the even
// lanes of two of them and the columns of a stride-1 or 2 read, partial loads and
// stores, and the fused activation on a vector. Use only inside functions compiled for the
// vector's ISA and always inlined: by-value vectors never cross a call.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/gemm/gemm.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // always inlined into functions of the vector's ISA

namespace ge::cpu {

// (A vector_size typedef that depends on a template parameter is silently dropped by
// GCC: they live at namespace scope.)
typedef float vf4 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf16 __attribute__((vector_size(64)));
typedef int vi8 __attribute__((vector_size(32)));   // shuffle indices of vf8
typedef int vi16 __attribute__((vector_size(64)));  // and of vf16
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
  if constexpr (V == 8) {
    return __builtin_shuffle(a, b, vi8{0, 2, 4, 6, 8, 10, 12, 14});
  } else {
    return __builtin_shuffle(a, b, vi16{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
  }
#endif
}

// The odd lanes of the 16 floats in `a` then `b`.
inline __attribute__((always_inline)) vf8 odd_lanes(vf8 a, vf8 b) {
#if defined(__clang__)
  return __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#else
  return __builtin_shuffle(a, b, vi8{1, 3, 5, 7, 9, 11, 13, 15});
#endif
}

// `a` and `b` interleaved (a0 b0 a1 b1 ...): lanes 0-3 of each into `first`, 4-7 into `second`.
inline __attribute__((always_inline)) void zip_lanes(vf8 a, vf8 b, vf8& first, vf8& second) {
#if defined(__clang__)
  first = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
  second = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
#else
  first = __builtin_shuffle(a, b, vi8{0, 8, 1, 9, 2, 10, 3, 11});
  second = __builtin_shuffle(a, b, vi8{4, 12, 5, 13, 6, 14, 7, 15});
#endif
}

// The V columns a vector of outputs reads at horizontal stride S (1 or 2) from `row`:
// one load, or the even lanes of two (reading 2V floats).
template <int V, int S>
inline __attribute__((always_inline)) VecOf<V> load_columns(const float* row) {
  VecOf<V> v;
  if constexpr (S == 1) {
    std::memcpy(&v, row, sizeof v);
  } else {
    static_assert(S == 2, "strides 1 and 2");
    VecOf<V> a, b;
    std::memcpy(&a, row, sizeof a);
    std::memcpy(&b, row + V, sizeof b);
    v = even_lanes<V>(a, b);
  }
  return v;
}

// The first `n` (1 to V) floats at `src` in a vector, zeros after; and `v`'s first `n`
// lanes stored to `dst`. A whole vector is one fixed-size copy: a run-time-size memcpy
// is a library call that spills the vector (and a store then read back wider, or a wide
// store read back narrower, waits on the store buffer). A part goes by halves of fixed
// size, 16 lanes as 8, 8 as 4, then floats: a stem conv to 24 channels stored its last 8
// of every pixel through the call, 2.3x the time per FLOP of one to 32 (Zen 4).
template <class Vec>
inline __attribute__((always_inline)) Vec load_lanes(const float* src, std::int64_t n) {
  constexpr std::int64_t L = sizeof(Vec) / sizeof(float);
  Vec v = Vec{} + 0.0f;
  if (n == L) {
    std::memcpy(&v, src, sizeof v);
  } else if constexpr (L == 16) {  // (halves of fixed size, joined by a shuffle)
    const vf8 lo = load_lanes<vf8>(src, n < 8 ? n : 8);
    const vf8 hi = n > 8 ? load_lanes<vf8>(src + 8, n - 8) : vf8{} + 0.0f;
    v = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  } else if constexpr (L == 8) {
    const vf4 lo = load_lanes<vf4>(src, n < 4 ? n : 4);
    const vf4 hi = n > 4 ? load_lanes<vf4>(src + 4, n - 4) : vf4{} + 0.0f;
    v = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
  } else {
    for (std::int64_t i = 0; i < n; ++i) v[i] = src[i];
  }
  return v;
}
template <class Vec>
inline __attribute__((always_inline)) void store_lanes(float* dst, Vec v, std::int64_t n) {
  constexpr std::int64_t L = sizeof(Vec) / sizeof(float);
  if (n == L) {
    std::memcpy(dst, &v, sizeof v);
  } else if constexpr (L == 16) {  // (a fixed-size store of the first half, then the rest)
    const vf8 lo = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
    if (n < 8) return store_lanes(dst, lo, n);
    std::memcpy(dst, &lo, sizeof lo);
    if (n > 8) store_lanes(dst + 8, __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15), n - 8);
  } else if constexpr (L == 8) {
    const vf4 lo = __builtin_shufflevector(v, v, 0, 1, 2, 3);
    if (n < 4) return store_lanes(dst, lo, n);
    std::memcpy(dst, &lo, sizeof lo);
    if (n > 4) store_lanes(dst + 4, __builtin_shufflevector(v, v, 4, 5, 6, 7), n - 4);
  } else {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = v[i];
  }
}

// `load_lanes` and `store_lanes` through a copy of run-time size: for a kernel whose
// accumulators fill the registers (the grouped convs' 28), where the halves' shuffles
// would push accumulators to the stack.
template <class Vec>
inline __attribute__((always_inline)) Vec load_lanes_by_copy(const float* src, std::int64_t n) {
  Vec v = Vec{} + 0.0f;
  if (n * static_cast<std::int64_t>(sizeof(float)) == static_cast<std::int64_t>(sizeof v)) {
    std::memcpy(&v, src, sizeof v);
  } else {
    std::memcpy(&v, src, sizeof(float) * static_cast<std::size_t>(n));
  }
  return v;
}
template <class Vec>
inline __attribute__((always_inline)) void store_lanes_by_copy(float* dst, Vec v, std::int64_t n) {
  if (n * static_cast<std::int64_t>(sizeof(float)) == static_cast<std::int64_t>(sizeof v)) {
    std::memcpy(dst, &v, sizeof v);
  } else {
    std::memcpy(dst, &v, sizeof(float) * static_cast<std::size_t>(n));
  }
}

// `p` on every lane of `v`, as `apply_post` on one value (ReLU maps NaN to 0, Clip keeps it).
// The in-place form is the one to call from a function with its own target attribute: clang
// refuses a by-value 64-byte vector between functions of different ISAs, even inlined ones.
template <class Vec>
inline __attribute__((always_inline)) void apply_post_inplace(Vec& v, const PostOp& p) {
  const Vec zero = Vec{} + 0.0f;
  if (p.kind == Activation::relu) {
    v = v > zero ? v : zero;
  } else if (p.kind == Activation::clip) {
    const Vec lo = Vec{} + p.lo, hi = Vec{} + p.hi;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
  }
}
template <class Vec>
inline __attribute__((always_inline)) Vec apply_post_v(Vec v, const PostOp& p) {
  apply_post_inplace(v, p);
  return v;
}

}  // namespace ge::cpu

#pragma GCC diagnostic pop
