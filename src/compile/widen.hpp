#pragma once
// Private to src/compile: f16/bf16 values computed in f32, shared by the graph pass
// (widen_half_floats, widen.cpp) and single-op compile (op_compile.cpp), so that a
// graph's half-float op and the same op compiled alone widen alike.

#include "ge/core/data_type.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge::detail {

/// Whether `t` is f16 or bf16.
[[nodiscard]] inline bool is_half(DataType t) noexcept { return t == DataType::f16 || t == DataType::bf16; }
/// `t` converted to f32 (the same dims; no data when `t` has none).
[[nodiscard]] Tensor widened(const Tensor& t);
/// `attrs` with the `to`/`dtype` string attributes that name f16/bf16 made "f32" and the
/// half tensor attributes (ConstantOfShape's value) widened.
[[nodiscard]] Attributes widened(const Attributes& attrs);

}  // namespace ge::detail
