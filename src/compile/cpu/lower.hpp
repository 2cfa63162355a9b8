#pragma once
// Private: how the built-in CPU kernels are made from requests. Each op family has a
// `register_cpu_<family>(KernelRegistry&)` in its own file; `register_cpu_kernels` calls
// them all. The helpers here resolve what every family needs: error messages, axes,
// integer inputs read from constants or from views, type checks for `fits`.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/core/error.hpp"
#include "kernels/cpu/common.hpp"

namespace ge::cpu_lower {

/// The tensors of one run: one view per input slot or per output.
using Views = std::span<const TensorView>;

/// A kernel from a callable `void(inputs, outputs)` that captured what it needs.
template <class F>
class FnKernel final : public Kernel {
 public:
  FnKernel(std::string name, F f, std::uint64_t captured = 0)
      : name_(std::move(name)), f_(std::move(f)), captured_(captured) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  void run(std::span<const TensorView> in, std::span<const TensorView> out) const override { f_(in, out); }
  [[nodiscard]] bool captures_input(std::size_t input) const noexcept override {
    return input < 64 && ((captured_ >> input) & 1U) != 0;
  }

 private:
  std::string name_;
  F f_;
  std::uint64_t captured_;  // bit i: constant input i is held by the kernel, never read
};

/// Makes a shared `FnKernel`.
template <class F>
[[nodiscard]] std::shared_ptr<const Kernel> make_kernel(std::string name, F f) {
  return std::make_shared<const FnKernel<F>>(std::move(name), std::move(f));
}

/// Makes a shared `FnKernel` that holds constant inputs `captured` in its own layout
/// (packed weights) and never reads them when it runs.
template <class F>
[[nodiscard]] std::shared_ptr<const Kernel> make_kernel(std::string name, F f, std::initializer_list<std::size_t> captured) {
  std::uint64_t mask = 0;
  for (const std::size_t i : captured) mask |= std::uint64_t{1} << i;
  return std::make_shared<const FnKernel<F>>(std::move(name), std::move(f), mask);
}

/// The allocator a data-dependent kernel asks for each output's memory.
using Allocate = FunctionRef<void*(std::size_t output, std::span<const std::int64_t> dims)>;

/// A data-dependent kernel from a callable `void(inputs, allocate)`.
template <class F>
class DynKernel final : public Kernel {
 public:
  DynKernel(std::string name, F f) : name_(std::move(name)), f_(std::move(f)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  [[nodiscard]] bool data_dependent() const noexcept override { return true; }
  void run(std::span<const TensorView>, std::span<const TensorView>) const override {
    raise(Errc::internal, "[ge.compile] [" + name_ + "] a data-dependent kernel runs through run_dynamic");
  }
  void run_dynamic(std::span<const TensorView> in, Allocate allocate) const override { f_(in, allocate); }

 private:
  std::string name_;
  F f_;
};

/// Makes a shared `DynKernel`.
template <class F>
[[nodiscard]] std::shared_ptr<const Kernel> make_dynamic_kernel(std::string name, F f) {
  return std::make_shared<const DynKernel<F>>(std::move(name), std::move(f));
}

/// A kernel body: runs on views whose output dims are known.
using Body = std::function<void(std::span<const TensorView>, std::span<const TensorView>)>;

/// True when one of the input `slots` is given but not constant at compile time: the
/// output dims then depend on its data (Slice's starts, Reshape's shape, ...).
[[nodiscard]] bool runtime_data(const InferContext& c, std::initializer_list<std::size_t> slots);

/// The kernel of `body`: a plain one, or, when `runtime_data(req.context, slots)`, a
/// data-dependent one that per run infers the output dims by the op's schema with the
/// data of `slots` as constants, asks for each output's memory, then runs `body`.
[[nodiscard]] std::shared_ptr<const Kernel> make_shaped_kernel(std::string name, const KernelRequest& req,
                                                               std::initializer_list<std::size_t> slots, Body body);

/// The view of input `i`, or null when the slot is absent or omitted.
[[nodiscard]] inline const TensorView* optional_input(std::span<const TensorView> in, std::size_t i) noexcept {
  return i < in.size() && in[i].dtype != DataType::undefined ? &in[i] : nullptr;
}

/// Raises `Error(code, "[ge.compile] [<op>] <what>")`.
[[noreturn]] void fail(Errc code, std::string_view op, const std::string& what);

/// `axis` in [-rank, rank) made non-negative; `bad_attribute` naming `op` otherwise.
[[nodiscard]] std::int64_t resolve_axis(std::string_view op, std::int64_t axis, std::size_t rank);

/// The elements of an i32 or i64 view as int64 (`type_mismatch` for other types).
[[nodiscard]] std::vector<std::int64_t> read_ints(std::string_view op, const TensorView& t);
/// The same into `out` (no heap): at most `cpu::SmallDims::kMax` values (`Errc::unsupported` past it).
void read_ints(std::string_view op, const TensorView& t, cpu::SmallDims& out);

/// The elements of a f32, f64, i32 or i64 view as double.
[[nodiscard]] std::vector<double> read_doubles(std::string_view op, const TensorView& t);

/// The integer data of constant input `i`, when it is a constant.
[[nodiscard]] std::optional<std::vector<std::int64_t>> constant_ints(const InferContext& c, std::size_t i);

/// A view of a constant tensor (the tensor must outlive it).
[[nodiscard]] TensorView view_of(const Tensor& t);

/// True when input `i` is given and its type is one of `types`.
[[nodiscard]] bool input_type_in(const KernelRequest& r, std::size_t i, std::initializer_list<DataType> types);

/// The element count of a list of dims.
[[nodiscard]] std::int64_t count_of(std::span<const std::int64_t> dims) noexcept;

void register_cpu_elementwise(KernelRegistry& r);
void register_cpu_nn(KernelRegistry& r);
void register_cpu_matmul(KernelRegistry& r);
void register_cpu_norm(KernelRegistry& r);
void register_cpu_pool(KernelRegistry& r);
void register_cpu_reduce(KernelRegistry& r);
void register_cpu_indexing(KernelRegistry& r);  // indexing.cpp
void register_cpu_rearrange(KernelRegistry& r);  // rearrange.cpp
void register_cpu_loss(KernelRegistry& r);       // loss.cpp
void register_cpu_one_hot(KernelRegistry& r);    // one_hot.cpp (and Dropout, CastLike)
void register_cpu_selection(KernelRegistry& r);  // selection.cpp (and GatherND, ScatterND)
void register_cpu_quantize(KernelRegistry& r);   // quantize.cpp
void register_cpu_detection(KernelRegistry& r);  // detection.cpp
void register_cpu_control_flow(KernelRegistry& r);  // control_flow.cpp, loops.cpp (If, Loop, Scan)
void register_cpu_shape_ops(KernelRegistry& r);
void register_cpu_host(KernelRegistry& r);
void register_cpu_math(KernelRegistry& r);
void register_cpu_einsum(KernelRegistry& r);
void register_cpu_recurrent(KernelRegistry& r);  // recurrent.cpp (RNN, GRU, LSTM)
void register_cpu_optimizers(KernelRegistry& r);  // optimizers.cpp (Adagrad, Adam, Momentum)
void register_cpu_window_nd(KernelRegistry& r);  // window_nd.cpp (3-D and other-typed windows)
void register_cpu_half(KernelRegistry& r);       // half.cpp (f16/bf16 Min, Max, Mod through f32)
void register_cpu_nn_more(KernelRegistry& r);    // nn_more.cpp (BatchNormalization training, ...)
void register_cpu_spectral(KernelRegistry& r);    // spectral.cpp (DFT, STFT, MelWeightMatrix, TfIdfVectorizer)

}  // namespace ge::cpu_lower
