// Every op's CPU kernel against the reference interpreter (support/reference.hpp), in
// the manner of ggml's test-backend-ops: for each op of the registry that has a kernel,
// a few seeded random one-node cases (support/op_cases.hpp: shapes, attributes, data
// types) run through compile_op + execute_op and through the reference, and must agree
// within the case's tolerance. An op the reference does not cover must be listed below
// with the reason, so a new op fails this test until it gets a reference and cases.
// ge's own ops (origin internal: the fusions) are left out by their schemas:
// tests/compile/fusions_test.cpp and layout_test.cpp check them against the graphs they
// replace.
// CTest runs it again under GE_CPU_ISA=baseline and avx2 (tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <chrono>
#include <exception>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/ops/registry.hpp"
#include "support/graph_eval.hpp"
#include "support/op_cases.hpp"
#include "support/reference.hpp"

namespace {

// The ops with a kernel that the harness does not check, and why. Keep it short: an op
// leaves it once the reference implements it and op_cases has a generator.
const std::map<std::string, std::string_view, std::less<>> uncovered = {
    {"Einsum", "no reference yet (tests/kernels/einsum_test.cpp checks it against its own loops)"},
    {"If", "control flow: tests/onnx/control_flow_test.cpp, tests/graph/control_flow_builder_test.cpp and ONNX's test_if"},
    {"Loop", "control flow: tests/onnx/control_flow_test.cpp, tests/graph/control_flow_builder_test.cpp and ONNX's test_loop11"},
    {"Scan", "control flow: ONNX's test_scan9_sum (the conformance count)"},
    {"NonZero", "no reference yet (data-dependent output dims)"},
    {"Range", "no reference yet (data-dependent output dims)"},
};

bool has_kernel(const std::string& op) { return !ge::KernelRegistry::global().names(op).empty(); }

// An op the harness leaves out: listed above, or one of ge's own (see the file comment).
bool left_out(const std::string& op) {
  return uncovered.contains(op) || ge::OpRegistry::global().find(op).origin.internal();
}

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
    CHECK_MESSAGE((covered || left_out(op)), "op '", op,
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
    if (!has_kernel(op) || left_out(op)) continue;
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

namespace {

// Runs `c` with output `ip.output` written over input `ip.input` (the plans' memory reuse
// does that where the schema allows it), when both have one dtype and dims; checks that
// output against the reference. False when the case cannot run so.
bool check_in_place(const ge::test::OpCase& c, const ge::InPlace& ip) {
  const ge::Graph g = c.graph();
  const ge::Node& n = g.nodes().at(0);
  if (ip.input >= n.inputs.size() || ip.output >= n.outputs.size() || n.inputs[ip.input] == ge::no_value) return false;
  const ge::TensorDesc& in = g.value(n.inputs[ip.input]).desc;
  const ge::TensorDesc& out = g.value(n.outputs[ip.output]).desc;
  if (in.dtype != out.dtype || !in.shape.is_static() || in.shape != out.shape) return false;
  INFO(c.describe(), " in place: output ", ip.output, " over input ", ip.input);
  const std::vector<ge::ref::RefTensor> feeds = c.feeds();
  const std::vector<ge::ref::RefTensor> want = ge::ref::run_reference(g, feeds);
  std::map<ge::ValueId, ge::test::Buffer> values;
  for (std::size_t k = 0; k < g.inputs().size(); ++k)
    values[g.inputs()[k].value] = ge::test::buffer_of(feeds[k].to_tensor());
  for (const ge::Constant& k : g.constants()) values[k.value] = ge::test::buffer_of(k.tensor);
  std::vector<ge::OpTensor> descs;
  std::vector<ge::TensorView> ins;
  for (const ge::ValueId v : n.inputs) {
    if (v == ge::no_value) {
      descs.push_back(ge::OpTensor::undefined());
      ins.emplace_back();
      continue;
    }
    const ge::Tensor* t = g.constant_of(v);
    descs.push_back(t != nullptr ? ge::OpTensor::constant_of(*t) : ge::OpTensor{g.value(v).desc.dtype, g.value(v).desc.shape});
    ins.push_back(values.at(v).view());
  }
  std::vector<ge::OpTensor> out_descs;
  for (const ge::ValueId v : n.outputs) out_descs.push_back(ge::OpTensor{g.value(v).desc.dtype, g.value(v).desc.shape});
  const auto op = ge::compile_op(n.op, descs, out_descs, n.attrs);
  std::vector<ge::test::Buffer> outs(n.outputs.size());
  std::vector<ge::TensorView> out_views;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const ge::TensorDesc& d = g.value(n.outputs[k]).desc;
    outs[k] = ge::test::buffer_of(ge::Tensor::full(d.dtype, d.shape.values(), 0.0));
    out_views.push_back(k == ip.output ? ins[ip.input] : outs[k].view());
  }
  (void)ge::execute_op(*op, ins, out_views);
  const ge::test::Buffer& got = values.at(n.inputs[ip.input]);
  std::string why;
  CHECK_MESSAGE(ge::ref::all_close(want[ip.output], ge::ref::RefTensor::from(ge::test::tensor_of(got)), c.rtol, c.atol, &why),
                why);
  return true;
}

}  // namespace

TEST_CASE("every op a plan may run in place agrees with the reference in place") {
  std::size_t cases = 0;
  for (const std::string& op : ge::OpRegistry::global().names()) {
    const ge::OpSchema& schema = ge::OpRegistry::global().find(op);
    if (!has_kernel(op) || left_out(op) || schema.in_place.empty()) continue;
    for (const std::uint64_t seed : {1, 2, 3})
      for (const ge::test::OpCase& c : ge::test::random_cases(op, seed))
        for (const ge::InPlace& ip : schema.in_place) {
          try {
            cases += check_in_place(c, ip) ? 1 : 0;
          } catch (const std::exception& e) {
            const std::string what = c.describe() + " in place: " + e.what();
            FAIL_CHECK(what);
          }
        }
  }
  MESSAGE(cases << " in-place cases");
  CHECK(cases > 100);
}
