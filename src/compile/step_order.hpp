#pragma once
// Private: which steps of a stream assignment are ordered before which, as the runtime
// will run them: a step waits for the previous step of its stream and for the events it
// waits on, nothing else. Vector clocks: clock[s][k] is the position (1-based) of the
// last step of stream k that step s waits for, directly or through others.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ge/compile/streams.hpp"

namespace ge::detail {

class StepOrder {
 public:
  explicit StepOrder(const StreamAssignment& a) : streams_(a.stream_count) {
    const std::size_t n = a.stream.size();
    pos_.resize(n);
    clock_.assign(n * static_cast<std::size_t>(streams_), 0);
    by_stream_.resize(static_cast<std::size_t>(streams_));
    std::vector<std::vector<std::int32_t>> waits(n);
    for (const StreamEvent& e : a.events) waits[static_cast<std::size_t>(e.to)].push_back(e.from);
    std::vector<std::int32_t> last(static_cast<std::size_t>(streams_), -1);
    for (std::size_t s = 0; s < n; ++s) {
      const auto k = static_cast<std::size_t>(a.stream[s]);
      std::int32_t* c = &clock_[s * static_cast<std::size_t>(streams_)];
      const auto merge = [&](std::int32_t p) {
        const std::int32_t* pc = &clock_[static_cast<std::size_t>(p) * static_cast<std::size_t>(streams_)];
        for (std::int32_t j = 0; j < streams_; ++j) c[j] = std::max(c[j], pc[j]);
      };
      if (last[k] >= 0) merge(last[k]);
      for (const std::int32_t p : waits[s]) merge(p);
      pos_[s] = static_cast<std::int32_t>(by_stream_[k].size()) + 1;
      c[k] = pos_[s];
      by_stream_[k].push_back(static_cast<std::int32_t>(s));
      last[k] = static_cast<std::int32_t>(s);
    }
    stream_ = a.stream;
  }

  /// True when step `s` runs after step `r` has finished (or `s == r`).
  [[nodiscard]] bool after(std::int32_t s, std::int32_t r) const noexcept {
    if (s == r) return true;
    const auto k = static_cast<std::size_t>(stream_[static_cast<std::size_t>(r)]);
    return clock_[static_cast<std::size_t>(s) * static_cast<std::size_t>(streams_) + k] >= pos_[static_cast<std::size_t>(r)];
  }

  /// The steps of stream `k`, in order.
  [[nodiscard]] const std::vector<std::int32_t>& stream_steps(std::size_t k) const { return by_stream_[k]; }
  [[nodiscard]] std::int32_t stream_count() const noexcept { return streams_; }

 private:
  std::int32_t streams_;
  std::vector<std::int32_t> stream_;
  std::vector<std::int32_t> pos_;
  std::vector<std::int32_t> clock_;
  std::vector<std::vector<std::int32_t>> by_stream_;
};

}  // namespace ge::detail
