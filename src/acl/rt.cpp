// The runtime minimum: device 0 (the CPU), streams, and device and host memory (both
// plain host memory here, tracked so that a bad free is an error, not a crash).
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "acl/acl_internal.hpp"

namespace acl {

namespace {

// A stream: work on it runs at once, so it holds nothing but its identity.
struct Stream {
  int device = 0;
};

constexpr std::size_t alignment = 64;

struct Runtime {
  std::mutex mutex;
  int device_refs = 0;
  std::map<const void*, std::unique_ptr<Stream>> streams;
  std::set<void*> device_memory;
  std::set<void*> host_memory;
};

Runtime& runtime() {
  static Runtime r;
  return r;
}

void require_device(int32_t id) {
  require(id == 0, "device " + std::to_string(id) + " does not exist; device 0 (the CPU) is the only one");
}

void* allocate(std::size_t size) {
  require(size > 0, "size 0; expected at least one byte");
  const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  require(p != nullptr, "no memory for " + std::to_string(size) + " bytes", ACL_ERROR_BAD_ALLOC);
  return p;
}

aclError malloc_into(std::string_view api, void** ptr, std::size_t size, std::set<void*> Runtime::*pool) {
  return guard(api, [&] {
    require_initialized(api);
    require(ptr != nullptr, "the pointer to store the address in is null");
    void* p = allocate(size);
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    (r.*pool).insert(p);
    *ptr = p;
    return ACL_SUCCESS;
  });
}

aclError free_from(std::string_view api, void* ptr, std::set<void*> Runtime::*pool) {
  return guard(api, [&] {
    require_initialized(api);
    require(ptr != nullptr, "the address is null");
    Runtime& r = runtime();
    std::lock_guard lock(r.mutex);
    const auto erased = (r.*pool).erase(ptr);
    require(erased == 1, "the address was not allocated by the matching malloc call (or was freed already)");
    std::free(ptr);
    return ACL_SUCCESS;
  });
}

}  // namespace

void require_stream(aclrtStream stream, std::string_view api) {
  if (stream == nullptr) return;
  Runtime& r = runtime();
  std::lock_guard lock(r.mutex);
  require(r.streams.count(stream) == 1, std::string(api) + ": the stream was not made by aclrtCreateStream or is destroyed");
}

void release_runtime() noexcept {
  Runtime& r = runtime();
  std::lock_guard lock(r.mutex);
  r.streams.clear();
  r.device_refs = 0;
  // Memory stays: the caller owns it until aclrtFree, which aclFinalize does not do for it.
}

}  // namespace acl

extern "C" {

aclError aclrtSetDevice(int32_t deviceId) {
  return acl::guard("aclrtSetDevice", [&] {
    acl::require_initialized("aclrtSetDevice");
    acl::require_device(deviceId);
    std::lock_guard lock(acl::runtime().mutex);
    ++acl::runtime().device_refs;
    return ACL_SUCCESS;
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return acl::guard("aclrtResetDevice", [&] {
    acl::require_initialized("aclrtResetDevice");
    acl::require_device(deviceId);
    std::lock_guard lock(acl::runtime().mutex);
    acl::require(acl::runtime().device_refs > 0, "device 0 was not set (aclrtSetDevice)");
    --acl::runtime().device_refs;
    return ACL_SUCCESS;
  });
}

aclError aclrtCreateStream(aclrtStream* stream) {
  return acl::guard("aclrtCreateStream", [&] {
    acl::require_initialized("aclrtCreateStream");
    acl::require(stream != nullptr, "the pointer to store the stream in is null");
    auto s = std::make_unique<acl::Stream>();
    void* id = s.get();
    std::lock_guard lock(acl::runtime().mutex);
    acl::runtime().streams.emplace(id, std::move(s));
    *stream = id;
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return acl::guard("aclrtSynchronizeStream", [&] {
    acl::require_initialized("aclrtSynchronizeStream");
    acl::require_stream(stream, "aclrtSynchronizeStream");
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return acl::guard("aclrtDestroyStream", [&] {
    acl::require_initialized("aclrtDestroyStream");
    acl::require(stream != nullptr, "the stream is null");
    std::lock_guard lock(acl::runtime().mutex);
    acl::require(acl::runtime().streams.erase(stream) == 1, "the stream was not made by aclrtCreateStream or is destroyed");
    return ACL_SUCCESS;
  });
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const int p = acl::raw(policy);
  if (p < ACL_MEM_MALLOC_HUGE_FIRST ||
      (p > ACL_MEM_MALLOC_NORMAL_ONLY_P2P && p != ACL_MEM_TYPE_LOW_BAND_WIDTH && p != ACL_MEM_TYPE_HIGH_BAND_WIDTH)) {
    acl::record_error("aclrtMalloc", "policy " + std::to_string(p) + " is not an aclrtMemMallocPolicy");
    return ACL_ERROR_INVALID_PARAM;
  }
  return acl::malloc_into("aclrtMalloc", devPtr, size, &acl::Runtime::device_memory);
}

aclError aclrtFree(void* devPtr) { return acl::free_from("aclrtFree", devPtr, &acl::Runtime::device_memory); }

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return acl::malloc_into("aclrtMallocHost", hostPtr, size, &acl::Runtime::host_memory);
}

aclError aclrtFreeHost(void* hostPtr) { return acl::free_from("aclrtFreeHost", hostPtr, &acl::Runtime::host_memory); }

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return acl::guard("aclrtMemcpy", [&] {
    acl::require_initialized("aclrtMemcpy");
    acl::require(dst != nullptr && src != nullptr, "the destination or the source is null");
    const int k = acl::raw(kind);
    acl::require(k >= ACL_MEMCPY_HOST_TO_HOST && k <= ACL_MEMCPY_DEFAULT,
                 "kind " + std::to_string(k) + " is not an aclrtMemcpyKind");
    acl::require(count <= destMax, std::to_string(count) + " bytes into a destination of " + std::to_string(destMax));
    if (count > 0) std::memmove(dst, src, count);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
