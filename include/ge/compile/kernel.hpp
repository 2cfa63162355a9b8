#pragma once
/// \file
/// `ge::Kernel`: one op compiled for a device, ready to run on concrete tensors; and the
/// registry of kernel implementations that compile selects from.
///
/// An implementation says which requests it fits (op, engine, data types, attributes,
/// shapes: a 1x1 convolution may pick a matrix-product kernel) and makes a kernel for
/// one. The made kernel holds everything that does not depend on the real shapes
/// (resolved attributes, weights reordered once); shape-dependent details are settled
/// per run from the views' dims, so one kernel serves every shape its request allows.
///
/// A user op registers its kernel next to its schema:
/// ```
/// ge::KernelRegistry::global().add({
///     .op = "Swish", .name = "cpu.swish", .engines = ge::engines(ge::Engine::vector),
///     .make = [](const ge::KernelRequest& r) -> std::shared_ptr<const ge::Kernel> {
///       return std::make_shared<SwishKernel>(r.context.f("beta"));
///     }});
/// ```

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/function_ref.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/ops/schema.hpp"

namespace ge {

/// What a kernel packed when it was made (weights in its own layout), as a model file
/// stores it (`ge::save`): per packed part, its numbers (dims, flags) and its buffers.
/// A kernel made again with this state (`KernelRequest::packed`) packs nothing.
struct GE_API PackedState {
  struct Part {
    std::vector<std::int64_t> numbers;
    std::vector<std::span<const std::byte>> buffers;
  };
  std::vector<Part> parts;
  std::shared_ptr<const void> owner{};  ///< keeps `buffers` alive when they are not the kernel's
};

/// One op compiled for a device. Immutable and thread-safe: many runs may use it at once.
class GE_API Kernel {
 public:
  virtual ~Kernel() = default;

  /// The implementation's name, e.g. `cpu.conv2d.gemm`.
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;

  /// Runs on concrete tensors: one view per input slot (an omitted optional input has
  /// null data and `undefined` type) and per output, with the real output dims.
  virtual void run(std::span<const TensorView> inputs, std::span<const TensorView> outputs) const = 0;

  /// True when the kernel copied constant input `input` into its own layout when it was
  /// made (packed weights) and never reads that input when it runs.
  [[nodiscard]] virtual bool captures_input(std::size_t input) const noexcept {
    (void)input;
    return false;
  }

  /// What it packed when it was made, for model files; none for kernels that pack nothing.
  /// The buffers are the kernel's: valid while it lives.
  [[nodiscard]] virtual std::optional<PackedState> packed_state() const { return std::nullopt; }

  /// True when output dims depend on input data (NonZero, TopK with a runtime k):
  /// such kernels run through `run_dynamic` instead.
  [[nodiscard]] virtual bool data_dependent() const noexcept { return false; }

  /// For data-dependent kernels: computes the outputs, asking `allocate(output, dims)`
  /// for each output's memory once its dims are known. The default throws
  /// `Errc::internal` (the kernel is not data-dependent).
  virtual void run_dynamic(std::span<const TensorView> inputs,
                           FunctionRef<void*(std::size_t output, std::span<const std::int64_t> dims)> allocate) const;
};

/// The arithmetic kernels may use (`CompileSettings::precision`, `gec --precision`).
enum class Precision : std::uint8_t {
  f32,   ///< f32 throughout (the default)
  bf16,  ///< where the CPU has AVX512-BF16 or AMX-BF16: convs and constant-weight matrix products take
         ///< bf16 operands and accumulate in f32; every value between ops stays f32, and
         ///< on other CPUs everything runs in f32
};

/// `f32` or `bf16`.
[[nodiscard]] GE_API std::string_view to_string(Precision p) noexcept;
/// Parses `f32` or `bf16`; throws `Errc::invalid_argument` for anything else.
[[nodiscard]] GE_API Precision parse_precision(std::string_view text);
/// Whether this machine runs `Precision::bf16` in bf16 (AVX512-BF16 or AMX-BF16 present and usable).
[[nodiscard]] GE_API bool bf16_supported() noexcept;
/// Whether this machine runs the convs and matrix products of quantized (QDQ) models in
/// int8 (AVX512-VNNI present and usable; `ge::quantize_products`). Elsewhere such models
/// run their quantize-dequantize pairs and products in f32, with the same values.
[[nodiscard]] GE_API bool int8_supported() noexcept;

/// What a kernel is made for: the node's inference context (schema, input descriptions
/// whose shapes may be ranges, constant inputs, attributes with defaults) and the
/// inferred outputs, on an engine, at a precision.
struct KernelRequest {
  const InferContext& context;
  std::span<const TensorDesc> outputs;
  Engine engine = Engine::vector;
  Precision precision = Precision::f32;
  /// Set when a model file is loaded: the state the kernel packed when the model was
  /// compiled, to take instead of packing the constant inputs (whose data the graph then
  /// lacks). An implementation that packs reads it with its own layout's checks.
  const PackedState* packed = nullptr;
};

/// One kernel implementation of one op.
struct GE_API KernelImpl {
  std::string op{};     ///< the op type it implements
  std::string name{};   ///< e.g. `cpu.conv2d.gemm`
  /// The engines it runs on; default both (the op's schema still says which it has).
  EngineSet engines = ge::engines(Engine::vector, Engine::host);
  int priority = 0;   ///< among the fitting ones, the highest wins
  /// Whether it fits the request (null: it fits every request of its op and engines).
  std::function<bool(const KernelRequest&)> fits{};
  /// Makes the kernel. May throw `ge::Error` for a request it cannot serve.
  std::function<std::shared_ptr<const Kernel>(const KernelRequest&)> make{};
};

/// The kernel implementations by op. `global()` holds the built-in CPU kernels; users
/// add theirs. Thread-safe.
class GE_API KernelRegistry {
 public:
  KernelRegistry();
  ~KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  /// The process-wide registry, with the built-in kernels.
  [[nodiscard]] static KernelRegistry& global();

  /// Adds an implementation. Throws `Errc::invalid_argument` for an empty op or name, a
  /// null `make`, or a name already registered for that op.
  void add(KernelImpl impl);

  /// The best implementation for the request: fitting, on its engine, highest priority
  /// (ties: the first added); nullptr when none fits.
  [[nodiscard]] std::shared_ptr<const KernelImpl> select(const KernelRequest& request) const;

  /// The implementations of an op (for listings).
  [[nodiscard]] std::vector<std::string> names(std::string_view op) const;

 private:
  struct GE_HIDDEN State;
  std::unique_ptr<State> state_;
};

/// Adds the built-in CPU kernels to a registry (the global one has them already).
GE_API void register_cpu_kernels(KernelRegistry& registry);

}  // namespace ge
