#pragma once
/// \file
/// `ge::GraphBuilder`: builds a `ge::Graph` in code with a fluent API that reads like the
/// model. Every step infers its output's data type and shape (over ranges) through the
/// op's schema, on the spot; a bad step throws `ge::Error` at that line, naming the node.
///
/// ```
/// ge::GraphBuilder b;
/// auto x = b.input("data", ge::DataType::f32, "1~8,3,224,224");
/// auto w = b.random_weights("conv1.w", {64, 3, 7, 7}, /*seed=*/1);
/// auto y = x.conv2d(w, {.stride = 2, .pad = 3})                  // 1~8,64,112,112
///              .batch_norm(b.full("g", {64}, 1.0), b.full("b", {64}, 0.0),
///                          b.full("m", {64}, 0.0), b.full("v", {64}, 1.0))
///              .relu()
///              .max_pool({3, 2, 1});                                 // 1~8,64,56,56
/// b.output(y);
/// ge::Graph g = b.build();                                           // validated copy
/// ```
///
/// Node names default to the op in snake case and a counter (`conv_0`, `relu_3`); the
/// `name` arguments set them. Values are handles (builder pointer and value id): cheap
/// to copy, valid as long as the builder lives.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/format.hpp"
#include "ge/core/function_ref.hpp"
#include "ge/graph/graph.hpp"
#include "ge/shape/shape.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

class GraphBuilder;
class OpRegistry;

/// Options of `Value::conv2d` (the same stride, pad and dilation on every spatial dim).
struct ConvOptions {
  std::int64_t stride = 1;            ///< on every spatial dim
  std::int64_t pad = 0;               ///< on both sides of each spatial dim
  std::int64_t dilation = 1;          ///< on every spatial dim
  std::int64_t group = 1;             ///< 1: dense; channels: depthwise
  std::string auto_pad = "NOTSET";    ///< NOTSET, SAME_UPPER, SAME_LOWER, VALID
  std::string name{};                 ///< the node's name; empty: generated
};

/// Options of `Value::max_pool` / `avg_pool`: `{3, 2, 1}` is kernel 3, stride 2, pad 1.
struct PoolOptions {
  std::int64_t kernel = 2;            ///< window extent on every spatial dim
  std::int64_t stride = 1;            ///< on every spatial dim
  std::int64_t pad = 0;               ///< on both sides of each spatial dim
  bool ceil_mode = false;             ///< round the output extent up
  bool count_include_pad = false;     ///< AveragePool only
  std::string name{};                 ///< the node's name; empty: generated
};

/// Options of `Value::gemm`.
struct GemmOptions {
  double alpha = 1.0;                 ///< scales A' * B'
  double beta = 1.0;                  ///< scales C
  bool trans_a = false;               ///< use A transposed
  bool trans_b = false;               ///< use B transposed ([N, K] weights)
  std::string name{};                 ///< the node's name; empty: generated
};

/// A handle on one value of a builder's graph, with a member per common op.
/// A default-constructed Value is "no value": an omitted optional input.
class GE_API Value {
 public:
  /// "No value".
  Value() noexcept : b_(nullptr), id_(no_value) {}
  /// A handle on value `id` of `builder`'s graph.
  Value(GraphBuilder* builder, ValueId id) noexcept : b_(builder), id_(id) {}

  /// False for "no value".
  [[nodiscard]] bool valid() const noexcept { return b_ != nullptr && id_ != no_value; }
  /// The value's id in the builder's graph.
  [[nodiscard]] ValueId id() const noexcept { return id_; }
  /// The builder. Throws `Errc::invalid_argument` for "no value".
  [[nodiscard]] GraphBuilder& builder() const;
  /// Data type and shape, as inferred.
  [[nodiscard]] const TensorDesc& desc() const;
  /// The inferred shape (ranges, maybe unknown rank).
  [[nodiscard]] const Shape& shape() const { return desc().shape; }
  /// The data type.
  [[nodiscard]] DataType dtype() const { return desc().dtype; }
  /// The value's name in the graph.
  [[nodiscard]] const std::string& name() const;

  // Neural-network ops.
  /// Conv with weights `w` [M, C/group, kH, kW] (no bias).
  [[nodiscard]] Value conv2d(Value w, const ConvOptions& o = {}) const;
  /// Conv with weights and bias [M].
  [[nodiscard]] Value conv2d(Value w, Value bias, const ConvOptions& o = {}) const;
  /// BatchNormalization (inference) over the channel dim 1.
  [[nodiscard]] Value batch_norm(Value scale, Value bias, Value mean, Value var, double epsilon = 1e-5,
                                 std::string_view name = {}) const;
  /// LayerNormalization over the dims from `axis` on.
  [[nodiscard]] Value layer_norm(Value scale, Value bias, std::int64_t axis = -1, double epsilon = 1e-5,
                                 std::string_view name = {}) const;
  /// `MaxPool` with the options on every spatial dim.
  [[nodiscard]] Value max_pool(const PoolOptions& o = {}) const;
  /// `AveragePool` with the options on every spatial dim.
  [[nodiscard]] Value avg_pool(const PoolOptions& o = {}) const;
  /// `GlobalAveragePool`: [N, C, 1, 1].
  [[nodiscard]] Value global_avg_pool(std::string_view name = {}) const;
  /// Numpy matmul (batched, broadcast).
  [[nodiscard]] Value matmul(Value w, std::string_view name = {}) const;
  /// Gemm: alpha * A' * B' + beta * C (`c` optional).
  [[nodiscard]] Value gemm(Value w, Value c = {}, const GemmOptions& o = {}) const;
  /// `Softmax` along `axis`.
  [[nodiscard]] Value softmax(std::int64_t axis = -1, std::string_view name = {}) const;
  /// `LogSoftmax` along `axis`.
  [[nodiscard]] Value log_softmax(std::int64_t axis = -1, std::string_view name = {}) const;

  // Elementwise ops.
  /// `Relu`.
  [[nodiscard]] Value relu(std::string_view name = {}) const;
  /// `Sigmoid`.
  [[nodiscard]] Value sigmoid(std::string_view name = {}) const;
  /// `Tanh`.
  [[nodiscard]] Value tanh(std::string_view name = {}) const;
  /// `Exp`.
  [[nodiscard]] Value exp(std::string_view name = {}) const;
  /// `Log`.
  [[nodiscard]] Value log(std::string_view name = {}) const;
  /// `Sqrt`.
  [[nodiscard]] Value sqrt(std::string_view name = {}) const;
  /// `Neg`.
  [[nodiscard]] Value neg(std::string_view name = {}) const;
  /// `Abs`.
  [[nodiscard]] Value abs(std::string_view name = {}) const;
  /// `Erf`.
  [[nodiscard]] Value erf(std::string_view name = {}) const;
  /// Gelu; `approximate` is `none` or `tanh`.
  [[nodiscard]] Value gelu(std::string_view approximate = "none", std::string_view name = {}) const;
  /// `HardSwish`.
  [[nodiscard]] Value hard_swish(std::string_view name = {}) const;
  /// `Identity`.
  [[nodiscard]] Value identity(std::string_view name = {}) const;
  /// `LeakyRelu` with slope `alpha`.
  [[nodiscard]] Value leaky_relu(double alpha = 0.01, std::string_view name = {}) const;
  /// Clip to [lo, hi] (scalar constants of this value's type), e.g. ReLU6: `clip(0, 6)`.
  [[nodiscard]] Value clip(double lo, double hi, std::string_view name = {}) const;
  /// `Pow`: this value to the power `exponent`.
  [[nodiscard]] Value pow(Value exponent, std::string_view name = {}) const;
  /// `Equal`: a bool tensor.
  [[nodiscard]] Value equal(Value other, std::string_view name = {}) const;
  /// `Less`: a bool tensor.
  [[nodiscard]] Value less(Value other, std::string_view name = {}) const;
  /// `Greater`: a bool tensor.
  [[nodiscard]] Value greater(Value other, std::string_view name = {}) const;
  /// `Cast` to `to`.
  [[nodiscard]] Value cast(DataType to, std::string_view name = {}) const;

  // Shape ops.
  /// Reshape to a constant shape (ONNX rules: 0 copies the input dim, -1 is inferred).
  [[nodiscard]] Value reshape(std::vector<std::int64_t> shape, std::string_view name = {}) const;
  /// `Flatten` to 2-D at `axis`.
  [[nodiscard]] Value flatten(std::int64_t axis = 1, std::string_view name = {}) const;
  /// Transpose; an empty `perm` reverses the dims.
  [[nodiscard]] Value transpose(std::vector<std::int64_t> perm = {}, std::string_view name = {}) const;
  /// Squeeze the given axes (empty: every dim that is 1).
  [[nodiscard]] Value squeeze(std::vector<std::int64_t> axes = {}, std::string_view name = {}) const;
  /// `Unsqueeze`: insert dims of 1 at `axes` (of the output).
  [[nodiscard]] Value unsqueeze(std::vector<std::int64_t> axes, std::string_view name = {}) const;
  /// Slice with constant starts/ends (and axes, steps when not empty).
  [[nodiscard]] Value slice(std::vector<std::int64_t> starts, std::vector<std::int64_t> ends,
                            std::vector<std::int64_t> axes = {}, std::vector<std::int64_t> steps = {},
                            std::string_view name = {}) const;
  /// `Gather` along `axis`.
  [[nodiscard]] Value gather(Value indices, std::int64_t axis = 0, std::string_view name = {}) const;
  /// Expand (broadcast) to a constant shape.
  [[nodiscard]] Value expand(std::vector<std::int64_t> shape, std::string_view name = {}) const;
  /// Pad with constant pads (`[x1_begin, x2_begin, ..., x1_end, x2_end, ...]`).
  [[nodiscard]] Value pad(std::vector<std::int64_t> pads, std::string_view mode = "constant", double value = 0.0,
                          std::string_view name = {}) const;
  /// Resize by constant scales, `mode` nearest or linear.
  [[nodiscard]] Value resize(std::vector<double> scales, std::string_view mode = "nearest",
                             std::string_view name = {}) const;
  /// Split into pieces of the given sizes along `axis`.
  [[nodiscard]] std::vector<Value> split(std::vector<std::int64_t> sizes, std::int64_t axis = 0,
                                         std::string_view name = {}) const;
  /// The shape as an i64 tensor.
  [[nodiscard]] Value shape_of(std::string_view name = {}) const;

  // Reductions and host ops.
  /// `ReduceMean` over `axes`.
  [[nodiscard]] Value reduce_mean(std::vector<std::int64_t> axes, bool keepdims = true, std::string_view name = {}) const;
  /// `ReduceSum` over `axes`.
  [[nodiscard]] Value reduce_sum(std::vector<std::int64_t> axes, bool keepdims = true, std::string_view name = {}) const;
  /// `ReduceMax` over `axes`.
  [[nodiscard]] Value reduce_max(std::vector<std::int64_t> axes, bool keepdims = true, std::string_view name = {}) const;
  /// `ArgMax` along `axis` (host engine): i64 indices.
  [[nodiscard]] Value argmax(std::int64_t axis = 0, bool keepdims = true, std::string_view name = {}) const;
  /// TopK with a constant k: {values, indices}.
  [[nodiscard]] std::vector<Value> topk(std::int64_t k, std::int64_t axis = -1, std::string_view name = {}) const;
  /// `NonZero` (host engine): i64 [rank, count].
  [[nodiscard]] Value nonzero(std::string_view name = {}) const;

 private:
  /// `unary`.
  [[nodiscard]] Value unary(std::string_view op, std::string_view name, Attributes attrs = {}) const;
  /// `reduce`.
  [[nodiscard]] Value reduce(std::string_view op, std::vector<std::int64_t> axes, bool keepdims,
                             std::string_view name) const;
  GraphBuilder* b_;
  ValueId id_;
};

/// Elementwise arithmetic with numpy broadcasting; a number becomes a scalar constant of
/// the other side's data type.
[[nodiscard]] GE_API Value operator+(Value a, Value b);
[[nodiscard]] GE_API Value operator-(Value a, Value b);
[[nodiscard]] GE_API Value operator*(Value a, Value b);
[[nodiscard]] GE_API Value operator/(Value a, Value b);
[[nodiscard]] GE_API Value operator+(Value a, double b);
[[nodiscard]] GE_API Value operator-(Value a, double b);
[[nodiscard]] GE_API Value operator*(Value a, double b);
[[nodiscard]] GE_API Value operator/(Value a, double b);
[[nodiscard]] GE_API Value operator+(double a, Value b);
[[nodiscard]] GE_API Value operator-(double a, Value b);
[[nodiscard]] GE_API Value operator*(double a, Value b);
/// Concat along `axis`.
[[nodiscard]] GE_API Value concat(const std::vector<Value>& parts, std::int64_t axis, std::string_view name = {});
/// Where(cond, x, y).
[[nodiscard]] GE_API Value where(Value cond, Value x, Value y, std::string_view name = {});

/// Builds a graph step by step. See the file comment. Not copyable or movable: values
/// point at it.
class GE_API GraphBuilder {
 public:
  /// A builder that looks ops up in `registry` (default: the global one).
  explicit GraphBuilder(const OpRegistry* registry = nullptr);
  GraphBuilder(const GraphBuilder&) = delete;             ///< values point at the builder
  GraphBuilder& operator=(const GraphBuilder&) = delete;  ///< values point at the builder

  /// A graph input; `shape` in the option text form (`-1,3,224,224`, `1~8,128`, `-2`).
  Value input(std::string_view name, DataType dtype, std::string_view shape, Format format = Format::nd);
  /// A graph input of a given shape.
  Value input(std::string_view name, DataType dtype, Shape shape, Format format = Format::nd);
  /// A named constant.
  Value constant(std::string_view name, Tensor tensor);
  /// A constant named `const_<n>`.
  Value constant(Tensor tensor);
  /// A scalar constant of type `dtype`.
  Value scalar(double value, DataType dtype = DataType::f32);
  /// A 1-D i64 constant (shapes, axes, pads).
  Value int64s(std::vector<std::int64_t> values);
  /// Constant f32 weights filled with `value`.
  Value full(std::string_view name, std::vector<std::int64_t> shape, double value);
  /// Seeded f32 weights, uniform in ±sqrt(6 / fan_in) (He), fan_in = the product of all
  /// dims but the first (1 for a 1-D shape).
  Value random_weights(std::string_view name, std::vector<std::int64_t> shape, std::uint64_t seed);
  /// Seeded f32 values uniform in [lo, hi).
  Value random_uniform(std::string_view name, std::vector<std::int64_t> shape, std::uint64_t seed, double lo,
                       double hi);

  /// Adds a node of any registered op and returns its first output. `inputs` may hold
  /// `Value{}` for omitted optional inputs. Throws what `infer_outputs` throws.
  Value op(std::string_view type, const std::vector<Value>& inputs, Attributes attrs = {}, std::string_view name = {});
  /// Adds a node and returns `num_outputs` outputs (0: the schema's default count).
  std::vector<Value> op_n(std::string_view type, const std::vector<Value>& inputs, Attributes attrs,
                          std::size_t num_outputs, std::string_view name = {});

  /// A subgraph's body (If's branches, Loop's body): given a builder of its own and its
  /// inputs there, builds and returns its outputs (values of that builder).
  using Body = FunctionRef<std::vector<Value>(GraphBuilder& sub, const std::vector<Value>& inputs)>;

  /// `If`: the outputs of `then_branch` where the one-element bool `cond` is true, else
  /// those of `else_branch`. Each branch gets `inputs` (values of this builder) as its
  /// inputs, in order, and must give the same number of outputs of the same types:
  /// ```
  /// auto y = b.if_(flag, {x}, [](ge::GraphBuilder&, const auto& in) { return std::vector{in[0] * 2.0}; },
  ///                [](ge::GraphBuilder&, const auto& in) { return std::vector{in[0].relu()}; })[0];
  /// ```
  std::vector<Value> if_(Value cond, const std::vector<Value>& inputs, Body then_branch, Body else_branch,
                         std::string_view name = {});
  /// `Loop`: runs `body` while the iteration is below `trip_count` (an i64 scalar; `Value{}`
  /// for none) and `cond` holds (a bool scalar; `Value{}` for none: a for loop). The body
  /// gets (iteration i64, cond bool, the carried values, then `inputs`) and returns (cond,
  /// the carried values, then scan outputs); the node gives the last carried values, then
  /// each scan output stacked over the iterations. A carried value keeps its type; its
  /// dims may change.
  std::vector<Value> loop(Value trip_count, Value cond, const std::vector<Value>& carried,
                          const std::vector<Value>& inputs, Body body, std::string_view name = {});

  /// Marks `v` as a graph output. Throws `Errc::bad_graph` when it already is one.
  void output(Value v);

  /// The graph built so far.
  [[nodiscard]] const Graph& graph() const noexcept { return graph_; }
  /// A validated copy of the graph (constants shared). Throws `Errc::bad_graph` when the
  /// graph has no output.
  [[nodiscard]] Graph build() const;

 private:
  friend class Value;
  [[nodiscard]] std::string node_name(std::string_view type, std::string_view given);
  [[nodiscard]] std::string const_name();
  void check_handle(const Value& v, std::string_view what) const;

  [[nodiscard]] Graph subgraph(std::string scope, const std::vector<TensorDesc>& inputs,
                               const std::vector<std::string>& names, Body body) const;

  const OpRegistry* registry_;
  Graph graph_;
  std::unordered_map<std::string, std::size_t> counters_;
  std::size_t const_counter_ = 0;
  std::string scope_;  // a subgraph's builder: what generated names start with
};

}  // namespace ge
