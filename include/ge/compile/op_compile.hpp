#pragma once
/// \file
/// Single-op compile (GE-REFERENCE.md §1, `aclopCompile`) and execution.
///
/// `compile_op` looks an op up by type, checks the descriptions against its schema,
/// infers the outputs, selects a kernel for the engine and keeps it in a thread-safe,
/// bounded cache: an equal request later is a hit, not a second compile. `execute_op`
/// (`ge/runtime/execute_op.hpp`) runs a compiled op on the CPU device after checking the
/// real tensors against what was compiled.
///
/// ```
/// using ge::OpTensor;
/// auto op = ge::compile_op("Add",
///     {OpTensor{ge::DataType::f32, ge::Shape::parse("-1,16")},   // -1: any batch
///      OpTensor{ge::DataType::f32, ge::Shape{16}}},
///     {OpTensor{ge::DataType::f32, ge::Shape::parse("-1,16")}});
/// ge::execute_op(*op, {a_view, b_view}, {y_view});   // y_view's dims: op->output_dims({a_view, b_view})[0]
/// ```
///
/// Rules (each broken one is a `ge::Error`):
/// - the target offers single-op compile (`unsupported`);
/// - the op type is registered (`unknown_op`); `op_path` is empty (`invalid_argument`:
///   the kernel path is reserved);
/// - `num_inputs`/`num_outputs`, when given (>= 0), equal the descriptions' counts, and
///   the counts fit the schema (`bad_op_inputs`);
/// - a description's dims may be `-1` with a range (`lo~hi`) or exactly `-2` (unknown
///   rank); an unused optional input is `OpTensor::undefined()` (type and format
///   UNDEFINED, no dims), anything else UNDEFINED is `bad_op_inputs`;
/// - an input marked constant carries its data, which must match its description and
///   must be the same at execution (`const_mismatch`);
/// - the engine: `system` lets the library choose (the vector engine when the op has it);
///   `vector` or `host` must be among the op's engines (`engine_unsupported`);
/// - `fuzzy` generalises every non-constant input dim to `-1` (rank kept) before the
///   cache lookup, so later shapes of the same rank reuse the kernel; `exact` keys on the
///   shapes as given;
/// - the outputs given must agree with the inferred ones (`type_mismatch`,
///   `incompatible_shapes`); a kernel must exist (`no_kernel`).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/core/api.hpp"
#include "ge/core/format.hpp"
#include "ge/core/lru_cache.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/options/target.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

/// A tensor description of single-op compile: type, shape (ranges, unknown rank),
/// format, and the data of a constant input.
struct GE_API OpTensor {
  DataType dtype = DataType::undefined;
  Shape shape{};
  Format format = Format::nd;
  std::optional<Tensor> constant{};  ///< set: the input is constant with this data

  /// The description of an unused optional input.
  [[nodiscard]] static OpTensor undefined() { return {DataType::undefined, Shape{}, Format::undefined, std::nullopt}; }
  /// A constant input: its data and the matching description.
  [[nodiscard]] static OpTensor constant_of(Tensor data, Format format = Format::nd);
  [[nodiscard]] bool is_undefined() const noexcept { return dtype == DataType::undefined; }
};

/// Which engine runs the op (`aclopEngineType`).
enum class EngineChoice : std::uint8_t { system, vector, host };
/// How to compile (`aclopCompileType`).
enum class CompileFlag : std::uint8_t {
  exact,  ///< for the shapes given
  fuzzy,  ///< for every shape of the same rank (generalised dims)
};

/// A compiled op: what it was compiled for and its kernel. Immutable, shareable.
struct GE_API CompiledOp {
  std::string op_type;
  std::string key;                  ///< the cache key
  Engine engine = Engine::vector;
  CompileFlag flag = CompileFlag::exact;
  std::vector<OpTensor> inputs;     ///< as compiled (generalised when fuzzy)
  std::vector<TensorDesc> outputs;  ///< inferred for the compiled inputs
  Attributes attrs;                 ///< as given (defaults are the schema's)
  std::shared_ptr<const Kernel> kernel;
  Precision precision = Precision::f32;  ///< the arithmetic it was compiled for

  /// The dims of each output for these real inputs (checked as `execute_op` checks them),
  /// so that a caller can size its output views: exact, or for an op whose output dims
  /// depend on the data (NonZero, ...) the largest they can be. Throws `ge::Error` for bad
  /// inputs, and `Errc::unbounded` when such an output has no upper bound.
  [[nodiscard]] std::vector<std::vector<std::int64_t>> output_dims(std::span<const TensorView> inputs) const;
};

/// A request, field by field as `aclopCompile` takes it.
struct GE_API OpCompileRequest {
  std::string op_type{};
  std::vector<OpTensor> inputs{};
  std::vector<OpTensor> outputs{};
  Attributes attrs{};
  EngineChoice engine = EngineChoice::system;
  CompileFlag flag = CompileFlag::exact;
  int num_inputs = -1;   ///< when >= 0, must equal `inputs.size()`
  int num_outputs = -1;  ///< when >= 0, must equal `outputs.size()`
  std::string op_path{};  ///< reserved: must be empty
  /// The target compiled for (null: `default_target()`); it must offer single-op
  /// compile (not Ascend 950PR/950DT, not IPV350), else `Errc::unsupported`.
  const Target* target = nullptr;
  /// The arithmetic the kernel may use (a ge extension; part of the cache key).
  Precision precision = Precision::f32;
  /// A model file's packed weights for the kernel (`KernelRequest::packed`; used by
  /// `ge::load_compiled`). Not part of the cache key: give it to a compiler of its own.
  const PackedState* packed = nullptr;
};

/// A single-op compiler with its kernel cache. The process has a global one behind the
/// free functions; tests and embedders may make their own.
class GE_API OpCompiler {
 public:
  /// A compiler whose cache holds at most `capacity` kernels (default 20000).
  explicit OpCompiler(std::size_t capacity = 20000);

  /// The process-wide compiler.
  [[nodiscard]] static OpCompiler& global();

  /// Compiles (or finds in the cache) one op. See the file comment for the rules.
  [[nodiscard]] std::shared_ptr<const CompiledOp> compile(const OpCompileRequest& request);

  /// The compiled op that serves `request` at execution, or null: the most recently used
  /// one of the same op type, precision and attributes (schema defaults filled on both
  /// sides), with as many inputs and outputs, each input of the same type and format,
  /// undefined where it is undefined, constant with equal data where it is constant, and
  /// with a compiled shape that holds the requested one (ranges, `-1`, `-2`, fuzzy
  /// compiles); outputs of the same types. `request.engine` other than `system` must be
  /// the op's engine. With `ignore_constant_data`, constant inputs match whatever their
  /// data (to tell "changed constant" from "never compiled"). Compiles nothing; throws
  /// `unknown_op` for an op type with no schema.
  [[nodiscard]] std::shared_ptr<const CompiledOp> find(const OpCompileRequest& request,
                                                       bool ignore_constant_data = false);

  /// The cache's counters (hits, misses, evictions, size, capacity).
  [[nodiscard]] CacheStats stats() const { return cache_.stats(); }
  /// Changes the cache's limit.
  void set_capacity(std::size_t capacity) { cache_.set_capacity(capacity); }
  /// Empties the cache.
  void clear() { cache_.clear(); }

 private:
  LruCache<CompiledOp> cache_;
};

/// `OpCompiler::global().compile(...)` with the arguments of `aclopCompile`.
[[nodiscard]] GE_API std::shared_ptr<const CompiledOp> compile_op(
    std::string_view op_type, std::vector<OpTensor> inputs, std::vector<OpTensor> outputs, Attributes attrs = {},
    EngineChoice engine = EngineChoice::system, CompileFlag flag = CompileFlag::exact, const char* op_path = nullptr);

}  // namespace ge
