// ONNX TensorProto -> ge::Tensor: data types, dims checked before any allocation, raw
// data, the typed fields and external data files.
#include "onnx/convert.hpp"

#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>

namespace ge::onnx::detail {

static_assert(std::endian::native == std::endian::little, "ONNX raw data is little-endian; this importer copies it as is");

std::optional<DataType> map_type(std::int32_t t) noexcept {
  switch (t) {
    case ::onnx::TensorProto_DataType_FLOAT: return DataType::f32;
    case ::onnx::TensorProto_DataType_UINT8: return DataType::u8;
    case ::onnx::TensorProto_DataType_INT8: return DataType::i8;
    case ::onnx::TensorProto_DataType_UINT16: return DataType::u16;
    case ::onnx::TensorProto_DataType_INT16: return DataType::i16;
    case ::onnx::TensorProto_DataType_INT32: return DataType::i32;
    case ::onnx::TensorProto_DataType_INT64: return DataType::i64;
    case ::onnx::TensorProto_DataType_BOOL: return DataType::boolean;
    case ::onnx::TensorProto_DataType_FLOAT16: return DataType::f16;
    case ::onnx::TensorProto_DataType_DOUBLE: return DataType::f64;
    case ::onnx::TensorProto_DataType_UINT32: return DataType::u32;
    case ::onnx::TensorProto_DataType_UINT64: return DataType::u64;
    case ::onnx::TensorProto_DataType_BFLOAT16: return DataType::bf16;
    default: return std::nullopt;
  }
}

std::string type_name(std::int32_t t) {
  if (::onnx::TensorProto_DataType_IsValid(t))
    return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(t));
  return "data type " + std::to_string(t);
}

std::string quote(std::string_view s) {
  // Names from a file may hold anything: keep messages printable and short.
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < 200; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (s.size() > 200) out += "...";
  return out + "'";
}

void fail(Errc code, const std::string& what) { raise(code, "[ge.onnx] " + what); }

namespace {

// The bytes of an external data file, checked against `expected` before reading.
std::vector<std::byte> read_external(const ::onnx::TensorProto& t, const std::string& what, std::int64_t expected,
                                     const std::filesystem::path& base_dir) {
  std::string location;
  std::optional<std::int64_t> offset, length;
  const auto number = [&](const std::string& key, const std::string& text) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || p != text.data() + text.size() || v < 0)
      fail(Errc::bad_model, what + " has external data " + key + " " + quote(text) + "; expected an integer >= 0");
    return v;
  };
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset") offset = number("offset", e.value());
    else if (e.key() == "length") length = number("length", e.value());
  }
  if (location.empty()) fail(Errc::bad_model, what + " has external data without a location");
  if (base_dir.empty())
    fail(Errc::bad_model, what + " has external data " + quote(location) +
                              " but no model directory was given; expected a model loaded from a file or a base_dir");
  const std::filesystem::path rel(location);
  bool escapes = rel.is_absolute() || rel.has_root_name() || rel.has_root_directory();
  for (const auto& part : rel)
    if (part == "..") escapes = true;
  std::error_code ec;
  const auto base = std::filesystem::weakly_canonical(base_dir, ec);
  const auto full = std::filesystem::weakly_canonical(base_dir / rel, ec);
  if (!ec && !escapes) {
    // Symbolic links may still lead out of the directory.
    const auto mismatch = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
    escapes = mismatch.first != base.end();
  }
  if (escapes)
    fail(Errc::bad_model, what + " has external data " + quote(location) +
                              " outside the model's directory; expected a relative path inside it");
  const auto size = std::filesystem::file_size(full, ec);
  if (ec || !std::filesystem::is_regular_file(full, ec))
    fail(Errc::bad_model, what + " has external data " + quote(location) + ", which is not a readable file");
  const std::int64_t off = offset.value_or(0);
  const auto file_bytes = static_cast<std::int64_t>(std::min<std::uintmax_t>(size, std::numeric_limits<std::int64_t>::max()));
  if (off > file_bytes)
    fail(Errc::bad_model, what + " has external data offset " + std::to_string(off) + " beyond the end of " +
                              quote(location) + " (" + std::to_string(file_bytes) + " bytes)");
  const std::int64_t avail = file_bytes - off;
  const std::int64_t len = length.value_or(avail);
  if (len != expected)
    fail(Errc::bad_model, what + " has " + std::to_string(len) + " bytes of external data" +
                              (length ? std::string(" (length)") : std::string(" (to the end of the file)")) +
                              "; its shape needs " + std::to_string(expected));
  if (len > avail)
    fail(Errc::bad_model, what + " has external data length " + std::to_string(len) + " at offset " +
                              std::to_string(off) + " but " + quote(location) + " holds " + std::to_string(avail) +
                              " bytes from there");
  std::ifstream in(full, std::ios::binary);
  std::vector<std::byte> bytes(static_cast<std::size_t>(len));
  in.seekg(off);
  if (len > 0) in.read(reinterpret_cast<char*>(bytes.data()), len);
  if (!in) fail(Errc::bad_model, what + ": reading external data " + quote(location) + " failed");
  return bytes;
}

template <class Dst, class Src>
std::vector<std::byte> narrow(const Src& values) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(values.size()) * sizeof(Dst));
  for (int i = 0; i < values.size(); ++i) {
    Dst v;
    if constexpr (std::is_same_v<Dst, bool>) v = values.Get(i) != 0;
    else v = static_cast<Dst>(values.Get(i));
    std::memcpy(bytes.data() + static_cast<std::size_t>(i) * sizeof(Dst), &v, sizeof(Dst));
  }
  return bytes;
}

}  // namespace

Tensor to_tensor(const ::onnx::TensorProto& t, const std::string& what, const std::filesystem::path& base_dir,
                 const LoadOptions& options) {
  const auto dtype = map_type(t.data_type());
  if (!dtype) fail(Errc::unsupported_op, what + " has data type " + type_name(t.data_type()) + ", which ge does not support");
  if (t.has_segment()) fail(Errc::unsupported_op, what + " is a segment of a tensor; segments are not supported");
  std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
  std::int64_t count = 1;
  for (const std::int64_t d : dims) {
    if (d < 0) fail(Errc::bad_model, what + " has a negative dim " + std::to_string(d));
    if (__builtin_mul_overflow(count, d, &count))
      fail(Errc::bad_model, what + " declares dims whose element count overflows int64");
  }
  const std::int64_t esize = size_of(*dtype);
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(count, esize, &bytes) || bytes > options.max_tensor_bytes)
    fail(Errc::bad_model, what + " declares " + std::to_string(count) + " elements, over the limit of " +
                              std::to_string(options.max_tensor_bytes) + " bytes per tensor");
  const auto expect_count = [&](std::int64_t n, const char* field) {
    if (n != count)
      fail(Errc::bad_model, what + " has " + std::to_string(n) + " values in " + field + "; its shape needs " +
                                std::to_string(count));
  };
  std::vector<std::byte> data;
  if (t.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL) {
    data = read_external(t, what, bytes, base_dir);
  } else if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (static_cast<std::int64_t>(raw.size()) != bytes)
      fail(Errc::bad_model, what + " has " + std::to_string(raw.size()) + " bytes of raw data; its shape needs " +
                                std::to_string(bytes));
    data.resize(raw.size());
    if (!raw.empty()) std::memcpy(data.data(), raw.data(), raw.size());
  } else {
    switch (*dtype) {
      case DataType::f32:
        expect_count(t.float_data_size(), "float_data");
        data = narrow<float>(t.float_data());
        break;
      case DataType::f64:
        expect_count(t.double_data_size(), "double_data");
        data = narrow<double>(t.double_data());
        break;
      case DataType::i64:
        expect_count(t.int64_data_size(), "int64_data");
        data = narrow<std::int64_t>(t.int64_data());
        break;
      case DataType::u32:
        expect_count(t.uint64_data_size(), "uint64_data");
        data = narrow<std::uint32_t>(t.uint64_data());
        break;
      case DataType::u64:
        expect_count(t.uint64_data_size(), "uint64_data");
        data = narrow<std::uint64_t>(t.uint64_data());
        break;
      case DataType::i32:
        expect_count(t.int32_data_size(), "int32_data");
        data = narrow<std::int32_t>(t.int32_data());
        break;
      case DataType::i16:
        expect_count(t.int32_data_size(), "int32_data");
        data = narrow<std::int16_t>(t.int32_data());
        break;
      case DataType::i8:
        expect_count(t.int32_data_size(), "int32_data");
        data = narrow<std::int8_t>(t.int32_data());
        break;
      case DataType::u16:
      case DataType::f16:
      case DataType::bf16:  // 16-bit floats travel as their bit patterns
        expect_count(t.int32_data_size(), "int32_data");
        data = narrow<std::uint16_t>(t.int32_data());
        break;
      case DataType::u8:
        expect_count(t.int32_data_size(), "int32_data");
        data = narrow<std::uint8_t>(t.int32_data());
        break;
      case DataType::boolean:
        expect_count(t.int32_data_size(), "int32_data");
        data = narrow<bool>(t.int32_data());
        break;
      case DataType::undefined: break;
    }
  }
  return Tensor(*dtype, std::move(dims), std::move(data));
}

}  // namespace ge::onnx::detail
