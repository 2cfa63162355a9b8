#pragma once
// The byte level of model files (include/ge/compile/model_file.hpp): the header's layout,
// the checksum, and a writer and a bounds-checked reader of the description.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ge {
enum class Precision : std::uint8_t;
}
namespace ge::cpu {
enum class Isa : std::uint8_t;
}

namespace ge::detail {

// The packing tag a model file's packed weights carry (model_file.cpp): the CPU's base ISA,
// "+bf16" for a bf16 model whose kernels ran bf16.
std::string packing_isa(Precision precision);

inline constexpr char model_magic[8] = {'G', 'E', 'M', 'O', 'D', 'E', 'L', '\0'};
inline constexpr std::uint32_t model_endian_tag = 0x01020304U;
inline constexpr std::size_t model_header_bytes = 64;
inline constexpr std::size_t model_blob_alignment = 64;

// Header fields, by byte offset.
struct ModelHeaderAt {
  static constexpr std::size_t magic = 0, version = 8, endian = 12, file_bytes = 16, checksum = 24, meta_offset = 32,
                               meta_bytes = 40, blob_offset = 48, blob_bytes = 56;
};
// The checksum covers every byte after its own field.
inline constexpr std::size_t model_checksum_from = ModelHeaderAt::checksum + 8;

// A 64-bit checksum (model_checksum.cpp): eight lanes of 32x32-bit products over 64-byte
// stripes, scrambled per 1 KiB, in 4 MiB runs on every thread; the same on every CPU.
[[nodiscard]] std::uint64_t model_checksum(std::span<const std::byte> bytes) noexcept;
// The same through the path of `isa` or below (tests compare the paths).
[[nodiscard]] std::uint64_t model_checksum(std::span<const std::byte> bytes, cpu::Isa isa) noexcept;

// Writes the checksum of `file` into its header (after `file` was changed in place:
// tests that reach the parser past the checksum use it).
void seal_model_file(std::span<std::byte> file) noexcept;

template <class T>
T load_le(const std::byte* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store_le(std::byte* p, T v) noexcept {
  std::memcpy(p, &v, sizeof v);
}

// Appends little-endian numbers and length-prefixed strings.
class ModelWriter {
 public:
  template <class T>
  void put(T v) {
    const std::size_t at = out_.size();
    out_.resize(at + sizeof v);
    store_le(out_.data() + at, v);
  }
  void str(std::string_view s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out_.insert(out_.end(), p, p + s.size());
  }
  [[nodiscard]] std::vector<std::byte>& bytes() noexcept { return out_; }

 private:
  std::vector<std::byte> out_;
};

// Reads what ModelWriter wrote; every read past the end, and every count larger than
// the bytes left could hold, throws Errc::bad_model naming `where`.
class ModelReader {
 public:
  ModelReader(std::span<const std::byte> in, std::string where) : in_(in), where_(std::move(where)) {}
  template <class T>
  T get() {
    need(sizeof(T));
    const T v = load_le<T>(in_.data() + at_);
    at_ += sizeof(T);
    return v;
  }
  std::string str();
  // A count of items each at least `item_bytes` long.
  std::size_t count(std::size_t item_bytes);
  [[nodiscard]] bool done() const noexcept { return at_ == in_.size(); }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  void need(std::size_t n) const;
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
  std::string where_;
};

}  // namespace ge::detail
