// No ratchet (#34): after warm-up, a long sequence of random input shapes inside the
// declared gears and bounded ranges makes no plan, no heap allocation at all
// (`Session::run_into`) and holds no more heap than the warm-up did; an unbounded range
// keeps at most `plan_cache` plans. This program replaces the global operator new to
// count allocations, and (outside the sanitizers, which keep their own allocator) malloc
// and its family too, so that what oneTBB or a C library allocates is counted as well.
#include <doctest/doctest.h>

#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "kernels/cpu/common.hpp"
#if defined(GE_TEST_HAS_ONNX)
#include "ge/onnx.hpp"
#include "support/exports.hpp"
#endif

// The replacements below pair operator new with malloc and operator delete with free,
// which GCC's check of new/delete pairs cannot see through.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GE_TEST_COUNTS_MALLOC 0  // the sanitizers' allocators keep their own books
#else
#define GE_TEST_COUNTS_MALLOC 1
#endif

// The long sequences: 10,000 runs, a fifth of that under the sanitizers (their allocators
// make a run several times slower; operator new is still counted on every run there).
constexpr int kLongRuns = GE_TEST_COUNTS_MALLOC ? 10000 : 2000;
constexpr int kShortRuns = GE_TEST_COUNTS_MALLOC ? 3000 : 1000;

namespace {
std::atomic<std::uint64_t> allocations{0};  // operator new
std::atomic<std::uint64_t> mallocs{0};      // malloc and its family (operator new included)

void* counted(std::size_t n, std::size_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                              : std::malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

#if GE_TEST_COUNTS_MALLOC
// glibc's allocator under its own names: this program's malloc counts, then calls it.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
  mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* memalign(std::size_t align, std::size_t n) {
  mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(align, n);
}
void* aligned_alloc(std::size_t align, std::size_t n) { return memalign(align, n); }
int posix_memalign(void** out, std::size_t align, std::size_t n) {
  void* p = memalign(align, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) { __libc_free(p); }
}
#endif

void* operator new(std::size_t n) { return counted(n, 0); }
void* operator new[](std::size_t n) { return counted(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return counted(n, static_cast<std::size_t>(a));
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept { return operator new(n, a, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

using ge::DataType;

constexpr bool heap_figures = GE_TEST_COUNTS_MALLOC;

// Allocations so far: every malloc where they are counted (operator new calls malloc),
// else every operator new.
std::uint64_t allocated() { return GE_TEST_COUNTS_MALLOC ? mallocs.load() : allocations.load(); }

std::size_t heap_in_use() { return mallinfo2().uordblks; }

// x [-1, 3, 8, 8] -> conv -> relu -> pool -> flatten -> gemm: a CNN in small.
ge::Graph cnn() {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,3,8,8");
  const auto c = b.op("Relu", {b.op("Conv", {x, b.random_weights("cw", {8, 3, 3, 3}, 5)},
                                    {{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                                     {"pads", std::vector<std::int64_t>{1, 1, 1, 1}}})});
  const auto f = b.op("Flatten", {b.op("GlobalAveragePool", {c})});
  b.output(b.op("Gemm", {f, b.random_weights("fw", {8, 4}, 6)}, {}, "logits"));
  return b.build();
}

// The most the kernels' scratch pool may grow by over a sequence after warm-up (a buffer
// per kernel task holding one at once: at most 4 streams x 2 threads, x 2 for a thread
// that runs another task while it waits in a nested parallel_for).
constexpr std::uint64_t kPoolBound = 16;
// With several threads on a loaded machine oneTBB's task pools may allocate too, when the
// threads steal tasks in an order they had not before (seen: 2 over 40 runs of BERT with a
// busy core beside). A fixed few, never per run: a per-run allocation exceeds this at once.
constexpr std::uint64_t kStealBound = 4;

struct Sequence {
  // The allocations of one run at each batch, right after the warm-up and after the sequence.
  std::vector<std::uint64_t> allocations_before, allocations_after;
  std::uint64_t allocations = 0;       // over the whole random sequence
  std::uint64_t pool_allocations = 0;  // of those, the kernels' scratch pool growing
  std::size_t heap_after_warmup = 0, heap_most = 0, heap_after = 0;
};

// One run of `s` at `batch` over `x`: through `run_into` (the caller's output buffer, no
// result to allocate) or `run` (a RunResult with its outputs, allocated per run).
struct Runner {
  ge::Session& s;
  bool into = true;
  std::vector<float> x, y;
  std::vector<std::int64_t> rest{3, 8, 8};  // an input's dims after the batch

  void operator()(std::int64_t batch) {
    ge::ViewDims dims;
    {
      std::int64_t d[ge::ViewDims::max_rank] = {batch};
      std::copy(rest.begin(), rest.end(), d + 1);
      dims = ge::ViewDims(std::span<const std::int64_t>(d, rest.size() + 1));
    }
    const ge::TensorView in{x.data(), DataType::f32, dims};
    if (!into) {
      (void)s.run({in});
      return;
    }
    ge::TensorView out{y.data(), DataType::f32, {static_cast<std::int64_t>(y.size())}};
    (void)s.run_into(std::span<const ge::TensorView>(&in, 1), std::span<ge::TensorView>(&out, 1));
  }
};

// Warm-up: every batch in [lo, hi] twice, then 200 random ones (kernels' pooled scratch
// grows to one buffer per task that ran at once: with several threads, once the threads
// have all joined); then `runs` random batches in [lo, hi].
Sequence run_sequence(Runner& one, std::int64_t lo, std::int64_t hi, int runs) {
  for (int twice = 0; twice < 2; ++twice)
    for (std::int64_t b = lo; b <= hi; ++b) one(b);
  std::mt19937 warm(3);
  for (int i = 0; i < 200; ++i) one(std::uniform_int_distribution<std::int64_t>(lo, hi)(warm));
  const auto per_batch = [&] {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(hi - lo + 1));
    for (std::int64_t b = lo; b <= hi; ++b) {
      // (the scratch pool growing is counted apart: see kPoolBound)
      const std::uint64_t before = allocated(), pool = ge::cpu::scratch_pool_allocations();
      one(b);
      const std::uint64_t grown = ge::cpu::scratch_pool_allocations() - pool, made = allocated() - before;
      counts[static_cast<std::size_t>(b - lo)] = made - std::min(made, grown);
    }
    return counts;
  };
  Sequence q;
  q.allocations_before = per_batch();
  q.heap_after_warmup = heap_in_use();
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int64_t> batch(lo, hi);
  const std::uint64_t before = allocated();
  const std::uint64_t pool_before = ge::cpu::scratch_pool_allocations();
  for (int i = 0; i < runs; ++i) {
    one(batch(rng));
    if (i % 64 == 0) q.heap_most = std::max(q.heap_most, heap_in_use());
  }
  q.allocations = allocated() - before;
  q.pool_allocations = ge::cpu::scratch_pool_allocations() - pool_before;
  q.heap_after = heap_in_use();
  q.allocations_after = per_batch();
  return q;
}

Runner runner(ge::Session& s, std::int64_t hi, bool into = true) {
  return {s, into, std::vector<float>(static_cast<std::size_t>(hi * 3 * 8 * 8), 0.5f),
          std::vector<float>(static_cast<std::size_t>(hi * 4))};
}

std::string counts_text(const std::vector<std::uint64_t>& counts) {
  std::string s;
  for (std::size_t b = 0; b < counts.size(); ++b) s += " " + std::to_string(b + 1) + ":" + std::to_string(counts[b]);
  return s;
}

}  // namespace

TEST_CASE("no ratchet: 10,000 random batches over gears and a hybrid range allocate nothing after warm-up") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:-1,3,8,8"}, {"ge.dynamicBatchSize", "1,2,4,8"},
                                         {"ge.compileHybridMode", "1"}});
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    ge::Session s(model, {.threads = threads});
    Runner one = runner(s, 8);
    const Sequence q = run_sequence(one, 1, 8, kLongRuns);
    // Batches 3, 5, 6 and 7 got static plans of their own at their first run (warm-up).
    CHECK(s.plan_cache_stats().misses == 4);
    CHECK(s.plan_cache_stats().size == 4);
    MESSAGE("run_into: allocations per run, batch:count (gears 1,2,4,8; plans made for the rest):"
            << counts_text(q.allocations_before) << "; over the sequence " << q.allocations);
    if (threads == 1) {
      CHECK(q.allocations == 0);
      CHECK(q.allocations_before == std::vector<std::uint64_t>(8, 0));
      CHECK(q.allocations_after == std::vector<std::uint64_t>(8, 0));
    } else {
      // With two threads a kernel's pooled scratch grows to a buffer per task that ran at
      // once, which depends on when the second thread joins in (a loaded machine: late).
      // Bounded by the streams and threads, never per run; nothing else allocates.
      CHECK(q.allocations <= q.pool_allocations + kStealBound);
      CHECK(q.pool_allocations <= kPoolBound);
      std::uint64_t after = 0;
      for (const std::uint64_t c : q.allocations_after) after += c;
      CHECK(after <= kStealBound);
    }
    if (heap_figures) {
      MESSAGE("heap in use after warm-up " << q.heap_after_warmup << " bytes; most over the sequence " << q.heap_most
                                            << "; after it " << q.heap_after);
      CHECK(q.heap_most <= q.heap_after_warmup + (threads == 1 ? 0 : 64 * 1024));
    }
  }
}

TEST_CASE("no ratchet: runs that return a RunResult allocate the same few blocks at every batch, and no more") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:-1,3,8,8"}, {"ge.dynamicBatchSize", "1,2,4,8"},
                                         {"ge.compileHybridMode", "1"}});
  ge::Session s(model, {.threads = 1});
  Runner one = runner(s, 8, false);
  const Sequence q = run_sequence(one, 1, 8, kLongRuns);
  CHECK(s.plan_cache_stats().misses == 4);
  // The same allocations per run at the end as at the start: nothing accumulates.
  CHECK(q.allocations_after == q.allocations_before);
  MESSAGE("run: allocations per run (the result: its outputs, their dims and buffers):"
          << counts_text(q.allocations_before));
  for (const std::uint64_t n : q.allocations_before) CHECK(n <= 8);
  if (heap_figures) {
    CHECK(q.heap_most <= q.heap_after_warmup + 64 * 1024);
    CHECK(q.heap_most <= q.heap_after_warmup + static_cast<std::size_t>(model->arena_bytes()));
  }
}

TEST_CASE("no ratchet: a bounded range allocates nothing on its per-signature plans, and past plan_cache no more per run") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:1~8,3,8,8"}}, ge::default_target(), {.plan_cache = 4});
  SUBCASE("every signature has a plan") {
    const auto roomy = ge::compile(cnn(), {{"ge.inputShape", "x:1~8,3,8,8"}});
    ge::Session s(roomy, {.threads = 1});
    Runner one = runner(s, 8);
    const Sequence q = run_sequence(one, 1, 8, kLongRuns);
    CHECK(s.plan_cache_stats().misses == 8);
    CHECK(q.allocations == 0);
  }
  SUBCASE("four signatures have plans, the rest run on the range plan") {
    ge::Session s(model, {.threads = 1});
    Runner one = runner(s, 8);
    const Sequence q = run_sequence(one, 1, 8, kShortRuns);
    CHECK(s.plan_cache_stats().misses == 4);
    CHECK(s.plan_cache_stats().evictions == 0);  // the range plan runs the rest: nothing made again
    CHECK(q.allocations_after == q.allocations_before);
    for (std::size_t b = 0; b < 4; ++b) CHECK(q.allocations_before[b] == 0);
    MESSAGE("a bounded range past plan_cache, allocations per run:" << counts_text(q.allocations_before));
    if (heap_figures) CHECK(q.heap_most <= q.heap_after_warmup + 64 * 1024);
  }
}

TEST_CASE("no ratchet: padding to gears over 10,000 random batches makes no plan and holds no more heap") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:-1,3,8,8"}, {"ge.dynamicBatchSize", "1,2,4,8"}});
  ge::Session s(model, {.threads = 1, .pad_to_gear = true});
  Runner one = runner(s, 8);
  const Sequence q = run_sequence(one, 1, 8, kLongRuns);
  CHECK(s.plan_cache_stats().misses == 0);
  CHECK(q.allocations_after == q.allocations_before);
  CHECK(q.allocations_before[0] == 0);  // gear 1: not padded
  if (heap_figures) CHECK(q.heap_most <= q.heap_after_warmup + 64 * 1024);
}

TEST_CASE("no ratchet: an unbounded range whose signatures fit plan_cache allocates nothing after warm-up") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:1~inf,3,8,8"}});
  ge::Session s(model, {.threads = 1});
  Runner one = runner(s, 8);
  const Sequence q = run_sequence(one, 1, 8, kLongRuns);
  CHECK(s.plan_cache_stats().misses == 8);
  CHECK(s.plan_cache_stats().hits > kLongRuns);
  CHECK(q.allocations == 0);
}

TEST_CASE("no ratchet: an unbounded range keeps at most plan_cache plans, its heap bounded") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:1~inf,3,8,8"}}, ge::default_target(), {.plan_cache = 4});
  ge::Session s(model, {.threads = 1});
  Runner one = runner(s, 16);
  const Sequence q = run_sequence(one, 1, 16, kShortRuns);
  const ge::CacheStats stats = s.plan_cache_stats();
  CHECK(stats.size <= 4);
  CHECK(stats.capacity == 4);
  CHECK(stats.evictions > 0);  // 16 signatures through 4 places
  if (heap_figures) {
    MESSAGE("unbounded: heap after warm-up " << q.heap_after_warmup << " bytes; most " << q.heap_most);
    CHECK(q.heap_most <= q.heap_after_warmup + 1024 * 1024);
  }
}

#if defined(GE_TEST_HAS_ONNX)
namespace {

// A torch export over gears 1, 2, 4 (hybrid: 3 on a plan made for it), run through
// run_into at random batches after warm-up: no allocation at all.
void check_export(const char* name, DataType dtype, std::vector<std::int64_t> rest, int runs) {
  const auto dir = ge::test::torch_exports();
  if (!dir) return;
  const ge::Graph g = ge::onnx::load(*dir / (std::string(name) + "_dyn.onnx"));
  std::string shape = std::string(g.inputs().front().name) + ":-1";
  for (const std::int64_t d : rest) shape += "," + std::to_string(d);
  const auto model = ge::compile(g, {{"ge.inputShape", shape}, {"ge.dynamicBatchSize", "1,2,4"},
                                     {"ge.compileHybridMode", "1"}});
  ge::Session s(model, {.threads = 2});
  std::int64_t per_item = 1;
  for (const std::int64_t d : rest) per_item *= d;
  std::vector<std::byte> x(static_cast<std::size_t>(4 * per_item * ge::size_of(dtype)), std::byte{0});
  std::vector<std::vector<std::byte>> y;
  std::vector<ge::TensorView> outs;
  {
    std::vector<std::int64_t> d{4};
    d.insert(d.end(), rest.begin(), rest.end());
    const ge::RunResult r = s.run({ge::TensorView{x.data(), dtype, d}});
    for (const ge::Output& o : r.outputs) {
      y.emplace_back(static_cast<std::size_t>(o.bytes));
      outs.push_back({y.back().data(), o.dtype, o.dims});
    }
  }
  const auto one = [&](std::int64_t batch) {
    std::int64_t d[ge::ViewDims::max_rank] = {batch};
    std::copy(rest.begin(), rest.end(), d + 1);
    const ge::TensorView in{x.data(), dtype, ge::ViewDims(std::span<const std::int64_t>(d, rest.size() + 1))};
    std::vector<ge::TensorView> o = outs;  // (copied before counting: dims say what each buffer holds)
    const std::uint64_t before = allocated();
    (void)s.run_into(std::span<const ge::TensorView>(&in, 1), o);
    return allocated() - before;
  };
  for (int twice = 0; twice < 2; ++twice)
    for (std::int64_t b = 1; b <= 4; ++b) (void)one(b);
  std::mt19937 rng(11);
  for (int i = 0; i < 8; ++i) (void)one(std::uniform_int_distribution<std::int64_t>(1, 4)(rng));  // (see run_sequence)
  std::uniform_int_distribution<std::int64_t> batch(1, 4);
  std::uint64_t total = 0;
  const std::uint64_t pool_before = ge::cpu::scratch_pool_allocations();
  for (int i = 0; i < runs; ++i) total += one(batch(rng));
  const std::uint64_t pool = ge::cpu::scratch_pool_allocations() - pool_before;
  MESSAGE(std::string(name) << ": allocations over " << runs << " random batches in 1..4 after warm-up: " << total
                            << " (the kernels' scratch pool growing: " << pool << ")");
  // Zero on a quiet machine. On a loaded one the pooled scratch may still grow (a buffer
  // per kernel task that held one at once, more of them when the second thread joins in
  // late; kPoolBound), and oneTBB's task pools (kStealBound); nothing per run.
  CHECK(total <= pool + kStealBound);
  CHECK(pool <= kPoolBound);
  CHECK(s.plan_cache_stats().misses == 1);  // batch 3's plan, made in the warm-up
}

}  // namespace

TEST_CASE("no ratchet: torch's MobileNetV2 export over gears allocates nothing per run after warm-up") {
  check_export("mobilenet_v2", DataType::f32, {3, 224, 224}, 40);
}

TEST_CASE("no ratchet: torch's BERT export over gears allocates nothing per run after warm-up") {
  check_export("bert_tiny", DataType::i64, {128}, 40);
}

TEST_CASE("no ratchet: torch's ResNet-50 export over gears allocates nothing per run after warm-up") {
  check_export("resnet50", DataType::f32, {3, 224, 224}, 12);
}
#endif
