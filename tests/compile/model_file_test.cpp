// Tests of model files: ge::save / ge::load_compiled round trips (gears, ranges, tensor
// attributes, weights shared), and every way a file can be bad: missing, not a model,
// truncated, corrupted, another version, a description that lies (fuzzed past the checksum).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "compile/model_file_format.hpp"
#include "kernels/cpu/common.hpp"
#include "ge/compile/kernel.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

using ge::DataType;
using ge::Errc;
using ge::TensorView;


namespace {

// conv 3x3 (+bias) -> relu -> global pool -> flatten -> gemm: packed weights, a bias
// vector, shape arithmetic; batch -1.
ge::Graph small_net() {
  ge::GraphBuilder b;
  const auto x = b.input("image", DataType::f32, "-1,3,8,8", ge::Format::nchw);
  const auto w = b.constant("w", ge::Tensor::random(DataType::f32, {4, 3, 3, 3}, 1));
  const auto bias = b.constant("bias", ge::Tensor::random(DataType::f32, {4}, 2));
  const auto conv = b.op("Conv", {x, w, bias}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}, "conv");
  const auto pooled = b.op("GlobalAveragePool", {b.op("Relu", {conv}, {}, "relu")}, {}, "pool");
  const auto flat = b.op("Flatten", {pooled}, {}, "flat");
  const auto fc = b.constant("fc", ge::Tensor::random(DataType::f32, {4, 5}, 3));
  b.output(b.op("MatMul", {flat, fc}, {}, "logits"));
  return b.build();
}

ge::CompileSettings keeping() {
  ge::CompileSettings s;
  s.keep_weights = true;
  return s;
}

std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& model, std::int64_t batch) {
  ge::Session s(model);
  const ge::Tensor in = ge::Tensor::random(DataType::f32, {batch, 3, 8, 8}, 7);
  const std::int64_t dims[] = {batch, 3, 8, 8};
  const TensorView x{const_cast<std::byte*>(in.bytes().data()), DataType::f32, dims};
  const ge::RunResult r = s.run({x});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("model file: a gear model saved and loaded runs every gear with the same results") {
  const ge::Graph g = small_net();
  const auto model = ge::compile(g, ge::batch_gears(g, {1, 2, 4}), ge::default_target(), keeping());
  ge::test::TempDir dir("ge_model_file");
  const auto path = dir.path / "net.gem";
  ge::save(*model, path);
  const auto loaded = ge::load_compiled(path);
  CHECK(loaded->mode() == ge::ShapeMode::gears);
  REQUIRE(loaded->plans().size() == 3);
  CHECK(loaded->gears().size() == 3);
  CHECK(loaded->options() == model->options());
  CHECK(loaded->inputs().at(0).name == "image");
  CHECK(loaded->inputs().at(0).format == ge::Format::nchw);
  CHECK(loaded->outputs().at(0).name == model->outputs().at(0).name);
  CHECK(loaded->graph().nodes().size() == model->graph().nodes().size());
  CHECK(loaded->pass_stats().empty());  // the passes did not run again
  for (const std::int64_t batch : {1, 2, 4}) CHECK(run(loaded, batch) == run(model, batch));
  // The weights are the file's bytes, not copies: saving the loaded model gives the same file.
  CHECK(ge::save_to_memory(*loaded) == ge::test::read_bytes(path));
  // From memory, too.
  CHECK(run(ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model))), 2) == run(model, 2));
}

TEST_CASE("model file: range models and models without gears") {
  const ge::Graph g = small_net();
  const auto ranged = ge::compile(g, {{"ge.inputShape", "image:1~6,3,8,8"}}, ge::default_target(), keeping());
  const auto back = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*ranged)));
  CHECK(back->mode() == ge::ShapeMode::ranges);
  CHECK(back->inputs().at(0).shape.to_string() == "1~6,3,8,8");
  CHECK(run(back, 5) == run(ranged, 5));
  // Unbounded: plans per signature, made at run time after load as before.
  const auto open = ge::compile(g, {}, ge::default_target(), keeping());
  const auto open_back = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*open)));
  CHECK(open_back->plans_per_signature());
  CHECK(run(open_back, 3) == run(open, 3));
}

TEST_CASE("model file: attributes of every kind and weights shared by two nodes survive") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "2,3");
  const auto c = b.constant("c", ge::Tensor::from<float>({3}, {1, 2, 3}));
  const auto y = b.op("Add", {b.op("Add", {x, c}, {}, "a1"), c}, {}, "a2");
  b.output(b.op("ConstantOfShape", {b.op("Shape", {y}, {}, "s")},
                {{"value", ge::Tensor::from<float>({1}, {2.5f})}}, "fill"));
  b.output(y);
  ge::CompileSettings s = keeping();
  s.optimize = false;
  const auto model = ge::compile(b.build(), {}, ge::default_target(), s);
  const auto back = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*model)));
  REQUIRE(back->graph().nodes().size() == 4);
  CHECK(back->graph().nodes()[3].attrs.at("value").as_tensor() == ge::Tensor::from<float>({1}, {2.5f}));
  ge::Session sess(back);
  std::vector<float> in{0, 0, 0, 1, 1, 1};
  const std::int64_t d[] = {2, 3};
  const auto r = sess.run({TensorView{in.data(), DataType::f32, d}});
  CHECK(r.outputs[0].values<float>()[5] == 2.5f);
  CHECK(r.outputs[1].values<float>()[5] == 7.f);
}

TEST_CASE("model file: packed weights by default; portable weights need keep_weights") {
  const ge::Graph g = small_net();
  const auto model = ge::compile(g, ge::batch_gears(g, {1, 2}));  // no keep_weights: the graph lacks w and fc
  const std::vector<std::byte> packed = ge::save_to_memory(*model);
  const auto back = ge::load_compiled(std::span<const std::byte>(packed));
  CHECK(run(back, 2) == run(model, 2));
  // The kernels are made from the file's packed weights: the same kernels, nothing packed.
  for (std::size_t n = 0; n < model->kernels().size(); ++n)
    if (model->kernels()[n]) CHECK(back->kernels()[n]->name() == model->kernels()[n]->name());
  ge::test::expect_error([&] { (void)ge::save_to_memory(*model, ge::ModelWeights::portable); }, Errc::invalid_argument,
                         "keep_weights");
  // Portable: the graph's weights, packed at load.
  const auto kept = ge::compile(g, ge::batch_gears(g, {1, 2}), ge::default_target(), keeping());
  const auto portable = ge::load_compiled(std::span<const std::byte>(ge::save_to_memory(*kept, ge::ModelWeights::portable)));
  CHECK(run(portable, 2) == run(model, 2));
}

namespace {
// `file` with the first occurrence of `text` in its description changed, resealed.
std::vector<std::byte> with_text_changed(std::vector<std::byte> file, const std::string& text) {
  const auto* begin = reinterpret_cast<const char*>(file.data());
  const std::string_view all(begin, file.size());
  const std::size_t at = all.find(text);
  REQUIRE(at != std::string_view::npos);
  file[at + text.size() - 1] = std::byte{'#'};
  ge::detail::seal_model_file(file);
  return file;
}
}  // namespace

TEST_CASE("model file: packed weights load only where the same kernels run") {
  const ge::Graph g = small_net();
  const auto model = ge::compile(g, ge::batch_gears(g, {1, 2}));
  const std::vector<std::byte> file = ge::save_to_memory(*model);
  const auto load = [](const std::vector<std::byte>& bytes) { (void)ge::load_compiled(std::span<const std::byte>(bytes)); };
  // Another instruction set named in the file.
  ge::test::expect_error([&] { load(with_text_changed(file, ge::detail::packing_isa(ge::Precision::f32))); }, Errc::unsupported,
                         "packed for instruction set", "portable weights");
  // A kernel this CPU would not choose for the node.
  std::string name;
  for (const auto& k : model->kernels())
    if (k && k->packed_state()) name = std::string(k->name());
  REQUIRE(!name.empty());
  ge::test::expect_error([&] { load(with_text_changed(file, name)); }, Errc::unsupported, "was saved with kernel");
  // Portable weights load whatever the instruction set.
  const auto kept = ge::compile(g, ge::batch_gears(g, {1, 2}), ge::default_target(), keeping());
  load(with_text_changed(ge::save_to_memory(*kept, ge::ModelWeights::portable), ge::detail::packing_isa(ge::Precision::f32)));
}

TEST_CASE("model file: bad files are clear errors") {
  const ge::Graph g = small_net();
  const std::vector<std::byte> good = ge::save_to_memory(*ge::compile(g, ge::batch_gears(g, {1, 2}), ge::default_target(), keeping()));
  const auto load = [](std::vector<std::byte> bytes) { (void)ge::load_compiled(std::span<const std::byte>(bytes)); };
  ge::test::TempDir dir("ge_model_file");
  ge::test::expect_error([&] { (void)ge::load_compiled(dir.path / "missing.gem"); }, Errc::bad_model, "missing.gem",
                         "cannot open");
  load(good);  // the baseline loads
  ge::test::expect_error([&] { load({}); }, Errc::bad_model, "not a ge model file");
  std::vector<std::byte> text(100, std::byte{'x'});
  ge::test::expect_error([&] { load(text); }, Errc::bad_model, "no GEMODEL mark");
  std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2));
  ge::test::expect_error([&] { load(cut); }, Errc::bad_model, "truncated", std::to_string(good.size()));
  std::vector<std::byte> flipped = good;
  flipped[flipped.size() - 5] ^= std::byte{0x10};  // one weight bit
  ge::test::expect_error([&] { load(flipped); }, Errc::bad_model, "corrupted", "checksum");
  std::vector<std::byte> newer = good;
  ge::detail::store_le<std::uint32_t>(newer.data() + ge::detail::ModelHeaderAt::version, ge::model_file_version + 1);
  ge::detail::seal_model_file(newer);
  ge::test::expect_error([&] { load(newer); }, Errc::unsupported, "format version " + std::to_string(ge::model_file_version + 1),
                         "reads version " + std::to_string(ge::model_file_version));
  std::vector<std::byte> wrong_size = good;
  wrong_size.push_back(std::byte{0});
  ge::test::expect_error([&] { load(wrong_size); }, Errc::bad_model, "extra bytes");
}

TEST_CASE("model file: the checksum is one function on every CPU and sees moved and changed bytes") {
  // 9 MiB + 37 bytes: three 4 MiB runs, a partial block, a partial stripe, a tail.
  std::vector<std::byte> bytes((std::size_t{9} << 20) + 37);
  std::mt19937_64 rng(7);
  for (auto& b : bytes) b = static_cast<std::byte>(rng());
  const std::span<const std::byte> all(bytes);
  const std::uint64_t portable = ge::detail::model_checksum(all, ge::cpu::Isa::baseline);
  // Each vector path this CPU has gives the portable path's value (a file saved on one
  // machine checks on any other), on whole runs and on every odd length.
  for (const ge::cpu::Isa isa : {ge::cpu::Isa::avx2, ge::cpu::Isa::avx512}) {
    if (isa > ge::cpu::isa()) {
      MESSAGE("skipped: the checksum's path for ISA " << static_cast<int>(isa) << " (this CPU lacks it)");
      continue;
    }
    CHECK(ge::detail::model_checksum(all, isa) == portable);
    for (std::size_t n : {0, 1, 63, 64, 65, 1023, 1024, 1025, 70000})
      CHECK(ge::detail::model_checksum(all.first(n), isa) == ge::detail::model_checksum(all.first(n), ge::cpu::Isa::baseline));
  }
  CHECK(ge::detail::model_checksum(all) == portable);
  // The format fixes the function: this value changes only with model_file_version.
  std::vector<std::byte> counting(5000);
  for (std::size_t i = 0; i < counting.size(); ++i) counting[i] = static_cast<std::byte>(i * 7 + 3);
  CHECK(ge::detail::model_checksum(counting, ge::cpu::Isa::baseline) == 0x974022536708817bULL);
  // Changes it sees: every single bit at sampled places, two stripes or two 1 KiB blocks
  // swapped, two 4 MiB runs swapped.
  const auto changed = [&](auto&& edit) {
    std::vector<std::byte> copy = bytes;
    edit(copy);
    return ge::detail::model_checksum(copy) != portable;
  };
  for (std::size_t at = 0; at < bytes.size(); at += 104729)
    for (int bit = 0; bit < 8; ++bit) CHECK(changed([&](auto& c) { c[at] ^= static_cast<std::byte>(1 << bit); }));
  const auto swap_ranges = [](auto& c, std::size_t a, std::size_t b, std::size_t n) {
    std::swap_ranges(c.begin() + static_cast<std::ptrdiff_t>(a), c.begin() + static_cast<std::ptrdiff_t>(a + n),
                     c.begin() + static_cast<std::ptrdiff_t>(b));
  };
  CHECK(changed([&](auto& c) { swap_ranges(c, 64, 128, 64); }));
  CHECK(changed([&](auto& c) { swap_ranges(c, 0, 1024, 64); }));          // same place in two blocks
  CHECK(changed([&](auto& c) { swap_ranges(c, 1024, 4096, 1024); }));     // two blocks
  CHECK(changed([&](auto& c) { swap_ranges(c, 0, std::size_t{4} << 20, std::size_t{4} << 20); }));
}

TEST_CASE("model file: descriptions that lie past the checksum are ge::Errors, never a crash") {
  const ge::Graph g = small_net();
  const std::vector<std::byte> good = ge::save_to_memory(*ge::compile(g, ge::batch_gears(g, {1, 2}), ge::default_target(), keeping()));
  const auto meta_bytes = ge::detail::load_le<std::uint64_t>(good.data() + ge::detail::ModelHeaderAt::meta_bytes);
  std::mt19937_64 rng(42);
  int errors = 0, loaded = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::byte> bad = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      // Inside the header's section fields or the description, where the parser reads.
      const std::size_t at = trial % 8 == 0 ? 32 + rng() % 32 : 64 + rng() % meta_bytes;
      bad[at] = std::byte(static_cast<std::uint8_t>(rng()));
    }
    ge::detail::seal_model_file(bad);
    try {
      (void)ge::load_compiled(std::span<const std::byte>(bad));
      ++loaded;  // a change the model tolerates (a name's letter, an unused byte)
    } catch (const ge::Error&) {
      ++errors;
    }
  }
  MESSAGE("mutated descriptions: " << errors << " refused, " << loaded << " loaded");
  CHECK(errors > 200);
  CHECK(errors + loaded == 400);
}
