#pragma once
// A file mapped read-only into memory (POSIX mmap), or bytes copied into an aligned
// buffer: the storage a loaded model file's constants view.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

namespace ge::detail {

class MappedBytes {
 public:
  virtual ~MappedBytes() = default;
  [[nodiscard]] virtual std::span<const std::byte> bytes() const noexcept = 0;
};

// Maps `path` read-only; the pages are read ahead. Throws `Errc::bad_model` naming the
// file when it cannot be opened or mapped.
[[nodiscard]] std::shared_ptr<const MappedBytes> map_file(const std::filesystem::path& path);

// A copy of `bytes` at a 64-byte aligned address.
[[nodiscard]] std::shared_ptr<const MappedBytes> aligned_copy(std::span<const std::byte> bytes);

}  // namespace ge::detail
