// write_file_atomically (include/ge/core/detail/file_write.hpp): the one way ge writes a
// file. A new file renamed over the old (an open or mapped old file keeps its bytes),
// links followed, permissions kept, devices written in place, failures leave nothing.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "ge/core/detail/file_write.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {
std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}
}  // namespace

TEST_CASE("write_file_atomically: a new file replaces the old; a reader of the old one keeps it") {
  ge::test::TempDir dir("ge_file_write");
  const auto path = dir.path / "a.txt";
  REQUIRE_FALSE(ge::detail::write_file_atomically(path, "first version").has_value());
  std::ifstream old_reader(path, std::ios::binary);  // open on the old inode
  REQUIRE_FALSE(ge::detail::write_file_atomically(path, "2nd").has_value());
  CHECK(text_of(path) == "2nd");
  const std::string seen{std::istreambuf_iterator<char>(old_reader), std::istreambuf_iterator<char>()};
  CHECK(seen == "first version");
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("write_file_atomically: permissions kept, links followed, devices written in place, failures clean") {
  ge::test::TempDir dir("ge_file_write2");
  const auto path = dir.path / "model.bin";
  REQUIRE_FALSE(ge::detail::write_file_atomically(path, "x").has_value());
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  REQUIRE_FALSE(ge::detail::write_file_atomically(path, "y").has_value());
  CHECK((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  // A link: its target gets the new bytes, the link stays a link.
  const auto link = dir.path / "current.bin";
  fs::create_symlink(path, link);
  REQUIRE_FALSE(ge::detail::write_file_atomically(link, "via link").has_value());
  CHECK(fs::is_symlink(link));
  CHECK(text_of(path) == "via link");
  // /dev/null is written, not replaced.
  CHECK_FALSE(ge::detail::write_file_atomically("/dev/null", "nothing").has_value());
  CHECK(fs::is_character_file("/dev/null"));
  // Failures: a folder, a folder that does not exist; nothing is left behind.
  const auto folder = ge::detail::write_file_atomically(dir.path, "z");
  REQUIRE(folder.has_value());
  CHECK(folder->find("folder") != std::string::npos);
  CHECK(ge::detail::write_file_atomically(dir.path / "no" / "such" / "file", "z").has_value());
  CHECK(entries(dir.path) == 2);  // model.bin and the link
}

TEST_CASE("write_file_atomically: a read-only file is not replaced (the rename would not ask)") {
  if (::geteuid() == 0) {
    MESSAGE("skipped: root may write any file");
    return;
  }
  ge::test::TempDir dir("ge_file_write3");
  const auto path = dir.path / "locked.txt";
  REQUIRE_FALSE(ge::detail::write_file_atomically(path, "keep").has_value());
  fs::permissions(path, fs::perms::owner_read);
  CHECK(ge::detail::write_file_atomically(path, "lost").has_value());
  CHECK(text_of(path) == "keep");
  CHECK(entries(dir.path) == 1);
}
