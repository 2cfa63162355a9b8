// Allocation failure at the public entries (docs/boundary.md): under an address-space
// limit, compile (weight packing), load_compiled, save, save_to_memory and Session::run
// throw ge::Error with Errc::out_of_memory naming what they were making, never
// std::bad_alloc; after the limit is lifted the same calls work.
#include <doctest/doctest.h>

#include <string>

#include "ge/compile/model_file.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/address_space_limit.hpp"
#include "support/temp_dir.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::AddressSpaceLimit;

namespace {

// x [4, 1024] -> MatMul with a 1024 x 8192 weight (32 MiB; packed again at compile).
ge::Graph big_dense() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "4,1024");
  b.output(b.op("MatMul", {x, b.constant("w", ge::Tensor::random(DataType::f32, {1024, 8192}, 1))}, {}, "y"));
  return b.build();
}

// `f` under the limit: an out_of_memory ge::Error whose message has `part`.
template <class F>
void expect_out_of_memory(F&& f, const char* part) {
  const auto r = AddressSpaceLimit::outcome(8u << 20, f);
  CAPTURE(r.what);
  CHECK(r.code == Errc::out_of_memory);
  CHECK(r.what.find(part) != std::string::npos);
}

}  // namespace

TEST_CASE("out of memory: compile and save and load_compiled and run are out_of_memory under an address-space limit") {
  if (!AddressSpaceLimit::available()) {
    MESSAGE("skipped: a sanitizer build cannot run under RLIMIT_AS (its shadow memory is reserved address space)");
    return;
  }
  if (int status = 0; !AddressSpaceLimit::in_fresh_process("out of memory: compile and save and load_compiled and run*", status)) {
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // the checks below passed in a fresh process
    return;
  }
  const ge::Graph g = big_dense();
  expect_out_of_memory([&] { (void)ge::compile(g); }, "[ge.compile] compiling");
  const auto model = ge::compile(g);  // the limit lifted: it compiles
  expect_out_of_memory([&] { (void)ge::save_to_memory(*model); }, "[ge.model_file] making a model file");
  ge::test::TempDir dir("ge_oom");
  const auto path = dir.path / "big.gem";
  expect_out_of_memory([&] { ge::save(*model, path); }, "[ge.model_file] making the model file");
  ge::save(*model, path);
  expect_out_of_memory([&] { (void)ge::load_compiled(path); }, "big.gem");
  const auto loaded = ge::load_compiled(path);
  CHECK(loaded->outputs().size() == 1);

  // A run whose input and output need more than the limit leaves.
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, "4096,2048").relu("y"));
  const auto relu = ge::compile(b.build());
  ge::Session session(relu);
  std::vector<float> x(4096 * 2048, 1.f);
  const ge::TensorView in(std::span<float>(x), {4096, 2048});
  expect_out_of_memory([&] { (void)session.run({in}); }, "");
  CHECK(session.run({in}).outputs.at(0).values<float>()[7] == 1.f);  // the session works as before
}
