#pragma once
/// \file
/// `ge::Graph`: a model as plain data: inputs, constants, nodes, the values that flow
/// between them, and outputs.
///
/// Every tensor of the graph is a *value* with an id (`ValueId`), a unique name and a
/// description (data type and shape with ranges). A value is produced by exactly one
/// graph input, constant or node output. Nodes read values by id; an omitted optional
/// input is `no_value`. Most users build graphs with `ge::GraphBuilder`, which infers
/// every description as it goes; importers may use the low-level calls below (declare a
/// value, then add the node that produces it) and call `validate()` at the end.
///
/// ```
/// ge::Graph g;
/// auto x = g.add_input("x", ge::DataType::f32, ge::Shape::parse("1~8,16"));
/// auto y = g.declare_value("y", {ge::DataType::f32, ge::Shape::parse("1~8,16")});
/// g.add_node("relu_0", "Relu", {x}, {y});
/// g.add_output(y);
/// g.validate();   // throws ge::Error naming the node on a broken rule
/// ```

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/format.hpp"
#include "ge/shape/shape.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

class OpRegistry;

/// The id of a value: its index in `Graph::values()`.
using ValueId = std::uint32_t;
/// Marks an omitted optional node input.
inline constexpr ValueId no_value = std::numeric_limits<ValueId>::max();

/// What produces a value.
enum class ValueSource : std::uint8_t { none, input, constant, node };

/// One value: its name, description and producer.
struct GE_API ValueInfo {
  std::string name;                        ///< unique among values
  TensorDesc desc;                         ///< data type and (inferred) shape
  ValueSource source = ValueSource::none;  ///< `none` until something produces it
  std::size_t producer = 0;                ///< index into inputs(), constants() or nodes()
  std::size_t output = 0;                  ///< which output of the producing node
};

/// A graph input: name, data type, layout, shape (ranges allowed), position.
struct GE_API GraphInput {
  std::string name;                ///< as options and sessions name it
  DataType dtype = DataType::f32;  ///< element type
  Format format = Format::nd;      ///< layout (which dims are N, C, H, W)
  Shape shape;                     ///< dims may be ranges; the rank may be unknown
  std::size_t index = 0;  ///< position among the graph's inputs
  ValueId value = no_value;  ///< the value it produces
};

/// A constant: a named tensor (weights, shape tensors, scalars).
struct GE_API Constant {
  std::string name;          ///< unique among values
  Tensor tensor;             ///< the data (shared between graph copies)
  ValueId value = no_value;  ///< the value it produces
};

/// One operation.
struct GE_API Node {
  std::string name;              ///< unique among nodes
  std::string op;                ///< the op type, a name in the `OpRegistry`
  std::vector<ValueId> inputs;   ///< `no_value` for an omitted optional input
  std::vector<ValueId> outputs;  ///< the values it produces
  Attributes attrs;              ///< as set by the user (schema defaults are not stored)
};

/// A model as plain data. Copies share constant buffers. See the file comment.
class GE_API Graph {
 public:
  /// Adds a graph input and its value. Throws `Errc::duplicate_name` when a value of
  /// that name exists, `Errc::invalid_argument` for an empty name or `undefined` type.
  ValueId add_input(std::string name, DataType dtype, Shape shape, Format format = Format::nd);
  /// Adds a constant and its value. Throws as `add_input`.
  ValueId add_constant(std::string name, Tensor tensor);
  /// Declares a value that a node added later will produce (importers with forward
  /// references). Throws as `add_input`.
  ValueId declare_value(std::string name, TensorDesc desc);
  /// Adds a node reading `inputs` (ids of existing values, or `no_value`) and producing
  /// `outputs` (declared values that nothing produces yet). Returns the node's index.
  /// Throws `Errc::duplicate_name` (naming both) when a node of that name exists,
  /// `Errc::bad_graph` for an id that is not a value or an output already produced.
  /// No shape inference here: `validate()` checks the node against its schema.
  std::size_t add_node(std::string name, std::string op, std::vector<ValueId> inputs,
                       std::vector<ValueId> outputs, Attributes attrs = {});
  /// Marks a value as a graph output. Throws `Errc::bad_graph` for a bad id or a value
  /// already marked.
  void add_output(ValueId value);

  /// The graph inputs, in order.
  [[nodiscard]] const std::vector<GraphInput>& inputs() const noexcept { return inputs_; }
  /// The constants.
  [[nodiscard]] const std::vector<Constant>& constants() const noexcept { return constants_; }
  /// The nodes, in insertion order (see `topological_order()`).
  [[nodiscard]] const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// Every value, indexed by `ValueId`.
  [[nodiscard]] const std::vector<ValueInfo>& values() const noexcept { return values_; }
  /// The graph outputs, in order.
  [[nodiscard]] const std::vector<ValueId>& outputs() const noexcept { return outputs_; }
  /// The value `id`. Throws `Errc::bad_graph` for an id that is not one.
  [[nodiscard]] const ValueInfo& value(ValueId id) const;
  /// The value of that name, if any.
  [[nodiscard]] std::optional<ValueId> find_value(std::string_view name) const;
  /// The index of the node of that name, if any.
  [[nodiscard]] std::optional<std::size_t> find_node(std::string_view name) const;
  /// The constant tensor behind a value, or nullptr when it is not a constant.
  [[nodiscard]] const Tensor* constant_of(ValueId id) const noexcept;

  /// Checks every rule and throws the first broken one as `ge::Error`:
  /// - every node input is a value that an input, a constant or a node produces
  ///   (`Errc::bad_graph`, naming the node, the input's position and name, the value);
  /// - the nodes form no cycle (`Errc::bad_graph`, listing the nodes on a cycle);
  /// - each node fits its op schema: known op (`unknown_op`), input count and data types
  ///   (`bad_op_inputs`, `type_mismatch`), attributes (`bad_attribute`), and the
  ///   recorded output descriptions agree with the schema's inference (`type_mismatch`,
  ///   `incompatible_shapes`);
  /// - there is at least one output and each output is produced (`bad_graph`).
  /// Schemas come from `registry` (null: `OpRegistry::global()`).
  void validate(const OpRegistry* registry = nullptr) const;
  /// The node indices in an order where each node follows the producers of its inputs
  /// (stable: ties keep insertion order). Throws `Errc::bad_graph` on a cycle.
  [[nodiscard]] std::vector<std::size_t> topological_order() const;

 private:
  ValueId new_value(std::string name, TensorDesc desc, ValueSource source, std::size_t producer);
  [[nodiscard]] std::string describe(ValueId id) const;

  std::vector<GraphInput> inputs_;
  std::vector<Constant> constants_;
  std::vector<Node> nodes_;
  std::vector<ValueInfo> values_;
  std::vector<ValueId> outputs_;
  std::unordered_map<std::string, ValueId> value_by_name_;
  std::unordered_map<std::string, std::size_t> node_by_name_;
};

}  // namespace ge
