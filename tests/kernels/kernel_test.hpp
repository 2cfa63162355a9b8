#pragma once
/// \file
/// Small helpers shared by the kernel tests: owning test tensors, seeded random data,
/// an approximate comparison, and the tag of kernel errors.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/tensor_view.hpp"
#include "support/expect_error.hpp"

namespace ge::test {

/// The DataType of `T` (bool tensors are stored as std::uint8_t with `boolean`).
template <class T>
constexpr DataType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DataType::f32;
  if constexpr (std::is_same_v<T, double>) return DataType::f64;
  if constexpr (std::is_same_v<T, std::int32_t>) return DataType::i32;
  if constexpr (std::is_same_v<T, std::int64_t>) return DataType::i64;
  if constexpr (std::is_same_v<T, std::int8_t>) return DataType::i8;
  if constexpr (std::is_same_v<T, std::uint8_t>) return DataType::u8;
  if constexpr (std::is_same_v<T, std::uint16_t>) return DataType::f16;
  return DataType::undefined;
}

/// An owning tensor for tests.
template <class T>
struct Buf {
  std::vector<std::int64_t> dims;
  std::vector<T> v;
  DataType dt = dtype_of<T>();

  Buf() = default;
  /// Zero-filled tensor of `dims`.
  explicit Buf(std::vector<std::int64_t> d, DataType t = dtype_of<T>()) : dims(std::move(d)), dt(t) {
    std::int64_t n = 1;
    for (auto x : dims) n *= x;
    v.assign(static_cast<std::size_t>(n), T{});
  }
  /// Tensor of `dims` holding `values`.
  Buf(std::vector<std::int64_t> d, std::vector<T> values, DataType t = dtype_of<T>())
      : dims(std::move(d)), v(std::move(values)), dt(t) {}
  /// A view of it.
  [[nodiscard]] TensorView view() const {
    return TensorView{const_cast<T*>(v.data()), dt, std::span<const std::int64_t>(dims)};
  }
  /// Element count.
  [[nodiscard]] std::int64_t size() const { return static_cast<std::int64_t>(v.size()); }
  /// Element i.
  T& operator[](std::int64_t i) { return v[static_cast<std::size_t>(i)]; }
  /// Element i.
  const T& operator[](std::int64_t i) const { return v[static_cast<std::size_t>(i)]; }
};

/// A seeded random f32 tensor, uniform in [lo, hi].
inline Buf<float> random_f32(std::vector<std::int64_t> dims, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  Buf<float> b(std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (auto& x : b.v) x = dist(gen);
  return b;
}

/// Checks |got - want| <= atol + rtol * |want| element-wise, reporting the first mismatch.
inline void check_close(const std::vector<float>& got, const std::vector<float>& want, float atol = 1e-4f,
                        float rtol = 1e-4f) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])) ||
                    std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i]);
    if (!ok) {
      INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
      CHECK(ok);
      return;
    }
  }
}

/// The start of every kernel error's message: pass it to expect_error.
inline constexpr std::string_view kernels_tag = "[ge.kernels] [";

}  // namespace ge::test
