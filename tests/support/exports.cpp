// The torch exports for the tests (see exports.hpp).
#include "support/exports.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "support/temp_dir.hpp"

namespace ge::test {

namespace fs = std::filesystem;

std::optional<fs::path> torch_exports() {
  static const std::optional<fs::path> dir = []() -> std::optional<fs::path> {
    if (const char* env = std::getenv("GE_EXPORTS_DIR")) return fs::path(env);
    const char* data = std::getenv("GE_TEST_DATA");  // tests/
    const fs::path script = fs::path(data ? data : "tests") / ".." / ".." / "shared" / "models" / "export_models.py";
    if (!fs::exists(script)) {
      MESSAGE("torch exports skipped: no " << script.string());
      return std::nullopt;
    }
    static const TempDir tmp("ge_exports");  // removed at exit
    const fs::path out = tmp.path;
    const std::string cmd = "/usr/bin/python3 '" + script.string() + "' '" + out.string() + "' > '" +
                            (out / "log.txt").string() + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::ifstream log(out / "log.txt");
      const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      MESSAGE("torch exports skipped: the export script failed (python3-torch, python3-torchvision?):\n" << text);
      return std::nullopt;
    }
    return out;
  }();
  return dir;
}

}  // namespace ge::test
