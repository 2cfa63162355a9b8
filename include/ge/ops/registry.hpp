#pragma once
/// \file
/// `ge::OpRegistry`: op schemas by name; `ge::infer_outputs`: the checked shape inference
/// of one node; `ge::ops_table`: the registry as data (for `gec ops`).
///
/// ```
/// const ge::OpSchema& conv = ge::OpRegistry::global().find("Conv");
/// std::vector<ge::TensorDesc> in{{ge::DataType::f32, ge::Shape::parse("1~8,3,224,224")},
///                                {ge::DataType::f32, ge::Shape{64, 3, 7, 7}}};
/// auto out = ge::infer_outputs(conv, "conv1", in, {}, {{"strides", {2, 2}}, {"pads", {3, 3, 3, 3}}});
/// // out[0]: f32[1~8,64,112,112]
/// ```

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/ops/schema.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

/// Op schemas by name. Thread-safe: lookups may run while another thread adds.
/// Schemas are never removed, so references returned by `find` stay valid.
class GE_API OpRegistry {
 public:
  /// An empty registry (tests, or a sandbox for user ops).
  OpRegistry();
  ~OpRegistry();
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  /// The process-wide registry, holding every built-in op.
  [[nodiscard]] static OpRegistry& global();
  /// An empty registry holding the built-in ops.
  [[nodiscard]] static std::unique_ptr<OpRegistry> with_builtin_ops();

  /// Adds a schema. Throws `Errc::duplicate_name` when the name is taken,
  /// `Errc::invalid_argument` when the schema is malformed (empty name, no infer
  /// function, an unknown type name, a variadic or optional arg out of place, an origin
  /// whose domain or opsets do not fit its kind).
  void add(OpSchema schema);
  /// The schema of `name`. Throws `Errc::unknown_op` with the nearest known name.
  [[nodiscard]] const OpSchema& find(std::string_view name) const;
  /// The schema of `name`, or nullptr.
  [[nodiscard]] const OpSchema* try_find(std::string_view name) const noexcept;
  /// Every name, sorted.
  [[nodiscard]] std::vector<std::string> names() const;

 private:
  struct GE_HIDDEN State;
  std::unique_ptr<State> state_;
};

/// Infers one node's outputs after the generic checks, each throwing `ge::Error` with
/// `[ge.ops] [<Op>] node '<node>': ...`:
/// - input count within the schema's (`bad_op_inputs`), required inputs given;
/// - each input's data type allowed, and inputs of one type variable agree (`type_mismatch`);
/// - attribute names known (`bad_attribute`, with the nearest name), kinds right (ints
///   widen to floats), required ones set, checks passed;
/// - then the schema's own rule (`bad_op_inputs`, `incompatible_dims`, `bad_attribute`...).
/// `constants[i]` is input i's data when it is a constant (may be shorter than `inputs`).
/// Returns `num_outputs` descriptions (0: the required outputs, or all for a variadic op).
[[nodiscard]] GE_API std::vector<TensorDesc> infer_outputs(const OpSchema& schema, std::string_view node,
                                                           std::span<const TensorDesc> inputs,
                                                           std::span<const Tensor* const> constants,
                                                           const Attributes& attrs, std::size_t num_outputs = 0);

/// One attribute in `ops_table()`.
struct GE_API OpAttrInfo {
  std::string name;
  std::string kind;           ///< `int`, `floats`, ...
  std::string default_value;  ///< the default as text; empty when required or none
  bool required = false;
};
/// One op in `ops_table()`.
struct GE_API OpInfo {
  std::string name;
  std::string doc;
  std::vector<std::string> inputs;   ///< `X: T`, `B?: T`, `inputs...: T`
  std::vector<std::string> outputs;
  std::vector<std::string> types;    ///< `T: f32|f16|bf16|f64`
  std::vector<OpAttrInfo> attrs;
  std::string engines;               ///< `vector`, `host`, `vector|host`
  std::vector<std::string> in_place; ///< `Y <- X`
  std::string origin;                ///< `onnx 13`, `onnx 13..17`, `onnx ai.onnx.preview.training 1`, `internal`, `unset` (`OpOrigin::to_string`)
};

/// Every schema of a registry as data, sorted by name.
[[nodiscard]] GE_API std::vector<OpInfo> ops_table(const OpRegistry& registry = OpRegistry::global());

}  // namespace ge
