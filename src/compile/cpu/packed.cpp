// Packed weights as PackedState parts: the sizes each packed type must have, and the
// errors of a part that does not fit (compile/cpu/packed.hpp).
#include "compile/cpu/packed.hpp"

#include <cstring>

#include "kernels/cpu/gemm/amx.hpp"

namespace ge::cpu_lower {
namespace {

// The product of `dims`, or -2 (no buffer has that many floats) when it overflows.
std::int64_t product(std::initializer_list<std::int64_t> dims) {
  std::int64_t p = 1;
  for (const std::int64_t d : dims)
    if (__builtin_mul_overflow(p, d, &p)) return -2;
  return p;
}

std::int64_t b_panels(std::int64_t k, std::int64_t n) {
  if (n > (std::int64_t{1} << 40) || k > (std::int64_t{1} << 40)) return -2;
  return product({(n + cpu::kGemmNR - 1) / cpu::kGemmNR, cpu::kGemmNR, k});
}

// The floats of bf16 VNNI panels of a K x N B (two bf16 a float), or -2 where no buffer
// has that many or this CPU runs no bf16 kernels (a file's bf16 part is refused here
// rather than failing at its first run).
std::int64_t bf16_panels(std::int64_t k, std::int64_t n) {
  if (n > (std::int64_t{1} << 40) || k > (std::int64_t{1} << 40) || !cpu::bf16_usable()) return -2;
  const std::int64_t halves = product({(n + 15) / 16, cpu::bf16_k(k), 16});
  return halves < 0 ? -2 : (halves + 1) / 2;
}

}  // namespace

std::int64_t expected_floats(const cpu::PackedMatMulB& p) {
  if (!p.bf16) return b_panels(p.k, p.n);
  return bf16_panels(p.k, p.n);
}
std::int64_t expected_floats(const cpu::PackedConvWeights& p) { return cpu::packed_conv_floats(p); }
std::int64_t expected_floats(const cpu::PackedDepthwiseNhwc& p) { return product({p.kh, p.kw, p.c}); }
std::int64_t expected_floats(const cpu::PackedFewChannelsNhwc& p) {
  if (p.m_pad != (p.m + 31) / 32 * 32) return -2;
  if (p.bf16) return cpu::bf16_usable() ? product({p.c, p.kh, (p.kw + 1) / 2, p.m_pad}) : -2;  // (pairs of bf16)
  return product({p.kh, p.kw, p.c, p.m_pad});
}
std::int64_t expected_floats(const cpu::PackedS8& p) {
  constexpr std::int64_t most = std::int64_t{1} << 40;
  if (p.k < 0 || p.n < 0 || p.k > most || p.n > most || p.kh < 1 || p.kw < 1 || p.c < 0) return -2;
  if (product({p.kh, p.kw, p.c}) != p.k) return -2;
  return cpu::packed_s8_floats(p.k, p.n);
}

std::int64_t expected_floats(const cpu::PackedConvNhwc& p) {
  const std::int64_t k = product({p.kh, p.kw, p.c});
  if (k < 0) return -2;
  if (!p.bf16) return b_panels(k, p.m);
  return bf16_panels(k, p.m);
}
std::int64_t expected_floats(const cpu::PackedConvTaps& p) {
  const std::int64_t per = b_panels(p.c, p.m);
  return per < 0 || p.kh < 1 || p.kw < 1 ? -2 : product({p.kh, p.kw, per});
}
std::int64_t expected_floats(const cpu::PackedGroupedNhwc& p) {
  if ((p.v != 8 && p.v != 16) || p.group < 1 || p.m % p.group != 0) return -2;
  if (p.gv != 1) {
    const std::int64_t mg = p.m / p.group;
    if (p.gv < 1 || mg != p.c || mg * p.gv != p.v) return -2;
    return product({(p.group + p.gv - 1) / p.gv, p.kh, p.kw, p.c, p.v});
  }
  return product({p.group, (p.m / p.group + p.v - 1) / p.v, p.kh, p.kw, p.c, p.v});
}
std::int64_t expected_floats(const cpu::PackedWinogradNhwc& p) {
  if (p.group < 1 || p.m % p.group != 0) return -2;
  const std::int64_t per = p.bf16 ? bf16_panels(p.c, p.m / p.group) : b_panels(p.c, p.m / p.group);
  return per < 0 ? -2 : product({16, p.group, per});
}

void bad_packed_part(std::string_view kernel, std::size_t index, const std::string& what) {
  raise(Errc::bad_model, "[ge.model_file] the packed weights of kernel " + std::string(kernel) + " (part " +
                             std::to_string(index) + ") do not fit it: " + what);
}

std::vector<float> floats_from_part(const PackedState& state, std::size_t index, std::string_view kernel) {
  if (index >= state.parts.size()) bad_packed_part(kernel, index, "missing");
  const PackedState::Part& part = state.parts[index];
  if (!part.numbers.empty() || part.buffers.size() != 1 || part.buffers[0].size() % sizeof(float) != 0)
    bad_packed_part(kernel, index, "expected one buffer of floats");
  std::vector<float> out(part.buffers[0].size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), part.buffers[0].data(), part.buffers[0].size());
  return out;
}

}  // namespace ge::cpu_lower
