// Kernels of the caller's (GE: TIK/CCE binaries chosen by a registered compile
// function): the registrations are kept and the caller's compile function runs
// (aclopUpdateParams), but no NPU binary can run on a CPU (docs/acl.md, "Kernels of the
// caller's").
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "acl/acl_internal.hpp"


/// What a compile function chose: a kernel, its block dim, argument bytes, workspaces.
struct aclopKernelDesc {
  std::string kernel_id;
  uint32_t block_dim = 0;
  std::vector<std::byte> args;
  std::vector<size_t> workspace_sizes;
};

namespace {

struct Kernel {
  std::string name;
  void* bin = nullptr;
  size_t size = 0;
  aclDataDeallocator deallocator = nullptr;
};

struct KernelRegistry {
  std::mutex mutex;
  std::map<std::string, aclopCompileFunc> compile_funcs;          // by op type
  std::map<std::pair<std::string, std::string>, Kernel> kernels;  // by (op type, kernel id)
  std::map<std::string, aclopKernelDesc> chosen;                  // the last choice per op type

  ~KernelRegistry() {
    for (auto& [key, k] : kernels)
      if (k.deallocator != nullptr) k.deallocator(k.bin, k.size);
  }
};

KernelRegistry& registry() {
  static KernelRegistry r;
  return r;
}

void require_op_type(const char* op_type) {
  acl::require(op_type != nullptr && *op_type != '\0', "the op type is null or empty");
}

}  // namespace

extern "C" {

aclError aclopRegisterCompileFunc(const char* opType, aclopCompileFunc func) {
  return acl::guard("aclopRegisterCompileFunc", [&] {
    require_op_type(opType);
    acl::require(func != nullptr, "the compile function is null");
    KernelRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    acl::require(r.compile_funcs.emplace(opType, func).second,
                 std::string("op type '") + opType + "' has a compile function already (aclopUnregisterCompileFunc)",
                 ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED);
    return ACL_SUCCESS;
  });
}

aclError aclopUnregisterCompileFunc(const char* opType) {
  return acl::guard("aclopUnregisterCompileFunc", [&] {
    require_op_type(opType);
    KernelRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    acl::require(r.compile_funcs.erase(opType) == 1, std::string("op type '") + opType + "' has no compile function",
                 ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED);
    r.chosen.erase(opType);
    return ACL_SUCCESS;
  });
}

aclError aclopCreateKernel(const char* opType, const char* kernelId, const char* kernelName, void* binData,
                           int binSize, aclopEngineType enginetype, aclDataDeallocator deallocator) {
  return acl::guard("aclopCreateKernel", [&] {
    require_op_type(opType);
    acl::require(kernelId != nullptr && *kernelId != '\0', "the kernel id is null or empty");
    acl::require(kernelName != nullptr && *kernelName != '\0', "the kernel name is null or empty");
    acl::require(binData != nullptr && binSize > 0, "the kernel binary is null or has size " + std::to_string(binSize));
    const int e = acl::raw(enginetype);
    acl::require(e >= ACL_ENGINE_SYS && e <= ACL_ENGINE_VECTOR, "engine type " + std::to_string(e) +
                                                                    " is not an aclopEngineType");
    KernelRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    const bool added =
        r.kernels.try_emplace({opType, kernelId}, Kernel{kernelName, binData, static_cast<size_t>(binSize), deallocator})
            .second;
    acl::require(added, std::string("kernel '") + kernelId + "' of op type '" + opType + "' exists already",
                 ACL_ERROR_KERNEL_ALREADY_REGISTERED);
    return ACL_SUCCESS;
  });
}

aclError aclopSetKernelArgs(aclopKernelDesc* kernelDesc, const char* kernelId, uint32_t blockDim, const void* args,
                            uint32_t argSize) {
  return acl::guard("aclopSetKernelArgs", [&] {
    acl::require(kernelDesc != nullptr, "the kernel description is null");
    acl::require(kernelId != nullptr && *kernelId != '\0', "the kernel id is null or empty");
    acl::require(args != nullptr || argSize == 0, "the arguments are null with argSize " + std::to_string(argSize));
    kernelDesc->kernel_id = kernelId;
    kernelDesc->block_dim = blockDim;
    const auto* p = static_cast<const std::byte*>(args);
    kernelDesc->args.assign(p, p + argSize);
    return ACL_SUCCESS;
  });
}

aclError aclopSetKernelWorkspaceSizes(aclopKernelDesc* kernelDesc, int numWorkspaces, size_t* workspaceSizes) {
  return acl::guard("aclopSetKernelWorkspaceSizes", [&] {
    acl::require(kernelDesc != nullptr, "the kernel description is null");
    acl::require(numWorkspaces >= 0, "numWorkspaces is " + std::to_string(numWorkspaces) + "; expected >= 0");
    acl::require(numWorkspaces == 0 || workspaceSizes != nullptr, "the workspace sizes are null");
    kernelDesc->workspace_sizes.assign(workspaceSizes, workspaceSizes + numWorkspaces);
    return ACL_SUCCESS;
  });
}

aclError aclopUpdateParams(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,
                           const aclTensorDesc* const outputDesc[], const aclopAttr* attr) {
  return acl::guard("aclopUpdateParams", [&] {
    acl::require_initialized("aclopUpdateParams");
    require_op_type(opType);
    for (const auto& [count, descs, what] : {std::tuple{numInputs, inputDesc, "input"},
                                             std::tuple{numOutputs, outputDesc, "output"}}) {
      acl::require(count >= 0, std::string("the number of ") + what + "s is " + std::to_string(count));
      acl::require(count == 0 || descs != nullptr, std::string("the ") + what + " descriptions are null");
      for (int i = 0; i < count; ++i)
        acl::require(descs[i] != nullptr, std::string(what) + " " + std::to_string(i) + "'s description is null");
    }
    aclopCompileFunc func = nullptr;
    {
      KernelRegistry& r = registry();
      std::lock_guard lock(r.mutex);
      const auto it = r.compile_funcs.find(opType);
      acl::require(it != r.compile_funcs.end(), std::string("op type '") + opType +
                                                    "' has no compile function (aclopRegisterCompileFunc)",
                   ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED);
      func = it->second;
    }
    aclopKernelDesc chosen;
    const aclError status = func(numInputs, inputDesc, numOutputs, outputDesc, attr, &chosen);
    acl::require(status == ACL_SUCCESS, std::string("the compile function of '") + opType + "' returned " +
                                            std::to_string(status), status);
    KernelRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    acl::require(r.kernels.count({opType, chosen.kernel_id}) == 1,
                 std::string("the compile function of '") + opType + "' chose kernel '" + chosen.kernel_id +
                     "', which aclopCreateKernel did not create",
                 ACL_ERROR_KERNEL_NOT_FOUND);
    r.chosen[opType] = std::move(chosen);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
