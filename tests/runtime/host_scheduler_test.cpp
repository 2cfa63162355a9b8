// Tests of ge/runtime/host_scheduler.hpp: order, parallel branches, errors, concurrent runs.
#include <doctest/doctest.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

#include "ge/core/error.hpp"
#include "ge/runtime/host_scheduler.hpp"
#include "support/expect_error.hpp"

using Preds = std::vector<std::vector<std::int32_t>>;
using ge::test::expect_error;

namespace {
// Runs `g` and checks that every step ran once, after each of its predecessors finished.
void run_and_check(ge::HostScheduler& s, const Preds& preds, const ge::StepGraph& g) {
  const std::size_t n = preds.size();
  std::atomic<std::int64_t> tick{0};
  std::vector<std::int64_t> start(n, -1), end(n, -1);
  std::vector<std::atomic<int>> runs(n);
  s.run(g, [&](std::int32_t i) {
    const auto u = static_cast<std::size_t>(i);
    runs[u].fetch_add(1);
    start[u] = tick.fetch_add(1);
    end[u] = tick.fetch_add(1);
  });
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(runs[i].load() == 1);
    for (const auto p : preds[i]) CHECK(end[static_cast<std::size_t>(p)] < start[i]);
  }
}

Preds random_dag(std::mt19937& rng, int n) {
  Preds p(static_cast<std::size_t>(n));
  for (int i = 1; i < n; ++i) {
    const int k = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int j = 0; j < k; ++j) {
      const int from = std::uniform_int_distribution<int>(0, i - 1)(rng);
      auto& v = p[static_cast<std::size_t>(i)];
      if (std::find(v.begin(), v.end(), from) == v.end()) v.push_back(from);
    }
  }
  return p;
}
}  // namespace

TEST_CASE("step graphs: CSR form and the chain flag") {
  const auto chain = ge::StepGraph::from_preds({{}, {0}, {1}});
  CHECK(chain.chain);
  CHECK(chain.roots == std::vector<std::int32_t>{0});
  const auto diamond = ge::StepGraph::from_preds({{}, {0}, {0}, {1, 2}});
  CHECK_FALSE(diamond.chain);
  CHECK(diamond.pred_count == std::vector<std::int32_t>{0, 1, 1, 2});
  CHECK(diamond.succ == std::vector<std::int32_t>{1, 2, 3, 3});
  CHECK(diamond.succ_begin == std::vector<std::int32_t>{0, 2, 3, 4, 4});
  const auto two_roots = ge::StepGraph::from_preds({{}, {}, {0, 1}});
  CHECK(two_roots.roots == std::vector<std::int32_t>{0, 1});
  CHECK_THROWS_AS((void)ge::StepGraph::from_preds({{}, {1}}), ge::Error);
  expect_error(
      [] {
        (void)ge::StepGraph::from_preds({{}, {3}});
      },
      ge::Errc::invalid_argument, "step 1 waits for step 3");
}

TEST_CASE("step graphs from streams keep in-stream order and events only") {
  const Preds p{{}, {0}, {0}, {1, 2}};
  const auto a = ge::assign_streams(p, {}, {.max_streams = 4});
  const auto g = ge::StepGraph::from(a);
  // Step 3 waits for 1 (same stream) and 2 (event).
  CHECK(g.pred_count == std::vector<std::int32_t>{0, 1, 1, 2});
  ge::HostScheduler s(2);
  run_and_check(s, p, g);
}

TEST_CASE("steps run inside the scheduler's arena: a kernel's own parallel loops get its threads, no more") {
  // threads = 1 means one core: a chain, a DAG, and `within` all run where a kernel's
  // parallel_for sees an arena of one thread (not the process-wide default arena).
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    ge::HostScheduler s(threads);
    for (const auto& preds : std::vector<Preds>{{{}, {0}, {1}}, {{}, {0}, {0}, {1, 2}}}) {
      std::atomic<int> widest{0};
      s.run(ge::StepGraph::from_preds(preds), [&](std::int32_t) {
        const int c = tbb::this_task_arena::max_concurrency();
        int w = widest.load();
        while (c > w && !widest.compare_exchange_weak(w, c)) {
        }
      });
      CHECK(widest.load() == threads);
    }
    int inside = 0;
    s.within([&] { inside = tbb::this_task_arena::max_concurrency(); });
    CHECK(inside == threads);
  }
}

TEST_CASE("random DAGs run in dependency order, serial and parallel") {
  std::mt19937 rng(11);
  ge::HostScheduler one(1), two(2);
  for (int k = 0; k < 100; ++k) {
    const auto p = random_dag(rng, std::uniform_int_distribution<int>(1, 200)(rng));
    const auto g = ge::StepGraph::from_preds(p);
    run_and_check(one, p, g);
    run_and_check(two, p, g);
  }
}

TEST_CASE("independent branches run at the same time") {
  ge::HostScheduler s(2);
  if (std::thread::hardware_concurrency() < 2) return;
  // Steps 1 and 2 each wait (bounded) until both have started: only concurrency passes.
  std::atomic<int> started{0};
  std::atomic<bool> overlapped{true};
  const auto g = ge::StepGraph::from_preds({{}, {0}, {0}, {1, 2}});
  s.run(g, [&](std::int32_t i) {
    if (i != 1 && i != 2) return;
    started.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2)
      if (std::chrono::steady_clock::now() > until) {
        overlapped = false;
        return;
      }
  });
  CHECK(overlapped.load());
}

TEST_CASE("a throwing step stops the run, the error comes back, the scheduler stays usable") {
  ge::HostScheduler s(2);
  const Preds p{{}, {0}, {0}, {1}, {2}, {3, 4}};
  const auto g = ge::StepGraph::from_preds(p);
  std::atomic<bool> ran_after{false};
  expect_error(
      [&] {
        s.run(g, [&](std::int32_t i) {
          if (i == 1) ge::raise(ge::Errc::bad_tensor, "[ge.test] step 1 fails");
          if (i == 3 || i == 5) ran_after = true;
        });
      },
      ge::Errc::bad_tensor);
  CHECK_FALSE(ran_after.load());
  run_and_check(s, p, g);
  // The serial path propagates errors as well.
  CHECK_THROWS_AS(s.run(ge::StepGraph::from_preds({{}, {0}}), [](std::int32_t) { throw std::runtime_error("x"); }),
                  std::runtime_error);
}

TEST_CASE("several threads run graphs on one scheduler at once") {
  ge::HostScheduler s(2);
  std::mt19937 rng(3);
  std::vector<Preds> dags;
  for (int k = 0; k < 4; ++k) dags.push_back(random_dag(rng, 300));
  std::vector<std::thread> callers;
  std::atomic<int> done{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      const auto g = ge::StepGraph::from_preds(dags[static_cast<std::size_t>(t)]);
      for (int r = 0; r < 10; ++r) {
        std::vector<std::atomic<int>> runs(dags[static_cast<std::size_t>(t)].size());
        s.run(g, [&](std::int32_t i) { runs[static_cast<std::size_t>(i)].fetch_add(1); });
        bool once = true;
        for (auto& c : runs) once = once && c.load() == 1;
        if (once) done.fetch_add(1);
      }
    });
  for (auto& c : callers) c.join();
  CHECK(done.load() == 40);
}

TEST_CASE("within runs inside the arena") {
  ge::HostScheduler s(1);
  int x = 0;
  s.within([&] { x = 42; });
  CHECK(x == 42);
  CHECK(s.threads() == 1);
  CHECK(ge::HostScheduler(0).threads() >= 1);
}
