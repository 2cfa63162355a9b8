#include "ge/runtime/host_scheduler.hpp"

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "ge/core/error.hpp"

#include "core/tsan.hpp"

namespace ge {

StepGraph StepGraph::from_preds(const std::vector<std::vector<std::int32_t>>& preds) {
  const std::size_t n = preds.size();
  StepGraph g;
  g.pred_count.assign(n, 0);
  g.succ_begin.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::int32_t p : preds[i]) {
      if (p < 0 || static_cast<std::size_t>(p) >= i)
        raise(Errc::invalid_argument, "[ge.runtime] step " + std::to_string(i) + " waits for step " +
                                          std::to_string(p) + "; expected an earlier step");
      ++g.succ_begin[static_cast<std::size_t>(p) + 1];
      ++g.pred_count[i];
    }
  for (std::size_t i = 0; i < n; ++i) g.succ_begin[i + 1] += g.succ_begin[i];
  g.succ.resize(static_cast<std::size_t>(g.succ_begin[n]));
  std::vector<std::int32_t> fill(g.succ_begin.begin(), g.succ_begin.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::int32_t p : preds[i])
      g.succ[static_cast<std::size_t>(fill[static_cast<std::size_t>(p)]++)] = static_cast<std::int32_t>(i);
  for (std::size_t i = 0; i < n; ++i)
    if (g.pred_count[i] == 0) g.roots.push_back(static_cast<std::int32_t>(i));
  // A chain: every step but the first has exactly the previous one as predecessor.
  g.chain = true;
  for (std::size_t i = 1; i < n && g.chain; ++i)
    g.chain = preds[i].size() == 1 && static_cast<std::size_t>(preds[i][0]) == i - 1;
  return g;
}

StepGraph StepGraph::from(const StreamAssignment& streams) {
  const std::size_t n = streams.stream.size();
  std::vector<std::vector<std::int32_t>> preds(n);
  std::vector<std::int32_t> last(static_cast<std::size_t>(std::max(streams.stream_count, 0)), -1);
  for (std::size_t i = 0; i < n; ++i) {
    auto& l = last[static_cast<std::size_t>(streams.stream[i])];
    if (l >= 0) preds[i].push_back(l);
    l = static_cast<std::int32_t>(i);
  }
  for (const StreamEvent& e : streams.events) {
    auto& p = preds[static_cast<std::size_t>(e.to)];
    if (std::find(p.begin(), p.end(), e.from) == p.end()) p.push_back(e.from);
  }
  return from_preds(preds);
}

struct HostScheduler::Impl {
  explicit Impl(int threads) : arena(threads), threads(threads) {}
  tbb::task_arena arena;
  int threads;
};

HostScheduler::HostScheduler(int threads)
    : impl_(std::make_unique<Impl>(threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))) {}

HostScheduler::~HostScheduler() = default;

int HostScheduler::threads() const noexcept { return impl_->threads; }

namespace {

// The first code of ours that `within` runs in the arena, possibly on another thread
// than the caller's (when the arena's slots are taken, oneTBB runs the call as a task):
// tests/tsan.supp names it for the read of `f`; the acquire makes the rest visible.
struct WithinEntry {
  FunctionRef<void()>* f;
  void operator()() const;
};

[[gnu::noipa]] void ge_tbb_within_entry(const WithinEntry* entry) {
  FunctionRef<void()>* f = entry->f;
  GE_HANDOFF_ACQUIRE(f);
  (*f)();
  GE_HANDOFF_RELEASE(f);
}

void WithinEntry::operator()() const { ge_tbb_within_entry(this); }

}  // namespace

void HostScheduler::within(FunctionRef<void()> f) {
  GE_HANDOFF_RELEASE(&f);
  const WithinEntry entry{&f};
  impl_->arena.execute(entry);
  GE_HANDOFF_ACQUIRE(&f);
}

namespace {

// A job given to `enqueue`, on the heap until it ran.
struct Job {
  std::function<void()> f;
};

// The first code of ours a oneTBB thread runs for an enqueued job: tests/tsan.supp names
// it for the read of `job`, which oneTBB carried over; the acquire makes the rest visible.
[[gnu::noipa]] void ge_tbb_enqueue_entry(Job* const* slot) {
  std::unique_ptr<Job> job(*slot);
  GE_HANDOFF_ACQUIRE(job.get());
  job->f();
}

}  // namespace

void HostScheduler::enqueue(std::function<void()> job) {
  auto* j = new Job{std::move(job)};
  GE_HANDOFF_RELEASE(j);
  impl_->arena.enqueue([j] { ge_tbb_enqueue_entry(&j); });
}

namespace {

// One run's state: the counters of unfinished predecessors and the first failure.
struct Run {
  const StepGraph& graph;
  FunctionRef<void(std::int32_t)> body;
  std::span<std::atomic<std::int32_t>> waiting;
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  tbb::task_group group;

  // Hands `step` to another thread.
  void spawn(std::int32_t step);

  // Runs `step`, then keeps going with its first successor that became ready and hands
  // the other ready ones to the group.
  void drive(std::int32_t step) {
    while (step >= 0 && !failed.load(std::memory_order_relaxed)) {
      try {
        body(step);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!failed.exchange(true)) error = std::current_exception();
        return;
      }
      const auto s = static_cast<std::size_t>(step);
      std::int32_t next = -1;
      for (auto k = graph.succ_begin[s]; k < graph.succ_begin[s + 1]; ++k) {
        const std::int32_t succ = graph.succ[static_cast<std::size_t>(k)];
        if (waiting[static_cast<std::size_t>(succ)].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          if (next < 0)
            next = succ;
          else
            spawn(succ);
        }
      }
      step = next;
    }
  }
};

// A task given to oneTBB: which run, which step.
struct Task {
  Run* run;
  std::int32_t step;
  void operator()() const;
};

// The first code of ours a oneTBB worker runs for a task. It reads the task's fields,
// which oneTBB carried over from another thread where TSan cannot see it: tests/tsan.supp
// names this function (and only it) for that read.
[[gnu::noipa]] void ge_tbb_task_entry(const Task* task) {
  Run* run = task->run;
  const std::int32_t step = task->step;
  GE_HANDOFF_ACQUIRE(run);
  run->drive(step);
  GE_HANDOFF_RELEASE(run);
}

void Task::operator()() const { ge_tbb_task_entry(this); }

// What a run does inside the arena: start the roots, wait for every step.
struct ArenaEntry {
  Run* run;
  void operator()() const;
};

// The first code of ours that the arena runs, possibly on another thread than the
// caller's: tests/tsan.supp names it for the read of `entry->run`, as for tasks.
[[gnu::noipa]] void ge_tbb_arena_entry(const ArenaEntry* entry) {
  Run* run = entry->run;
  GE_HANDOFF_ACQUIRE(run);
  const StepGraph& graph = run->graph;
  for (std::size_t r = 1; r < graph.roots.size(); ++r) run->spawn(graph.roots[r]);
  if (!graph.roots.empty()) run->drive(graph.roots[0]);
  run->group.wait();
  GE_HANDOFF_ACQUIRE(run);
  GE_HANDOFF_RELEASE(run);
}

void ArenaEntry::operator()() const { ge_tbb_arena_entry(this); }

void Run::spawn(std::int32_t step) {
  GE_HANDOFF_RELEASE(this);
  group.run(Task{this, step});
}

}  // namespace

void HostScheduler::run(const StepGraph& graph, FunctionRef<void(std::int32_t)> body) {
  const std::size_t n = graph.size();
  if (n == 0 || graph.chain || impl_->threads == 1) {
    run(graph, body, {});
    return;
  }
  const auto waiting = std::make_unique<std::atomic<std::int32_t>[]>(n);
  run(graph, body, std::span<std::atomic<std::int32_t>>(waiting.get(), n));
}

void HostScheduler::run(const StepGraph& graph, FunctionRef<void(std::int32_t)> body,
                        std::span<std::atomic<std::int32_t>> waiting) {
  const std::size_t n = graph.size();
  if (n == 0) return;
  if (graph.chain || impl_->threads == 1) {
    // Step order is an execution order: no scheduler needed. Still inside the arena, so
    // that the kernels' own parallel loops use the session's threads and no others
    // (threads = 1: one core).
    within([&] {
      for (std::size_t i = 0; i < n; ++i) body(static_cast<std::int32_t>(i));
    });
    return;
  }
  if (waiting.size() < n)
    raise(Errc::internal, "[ge.runtime] the scheduler was given " + std::to_string(waiting.size()) +
                              " counters for " + std::to_string(n) + " steps");
  Run run{graph, body, waiting, {}, {}, {}, {}};
  for (std::size_t i = 0; i < n; ++i) run.waiting[i].store(graph.pred_count[i], std::memory_order_relaxed);
  // The arena may run this on one of its own threads when its slots are taken (another
  // caller is running): a hand-off through libtbb, annotated like the tasks'.
  GE_HANDOFF_RELEASE(&run);
  impl_->arena.execute(ArenaEntry{&run});
  GE_HANDOFF_ACQUIRE(&run);
  if (run.error) std::rethrow_exception(run.error);
}

}  // namespace ge
