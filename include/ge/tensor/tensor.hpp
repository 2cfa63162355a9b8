#pragma once
/// \file
/// `ge::TensorDesc` (a data type and a shape with ranges: what shape inference computes)
/// and `ge::Tensor` (constant data: a data type, a static shape and bytes in a shared,
/// immutable buffer, so that copies of a graph share their weights).
///
/// ```
/// auto shape = ge::Tensor::from<std::int64_t>({4}, {0, 0, 4, 64});   // a 1-D i64 tensor
/// auto w = ge::Tensor::random(ge::DataType::f32, {64, 3, 7, 7}, 42);   // seeded weights
/// auto v = shape.to_int64s();                                          // {0, 0, 4, 64}
/// ```

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/shape/shape.hpp"

namespace ge {

/// What is known of a tensor before it exists: its data type and shape (with ranges).
struct TensorDesc {
  DataType dtype = DataType::undefined;  ///< `undefined` marks an omitted optional input
  Shape shape;                           ///< dims may be ranges; the rank may be unknown
  friend bool operator==(const TensorDesc&, const TensorDesc&) = default;
};

/// The text `f32[1~8,3,224,224]` of a description.
[[nodiscard]] GE_API std::string to_string(const TensorDesc& d);

/// Constant tensor data: a data type, a static shape and the bytes (row-major), held in
/// a shared immutable buffer. A default-constructed tensor is an f32 scalar 0.
class GE_API Tensor {
 public:
  Tensor();
  /// Wraps `bytes`. Throws `Errc::bad_tensor` when the byte count does not equal
  /// `element count * size_of(dtype)`, or `Errc::invalid_argument` for a negative dim
  /// or an `undefined` type.
  Tensor(DataType dtype, std::vector<std::int64_t> shape, std::vector<std::byte> bytes);

  /// A tensor of C++ values, e.g. `Tensor::from<float>({2}, {1.f, 2.f})`.
  /// Throws `Errc::bad_tensor` when the value count does not fit the shape.
  template <class T>
  [[nodiscard]] static Tensor from(std::vector<std::int64_t> shape, const std::vector<T>& values) {
    static_assert(data_type_of<T>() != DataType::undefined, "Tensor::from: no ge::DataType stores this C++ type");
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      for (std::size_t i = 0; i < values.size(); ++i) bytes[i] = std::byte{values[i] ? std::uint8_t{1} : std::uint8_t{0}};
    } else if (!values.empty()) {
      std::memcpy(bytes.data(), values.data(), bytes.size());
    }
    return Tensor(data_type_of<T>(), std::move(shape), std::move(bytes));
  }
  /// A rank-0 tensor holding `value`.
  template <class T>
  [[nodiscard]] static Tensor scalar(T value) {
    return from<T>({}, std::vector<T>{value});
  }
  /// Every element `value` (converted to `dtype`).
  [[nodiscard]] static Tensor full(DataType dtype, std::vector<std::int64_t> shape, double value);
  /// A tensor of that type and dims whose data is gone (`has_data()` false): what a
  /// compiled model keeps of weights that its kernels hold in their own layout. Its
  /// `bytes()` are empty; reading its values throws `Errc::unsupported`.
  /// A tensor over bytes it does not own (a mapped model file's weights): `bytes` stay
  /// valid while `owner` lives, and no copy is made. Throws `Errc::bad_tensor` when the
  /// byte count does not match the dims.
  [[nodiscard]] static Tensor view(DataType dtype, std::vector<std::int64_t> shape, std::span<const std::byte> bytes,
                                   std::shared_ptr<const void> owner);
  [[nodiscard]] static Tensor without_data(DataType dtype, std::vector<std::int64_t> shape);
  /// Seeded uniform values in `[lo, hi)` (a portable generator: the same seed gives the
  /// same bytes everywhere). Floating and integer types; throws `Errc::unsupported` for
  /// f16/bf16/bool.
  [[nodiscard]] static Tensor random(DataType dtype, std::vector<std::int64_t> shape,
                                     std::uint64_t seed, double lo = -1.0, double hi = 1.0);

  [[nodiscard]] DataType dtype() const noexcept { return dtype_; }
  /// The static dims.
  [[nodiscard]] const std::vector<std::int64_t>& dims() const noexcept { return dims_; }
  /// The dims as a `ge::Shape`.
  [[nodiscard]] Shape shape() const;
  /// The description `{dtype, shape}`.
  [[nodiscard]] TensorDesc desc() const { return {dtype_, shape()}; }
  /// The number of elements.
  [[nodiscard]] std::int64_t element_count() const noexcept;
  /// False for `without_data`.
  [[nodiscard]] bool has_data() const noexcept {
    return size_ == static_cast<std::size_t>(element_count()) * static_cast<std::size_t>(size_of(dtype_));
  }
  /// The raw bytes.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_.get(), size_}; }
  /// True when both tensors share one buffer (copies do).
  [[nodiscard]] bool shares_buffer_with(const Tensor& other) const noexcept { return data_ == other.data_; }

  /// The elements as int64 (integer and bool types). Throws `Errc::type_mismatch` for
  /// floating types. Used by shape inference to read shape-like constant inputs.
  [[nodiscard]] std::vector<std::int64_t> to_int64s() const;
  /// The elements as double (any type but f16/bf16, which throw `Errc::unsupported`).
  [[nodiscard]] std::vector<double> to_doubles() const;

  /// Same type, dims and bytes.
  friend bool operator==(const Tensor& a, const Tensor& b) noexcept;

 private:
  DataType dtype_;
  std::vector<std::int64_t> dims_;
  std::shared_ptr<const std::byte> data_;  // owns (or keeps alive) the bytes
  std::size_t size_ = 0;
};

/// The friend above, declared here too so that the library exports it.
GE_API bool operator==(const Tensor& a, const Tensor& b) noexcept;

}  // namespace ge
