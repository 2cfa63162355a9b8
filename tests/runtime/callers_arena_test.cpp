// Session with the caller's arena (SessionOptions::arena): the steps' values live in the
// caller's memory, its alignment and size are checked, runs take turns on it, and a
// per-signature plan that needs more is refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "ge/ge.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::DataType;
using ge::test::expect_error;

// x -> relu -> *2 -> +1 -> y: two values between the steps live in the arena.
ge::Graph chain(std::string_view shape) {
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, shape).relu("relu") * 2.0 + 1.0);
  return b.build();
}

// 64-byte aligned memory of `n` bytes, filled with 0xAB.
struct Aligned {
  std::byte* p;
  std::size_t n;
  explicit Aligned(std::size_t bytes) : p(static_cast<std::byte*>(::operator new(bytes + 64, std::align_val_t{64}))), n(bytes) {
    std::fill(p, p + n + 64, std::byte{0xAB});
  }
  ~Aligned() { ::operator delete(p, std::align_val_t{64}); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  [[nodiscard]] std::span<std::byte> span() const { return {p, n}; }
  [[nodiscard]] std::size_t touched() const {
    return static_cast<std::size_t>(std::count_if(p, p + n, [](std::byte b) { return b != std::byte{0xAB}; }));
  }
};

std::vector<float> inputs(std::size_t n, float start) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = start + 0.25f * static_cast<float>(i);
  return x;
}

void check_chain(const ge::RunResult& r, const std::vector<float>& x) {
  const auto y = r.outputs[0].values<float>();
  REQUIRE(y.size() == x.size());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(y[i] == doctest::Approx(std::max(x[i], 0.0f) * 2 + 1));
}

}  // namespace

TEST_CASE("Session: the caller's arena holds the values between the steps") {
  const auto model = ge::compile(chain("64,16"));
  REQUIRE(model->arena_bytes() > 0);
  Aligned work(static_cast<std::size_t>(model->arena_bytes()));
  ge::Session s(model, {.threads = 1, .arena = work.span()});
  std::vector<float> x = inputs(64 * 16, -50.0f);
  const std::int64_t dims[] = {64, 16};
  check_chain(s.run({ge::TensorView{x.data(), DataType::f32, dims}}), x);
  CHECK(work.touched() > 0);  // the steps wrote there
  CHECK(std::all_of(work.p + work.n, work.p + work.n + 64, [](std::byte b) { return b == std::byte{0xAB}; }));  // and no further
  // Again, and from four threads at once: they take turns.
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> xt = inputs(64 * 16, static_cast<float>(t) - 20.0f);
      for (int k = 0; k < 10; ++k) {
        const ge::RunResult r = s.run({ge::TensorView{xt.data(), DataType::f32, dims}});
        const auto y = r.outputs[0].values<float>();
        bool good = true;
        for (std::size_t i = 0; i < xt.size(); ++i) good = good && y[i] == std::max(xt[i], 0.0f) * 2 + 1;
        ok[static_cast<std::size_t>(t)] += good ? 1 : 0;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(ok == std::vector<int>(4, 10));
}

TEST_CASE("Session: async runs on the caller's arena equal serial runs") {
  const auto model = ge::compile(chain("32,8"));
  Aligned work(static_cast<std::size_t>(model->arena_bytes()));
  ge::Session s(model, {.threads = 2, .arena = work.span()});
  const std::int64_t dims[] = {32, 8};
  std::vector<std::vector<float>> xs;
  for (int k = 0; k < 8; ++k) xs.push_back(inputs(32 * 8, static_cast<float>(k) - 30.0f));
  std::vector<ge::AsyncRun> runs;
  for (auto& x : xs) runs.push_back(s.run_async({ge::TensorView{x.data(), DataType::f32, dims}}));
  for (std::size_t k = 0; k < runs.size(); ++k) check_chain(runs[k].get(), xs[k]);
}

TEST_CASE("Session: the caller's arena must be aligned and large enough") {
  const auto model = ge::compile(chain("64,16"));
  const auto need = static_cast<std::size_t>(model->arena_bytes());
  Aligned work(need + 64);
  expect_error([&] { ge::Session bad(model, {.arena = {work.p + 8, need}}); }, ge::Errc::invalid_argument,
               "no multiple of 64");
  expect_error([&] { ge::Session bad(model, {.arena = {work.p, need - 1}}); }, ge::Errc::invalid_argument,
               "holds " + std::to_string(need - 1) + " bytes; the model's plans need " + std::to_string(need));
  ge::Session fine(model, {.arena = {work.p + 64, need}});  // any multiple of the alignment, exactly the size
  std::vector<float> x = inputs(64 * 16, -5.0f);
  const std::int64_t dims[] = {64, 16};
  check_chain(fine.run({ge::TensorView{x.data(), DataType::f32, dims}}), x);
}

TEST_CASE("Session: a per-signature plan larger than the caller's arena is refused; smaller ones run") {
  const auto model = ge::compile(chain("-1,16"));
  REQUIRE(model->plans_per_signature());
  Aligned work(8192);
  ge::Session s(model, {.threads = 1, .arena = work.span()});
  std::vector<float> big = inputs(4096 * 16, -100.0f);
  const std::int64_t big_dims[] = {4096, 16};
  expect_error([&] { (void)s.run({ge::TensorView{big.data(), DataType::f32, big_dims}}); }, ge::Errc::out_of_memory,
               "the arena the caller gave holds 8192");
  std::vector<float> x = inputs(4 * 16, -3.0f);
  const std::int64_t dims[] = {4, 16};
  check_chain(s.run({ge::TensorView{x.data(), DataType::f32, dims}}), x);
  CHECK(work.touched() > 0);
}

TEST_CASE("Session: sync and async runs on the caller's arena at once all finish, equal to serial runs") {
  const auto model = ge::compile(chain("128,32"));
  Aligned work(static_cast<std::size_t>(model->arena_bytes()));
  for (const int threads : {1, 2}) {
    ge::Session s(model, {.threads = threads, .arena = work.span()});
    const std::int64_t dims[] = {128, 32};
    std::vector<std::vector<float>> xs;
    for (int k = 0; k < 12; ++k) xs.push_back(inputs(128 * 32, static_cast<float>(k) - 40.0f));
    std::vector<ge::AsyncRun> runs;
    for (int k = 0; k < 6; ++k)
      runs.push_back(s.run_async({ge::TensorView{xs[static_cast<std::size_t>(k)].data(), DataType::f32, dims}}));
    for (std::size_t k = 6; k < 12; ++k) check_chain(s.run({ge::TensorView{xs[k].data(), DataType::f32, dims}}), xs[k]);
    for (std::size_t k = 0; k < 6; ++k) check_chain(runs[k].get(), xs[k]);
  }
}
