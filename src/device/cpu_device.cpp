#include "ge/device/cpu_device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include <sys/mman.h>

#include "ge/core/error.hpp"

namespace ge {

namespace {
// Sizes of live allocations, to account bytes in use. Allocation is rare (an arena per
// run context), so one mutex is enough.
std::mutex sizes_mutex;
std::unordered_map<void*, std::int64_t>& sizes() {
  static std::unordered_map<void*, std::int64_t> map;
  return map;
}
}  // namespace

void* CpuDevice::allocate(std::int64_t bytes, std::int64_t alignment) {
  if (bytes < 0)
    raise(Errc::invalid_argument, "[ge.device] cpu: allocate " + std::to_string(bytes) + " bytes; expected >= 0");
  if (alignment < 1 || (alignment & (alignment - 1)) != 0)
    raise(Errc::invalid_argument, "[ge.device] cpu: alignment " + std::to_string(alignment) +
                                      "; expected a power of two");
  // Large blocks (arenas) in 2 MiB pages where the kernel gives them on request: a run's
  // first touch of a 50 MiB arena is then tens of page faults, not thousands.
  constexpr std::int64_t huge_page = std::int64_t{2} << 20;
  const bool huge = bytes >= 2 * huge_page;
  const std::int64_t align = std::max<std::int64_t>(huge ? huge_page : alignment, static_cast<std::int64_t>(sizeof(void*)));
  const std::int64_t rounded = (std::max<std::int64_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(static_cast<std::size_t>(align), static_cast<std::size_t>(rounded));
  if (p == nullptr)
    raise(Errc::out_of_memory, "[ge.device] cpu: no memory for " + std::to_string(bytes) + " bytes");
#if defined(MADV_HUGEPAGE)
  if (huge) (void)::madvise(p, static_cast<std::size_t>(rounded), MADV_HUGEPAGE);
#endif
  {
    std::lock_guard lock(sizes_mutex);
    sizes()[p] = rounded;
  }
  const std::int64_t now = in_use_.fetch_add(rounded) + rounded;
  std::int64_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
  return p;
}

void CpuDevice::deallocate(void* p) noexcept {
  if (p == nullptr) return;
  std::int64_t size = 0;
  {
    std::lock_guard lock(sizes_mutex);
    const auto it = sizes().find(p);
    if (it != sizes().end()) {
      size = it->second;
      sizes().erase(it);
    }
  }
  in_use_.fetch_sub(size);
  std::free(p);
}

void CpuDevice::copy(void* dst, const void* src, std::int64_t bytes) {
  if (bytes < 0 || ((dst == nullptr || src == nullptr) && bytes > 0))
    raise(Errc::invalid_argument, "[ge.device] cpu: copy of " + std::to_string(bytes) +
                                      " bytes with a null pointer or a negative size");
  if (bytes > 0) std::memcpy(dst, src, static_cast<std::size_t>(bytes));
}

Stream CpuDevice::create_stream() { return Stream{streams_.fetch_add(1)}; }

Event CpuDevice::create_event() {
  std::lock_guard lock(events_mutex_);
  events_.emplace_back(0u);
  return Event{static_cast<std::int32_t>(events_.size() - 1)};
}

std::int32_t CpuDevice::event_count() const {
  std::lock_guard lock(events_mutex_);
  return static_cast<std::int32_t>(events_.size());
}

void CpuDevice::check_stream(Stream s) const {
  if (s.id < 0 || s.id >= streams_.load())
    raise(Errc::invalid_argument, "[ge.device] cpu: stream " + std::to_string(s.id) + " does not exist; " +
                                      std::to_string(streams_.load()) + " streams were created");
}

std::atomic<std::uint32_t>& CpuDevice::event(Event e) {
  std::lock_guard lock(events_mutex_);
  if (e.id < 0 || static_cast<std::size_t>(e.id) >= events_.size())
    raise(Errc::invalid_argument, "[ge.device] cpu: event " + std::to_string(e.id) + " does not exist; " +
                                      std::to_string(events_.size()) + " events were created");
  return events_[static_cast<std::size_t>(e.id)];
}

void CpuDevice::launch(Stream s, Launch k) {
  check_stream(s);
  if (k.fn == nullptr) raise(Errc::invalid_argument, "[ge.device] cpu: launch of a null kernel");
  k.fn(k.args);
}

void CpuDevice::record(Event e, Stream s) {
  check_stream(s);
  auto& flag = event(e);
  flag.store(1, std::memory_order_release);
  flag.notify_all();
}

void CpuDevice::wait(Stream s, Event e) {
  check_stream(s);
  auto& flag = event(e);
  while (flag.load(std::memory_order_acquire) == 0) flag.wait(0, std::memory_order_acquire);
}

void CpuDevice::synchronize(Stream s) { check_stream(s); }

void CpuDevice::reset(Event e) { event(e).store(0, std::memory_order_release); }

}  // namespace ge
