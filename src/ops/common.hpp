#pragma once
// Private to src/ops: the pieces every op family uses to declare schemas and to infer
// shapes over intervals.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/ops/registry.hpp"
#include "ge/ops/schema.hpp"
#include "ge/shape/shape.hpp"

namespace ge::ops {

// Registration of each family (called once by OpRegistry::with_builtin_ops).
void add_elementwise_ops(OpRegistry& r);
void add_elementwise_math_ops(OpRegistry& r);  // src/ops/elementwise_math.cpp
void add_nn_ops(OpRegistry& r);
void add_shape_ops(OpRegistry& r);        // calls add_shape_value_ops
void add_shape_value_ops(OpRegistry& r);  // src/ops/pad_resize.cpp
void add_reduce_ops(OpRegistry& r);
void add_indexing_ops(OpRegistry& r);  // src/ops/indexing.cpp
void add_rearrange_ops(OpRegistry& r);  // src/ops/rearrange.cpp
void add_loss_ops(OpRegistry& r);       // src/ops/loss.cpp
void add_passthrough_ops(OpRegistry& r);  // src/ops/passthrough.cpp
void add_one_hot_ops(OpRegistry& r);    // src/ops/one_hot.cpp
void add_nd_indexing_ops(OpRegistry& r);  // src/ops/nd_indexing.cpp
void add_selection_ops(OpRegistry& r);  // src/ops/selection.cpp
void add_recurrent_ops(OpRegistry& r);  // src/ops/recurrent.cpp (RNN, GRU, LSTM)
void add_optimizer_ops(OpRegistry& r);  // src/ops/optimizers.cpp (Adagrad, Adam, Momentum)
void add_spectral_ops(OpRegistry& r);   // src/ops/spectral.cpp (DFT, STFT, MelWeightMatrix, TfIdfVectorizer)
void add_host_ops(OpRegistry& r);
void add_math_ops(OpRegistry& r);    // src/ops/math_ops.cpp (calls add_einsum_op)
void add_einsum_op(OpRegistry& r);   // src/ops/einsum.cpp
void add_fused_ops(OpRegistry& r);   // src/ops/fused_ops.cpp (after add_nn_ops: reuses MatMul's inference)
void add_nn_more_ops(OpRegistry& r);  // src/ops/nn_more.cpp
void add_quantize_ops(OpRegistry& r);  // src/ops/quantize.cpp (after add_nn_ops: reuses MatMul and Conv)
void add_detection_ops(OpRegistry& r);  // src/ops/detection.cpp
void add_control_flow_ops(OpRegistry& r);  // src/ops/control_flow.cpp

// ---- schema helpers ---------------------------------------------------------------

// Registers `s` as an op of `origin`: every built-in registration says where its op comes
// from (tests/onnx/op_origin_test.cpp checks that none is left unset).
inline void add_op(OpRegistry& r, OpOrigin origin, OpSchema s) {
  s.origin = std::move(origin);
  r.add(std::move(s));
}

// A schema from its parts.
OpSchema schema(std::string name, std::string doc, std::vector<ArgSpec> in, std::vector<ArgSpec> out,
                std::vector<TypeConstraint> types, std::vector<AttrSpec> attrs, InferFn f);

// A one-input elementwise op: Y of X's type and shape, in place allowed
// (src/ops/elementwise.cpp).
OpSchema unary(std::string name, std::string doc, TypeSet types, std::vector<AttrSpec> attrs = {});

inline ArgSpec arg(std::string name, std::string type) { return {std::move(name), std::move(type), false, false}; }
inline ArgSpec opt(std::string name, std::string type) { return {std::move(name), std::move(type), true, false}; }
inline ArgSpec many(std::string name, std::string type) { return {std::move(name), std::move(type), false, true}; }

using Check = std::function<std::string(const Attribute&)>;

inline AttrSpec attr(std::string name, Attribute def, Check check = nullptr) {
  AttrSpec a;
  a.name = std::move(name);
  a.kind = def.kind();
  a.default_value = std::move(def);
  a.check = std::move(check);
  return a;
}
// An attribute with no default (absent means "not given").
inline AttrSpec attr_opt(std::string name, AttrKind kind, Check check = nullptr) {
  AttrSpec a;
  a.name = std::move(name);
  a.kind = kind;
  a.check = std::move(check);
  return a;
}
inline AttrSpec attr_req(std::string name, AttrKind kind, Check check = nullptr) {
  AttrSpec a = attr_opt(std::move(name), kind, std::move(check));
  a.required = true;
  return a;
}

Check one_of(std::vector<std::string> allowed);
Check int_at_least(std::int64_t lo);
Check int_in(std::int64_t lo, std::int64_t hi);
Check ints_at_least(std::int64_t lo);  // and at most max_attr
Check float_at_least(double lo, bool strict);

// ---- inference helpers ------------------------------------------------------------

// The axis in [0, rank) for `axis` in [-rank, rank); bad_attribute otherwise.
std::int64_t norm_axis(const InferContext& c, std::int64_t axis, std::int64_t rank, const std::string& what);

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// Attribute values are capped at `max_attr` by their checks. Extents of dims go through
// the Dim algebra (ge/shape/dim.hpp, ge/shape/window.hpp), which throws int_overflow where
// an end leaves int64; `huge` bounds the few searches that step through values (Slice).
inline constexpr std::int64_t huge = std::int64_t{1} << 62;
inline constexpr std::int64_t max_attr = std::int64_t{1} << 31;
// merge, with a message naming the node and `what`.
Dim merge_dims(const InferContext& c, const Dim& a, const Dim& b, const std::string& what);
// broadcast of shapes, with a message naming the node.
Shape broadcast_shapes(const InferContext& c, const Shape& a, const Shape& b);
/// The most dims an inferred shape may have (a guard against hostile declared sizes).
inline constexpr std::int64_t max_rank = 1024;

/// `rank` unknown dims; `bad_op_inputs` above `max_rank`.
Shape unknown_dims(std::size_t rank);
// Throws bad_op_inputs unless input i has a rank in [lo, hi] (unknown rank passes).
void require_rank(const InferContext& c, std::size_t i, std::size_t lo, std::size_t hi);
// The integer data of input i when it is a constant.
std::optional<std::vector<std::int64_t>> const_ints(const InferContext& c, std::size_t i);
// The length of a 1-D input (from its shape), when static.
std::optional<std::int64_t> static_length(const InferContext& c, std::size_t i);
// "[1,2,3]".
std::string ints_text(const std::vector<std::int64_t>& v);

}  // namespace ge::ops
