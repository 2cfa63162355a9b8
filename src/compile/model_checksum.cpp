// The model file's checksum (model_file_format.hpp): one definition, three paths (AVX-512,
// AVX2, portable) that give the same 64 bits on every CPU, so that a file saved on one
// machine checks on another.
//
// Bytes go in 64-byte stripes over eight 64-bit lanes. Per stripe, lane l adds the stripe's
// word l to lane l^1, and the product of the low and high halves of (word l xor a key) to
// itself; the key depends on the lane and the stripe's place in its 1 KiB block, and after
// each block every lane is scrambled by a shift, a xor and a multiply, so that reordered
// stripes or blocks change the sum. That is one 32x32->64 multiply per word, which vector
// units do eight at a time: a load runs at memory speed. Runs of 4 MiB are summed on every
// thread, then the runs' sums in order.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <immintrin.h>

#include "compile/model_file_format.hpp"
#include "kernels/cpu/common.hpp"

namespace ge::detail {
namespace {

constexpr std::size_t kStripe = 64, kBlockStripes = 16, kLanes = 8;
constexpr std::uint64_t kPrime32 = 0x9E3779B1ULL, kMix1 = 0x9E3779B185EBCA87ULL, kMix2 = 0xC2B2AE3D27D4EB4FULL;

// Keys: entry s + l serves lane l of stripe s (a block's 16 stripes need 23), then eight
// for the scramble. Generated once from a fixed seed (splitmix64).
struct Keys {
  std::uint64_t k[kBlockStripes + kLanes - 1 + kLanes];
  constexpr Keys() : k{} {
    std::uint64_t x = 0x6765206D6F64656CULL;
    for (auto& v : k) {
      x += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      v = z ^ (z >> 31);
    }
  }
};
constexpr Keys kKeys{};
constexpr const std::uint64_t* kScramble = kKeys.k + kBlockStripes + kLanes - 1;

using StripesFn = void (*)(std::uint64_t* acc, const std::byte* p, std::size_t stripes, std::size_t first) noexcept;

// `stripes` stripes from `p`, the first at place `first` of its block; scrambles after a
// block's last stripe.
void stripes_portable(std::uint64_t* acc, const std::byte* p, std::size_t stripes, std::size_t first) noexcept {
  for (std::size_t s = 0; s < stripes; ++s, p += kStripe) {
    const std::size_t at = (first + s) % kBlockStripes;
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::uint64_t w = load_le<std::uint64_t>(p + l * 8);
      const std::uint64_t x = w ^ kKeys.k[at + l];
      acc[l ^ 1] += w;
      acc[l] += (x & 0xFFFFFFFFULL) * (x >> 32);
    }
    if (at == kBlockStripes - 1)
      for (std::size_t l = 0; l < kLanes; ++l) acc[l] = (acc[l] ^ (acc[l] >> 47) ^ kScramble[l]) * kPrime32;
  }
}

// a = (a ^ a >> 47 ^ key) * prime, the product as low half times prime plus the high
// half's product shifted up (prime < 2^32).
__attribute__((target("avx2"))) __m256i scramble_avx2(__m256i a, const std::uint64_t* key) noexcept {
  const __m256i prime = _mm256_set1_epi64x(static_cast<long long>(kPrime32));
  a = _mm256_xor_si256(_mm256_xor_si256(a, _mm256_srli_epi64(a, 47)), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key)));
  return _mm256_add_epi64(_mm256_mul_epu32(a, prime), _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), prime), 32));
}

__attribute__((target("avx2"))) void stripes_avx2(std::uint64_t* acc, const std::byte* p, std::size_t stripes,
                                                  std::size_t first) noexcept {
  __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc));
  __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + 4));
  for (std::size_t s = 0; s < stripes; ++s, p += kStripe) {
    const std::size_t at = (first + s) % kBlockStripes;
    const __m256i d0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i d1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    const __m256i x0 = _mm256_xor_si256(d0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kKeys.k + at)));
    const __m256i x1 = _mm256_xor_si256(d1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kKeys.k + at + 4)));
    a0 = _mm256_add_epi64(a0, _mm256_mul_epu32(x0, _mm256_srli_epi64(x0, 32)));
    a1 = _mm256_add_epi64(a1, _mm256_mul_epu32(x1, _mm256_srli_epi64(x1, 32)));
    a0 = _mm256_add_epi64(a0, _mm256_shuffle_epi32(d0, _MM_SHUFFLE(1, 0, 3, 2)));
    a1 = _mm256_add_epi64(a1, _mm256_shuffle_epi32(d1, _MM_SHUFFLE(1, 0, 3, 2)));
    if (at == kBlockStripes - 1) {
      a0 = scramble_avx2(a0, kScramble);
      a1 = scramble_avx2(a1, kScramble + 4);
    }
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc), a0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 4), a1);
}

// GCC 12 warns that the undefined source inside some AVX-512 intrinsics may be used
// uninitialised; it is not.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f"))) void stripes_avx512(std::uint64_t* acc, const std::byte* p, std::size_t stripes,
                                                       std::size_t first) noexcept {
  __m512i a = _mm512_loadu_si512(acc);
  const __m512i prime = _mm512_set1_epi64(static_cast<long long>(kPrime32));
  const __m512i scramble_key = _mm512_loadu_si512(kScramble);
  for (std::size_t s = 0; s < stripes; ++s, p += kStripe) {
    const std::size_t at = (first + s) % kBlockStripes;
    const __m512i d = _mm512_loadu_si512(p);
    const __m512i x = _mm512_xor_si512(d, _mm512_loadu_si512(kKeys.k + at));
    a = _mm512_add_epi64(a, _mm512_mul_epu32(x, _mm512_srli_epi64(x, 32)));
    a = _mm512_add_epi64(a, _mm512_shuffle_epi32(d, _MM_PERM_BADC));
    if (at == kBlockStripes - 1) {
      a = _mm512_xor_si512(_mm512_xor_si512(a, _mm512_srli_epi64(a, 47)), scramble_key);
      a = _mm512_add_epi64(_mm512_mul_epu32(a, prime), _mm512_slli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), prime), 32));
    }
  }
  _mm512_storeu_si512(acc, a);
}
#pragma GCC diagnostic pop

std::uint64_t run_sum(std::span<const std::byte> bytes, StripesFn stripes) noexcept {
  std::uint64_t acc[kLanes];
  for (std::size_t l = 0; l < kLanes; ++l) acc[l] = kMix2 * (l + 1);
  const std::size_t n = bytes.size() / kStripe;
  // In pieces of 64 blocks, so that a path's stripes stay in registers.
  constexpr std::size_t kPiece = 64 * kBlockStripes;
  for (std::size_t s = 0; s < n; s += kPiece) stripes(acc, bytes.data() + s * kStripe, std::min(kPiece, n - s), 0);
  std::uint64_t h = bytes.size() * kMix1;
  for (std::size_t l = 0; l < kLanes; ++l) h = std::rotl(h ^ (acc[l] * kMix2), 27) * kMix1 + kMix2;
  std::size_t i = n * kStripe;
  for (; i + 8 <= bytes.size(); i += 8) h = std::rotl(h ^ load_le<std::uint64_t>(bytes.data() + i) * kMix2, 29) * kMix1;
  for (; i < bytes.size(); ++i) h = (h ^ static_cast<std::uint8_t>(bytes[i])) * kMix1;
  h ^= h >> 33;
  h *= kMix2;
  return h ^ (h >> 29);
}

StripesFn stripes_for(cpu::Isa isa) noexcept {
  switch (isa) {
    case cpu::Isa::avx512: return stripes_avx512;
    case cpu::Isa::avx2: return stripes_avx2;
    default: return stripes_portable;
  }
}

}  // namespace

std::uint64_t model_checksum(std::span<const std::byte> bytes, cpu::Isa isa) noexcept {
  const StripesFn stripes = stripes_for(std::min(isa, cpu::isa()));
  constexpr std::size_t run = std::size_t{4} << 20;
  const std::size_t runs = (bytes.size() + run - 1) / run;
  if (runs <= 1) return run_sum(bytes, stripes);
  std::vector<std::uint64_t> sums(runs);
  cpu::parallel_for(static_cast<std::int64_t>(runs), 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const std::size_t at = static_cast<std::size_t>(r) * run;
      sums[static_cast<std::size_t>(r)] = run_sum(bytes.subspan(at, std::min(run, bytes.size() - at)), stripes);
    }
  });
  return run_sum(std::as_bytes(std::span(sums)), stripes_portable);
}

std::uint64_t model_checksum(std::span<const std::byte> bytes) noexcept { return model_checksum(bytes, cpu::isa()); }

void seal_model_file(std::span<std::byte> file) noexcept {
  if (file.size() < model_header_bytes) return;
  store_le(file.data() + ModelHeaderAt::checksum, model_checksum(file.subspan(model_checksum_from)));
}

}  // namespace ge::detail
