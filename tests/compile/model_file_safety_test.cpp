// Model files under attack and under their users' feet: a file rewritten (by ge::save or
// gec compile -o) while another model loaded from it runs, a save that fails (the file
// size limit), and descriptions that lie past a resealed checksum, loaded and run.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "compile/model_file_format.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

using ge::DataType;
using ge::Errc;
using ge::TensorView;


namespace {

// x [2, 8] -> MatMul (weight [8, width], packed) -> Relu. `seed` picks the weights.
ge::Graph dense(std::int64_t width, std::uint64_t seed) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "2,8");
  const auto w = b.constant("w", ge::Tensor::random(DataType::f32, {8, width}, seed));
  b.output(b.op("Relu", {b.op("MatMul", {x, w}, {}, "mm")}, {}, "y"));
  return b.build();
}

std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& model) {
  ge::Session s(model);
  std::vector<float> x(16);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 2.f;
  const ge::RunResult r = s.run({TensorView(std::span<float>(x), {2, 8})});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

std::size_t files_in(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

}  // namespace

TEST_CASE("model file: a file rewritten by ge::save while a model loaded from it runs: the model keeps its results") {
  ge::test::TempDir dir("ge_model_rewrite");
  const auto path = dir.path / "model.gem";
  ge::save(*ge::compile(dense(4096, 1)), path);
  const auto first = ge::load_compiled(path);  // maps the file
  const std::vector<float> expected = run(first);
  SUBCASE("a smaller file (once: SIGBUS in the first model's next run)") {
    const auto small = ge::compile(dense(16, 2));
    ge::save(*small, path);
    CHECK(std::filesystem::file_size(path) < 64 * 1024);
    CHECK(run(first) == expected);
    CHECK(run(ge::load_compiled(path)) == run(small));
  }
  SUBCASE("a file of the same size with other weights (once: other results, silently)") {
    const auto other = ge::compile(dense(4096, 3));
    const auto before = std::filesystem::file_size(path);
    ge::save(*other, path);
    REQUIRE(std::filesystem::file_size(path) == before);
    CHECK(run(first) == expected);
    CHECK(run(ge::load_compiled(path)) != expected);
  }
  CHECK(files_in(dir.path) == 1);  // no temporary file left
}

TEST_CASE("model file: a save that fails (file size limit) keeps the old file, leaves nothing behind, same error") {
  ge::test::TempDir dir("ge_model_fsize");
  const auto path = dir.path / "model.gem";
  ge::save(*ge::compile(dense(16, 1)), path);
  const std::vector<std::byte> old = ge::test::read_bytes(path);
  const auto big = ge::compile(dense(8192, 2));  // a file of 256 KiB and more
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
  rlimit low = saved;
  low.rlim_cur = 64 * 1024;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &low) == 0);
  std::string message;
  Errc code = Errc::internal;
  try {
    ge::save(*big, path);
  } catch (const ge::Error& e) {
    message = e.what();
    code = e.code();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  CHECK(code == Errc::bad_model);
  CHECK(message.find("cannot write") != std::string::npos);
  CHECK(message.find(path.string()) != std::string::npos);
  CHECK(ge::test::read_bytes(path) == old);
  CHECK(files_in(dir.path) == 1);
  CHECK(run(ge::load_compiled(path)) == run(ge::compile(dense(16, 1))));
}

TEST_CASE("model file: a save into a folder that does not exist or over a folder is the same clear error") {
  ge::test::TempDir dir("ge_model_nodir");
  const auto model = ge::compile(dense(16, 1));
  ge::test::expect_error([&] { ge::save(*model, dir.path / "missing" / "m.gem"); }, Errc::bad_model, "cannot write");
  ge::test::expect_error([&] { ge::save(*model, dir.path); }, Errc::bad_model, "cannot write", "folder");
  CHECK(files_in(dir.path) == 0);
}

// A weight the file holds only packed (no data) named as a graph output: the first run
// copied the output from null. Crafted by pointing the graph's output list at it.
TEST_CASE("model file: a graph output pointing at a weight held only packed is bad_model at load, not a crash at run") {
  const auto model = ge::compile(dense(4, 1));
  std::vector<std::byte> file = ge::save_to_memory(*model);
  const ge::Graph& g = model->graph();
  const auto w = g.find_value("w");
  const auto y = g.outputs().at(0);
  REQUIRE(w.has_value());
  // The description ends with: outputs (count 1, id), then the packing ISA as a string.
  const std::string isa = ge::detail::packing_isa(ge::Precision::f32);
  std::vector<std::byte> pattern(12);
  ge::detail::store_le<std::uint32_t>(pattern.data(), 1);
  ge::detail::store_le<std::uint32_t>(pattern.data() + 4, y);
  ge::detail::store_le<std::uint32_t>(pattern.data() + 8, static_cast<std::uint32_t>(isa.size()));
  for (const char c : isa) pattern.push_back(static_cast<std::byte>(c));
  const auto at = std::search(file.begin(), file.end(), pattern.begin(), pattern.end());
  REQUIRE(at != file.end());
  ge::detail::store_le<std::uint32_t>(&*(at + 4), *w);
  ge::detail::seal_model_file(file);
  ge::test::expect_error([&] { (void)ge::load_compiled(std::span<const std::byte>(file)); }, Errc::bad_model,
                         "graph output 'w'", "only packed");
}

// Seeded edits of real files' descriptions, the checksum resealed (so that they reach the
// parser and the model), each loaded and, when it loads, run: ge::Error or a clean run.
TEST_CASE("model file: 1500 edited descriptions with resealed checksums load and run, or are ge::Errors") {
  ge::CompileSettings keep;
  keep.keep_weights = true;
  std::vector<std::vector<std::byte>> bases;
  bases.push_back(ge::save_to_memory(*ge::compile(dense(6, 1))));
  const ge::Graph d = dense(6, 2);
  bases.push_back(ge::save_to_memory(*ge::compile(d, {}, ge::default_target(), keep), ge::ModelWeights::portable));
  std::mt19937_64 rng(20261203);
  int refused = 0, ran = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    std::vector<std::byte> file = bases[static_cast<std::size_t>(trial) % bases.size()];
    const auto meta_at = ge::detail::load_le<std::uint64_t>(file.data() + ge::detail::ModelHeaderAt::meta_offset);
    const auto meta_n = ge::detail::load_le<std::uint64_t>(file.data() + ge::detail::ModelHeaderAt::meta_bytes);
    for (int e = 0, edits = 1 + static_cast<int>(rng() % 3); e < edits; ++e) {
      const std::size_t p = meta_at + rng() % (meta_n - 8);
      switch (rng() % 4) {
        case 0: file[p] = std::byte(static_cast<std::uint8_t>(rng())); break;
        case 1: ge::detail::store_le<std::uint32_t>(file.data() + p, static_cast<std::uint32_t>(rng() % 12)); break;
        case 2: ge::detail::store_le<std::uint64_t>(file.data() + p, std::uint64_t{1} << (rng() % 64)); break;
        default:
          ge::detail::store_le<std::uint32_t>(file.data() + p, ge::detail::load_le<std::uint32_t>(file.data() + p) + 1);
      }
    }
    ge::detail::seal_model_file(file);
    try {
      const auto m = ge::load_compiled(std::span<const std::byte>(file));
      if (m->inputs().size() == 1 && m->inputs()[0].dtype == DataType::f32 && m->inputs()[0].shape.to_string() == "2,8")
        (void)run(m);
      ++ran;
    } catch (const ge::Error&) {
      ++refused;
    }
  }
  MESSAGE("edited descriptions: " << refused << " refused, " << ran << " loaded and ran");
  CHECK(refused + ran == 1500);
  CHECK(refused > 500);
}

// The memory planner's search runs again at load with the file's budget: a crafted
// budget of 2^62 could make a load search for ever. The caller's budget caps it.
TEST_CASE("model file: a file's plan search budget is capped by the loader's") {
  ge::CompileSettings big;
  big.plan_search_budget = std::int64_t{1} << 40;
  const auto model = ge::compile(dense(4, 1), {}, ge::default_target(), big);
  const std::vector<std::byte> file = ge::save_to_memory(*model);
  CHECK(ge::load_compiled(std::span<const std::byte>(file))->settings().plan_search_budget ==
        ge::PlanOptions::default_search_budget);
  CHECK(ge::load_compiled(std::span<const std::byte>(file), big)->settings().plan_search_budget == big.plan_search_budget);
}
