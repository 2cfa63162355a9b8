#pragma once
/// \file
/// `ge::Device`: what the runtime needs of a device, and nothing about graphs: memory,
/// streams (in-order queues of work), events (one stream waiting for a point in
/// another) and kernel launch.
///
/// ```
/// ge::CpuDevice dev;
/// void* arena = dev.allocate(1 << 20, 64);
/// auto s0 = dev.create_stream(), s1 = dev.create_stream();
/// auto ev = dev.create_event();
/// dev.launch(s0, {produce, &args0});
/// dev.record(ev, s0);     // ev fires when s0's work so far is done
/// dev.wait(s1, ev);       // s1's later work starts after that
/// dev.launch(s1, {consume, &args1});
/// dev.synchronize(s1);
/// dev.deallocate(arena);
/// ```

#include <cstdint>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// A stream of a device: an in-order queue. Plain handle; the device owns the state.
struct Stream {
  std::int32_t id = -1;
};
/// An event of a device: a point in a stream that other streams can wait for.
struct Event {
  std::int32_t id = -1;
};
/// A kernel launch: a function and its argument block (owned by the caller, alive
/// until the launch has run).
struct Launch {
  void (*fn)(const void* args) = nullptr;
  const void* args = nullptr;
};

/// The device interface. All calls may come from several host threads at once.
class GE_API Device {
 public:
  virtual ~Device() = default;

  /// A short name, e.g. `"cpu"`.
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;

  /// Device memory of `bytes` at a multiple of `alignment` (a power of two). Throws
  /// `Errc::invalid_argument` for a bad size or alignment, `Errc::out_of_memory` when the
  /// device has none left.
  [[nodiscard]] virtual void* allocate(std::int64_t bytes, std::int64_t alignment) = 0;
  /// Frees memory from `allocate` (null is ignored).
  virtual void deallocate(void* p) noexcept = 0;
  /// Copies between host and device memory (either direction).
  virtual void copy(void* dst, const void* src, std::int64_t bytes) = 0;

  /// A new stream / event. Throws `Errc::invalid_argument` past the device's limits.
  [[nodiscard]] virtual Stream create_stream() = 0;
  [[nodiscard]] virtual Event create_event() = 0;

  /// Queues a kernel on a stream.
  virtual void launch(Stream s, Launch k) = 0;
  /// Queues "fire `e`" on a stream: `e` fires once the stream's earlier work is done.
  virtual void record(Event e, Stream s) = 0;
  /// Queues "wait for `e`" on a stream: its later work starts after `e` fired.
  virtual void wait(Stream s, Event e) = 0;
  /// Blocks the caller until a stream's queued work is done.
  virtual void synchronize(Stream s) = 0;
  /// Re-arms an event that fired, for the next run.
  virtual void reset(Event e) = 0;
};

}  // namespace ge
