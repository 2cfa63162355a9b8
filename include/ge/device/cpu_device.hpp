#pragma once
/// \file
/// `ge::CpuDevice`: the default device. Its memory is host memory; a launch runs on the
/// host thread that queues it, so a stream is the sequence of launches the host
/// scheduler hands it in order, and `synchronize` has nothing to wait for. An event
/// fires when recorded; `wait` blocks the calling thread until it has fired (the host
/// scheduler only queues work whose events have fired, so it never blocks there).
/// Kernels parallelise inside themselves on the caller's oneTBB arena.

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

#include "ge/core/api.hpp"
#include "ge/device/device.hpp"

namespace ge {

/// See the file comment.
class GE_API CpuDevice final : public Device {
 public:
  CpuDevice() = default;

  [[nodiscard]] std::string_view name() const noexcept override { return "cpu"; }
  [[nodiscard]] void* allocate(std::int64_t bytes, std::int64_t alignment) override;
  void deallocate(void* p) noexcept override;
  void copy(void* dst, const void* src, std::int64_t bytes) override;
  [[nodiscard]] Stream create_stream() override;
  [[nodiscard]] Event create_event() override;
  void launch(Stream s, Launch k) override;
  void record(Event e, Stream s) override;
  void wait(Stream s, Event e) override;
  void synchronize(Stream s) override;
  void reset(Event e) override;

  /// Streams and events made so far.
  [[nodiscard]] std::int32_t stream_count() const noexcept { return streams_.load(); }
  [[nodiscard]] std::int32_t event_count() const;

  /// Bytes allocated now, and the most at any time.
  [[nodiscard]] std::int64_t bytes_in_use() const noexcept { return in_use_.load(); }
  [[nodiscard]] std::int64_t peak_bytes() const noexcept { return peak_.load(); }

 private:
  void check_stream(Stream s) const;
  std::atomic<std::uint32_t>& event(Event e);

  std::atomic<std::int32_t> streams_{0};
  mutable std::mutex events_mutex_;
  std::deque<std::atomic<std::uint32_t>> events_;  // deque: stable addresses as it grows
  std::atomic<std::int64_t> in_use_{0};
  std::atomic<std::int64_t> peak_{0};
};

}  // namespace ge
