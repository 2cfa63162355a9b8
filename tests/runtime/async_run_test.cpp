// Session::run_async and AsyncRun: results equal serial runs (many runs from many
// threads, ranges and gears), callbacks, errors at the call and in the run, cancel
// before and during a run, and a session destroyed with runs in flight.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "../../examples/models/mobilenet_v2.hpp"
#include "ge/ge.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::DataType;
using ge::TensorView;
using ge::test::expect_error;

struct Input {
  ge::Tensor t;
  std::vector<std::int64_t> dims;
  TensorView view() const { return {const_cast<std::byte*>(t.bytes().data()), DataType::f32, dims}; }
};

Input image(std::int64_t batch, std::uint64_t seed) {
  return {ge::Tensor::random(DataType::f32, {batch, 3, 32, 32}, seed), {batch, 3, 32, 32}};
}

std::vector<float> values(const ge::RunResult& r) {
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

// A one-slot gate: `wait` blocks until `open`.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool is_open = false;
  void open() {
    const std::lock_guard lock(m);
    is_open = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return is_open; });
  }
};

}  // namespace

TEST_CASE("run_async: many runs from many threads equal serial runs, with gears and callbacks") {
  const auto model = ge::compile(ge::models::mobilenet_v2("-1,3,32,32"),
                                 {{"ge.inputShape", "data:-1,3,32,32"}, {"ge.dynamicBatchSize", "1,2,3"}});
  std::vector<Input> inputs;
  std::vector<std::vector<float>> expected;
  {
    ge::Session serial(model, {.threads = 1});
    for (std::uint64_t k = 0; k < 6; ++k) {
      inputs.push_back(image(static_cast<std::int64_t>(k % 3 + 1), k + 1));
      expected.push_back(values(serial.run({inputs.back().view()})));
    }
  }
  ge::Session s(model, {.threads = 2});
  std::atomic<int> callbacks{0}, mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      std::vector<std::pair<std::size_t, ge::AsyncRun>> runs;
      for (std::size_t k = 0; k < 12; ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(t)) % inputs.size();
        runs.emplace_back(i, s.run_async({inputs[i].view()}, [&, i](const ge::RunResult* r, std::exception_ptr e) {
                            if (r == nullptr || e || values(*r) != expected[i]) ++mismatches;
                            ++callbacks;
                          }));
      }
      for (auto& [i, run] : runs)
        if (values(run.get()) != expected[i]) ++mismatches;
    });
  for (auto& th : threads) th.join();
  CHECK(mismatches.load() == 0);
  // Every callback ran before its run's get returned or soon after: wait for the last.
  ge::AsyncRun last = s.run_async({inputs[0].view()});
  (void)last.get();
  for (int spin = 0; spin < 1000 && callbacks.load() < 36; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(callbacks.load() == 36);
}

TEST_CASE("run_async: bad inputs throw at the call; a run's own error comes back through get and the callback") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "1~4,8");
  b.output(x.relu("r"));
  ge::Session s(ge::compile(b.build()));
  std::vector<float> data(40, 1.0f);
  const std::int64_t too_big[] = {5, 8};
  const std::int64_t ok[] = {2, 8};
  // Out of the range: the check is made when the run is made, not at the call.
  std::exception_ptr seen;
  std::atomic<bool> called{false};
  ge::AsyncRun bad = s.run_async({TensorView{data.data(), DataType::f32, too_big}}, [&](const ge::RunResult* r, std::exception_ptr e) {
    CHECK(r == nullptr);
    seen = e;
    called = true;
  });
  expect_error([&] { (void)bad.get(); }, ge::Errc::out_of_range);
  for (int spin = 0; spin < 1000 && !called; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(called.load());
  CHECK(seen != nullptr);
  // Count and data type: at the call.
  expect_error([&] { (void)s.run_async(std::span<const TensorView>{}); }, ge::Errc::bad_tensor, "0 inputs given");
  expect_error([&] { (void)s.run_async({TensorView{data.data(), DataType::i32, ok}}); }, ge::Errc::bad_tensor, "i32");
  expect_error([&] { (void)s.run_async({ge::NamedTensor{"y", TensorView{data.data(), DataType::f32, ok}}}); },
               ge::Errc::bad_tensor, "'y'", "inputs: 'x'");
  // By name, then the session still runs.
  ge::AsyncRun good = s.run_async({ge::NamedTensor{"x", TensorView{data.data(), DataType::f32, ok}}});
  CHECK(good.get().outputs[0].dims == std::vector<std::int64_t>{2, 8});
  CHECK(good.ready());
  CHECK(good.get().outputs[0].values<float>()[0] == 1.0f);  // again: the same result
  const ge::AsyncRun none;
  CHECK_FALSE(none.valid());
  CHECK_FALSE(none.ready());
  expect_error([&] { (void)none.get(); }, ge::Errc::invalid_argument, "no run");
}

TEST_CASE("run_async: a run cancelled before it starts never runs; one cancelled while running stops") {
  const auto model = ge::compile(ge::models::mobilenet_v2("1,3,32,32"));
  const Input in = image(1, 3);
  ge::Session s(model, {.threads = 1});  // one thread: the second run waits for the first
  Gate gate;
  std::atomic<bool> second_ran{false};
  ge::AsyncRun first = s.run_async({in.view()}, [&](const ge::RunResult*, std::exception_ptr) { gate.wait(); });
  ge::AsyncRun second = s.run_async({in.view()}, [&](const ge::RunResult* r, std::exception_ptr) { second_ran = r != nullptr; });
  second.cancel();
  gate.open();
  CHECK_FALSE(values(first.get()).empty());
  expect_error([&] { (void)second.get(); }, ge::Errc::cancelled, "cancelled before it started");
  CHECK_FALSE(second_ran.load());
  // While running: it ends either way, with its result or cancelled at a step.
  for (int k = 0; k < 5; ++k) {
    ge::AsyncRun r = s.run_async({in.view()});
    std::this_thread::sleep_for(std::chrono::microseconds(200 * k));
    r.cancel();
    r.wait();
    const ge::Error e = ge::test::error_of([&] { (void)r.get(); });
    CHECK((e.code() == ge::Errc::ok || e.code() == ge::Errc::cancelled));
  }
  CHECK_FALSE(values(s.run({in.view()})).empty());  // the session runs on
}

TEST_CASE("run_async: a session destroyed with runs in flight waits for them") {
  const auto model = ge::compile(ge::models::mobilenet_v2("2,3,32,32"));
  const Input in = image(2, 4);
  std::atomic<int> ended{0};
  std::vector<ge::AsyncRun> runs;
  {
    ge::Session s(model, {.threads = 2});
    for (int k = 0; k < 8; ++k)
      runs.push_back(s.run_async({in.view()}, [&](const ge::RunResult* r, std::exception_ptr) { ended += r ? 1 : 0; }));
  }
  CHECK(ended.load() == 8);
  for (auto& r : runs) CHECK(r.ready());
  CHECK(runs[7].get().outputs[0].dims == std::vector<std::int64_t>{2, 1000});
}

TEST_CASE("run_async: a failed run nobody asks about, and a callback that throws, are logged at error level") {
  std::mutex mu;
  std::vector<std::pair<ge::LogLevel, std::string>> logged;
  ge::set_log_sink([&](ge::LogLevel level, std::string_view m) {
    const std::lock_guard lock(mu);
    logged.emplace_back(level, std::string(m));
  });
  const auto count = [&](std::string_view text) {
    const std::lock_guard lock(mu);
    int n = 0;
    for (const auto& [level, m] : logged)
      if (level == ge::LogLevel::error && m.find(text) != std::string::npos) ++n;
    return n;
  };
  const auto await = [&](std::string_view text, int n) {
    for (int spin = 0; spin < 2000 && count(text) < n; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return count(text);
  };
  {
    ge::GraphBuilder b;
    const auto x = b.input("x", DataType::f32, "1~4,8");
    b.output(x.relu("r"));
    ge::Session s(ge::compile(b.build()));
    std::vector<float> data(40, 1.0f);
    const std::int64_t too_big[] = {5, 8};
    const std::int64_t ok[] = {2, 8};
    // Received through get: not logged.
    {
      const ge::AsyncRun seen = s.run_async({TensorView{data.data(), DataType::f32, too_big}});
      expect_error([&] { (void)seen.get(); }, ge::Errc::out_of_range);
    }
    // Dropped after a wait, never asked: logged once its last owner lets go.
    {
      const ge::AsyncRun dropped = s.run_async({TensorView{data.data(), DataType::f32, too_big}});
      dropped.wait();
    }
    CHECK(await("nobody asked for its result", 1) == 1);
    // A callback that throws.
    s.run_async({TensorView{data.data(), DataType::f32, ok}},
                [](const ge::RunResult*, std::exception_ptr) { throw std::runtime_error("callback boom"); })
        .wait();
    CHECK(await("callback threw (ignored): callback boom", 1) == 1);
  }
  CHECK(count("nobody asked for its result") == 1);
  ge::set_log_sink(nullptr);
}

// A server that drops a model when its last request ends destroys the session from the
// run's own callback: ~Session once waited for that very callback (a deadlock). Now the
// destruction ends when the callback returns; runs queued behind it (one thread) still
// run and call back; the last job frees what the session held (the model's use count
// comes back to the test's one).
TEST_CASE("run_async: a session destroyed from its own callback, its last owner dropped there, does not hang") {
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, "2,4").relu("y"));
  const auto model = ge::compile(b.build());
  std::vector<float> x{-1.f, 2.f, -3.f, 4.f, 5.f, -6.f, 7.f, -8.f};
  const std::vector<float> want{0.f, 2.f, 0.f, 4.f, 5.f, 0.f, 7.f, 0.f};
  const TensorView in(std::span<float>(x), {2, 4});
  struct Box {
    std::mutex m;
    std::condition_variable cv;
    std::shared_ptr<ge::Session> session;
    int called = 0, good = 0;
  };
  const auto wait_for = [](const std::function<bool()>& done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return done();
  };
  for (const int threads : {1, 2}) {
    for (const int runs : {1, 4}) {
      for (const bool by_capture : {false, true}) {
        CAPTURE(threads);
        CAPTURE(runs);
        CAPTURE(by_capture);
        auto box = std::make_shared<Box>();
        box->session = std::make_shared<ge::Session>(model, ge::SessionOptions{.threads = threads});
        REQUIRE(model.use_count() > 1);
        {
          std::shared_ptr<ge::Session> s = box->session;
          for (int k = 0; k < runs; ++k) {
            // by_capture: each callback owns the session; the last one's end drops it.
            // Else the box owns it and the first callback drops it.
            std::shared_ptr<ge::Session> owner = by_capture ? s : nullptr;
            (void)s->run_async({in}, [box, owner, want](const ge::RunResult* r, std::exception_ptr) {
              const bool ok = r != nullptr && values(*r) == want;
              std::shared_ptr<ge::Session> dropped;
              {
                const std::lock_guard lock(box->m);
                ++box->called;
                box->good += ok ? 1 : 0;
                dropped = std::move(box->session);
              }
              dropped.reset();  // ~Session here, on the run's thread, when this was the last owner
              box->cv.notify_all();
            });
          }
          if (by_capture) {
            const std::lock_guard lock(box->m);
            box->session.reset();  // the callbacks own it now
          }
        }
        const bool all_called = wait_for([&] {
          const std::lock_guard lock(box->m);
          return box->called == runs;
        });
        REQUIRE(all_called);
        CHECK(box->good == runs);
        CHECK(wait_for([&] { return model.use_count() == 1; }));  // everything the session held is freed
      }
    }
  }
}
