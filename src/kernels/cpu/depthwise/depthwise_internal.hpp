#pragma once
// Internal to the NHWC depthwise kernels (depthwise_nhwc.cpp, depthwise_ring.cpp): the
// blocks that load each input column once for every tap that reads it, and the ring
// sweep for kernels 5 and 7 wide.

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/vec.hpp"

namespace ge::cpu {

inline constexpr int kMaxDepthwiseTaps = 49;

// One NHWC depthwise conv: the input [n, h, w, c], the output [n, oh, ow, c], the taps
// [kh * kw][c], bias [c] or null, residual (like the output) or null.
struct DepthwiseNhwcJob {
  const Conv2dParams* p;
  std::int64_t n, h, w, c, oh, ow, kh, kw;
  const float* x;
  const float* taps;
  const float* bias;
  float* y;
  const float* residual;
};

// The register-blocked ring sweep (depthwise_ring.cpp) where it serves the conv (AVX2 or
// AVX-512; kernels 5 and 7 wide at horizontal stride 1, no dilation): true when done.
bool depthwise_ring_nhwc(const DepthwiseNhwcJob& job);

// The pixel (0..PX-1) of a block that reads column J at tap kx, or -1.
template <int S, int D, int PX>
constexpr int pixel_of(int j, int kx) {
  const int r = j - kx * D;
  return r >= 0 && r % S == 0 && r / S < PX ? r / S : -1;
}

template <int P, class Vec>
inline __attribute__((always_inline)) void fma_at(Vec* acc, Vec t, Vec v) {
  if constexpr (P >= 0) acc[P] += t * v;
}

// Column J of the block: loaded once if any pixel reads it, then multiplied into each.
template <int V, int S, int D, int PX, int J, int... K>
inline __attribute__((always_inline)) void column(const float* src, std::int64_t cs, const VecOf<V>* t, VecOf<V>* acc,
                                                  std::integer_sequence<int, K...>) {
  if constexpr (((pixel_of<S, D, PX>(J, K) >= 0) || ...)) {
    VecOf<V> v;
    std::memcpy(&v, src + J * cs, sizeof v);
    if constexpr (V == 16) asm("" : "+v"(v));  // (kept in a register: GCC would load it again for every FMA)
    (fma_at<pixel_of<S, D, PX>(J, K)>(acc, t[K], v), ...);
  }
}

template <int V, int KW, int S, int D, int PX, int... J>
inline __attribute__((always_inline)) void columns(const float* src, std::int64_t cs, const VecOf<V>* t, VecOf<V>* acc,
                                                   std::integer_sequence<int, J...>) {
  (column<V, S, D, PX, J>(src, cs, t, acc, std::make_integer_sequence<int, KW>{}), ...);
}


}  // namespace ge::cpu
