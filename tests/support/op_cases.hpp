#pragma once
// Test support: one-node cases of an op (inputs, attributes, outputs), the graph of one,
// and seeded random cases of every op the reference interpreter implements, for the
// kernels-against-reference harness (tests/compile/kernels_vs_reference_test.cpp).
//
//   for (const ge::test::OpCase& c : ge::test::random_cases("Conv", 7)) {
//     ge::Graph g = c.graph();                      // one node named "node"
//     auto want = ge::ref::run_reference(g, c.feeds());
//   }

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/graph/graph.hpp"
#include "ge/tensor/attribute.hpp"
#include "support/reference.hpp"

namespace ge::test {

/// One input of a one-node case: a graph input (fed at run time) or a graph constant.
struct CaseInput {
  ref::RefTensor tensor;
  bool constant = false;
};

/// One node to run, and how close two results of it must be.
struct OpCase {
  std::string op;
  std::vector<std::optional<CaseInput>> inputs;  ///< nullopt: an omitted optional input
  Attributes attrs{};
  std::size_t outputs = 0;  ///< how many outputs the node has (0: the schema's default)
  double rtol = 1e-5;       ///< results match within atol + rtol * |expected|
  double atol = 1e-6;

  /// The graph of the one node (named `node`), built through the GraphBuilder so that
  /// shape inference runs: inputs `x<k>`, constants `c<k>`, every output a graph output.
  [[nodiscard]] Graph graph() const;
  /// The tensors of the graph inputs, in order.
  [[nodiscard]] std::vector<ref::RefTensor> feeds() const;
  /// `Conv(f32[1,3,5,5], const f32[4,3,3,3]) {strides=[2,2]}`.
  [[nodiscard]] std::string describe() const;
};

/// A few seeded random cases of `op` (shapes, attributes, data types); the same seed
/// gives the same cases. Empty when there is no generator for `op`.
[[nodiscard]] std::vector<OpCase> random_cases(std::string_view op, std::uint64_t seed);
/// The ops random_cases has a generator for, sorted.
[[nodiscard]] std::vector<std::string> ops_with_cases();

}  // namespace ge::test
