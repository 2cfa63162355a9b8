// Device and host memory (both plain host memory here, tracked so that a bad free is an
// error, not a crash), copies and fills, synchronous and issued to a stream (done at once).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "acl/rt.hpp"

namespace acl {

namespace {

constexpr std::size_t alignment = 64;

void* allocate(std::size_t size) {
  require(size > 0, "size 0; expected at least one byte");
  require(size <= std::numeric_limits<std::size_t>::max() - alignment,
          "no memory for " + std::to_string(size) + " bytes", ACL_ERROR_BAD_ALLOC);  // the rounding would wrap
  const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  require(p != nullptr, "no memory for " + std::to_string(size) + " bytes", ACL_ERROR_BAD_ALLOC);
  return p;
}

bool is_policy(int p) {
  return (p >= ACL_MEM_MALLOC_HUGE_FIRST && p <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P) || p == ACL_MEM_TYPE_LOW_BAND_WIDTH ||
         p == ACL_MEM_TYPE_HIGH_BAND_WIDTH;
}

aclError malloc_into(std::string_view api, void** ptr, std::size_t size, std::set<void*> rt::State::*pool) {
  return guard(api, [&] {
    require_initialized(api);
    require(ptr != nullptr, "the pointer to store the address in is null");
    void* p = allocate(size);
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    (s.*pool).insert(p);
    *ptr = p;
    return ACL_SUCCESS;
  });
}

aclError device_malloc(std::string_view api, void** ptr, std::size_t size, const aclrtMemMallocPolicy& policy) {
  const int p = raw(policy);
  const aclError e = guard(api, [&] {
    require(is_policy(p), "policy " + std::to_string(p) + " is not an aclrtMemMallocPolicy");
    return ACL_SUCCESS;
  });
  if (e != ACL_SUCCESS) return e;
  return malloc_into(api, ptr, size, &rt::State::device_memory);
}

aclError free_from(std::string_view api, void* ptr, std::set<void*> rt::State::*pool) {
  return guard(api, [&] {
    require_initialized(api);
    require(ptr != nullptr, "the address is null");
    rt::State& s = rt::state();
    std::lock_guard lock(s.mutex);
    const auto erased = (s.*pool).erase(ptr);
    require(erased == 1, "the address was not allocated by the matching malloc call (or was freed already)");
    std::free(ptr);
    return ACL_SUCCESS;
  });
}

void check_kind(const aclrtMemcpyKind& kind) {
  const int k = raw(kind);
  require(k >= ACL_MEMCPY_HOST_TO_HOST && k <= ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
          "kind " + std::to_string(k) + " is not an aclrtMemcpyKind");
}

void copy(void* dst, size_t destMax, const void* src, size_t count, const aclrtMemcpyKind& kind) {
  require(dst != nullptr && src != nullptr, "the destination or the source is null");
  check_kind(kind);
  require(count <= destMax, std::to_string(count) + " bytes into a destination of " + std::to_string(destMax));
  if (count > 0) std::memmove(dst, src, count);
}

void copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
             const aclrtMemcpyKind& kind) {
  require(dst != nullptr && src != nullptr, "the destination or the source is null");
  check_kind(kind);
  require(width <= dpitch && width <= spitch, "rows of " + std::to_string(width) + " bytes with pitches " +
                                                  std::to_string(spitch) + " (source) and " + std::to_string(dpitch) +
                                                  " (destination); a pitch must hold a row");
  // GE's limit on the rows of a 2-D copy.
  constexpr std::size_t max_height = 5u << 20;
  require(height <= max_height, "height " + std::to_string(height) + "; GE copies at most " + std::to_string(max_height) +
                                    " rows");
  // The last row must end inside the address space for both buffers (a pitch beyond a
  // buffer that stays inside it cannot be told from a real one).
  const auto fits = [&](const void* base, std::size_t pitch) {
    std::size_t span = 0;
    return height == 0 || (!__builtin_mul_overflow(height - 1, pitch, &span) &&
                           !__builtin_add_overflow(span, width, &span) &&
                           reinterpret_cast<std::uintptr_t>(base) <= std::numeric_limits<std::uintptr_t>::max() - span);
  };
  require(fits(dst, dpitch) && fits(src, spitch), std::to_string(height) + " rows of pitch " +
                                                      std::to_string(std::max(dpitch, spitch)) +
                                                      " bytes run past the end of the address space");
  for (size_t r = 0; r < height; ++r)
    std::memmove(static_cast<std::byte*>(dst) + r * dpitch, static_cast<const std::byte*>(src) + r * spitch, width);
}

void fill(void* ptr, size_t maxCount, int32_t value, size_t count) {
  require(ptr != nullptr, "the address is null");
  require(count <= maxCount, std::to_string(count) + " bytes into memory of " + std::to_string(maxCount));
  if (count > 0) std::memset(ptr, static_cast<unsigned char>(value), count);
}

// Checks a stream that work is issued to (the work itself runs in the caller, at once).
}  // namespace

}  // namespace acl

extern "C" {



aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return acl::device_malloc("aclrtMalloc", devPtr, size, policy);
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return acl::device_malloc("aclrtMallocAlign32", devPtr, size, policy);
}

aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return acl::device_malloc("aclrtMallocCached", devPtr, size, policy);
}

aclError aclrtMemFlush(void* devPtr, size_t size) {
  return acl::guard("aclrtMemFlush", [&] {
    acl::require_initialized("aclrtMemFlush");
    acl::require(devPtr != nullptr && size > 0, "the address is null or the size 0");
    return ACL_SUCCESS;
  });
}

aclError aclrtMemInvalidate(void* devPtr, size_t size) {
  return acl::guard("aclrtMemInvalidate", [&] {
    acl::require_initialized("aclrtMemInvalidate");
    acl::require(devPtr != nullptr && size > 0, "the address is null or the size 0");
    return ACL_SUCCESS;
  });
}

aclError aclrtFree(void* devPtr) { return acl::free_from("aclrtFree", devPtr, &acl::rt::State::device_memory); }

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return acl::malloc_into("aclrtMallocHost", hostPtr, size, &acl::rt::State::host_memory);
}

aclError aclrtFreeHost(void* hostPtr) { return acl::free_from("aclrtFreeHost", hostPtr, &acl::rt::State::host_memory); }

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  return acl::guard("aclrtGetMemInfo", [&] {
    acl::require_initialized("aclrtGetMemInfo");
    acl::require(free != nullptr && total != nullptr, "a pointer to store a size in is null");
    const int a = acl::raw(attr);
    acl::require(a >= ACL_DDR_MEM && a <= ACL_MEM_P2P_HUGE1G, "attr " + std::to_string(a) + " is not an aclrtMemAttr");
    const long page = sysconf(_SC_PAGESIZE);
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    acl::require(page > 0 && pages > 0 && avail >= 0, "the system does not tell its memory", ACL_ERROR_RT_INTERNAL_ERROR);
    *total = static_cast<size_t>(pages) * static_cast<size_t>(page);
    *free = static_cast<size_t>(avail) * static_cast<size_t>(page);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return acl::guard("aclrtMemcpy", [&] {
    acl::require_initialized("aclrtMemcpy");
    acl::copy(dst, destMax, src, count, kind);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  return acl::guard("aclrtMemcpyAsync", [&] {
    acl::require_initialized("aclrtMemcpyAsync");
    acl::require_stream(stream, "aclrtMemcpyAsync");
    acl::copy(dst, destMax, src, count, kind);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                       aclrtMemcpyKind kind) {
  return acl::guard("aclrtMemcpy2d", [&] {
    acl::require_initialized("aclrtMemcpy2d");
    acl::copy_2d(dst, dpitch, src, spitch, width, height, kind);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                            aclrtMemcpyKind kind, aclrtStream stream) {
  return acl::guard("aclrtMemcpy2dAsync", [&] {
    acl::require_initialized("aclrtMemcpy2dAsync");
    acl::require_stream(stream, "aclrtMemcpy2dAsync");
    acl::copy_2d(dst, dpitch, src, spitch, width, height, kind);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return acl::guard("aclrtMemset", [&] {
    acl::require_initialized("aclrtMemset");
    acl::fill(devPtr, maxCount, value, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  return acl::guard("aclrtMemsetAsync", [&] {
    acl::require_initialized("aclrtMemsetAsync");
    acl::require_stream(stream, "aclrtMemsetAsync");
    acl::fill(devPtr, maxCount, value, count);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
