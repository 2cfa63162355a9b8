#pragma once
/// \file
/// `ge::DataType`: the element types of tensors, with their sizes and names.

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "ge/core/api.hpp"

namespace ge {

/// An element type. `undefined` marks an unused optional input (GE-REFERENCE.md §1).
enum class DataType : std::uint8_t {
  undefined,
  f32,
  f16,
  bf16,
  f64,
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  boolean,
};

/// Bytes per element; 0 for `undefined`.
[[nodiscard]] constexpr std::int64_t size_of(DataType t) noexcept {
  switch (t) {
    case DataType::undefined: return 0;
    case DataType::i8:
    case DataType::u8:
    case DataType::boolean: return 1;
    case DataType::f16:
    case DataType::bf16:
    case DataType::i16:
    case DataType::u16: return 2;
    case DataType::f32:
    case DataType::i32:
    case DataType::u32: return 4;
    case DataType::f64:
    case DataType::i64:
    case DataType::u64: return 8;
  }
  return 0;
}

/// The data type that stores C++ type `T` (`float` → f32, `bool` → boolean, ...).
template <class T>
[[nodiscard]] constexpr DataType data_type_of() noexcept {
  if constexpr (std::is_same_v<T, float>) return DataType::f32;
  else if constexpr (std::is_same_v<T, double>) return DataType::f64;
  else if constexpr (std::is_same_v<T, std::int8_t>) return DataType::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DataType::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DataType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DataType::i64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DataType::u8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return DataType::u16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return DataType::u32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return DataType::u64;
  else if constexpr (std::is_same_v<T, bool>) return DataType::boolean;
  else return DataType::undefined;
}

/// Calls `f(std::type_identity<T>{})` with the C++ type `T` that stores the elements of
/// type `t` (`float`, `double`, `std::int8_t` ... `std::uint64_t`, `bool`), or with
/// `T = void` for f16, bf16 (no C++ arithmetic type: their users read the bits) and
/// `undefined`; returns what `f` returns. The one switch over the element types.
///
/// ```
/// double first = ge::visit(t, [&]<class T>(std::type_identity<T>) -> double {
///   if constexpr (std::is_void_v<T>) throw std::runtime_error("no numbers");
///   else return static_cast<double>(*static_cast<const T*>(data));
/// });
/// ```
template <class F>
constexpr decltype(auto) visit(DataType t, F&& f) {
  switch (t) {
    case DataType::f32: return f(std::type_identity<float>{});
    case DataType::f64: return f(std::type_identity<double>{});
    case DataType::i8: return f(std::type_identity<std::int8_t>{});
    case DataType::i16: return f(std::type_identity<std::int16_t>{});
    case DataType::i32: return f(std::type_identity<std::int32_t>{});
    case DataType::i64: return f(std::type_identity<std::int64_t>{});
    case DataType::u8: return f(std::type_identity<std::uint8_t>{});
    case DataType::u16: return f(std::type_identity<std::uint16_t>{});
    case DataType::u32: return f(std::type_identity<std::uint32_t>{});
    case DataType::u64: return f(std::type_identity<std::uint64_t>{});
    case DataType::boolean: return f(std::type_identity<bool>{});
    case DataType::f16:
    case DataType::bf16:
    case DataType::undefined: break;
  }
  return f(std::type_identity<void>{});
}

/// The short name, e.g. `"f32"`, `"bool"`.
[[nodiscard]] GE_API std::string_view to_string(DataType t) noexcept;

/// Parses a short name (`"f32"`, `"float32"`, `"int64"`, `"bool"`...).
/// Throws `Error(Errc::invalid_argument)` naming the text for anything else.
[[nodiscard]] GE_API DataType parse_data_type(std::string_view text);

}  // namespace ge
