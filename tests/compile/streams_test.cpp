// Tests of ge/compile/streams.hpp: chains, branches, the stream cap, the host stream,
// event pruning, and the verifier.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

#include "ge/compile/streams.hpp"
#include "ge/core/error.hpp"
#include "support/expect_error.hpp"

using Preds = std::vector<std::vector<std::int32_t>>;
using ge::test::expect_error;

TEST_CASE("a chain stays on one stream with no events") {
  const Preds p{{}, {0}, {1}, {2}};
  const auto a = ge::assign_streams(p, {});
  CHECK(a.stream == std::vector<std::int32_t>{0, 0, 0, 0});
  CHECK(a.stream_count == 1);
  CHECK(a.events.empty());
  ge::verify(a, p);
}

TEST_CASE("a diamond: two streams, two events") {
  //   0 ─┬─ 1 ─┐
  //      └─ 2 ─┴─ 3
  const Preds p{{}, {0}, {0}, {1, 2}};
  const auto a = ge::assign_streams(p, {}, {.max_streams = 4});
  CHECK(a.stream == std::vector<std::int32_t>{0, 0, 1, 0});
  CHECK(a.stream_count == 2);
  REQUIRE(a.events.size() == 2);
  CHECK(a.events[0].from == 0);
  CHECK(a.events[0].to == 2);
  CHECK(a.events[1].from == 2);
  CHECK(a.events[1].to == 3);
  ge::verify(a, p);
}

TEST_CASE("redundant events are pruned") {
  // 0 -> 1 (stream 0);  2 reads 0 (stream 1), 3 reads 2 and 0: 0 is covered through 2.
  const Preds p{{}, {0}, {0}, {2, 0}, {1, 3}};
  const auto a = ge::assign_streams(p, {}, {.max_streams = 4});
  ge::verify(a, p);
  CHECK(a.stream[2] != a.stream[0]);
  CHECK(a.stream[3] == a.stream[2]);
  // Edge 0->3 is covered by the event 0->2 on 3's stream.
  CHECK(a.pruned_events >= 1);
  for (const auto& e : a.events) CHECK_FALSE((e.from == 0 && e.to == 3));
}

TEST_CASE("max_streams = 1 puts everything on one stream") {
  const Preds p{{}, {0}, {0}, {1, 2}};
  const auto a = ge::assign_streams(p, {}, {.max_streams = 1});
  CHECK(a.stream == std::vector<std::int32_t>{0, 0, 0, 0});
  CHECK(a.events.empty());
  CHECK(a.pruned_events == 0);
}

TEST_CASE("the stream cap reuses the earliest free stream") {
  // Four independent branches from 0, capped at 2 streams.
  const Preds p{{}, {0}, {0}, {0}, {0}, {1, 2, 3, 4}};
  const auto a = ge::assign_streams(p, {}, {.max_streams = 2});
  CHECK(a.stream_count == 2);
  ge::verify(a, p);
}

TEST_CASE("ac_parallel: host-engine steps get a stream of their own") {
  // 0 (vector) -> 1 (host: NonZero) -> 3 (vector);  0 -> 2 (vector) -> 3
  const Preds p{{}, {0}, {0}, {1, 2}};
  const std::vector<bool> e{false, true, false, false};
  const auto on = ge::assign_streams(p, e, {.max_streams = 4, .ac_parallel = true});
  CHECK(on.host_stream >= 0);
  CHECK(on.stream[1] == on.host_stream);
  CHECK(on.stream[0] != on.host_stream);
  CHECK(on.stream[2] == on.stream[0]);
  ge::verify(on, p);
  const auto off = ge::assign_streams(p, e, {.max_streams = 4, .ac_parallel = false});
  CHECK(off.host_stream == -1);
  CHECK(off.stream[1] == off.stream[0]);  // the host op continues the chain
  ge::verify(off, p);
}

TEST_CASE("bad requests are ge::Errors") {
  const auto expect = [](const Preds& p, std::vector<bool> e, ge::StreamOptions o, const char* part) {
    expect_error([&] { (void)ge::assign_streams(p, e, o); }, ge::Errc::invalid_argument, part);
  };
  expect({{}, {1}}, {}, {}, "step 1 reads step 1");
  expect({{}, {5}}, {}, {}, "reads step 5");
  expect({{}, {-1}}, {}, {}, "reads step -1");
  expect({{}}, {true, true}, {}, "2 host flags for 1 steps");
  expect({{}}, {}, {.max_streams = 0}, "max_streams 0");
}

TEST_CASE("the verifier catches a missing event") {
  const Preds p{{}, {0}, {0}, {1, 2}};
  auto a = ge::assign_streams(p, {}, {.max_streams = 4});
  a.events.pop_back();
  expect_error([&] { ge::verify(a, p); }, ge::Errc::internal, "step 3");
}

TEST_CASE("random DAGs: every assignment verifies, and pruning only drops covered edges") {
  std::mt19937 rng(7);
  for (int g = 0; g < 200; ++g) {
    const int n = std::uniform_int_distribution<int>(1, 60)(rng);
    Preds p(static_cast<std::size_t>(n));
    std::vector<bool> e(static_cast<std::size_t>(n));
    std::size_t cross_edges = 0;
    for (int i = 1; i < n; ++i) {
      const int k = std::uniform_int_distribution<int>(0, 3)(rng);
      for (int j = 0; j < k; ++j) {
        const int from = std::uniform_int_distribution<int>(std::max(0, i - 8), i - 1)(rng);
        auto& v = p[static_cast<std::size_t>(i)];
        if (std::find(v.begin(), v.end(), from) == v.end()) v.push_back(from);
      }
      e[static_cast<std::size_t>(i)] = rng() % 5 == 0;
    }
    const auto a = ge::assign_streams(p, e, {.max_streams = 1 + g % 4, .ac_parallel = g % 2 == 0});
    ge::verify(a, p);
    for (std::size_t i = 0; i < p.size(); ++i)
      for (const auto q : p[i]) cross_edges += a.stream[i] != a.stream[static_cast<std::size_t>(q)];
    CHECK(a.events.size() + static_cast<std::size_t>(a.pruned_events) == cross_edges);
  }
}
