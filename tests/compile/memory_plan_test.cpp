// Tests of ge/compile/memory_plan.hpp: exact offsets on tiny lifetimes, in place,
// the figures, the verifier, and random sets.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

#include "ge/compile/memory_plan.hpp"
#include "ge/core/error.hpp"
#include "support/expect_error.hpp"

using ge::Lifetime;
using ge::PlanStrategy;
using ge::test::expect_error;

namespace {
ge::PlanOptions only(PlanStrategy s, std::int64_t alignment = 64) {
  ge::PlanOptions o;
  o.alignment = alignment;
  o.strategies = {s};
  return o;
}
}  // namespace

TEST_CASE("a chain reuses memory two values apart") {
  // 0 -> 1 -> 2 -> 3: each value is read by the next step only.
  const std::vector<Lifetime> v{{.bytes = 100, .first = 0, .last = 1},
                                {.bytes = 50, .first = 1, .last = 2},
                                {.bytes = 100, .first = 2, .last = 3},
                                {.bytes = 50, .first = 3, .last = 4}};
  const auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  CHECK(plan.no_reuse_bytes == 128 + 64 + 128 + 64);
  CHECK(plan.lower_bound == 192);
  CHECK(plan.arena_bytes == 192);
  CHECK(plan.offsets[0] == plan.offsets[2]);
  CHECK(plan.offsets[1] == plan.offsets[3]);
  CHECK(plan.offsets[0] != plan.offsets[1]);
}

TEST_CASE("greedy by size: exact offsets, best fit into the smallest gap") {
  // Value 0 (big) and 3 (small) live long; 1 and 2 come and go between them.
  const std::vector<Lifetime> v{{.bytes = 256, .first = 0, .last = 2},
                                {.bytes = 64, .first = 0, .last = 0},
                                {.bytes = 128, .first = 3, .last = 4},
                                {.bytes = 64, .first = 1, .last = 4}};
  const auto plan = ge::plan_memory(v, only(PlanStrategy::greedy_by_size));
  ge::verify(plan, v);
  // Order: 0 (256) at 0; 2 (128) does not meet 0: at 0; 1 (64) meets 0: on top, 256;
  // 3 (64) meets 0 and 2: on top of both, 256 (1 is dead by then).
  CHECK(plan.offsets == std::vector<std::int64_t>{0, 256, 0, 256});
  CHECK(plan.arena_bytes == 320);
  CHECK(plan.lower_bound == 320);
  CHECK(plan.strategy == PlanStrategy::greedy_by_size);
}

TEST_CASE("alignment rounds sizes and offsets") {
  const std::vector<Lifetime> v{{.bytes = 1, .first = 0, .last = 1}, {.bytes = 1, .first = 1, .last = 1}};
  auto plan = ge::plan_memory(v, only(PlanStrategy::greedy_by_size, 128));
  ge::verify(plan, v);
  CHECK(plan.arena_bytes == 256);
  CHECK(plan.offsets[1] % 128 == 0);
  plan = ge::plan_memory(v, only(PlanStrategy::greedy_by_size, 1));
  CHECK(plan.arena_bytes == 2);
  CHECK(ge::live_lower_bound(v, 1) == 2);
  CHECK(ge::live_lower_bound(v, 64) == 128);
}

TEST_CASE("in place: a value reuses an input that dies where it is born") {
  // conv (0) -> relu in place (1) -> add (2) reading 1 only.
  const std::vector<Lifetime> v{{.bytes = 1000, .first = 0, .last = 1},
                                {.bytes = 1000, .first = 1, .last = 2, .inplace_of = 0},
                                {.bytes = 1000, .first = 2, .last = 3}};
  const auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  CHECK(plan.shares_with[1] == 0);
  CHECK(plan.offsets[1] == plan.offsets[0]);
  CHECK(plan.arena_bytes == 2048);
  CHECK(plan.lower_bound == 2048);
}

TEST_CASE("in place is refused when the input lives on, is smaller, or is taken") {
  const std::vector<Lifetime> v{{.bytes = 1000, .first = 0, .last = 2},   // read again at 2
                                {.bytes = 1000, .first = 1, .last = 2, .inplace_of = 0},
                                {.bytes = 64, .first = 0, .last = 3},
                                {.bytes = 1000, .first = 3, .last = 4, .inplace_of = 2},  // too big
                                {.bytes = 64, .first = 4, .last = 5},
                                {.bytes = 64, .first = 5, .last = 6, .inplace_of = 4},
                                {.bytes = 64, .first = 5, .last = 6, .inplace_of = 4}};  // taken
  const auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  CHECK(plan.shares_with == std::vector<std::int32_t>{-1, -1, -1, -1, -1, 4, -1});
}

TEST_CASE("an in-place chain: three values share one block") {
  const std::vector<Lifetime> v{{.bytes = 512, .first = 0, .last = 1},
                                {.bytes = 512, .first = 1, .last = 2, .inplace_of = 0},
                                {.bytes = 256, .first = 2, .last = 3, .inplace_of = 1}};
  const auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  CHECK(plan.shares_with == std::vector<std::int32_t>{-1, 0, 1});
  CHECK(plan.arena_bytes == 512);
}

TEST_CASE("zero-sized values and empty input") {
  const std::vector<Lifetime> none;
  const auto empty = ge::plan_memory(none);
  CHECK(empty.arena_bytes == 0);
  const std::vector<Lifetime> v{{.bytes = 0, .first = 0, .last = 3}, {.bytes = 64, .first = 0, .last = 3}};
  const auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  CHECK(plan.arena_bytes == 64);
}

TEST_CASE("bad requests are ge::Errors") {
  const auto expect = [](std::vector<Lifetime> v, ge::PlanOptions o, const char* part) {
    expect_error([&] { (void)ge::plan_memory(v, o); }, ge::Errc::invalid_argument, part);
  };
  expect({{.bytes = -1, .first = 0, .last = 0}}, {}, "-1 bytes");
  expect({{.bytes = 8, .first = 3, .last = 1}}, {}, "from step 3 to 1");
  expect({{.bytes = 8, .first = -1, .last = 1}}, {}, "from step -1");
  expect({{.bytes = 8, .first = 0, .last = 1, .inplace_of = 5}}, {}, "reuse value 5");
  expect({{.bytes = 8, .first = 0, .last = 1, .inplace_of = 0}}, {}, "reuse value 0");
  expect({{.bytes = 8, .first = 0, .last = 1}}, only(PlanStrategy::greedy_by_size, 48), "power of two");
  expect({{.bytes = 8, .first = 0, .last = 1}}, ge::PlanOptions{.alignment = 64, .strategies = {}}, "no strategy");
}

TEST_CASE("the verifier catches overlaps, misalignment and overflow") {
  const std::vector<Lifetime> v{{.bytes = 100, .first = 0, .last = 2}, {.bytes = 100, .first = 1, .last = 3}};
  auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  const auto expect = [&](ge::MemoryPlan p, const char* part) {
    expect_error([&] { ge::verify(p, v); }, ge::Errc::internal, part);
  };
  auto overlap = plan;
  overlap.offsets = {0, 64};
  expect(overlap, "overlap");
  auto misaligned = plan;
  misaligned.offsets[1] = 130;
  expect(misaligned, "not aligned");
  auto small = plan;
  small.arena_bytes = 128;
  expect(small, "past the arena");
  auto wrong_size = plan;
  wrong_size.offsets.pop_back();
  expect(wrong_size, "offsets for");
}

TEST_CASE("random lifetime sets: valid, within bounds, never worse than plain greedy by size") {
  std::mt19937_64 rng(20261130);
  for (int set = 0; set < 300; ++set) {
    std::uniform_int_distribution<int> count(1, 120), step(0, 80), len(0, 20), size(1, 1 << 20);
    std::vector<Lifetime> v(static_cast<std::size_t>(count(rng)));
    for (auto& x : v) {
      x.first = step(rng);
      x.last = x.first + len(rng);
      x.bytes = size(rng);
    }
    const auto best = ge::plan_memory(v);
    const auto greedy = ge::plan_memory(v, only(PlanStrategy::greedy_by_size));
    ge::verify(best, v);
    ge::verify(greedy, v);
    CHECK(best.arena_bytes >= best.lower_bound);
    CHECK(best.arena_bytes <= best.no_reuse_bytes);
    CHECK(best.arena_bytes <= greedy.arena_bytes);
    CHECK(best.lower_bound == ge::live_lower_bound(v));
  }
}

namespace {

// Lowest-offset placement of `order`, the test's own: each value at the lowest aligned
// offset where it meets no placed value that is live with it.
std::int64_t first_fit(const std::vector<Lifetime>& v, const std::vector<std::size_t>& order) {
  std::vector<std::int64_t> at(v.size(), -1);
  std::int64_t arena = 0;
  for (const std::size_t b : order) {
    const std::int64_t size = (v[b].bytes + 63) / 64 * 64;
    std::int64_t o = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t p = 0; p < v.size(); ++p) {
        if (at[p] < 0 || v[p].last < v[b].first || v[b].last < v[p].first) continue;
        const std::int64_t end = at[p] + (v[p].bytes + 63) / 64 * 64;
        if (o < end && at[p] < o + size) {
          o = end;
          moved = true;
        }
      }
    }
    at[b] = o;
    arena = std::max(arena, o + size);
  }
  return arena;
}

// The optimum by brute force: first fit over every order reaches it.
std::int64_t brute_force_optimum(const std::vector<Lifetime>& v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::int64_t best = -1;
  do {
    const std::int64_t a = first_fit(v, order);
    if (best < 0 || a < best) best = a;
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

std::vector<Lifetime> random_set(std::mt19937_64& rng, int max_count, int steps, int max_len) {
  std::uniform_int_distribution<int> count(1, max_count), step(0, steps), len(0, max_len), size(1, 16);
  std::vector<Lifetime> v(static_cast<std::size_t>(count(rng)));
  for (auto& x : v) {
    x.first = step(rng);
    x.last = x.first + len(rng);
    x.bytes = std::int64_t{64} * size(rng);
  }
  return v;
}

}  // namespace

TEST_CASE("every strategy makes a valid plan, and the default is never worse than any single heuristic") {
  std::mt19937_64 rng(7);
  for (int set = 0; set < 100; ++set) {
    const auto v = random_set(rng, 80, 40, 12);
    const auto best = ge::plan_memory(v);
    ge::verify(best, v);
    for (const PlanStrategy s : ge::all_plan_strategies) {
      const auto one = ge::plan_memory(v, only(s));
      ge::verify(one, v);
      CHECK(one.lower_bound == best.lower_bound);
      if (s != PlanStrategy::search) CHECK(best.arena_bytes <= one.arena_bytes);  // the search alone starts elsewhere
      if (one.optimal) CHECK(one.arena_bytes <= best.arena_bytes);
    }
  }
}

TEST_CASE("the search finds the optimum of small sets, proves it, and beats the heuristics where they miss") {
  std::mt19937_64 rng(20261202);
  int heuristics_missed = 0;
  for (int set = 0; set < 150; ++set) {
    const auto v = random_set(rng, 8, 8, 5);
    const std::int64_t optimum = brute_force_optimum(v);
    const auto plan = ge::plan_memory(v);
    ge::verify(plan, v);
    CHECK(plan.arena_bytes == optimum);
    CHECK(plan.optimal);
    ge::PlanOptions heuristics;
    heuristics.strategies.pop_back();  // all but the search
    const auto h = ge::plan_memory(v, heuristics);
    heuristics_missed += h.arena_bytes > optimum;
  }
  CHECK(heuristics_missed > 0);  // the sets include some where every heuristic misses it
}

TEST_CASE("a set no heuristic packs: the search does, at the bound") {
  // The first small random set where every heuristic stays above the live bound and the
  // brute force shows the bound is reachable.
  std::vector<Lifetime> v;
  std::mt19937_64 rng(20261202);
  for (int set = 0; set < 400 && v.empty(); ++set) {
    auto c = random_set(rng, 8, 8, 5);
    ge::PlanOptions heuristics;
    heuristics.strategies.pop_back();
    const auto h = ge::plan_memory(c, heuristics);
    if (h.arena_bytes > h.lower_bound && brute_force_optimum(c) == h.lower_bound) v = c;
  }
  REQUIRE_FALSE(v.empty());
  const auto plan = ge::plan_memory(v);
  ge::verify(plan, v);
  CHECK(plan.arena_bytes == plan.lower_bound);
  CHECK(plan.strategy == PlanStrategy::search);
  CHECK(plan.optimal);
}

TEST_CASE("the search on large sets: deterministic, within its budget, optimal only when proven") {
  std::mt19937_64 rng(99);
  for (int set = 0; set < 20; ++set) {
    const auto v = random_set(rng, 200, 100, 25);
    const auto a = ge::plan_memory(v);
    const auto b = ge::plan_memory(v);
    ge::verify(a, v);
    CHECK(a.offsets == b.offsets);
    CHECK(a.arena_bytes == b.arena_bytes);
    if (v.size() > 24) CHECK(a.optimal == (a.arena_bytes == a.lower_bound));
    ge::PlanOptions none;
    none.search_budget = 0;
    const auto h = ge::plan_memory(v, none);
    CHECK(h.strategy != PlanStrategy::search);
    CHECK(a.arena_bytes <= h.arena_bytes);
  }
}

TEST_CASE("the search alone starts from greedy by size; strategy names") {
  std::mt19937_64 rng(5);
  const auto v = random_set(rng, 60, 30, 10);
  const auto s = ge::plan_memory(v, only(PlanStrategy::search));
  ge::verify(s, v);
  CHECK(s.strategy == PlanStrategy::search);
  CHECK(s.arena_bytes <= ge::plan_memory(v, only(PlanStrategy::greedy_by_size)).arena_bytes);
  CHECK(ge::to_string(PlanStrategy::by_area) == "by_area");
  CHECK(ge::to_string(PlanStrategy::by_conflict) == "by_conflict");
  CHECK(ge::to_string(PlanStrategy::first_fit_by_size) == "first_fit_by_size");
  CHECK(ge::to_string(PlanStrategy::first_fit_by_first_use) == "first_fit_by_first_use");
  CHECK(ge::to_string(PlanStrategy::search) == "search");
}

TEST_CASE("a negative search budget is a ge::Error") {
  ge::PlanOptions o;
  o.search_budget = -1;
  const std::vector<Lifetime> v{{.bytes = 8, .first = 0, .last = 1}};
  expect_error([&] { (void)ge::plan_memory(v, o); }, ge::Errc::invalid_argument, "search budget -1");
}
