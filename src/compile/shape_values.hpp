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

/// Where a dim that is not static comes from: dim `axis` of value `value` (-1: nowhere
/// known). Two such dims are the same quantity in every run only when their origins are
/// equal: ranges alone say nothing (two inputs' free batches are both `1~8`).
struct DimOrigin {
  std::int64_t value = -1, axis = -1;
  [[nodiscard]] bool known() const noexcept { return value >= 0; }
  friend bool operator==(const DimOrigin&, const DimOrigin&) = default;
};

/// One element of a shape tensor: its value where known (any i64: -1 and 0 mean what
/// Reshape says), else the dim it carries (ranged or unknown: a batch) and its origin.
struct ShapeElement {
  std::optional<std::int64_t> value;
  Dim dim;
  DimOrigin origin;
};

/// A shape tensor's elements, and whether it is a scalar (rank 0) rather than a vector.
struct ShapeValue {
  std::vector<ShapeElement> elements;
  bool scalar = false;
};

/// What the pass knows: shape tensors element by element, and the origins of the dims
/// of values whose dims it set (a Reshape's, carried through a Transpose).
struct ShapeValues {
  std::unordered_map<ValueId, ShapeValue> tensors;
  std::unordered_map<ValueId, std::vector<DimOrigin>> origins;
  /// Dim `axis` of value v: where it was recorded to come from, else itself.
  [[nodiscard]] DimOrigin origin_of(ValueId v, std::size_t axis) const;
};

/// For a node that did not fold: a Shape, a Gather at constant indices of a known shape
/// tensor, an Unsqueeze of a known scalar, a Cast to i64 or a Concat of known pieces and
/// i64 constants records its output's elements in `known`; a Transpose carries its input's
/// recorded dim origins. Returns the output as an i64 constant where every element is
/// static (the dims of `Shape(x)[1]` are, with x's batch free), nullopt otherwise.
std::optional<Tensor> shape_value(const Work& w, const WNode& n, ShapeValues& known);

/// The dims a Reshape node's output has by its shape input's known elements (0 copies the
/// input's dim unless `allowzero`, -1 takes what is left where that is known: static dims
/// multiply, a dim that is not static cancels the input's dim of the same origin), or
/// nullopt; the output's dim origins are recorded in `known`.
std::optional<Shape> reshape_dims(const Work& w, const WNode& n, ShapeValues& known);

/// A Resize to sizes that are a shape tensor known element by element but not constant
/// (torch's interpolation to a size under a free batch: Concat(Shape(x)[0:2], [H', W'])):
/// where each size is X's own dim (by origin) or a whole multiple of X's static dim, the
/// constant scales (1 or that multiple) that give the same output extents and the same
/// coordinates (scale = out / in either way); nullopt otherwise. With scales, N and C are
/// seen to stay (the layout pass then runs the Resize NHWC) and the output's dims are known.
std::optional<Tensor> resize_scales(const Work& w, const WNode& n, const ShapeValues& known);

}  // namespace ge::detail
