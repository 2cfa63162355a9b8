// The model calls GE added late: the first static AIPP of an input, the op of a failed
// device task, execution configurations and aclmdlExecute[Async]V2 (docs/acl.md, "Models").
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_internal.hpp"

namespace {
// What aclmdlGetFirstAippInfo returns for an input without AIPP, as GE does (GE's docs
// deprecate ACL_ERROR_NOT_STATIC_AIPP, 100038, for it).
constexpr auto ge_aipp_not_exist = static_cast<aclError>(ACL_ERROR_GE_AIPP_NOT_EXIST);
}  // namespace

/// The options of an execution configuration, their bytes by option.
struct aclmdlExecConfigHandle {
  std::map<int, std::vector<std::byte>> options;
};

namespace {

// The value size each option takes (GE: int32 timeouts and priority, a pointer, size_ts).
size_t option_size(int attr) {
  switch (attr) {
    case ACL_MDL_STREAM_SYNC_TIMEOUT:
    case ACL_MDL_EVENT_SYNC_TIMEOUT:
    case ACL_MDL_EXEC_PRIORITY_INT32:
    case ACL_MDL_NPU_PERF_MODE: return sizeof(int32_t);
    case ACL_MDL_WORK_ADDR_PTR: return sizeof(void*);
    case ACL_MDL_WORK_SIZET:
    case ACL_MDL_MPAIMID_SIZET:
    case ACL_MDL_AICQOS_SIZET:
    case ACL_MDL_AICOST_SIZET:
    case ACL_MDL_MEC_TIMETHR_SIZET: return sizeof(size_t);
  }
  throw acl::CallError(ACL_ERROR_INVALID_PARAM, "[acl] option " + std::to_string(attr) + " is not an aclmdlExecConfigAttr");
}

}  // namespace

extern "C" {

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo* aippInfo) {
  return acl::guard("aclmdlGetFirstAippInfo", [&] {
    acl::require(aippInfo != nullptr, "aippInfo is null");
    aclmdlInputAippType type = ACL_DATA_WITHOUT_AIPP;
    size_t attached = 0;
    const aclError e = aclmdlGetAippType(modelId, index, &type, &attached);  // the model and index checked
    if (e != ACL_SUCCESS) throw acl::CallError(e, std::string("[acl] ") + aclGetRecentErrMsg());
    throw acl::CallError(ge_aipp_not_exist, "[acl] input " + std::to_string(index) + " of model " +
                                                        std::to_string(modelId) +
                                                        " has no static AIPP (ge compiles no AIPP into a model)");
    return ACL_SUCCESS;
  });
}

aclError aclmdlCreateAndGetOpDesc(uint32_t deviceId, uint32_t streamId, uint32_t taskId, char* opName,
                                  size_t opNameLen, aclTensorDesc** inputDesc, size_t* numInputs,
                                  aclTensorDesc** outputDesc, size_t* numOutputs) {
  return acl::guard("aclmdlCreateAndGetOpDesc", [&] {
    acl::require(opName != nullptr && opNameLen > 0 && inputDesc != nullptr && numInputs != nullptr &&
                     outputDesc != nullptr && numOutputs != nullptr,
                 "opName (with opNameLen > 0), inputDesc, numInputs, outputDesc or numOutputs is null");
    throw acl::CallError(ACL_ERROR_INVALID_PARAM,
                         "[acl] no task " + std::to_string(taskId) + " of stream " + std::to_string(streamId) +
                             " on device " + std::to_string(deviceId) +
                             " failed: ge runs models on the CPU, with no device tasks");
    return ACL_SUCCESS;
  });
}

aclmdlExecConfigHandle* aclmdlCreateExecConfigHandle(void) {
  return acl::guard_value<aclmdlExecConfigHandle*>("aclmdlCreateExecConfigHandle", nullptr,
                                                   [] { return new aclmdlExecConfigHandle; });
}

aclError aclmdlDestroyExecConfigHandle(const aclmdlExecConfigHandle* handle) {
  return acl::guard("aclmdlDestroyExecConfigHandle", [&] {
    acl::require(handle != nullptr, "the handle is null");
    delete handle;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetExecConfigOpt(aclmdlExecConfigHandle* handle, aclmdlExecConfigAttr attr, const void* attrValue,
                                size_t valueSize) {
  return acl::guard("aclmdlSetExecConfigOpt", [&] {
    acl::require(handle != nullptr && attrValue != nullptr, "the handle or the value is null");
    const int a = acl::raw(attr);
    const size_t size = option_size(a);
    acl::require(valueSize == size, "option " + std::to_string(a) + " takes " + std::to_string(size) +
                                        " bytes; valueSize is " + std::to_string(valueSize));
    const auto* p = static_cast<const std::byte*>(attrValue);
    handle->options[a].assign(p, p + size);
    return ACL_SUCCESS;
  });
}

aclError aclmdlExecuteV2(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream,
                         const aclmdlExecConfigHandle*) {
  return aclmdlExecuteAsync(modelId, input, output, stream);  // the run is done on return (docs/acl.md)
}

aclError aclmdlExecuteAsyncV2(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream,
                              const aclmdlExecConfigHandle*) {
  return aclmdlExecuteAsync(modelId, input, output, stream);
}

}  // extern "C"
