#include "kernels/cpu/gemm/amx.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <utility>

#include <tbb/task_arena.h>

#include "kernels/cpu/elementwise/vmath.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#define GE_AMX_BUILD 1
#else
#define GE_AMX_BUILD 0
#endif

namespace ge::cpu {

namespace {

std::atomic<Bf16Kernels> bf16_cap{Bf16Kernels::amx};

#if GE_AMX_BUILD
// CPUID says AVX512-BF16 (with AVX-512 F/BW/VL, which isa() == avx512 implies) and the
// OS saves the zmm state.
bool dot_present() noexcept {
  if (isa() != Isa::avx512) return false;  // GE_CPU_ISA caps it too
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(1, 0, a, b, c, d);
  const bool osxsave = (c & (1u << 27)) != 0;
  __cpuid_count(7, 0, a, b, c, d);
  const bool avx512 = (b & (1u << 16)) != 0 && (b & (1u << 30)) != 0 && (b & (1u << 31)) != 0;  // F, BW, VL
  __cpuid_count(7, 1, a, b, c, d);
  const bool avx512_bf16 = (a & (1u << 5)) != 0;
  if (!osxsave || !avx512 || !avx512_bf16) return false;
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const unsigned long long xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  constexpr unsigned long long zmm_state = 0xe6;
  return (xcr0 & zmm_state) == zmm_state;
}

// Besides that, CPUID says AMX-TILE and AMX-BF16, the OS enables the tile state in XCR0,
// and Linux grants this process the tile data (arch_prctl ARCH_REQ_XCOMP_PERM for
// XFEATURE_XTILEDATA; without it the first tile instruction faults).
bool amx_present() noexcept {
  if (!dot_present()) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(7, 0, a, b, c, d);
  const bool tile = (d & (1u << 24)) != 0, tile_bf16 = (d & (1u << 22)) != 0;
  if (!tile || !tile_bf16) return false;
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const unsigned long long xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  constexpr unsigned long long tile_state = 3ull << 17;
  if ((xcr0 & tile_state) != tile_state) return false;
#if defined(__linux__)
  constexpr long arch_req_xcomp_perm = 0x1023, xfeature_xtiledata = 18;
  if (syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) != 0) return false;
#endif
  return true;
}

Bf16Kernels present_kernels() noexcept {
  return amx_present() ? Bf16Kernels::amx : dot_present() ? Bf16Kernels::dot : Bf16Kernels::none;
}
#else
Bf16Kernels present_kernels() noexcept { return Bf16Kernels::none; }
#endif

}  // namespace

Bf16Kernels bf16_kernels() noexcept {
  static const Bf16Kernels present = present_kernels();
  return std::min(present, bf16_cap.load(std::memory_order_relaxed));
}

void cap_bf16_kernels(Bf16Kernels most) noexcept { bf16_cap.store(most, std::memory_order_relaxed); }

Bf16KernelsCap::Bf16KernelsCap(Bf16Kernels most) noexcept : before_(bf16_cap.exchange(most, std::memory_order_relaxed)) {}

Bf16KernelsCap::~Bf16KernelsCap() { bf16_cap.store(before_, std::memory_order_relaxed); }

std::uint16_t to_bf16(float v) noexcept {
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // NaN: keep it quiet
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

float from_bf16(std::uint16_t v) noexcept {
  const std::uint32_t u = static_cast<std::uint32_t>(v) << 16;
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

void pack_b_bf16(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans, std::uint16_t* dst) {
  const std::int64_t kpad = bf16_k(k);
  const std::int64_t panels = (n + 15) / 16;
  for (std::int64_t p = 0; p < panels; ++p) {
    std::uint16_t* d = dst + p * bf16_panel_size(k);
    for (std::int64_t r = 0; r < kpad; ++r) {
      for (std::int64_t l = 0; l < 16; ++l) {
        const std::int64_t j = p * 16 + l;
        const float v = r < k && j < n ? (trans ? b[j * ldb + r] : b[r * ldb + j]) : 0.0f;
        d[(r / 2) * 32 + l * 2 + (r % 2)] = to_bf16(v);
      }
    }
  }
}

#if GE_AMX_BUILD

#define GE_BF16_ISA "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma"
#define GE_AMX_ISA "amx-tile,amx-bf16," GE_BF16_ISA

namespace {

// Row r of the result: 16 f32 lanes from `lo` rows are bf16 words; `interleave` puts row
// r's 16 words and row r+1's into the 32 words (r0[0], r1[0], r0[1], r1[1], ...).
__attribute__((target(GE_BF16_ISA))) inline __m512i vnni_pair(__m512 r0, __m512 r1) {
  const __m512i both = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(r1, r0));  // words 0-15: r0, 16-31: r1
  const __m512i idx = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6,
                                       21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  return _mm512_permutexvar_epi16(idx, both);
}

__attribute__((target(GE_BF16_ISA))) inline __mmask16 lanes_mask(std::int64_t lanes) {
  return lanes >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << lanes) - 1u);
}

// The 64-byte tile configuration: palette 1, every tile 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

const TileConfig& tile_config() {
  static const TileConfig cfg = [] {
    TileConfig c;
    for (int t = 0; t < 8; ++t) {
      c.colsb[t] = 64;
      c.rows[t] = 16;
    }
    return c;
  }();
  return cfg;
}

// Tiles: 0-3 accumulate C (0: rows 0-15 x cols 0-15, 1: rows 0-15 x 16-31, 2: rows 16-31
// x 0-15, 3: rows 16-31 x 16-31), 4 and 5 hold A's two 16-row slices, 6 and 7 B's two
// panels. `acc` gets the 32 x 32 result (row stride 32).
template <int MT, int NT>
__attribute__((target(GE_AMX_ISA), always_inline)) inline void tile_product(std::int64_t kpad, const std::uint16_t* a,
                                                                            std::int64_t lda, const std::uint16_t* b,
                                                                            std::int64_t b_stride, float* acc) {
  const long sa = static_cast<long>(lda * 2);
  const std::uint16_t* a1 = a + 16 * lda;
  const std::uint16_t* b1 = b + b_stride;
  _tile_zero(0);
  if constexpr (NT == 2) _tile_zero(1);
  if constexpr (MT == 2) _tile_zero(2);
  if constexpr (MT == 2 && NT == 2) _tile_zero(3);
  for (std::int64_t k = 0; k < kpad; k += kBf16K) {
    _tile_loadd(4, a + k, sa);
    _tile_loadd(6, b + k * 16, 64);
    if constexpr (NT == 2) _tile_loadd(7, b1 + k * 16, 64);
    _tile_dpbf16ps(0, 4, 6);
    if constexpr (NT == 2) _tile_dpbf16ps(1, 4, 7);
    if constexpr (MT == 2) {
      _tile_loadd(5, a1 + k, sa);
      _tile_dpbf16ps(2, 5, 6);
      if constexpr (NT == 2) _tile_dpbf16ps(3, 5, 7);
    }
  }
  _tile_stored(0, acc, 128);
  if constexpr (NT == 2) _tile_stored(1, acc + 16, 128);
  if constexpr (MT == 2) _tile_stored(2, acc + 16 * 32, 128);
  if constexpr (MT == 2 && NT == 2) _tile_stored(3, acc + 16 * 32 + 16, 128);
}

// The epilogue of `rows` x `cols` (<= 32 x 32) results in `acc` on their way to C.
__attribute__((target(GE_BF16_ISA))) void finish_tile(const float* acc, std::int64_t rows, std::int64_t cols, float* c,
                                                      std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                                                      const GemmEpilogue& ep) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(ep.post.lo), hi = _mm512_set1_ps(ep.post.hi);
  // The masked forms (all lanes) of max and min: the plain ones trip GCC 12's
  // maybe-uninitialized warning on their internal undefined source.
  const __mmask16 all = 0xffff;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t row = row0 + r;
    float* crow = c + row * ldc + col0;
    for (std::int64_t j = 0; j < cols; j += 16) {
      const __mmask16 mk = lanes_mask(cols - j);
      __m512 v = _mm512_load_ps(acc + r * 32 + j);
      if (ep.accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, crow + j));
      if (ep.bias_m != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(ep.bias_m[row]));
      if (ep.bias_n != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ep.bias_n + col0 + j));
      if (ep.residual != nullptr)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ep.residual + row * ep.ld_residual + col0 + j));
      if (ep.post.kind == Activation::relu) {
        v = _mm512_mask_max_ps(zero, all, v, zero);  // NaN -> 0, as the f32 kernels' x > 0 ? x : 0
      } else if (ep.post.kind == Activation::clip) {
        v = _mm512_mask_min_ps(hi, all, hi, _mm512_mask_max_ps(lo, all, lo, v));  // NaN stays NaN
      }
      _mm512_mask_storeu_ps(crow + j, mk, v);
    }
  }
}

__attribute__((target(GE_AMX_ISA))) void gemm_bf16_block_amx(std::int64_t m, std::int64_t n, std::int64_t kpad,
                                                              const std::uint16_t* a, std::int64_t lda,
                                                              const std::uint16_t* b, std::int64_t b_panel_stride,
                                                              float* c, std::int64_t ldc, std::int64_t row0,
                                                              std::int64_t col0, const GemmEpilogue& ep) {
  alignas(64) float acc[32 * 32];
  _tile_loadconfig(&tile_config());
  for (std::int64_t i0 = 0; i0 < m; i0 += 32) {
    const std::int64_t rows = std::min<std::int64_t>(32, m - i0);
    const std::uint16_t* ai = a + i0 * lda;
    for (std::int64_t j0 = 0; j0 < n; j0 += 32) {
      const std::int64_t cols = std::min<std::int64_t>(32, n - j0);
      const std::uint16_t* bj = b + (j0 / 16) * b_panel_stride;
      if (rows > 16) {
        if (cols > 16) {
          tile_product<2, 2>(kpad, ai, lda, bj, b_panel_stride, acc);
        } else {
          tile_product<2, 1>(kpad, ai, lda, bj, b_panel_stride, acc);
        }
      } else if (cols > 16) {
        tile_product<1, 2>(kpad, ai, lda, bj, b_panel_stride, acc);
      } else {
        tile_product<1, 1>(kpad, ai, lda, bj, b_panel_stride, acc);
      }
      finish_tile(acc, rows, cols, c, ldc, row0 + i0, col0 + j0, ep);
    }
  }
  _tile_release();
  map_rows(ep.post, c + row0 * ldc + col0, ldc, m, n);
}

// AVX512-BF16 without AMX: a block of MR rows x 16 * NP columns accumulates in MR * NP
// zmm registers over all of K; each step takes one K pair: NP VNNI rows of B (16 column
// pairs each) and, per row of A, its pair broadcast to every lane (`vdpbf16ps` adds both
// products of each lane's pair). The epilogue of `finish_tile` runs on the registers, on
// the way to C's rows [row0, row0 + MR) and columns [col0, col0 + cols).
template <int MR, int NP>
__attribute__((target(GE_BF16_ISA))) void dot_product(std::int64_t kpad, const std::uint16_t* a, std::int64_t lda,
                                                       const std::uint16_t* b, std::int64_t b_stride, float* cm,
                                                       std::int64_t ldc, std::int64_t row0, std::int64_t col0,
                                                       std::int64_t cols, const GemmEpilogue& ep) {
  __m512 c[MR][NP];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int q = 0; q < NP; ++q) c[r][q] = _mm512_setzero_ps();
  const std::uint16_t* b1 = b + b_stride;
  for (std::int64_t k = 0; k < kpad; k += 2) {
    const __m512bh b0v = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + k * 16));
    const __m512bh b1v = NP == 2 ? reinterpret_cast<__m512bh>(_mm512_loadu_si512(b1 + k * 16)) : b0v;
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      std::int32_t pair = 0;
      std::memcpy(&pair, a + r * lda + k, sizeof pair);
      const __m512bh av = reinterpret_cast<__m512bh>(_mm512_set1_epi32(pair));
      c[r][0] = _mm512_dpbf16_ps(c[r][0], av, b0v);
      if constexpr (NP == 2) c[r][1] = _mm512_dpbf16_ps(c[r][1], av, b1v);
    }
  }
  const __mmask16 masks[2] = {lanes_mask(cols), NP == 2 ? lanes_mask(cols - 16) : static_cast<__mmask16>(0)};
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(ep.post.lo), hi = _mm512_set1_ps(ep.post.hi);
  const __mmask16 all = 0xffff;  // (the masked max and min: see finish_tile)
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const std::int64_t row = row0 + r;
    float* crow = cm + row * ldc + col0;
#pragma GCC unroll 2
    for (int q = 0; q < NP; ++q) {
      const __mmask16 mk = masks[q];
      __m512 v = c[r][q];
      if (ep.accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, crow + q * 16));
      if (ep.bias_m != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(ep.bias_m[row]));
      if (ep.bias_n != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ep.bias_n + col0 + q * 16));
      if (ep.residual != nullptr)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ep.residual + row * ep.ld_residual + col0 + q * 16));
      if (ep.post.kind == Activation::relu) {
        v = _mm512_mask_max_ps(zero, all, v, zero);
      } else if (ep.post.kind == Activation::clip) {
        v = _mm512_mask_min_ps(hi, all, hi, _mm512_mask_max_ps(lo, all, lo, v));
      }
      _mm512_mask_storeu_ps(crow + q * 16, mk, v);
    }
  }
}

constexpr int kDotRows = 12;  // 24 accumulators, 2 B rows, the broadcast: 27 of 32 registers

using DotFn = void (*)(std::int64_t, const std::uint16_t*, std::int64_t, const std::uint16_t*, std::int64_t, float*,
                       std::int64_t, std::int64_t, std::int64_t, std::int64_t, const GemmEpilogue&);

template <int NP, std::size_t... R>
constexpr std::array<DotFn, sizeof...(R)> dot_table(std::index_sequence<R...>) {
  return {&dot_product<static_cast<int>(R) + 1, NP>...};
}

// Column pairs of panels outside, blocks of 12 rows inside: the two panels' K x 32 block
// stays in L2 while A's rows stream past it.
__attribute__((target(GE_BF16_ISA))) void gemm_bf16_block_dot(std::int64_t m, std::int64_t n, std::int64_t kpad,
                                                              const std::uint16_t* a, std::int64_t lda,
                                                              const std::uint16_t* b, std::int64_t b_panel_stride,
                                                              float* c, std::int64_t ldc, std::int64_t row0,
                                                              std::int64_t col0, const GemmEpilogue& ep) {
  static constexpr auto one = dot_table<1>(std::make_index_sequence<kDotRows>{});
  static constexpr auto two = dot_table<2>(std::make_index_sequence<kDotRows>{});
  for (std::int64_t j0 = 0; j0 < n; j0 += 32) {
    const std::int64_t cols = std::min<std::int64_t>(32, n - j0);
    const std::uint16_t* bj = b + (j0 / 16) * b_panel_stride;
    const auto& fns = cols > 16 ? two : one;
    for (std::int64_t i0 = 0; i0 < m; i0 += kDotRows) {
      const std::int64_t rows = std::min<std::int64_t>(kDotRows, m - i0);
      fns[static_cast<std::size_t>(rows - 1)](kpad, a + i0 * lda, lda, bj, b_panel_stride, c, ldc, row0 + i0,
                                              col0 + j0, cols, ep);
    }
  }
  map_rows(ep.post, c + row0 * ldc + col0, ldc, m, n);
}

__attribute__((target(GE_BF16_ISA))) void convert_rows_avx512(std::int64_t m, std::int64_t k, const float* a,
                                                           std::int64_t lda, std::uint16_t* dst, std::int64_t ld_dst,
                                                           std::int64_t rows_pad) {
  const std::int64_t kpad = bf16_k(k);
  for (std::int64_t i = 0; i < rows_pad; ++i) {
    std::uint16_t* d = dst + i * ld_dst;
    if (i >= m) {
      std::memset(d, 0, sizeof(std::uint16_t) * static_cast<std::size_t>(kpad));
      continue;
    }
    const float* s = a + i * lda;
    for (std::int64_t p = 0; p < kpad; p += 16) {
      const __mmask16 mk = p < k ? lanes_mask(k - p) : static_cast<__mmask16>(0);
      const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mk, s + p));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + p), reinterpret_cast<const __m256i&>(h));
    }
  }
}

__attribute__((target(GE_BF16_ISA))) void to_bf16_run_avx512(const float* src, std::int64_t n, std::uint16_t* dst) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), reinterpret_cast<const __m256i&>(h));
  }
  if (i < n) {
    const __mmask16 mk = lanes_mask(n - i);
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mk, src + i));
    _mm256_mask_storeu_epi16(dst + i, mk, reinterpret_cast<const __m256i&>(h));
  }
}

__attribute__((target(GE_BF16_ISA))) void panels_to_vnni_avx512(std::int64_t panels, std::int64_t rows, const float* src,
                                                             std::int64_t src_panel_stride, std::uint16_t* dst,
                                                             std::int64_t dst_panel_stride, std::int64_t row0) {
  for (std::int64_t p = 0; p < panels; ++p) {
    const float* s = src + p * src_panel_stride;
    std::uint16_t* d = dst + p * dst_panel_stride + row0 * 16;
    std::int64_t r = 0;
    for (; r + 2 <= rows; r += 2)
      _mm512_storeu_si512(d + r * 16, vnni_pair(_mm512_loadu_ps(s + r * 16), _mm512_loadu_ps(s + (r + 1) * 16)));
    if (r < rows) _mm512_storeu_si512(d + r * 16, vnni_pair(_mm512_loadu_ps(s + r * 16), _mm512_setzero_ps()));
  }
}

}  // namespace

#endif  // GE_AMX_BUILD

void convert_rows_bf16(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, std::uint16_t* dst,
                       std::int64_t ld_dst, std::int64_t rows_pad) {
#if GE_AMX_BUILD
  if (bf16_usable()) {
    convert_rows_avx512(m, k, a, lda, dst, ld_dst, rows_pad);
    return;
  }
#endif
  const std::int64_t kpad = bf16_k(k);
  for (std::int64_t i = 0; i < rows_pad; ++i)
    for (std::int64_t p = 0; p < kpad; ++p) dst[i * ld_dst + p] = i < m && p < k ? to_bf16(a[i * lda + p]) : 0;
}

void to_bf16_run(const float* src, std::int64_t n, std::uint16_t* dst) noexcept {
#if GE_AMX_BUILD
  if (bf16_usable()) {
    to_bf16_run_avx512(src, n, dst);
    return;
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) dst[i] = to_bf16(src[i]);
}

void panels_to_vnni(std::int64_t panels, std::int64_t rows, const float* src, std::int64_t src_panel_stride,
                    std::uint16_t* dst, std::int64_t dst_panel_stride, std::int64_t row0) {
#if GE_AMX_BUILD
  if (bf16_usable()) {
    panels_to_vnni_avx512(panels, rows, src, src_panel_stride, dst, dst_panel_stride, row0);
    return;
  }
#endif
  for (std::int64_t p = 0; p < panels; ++p)
    for (std::int64_t r = 0; r < (rows + 1) / 2 * 2; ++r)
      for (std::int64_t l = 0; l < 16; ++l)
        dst[p * dst_panel_stride + (row0 + r) / 2 * 32 + l * 2 + r % 2] =
            r < rows ? to_bf16(src[p * src_panel_stride + r * 16 + l]) : 0;
}

void zero_vnni_rows(std::int64_t panels, std::int64_t row0, std::int64_t row_end, std::uint16_t* dst,
                    std::int64_t dst_panel_stride) {
  if (row_end <= row0) return;
  for (std::int64_t p = 0; p < panels; ++p)
    std::memset(dst + p * dst_panel_stride + row0 * 16, 0, sizeof(std::uint16_t) * static_cast<std::size_t>((row_end - row0) * 16));
}

void gemm_bf16_block(std::int64_t m, std::int64_t n, std::int64_t depth, const std::uint16_t* a, std::int64_t lda,
                     const std::uint16_t* b, std::int64_t b_panel_stride, float* c, std::int64_t ldc,
                     std::int64_t row0, std::int64_t col0, const GemmEpilogue& ep) {
  if (m <= 0 || n <= 0) return;
#if GE_AMX_BUILD
  if (amx_bf16_usable()) {
    gemm_bf16_block_amx(m, n, bf16_k(depth), a, lda, b, b_panel_stride, c, ldc, row0, col0, ep);
    return;
  }
  if (bf16_usable()) {
    gemm_bf16_block_dot(m, n, bf16_depth(depth), a, lda, b, b_panel_stride, c, ldc, row0, col0, ep);
    return;
  }
#endif
  (void)depth, (void)a, (void)lda, (void)b, (void)b_panel_stride, (void)c, (void)ldc, (void)row0, (void)col0, (void)ep;
  fail(Errc::internal, "bf16 GEMM", "this CPU has neither AMX-BF16 nor AVX512-BF16; the kernel should have kept f32");
}

void matmul_bf16(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                 const std::uint16_t* b, float* c, std::int64_t ldc, const GemmEpilogue& ep) {
  if (m <= 0 || n <= 0) return;
  const std::int64_t kpad = bf16_k(k);
  const std::int64_t mpad = (m + 15) / 16 * 16;
  PooledBuffer abuf((mpad * kpad + 1) / 2);
  auto* a16 = reinterpret_cast<std::uint16_t*>(abuf.data());
  const std::int64_t row_blocks = mpad / 16;
  parallel_for(row_blocks, grain_for(16 * kpad, 65536), [&](std::int64_t rb, std::int64_t re) {
    const std::int64_t r0 = rb * 16, r1 = std::min(m, re * 16);
    convert_rows_bf16(std::max<std::int64_t>(0, r1 - r0), k, a + r0 * lda, lda, a16 + r0 * kpad, kpad,
                      (re - rb) * 16);
  });
  // Blocks of 64 x 64 (or narrower columns when that is what gives every thread work).
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  constexpr std::int64_t mb = 64;
  std::int64_t nb = 128;
  const std::int64_t mblocks = (m + mb - 1) / mb;
  while (nb > 32 && mblocks * ((n + nb - 1) / nb) < 4 * threads) nb /= 2;
  const std::int64_t nblocks = (n + nb - 1) / nb;
  const std::int64_t panel = bf16_panel_size(k);
  parallel_for(mblocks * nblocks, 1, [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t i0 = t / nblocks * mb, j0 = t % nblocks * nb;
      gemm_bf16_block(std::min(mb, m - i0), std::min(nb, n - j0), bf16_depth(k), a16 + i0 * kpad, kpad,
                      b + j0 / 16 * panel, panel, c, ldc, i0, j0, ep);
    }
  });
}

}  // namespace ge::cpu
