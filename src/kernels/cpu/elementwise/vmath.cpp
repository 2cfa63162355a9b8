// See vmath.hpp. Each function body is a template over the vector width W, always
// inlined into one entry point per instruction set, so its vectors never cross a call.
#include "kernels/cpu/elementwise/vmath.hpp"

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/elementwise/elementwise.hpp"

#include <cstring>
#include <limits>

#include "kernels/cpu/dispatch.hpp"

#if GE_X86_KERNELS
#include <immintrin.h>
#endif

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors stay inside each entry point

namespace ge::cpu::vm {
namespace {

#define GE_VM_INLINE inline __attribute__((always_inline))

template <int W>
struct Vec {
  typedef float F __attribute__((vector_size(W * 4)));
  typedef std::uint32_t U __attribute__((vector_size(W * 4)));
};

template <class F>
GE_VM_INLINE F splat(float v) {
  return F{} + v;
}

template <class F>
GE_VM_INLINE F load(const float* p) {
  F v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class F>
GE_VM_INLINE void store(float* p, F v) {
  std::memcpy(p, &v, sizeof v);
}

// The n < W elements at p, the other lanes `fill`.
template <class F>
GE_VM_INLINE F load_part(const float* p, std::int64_t n, float fill) {
  F v = splat<F>(fill);
  std::memcpy(&v, p, static_cast<std::size_t>(n) * sizeof(float));
  return v;
}

// e^x as `exp_approx` (elementwise.hpp) computes it, lane by lane: the same reduction,
// polynomial and limits, so both agree.
template <class F, class U>
GE_VM_INLINE F exp_v(F x) {
  const F lo = splat<F>(-86.6f), hi = splat<F>(88.72f);
  F xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  const float magic = 12582912.0f;  // 1.5 * 2^23
  const F kf = xc * 1.44269504088896341f + magic;
  const U k = (U)kf - (U)splat<F>(magic);
  const F kr = kf - magic;
  const F r = (xc - kr * 0.693359375f) - kr * -2.12194440054690583e-4f;
  const F p = exp_poly5(r);
  const F scale = (F)((k + 126u) << 23);
  F e = p * scale * 2.0f;
  e = x < lo ? F{} : e;
  e = x > 88.7228394f ? splat<F>(std::numeric_limits<float>::infinity()) : e;
  return x != x ? x : e;
}

#if GE_X86_KERNELS
// AVX-512's e^x: the same reduction and polynomial as `exp_v`, the 2^k by vscalefps, which
// also gives 0 below the range and infinity above it and keeps NaN, where `exp_v` spends
// five selects: 0.31 -> 0.19 ns a value on Zen 4 (a SiLU after every EfficientNet conv).
// The input is first clamped to [-104, 89] (beyond: 0 and infinity all the same), so that
// the reduction stays exact. Below -86.6 it gives e^x as a denormal where `exp_v` gives 0.
template <class F>
GE_TARGET_AVX512 GE_VM_INLINE F round_even(F x) {
  return (F)_mm512_maskz_roundscale_ps(0xFFFF, (__m512)x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

template <class F>
GE_TARGET_AVX512 GE_VM_INLINE F exp_scalef(F x) {
  F xc = x < -104.0f ? splat<F>(-104.0f) : x;
  xc = xc > 89.0f ? splat<F>(89.0f) : xc;
  const F kf = round_even(xc * 1.44269504088896341f);
  const F r = (xc - kf * 0.693359375f) - kf * -2.12194440054690583e-4f;
  const F p = exp_poly5(r);
  return (F)_mm512_maskz_scalef_ps(0xFFFF, (__m512)p, (__m512)kf);
}

// 1 / (1 + e^-v) with AVX-512, v first clamped to [-87, 104] (the sum stays finite: the
// Newton step of an infinite one gives NaN; e^-v is 0 above): e^-v = 2^k e^-r' with
// k = round(-v log2 e) and r' = v + k ln 2, the polynomial taken at -r' by its odd terms'
// signs (no negation). The reciprocal from vrcp14ps and one Newton step (within an ulp or
// two of the division, which takes 5 cycles a vector on Zen 4). `d` and `r0` are the sum
// and its first reciprocal, for SiLU's product. 16 operations (19 before).
template <class F>
GE_TARGET_AVX512 GE_VM_INLINE void logistic_parts(F v, F& d, F& r0) {
  F t = v < -87.0f ? splat<F>(-87.0f) : v;
  t = t > 104.0f ? splat<F>(104.0f) : t;
  const F kf = round_even(t * -1.44269504088896341f);
  const F r = (t + kf * 0.693359375f) + kf * -2.12194440054690583e-4f;  // -r' of e^r'
  F p = splat<F>(-0.008290315046906471f);
  p = p * r + 0.04189793020486832f;
  p = p * r - 0.1666763573884964f;
  p = p * r + 0.4999915063381195f;
  p = p * r - 0.9999997019767761f;
  p = p * r + 1.0f;
  d = 1.0f + (F)_mm512_maskz_scalef_ps(0xFFFF, (__m512)p, (__m512)kf);
  r0 = (F)_mm512_maskz_rcp14_ps(0xFFFF, (__m512)d);
}

template <class F>
GE_TARGET_AVX512 GE_VM_INLINE F logistic_avx512(F v) {
  F d, r0;
  logistic_parts(v, d, r0);
  return r0 * (2.0f - d * r0);
}

// v * sigmoid(v) as (v r0)(2 - d r0); 0 below -87 (v times the clamped sum's 1e-38 is not,
// and -inf would give NaN).
template <class F>
GE_TARGET_AVX512 GE_VM_INLINE F silu_avx512(F v) {
  F d, r0;
  logistic_parts(v, d, r0);
  const F y = (v * r0) * (2.0f - d * r0);
  return v < -87.0f ? F{} : y;
}
#endif

// erfc(x): see `erfc` in vmath.hpp.
template <class F, class U>
GE_VM_INLINE F erfc_v(F x) {
  const F z = x < 0.0f ? -x : x;
  const F t = 1.0f / (1.0f + 0.5f * z);
  F p = splat<F>(0.17087277f);
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const F r = t * exp_v<F, U>(p - z * z);
  return x >= 0.0f ? r : 2.0f - r;
}

// tanh as `tanh_approx` (elementwise.cpp): (1 - e^-2|x|) / (1 + e^-2|x|), and its
// series near 0.
template <class F, class U>
GE_VM_INLINE F tanh_v(F x) {
  const F ax = x < 0.0f ? -x : x;
  const F e = exp_v<F, U>(-2.0f * ax);
  const F t = (1.0f - e) / (1.0f + e);
  const F x2 = x * x;
  const F small = x * (1.0f + x2 * (-1.0f / 3.0f + x2 * (2.0f / 15.0f + x2 * (-17.0f / 315.0f))));
  const F big = x < 0.0f ? -t : t;
  return ax < 0.0625f ? small : big;
}

template <class F, class U>
GE_VM_INLINE F apply(Map f, F v) {
  switch (f) {
    case Map::exp: return exp_v<F, U>(v);
    case Map::sigmoid: return 1.0f / (1.0f + exp_v<F, U>(-v));
    case Map::silu: return v < -88.0f ? F{} : v / (1.0f + exp_v<F, U>(-v));  // (-inf: 0, not -inf / inf)
    case Map::hard_swish: {
      F g = v * (1.0f / 6.0f) + 0.5f;
      g = g < 0.0f ? F{} : g;
      g = g > 1.0f ? F{} + 1.0f : g;
      return v * g;
    }
    case Map::tanh: return tanh_v<F, U>(v);
    case Map::gelu: return v * (1.0f - 0.5f * erfc_v<F, U>(v * 0.70710678118654752f));
    case Map::gelu_tanh:
      return 0.5f * v * (1.0f + tanh_v<F, U>(0.79788456080286536f * (v + 0.044715f * v * v * v)));
  }
  return v;
}

template <int W, Map M>
GE_VM_INLINE void map_loop(const float* x, float* y, std::int64_t n) {
  using F = typename Vec<W>::F;
  using U = typename Vec<W>::U;
  std::int64_t i = 0;
  for (; i + W <= n; i += W) store(y + i, apply<F, U>(M, load<F>(x + i)));
  if (i < n) {
    const F v = apply<F, U>(M, load_part<F>(x + i, n - i, 0.0f));
    std::memcpy(y + i, &v, static_cast<std::size_t>(n - i) * sizeof(float));
  }
}

template <int W>
GE_VM_INLINE void map_impl(Map f, const float* x, float* y, std::int64_t n) {
  switch (f) {
    case Map::exp: return map_loop<W, Map::exp>(x, y, n);
    case Map::sigmoid: return map_loop<W, Map::sigmoid>(x, y, n);
    case Map::silu: return map_loop<W, Map::silu>(x, y, n);
    case Map::hard_swish: return map_loop<W, Map::hard_swish>(x, y, n);
    case Map::tanh: return map_loop<W, Map::tanh>(x, y, n);
    case Map::gelu: return map_loop<W, Map::gelu>(x, y, n);
    case Map::gelu_tanh: return map_loop<W, Map::gelu_tanh>(x, y, n);
  }
}

#if GE_X86_KERNELS
// The AVX-512 loop of e^x, sigmoid and SiLU (`exp_scalef`, `logistic_avx512`); their
// intrinsics need the target on every function they are inlined into.
template <Map M>
GE_TARGET_AVX512 GE_VM_INLINE Vec<16>::F apply_avx512(Vec<16>::F v) {
  if constexpr (M == Map::exp) return exp_scalef(v);
  else if constexpr (M == Map::sigmoid) return logistic_avx512(v);
  else return silu_avx512(v);
}

template <Map M>
GE_TARGET_AVX512 GE_VM_INLINE void map_loop_avx512(const float* x, float* y, std::int64_t n) {
  using F = Vec<16>::F;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) store(y + i, apply_avx512<M>(load<F>(x + i)));
  if (i < n) {
    const F v = apply_avx512<M>(load_part<F>(x + i, n - i, 0.0f));
    std::memcpy(y + i, &v, static_cast<std::size_t>(n - i) * sizeof(float));
  }
}
#endif

// The largest lane of `m` (NaN where one is NaN), halving the vector: extracting lanes
// one by one cost more than the row's loop (softmax rows of 128).
template <int W>
GE_VM_INLINE float reduce_max(typename Vec<W>::F m) {
  if constexpr (W <= 4) {  // below 128 bits GCC lowers vector compares lane by lane, and the loop with them
    float out = m[0];
    for (int j = 1; j < W; ++j) out = m[j] > out || m[j] != m[j] ? m[j] : out;
    return out;
  } else {
    using H = typename Vec<W / 2>::F;
    H lo, hi;
    std::memcpy(&lo, &m, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&m) + sizeof lo, sizeof hi);
    return reduce_max<W / 2>(((lo > hi) | (lo != lo)) ? lo : hi);
  }
}

// The sum of the lanes of `s`, halving the vector.
template <int W>
GE_VM_INLINE float reduce_sum(typename Vec<W>::F s) {
  if constexpr (W <= 4) {
    float out = 0.0f;
    for (int j = 0; j < W; ++j) out += s[j];
    return out;
  } else {
    using H = typename Vec<W / 2>::F;
    H lo, hi;
    std::memcpy(&lo, &s, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&s) + sizeof lo, sizeof hi);
    return reduce_sum<W / 2>(lo + hi);
  }
}

template <int W>
GE_VM_INLINE float max_impl(const float* x, std::int64_t n) {
  using F = typename Vec<W>::F;
  using I = decltype(F{} != F{});
  // The max and, apart, whether a NaN was seen: one select per vector (the two tests
  // folded into one select came out lane by lane).
  F m = splat<F>(x[0]);
  I nan{};
  std::int64_t i = 0;
  for (; i + W <= n; i += W) {
    const F v = load<F>(x + i);
    m = v > m ? v : m;
    nan |= v != v;
  }
  if (i < n) {
    const F v = load_part<F>(x + i, n - i, x[0]);
    m = v > m ? v : m;
    nan |= v != v;
  }
  for (int j = 0; j < W; ++j)
    if (nan[j] != 0) return std::numeric_limits<float>::quiet_NaN();
  return reduce_max<W>(m);
}

template <int W>
GE_VM_INLINE float exp_shift_sum_impl(const float* x, float* y, std::int64_t n, float shift) {
  using F = typename Vec<W>::F;
  using U = typename Vec<W>::U;
  F s{};
  std::int64_t i = 0;
  for (; i + W <= n; i += W) {
    const F e = exp_v<F, U>(load<F>(x + i) - shift);
    store(y + i, e);
    s += e;
  }
  if (i < n) {
    const F e = exp_v<F, U>(load_part<F>(x + i, n - i, -std::numeric_limits<float>::infinity()) - shift);
    std::memcpy(y + i, &e, static_cast<std::size_t>(n - i) * sizeof(float));
    s += e;  // the filled lanes are e^-inf = 0
  }
  return reduce_sum<W>(s);
}

template <int W>
GE_VM_INLINE void scale_impl(float* y, std::int64_t n, float k) {
  using F = typename Vec<W>::F;
  std::int64_t i = 0;
  for (; i + W <= n; i += W) store(y + i, load<F>(y + i) * k);
  for (; i < n; ++i) y[i] *= k;
}

}  // namespace

// The variants dispatch.cpp chooses from.
void map_base(Map f, const float* x, float* y, std::int64_t n) { map_impl<4>(f, x, y, n); }
float max_base(const float* x, std::int64_t n) { return max_impl<4>(x, n); }
float exp_shift_sum_base(const float* x, float* y, std::int64_t n, float shift) {
  return exp_shift_sum_impl<4>(x, y, n, shift);
}
void scale_base(float* y, std::int64_t n, float k) { scale_impl<4>(y, n, k); }
#if GE_X86_KERNELS
GE_TARGET_AVX2 void map_avx2(Map f, const float* x, float* y, std::int64_t n) { map_impl<8>(f, x, y, n); }
GE_TARGET_AVX2 float max_avx2(const float* x, std::int64_t n) { return max_impl<8>(x, n); }
GE_TARGET_AVX2 float exp_shift_sum_avx2(const float* x, float* y, std::int64_t n, float shift) {
  return exp_shift_sum_impl<8>(x, y, n, shift);
}
GE_TARGET_AVX2 void scale_avx2(float* y, std::int64_t n, float k) { scale_impl<8>(y, n, k); }
// AVX-512: the same code over 16 lanes (the Gelu after BERT's first MLP product took 8%
// of a run over 8).
GE_TARGET_AVX512 void map_avx512(Map f, const float* x, float* y, std::int64_t n) {
  switch (f) {
    case Map::exp: return map_loop_avx512<Map::exp>(x, y, n);
    case Map::sigmoid: return map_loop_avx512<Map::sigmoid>(x, y, n);
    case Map::silu: return map_loop_avx512<Map::silu>(x, y, n);
    default: return map_impl<16>(f, x, y, n);
  }
}
GE_TARGET_AVX512 float max_avx512(const float* x, std::int64_t n) { return max_impl<16>(x, n); }
GE_TARGET_AVX512 float exp_shift_sum_avx512(const float* x, float* y, std::int64_t n, float shift) {
  return exp_shift_sum_impl<16>(x, y, n, shift);
}
GE_TARGET_AVX512 void scale_avx512(float* y, std::int64_t n, float k) { scale_impl<16>(y, n, k); }
#endif

bool avx2() noexcept { return kernels().isa >= Isa::avx2; }

float erfc(float x) noexcept {
  using V = Vec<4>;
  return erfc_v<V::F, V::U>(splat<V::F>(x))[0];
}

void map(Map f, const float* x, float* y, std::int64_t n) noexcept { kernels().vm_map(f, x, y, n); }

float max(const float* x, std::int64_t n) noexcept { return kernels().vm_max(x, n); }

float exp_shift_sum(const float* x, float* y, std::int64_t n, float shift) noexcept {
  return kernels().vm_exp_shift_sum(x, y, n, shift);
}

void scale(float* y, std::int64_t n, float k) noexcept { kernels().vm_scale(y, n, k); }

}  // namespace ge::cpu::vm
