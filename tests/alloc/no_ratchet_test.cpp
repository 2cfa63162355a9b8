// No ratchet (#34): after warm-up, a long sequence of random input shapes inside the
// declared gears and bounded ranges makes no plan and holds no more heap than the
// warm-up did; an unbounded range keeps at most `plan_cache` plans. This program replaces
// the global operator new to count allocations (the count per run is printed: the run's
// result, its output buffers and names, are still allocated per run and freed with it).
#include <doctest/doctest.h>

#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"

// The replacements below pair operator new with malloc and operator delete with free,
// which GCC's check of new/delete pairs cannot see through.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<std::uint64_t> allocations{0};

void* counted(std::size_t n, std::size_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                              : std::malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

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

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool heap_figures = false;  // the sanitizers' allocators keep their own books
#else
constexpr bool heap_figures = true;
#endif

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

struct Sequence {
  // The allocations of one run at each batch, right after the warm-up and after the sequence.
  std::vector<std::uint64_t> allocations_before, allocations_after;
  std::size_t heap_after_warmup = 0, heap_most = 0, heap_after = 0;
};

// Warm-up: every batch in [lo, hi] twice; then `runs` random batches in [lo, hi].
Sequence run_sequence(ge::Session& s, std::int64_t lo, std::int64_t hi, int runs) {
  std::vector<float> x(static_cast<std::size_t>(hi * 3 * 8 * 8), 0.5f);
  const auto one = [&](std::int64_t batch) { (void)s.run({ge::TensorView{x.data(), DataType::f32, {batch, 3, 8, 8}}}); };
  for (int twice = 0; twice < 2; ++twice)
    for (std::int64_t b = lo; b <= hi; ++b) one(b);
  const auto per_batch = [&] {
    std::vector<std::uint64_t> counts;
    for (std::int64_t b = lo; b <= hi; ++b) {
      const std::uint64_t before = allocations.load();
      one(b);
      counts.push_back(allocations.load() - before);
    }
    return counts;
  };
  Sequence q;
  q.allocations_before = per_batch();
  q.heap_after_warmup = heap_in_use();
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int64_t> batch(lo, hi);
  for (int i = 0; i < runs; ++i) {
    one(batch(rng));
    if (i % 64 == 0) q.heap_most = std::max(q.heap_most, heap_in_use());
  }
  q.heap_after = heap_in_use();
  q.allocations_after = per_batch();
  return q;
}

}  // namespace

TEST_CASE("no ratchet: 10,000 random batches over gears and a hybrid range plan make no plan and hold no more heap") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:-1,3,8,8"}, {"ge.dynamicBatchSize", "1,2,4,8"},
                                         {"ge.compileHybridMode", "1"}});
  ge::Session s(model, {.threads = 1});
  const Sequence q = run_sequence(s, 1, 8, 10000);
  CHECK(s.plan_cache_stats().misses == 0);  // every plan was made at compile time
  CHECK(s.plan_cache_stats().size == 0);
  // The same allocations per run at the end as at the start: nothing accumulates.
  CHECK(q.allocations_after == q.allocations_before);
  std::string counts;
  for (std::size_t b = 0; b < q.allocations_before.size(); ++b)
    counts += " " + std::to_string(b + 1) + ":" + std::to_string(q.allocations_before[b]);
  MESSAGE("allocations per run, batch:count (gears 1,2,4,8; the rest on the range plan):" << counts);
  if (heap_figures) {
    MESSAGE("heap in use after warm-up " << q.heap_after_warmup << " bytes; most over the sequence " << q.heap_most
                                          << "; after it " << q.heap_after);
    CHECK(q.heap_most <= q.heap_after_warmup + 64 * 1024);
    CHECK(q.heap_most <= q.heap_after_warmup + static_cast<std::size_t>(model->arena_bytes()));
  }
}

TEST_CASE("no ratchet: padding to gears over 10,000 random batches makes no plan and holds no more heap") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:-1,3,8,8"}, {"ge.dynamicBatchSize", "1,2,4,8"}});
  ge::Session s(model, {.threads = 1, .pad_to_gear = true});
  const Sequence q = run_sequence(s, 1, 8, 10000);
  CHECK(s.plan_cache_stats().misses == 0);
  CHECK(q.allocations_after == q.allocations_before);
  if (heap_figures) CHECK(q.heap_most <= q.heap_after_warmup + 64 * 1024);
}

TEST_CASE("no ratchet: an unbounded range keeps at most plan_cache plans, its heap bounded") {
  const auto model = ge::compile(cnn(), {{"ge.inputShape", "x:1~inf,3,8,8"}}, ge::default_target(), {.plan_cache = 4});
  ge::Session s(model, {.threads = 1});
  const Sequence q = run_sequence(s, 1, 16, 3000);
  const ge::CacheStats stats = s.plan_cache_stats();
  CHECK(stats.size <= 4);
  CHECK(stats.capacity == 4);
  CHECK(stats.evictions > 0);  // 16 signatures through 4 places
  if (heap_figures) {
    MESSAGE("unbounded: heap after warm-up " << q.heap_after_warmup << " bytes; most " << q.heap_most);
    CHECK(q.heap_most <= q.heap_after_warmup + 1024 * 1024);
  }
}
