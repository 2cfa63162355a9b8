// The process calls (aclInit, aclFinalize), the error mapping and the guard's support:
// the last error message per thread, and ge::Errc onto aclError (docs/acl.md, "Errors").
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "acl/acl_internal.hpp"
#include "acl/mdl.hpp"
#include "acl/op_model.hpp"

namespace acl {

namespace {

std::mutex init_mutex;
std::atomic<bool> init_done{false};
bool finalized = false;  // aclFinalize ran and no aclInit since (guarded by init_mutex)
thread_local std::string last_error;

}  // namespace

void require(bool ok, const std::string& message, aclError code) {
  if (!ok) throw CallError(code, "[acl] " + message);
}

bool initialized() noexcept { return init_done.load(std::memory_order_acquire); }

void require_initialized(std::string_view api) {
  if (!initialized())
    throw CallError(ACL_ERROR_UNINITIALIZE, "[acl] " + std::string(api) + " before aclInit; call aclInit first");
}

aclError to_acl_error(ge::Errc code) noexcept {
  using ge::Errc;
  switch (code) {
    case Errc::ok: return ACL_SUCCESS;
    case Errc::internal: return ACL_ERROR_INTERNAL_ERROR;
    case Errc::unsupported:
    case Errc::ranges_unsupported:
    case Errc::gears_unsupported:
    case Errc::ac_parallel_unsupported: return ACL_ERROR_FEATURE_UNSUPPORTED;
    case Errc::unknown_op:
    case Errc::unsupported_op:
    case Errc::engine_unsupported: return ACL_ERROR_OP_NOT_FOUND;
    case Errc::bad_attribute: return ACL_ERROR_OP_ATTR_NOT_MATCH;
    case Errc::bad_op_inputs:
    case Errc::incompatible_dims:
    case Errc::incompatible_shapes:
    case Errc::rank_mismatch:
    case Errc::unknown_rank:
    case Errc::not_static:
    case Errc::out_of_range:
    case Errc::const_mismatch: return ACL_ERROR_OP_INPUT_NOT_MATCH;
    case Errc::type_mismatch: return ACL_ERROR_UNSUPPORTED_DATA_TYPE;
    case Errc::no_kernel: return ACL_ERROR_OP_LOAD_FAILED;
    case Errc::unbounded: return ACL_ERROR_OP_UNSUPPORTED_DYNAMIC;
    case Errc::out_of_memory: return ACL_ERROR_BAD_ALLOC;
    case Errc::bad_model: return ACL_ERROR_PARSE_MODEL;
    case Errc::no_matching_gear: return ACL_ERROR_MODEL_INPUT_NOT_MATCH;
    case Errc::bad_graph: return ACL_ERROR_GE_FAILURE;
    default: return ACL_ERROR_INVALID_PARAM;  // the remaining codes are bad arguments and option text
  }
}

void record_error(std::string_view api, std::string_view message) noexcept {
  try {
    last_error.assign(api);
    last_error += ": ";
    last_error += message;
  } catch (...) {
    last_error.clear();  // out of memory for the message: no message
  }
}

aclError& last_error_code() noexcept {
  thread_local aclError code = ACL_SUCCESS;
  return code;
}

namespace {

aclError exception_error(std::string_view api) noexcept {
  try {
    throw;
  } catch (const CallError& e) {
    record_error(api, e.what());
    return e.code();
  } catch (const ge::Error& e) {
    record_error(api, e.what());
    return to_acl_error(e.code());
  } catch (const std::bad_alloc&) {
    record_error(api, "out of memory");
    return ACL_ERROR_BAD_ALLOC;
  } catch (const std::length_error& e) {  // a container asked for more than it can hold
    record_error(api, std::string("out of memory: ") + e.what());
    return ACL_ERROR_BAD_ALLOC;
  } catch (const std::exception& e) {
    record_error(api, e.what());
    return ACL_ERROR_FAILURE;
  } catch (...) {
    record_error(api, "unknown failure");
    return ACL_ERROR_FAILURE;
  }
}

}  // namespace

aclError current_exception_error(std::string_view api) noexcept {
  const aclError code = exception_error(api);
  last_error_code() = code;
  return code;
}

namespace {

// A configuration file must be readable and empty or a JSON object; its keys are not used.
void check_config(const char* path) {
  std::ifstream in(path, std::ios::binary);
  require(in.good(), std::string("aclInit: cannot read the configuration file '") + path + "'", ACL_ERROR_INVALID_FILE);
  char ch = 0;
  while (in.get(ch) && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) {
  }
  require(!in || ch == '{', std::string("aclInit: the configuration file '") + path + "' is not a JSON object",
          ACL_ERROR_INVALID_FILE);
}

}  // namespace

}  // namespace acl

extern "C" {

aclError aclInit(const char* configPath) {
  return acl::guard("aclInit", [&] {
    std::lock_guard lock(acl::init_mutex);
    acl::require(!acl::initialized(), "aclInit: already initialised; call aclFinalize first",
                 ACL_ERROR_REPEAT_INITIALIZE);
    if (configPath != nullptr && configPath[0] != '\0') acl::check_config(configPath);  // "": no configuration, as GE
    acl::finalized = false;
    acl::init_done.store(true, std::memory_order_release);
    return ACL_SUCCESS;
  });
}

aclError aclFinalize(void) {
  return acl::guard("aclFinalize", [&] {
    std::lock_guard lock(acl::init_mutex);
    acl::require(!acl::finalized, "aclFinalize: finalized already; call aclInit first", ACL_ERROR_REPEAT_FINALIZE);
    acl::require_initialized("aclFinalize");
    // Not initialised from here on: a call on another thread meanwhile is
    // ACL_ERROR_UNINITIALIZE, and makes nothing that would outlive this finalize.
    acl::init_done.store(false, std::memory_order_release);
    acl::release_models();
    acl::release_runtime();
    acl::op_compiler().clear();
    acl::restore_op_models();  // loaded op models outlive aclFinalize, as GE's
    acl::finalized = true;
    return ACL_SUCCESS;
  });
}

const char* aclGetRecentErrMsg(void) { return acl::last_error.c_str(); }

void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line, const char* fmt, ...) {
  const int level = acl::raw(logLevel);
  const char* env = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  const int threshold = env != nullptr && env[0] >= '0' && env[0] <= '3' && env[1] == '\0' ? env[0] - '0' : ACL_ERROR;
  if (fmt == nullptr || level < threshold || level > ACL_ERROR) return;
  static constexpr const char* names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
  char text[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  std::fprintf(stderr, "[%s] %s:%u %s: %s\n", names[level], file != nullptr ? file : "?", line,
               func != nullptr ? func : "?", text);
}

}  // extern "C"
