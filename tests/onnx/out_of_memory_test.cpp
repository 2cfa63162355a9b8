// Allocation failure in the ONNX importer (protobuf's parser, the tensors): under an
// address-space limit ge::onnx::load and load_bytes throw out_of_memory naming what they
// read, never std::bad_alloc.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <string>

#include "ge/onnx.hpp"
#include "support/address_space_limit.hpp"
#include "support/onnx_model.hpp"
#include "support/temp_dir.hpp"

using ge::test::AddressSpaceLimit;

TEST_CASE("onnx: load and load_bytes under an address-space limit are out_of_memory naming the model") {
  if (!AddressSpaceLimit::available()) {
    MESSAGE("skipped: a sanitizer build cannot run under RLIMIT_AS (its shadow memory is reserved address space)");
    return;
  }
  if (int status = 0; !AddressSpaceLimit::in_fresh_process("onnx: load and load_bytes under an address-space limit*", status)) {
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // the checks below passed in a fresh process
    return;
  }
  ge::test::Model m(13);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, {1024, 8192});
  m.f32("w", {1024, 8192}, std::vector<float>(1024 * 8192, 0.5f));  // 32 MiB
  m.node("Add", {"x", "w"}, {"y"}, "add");
  m.output("y");
  const std::string bytes = m.bytes();
  ge::test::TempDir dir("ge_onnx_oom");
  const auto path = dir.path / "big.onnx";
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const auto attempt = [&](auto&& f, const char* part) {
    const auto r = AddressSpaceLimit::outcome(8u << 20, f);
    CAPTURE(r.what);
    CHECK(r.code == ge::Errc::out_of_memory);
    CHECK(r.what.find(part) != std::string::npos);
  };

  const auto span = std::as_bytes(std::span<const char>(bytes.data(), bytes.size()));
  attempt([&] { (void)ge::onnx::load_bytes(span); }, "[ge.onnx] reading an ONNX model from memory");
  attempt([&] { (void)ge::onnx::load(path); }, "big.onnx");
  CHECK(ge::onnx::load(path).nodes().size() == 1);  // the limit lifted: it loads
}
