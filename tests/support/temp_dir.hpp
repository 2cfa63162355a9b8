#pragma once
// Test support: a fresh directory under the system's temp directory, removed with
// everything in it when the object goes (a static one: at exit).
//
//   ge::test::TempDir dir("ge_onnx_test");
//   write(dir.path / "model.onnx", bytes);

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <vector>

namespace ge::test {

class TempDir {
 public:
  /// Makes `<temp>/<prefix>_<pid>_<n>`, a name no other TempDir of any process holds.
  explicit TempDir(std::string_view prefix = "ge_test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path path;  ///< the directory
};

/// The bytes of a file (empty where it cannot be read).
std::vector<std::byte> read_bytes(const std::filesystem::path& p);

}  // namespace ge::test
