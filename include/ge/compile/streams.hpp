#pragma once
/// \file
/// Stream assignment: which in-order queue each step of a plan runs on, and which
/// cross-stream edges need an event.
///
/// Input: the steps of a plan in execution order (a topological order), each with its
/// predecessors and its engine. Rules:
/// - A step continues the stream of a predecessor whose stream ends at that predecessor
///   (the longest such chain first), so chains stay on one stream and need no events.
/// - Otherwise it opens a new stream, up to `max_streams`; past that it joins the stream
///   that became free earliest.
/// - With `ac_parallel` (AC_PARALLEL_ENABLE=1), host-engine steps run on one stream of
///   their own, beside the vector-engine streams.
/// - Every edge between two streams needs the consumer's stream to wait for an event
///   recorded after the producer. An event is redundant, and pruned, when the consumer's
///   stream already waits (directly or through other events) for the producer or a later
///   step of its stream; this is decided with vector clocks.
///
/// ```
/// //   0 ─┬─ 1 ─┐
/// //      └─ 2 ─┴─ 3
/// auto s = ge::assign_streams({{}, {0}, {0}, {1, 2}}, /*on_host=*/{}, {.max_streams = 4});
/// // s.stream == {0, 0, 1, 0}; events: 0→2 and 2→3
/// ```

#include <cstdint>
#include <vector>

#include "ge/core/api.hpp"

namespace ge {

/// Settings of the stream assignment.
struct StreamOptions {
  int max_streams = 4;       ///< vector-engine streams at most (>= 1)
  bool ac_parallel = false;  ///< host-engine steps on a stream of their own
};

/// A cross-stream dependency: `to` may start once `from` has finished.
struct StreamEvent {
  std::int32_t from = 0;
  std::int32_t to = 0;
};

/// The result: a stream per step, the events kept, and the events pruned.
struct StreamAssignment {
  std::vector<std::int32_t> stream;  ///< per step
  std::int32_t stream_count = 0;
  std::int32_t host_stream = -1;     ///< the host-engine stream with ac_parallel, else -1
  std::vector<StreamEvent> events;   ///< kept, in the order of their consumers
  std::int32_t pruned_events = 0;    ///< cross-stream edges that needed no event
};

/// Assigns streams and events. `preds[i]` lists the steps step `i` reads from (each
/// < i); `on_host` is empty (all on the vector engine) or says per step whether the host
/// engine runs it. Throws `Errc::invalid_argument` for a predecessor that is not an
/// earlier step, a size mismatch, or max_streams < 1.
[[nodiscard]] GE_API StreamAssignment assign_streams(const std::vector<std::vector<std::int32_t>>& preds,
                                                     const std::vector<bool>& on_host,
                                                     const StreamOptions& options = {});

/// Checks an assignment: every cross-stream edge of `preds` is ordered by the kept
/// events (transitively, with in-stream order). Throws `Errc::internal` naming the edge.
GE_API void verify(const StreamAssignment& a, const std::vector<std::vector<std::int32_t>>& preds);

}  // namespace ge
