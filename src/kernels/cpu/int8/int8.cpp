// int8 products (int8.hpp): detection, weight packing, quantizing, the VNNI block product
// and its portable twin, MatMul and the NHWC conv over gathered u8 patches.
#include "kernels/cpu/int8/int8.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>

#include <tbb/task_arena.h>

#include "kernels/cpu/int8/int8_internal.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define GE_VNNI_BUILD 1
#define GE_AVX512_ISA "avx512f,avx512bw,avx512vl,avx512dq,fma"
#define GE_VNNI_ISA GE_AVX512_ISA ",avx512vnni"
#else
#define GE_VNNI_BUILD 0
#endif

namespace ge::cpu {

namespace {

std::atomic<Int8Kernels> int8_cap{Int8Kernels::vnni};

Int8Kernels present_kernels() noexcept {
#if GE_VNNI_BUILD
  if (isa() != Isa::avx512) return Int8Kernels::none;  // AVX-512 F/BW/VL and the zmm state, GE_CPU_ISA's cap
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return Int8Kernels::none;
  __cpuid_count(7, 0, a, b, c, d);
  return (c & (1u << 11)) != 0 ? Int8Kernels::vnni : Int8Kernels::none;  // AVX512_VNNI
#else
  return Int8Kernels::none;
#endif
}

float quantize_one(float v, float scale) noexcept {
  float t = v / scale;
  if (!(t == t)) return 0.0f;  // NaN
  t = std::min(std::max(t, -1.0e9f), 1.0e9f);
  return std::nearbyint(t);
}

// The portable block product: the VNNI kernel's arithmetic, one element at a time.
void gemm_s8_block_portable(std::int64_t m, std::int64_t n, std::int64_t kpad, const std::uint8_t* a,
                            std::int64_t lda, const std::int8_t* b, std::int64_t panel_bytes, float* c,
                            std::int64_t ldc, std::int64_t row0, std::int64_t col0, const S8Cols& q,
                            const GemmEpilogue& ep) {
  for (std::int64_t i = 0; i < m; ++i) {
    const std::int64_t row = row0 + i;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int8_t* panel = b + (j / 16) * panel_bytes + (j % 16) * 4;
      std::int32_t sum = 0;
      for (std::int64_t p = 0; p < kpad; ++p)
        sum += static_cast<std::int32_t>(a[i * lda + p]) * static_cast<std::int32_t>(panel[(p / 4) * 64 + p % 4]);
      const std::int64_t col = col0 + j;
      float v = static_cast<float>(sum - q.a_zero_point * q.sums[col]) * (q.a_scale * q.scale[col]);
      float* out = c + row * ldc + col;
      if (ep.accumulate) v += *out;
      if (ep.bias_m != nullptr) v += ep.bias_m[row];
      if (ep.bias_n != nullptr) v += ep.bias_n[col];
      if (ep.residual != nullptr) v += ep.residual[row * ep.ld_residual + col];
      *out = is_map(ep.post.kind) ? v : apply_post(v, ep.post);
    }
  }
}

#if GE_VNNI_BUILD

__attribute__((target(GE_AVX512_ISA))) inline __mmask16 lanes_mask(std::int64_t lanes) {
  return lanes >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << lanes) - 1u);
}

// rint(x / s) of 16 lanes, clamped to +-1e9, NaN lanes in `nan`: x * (1 / s) rounded,
// and the lanes whose product lies within a few ulps of a rounding tie (where it may round
// otherwise than the quotient) divided after all: the quotient's result, at a product's
// cost.
__attribute__((target(GE_AVX512_ISA))) inline __m512 rint_quotient(__m512 x, __m512 s, __m512 inv, __mmask16& nan) {
  const __mmask16 all = 0xffff;
  const __m512 big = _mm512_set1_ps(1.0e9f), small = _mm512_set1_ps(-1.0e9f);
  __m512 t = _mm512_mul_ps(x, inv);
  const __m512 r = _mm512_maskz_roundscale_ps(all, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 off = _mm512_abs_ps(_mm512_sub_ps(_mm512_abs_ps(_mm512_sub_ps(t, r)), _mm512_set1_ps(0.5f)));
  const __m512 eps = _mm512_fmadd_ps(_mm512_abs_ps(t), _mm512_set1_ps(1.0e-6f), _mm512_set1_ps(1.0e-30f));
  const __mmask16 near = _mm512_cmp_ps_mask(off, eps, _CMP_LE_OQ);
  t = r;
  if (near != 0) t = _mm512_mask_roundscale_ps(t, near, _mm512_div_ps(x, s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  return _mm512_mask_min_ps(big, all, big, _mm512_mask_max_ps(small, all, small, t));
}

// A block of MR rows x 16 * NP columns: MR * NP i32 accumulators over all of K, 4 bytes
// of K a step (per row of A its 4 bytes broadcast to every lane), then the epilogue on
// the registers on the way to C.
template <int MR, int NP>
__attribute__((target(GE_VNNI_ISA))) void s8_product(std::int64_t kpad, const std::uint8_t* a, std::int64_t lda,
                                                     const std::int8_t* b, std::int64_t b_stride, float* cm,
                                                     std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                                                     std::int64_t cols, const S8Cols& q, const GemmEpilogue& ep) {
  // (The accumulators as GCC's own int vectors: with __m512i, GCC 12 kept a copy of each
  // on the stack every step.)
  __v16si c[MR][NP];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int p = 0; p < NP; ++p) c[r][p] = __v16si{};
  const std::int8_t* b1 = b + b_stride;
  for (std::int64_t k = 0; k < kpad; k += 4) {
    const auto b0v = reinterpret_cast<__v16si>(_mm512_loadu_si512(b + k * 16));
    const auto b1v = NP == 2 ? reinterpret_cast<__v16si>(_mm512_loadu_si512(b1 + k * 16)) : b0v;
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      std::int32_t quad = 0;
      std::memcpy(&quad, a + r * lda + k, sizeof quad);
      const __v16si av = __v16si{} + quad;
      c[r][0] = __builtin_ia32_vpdpbusd_v16si(c[r][0], av, b0v);
      if constexpr (NP == 2) c[r][1] = __builtin_ia32_vpdpbusd_v16si(c[r][1], av, b1v);
    }
  }
  const __mmask16 masks[2] = {lanes_mask(cols), NP == 2 ? lanes_mask(cols - 16) : static_cast<__mmask16>(0)};
  __m512i offset[NP];
  __m512 mult[NP];
  const __m512i zp = _mm512_set1_epi32(q.a_zero_point);
  const __m512 sa = _mm512_set1_ps(q.a_scale);
#pragma GCC unroll 2
  for (int p = 0; p < NP; ++p) {
    offset[p] = _mm512_mullo_epi32(zp, _mm512_maskz_loadu_epi32(masks[p], q.sums + col0 + p * 16));
    mult[p] = _mm512_mul_ps(sa, _mm512_maskz_loadu_ps(masks[p], q.scale + col0 + p * 16));
  }
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(ep.post.lo), hi = _mm512_set1_ps(ep.post.hi);
  const __mmask16 all = 0xffff;  // the masked max and min (GCC 12 warns on the plain ones' undefined source)
  const bool requantize = q.out != nullptr && !is_map(ep.post.kind);
  const FakeQuant fq = requantize ? *q.out : FakeQuant{};
  const __m512 ys = _mm512_set1_ps(fq.scale), yinv = _mm512_set1_ps(1.0f / fq.scale);
  const __m512 big = _mm512_set1_ps(1.0e9f), small = _mm512_set1_ps(-1.0e9f);
  // The quantized range less the zero point: rint(v / s) clamped there, times s.
  const __m512i ylo = _mm512_set1_epi32(fq.lo - fq.zero_point), yhi = _mm512_set1_epi32(fq.hi - fq.zero_point);
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const std::int64_t row = row0 + r;
    float* crow = cm + row * ldc + col0;
#pragma GCC unroll 2
    for (int p = 0; p < NP; ++p) {
      const __mmask16 mk = masks[p];
      __m512 v = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(all, _mm512_sub_epi32(reinterpret_cast<__m512i>(c[r][p]), offset[p])), mult[p]);
      if (ep.accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, crow + p * 16));
      if (ep.bias_m != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(ep.bias_m[row]));
      if (ep.bias_n != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ep.bias_n + col0 + p * 16));
      if (ep.residual != nullptr)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ep.residual + row * ep.ld_residual + col0 + p * 16));
      if (ep.post.kind == Activation::relu) {
        v = _mm512_mask_max_ps(zero, all, v, zero);  // NaN -> 0, as the f32 kernels
      } else if (ep.post.kind == Activation::clip) {
        v = _mm512_mask_min_ps(hi, all, hi, _mm512_mask_max_ps(lo, all, lo, v));
      }
      if (requantize) {
        // The output's round trip, here unless a map kind comes after: by the reciprocal
        // (a value within an ulp of a tie may round the other way than the quotient: a
        // difference the f32 sums before it make anyway), NaN kept.
        const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        const __m512 t = _mm512_mask_min_ps(big, all, big, _mm512_mask_max_ps(small, all, small, _mm512_mul_ps(v, yinv)));
        const __m512i qv = _mm512_maskz_min_epi32(all, _mm512_maskz_max_epi32(all, _mm512_maskz_cvtps_epi32(all, t), ylo), yhi);
        v = _mm512_mask_mov_ps(_mm512_mul_ps(_mm512_maskz_cvtepi32_ps(all, qv), ys), nan, v);
      }
      _mm512_mask_storeu_ps(crow + p * 16, mk, v);
    }
  }
}

constexpr int kS8Rows = 12;  // 24 accumulators, 2 B rows, the broadcast

using S8Fn = void (*)(std::int64_t, const std::uint8_t*, std::int64_t, const std::int8_t*, std::int64_t, float*,
                      std::int64_t, std::int64_t, std::int64_t, std::int64_t, const S8Cols&, const GemmEpilogue&);

template <int NP, std::size_t... R>
constexpr std::array<S8Fn, sizeof...(R)> s8_table(std::index_sequence<R...>) {
  return {&s8_product<static_cast<int>(R) + 1, NP>...};
}

__attribute__((target(GE_VNNI_ISA))) void gemm_s8_block_vnni(std::int64_t m, std::int64_t n, std::int64_t kpad,
                                                             const std::uint8_t* a, std::int64_t lda,
                                                             const std::int8_t* b, std::int64_t panel_bytes, float* c,
                                                             std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                                                             const S8Cols& q, const GemmEpilogue& ep) {
  static constexpr auto one = s8_table<1>(std::make_index_sequence<kS8Rows>{});
  static constexpr auto two = s8_table<2>(std::make_index_sequence<kS8Rows>{});
  for (std::int64_t j0 = 0; j0 < n; j0 += 32) {
    const std::int64_t cols = std::min<std::int64_t>(32, n - j0);
    const std::int8_t* bj = b + (j0 / 16) * panel_bytes;
    const auto& fns = cols > 16 ? two : one;
    for (std::int64_t i0 = 0; i0 < m; i0 += kS8Rows) {
      const std::int64_t rows = std::min<std::int64_t>(kS8Rows, m - i0);
      fns[static_cast<std::size_t>(rows - 1)](kpad, a + i0 * lda, lda, bj, panel_bytes, c, ldc, row0 + i0, col0 + j0,
                                              cols, q, ep);
    }
  }
}

__attribute__((target(GE_AVX512_ISA))) void quantize_u8_avx512(const QuantU8& q, const float* x, std::int64_t n,
                                                             std::uint8_t* dst) {
  const __m512 s = _mm512_set1_ps(q.scale), inv = _mm512_set1_ps(1.0f / q.scale);
  const __m512i zp = _mm512_set1_epi32(q.zero_point), lo = _mm512_setzero_si512(), hi = _mm512_set1_epi32(255);
  const __mmask16 all = 0xffff;
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 mk = lanes_mask(n - i);
    __mmask16 nan = 0;
    const __m512 t = rint_quotient(_mm512_maskz_loadu_ps(mk, x + i), s, inv, nan);
    __m512i v = _mm512_add_epi32(_mm512_maskz_cvtps_epi32(all, t), zp);  // t is whole: exact
    v = _mm512_mask_mov_epi32(v, nan, zp);
    v = _mm512_maskz_min_epi32(all, _mm512_maskz_max_epi32(all, v, lo), hi);
    _mm_mask_storeu_epi8(dst + i, mk, _mm512_maskz_cvtepi32_epi8(all, v));
  }
}

__attribute__((target(GE_AVX512_ISA))) void fake_quant_avx512(const FakeQuant& q, const float* x, std::int64_t n,
                                                            float* y) {
  const __m512 s = _mm512_set1_ps(q.scale), inv = _mm512_set1_ps(1.0f / q.scale);
  const __m512i zp = _mm512_set1_epi32(q.zero_point), lo = _mm512_set1_epi32(q.lo), hi = _mm512_set1_epi32(q.hi);
  const __mmask16 all = 0xffff;
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 mk = lanes_mask(n - i);
    const __m512 xv = _mm512_maskz_loadu_ps(mk, x + i);
    __mmask16 nan = 0;
    const __m512 t = rint_quotient(xv, s, inv, nan);
    __m512i v = _mm512_add_epi32(_mm512_maskz_cvtps_epi32(all, t), zp);
    v = _mm512_sub_epi32(_mm512_maskz_min_epi32(all, _mm512_maskz_max_epi32(all, v, lo), hi), zp);
    __m512 out = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(all, v), s);
    out = _mm512_mask_mov_ps(out, nan, xv);
    _mm512_mask_storeu_ps(y + i, mk, out);
  }
}

#endif  // GE_VNNI_BUILD

// What runs on a finished block while it is in cache: the activation's map kinds, then
// the output's quantize-dequantize round trip.
// (`in_registers`: the VNNI kernel did the round trip already, where no map kind follows.)
void finish_block(std::int64_t m, std::int64_t n, float* c, std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                  const S8Cols& q, const GemmEpilogue& ep, bool in_registers) {
  map_rows(ep.post, c + row0 * ldc + col0, ldc, m, n);
  if (q.out == nullptr || (in_registers && !is_map(ep.post.kind))) return;
  for (std::int64_t i = 0; i < m; ++i) {
    float* row = c + (row0 + i) * ldc + col0;
    fake_quant(*q.out, row, n, row);
  }
}

}  // namespace

// The block product on the kernels this process runs.
void gemm_s8_block(std::int64_t m, std::int64_t n, std::int64_t kpad, const std::uint8_t* a, std::int64_t lda,
                   const S8View& b, std::int64_t col0, float* c, std::int64_t ldc, std::int64_t row0, const S8Cols& q,
                   const GemmEpilogue& ep) {
  if (m <= 0 || n <= 0) return;
  const std::int8_t* bj = b.panels + (col0 / 16) * b.panel_bytes;
#if GE_VNNI_BUILD
  if (int8_usable()) {
    gemm_s8_block_vnni(m, n, kpad, a, lda, bj, b.panel_bytes, c, ldc, row0, col0, q, ep);
    finish_block(m, n, c, ldc, row0, col0, q, ep, true);
    return;
  }
#endif
  gemm_s8_block_portable(m, n, kpad, a, lda, bj, b.panel_bytes, c, ldc, row0, col0, q, ep);
  finish_block(m, n, c, ldc, row0, col0, q, ep, false);
}

// Quantizes `n` floats on the task arena.
void quantize_parallel(const QuantU8& q, const float* x, std::int64_t n, std::uint8_t* dst) {
  parallel_for(n, grain_for(1, 65536), [&](std::int64_t b, std::int64_t e) { quantize_u8(q, x + b, e - b, dst + b); });
}

void check_quantization(std::string_view op, const QuantU8& in, const FakeQuant* out) {
  if (in.zero_point < 0 || in.zero_point > 255 || !(in.scale > 0.0f) || !std::isfinite(in.scale))
    fail(Errc::bad_op_inputs, op,
         "the input's scale " + std::to_string(in.scale) + " and zero point " + std::to_string(in.zero_point) +
             ": expected a positive finite scale and a zero point in [0, 255]");
  if (out != nullptr && (!(out->scale > 0.0f) || !std::isfinite(out->scale) || out->lo >= out->hi ||
                         out->zero_point < out->lo || out->zero_point > out->hi))
    fail(Errc::bad_op_inputs, op,
         "the output's round trip: scale " + std::to_string(out->scale) + ", zero point " +
             std::to_string(out->zero_point) + ", range [" + std::to_string(out->lo) + ", " + std::to_string(out->hi) +
             "]; expected a positive finite scale and lo <= zero point <= hi, lo < hi");
}

std::int64_t int8_threads() { return std::max(1, tbb::this_task_arena::max_concurrency()); }

Int8Kernels int8_kernels() noexcept {
  static const Int8Kernels present = present_kernels();
  return std::min(present, int8_cap.load(std::memory_order_relaxed));
}

void cap_int8_kernels(Int8Kernels most) noexcept { int8_cap.store(most, std::memory_order_relaxed); }

Int8KernelsCap::Int8KernelsCap(Int8Kernels most) noexcept : before_(int8_cap.exchange(most, std::memory_order_relaxed)) {}

Int8KernelsCap::~Int8KernelsCap() { int8_cap.store(before_, std::memory_order_relaxed); }

void quantize_u8(const QuantU8& q, const float* x, std::int64_t n, std::uint8_t* dst) noexcept {
#if GE_VNNI_BUILD
  if (int8_usable()) {
    quantize_u8_avx512(q, x, n, dst);
    return;
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) {
    const float t = x[i] / q.scale;
    const std::int64_t v = t == t ? static_cast<std::int64_t>(quantize_one(x[i], q.scale)) + q.zero_point : q.zero_point;
    dst[i] = static_cast<std::uint8_t>(std::clamp<std::int64_t>(v, 0, 255));
  }
}

void fake_quant(const FakeQuant& q, const float* x, std::int64_t n, float* y) noexcept {
#if GE_VNNI_BUILD
  if (isa() == Isa::avx512) {
    fake_quant_avx512(q, x, n, y);
    return;
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) {
    const float t = x[i] / q.scale;
    if (!(t == t)) {
      y[i] = x[i];
      continue;
    }
    const std::int64_t v =
        std::clamp<std::int64_t>(static_cast<std::int64_t>(quantize_one(x[i], q.scale)) + q.zero_point, q.lo, q.hi);
    y[i] = static_cast<float>(v - q.zero_point) * q.scale;
  }
}

namespace {

// The largest |q| of a column of `k` values (`at(p)`) that is `s * q` for integers q with
// that largest |q| one of 127 (8-bit symmetric) or 63 (7-bit, a reduced range), within
// f32 rounding; 0 when it is on neither grid (or not finite). An all-zero column: 127.
template <class At>
std::int32_t column_levels(std::int64_t k, const At& at) noexcept {
  float most = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) most = std::max(most, std::fabs(at(p)));
  if (!std::isfinite(most)) return 0;
  if (most == 0.0f) return 127;
  for (const std::int32_t levels : {127, 63}) {
    const float s = most / static_cast<float>(levels);
    bool on_grid = true;
    for (std::int64_t p = 0; p < k && on_grid; ++p) {
      const float t = at(p) / s;
      on_grid = std::fabs(t - std::nearbyint(t)) <= 1.0e-3f;
    }
    if (on_grid) return levels;
  }
  return 0;
}

}  // namespace

bool int8_grid(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans) noexcept {
  for (std::int64_t j = 0; j < n; ++j)
    if (column_levels(k, [&](std::int64_t p) { return trans ? b[j * ldb + p] : b[p * ldb + j]; }) == 0) return false;
  return true;
}

std::int64_t packed_s8_floats(std::int64_t k, std::int64_t n) noexcept { return S8Layout(k, n).floats(); }

PackedS8 pack_b_s8(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans) {
  const S8Layout l(k, n);
  PackedS8 out{k, n, 1, 1, k, Scratch(l.floats())};
  float* base = out.data.data();
  auto* panels = reinterpret_cast<std::int8_t*>(base);
  std::memset(panels, 0, static_cast<std::size_t>(l.panel_floats()) * sizeof(float));
  float* scale = base + l.panel_floats();
  auto* sums = reinterpret_cast<std::int32_t*>(base + l.panel_floats() + l.cols_pad);
  const auto at = [&](std::int64_t p, std::int64_t j) { return trans ? b[j * ldb + p] : b[p * ldb + j]; };
  for (std::int64_t j = 0; j < l.cols_pad; ++j) {
    scale[j] = 0.0f;
    sums[j] = 0;
    if (j >= n) continue;
    float most = 0.0f;
    for (std::int64_t p = 0; p < k; ++p) most = std::max(most, std::fabs(at(p, j)));
    // The column's own grid where it is on one (its int8 values come back exactly), else
    // the 8-bit one of its largest value.
    const std::int32_t levels = column_levels(k, [&](std::int64_t p) { return at(p, j); });
    const float s = most > 0.0f && std::isfinite(most) ? most / static_cast<float>(levels == 0 ? 127 : levels) : 1.0f;
    scale[j] = s;
    std::int8_t* lane = panels + (j / 16) * l.panel_bytes + (j % 16) * 4;
    std::int32_t sum = 0;
    for (std::int64_t p = 0; p < k; ++p) {
      const float t = at(p, j) / s;
      const auto v = static_cast<std::int32_t>(std::clamp(t == t ? std::nearbyint(t) : 0.0f, -127.0f, 127.0f));
      lane[(p / 4) * 64 + p % 4] = static_cast<std::int8_t>(v);
      sum += v;
    }
    sums[j] = sum;
  }
  return out;
}

PackedS8 pack_conv_nhwc_s8(const TensorView& w) {
  if (w.dtype != DataType::f32) fail(Errc::type_mismatch, "int8 conv", "weights must be f32");
  if (w.rank() != 4) fail(Errc::rank_mismatch, "int8 conv", "weights must be rank 4 [M, C, KH, KW]");
  const std::int64_t m = w.dims[0], c = w.dims[1], kh = w.dims[2], kw = w.dims[3], k = kh * kw * c;
  // B [K = (ky, kx, c), M] from OIHW.
  std::vector<float> kn(static_cast<std::size_t>(k * m));
  const float* src = w.as<const float>();
  for (std::int64_t o = 0; o < m; ++o)
    for (std::int64_t ci = 0; ci < c; ++ci)
      for (std::int64_t y = 0; y < kh; ++y)
        for (std::int64_t x = 0; x < kw; ++x)
          kn[static_cast<std::size_t>(((y * kw + x) * c + ci) * m + o)] = src[((o * c + ci) * kh + y) * kw + x];
  PackedS8 out = pack_b_s8(k, m, kn.data(), m, false);
  out.kh = kh;
  out.kw = kw;
  out.c = c;
  return out;
}

void matmul_u8s8(const TensorView& a, const QuantU8& qa, const PackedS8& b, const TensorView& y,
                 const GemmEpilogue& ep, const FakeQuant* out) {
  if (a.dtype != DataType::f32 || y.dtype != DataType::f32) fail(Errc::type_mismatch, "int8 MatMul", "A and Y must be f32");
  if (a.rank() < 1 || y.rank() != a.rank() || a.dims.back() != b.k || y.dims.back() != b.n)
    fail(Errc::bad_op_inputs, "int8 MatMul", "A [..., " + std::to_string(b.k) + "] and Y [..., " + std::to_string(b.n) +
                                                 "] expected for the packed weights");
  for (std::size_t d = 0; d + 1 < a.dims.size(); ++d)
    if (a.dims[d] != y.dims[d]) fail(Errc::bad_op_inputs, "int8 MatMul", "A's and Y's leading dims differ");
  check_quantization("int8 MatMul", qa, out);
  const std::int64_t k = b.k, n = b.n, m = k > 0 ? a.elements() / k : y.elements() / std::max<std::int64_t>(n, 1);
  if (m == 0 || n == 0) return;
  const S8View bv = s8_view(b);
  const std::int64_t kpad = bv.kpad;
  PooledBuffer abuf((m * kpad + 3) / 4);
  auto* a8 = reinterpret_cast<std::uint8_t*>(abuf.data());
  const float* pa = a.as<const float>();
  parallel_for(m, grain_for(kpad, 65536), [&](std::int64_t rb, std::int64_t re) {
    for (std::int64_t r = rb; r < re; ++r) {
      quantize_u8(qa, pa + r * k, k, a8 + r * kpad);
      std::memset(a8 + r * kpad + k, 0, static_cast<std::size_t>(kpad - k));
    }
  });
  const S8Cols q{bv.scale, bv.sums, qa.scale, qa.zero_point, out};
  float* c = y.as<float>();
  constexpr std::int64_t mb = 48;
  std::int64_t nb = 128;
  const std::int64_t mblocks = (m + mb - 1) / mb;
  while (nb > 32 && mblocks * ((n + nb - 1) / nb) < 4 * int8_threads()) nb /= 2;
  const std::int64_t nblocks = (n + nb - 1) / nb;
  parallel_for(mblocks * nblocks, 1, [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t i0 = t / nblocks * mb, j0 = t % nblocks * nb;
      gemm_s8_block(std::min(mb, m - i0), std::min(nb, n - j0), kpad, a8 + i0 * kpad, kpad, bv, j0, c, n, i0, q, ep);
    }
  });
}

}  // namespace ge::cpu
