#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "ge/compile/kernel.hpp"
#include "ge/core/error.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge {

std::string_view to_string(Precision p) noexcept { return p == Precision::bf16 ? "bf16" : "f32"; }

Precision parse_precision(std::string_view text) {
  if (text == "f32") return Precision::f32;
  if (text == "bf16") return Precision::bf16;
  raise(Errc::invalid_argument, "[ge.compile] precision '" + std::string(text) + "' is neither 'f32' nor 'bf16'");
}

bool bf16_supported() noexcept { return cpu::bf16_usable(); }
bool int8_supported() noexcept { return cpu::int8_usable(); }

void Kernel::run_dynamic(std::span<const TensorView>,
                         FunctionRef<void*(std::size_t, std::span<const std::int64_t>)>) const {
  raise(Errc::internal, "[ge.compile] kernel '" + std::string(name()) + "' has no data-dependent run");
}

struct KernelRegistry::State {
  mutable std::shared_mutex mutex;
  std::unordered_map<std::string, std::vector<std::shared_ptr<const KernelImpl>>> by_op;
};

KernelRegistry::KernelRegistry() : state_(std::make_unique<State>()) {}
KernelRegistry::~KernelRegistry() = default;

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();  // never destroyed: kernels may outlive static destruction order
    register_cpu_kernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::add(KernelImpl impl) {
  if (impl.op.empty() || impl.name.empty())
    raise(Errc::invalid_argument, "[ge.compile] kernel registry: an implementation needs an op and a name");
  if (!impl.make)
    raise(Errc::invalid_argument, "[ge.compile] kernel registry: implementation '" + impl.name + "' of op '" + impl.op +
                                      "' has no make function");
  std::unique_lock lock(state_->mutex);
  auto& list = state_->by_op[impl.op];
  for (const auto& k : list)
    if (k->name == impl.name)
      raise(Errc::invalid_argument, "[ge.compile] kernel registry: op '" + impl.op + "' already has an implementation '" +
                                        impl.name + "'; expected a new name");
  list.push_back(std::make_shared<const KernelImpl>(std::move(impl)));
}

std::shared_ptr<const KernelImpl> KernelRegistry::select(const KernelRequest& request) const {
  std::shared_lock lock(state_->mutex);
  const auto it = state_->by_op.find(request.context.schema().name);
  if (it == state_->by_op.end()) return nullptr;
  std::shared_ptr<const KernelImpl> best;
  for (const auto& k : it->second) {
    if (!k->engines.has(request.engine)) continue;
    if (k->fits && !k->fits(request)) continue;
    if (best == nullptr || k->priority > best->priority) best = k;
  }
  return best;
}

std::vector<std::string> KernelRegistry::names(std::string_view op) const {
  std::shared_lock lock(state_->mutex);
  std::vector<std::string> out;
  const auto it = state_->by_op.find(std::string(op));
  if (it != state_->by_op.end())
    for (const auto& k : it->second) out.push_back(k->name);
  return out;
}

}  // namespace ge
