// NumPy .npy reading and writing for gec run. See npy.hpp.
#include "npy.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "ge/core/detail/file_write.hpp"
#include "ge/core/error.hpp"

namespace gec {

namespace {

struct TypeCode {
  ge::DataType dtype;
  const char* descr;
};
constexpr TypeCode codes[] = {{ge::DataType::f16, "<f2"}, {ge::DataType::f32, "<f4"}, {ge::DataType::f64, "<f8"}, {ge::DataType::i8, "|i1"},
                              {ge::DataType::i16, "<i2"}, {ge::DataType::i32, "<i4"}, {ge::DataType::i64, "<i8"},
                              {ge::DataType::u8, "|u1"},  {ge::DataType::u16, "<u2"}, {ge::DataType::u32, "<u4"},
                              {ge::DataType::u64, "<u8"}, {ge::DataType::boolean, "|b1"}};

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  ge::raise(ge::Errc::bad_tensor, "[gec] " + path + ": " + why);
}

// The text after `'key':` in the header dict, trimmed of blanks.
std::string field(const std::string& path, const std::string& header, const std::string& key) {
  const std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) bad(path, "the .npy header has no '" + key + "'");
  std::size_t p = header.find(':', at);
  if (p == std::string::npos) bad(path, "the .npy header's '" + key + "' has no value");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  return header.substr(p);
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) bad(path, "cannot open the file");
  const std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (raw.size() < 10 || std::memcmp(raw.data(), "\x93NUMPY", 6) != 0) bad(path, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(raw[6]);
  std::size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(raw[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(raw[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (raw.size() < 12) bad(path, "truncated .npy header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<std::size_t>(static_cast<unsigned char>(raw[8 + i])) << (8 * i);
    start = 12;
  } else {
    bad(path, ".npy version " + std::to_string(major) + " is not supported (1 to 3 are)");
  }
  if (header_len > raw.size() - start) bad(path, "truncated .npy header");
  const std::string header(raw.data() + start, header_len);
  NpyArray a;
  const std::string descr = field(path, header, "descr");
  bool known = false;
  for (const TypeCode& c : codes)
    if (descr.rfind("'" + std::string(c.descr) + "'", 0) == 0) {
      a.dtype = c.dtype;
      known = true;
    }
  if (!known) bad(path, "the .npy type " + descr.substr(0, descr.find(',')) + " is not supported (little-endian f2, f4, f8, i1-i8, u1-u8, b1 are)");
  if (field(path, header, "fortran_order").rfind("False", 0) != 0) bad(path, "Fortran-order arrays are not supported");
  const std::string shape = field(path, header, "shape");
  if (shape.empty() || shape[0] != '(') bad(path, "the .npy shape is not a tuple");
  const std::size_t close = shape.find(')');
  if (close == std::string::npos) bad(path, "the .npy shape tuple is not closed");
  std::int64_t count = 1;
  std::size_t p = 1;
  while (p < close) {
    while (p < close && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= close) break;
    std::int64_t d = 0;
    bool digits = false;
    while (p < close && shape[p] >= '0' && shape[p] <= '9') {
      if (d > (std::numeric_limits<std::int64_t>::max() - 9) / 10) bad(path, "a .npy dim overflows");
      d = d * 10 + (shape[p] - '0');
      ++p;
      digits = true;
    }
    if (!digits) bad(path, "the .npy shape holds something that is not a dim");
    if (d > 0 && count > std::numeric_limits<std::int64_t>::max() / d) bad(path, "the .npy shape overflows");
    count *= d;
    a.dims.push_back(d);
  }
  const auto need = static_cast<std::size_t>(count) * ge::size_of(a.dtype);
  const std::size_t have = raw.size() - start - header_len;
  if (have != need)
    bad(path, "the data holds " + std::to_string(have) + " bytes; the shape and type need " + std::to_string(need));
  a.bytes.resize(need);
  if (need > 0) std::memcpy(a.bytes.data(), raw.data() + start + header_len, need);
  return a;
}

void write_npy(const std::string& path, const ge::TensorView& view) {
  // NumPy has no bf16: a bf16 output is written as f32 (the same values, exactly).
  std::vector<float> widened;
  ge::TensorView t = view;
  if (t.dtype == ge::DataType::bf16) {
    widened.resize(static_cast<std::size_t>(t.elements()));
    const auto* h = static_cast<const std::uint16_t*>(t.data);
    for (std::size_t i = 0; i < widened.size(); ++i)
      widened[i] = std::bit_cast<float>(static_cast<std::uint32_t>(h[i]) << 16);
    t = ge::TensorView{widened.data(), ge::DataType::f32, t.dims};
  }
  const char* descr = nullptr;
  for (const TypeCode& c : codes)
    if (c.dtype == t.dtype) descr = c.descr;
  if (descr == nullptr)
    ge::raise(ge::Errc::invalid_argument,
              "[gec] " + path + ": .npy has no type for " + std::string(ge::to_string(t.dtype)));
  std::string shape = "(";
  for (const std::int64_t d : t.dims) shape += std::to_string(d) + ",";
  if (t.dims.size() > 1) shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64 bytes, ending the header with '\n'.
  const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  const auto len = static_cast<std::uint16_t>(header.size());
  const char preamble[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  const auto bytes = [](const void* p, std::size_t n) { return std::span<const std::byte>(static_cast<const std::byte*>(p), n); };
  if (const auto why = ge::detail::write_file_atomically(
          path, {bytes(preamble, sizeof preamble), bytes(header.data(), header.size()),
                 bytes(t.data, static_cast<std::size_t>(t.bytes()))}))
    ge::raise(ge::Errc::invalid_argument, "[gec] cannot write '" + path + "': " + *why);
}

NpyArray random_array(ge::DataType dtype, const std::vector<std::int64_t>& dims, std::mt19937_64& rng) {
  NpyArray a;
  a.dtype = dtype;
  a.dims = dims;
  std::int64_t n = 1;
  for (const std::int64_t d : dims) n *= d;
  a.bytes.resize(static_cast<std::size_t>(n) * ge::size_of(dtype));
  const auto fill = [&]<class T>(T lo, T hi) {
    T* p = reinterpret_cast<T*>(a.bytes.data());
    for (std::int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) p[i] = std::uniform_real_distribution<T>(lo, hi)(rng);
      else p[i] = static_cast<T>(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng));
    }
  };
  // Half floats: floats in [-1, 1) rounded to their top bits (bf16) or to f16 (the
  // exponent rebased; values under 2^-14 become 0).
  const auto halves = [&](bool brain) {
    auto* p = reinterpret_cast<std::uint16_t*>(a.bytes.data());
    for (std::int64_t i = 0; i < n; ++i) {
      const float f = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
      const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
      if (brain) {
        p[i] = static_cast<std::uint16_t>(x >> 16);
        continue;
      }
      const int e = static_cast<int>((x >> 23) & 0xff) - 112;  // f16 exponent
      p[i] = static_cast<std::uint16_t>(((x >> 16) & 0x8000u) |
                                        (e <= 0 ? 0u : (static_cast<std::uint32_t>(e) << 10) | ((x >> 13) & 0x3ffu)));
    }
  };
  switch (dtype) {
    case ge::DataType::f16: halves(false); break;
    case ge::DataType::bf16: halves(true); break;
    case ge::DataType::f32: fill(-1.0f, 1.0f); break;
    case ge::DataType::f64: fill(-1.0, 1.0); break;
    case ge::DataType::i8: fill(std::int8_t{0}, std::int8_t{9}); break;
    case ge::DataType::i16: fill(std::int16_t{0}, std::int16_t{9}); break;
    case ge::DataType::i32: fill(std::int32_t{0}, std::int32_t{9}); break;
    case ge::DataType::i64: fill(std::int64_t{0}, std::int64_t{9}); break;
    case ge::DataType::u8:
    case ge::DataType::boolean: fill(std::uint8_t{0}, static_cast<std::uint8_t>(dtype == ge::DataType::boolean ? 1 : 9)); break;
    case ge::DataType::u16: fill(std::uint16_t{0}, std::uint16_t{9}); break;
    case ge::DataType::u32: fill(std::uint32_t{0}, std::uint32_t{9}); break;
    case ge::DataType::u64: fill(std::uint64_t{0}, std::uint64_t{9}); break;
    default:
      ge::raise(ge::Errc::unsupported, "[gec] random inputs of type " + std::string(ge::to_string(dtype)) +
                                           " are not supported; give the input as a .npy file");
  }
  return a;
}

}  // namespace gec
