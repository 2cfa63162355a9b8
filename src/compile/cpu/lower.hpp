#pragma once
// Private: how the built-in CPU kernels are made from requests. Each op family has a
// `register_cpu_<family>(KernelRegistry&)` in its own file; `register_cpu_kernels` calls
// them all.

#include <memory>
#include <string>
#include <utility>

#include "ge/compile/kernel.hpp"

namespace ge::cpu_lower {

/// A kernel from a callable `void(inputs, outputs)` that captured what it needs.
template <class F>
class FnKernel final : public Kernel {
 public:
  FnKernel(std::string name, F f) : name_(std::move(name)), f_(std::move(f)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  void run(std::span<const TensorView> in, std::span<const TensorView> out) const override { f_(in, out); }

 private:
  std::string name_;
  F f_;
};

/// Makes a shared `FnKernel`.
template <class F>
[[nodiscard]] std::shared_ptr<const Kernel> make_kernel(std::string name, F f) {
  return std::make_shared<const FnKernel<F>>(std::move(name), std::move(f));
}

/// The view of input `i`, or null when the slot is absent or omitted.
[[nodiscard]] inline const TensorView* optional_input(std::span<const TensorView> in, std::size_t i) noexcept {
  return i < in.size() && in[i].dtype != DataType::undefined ? &in[i] : nullptr;
}

void register_cpu_elementwise(KernelRegistry& r);
void register_cpu_nn(KernelRegistry& r);

}  // namespace ge::cpu_lower
