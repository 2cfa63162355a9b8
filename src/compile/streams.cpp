#include "ge/compile/streams.hpp"

#include <algorithm>
#include <string>

#include "ge/core/error.hpp"

namespace ge {

namespace {

using Clock = std::vector<std::int32_t>;  // per stream: the last position known finished (-1: none)

// Replays the assignment and returns, per step, the vector clock of what has finished
// before it starts: its stream's previous step plus everything the kept events bring.
// Calls on_edge(pred, step, covered) for every cross-stream edge.
template <class OnEdge>
std::vector<Clock> replay(const std::vector<std::vector<std::int32_t>>& preds, const std::vector<std::int32_t>& stream,
                          std::int32_t streams, std::vector<std::int32_t>& position, OnEdge&& on_edge) {
  const std::size_t n = preds.size();
  std::vector<Clock> clock(n, Clock(static_cast<std::size_t>(streams), -1));
  std::vector<std::int32_t> last_on(static_cast<std::size_t>(streams), -1), count(static_cast<std::size_t>(streams), 0);
  position.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::size_t>(stream[i]);
    position[i] = count[s]++;
    Clock& c = clock[i];
    if (last_on[s] >= 0) c = clock[static_cast<std::size_t>(last_on[s])];  // in-order: all the previous one knew
    if (last_on[s] >= 0) c[s] = std::max(c[s], position[static_cast<std::size_t>(last_on[s])]);
    // Visit cross-stream preds latest first: waiting on the latest often covers the rest.
    std::vector<std::int32_t> cross;
    for (const std::int32_t p : preds[i])
      if (stream[static_cast<std::size_t>(p)] != stream[i]) cross.push_back(p);
    std::sort(cross.begin(), cross.end(), std::greater<>());
    for (const std::int32_t p : cross) {
      const auto up = static_cast<std::size_t>(p);
      const auto ps = static_cast<std::size_t>(stream[up]);
      const bool covered = c[ps] >= position[up];
      if (on_edge(p, static_cast<std::int32_t>(i), covered)) {
        for (std::size_t k = 0; k < c.size(); ++k) c[k] = std::max(c[k], clock[up][k]);
        c[ps] = std::max(c[ps], position[up]);
      }
    }
    last_on[s] = static_cast<std::int32_t>(i);
  }
  return clock;
}

}  // namespace

StreamAssignment assign_streams(const std::vector<std::vector<std::int32_t>>& preds, const std::vector<bool>& engines,
                                const StreamOptions& options) {
  const std::size_t n = preds.size();
  if (options.max_streams < 1)
    raise(Errc::invalid_argument, "[ge.compile] streams: max_streams " + std::to_string(options.max_streams) +
                                      "; expected at least 1");
  if (!engines.empty() && engines.size() != n)
    raise(Errc::invalid_argument, "[ge.compile] streams: " + std::to_string(engines.size()) + " host flags for " +
                                      std::to_string(n) + " steps; expected one per step or none");
  for (std::size_t i = 0; i < n; ++i)
    for (const std::int32_t p : preds[i])
      if (p < 0 || static_cast<std::size_t>(p) >= i)
        raise(Errc::invalid_argument, "[ge.compile] streams: step " + std::to_string(i) + " reads step " +
                                          std::to_string(p) + "; expected an earlier step (execution order)");

  StreamAssignment out;
  out.stream.assign(n, -1);
  const bool host_apart = options.ac_parallel &&
                          std::any_of(engines.begin(), engines.end(), [](bool h) { return h; });
  std::vector<std::int32_t> tail;    // per vector stream: its last step
  std::vector<std::int32_t> depth(n, 0);  // longest chain ending at a step
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::int32_t p : preds[i]) depth[i] = std::max(depth[i], depth[static_cast<std::size_t>(p)] + 1);
    if (host_apart && engines[i]) continue;  // placed below
    // Continue a predecessor's stream whose tail it is; prefer the deepest predecessor.
    std::int32_t pick = -1, pick_depth = -1;
    for (const std::int32_t p : preds[i]) {
      const std::int32_t s = out.stream[static_cast<std::size_t>(p)];
      if (s >= 0 && (!host_apart || !engines[static_cast<std::size_t>(p)]) &&
          tail[static_cast<std::size_t>(s)] == p && depth[static_cast<std::size_t>(p)] > pick_depth) {
        pick = s;
        pick_depth = depth[static_cast<std::size_t>(p)];
      }
    }
    if (pick < 0) {
      if (static_cast<int>(tail.size()) < options.max_streams) {
        pick = static_cast<std::int32_t>(tail.size());
        tail.push_back(-1);
      } else {
        pick = static_cast<std::int32_t>(std::min_element(tail.begin(), tail.end()) - tail.begin());
      }
    }
    out.stream[i] = pick;
    tail[static_cast<std::size_t>(pick)] = static_cast<std::int32_t>(i);
  }
  out.stream_count = static_cast<std::int32_t>(tail.size());
  if (out.stream_count == 0) out.stream_count = n > 0 && !host_apart ? 1 : 0;
  if (host_apart) {
    out.host_stream = out.stream_count++;
    for (std::size_t i = 0; i < n; ++i)
      if (engines[i]) out.stream[i] = out.host_stream;
  }

  std::vector<std::int32_t> position;
  replay(preds, out.stream, out.stream_count, position, [&](std::int32_t p, std::int32_t i, bool covered) {
    if (covered) {
      ++out.pruned_events;
      return false;
    }
    out.events.push_back({p, i});
    return true;
  });
  return out;
}

void verify(const StreamAssignment& a, const std::vector<std::vector<std::int32_t>>& preds) {
  if (a.stream.size() != preds.size())
    raise(Errc::internal, "[ge.compile] stream assignment is wrong: " + std::to_string(a.stream.size()) +
                              " streams for " + std::to_string(preds.size()) + " steps");
  // Index the kept events by consumer, then replay honouring only those.
  std::vector<std::vector<std::int32_t>> waits(preds.size());
  for (const StreamEvent& e : a.events) waits[static_cast<std::size_t>(e.to)].push_back(e.from);
  std::vector<std::int32_t> position;
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  const auto clocks = replay(preds, a.stream, a.stream_count, position, [&](std::int32_t p, std::int32_t i, bool) {
    const auto& w = waits[static_cast<std::size_t>(i)];
    const bool kept = std::find(w.begin(), w.end(), p) != w.end();
    edges.emplace_back(p, i);
    return kept;
  });
  for (const auto& [p, i] : edges) {
    const auto ps = static_cast<std::size_t>(a.stream[static_cast<std::size_t>(p)]);
    if (clocks[static_cast<std::size_t>(i)][ps] < position[static_cast<std::size_t>(p)])
      raise(Errc::internal, "[ge.compile] stream assignment is wrong: step " + std::to_string(i) + " (stream " +
                                std::to_string(a.stream[static_cast<std::size_t>(i)]) + ") may start before step " +
                                std::to_string(p) + " (stream " + std::to_string(ps) + ") it reads has finished");
  }
}

}  // namespace ge
