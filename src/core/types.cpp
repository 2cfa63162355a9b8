#include <string>

#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/format.hpp"
#include "ge/core/tensor_view.hpp"

namespace ge {

std::string_view to_string(DataType t) noexcept {
  switch (t) {
    case DataType::undefined: return "undefined";
    case DataType::f32: return "f32";
    case DataType::f16: return "f16";
    case DataType::bf16: return "bf16";
    case DataType::f64: return "f64";
    case DataType::i8: return "i8";
    case DataType::i16: return "i16";
    case DataType::i32: return "i32";
    case DataType::i64: return "i64";
    case DataType::u8: return "u8";
    case DataType::u16: return "u16";
    case DataType::u32: return "u32";
    case DataType::u64: return "u64";
    case DataType::boolean: return "bool";
  }
  return "undefined";
}

DataType parse_data_type(std::string_view text) {
  struct Alias {
    std::string_view name;
    DataType type;
  };
  static constexpr Alias aliases[] = {
      {"f32", DataType::f32},   {"float32", DataType::f32}, {"float", DataType::f32},
      {"f16", DataType::f16},   {"float16", DataType::f16}, {"bf16", DataType::bf16},
      {"bfloat16", DataType::bf16}, {"f64", DataType::f64}, {"float64", DataType::f64},
      {"double", DataType::f64}, {"i8", DataType::i8},      {"int8", DataType::i8},
      {"i16", DataType::i16},   {"int16", DataType::i16},   {"i32", DataType::i32},
      {"int32", DataType::i32}, {"i64", DataType::i64},     {"int64", DataType::i64},
      {"u8", DataType::u8},     {"uint8", DataType::u8},    {"u16", DataType::u16},
      {"uint16", DataType::u16}, {"u32", DataType::u32},    {"uint32", DataType::u32},
      {"u64", DataType::u64},   {"uint64", DataType::u64},  {"bool", DataType::boolean},
      {"undefined", DataType::undefined},
  };
  for (const auto& a : aliases)
    if (a.name == text) return a.type;
  raise(Errc::invalid_argument, "[ge.core] unknown data type: '" + std::string(text) +
                                    "'; expected f32, f16, bf16, f64, i8, i16, i32, i64, u8, "
                                    "u16, u32, u64 or bool");
}

std::string_view to_string(Format f) noexcept {
  switch (f) {
    case Format::undefined: return "UNDEFINED";
    case Format::nd: return "ND";
    case Format::nchw: return "NCHW";
    case Format::nhwc: return "NHWC";
  }
  return "UNDEFINED";
}

std::optional<Format> parse_format(std::string_view text) noexcept {
  if (text == "NCHW") return Format::nchw;
  if (text == "NHWC") return Format::nhwc;
  if (text == "ND") return Format::nd;
  return std::nullopt;
}

}  // namespace ge

namespace ge {

namespace {

std::string dims_list(std::span<const std::int64_t> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

std::int64_t checked_elements(std::span<const std::int64_t> dims) {
  std::int64_t n = 1;
  for (const std::int64_t d : dims)
    if (d < 0) raise(Errc::invalid_argument, "[ge.core] dims " + dims_list(dims) + ": a dim is negative");
  for (const std::int64_t d : dims) {
    if (d == 0) return 0;
  }
  for (const std::int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n))
      raise(Errc::int_overflow, "[ge.core] dims " + dims_list(dims) + ": the element count overflows int64");
  }
  return n;
}

std::int64_t checked_bytes(std::span<const std::int64_t> dims, DataType dtype) {
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(checked_elements(dims), size_of(dtype), &bytes))
    raise(Errc::int_overflow, "[ge.core] dims " + dims_list(dims) + " of " + std::string(to_string(dtype)) +
                                  ": the byte size overflows int64");
  return bytes;
}

}  // namespace ge
