// aclmdl*: loading compiled model files (ge::load_compiled) from a path or from memory,
// with ge's memory or the caller's (the arena of the runs in workPtr through
// ge::SessionOptions::arena, the weights section copied into weightPtr), the sizes the
// caller's memory must have (aclmdlQuerySize), descriptions of files not loaded, and
// unloading (src/acl/mdl.hpp; docs/acl.md "Models").
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "acl/mdl.hpp"
#include "ge/compile/model_file.hpp"

// What aclmdlSetConfigOpt set, read by aclmdlLoadWithConfig.
struct aclmdlConfigHandle {
  std::size_t load_type = 0;  // 0: not set
  const char* path = nullptr;
  const void* model = nullptr;
  std::size_t model_size = 0;
  void* work = nullptr;
  std::size_t work_size = 0;
  void* weight = nullptr;
  std::size_t weight_size = 0;
};

namespace {

using acl::require;

// A model file's bytes: a path or the caller's memory.
struct Source {
  const char* path = nullptr;
  std::span<const std::byte> bytes{};
};

Source file_source(const char* api, const char* path) {
  require(path != nullptr, std::string(api) + ": the model path is null");
  return {path, {}};
}

Source memory_source(const char* api, const void* model, std::size_t size) {
  require(model != nullptr, std::string(api) + ": the model pointer is null");
  require(size > 0, std::string(api) + ": the model size is 0");
  return {nullptr, {static_cast<const std::byte*>(model), size}};
}

// Runs `f`, turning "the file cannot be opened" into ACL_ERROR_INVALID_FILE (GE's code
// for a path that is no readable file); the other load errors keep their mapping.
template <class F>
auto opening(F&& f) {
  try {
    return f();
  } catch (const ge::Error& e) {
    if (e.code() == ge::Errc::bad_model && std::string_view(e.what()).find("cannot open") != std::string_view::npos)
      throw acl::CallError(ACL_ERROR_INVALID_FILE, e.what());
    throw;
  }
}

// The model of `src`; with `weights` (non-empty), its weights copied there.
std::shared_ptr<const ge::CompiledModel> load(const Source& src, std::span<std::byte> weights, bool callers_weights) {
  return opening([&] {
    if (src.path != nullptr)
      return callers_weights ? ge::load_compiled(src.path, weights) : ge::load_compiled(src.path);
    return callers_weights ? ge::load_compiled(src.bytes, weights) : ge::load_compiled(src.bytes);
  });
}

std::int64_t weights_bytes(const Source& src) {
  return opening([&] { return src.path != nullptr ? ge::model_weights_bytes(src.path) : ge::model_weights_bytes(src.bytes); });
}

// The work memory a model needs from its caller: the arena of its largest plan.
std::size_t work_bytes(const char* api, const ge::CompiledModel& m) {
  require(!m.plans_per_signature(),
          std::string(api) + ": the model's inputs have dims without an upper bound, so its work memory depends on "
                             "each run's shapes; load it with aclmdlLoadFromFile / aclmdlLoadFromMem (ge's memory)",
          ACL_ERROR_FEATURE_UNSUPPORTED);
  return static_cast<std::size_t>(m.arena_bytes());
}

// A size as the queries give it: whole 64-byte blocks, at least one, so that a program
// can pass it to aclrtMalloc (which refuses 0 bytes) for a model that needs none.
std::size_t blocks(std::size_t bytes) { return std::max<std::size_t>(64, (bytes + 63) / 64 * 64); }

void query(const char* api, const Source& src, size_t* workSize, size_t* weightSize) {
  require(workSize != nullptr && weightSize != nullptr, std::string(api) + ": workSize or weightSize is null");
  const std::int64_t weights = weights_bytes(src);
  const auto model = load(src, {}, false);
  *workSize = blocks(work_bytes(api, *model));
  *weightSize = blocks(static_cast<std::size_t>(weights));
}

// Loads `src` with the caller's memory where given (null pointers: ge's own).
aclError load_with_memory(const char* api, const Source& src, uint32_t* modelId, void* workPtr, size_t workSize,
                          void* weightPtr, size_t weightSize) {
  acl::require_initialized(api);
  require(modelId != nullptr, std::string(api) + ": the model id pointer is null");
  if (weightPtr != nullptr) {
    const auto need = static_cast<std::size_t>(weights_bytes(src));
    require(weightSize >= need, std::string(api) + ": weightSize is " + std::to_string(weightSize) +
                                    " bytes; the model's weights need " + std::to_string(need) + " (aclmdlQuerySize)");
  }
  const auto model = load(src, {static_cast<std::byte*>(weightPtr), weightPtr ? weightSize : 0}, weightPtr != nullptr);
  ge::SessionOptions options;
  if (workPtr != nullptr) {
    const std::size_t need = work_bytes(api, *model);
    require(workSize >= need, std::string(api) + ": workSize is " + std::to_string(workSize) +
                                  " bytes; the model's work memory needs " + std::to_string(need) + " (aclmdlQuerySize)");
    options.arena = {static_cast<std::byte*>(workPtr), workSize};
  }
  *modelId = acl::add_model(model, std::move(options));
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  return acl::guard("aclmdlLoadFromFile", [&] {
    acl::require_initialized("aclmdlLoadFromFile");
    require(modelId != nullptr, "aclmdlLoadFromFile: the model id pointer is null");
    *modelId = acl::add_model(load(file_source("aclmdlLoadFromFile", modelPath), {}, false));
    return ACL_SUCCESS;
  });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize, uint32_t* modelId) {
  return acl::guard("aclmdlLoadFromMem", [&] {
    acl::require_initialized("aclmdlLoadFromMem");
    const Source src = memory_source("aclmdlLoadFromMem", model, modelSize);
    require(modelId != nullptr, "aclmdlLoadFromMem: the model id pointer is null");
    *modelId = acl::add_model(load(src, {}, false));
    return ACL_SUCCESS;
  });
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize) {
  return acl::guard("aclmdlQuerySize", [&] {
    query("aclmdlQuerySize", file_source("aclmdlQuerySize", fileName), workSize, weightSize);
    return ACL_SUCCESS;
  });
}

aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize, size_t* workSize, size_t* weightSize) {
  return acl::guard("aclmdlQuerySizeFromMem", [&] {
    query("aclmdlQuerySizeFromMem", memory_source("aclmdlQuerySizeFromMem", model, modelSize), workSize, weightSize);
    return ACL_SUCCESS;
  });
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId, void* workPtr, size_t workSize,
                                   void* weightPtr, size_t weightSize) {
  return acl::guard("aclmdlLoadFromFileWithMem", [&] {
    return load_with_memory("aclmdlLoadFromFileWithMem", file_source("aclmdlLoadFromFileWithMem", modelPath), modelId,
                            workPtr, workSize, weightPtr, weightSize);
  });
}

aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize, uint32_t* modelId, void* workPtr,
                                  size_t workSize, void* weightPtr, size_t weightSize) {
  return acl::guard("aclmdlLoadFromMemWithMem", [&] {
    return load_with_memory("aclmdlLoadFromMemWithMem", memory_source("aclmdlLoadFromMemWithMem", model, modelSize),
                            modelId, workPtr, workSize, weightPtr, weightSize);
  });
}

aclmdlConfigHandle* aclmdlCreateConfigHandle(void) {
  return acl::guard_value<aclmdlConfigHandle*>("aclmdlCreateConfigHandle", nullptr, [] { return new aclmdlConfigHandle(); });
}

aclError aclmdlDestroyConfigHandle(aclmdlConfigHandle* handle) {
  return acl::guard("aclmdlDestroyConfigHandle", [&] {
    require(handle != nullptr, "aclmdlDestroyConfigHandle: the handle is null");
    delete handle;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetConfigOpt(aclmdlConfigHandle* handle, aclmdlConfigAttr attr, const void* attrValue, size_t valueSize) {
  return acl::guard("aclmdlSetConfigOpt", [&] {
    const int a = acl::raw(attr);
    require(handle != nullptr && attrValue != nullptr, "aclmdlSetConfigOpt: the handle or the value pointer is null");
    const auto value = [&]<class T>(T* out) {
      require(valueSize == sizeof(T), "aclmdlSetConfigOpt: attribute " + std::to_string(a) + " takes " +
                                          std::to_string(sizeof(T)) + " bytes; valueSize is " + std::to_string(valueSize));
      std::memcpy(out, attrValue, sizeof(T));
    };
    switch (a) {
      case ACL_MDL_PRIORITY_INT32: {  // one process, one CPU: every model runs alike
        std::int32_t priority = 0;
        value(&priority);
        break;
      }
      case ACL_MDL_LOAD_TYPE_SIZET: {
        std::size_t t = 0;
        value(&t);
        require(t >= ACL_MDL_LOAD_FROM_FILE && t <= ACL_MDL_LOAD_FROM_MEM_WITH_Q,
                "aclmdlSetConfigOpt: load type " + std::to_string(t) + " is no ACL_MDL_LOAD_FROM_* value");
        require(t <= ACL_MDL_LOAD_FROM_MEM_WITH_MEM, "aclmdlSetConfigOpt: load type " + std::to_string(t) +
                                                         " loads with queues, which ge does not have",
                ACL_ERROR_FEATURE_UNSUPPORTED);
        handle->load_type = t;
        break;
      }
      case ACL_MDL_PATH_PTR: value(&handle->path); break;
      case ACL_MDL_MEM_ADDR_PTR: value(&handle->model); break;
      case ACL_MDL_MEM_SIZET: value(&handle->model_size); break;
      case ACL_MDL_WEIGHT_ADDR_PTR: value(&handle->weight); break;
      case ACL_MDL_WEIGHT_SIZET: value(&handle->weight_size); break;
      case ACL_MDL_WORKSPACE_ADDR_PTR: value(&handle->work); break;
      case ACL_MDL_WORKSPACE_SIZET: value(&handle->work_size); break;
      default:
        require(a >= 0 && a <= ACL_NPU_PERF_MODE, "aclmdlSetConfigOpt: attribute " + std::to_string(a) + " is no aclmdlConfigAttr");
        require(false, "aclmdlSetConfigOpt: attribute " + std::to_string(a) +
                           " (queues, separate weight files, task and kernel memory of the NPU) has nothing to set in ge",
                ACL_ERROR_FEATURE_UNSUPPORTED);
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlLoadWithConfig(const aclmdlConfigHandle* handle, uint32_t* modelId) {
  return acl::guard("aclmdlLoadWithConfig", [&] {
    const char* api = "aclmdlLoadWithConfig";
    require(handle != nullptr, "aclmdlLoadWithConfig: the handle is null");
    require(handle->load_type != 0, "aclmdlLoadWithConfig: no ACL_MDL_LOAD_TYPE_SIZET was set");
    const bool from_file = handle->load_type == ACL_MDL_LOAD_FROM_FILE || handle->load_type == ACL_MDL_LOAD_FROM_FILE_WITH_MEM;
    const bool with_mem = handle->load_type == ACL_MDL_LOAD_FROM_FILE_WITH_MEM || handle->load_type == ACL_MDL_LOAD_FROM_MEM_WITH_MEM;
    const Source src = from_file ? file_source(api, handle->path) : memory_source(api, handle->model, handle->model_size);
    return load_with_memory(api, src, modelId, with_mem ? handle->work : nullptr, handle->work_size,
                            with_mem ? handle->weight : nullptr, handle->weight_size);
  });
}

aclError aclmdlGetDescFromFile(aclmdlDesc* modelDesc, const char* modelPath) {
  return acl::guard("aclmdlGetDescFromFile", [&] {
    require(modelDesc != nullptr, "aclmdlGetDescFromFile: the description is null");
    modelDesc->loaded = acl::described(load(file_source("aclmdlGetDescFromFile", modelPath), {}, false));
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDescFromMem(aclmdlDesc* modelDesc, const void* model, size_t modelSize) {
  return acl::guard("aclmdlGetDescFromMem", [&] {
    require(modelDesc != nullptr, "aclmdlGetDescFromMem: the description is null");
    modelDesc->loaded = acl::described(load(memory_source("aclmdlGetDescFromMem", model, modelSize), {}, false));
    return ACL_SUCCESS;
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  return acl::guard("aclmdlUnload", [&] {
    require(acl::remove_model(modelId), "aclmdlUnload: no model is loaded with id " + std::to_string(modelId),
            ACL_ERROR_INVALID_MODEL_ID);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
