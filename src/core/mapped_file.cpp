#include "core/mapped_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ge/core/error.hpp"

namespace ge::detail {
namespace {

[[noreturn]] void cannot(const std::filesystem::path& path, const char* what) {
  raise(Errc::bad_model, "[ge.model_file] " + path.string() + ": cannot " + what + ": " + std::strerror(errno));
}

class Mapping final : public MappedBytes {
 public:
  Mapping(void* base, std::size_t size) : base_(base), size_(size) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() override {
    if (size_ > 0) ::munmap(base_, size_);
  }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept override {
    return {static_cast<const std::byte*>(base_), size_};
  }

 private:
  void* base_;
  std::size_t size_;
};

class AlignedCopy final : public MappedBytes {
 public:
  explicit AlignedCopy(std::span<const std::byte> bytes)
      : data_(static_cast<std::byte*>(std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64 + 64))), size_(bytes.size()) {
    if (data_ == nullptr) raise(Errc::out_of_memory, "[ge.model_file] no memory for a model of " + std::to_string(size_) + " bytes");
    if (size_ > 0) std::memcpy(data_, bytes.data(), size_);
  }
  AlignedCopy(const AlignedCopy&) = delete;
  AlignedCopy& operator=(const AlignedCopy&) = delete;
  ~AlignedCopy() override { std::free(data_); }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept override { return {data_, size_}; }

 private:
  std::byte* data_;
  std::size_t size_;
};

}  // namespace

std::shared_ptr<const MappedBytes> map_file(const std::filesystem::path& path) {
  // O_NONBLOCK: a FIFO given as the model would block the open until a writer came.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) cannot(path, "open it");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    cannot(path, "read its size");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    raise(Errc::bad_model, "[ge.model_file] " + path.string() + ": not a regular file (a folder, a device or a FIFO); "
                           "expected a model file written by ge::save or gec compile -o");
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* base = nullptr;
  if (size > 0) {
    base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (base == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      if (err == ENOMEM)
        raise(Errc::out_of_memory, "[ge.model_file] " + path.string() + ": no address space left to map its " +
                                       std::to_string(size) + " bytes");
      errno = err;
      cannot(path, "map it");
    }
  }
  ::close(fd);
  try {
    return std::make_shared<const Mapping>(base, size);
  } catch (...) {
    if (base != nullptr) ::munmap(base, size);
    throw;
  }
}

std::shared_ptr<const MappedBytes> aligned_copy(std::span<const std::byte> bytes) {
  return std::make_shared<const AlignedCopy>(bytes);
}

}  // namespace ge::detail
