// libFuzzer target for the ONNX importer: any bytes through ge::onnx::load_bytes. A model
// that loads must be a valid graph, and is then compiled (range mode for dynamic inputs)
// when it is small. Any ge::Error is an accepted outcome; a crash, a sanitizer report, an
// unbounded allocation (libFuzzer's -rss_limit_mb) or a hang is a finding.
//
//   build/fuzz/tests/fuzz/fuzz_onnx -max_total_time=600 -rss_limit_mb=2048 <corpus dir>
// Seeds: the models of /usr/share/libonnx-testdata/data/node (copy some into a directory).

#include <cstddef>
#include <cstdint>
#include <span>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/onnx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    // No base directory: external data is refused, so the fuzzer cannot read files.
    ge::onnx::LoadOptions options;
    options.max_tensor_bytes = std::int64_t{64} << 20;
    const ge::Graph g = ge::onnx::load_bytes(bytes, {}, options);
    try {
      g.validate();  // a loaded graph is valid
    } catch (const ge::Error&) {
      __builtin_trap();
    }
    if (g.nodes().size() <= 64) (void)ge::compile(g);
  } catch (const ge::Error&) {
  }
  return 0;
}
