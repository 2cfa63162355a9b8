#pragma once
// Private to the constant-folding pass (src/compile/passes.cpp): what is known of the small
// i64 shape tensors a dynamic export computes (torch's Shape -> Gather -> Unsqueeze ->
// Concat feeding Reshape) when they cannot fold because one dim (the batch) is not static.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compile/pass_work.hpp"

namespace ge::detail {

/// One element of a shape tensor: its value where known (any i64: -1 and 0 mean what
/// Reshape says), else the dim it carries (ranged or unknown: a batch).
struct ShapeElement {
  std::optional<std::int64_t> value;
  Dim dim;
};

/// A shape tensor's elements, and whether it is a scalar (rank 0) rather than a vector.
struct ShapeValue {
  std::vector<ShapeElement> elements;
  bool scalar = false;
};
using ShapeValues = std::unordered_map<ValueId, ShapeValue>;

/// For a node that did not fold: a Shape, a Gather at constant indices of a known shape
/// tensor, an Unsqueeze of a known scalar, a Cast to i64 or a Concat of known pieces and
/// i64 constants records its output's elements in `known`. Returns the output as an i64
/// constant where every element is static (the dims of `Shape(x)[1]` are, with x's batch
/// free), nullopt otherwise.
std::optional<Tensor> shape_value(const Work& w, const WNode& n, ShapeValues& known);

/// The dims a Reshape node's output has by its shape input's known elements (0 copies the
/// input's dim unless `allowzero`, -1 takes what is left where that is static), or nullopt.
std::optional<Shape> reshape_dims(const Work& w, const WNode& n, const ShapeValues& known);

}  // namespace ge::detail
