// ge::load_compiled with the weights in the caller's memory (and ge::model_weights_bytes):
// the model computes from the caller's copy, the memory's size and alignment are checked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "ge/compile/model_file.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

using ge::DataType;

namespace {

// x [2,3,4,4] -> conv 1x1 (packed weights) -> + bias -> y
ge::Graph net() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "2,3,4,4", ge::Format::nchw);
  const auto w = b.constant("w", ge::Tensor::random(DataType::f32, {5, 3, 1, 1}, 11));
  const auto bias = b.constant("bias", ge::Tensor::random(DataType::f32, {1, 5, 1, 1}, 12));
  b.output(b.op("Add", {b.op("Conv", {x, w}, {{"kernel_shape", {1, 1}}}, "conv"), bias}, {}, "y"));
  return b.build();
}

struct Aligned {
  std::byte* p;
  std::size_t n;
  explicit Aligned(std::size_t bytes) : p(static_cast<std::byte*>(::operator new(bytes + 64, std::align_val_t{64}))), n(bytes) {}
  ~Aligned() { ::operator delete(p, std::align_val_t{64}); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
};

std::vector<float> outputs_of(const std::shared_ptr<const ge::CompiledModel>& m) {
  ge::Session s(m, {.threads = 1});
  const ge::Tensor in = ge::Tensor::random(DataType::f32, {2, 3, 4, 4}, 5);
  const std::int64_t dims[] = {2, 3, 4, 4};
  const ge::RunResult r = s.run({ge::TensorView{const_cast<std::byte*>(in.bytes().data()), DataType::f32, dims}});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("load_compiled: the weights in the caller's memory") {
  const auto model = ge::compile(net());
  const std::vector<std::byte> file = ge::save_to_memory(*model);
  const std::int64_t need = ge::model_weights_bytes(file);
  CHECK(need >= static_cast<std::int64_t>((5 * 3 + 5) * sizeof(float)));
  CHECK(need % 64 == 0);
  Aligned w(static_cast<std::size_t>(need));
  std::fill(w.p, w.p + need, std::byte{0});
  const auto loaded = ge::load_compiled(file, std::span(w.p, w.n));
  CHECK(std::any_of(w.p, w.p + need, [](std::byte b) { return b != std::byte{0}; }));  // copied there
  const std::vector<float> want = outputs_of(model);
  CHECK(outputs_of(loaded) == want);
  // The model computes from that copy: change it and the results change.
  std::fill(w.p, w.p + need, std::byte{0});
  CHECK(outputs_of(loaded) != want);

  // From a file: the same sizes and results.
  ge::test::TempDir dir;
  const auto path = dir.path / "net.gem";
  ge::save(*model, path);
  CHECK(ge::model_weights_bytes(path) == need);
  Aligned w2(static_cast<std::size_t>(need));
  CHECK(outputs_of(ge::load_compiled(path, std::span(w2.p, w2.n))) == want);
}

TEST_CASE("load_compiled: weights memory too small or misaligned") {
  const auto model = ge::compile(net());
  const std::vector<std::byte> file = ge::save_to_memory(*model);
  const auto need = static_cast<std::size_t>(ge::model_weights_bytes(file));
  Aligned w(need + 64);
  ge::test::expect_error([&] { (void)ge::load_compiled(file, std::span(w.p, need - 1)); }, ge::Errc::invalid_argument,
                         "the weights need " + std::to_string(need) + " bytes; the memory given holds " +
                             std::to_string(need - 1));
  ge::test::expect_error([&] { (void)ge::load_compiled(file, std::span(w.p + 4, need)); }, ge::Errc::invalid_argument,
                         "no multiple of 64");
  std::vector<std::byte> truncated(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(file.size() / 2));
  ge::test::expect_error([&] { (void)ge::model_weights_bytes(truncated); }, ge::Errc::bad_model, "truncated");
  ge::test::expect_error([&] { (void)ge::load_compiled(truncated, std::span(w.p, w.n)); }, ge::Errc::bad_model, "truncated");
}
