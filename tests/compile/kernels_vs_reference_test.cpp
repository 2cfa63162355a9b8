// Every op's CPU kernel against the reference interpreter (support/reference.hpp), in
// the manner of ggml's test-backend-ops: for each op of the registry that has a kernel,
// a few seeded random one-node cases (support/op_cases.hpp: shapes, attributes, data
// types) run through compile_op + execute_op and through the reference, and must agree
// within the case's tolerance. An op the reference does not cover must be listed below
// with the reason, so a new op fails this test until it gets a reference and cases.
// CTest runs it again under GE_CPU_ISA=baseline and avx2 (tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <chrono>
#include <exception>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/ops/registry.hpp"
#include "support/graph_eval.hpp"
#include "support/op_cases.hpp"
#include "support/reference.hpp"

namespace {

// The ops with a kernel that the harness does not check, and why. Keep it short: an op
// leaves it once the reference implements it and op_cases has a generator.
const std::map<std::string, std::string_view, std::less<>> uncovered = {
    {"ConvTranspose", "no reference yet (tests/kernels/conv_test.cpp checks it against its own loops)"},
    {"Einsum", "no reference yet (tests/kernels/einsum_test.cpp checks it against its own loops)"},
    {"FusedAttention", "an internal fusion; tests/compile/fusions_test.cpp checks it against the unfused graph"},
    {"FusedConv", "an internal fusion; tests/compile/fusions_test.cpp checks it against the unfused graph"},
    {"FusedMatMul", "an internal fusion; tests/compile/fusions_test.cpp checks it against the unfused graph"},
    {"FusedPointwiseDepthwise",
     "an internal fusion; tests/compile/layout_test.cpp checks it against the two convs it replaces"},
    {"NonZero", "no reference yet (data-dependent output dims)"},
    {"Range", "no reference yet (data-dependent output dims)"},
    {"Resize", "no reference yet"},
};

bool has_kernel(const std::string& op) { return !ge::KernelRegistry::global().names(op).empty(); }

// Runs one case through ge (compile_op + execute_op per node) and the reference, and
// checks every output.
void check_case(const ge::test::OpCase& c) {
  INFO(c.describe());
  const ge::Graph g = c.graph();
  const std::vector<ge::ref::RefTensor> feeds = c.feeds();
  std::map<std::string, ge::Tensor> inputs;
  for (std::size_t k = 0; k < feeds.size(); ++k) inputs.emplace(g.inputs()[k].name, feeds[k].to_tensor());
  const std::vector<ge::ref::RefTensor> want = ge::ref::run_reference(g, feeds);
  const std::vector<ge::Tensor> got = ge::test::run(g, inputs);
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    std::string why;
    CHECK_MESSAGE(ge::ref::all_close(want[k], ge::ref::RefTensor::from(got[k]), c.rtol, c.atol, &why), "output ", k,
                  ": ", why);
  }
}

}  // namespace

TEST_CASE("every op with a CPU kernel is checked against the reference, or listed as uncovered") {
  for (const std::string& op : ge::OpRegistry::global().names()) {
    if (!has_kernel(op)) continue;
    const bool covered = ge::ref::implements(op) && !ge::test::random_cases(op, 1).empty();
    CHECK_MESSAGE((covered || uncovered.contains(op)), "op '", op,
                  "' has a CPU kernel but neither a reference with cases (support/reference/, support/op_cases/) nor "
                  "an entry in `uncovered`");
    CHECK_MESSAGE(!(covered && uncovered.contains(op)), "op '", op, "' is covered now: drop it from `uncovered`");
  }
  for (const auto& [op, why] : uncovered) CHECK_MESSAGE(ge::OpRegistry::global().try_find(op) != nullptr, op);
}

TEST_CASE("every op's CPU kernel agrees with the reference on random cases") {
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t ops = 0, cases = 0;
  for (const std::string& op : ge::OpRegistry::global().names()) {
    if (!has_kernel(op) || uncovered.contains(op)) continue;
    ++ops;
    for (const std::uint64_t seed : {1, 2, 3, 4}) {
      for (const ge::test::OpCase& c : ge::test::random_cases(op, seed)) {
        ++cases;
        try {
          check_case(c);
        } catch (const std::exception& e) {
          const std::string what = c.describe() + ": " + e.what();
          FAIL_CHECK(what);
        }
      }
    }
  }
  MESSAGE(ops << " ops, " << cases << " cases in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
  CHECK(ops > 0);
}
