#pragma once
/// \file
/// `ge::OpSchema`: the contract of one op type: inputs, outputs, type constraints,
/// attributes with defaults and checks, the engines that can run it, which outputs may
/// reuse an input's memory, and shape inference over `ge::Shape` (ranges, unknown rank).
///
/// Semantics follow the ONNX operator specification (opsets 13 to 17): same names,
/// attribute names and defaults, so that ONNX models map one to one. A schema also says
/// where its op comes from (`OpOrigin`): an ONNX op of a domain from some opset on, or
/// ge's own op made by its passes; the ONNX importer and exporter read that, not lists of
/// their own. Kernels are not part of a schema: the compile layer registers them per
/// (op name, device, data type) and looks the schema up by the same name.
///
/// A user op, registered from user code:
/// ```
/// ge::OpSchema s;
/// s.name = "Swish";
/// s.inputs = {{"X", "T"}};
/// s.outputs = {{"Y", "T"}};
/// s.types = {{"T", ge::TypeSet::floats()}};
/// s.attrs = {{.name = "beta", .kind = ge::AttrKind::floating, .default_value = 1.0}};
/// s.in_place = {{0, 0}};
/// s.infer = [](const ge::InferContext& c) { return std::vector{c.input(0)}; };
/// ge::OpRegistry::global().add(std::move(s));
/// ```

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

/// A set of data types (a bit per `DataType`).
class GE_API TypeSet {
 public:
  /// The empty set.
  constexpr TypeSet() noexcept = default;
  /// The types listed, e.g. `{DataType::i32, DataType::i64}`.
  constexpr TypeSet(std::initializer_list<DataType> types) noexcept {
    for (DataType t : types) bits_ |= bit(t);
  }
  /// f32, f16, bf16, f64.
  [[nodiscard]] static constexpr TypeSet floats() noexcept { return {DataType::f32, DataType::f16, DataType::bf16, DataType::f64}; }
  /// The signed and unsigned integers.
  [[nodiscard]] static constexpr TypeSet integers() noexcept {
    return {DataType::i8, DataType::i16, DataType::i32, DataType::i64,
            DataType::u8, DataType::u16, DataType::u32, DataType::u64};
  }
  /// Floats and integers.
  [[nodiscard]] static constexpr TypeSet numeric() noexcept { return floats() | integers(); }
  /// Every type but `undefined`.
  [[nodiscard]] static constexpr TypeSet all() noexcept { return numeric() | TypeSet{DataType::boolean}; }
  /// i32, i64: index and shape tensors.
  [[nodiscard]] static constexpr TypeSet indices() noexcept { return {DataType::i32, DataType::i64}; }

  /// True when `t` is a member.
  [[nodiscard]] constexpr bool contains(DataType t) const noexcept { return (bits_ & bit(t)) != 0; }
  /// The union.
  friend constexpr TypeSet operator|(TypeSet a, TypeSet b) noexcept {
    TypeSet r;
    r.bits_ = a.bits_ | b.bits_;
    return r;
  }
  /// Same members.
  friend constexpr bool operator==(TypeSet, TypeSet) noexcept = default;
  /// The members as text: `f32|f16|bf16|f64`.
  [[nodiscard]] std::string to_string() const;

 private:
  static constexpr std::uint32_t bit(DataType t) noexcept { return std::uint32_t{1} << static_cast<unsigned>(t); }
  std::uint32_t bits_ = 0;
};

/// A named type variable (`T`), as ONNX writes it: every input and output of that
/// constraint has one data type, taken from the set.
struct GE_API TypeConstraint {
  std::string name{};  ///< e.g. `T`
  TypeSet allowed{};   ///< the types it may take
};

/// One input or output of an op.
struct GE_API ArgSpec {
  std::string name{};        ///< e.g. `X`, `W`, `B`
  std::string type{};        ///< a `TypeConstraint` name (`T`) or a data type name (`i64`)
  bool optional = false;     ///< may be omitted (`no_value`), only after the required ones
  bool variadic = false;     ///< the last one only: repeats (Concat's inputs, Split's outputs)
  /// A variadic one only: each repeat may have its own type of the constraint (ONNX's
  /// heterogeneous arguments: If's and Loop's values); else all repeats share one.
  bool heterogeneous = false;
};

/// One attribute of an op.
struct GE_API AttrSpec {
  std::string name{};                        ///< e.g. `group`
  AttrKind kind = AttrKind::integer;         ///< values of other kinds convert or are refused
  std::optional<Attribute> default_value{};  ///< used when the node does not set it
  bool required = false;                   ///< a node must set it
  /// Returns an empty string when the value is fine, else what was expected
  /// (e.g. "a value >= 1"). Null: any value of the kind.
  std::function<std::string(const Attribute&)> check{};
};

/// The engines that can run an op.
enum class Engine : std::uint8_t {
  vector = 1,  ///< the device's vector/compute engine
  host = 2,    ///< the host CPU engine (ops whose output shape depends on the data)
};
/// A set of engines, as bits of `Engine`.
struct GE_API EngineSet {
  std::uint8_t bits = static_cast<std::uint8_t>(Engine::vector);  ///< default: the vector engine only
  /// True when `e` is in the set.
  [[nodiscard]] constexpr bool has(Engine e) const noexcept { return (bits & static_cast<std::uint8_t>(e)) != 0; }
  /// `vector`, `host` or `vector|host`.
  [[nodiscard]] std::string to_string() const;
};
/// The set of one engine.
[[nodiscard]] constexpr EngineSet engines(Engine a) noexcept { return {static_cast<std::uint8_t>(a)}; }
/// The set of two engines.
[[nodiscard]] constexpr EngineSet engines(Engine a, Engine b) noexcept {
  return {static_cast<std::uint8_t>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b))};
}

/// Output `output` may be written over input `input`'s memory when both have the same
/// data type and byte size (the memory planner checks that; the schema only allows it).
/// Indices count a node's inputs: past a variadic last argument they name its repeats.
struct InPlace {
  std::size_t output = 0;  ///< output index
  std::size_t input = 0;   ///< input index
};

struct OpSchema;

/// What shape inference sees of one node: input descriptions, constant input data,
/// attributes (defaults filled in), and the node's name for messages.
class GE_API InferContext {
 public:
  /// A context over caller-owned data (`infer_outputs` builds it; tests may too).
  InferContext(const OpSchema& schema, std::string_view node, std::span<const TensorDesc> inputs,
               std::span<const Tensor* const> constants, const Attributes& attrs, std::size_t num_outputs)
      : schema_(schema), node_(node), inputs_(inputs), constants_(constants), attrs_(attrs), num_outputs_(num_outputs) {}

  /// The schema being applied.
  [[nodiscard]] const OpSchema& schema() const noexcept { return schema_; }
  /// The node's name.
  [[nodiscard]] std::string_view node() const noexcept { return node_; }
  /// The number of input slots given (omitted optional ones included).
  [[nodiscard]] std::size_t input_count() const noexcept { return inputs_.size(); }
  /// True when input `i` is given (not omitted).
  [[nodiscard]] bool has_input(std::size_t i) const noexcept {
    return i < inputs_.size() && inputs_[i].dtype != DataType::undefined;
  }
  /// Input `i`'s description (the caller checked that it is given).
  [[nodiscard]] const TensorDesc& input(std::size_t i) const { return inputs_[i]; }
  /// Input `i`'s shape.
  [[nodiscard]] const Shape& shape(std::size_t i) const { return inputs_[i].shape; }
  /// Input `i`'s constant data, or nullptr when it is not a constant.
  [[nodiscard]] const Tensor* constant(std::size_t i) const noexcept {
    return i < constants_.size() ? constants_[i] : nullptr;
  }
  /// Outputs asked for by the node (0: the schema's default).
  [[nodiscard]] std::size_t num_outputs() const noexcept { return num_outputs_; }
  /// The node's attributes (set and defaulted).
  [[nodiscard]] const Attributes& attrs() const noexcept { return attrs_; }

  /// True when the attribute is set or has a default.
  [[nodiscard]] bool has(std::string_view name) const { return attrs_.find(name) != attrs_.end(); }
  /// The attribute (set or default). Throws `Errc::bad_attribute` when neither.
  [[nodiscard]] const Attribute& attr(std::string_view name) const;
  /// An int attribute (set or default).
  [[nodiscard]] std::int64_t i(std::string_view name) const { return attr(name).as_int(); }
  /// A float attribute (set or default).
  [[nodiscard]] double f(std::string_view name) const { return attr(name).as_float(); }
  /// A string attribute (set or default).
  [[nodiscard]] const std::string& s(std::string_view name) const { return attr(name).as_string(); }
  /// A list of ints; empty when the attribute is neither set nor defaulted.
  [[nodiscard]] std::vector<std::int64_t> ints(std::string_view name) const;

  /// Throws `Error(code, "[ge.ops] [<Op>] node '<node>': <what>")`.
  [[noreturn]] void fail(Errc code, const std::string& what) const;
  /// The name of input `i` in messages: `input 1 (W)`.
  [[nodiscard]] std::string input_name(std::size_t i) const;

 private:
  const OpSchema& schema_;
  std::string_view node_;
  std::span<const TensorDesc> inputs_;
  std::span<const Tensor* const> constants_;
  const Attributes& attrs_;
  std::size_t num_outputs_;
};

/// Shape and type inference: the descriptions of every output the node has (optional
/// trailing outputs included), from a context whose inputs and attributes have passed
/// the generic checks of `infer_outputs`.
using InferFn = std::function<std::vector<TensorDesc>(const InferContext&)>;

/// The domain of ONNX's training ops (ge has its optimizers Adagrad, Adam, Momentum).
inline constexpr std::string_view onnx_training_domain = "ai.onnx.preview.training";

/// Where an op comes from: what the ONNX importer takes for it and the exporter writes.
struct GE_API OpOrigin {
  enum class Kind : std::uint8_t {
    unset,     ///< not declared (a user op): imported from the default domain, never exported
    onnx,      ///< an ONNX op of `domain`
    internal,  ///< ge's own op, made by its passes: neither imported nor exported
  };
  Kind kind = Kind::unset;
  /// `onnx` only: "" for the default domain (`ai.onnx`), else e.g. `onnx_training_domain`.
  std::string domain{};
  /// `onnx` only: the first version of `domain` whose form of the op the schema follows
  /// (13 for the default domain's older ops: ge's schemas follow opset 13's spellings and
  /// the importer rewrites older ones); the exporter writes the op at that version or later.
  std::int64_t since = 0;
  /// `onnx` only: the last version of `domain` ge reads the op at; none: every later one.
  std::optional<std::int64_t> until{};

  /// True for an ONNX op of `domain` ("" and `ai.onnx` both name the default domain).
  [[nodiscard]] bool onnx_of(std::string_view d) const noexcept {
    return kind == Kind::onnx && (domain == d || (domain.empty() && d == "ai.onnx"));
  }
  /// True for ge's own ops.
  [[nodiscard]] bool internal() const noexcept { return kind == Kind::internal; }
  /// `onnx 13`, `onnx 13..17`, `onnx ai.onnx.preview.training 1`, `internal` or `unset`.
  [[nodiscard]] std::string to_string() const;
  /// Same origin.
  friend bool operator==(const OpOrigin&, const OpOrigin&) = default;
};
/// An ONNX op of the default domain, as ge reads it from opset `since` (to `until`).
[[nodiscard]] GE_API OpOrigin onnx_op(std::int64_t since, std::optional<std::int64_t> until = std::nullopt);
/// An ONNX op of another domain (e.g. `onnx_training_domain`), from its version `since`.
[[nodiscard]] GE_API OpOrigin onnx_op(std::string_view domain, std::int64_t since);
/// ge's own op, made by its passes (FusedConv, FusedMatMul, ...).
[[nodiscard]] GE_API OpOrigin internal_op();

/// The contract of one op type. See the file comment.
struct GE_API OpSchema {
  std::string name;                    ///< the op type, e.g. `Conv`
  std::string doc;                     ///< one line for `gec ops`
  std::vector<ArgSpec> inputs;         ///< in order; optional ones after the required ones
  std::vector<ArgSpec> outputs;        ///< in order; optional ones last
  std::vector<TypeConstraint> types;   ///< the type variables the args name
  std::vector<AttrSpec> attrs;         ///< every attribute a node may set
  EngineSet engines;                   ///< default: the vector engine
  std::vector<InPlace> in_place;       ///< outputs that may reuse an input's memory
  InferFn infer;                       ///< the shape and type rule
  /// An ONNX op (domain, opsets) or ge's own (FusedConv, FusedMatMul, ...: the importer
  /// refuses a node of that type and the exporter cannot write one). Every built-in op
  /// declares it; a user op may leave it unset.
  OpOrigin origin;

  /// `given` plus the default of every attribute it does not set: the attributes as the
  /// op's rule and its kernels read them (the one place defaults are filled in).
  [[nodiscard]] Attributes with_defaults(const Attributes& given) const;
  /// Attribute `name` as a node setting `given` has it: given, else the default; none
  /// when neither.
  [[nodiscard]] std::optional<Attribute> attr(const Attributes& given, std::string_view name) const;
};

}  // namespace ge
