#pragma once
// Private to src/acl: the loaded models of the aclmdl* calls (mdl_load.cpp: load, query,
// unload; mdl.cpp: describe, datasets; mdl_exec.cpp: gears and execution), over
// ge::load_compiled and ge::Session.
//
// The C API's view of a model: its graph inputs in order, then, for a model built with
// gears, one more input named ACL_DYNAMIC_TENSOR_NAME whose buffer holds the chosen
// gear's values as int64s (the aclmdlSetDynamic* calls write them); its graph outputs.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl_internal.hpp"
#include "ge/compile/compile.hpp"
#include "ge/runtime/session.hpp"

namespace acl {

// A model loaded by aclmdlLoadFromFile / LoadFromMem[WithMem] (or only described, by
// aclmdlGetDescFromFile / FromMem: no session).
struct LoadedModel {
  std::shared_ptr<const ge::CompiledModel> model;
  std::unique_ptr<ge::Session> session;    // over the caller's work memory when it gave one
  std::mutex run;                          // one aclmdlExecute at a time per model
  bool unloaded = false;                   // under `run`: aclmdlUnload waited for the run in progress
  std::vector<std::vector<std::int64_t>> current_output_dims;  // of the last run (or the largest gear)
};

// Registers a model (its session with `options`: the caller's arena); its id.
[[nodiscard]] std::uint32_t add_model(std::shared_ptr<const ge::CompiledModel> model, ge::SessionOptions options = {});
// A model's description without a session (aclmdlGetDescFromFile / FromMem).
[[nodiscard]] std::shared_ptr<LoadedModel> described(std::shared_ptr<const ge::CompiledModel> model);
// The model of `id`; ACL_ERROR_INVALID_MODEL_ID when there is none.
[[nodiscard]] std::shared_ptr<LoadedModel> find_model(std::uint32_t id, const char* api);
// Removes it, once the run in progress (if any) has ended: a run that found it before
// and starts after sees `unloaded`, so the caller's work memory is free on return.
// False when there was none.
bool remove_model(std::uint32_t id);
// Unloads every model (aclFinalize).
void release_models() noexcept;

// Whether the model has the extra gear input, and how many values a gear has.
[[nodiscard]] bool has_gear_input(const ge::CompiledModel& m) noexcept;
[[nodiscard]] std::size_t gear_values(const ge::CompiledModel& m) noexcept;
// The plan of the largest gear (most elements over all inputs).
[[nodiscard]] std::int32_t largest_gear(const ge::CompiledModel& m) noexcept;
// The output dims of gear `g`'s plan.
[[nodiscard]] std::vector<std::vector<std::int64_t>> gear_output_dims(const ge::CompiledModel& m, std::int32_t g);

// The acl format of a ge layout.
[[nodiscard]] inline aclFormat acl_format(ge::Format f) noexcept {
  switch (f) {
    case ge::Format::nchw: return ACL_FORMAT_NCHW;
    case ge::Format::nhwc: return ACL_FORMAT_NHWC;
    case ge::Format::nd: return ACL_FORMAT_ND;
    default: return ACL_FORMAT_UNDEFINED;
  }
}

}  // namespace acl

// What aclmdlGetDesc fills: a snapshot of the model.
struct aclmdlDesc {
  std::shared_ptr<acl::LoadedModel> loaded;
};

// Buffers in order (not owned), the real descriptions set per input (ranges), the gear
// chosen by aclmdlSetDynamic*, and after a run the outputs' real descriptions.
struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
  std::vector<std::unique_ptr<aclTensorDesc>> descs;  // per index; null: none set
  std::optional<std::vector<std::int64_t>> gear;      // the values of the gear chosen
  std::optional<std::uint32_t> gear_model;            // the model the gear was chosen for
};
