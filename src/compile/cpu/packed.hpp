#pragma once
// Private: packed weights as `PackedState` parts and back, so that a model file holds the
// weights as the kernels packed them and a load packs nothing (ge/compile/model_file.hpp).
//
//   auto packed = packed_part<cpu::PackedMatMulB>(r, 0, [&] { return cpu::pack_matmul_b(...); });
//   return make_packed_kernel(name, [packed](Views in, Views out) { ... }, {1}, packed);
//
// `packed_part` packs, or, when the request carries a model file's state, rebuilds the
// part from it: numbers checked, buffers viewed in place (the file's mapping, no copy).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge::cpu_lower {

// The fields of each packed type, in the order a part stores them.
template <class V> void packed_fields(cpu::PackedMatMulB& p, V&& v) { v(p.k), v(p.n), v(p.bf16), v(p.panels); }
template <class V> void packed_fields(cpu::PackedConvWeights& p, V&& v) {
  v(p.cout), v(p.cin_per_group), v(p.kh), v(p.kw), v(p.group), v(p.depthwise), v(p.bf16), v(p.pixel_major),
      v(p.winograd), v(p.direct), v(p.data);
}
template <class V> void packed_fields(cpu::PackedDepthwiseNhwc& p, V&& v) { v(p.c), v(p.kh), v(p.kw), v(p.taps); }
template <class V> void packed_fields(cpu::PackedFewChannelsNhwc& p, V&& v) {
  v(p.m), v(p.c), v(p.kh), v(p.kw), v(p.m_pad), v(p.bf16), v(p.w);
}
template <class V> void packed_fields(cpu::PackedConvNhwc& p, V&& v) {
  v(p.m), v(p.c), v(p.kh), v(p.kw), v(p.bf16), v(p.panels);
}
template <class V> void packed_fields(cpu::PackedS8& p, V&& v) { v(p.k), v(p.n), v(p.kh), v(p.kw), v(p.c), v(p.data); }
template <class V> void packed_fields(cpu::PackedConvTaps& p, V&& v) { v(p.m), v(p.c), v(p.kh), v(p.kw), v(p.panels); }
template <class V> void packed_fields(cpu::PackedWinogradNhwc& p, V&& v) { v(p.m), v(p.c), v(p.group), v(p.bf16), v(p.u); }
template <class V> void packed_fields(cpu::PackedGroupedNhwc& p, V&& v) {
  v(p.m), v(p.c), v(p.kh), v(p.kw), v(p.group), v(p.v), v(p.gv), v(p.w);
}

// The floats each packed type must hold for its numbers (a file that says otherwise is
// refused before a kernel could read past a buffer); -1 where only the packer knows.
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedMatMulB& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedConvWeights& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedDepthwiseNhwc& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedFewChannelsNhwc& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedConvNhwc& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedConvTaps& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedS8& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedWinogradNhwc& p);
[[nodiscard]] std::int64_t expected_floats(const cpu::PackedGroupedNhwc& p);

// A packed value as a part (its buffers are views of `p`'s).
template <class T>
PackedState::Part part_of(const T& p) {
  PackedState::Part part;
  auto& q = const_cast<T&>(p);
  packed_fields(q, [&](auto& f) {
    using F = std::remove_cvref_t<decltype(f)>;
    if constexpr (std::is_same_v<F, cpu::Scratch>) {
      part.buffers.push_back({reinterpret_cast<const std::byte*>(f.data()), static_cast<std::size_t>(f.size()) * sizeof(float)});
    } else {
      part.numbers.push_back(static_cast<std::int64_t>(f));
    }
  });
  return part;
}
inline PackedState::Part part_of(const std::vector<float>& v) {
  return {{}, {{reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(float)}}};
}

// Raises Errc::bad_model: part `index` of the state does not fit what kernel `kernel` packs.
[[noreturn]] void bad_packed_part(std::string_view kernel, std::size_t index, const std::string& what);

// Part `index` of `state` rebuilt as a `T`, its buffers viewing the state's.
template <class T>
T from_part(const PackedState& state, std::size_t index, std::string_view kernel) {
  if (index >= state.parts.size()) bad_packed_part(kernel, index, "missing");
  const PackedState::Part& part = state.parts[index];
  T p{};
  std::size_t n = 0, b = 0;
  packed_fields(p, [&](auto& f) {
    using F = std::remove_cvref_t<decltype(f)>;
    if constexpr (std::is_same_v<F, cpu::Scratch>) {
      if (b >= part.buffers.size()) bad_packed_part(kernel, index, "too few buffers");
      const auto bytes = part.buffers[b++];
      if (bytes.size() % sizeof(float) != 0 || reinterpret_cast<std::uintptr_t>(bytes.data()) % 64 != 0)
        bad_packed_part(kernel, index, "a buffer not of aligned floats");
      f = cpu::Scratch(reinterpret_cast<const float*>(bytes.data()), static_cast<std::int64_t>(bytes.size() / sizeof(float)),
                       state.owner);
    } else {
      if (n >= part.numbers.size()) bad_packed_part(kernel, index, "too few numbers");
      const std::int64_t v = part.numbers[n++];
      if (v < 0 || (std::is_same_v<F, bool> && v > 1)) bad_packed_part(kernel, index, "a number out of range");
      f = static_cast<F>(v);
    }
  });
  if (n != part.numbers.size() || b != part.buffers.size()) bad_packed_part(kernel, index, "extra numbers or buffers");
  const std::int64_t want = expected_floats(p);
  if (want >= 0 && [&] {
        std::int64_t have = 0;
        packed_fields(p, [&](auto& f) {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(f)>, cpu::Scratch>) have += f.size();
        });
        return have;
      }() != want)
    bad_packed_part(kernel, index, "buffers of the wrong size for its dims");
  return p;
}

// The vector part (a per-column bias), copied.
std::vector<float> floats_from_part(const PackedState& state, std::size_t index, std::string_view kernel);

// Part `index`: from the request's packed state when it has one, else `pack()`.
template <class T, class Pack>
std::shared_ptr<const T> packed_part(const KernelRequest& r, std::size_t index, std::string_view kernel, Pack&& pack) {
  if (r.packed != nullptr) return std::make_shared<const T>(from_part<T>(*r.packed, index, kernel));
  return std::make_shared<const T>(pack());
}

// A kernel over packed parts: an FnKernel that also tells its packed state.
template <class F, class... Parts>
class PackedKernel final : public Kernel {
 public:
  PackedKernel(std::string name, F f, std::uint64_t captured, std::shared_ptr<const Parts>... parts)
      : name_(std::move(name)), f_(std::move(f)), captured_(captured), parts_(std::move(parts)...) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  void run(std::span<const TensorView> in, std::span<const TensorView> out) const override { f_(in, out); }
  [[nodiscard]] bool captures_input(std::size_t input) const noexcept override {
    return input < 64 && ((captured_ >> input) & 1U) != 0;
  }
  [[nodiscard]] std::optional<PackedState> packed_state() const override {
    PackedState s;
    std::apply([&](const auto&... p) { (s.parts.push_back(part_of(*p)), ...); }, parts_);
    return s;
  }

 private:
  std::string name_;
  F f_;
  std::uint64_t captured_;
  std::tuple<std::shared_ptr<const Parts>...> parts_;
};

// Makes a shared `PackedKernel` that holds constant inputs `captured` packed in `parts`.
template <class F, class... Parts>
[[nodiscard]] std::shared_ptr<const Kernel> make_packed_kernel(std::string name, F f,
                                                               std::initializer_list<std::size_t> captured,
                                                               std::shared_ptr<const Parts>... parts) {
  std::uint64_t mask = 0;
  for (const std::size_t i : captured) mask |= std::uint64_t{1} << i;
  return std::make_shared<const PackedKernel<F, Parts...>>(std::move(name), std::move(f), mask, std::move(parts)...);
}

}  // namespace ge::cpu_lower
