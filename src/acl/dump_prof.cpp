// Dump (acl_dump.h) and profiling (acl_prof.h) on a CPU: GE's state rules and argument
// checks, with nothing written or collected (docs/acl.md, "Dump and profiling").
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "acl/acl_dump.h"
#include "acl/acl_internal.hpp"
#include "acl/acl_prof.h"

struct aclprofConfig {
  uint64_t data_types = 0;
  aclprofAicoreMetrics metrics = ACL_AICORE_NONE;
};

namespace {

struct DumpProfState {
  std::mutex mutex;
  bool dump_init = false;
  std::optional<std::string> args_path;  // aclopStartDumpArgs
  // Every path acldumpGetPath handed out, kept for the life of the process: a caller may
  // hold the pointer past aclopStopDumpArgs or the next aclopStartDumpArgs.
  std::set<std::string> handed_out;
  bool prof_init = false;
  const aclprofConfig* prof_started = nullptr;
};

DumpProfState& state() {
  static DumpProfState s;
  return s;
}

// A readable file that holds a JSON object (ACL_ERROR_INVALID_FILE otherwise).
void require_json_object(const char* path, const char* api) {
  std::ifstream in(path, std::ios::binary);
  acl::require(in.good(), std::string(api) + ": cannot read '" + path + "'", ACL_ERROR_INVALID_FILE);
  char ch = 0;
  while (in.get(ch) && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) {
  }
  acl::require(in && ch == '{', std::string(api) + ": '" + path + "' is not a JSON object", ACL_ERROR_INVALID_FILE);
}

}  // namespace

extern "C" {

aclError aclmdlInitDump(void) {
  return acl::guard("aclmdlInitDump", [&] {
    acl::require_initialized("aclmdlInitDump");
    std::lock_guard lock(state().mutex);
    acl::require(!state().dump_init, "dump is initialised already; call aclmdlFinalizeDump first",
                 ACL_ERROR_DUMP_ALREADY_RUN);
    state().dump_init = true;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetDump(const char* dumpCfgPath) {
  return acl::guard("aclmdlSetDump", [&] {
    acl::require_initialized("aclmdlSetDump");
    acl::require(dumpCfgPath != nullptr, "the configuration path is null");
    std::lock_guard lock(state().mutex);
    acl::require(state().dump_init, "dump is not initialised; call aclmdlInitDump first", ACL_ERROR_DUMP_NOT_RUN);
    require_json_object(dumpCfgPath, "aclmdlSetDump");
    return ACL_SUCCESS;
  });
}

aclError aclmdlFinalizeDump(void) {
  return acl::guard("aclmdlFinalizeDump", [&] {
    acl::require_initialized("aclmdlFinalizeDump");
    std::lock_guard lock(state().mutex);
    acl::require(state().dump_init, "dump is not initialised (aclmdlInitDump)", ACL_ERROR_DUMP_NOT_RUN);
    state().dump_init = false;
    return ACL_SUCCESS;
  });
}

aclError aclopStartDumpArgs(uint32_t dumpType, const char* path) {
  return acl::guard("aclopStartDumpArgs", [&] {
    acl::require(path != nullptr, "the path is null", ACL_ERROR_FAILURE);
    acl::require((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) != 0,
                 "dump type " + std::to_string(dumpType) + " lacks ACL_OP_DUMP_OP_AICORE_ARGS", ACL_ERROR_FAILURE);
    std::lock_guard lock(state().mutex);
    state().args_path = path;
    return ACL_SUCCESS;
  });
}

aclError aclopStopDumpArgs(uint32_t dumpType) {
  return acl::guard("aclopStopDumpArgs", [&] {
    acl::require((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) != 0,
                 "dump type " + std::to_string(dumpType) + " lacks ACL_OP_DUMP_OP_AICORE_ARGS", ACL_ERROR_FAILURE);
    std::lock_guard lock(state().mutex);
    state().args_path.reset();
    return ACL_SUCCESS;
  });
}

const char* acldumpGetPath(acldumpType dumpType) {
  std::lock_guard lock(state().mutex);
  if (acl::raw(dumpType) != DATA_DUMP || !state().args_path) return nullptr;
  try {
    return state().handed_out.insert(*state().args_path).first->c_str();
  } catch (...) {  // no memory: no path (a C caller gets no exception)
    return nullptr;
  }
}

aclError aclprofInit(const char* profilerResultPath, size_t length) {
  return acl::guard("aclprofInit", [&] {
    acl::require_initialized("aclprofInit");
    acl::require(profilerResultPath != nullptr, "the result path is null");
    acl::require(length > 0 && length <= 4096 && std::strlen(profilerResultPath) == length,
                 "length " + std::to_string(length) + " is not the path's length (1..4096)");
    std::lock_guard lock(state().mutex);
    acl::require(!state().prof_init, "profiling is initialised already; call aclprofFinalize first",
                 ACL_ERROR_REPEAT_INITIALIZE);
    state().prof_init = true;
    return ACL_SUCCESS;
  });
}

aclError aclprofFinalize(void) {
  return acl::guard("aclprofFinalize", [&] {
    std::lock_guard lock(state().mutex);
    acl::require(state().prof_init, "profiling is not initialised (aclprofInit)", ACL_ERROR_PROF_NOT_RUN);
    state().prof_init = false;
    state().prof_started = nullptr;
    return ACL_SUCCESS;
  });
}

aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums, aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents* aicoreEvents, uint64_t dataTypeConfig) {
  return acl::guard_value<aclprofConfig*>("aclprofCreateConfig", nullptr, [&] {
    acl::require(deviceIdList != nullptr && deviceNums > 0, "no device ids given");
    for (uint32_t i = 0; i < deviceNums; ++i)
      acl::require(deviceIdList[i] == 0, "device " + std::to_string(deviceIdList[i]) + "; ge has device 0 only");
    const int m = acl::raw(aicoreMetrics);
    acl::require((m >= ACL_AICORE_ARITHMETIC_UTILIZATION && m <= ACL_AICORE_L2_CACHE) || m == ACL_AICORE_NONE,
                 "metrics " + std::to_string(m) + " is not an aclprofAicoreMetrics");
    acl::require(aicoreEvents == nullptr, "aicoreEvents must be null");
    return new aclprofConfig{dataTypeConfig, aicoreMetrics};
  });
}

aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig) {
  return acl::guard("aclprofDestroyConfig", [&] {
    acl::require(profilerConfig != nullptr, "the configuration is null");
    std::lock_guard lock(state().mutex);
    if (state().prof_started == profilerConfig) state().prof_started = nullptr;
    delete profilerConfig;
    return ACL_SUCCESS;
  });
}

aclError aclprofStart(const aclprofConfig* profilerConfig) {
  return acl::guard("aclprofStart", [&] {
    acl::require(profilerConfig != nullptr, "the configuration is null");
    std::lock_guard lock(state().mutex);
    acl::require(state().prof_init, "profiling is not initialised (aclprofInit)", ACL_ERROR_PROF_NOT_RUN);
    acl::require(state().prof_started == nullptr, "profiling runs already; call aclprofStop first",
                 ACL_ERROR_PROF_ALREADY_RUN);
    state().prof_started = profilerConfig;
    return ACL_SUCCESS;
  });
}

aclError aclprofStop(const aclprofConfig* profilerConfig) {
  return acl::guard("aclprofStop", [&] {
    acl::require(profilerConfig != nullptr, "the configuration is null");
    std::lock_guard lock(state().mutex);
    acl::require(state().prof_init && state().prof_started != nullptr, "profiling does not run (aclprofStart)",
                 ACL_ERROR_PROF_NOT_RUN);
    state().prof_started = nullptr;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
