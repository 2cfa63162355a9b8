// Every file ge writes goes through write_file_atomically (include/ge/core/detail/file_write.hpp):
// a temporary file in the target's folder, synced, renamed over the target.
#include "ge/core/detail/file_write.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace ge::detail {

namespace {

std::string system_reason(int err) { return std::strerror(err); }

// Writes all of `bytes` to `fd`; false with errno set on failure.
bool write_all(int fd, std::span<const std::byte> bytes) {
  const std::byte* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ::ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

// A file that is not a regular one (a device, a FIFO) is written as it is: renaming a
// file over /dev/null would replace the device.
std::optional<std::string> write_in_place(const std::filesystem::path& path,
                                          std::initializer_list<std::span<const std::byte>> pieces) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return system_reason(errno);
  for (const auto piece : pieces)
    if (!write_all(fd, piece)) {
      const int err = errno;
      ::close(fd);
      return system_reason(err);
    }
  if (::close(fd) != 0) return system_reason(errno);
  return std::nullopt;
}

std::string temporary_name(const std::filesystem::path& target) {
  static std::atomic<unsigned> serial{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return "." + target.filename().string() + "." + std::to_string(::getpid()) + "." + std::to_string(serial++) + "." +
         std::to_string(rng() % 1000000) + ".tmp";
}

}  // namespace

std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                 std::initializer_list<std::span<const std::byte>> pieces) {
  namespace fs = std::filesystem;
  if (path.empty()) return std::string("the path is empty");
  fs::path target = path;
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    const fs::path resolved = fs::weakly_canonical(path, ec);
    if (!ec) target = resolved;
  }
  struct stat old {};
  const bool exists = ::stat(target.c_str(), &old) == 0;
  if (exists && S_ISDIR(old.st_mode)) return std::string("it is a folder");
  if (exists && !S_ISREG(old.st_mode)) return write_in_place(target, pieces);
  // A file its owner made read-only stays so: the rename below would not ask.
  if (exists && ::access(target.c_str(), W_OK) != 0) return system_reason(errno);
  if (!target.has_filename()) return std::string("the path names no file");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = dir / temporary_name(target);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return "cannot make a temporary file in the folder '" + dir.string() + "' (" + system_reason(errno) +
             "): ge writes a file whole, beside it, then renames it over the old one";
  }
  if (fd < 0) return std::string("no temporary file could be made beside it");
  const auto give_up = [&](int err) -> std::optional<std::string> {
    ::close(fd);
    ::unlink(tmp.c_str());
    return system_reason(err);
  };
  if (exists) (void)::fchmod(fd, old.st_mode & 07777);
  for (const auto piece : pieces)
    if (!write_all(fd, piece)) return give_up(errno);
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) return give_up(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return system_reason(err);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return system_reason(err);
  }
  // The rename itself reaches the disk with the folder's entry.
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return std::nullopt;
}

std::optional<std::string> write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  return write_file_atomically(path, {std::as_bytes(std::span<const char>(text.data(), text.size()))});
}

}  // namespace ge::detail
