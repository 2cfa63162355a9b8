#pragma once
// Private: evaluating one node at compile time on the CPU kernels, shared by the
// constant-folding pass (src/compile/passes.cpp) and the per-plan specialisation
// (src/compile/specialize.cpp).

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"
#include "ge/ops/schema.hpp"

namespace ge::detail {

/// Outputs of a node bigger than this (all together) are not folded.
inline constexpr std::int64_t max_fold_bytes = std::int64_t{64} << 20;

/// The output of a `Shape` node over an input of `shape`: dims [start, end) as i64, when
/// the rank is known and those dims are static; nullopt otherwise.
[[nodiscard]] std::optional<Tensor> shape_constant(const Attributes& attrs, const Shape& shape);

/// One node to evaluate: its schema, name, inputs (descriptions and constant data, every
/// given input constant with data), attributes as set, and the recorded descriptions of
/// its outputs (may be looser than what inference gives; empty: none recorded).
struct FoldNode {
  const OpSchema& schema;
  std::string_view name;
  std::span<const TensorDesc> inputs;
  std::span<const Tensor* const> constants;
  const Attributes& attrs;
  std::size_t outputs;
  std::span<const TensorDesc> recorded{};
};

/// Runs the node with the CPU kernel that compile would pick. nullopt when its outputs
/// are too big (`max_fold_bytes`) or unbounded, no kernel fits, or the kernel refuses the
/// data (the same failure is then reported at run time).
[[nodiscard]] std::optional<std::vector<Tensor>> evaluate(const FoldNode& n);

/// True when every given input of the node is a constant with data.
[[nodiscard]] bool all_inputs_constant(std::span<const Tensor* const> constants, std::span<const TensorDesc> inputs);

}  // namespace ge::detail
