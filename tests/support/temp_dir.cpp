#include "support/temp_dir.hpp"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>

#include "ge/core/error.hpp"

namespace ge::test {

namespace {

std::filesystem::path fresh_dir(std::string_view prefix) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  const std::filesystem::path base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::filesystem::path p = base / (std::string(prefix) + "_" + std::to_string(::getpid()) + "_" +
                                            std::to_string(counter++) + "_" + std::to_string(rd() % 100000));
    std::error_code ec;
    if (std::filesystem::create_directory(p, ec)) return p;  // false: it exists already
  }
  ge::raise(ge::Errc::internal, "[ge.test] TempDir: no fresh directory under " + base.string());
}

}  // namespace

TempDir::TempDir(std::string_view prefix) : path(fresh_dir(prefix)) {}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> chars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

}  // namespace ge::test
