// Tests of the compile cache (CompileSettings::cache_dir): a model compiled once is
// loaded by the next compile of the same graph, options and settings; anything that
// changes what compile reads makes another file; a damaged file is replaced; folders
// that cannot be made are clear errors.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace {

using ge::DataType;

// conv -> relu -> pool -> matmul, batch -1; `seed` picks the weights.
ge::Graph net(std::uint64_t seed) {
  ge::GraphBuilder b;
  const auto x = b.input("image", DataType::f32, "-1,3,8,8", ge::Format::nchw);
  const auto w = b.constant("w", ge::Tensor::random(DataType::f32, {4, 3, 3, 3}, seed));
  const auto conv = b.op("Conv", {x, w}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}, "conv");
  const auto pooled = b.op("GlobalAveragePool", {b.op("Relu", {conv}, {}, "relu")}, {}, "pool");
  const auto fc = b.constant("fc", ge::Tensor::random(DataType::f32, {4, 5}, seed + 1));
  b.output(b.op("MatMul", {b.op("Flatten", {pooled}, {}, "flat"), fc}, {}, "logits"));
  return b.build();
}

std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& m, std::int64_t batch) {
  ge::Session s(m, {.threads = 1});
  const ge::Tensor in = ge::Tensor::random(DataType::f32, {batch, 3, 8, 8}, 9);
  const std::int64_t dims[] = {batch, 3, 8, 8};
  const auto r = s.run({ge::TensorView{const_cast<std::byte*>(in.bytes().data()), DataType::f32, dims}});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

std::size_t files_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.path().extension() == ".gem" ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("compile cache: the second compile of the same graph loads the first's file") {
  const ge::test::TempDir dir;
  const ge::CompileSettings cached{.cache_dir = (dir.path / "cache").string()};
  const auto gears = ge::batch_gears(net(1), {1, 2});
  const auto first = ge::compile(net(1), gears, ge::default_target(), cached);
  CHECK_FALSE(first->pass_stats().empty());  // compiled: the passes ran
  REQUIRE(files_in(dir.path / "cache") == 1);
  const auto second = ge::compile(net(1), gears, ge::default_target(), cached);
  CHECK(second->pass_stats().empty());  // loaded from the file: no passes
  CHECK(second->gears().size() == 2);
  CHECK(run(second, 2) == run(first, 2));
  CHECK(files_in(dir.path / "cache") == 1);

  // Other weights, other options, other settings: other files.
  (void)ge::compile(net(5), gears, ge::default_target(), cached);
  CHECK(files_in(dir.path / "cache") == 2);
  (void)ge::compile(net(1), ge::batch_gears(net(1), {1, 4}), ge::default_target(), cached);
  CHECK(files_in(dir.path / "cache") == 3);
  ge::CompileSettings one_stream = cached;
  one_stream.max_streams = 1;
  const auto third = ge::compile(net(1), gears, ge::default_target(), one_stream);
  CHECK_FALSE(third->pass_stats().empty());
  CHECK(files_in(dir.path / "cache") == 4);
  // keep_weights: no cache.
  ge::CompileSettings keep = cached;
  keep.keep_weights = true;
  CHECK_FALSE(ge::compile(net(2), gears, ge::default_target(), keep)->pass_stats().empty());
  CHECK(files_in(dir.path / "cache") == 4);
}

TEST_CASE("compile cache: a damaged file is compiled again and replaced; a folder in the way is an error") {
  const ge::test::TempDir dir;
  const ge::CompileSettings cached{.cache_dir = dir.path.string()};
  const auto gears = ge::batch_gears(net(3), {1, 2});
  const auto first = ge::compile(net(3), gears, ge::default_target(), cached);
  std::filesystem::path file;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) file = e.path();
  REQUIRE(!file.empty());
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  const auto again = ge::compile(net(3), gears, ge::default_target(), cached);
  CHECK_FALSE(again->pass_stats().empty());  // compiled, not loaded
  CHECK(run(again, 1) == run(first, 1));
  CHECK(ge::compile(net(3), gears, ge::default_target(), cached)->pass_stats().empty());  // whole again: loaded

  const std::filesystem::path blocker = dir.path / "a_file";
  std::ofstream(blocker) << "x";
  ge::test::expect_error([&] { (void)ge::compile(net(3), gears, ge::default_target(), {.cache_dir = blocker.string()}); },
                         ge::Errc::invalid_argument, "compile cache folder", "a_file");
}

// Attacks on a shared cache folder: the cache file replaced by a link to a victim file, or
// by a FIFO (an open of it once blocked for ever). The link is replaced, never written
// through; the FIFO is a file that does not load, compiled again and replaced.
TEST_CASE("compile cache: a link or a FIFO planted at the cache file's name is replaced, not followed") {
  const ge::test::TempDir dir;
  const ge::CompileSettings cached{.cache_dir = (dir.path / "cache").string()};
  const auto gears = ge::batch_gears(net(7), {1, 2});
  const auto first = ge::compile(net(7), gears, ge::default_target(), cached);
  std::filesystem::path file;
  for (const auto& e : std::filesystem::directory_iterator(dir.path / "cache")) file = e.path();
  REQUIRE(!file.empty());
  const auto victim = dir.path / "victim.txt";
  std::ofstream(victim) << "precious";
  std::filesystem::remove(file);
  std::filesystem::create_symlink(victim, file);
  const auto again = ge::compile(net(7), gears, ge::default_target(), cached);
  CHECK(run(again, 1) == run(first, 1));
  std::ifstream in(victim);
  std::string text;
  in >> text;
  CHECK(text == "precious");
  CHECK_FALSE(std::filesystem::is_symlink(file));
  std::filesystem::remove(file);
  REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
  const auto third = ge::compile(net(7), gears, ge::default_target(), cached);  // once: blocked in open()
  CHECK(run(third, 2) == run(first, 2));
  CHECK(std::filesystem::is_regular_file(file));
}
