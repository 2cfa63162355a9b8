// libFuzzer target for model files (ge::load_compiled over bytes): the header's checks,
// the description's parser, the packed kernels' states and the model made from them.
// The checksum is written over each input first (seal_model_file), so mutations reach the
// parser instead of stopping at "corrupted". Any ge::Error is an accepted outcome; a crash
// or a sanitizer report is a finding. A seed: any file of `gec compile -o`.
//   build/fuzz/tests/fuzz/fuzz_model_file -max_total_time=600 -rss_limit_mb=2048 <corpus dir>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "compile/model_file_format.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::byte> file(size);
  if (size > 0) std::memcpy(file.data(), data, size);
  ge::detail::seal_model_file(file);
  try {
    (void)ge::load_compiled(std::span<const std::byte>(file));
  } catch (const ge::Error&) {
  }
  return 0;
}
