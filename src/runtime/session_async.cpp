// Session::run_async and AsyncRun: a run handed to one of the session's threads.
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "ge/core/log.hpp"
#include "runtime/session_impl.hpp"

namespace ge {

struct AsyncRun::State {
  std::atomic<bool> cancel{false};
  std::mutex mutex;
  std::condition_variable ended_cv;
  bool ended = false;
  std::optional<RunResult> result;
  std::exception_ptr error;
  // The inputs, their dims owned here.
  std::vector<std::vector<std::int64_t>> dims;
  std::vector<TensorView> views;
  RunCallback done;
  bool observed = false;  // a callback or get() received the outcome

  // A failed run whose error nobody received would fail silently: say so in the log.
  ~State() {
    if (!error || observed) return;
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      if (e.code() != Errc::cancelled)
        log_message(LogLevel::error, std::string("[ge.runtime] an async run failed and nobody asked for its result "
                                                 "(AsyncRun::get): ") + e.what());
    } catch (const std::exception& e) {
      log_message(LogLevel::error, std::string("[ge.runtime] an async run failed and nobody asked for its result "
                                               "(AsyncRun::get): ") + e.what());
    } catch (...) {
    }
  }
};

namespace {
// What `error` says, for the log.
std::string what_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is no std::exception";
  }
}
}  // namespace

bool AsyncRun::ready() const {
  if (!state_) return false;
  const std::lock_guard lock(state_->mutex);
  return state_->ended;
}

void AsyncRun::wait() const {
  if (!state_) raise(Errc::invalid_argument, "[ge.runtime] AsyncRun::wait on an AsyncRun that refers to no run");
  std::unique_lock lock(state_->mutex);
  state_->ended_cv.wait(lock, [&] { return state_->ended; });
}

RunResult AsyncRun::get() const {
  if (!state_) raise(Errc::invalid_argument, "[ge.runtime] AsyncRun::get on an AsyncRun that refers to no run");
  wait();
  const std::lock_guard lock(state_->mutex);
  state_->observed = true;
  if (state_->error) std::rethrow_exception(state_->error);
  return *state_->result;
}

void AsyncRun::cancel() noexcept {
  if (state_) state_->cancel.store(true, std::memory_order_relaxed);
}

AsyncRun Session::run_async(std::span<const TensorView> inputs, RunCallback done) {
  auto state = std::make_shared<AsyncRun::State>();
  state->dims = detail::checked_inputs(inputs, model_->inputs());
  for (std::size_t i = 0; i < inputs.size(); ++i) state->views.push_back({inputs[i].data, inputs[i].dtype, state->dims[i]});
  state->done = std::move(done);
  {
    const std::lock_guard lock(impl_->async_mutex);
    ++impl_->in_flight;
  }
  impl_->scheduler.enqueue([this, state] {
    try {
      if (state->cancel.load(std::memory_order_relaxed))
        raise(Errc::cancelled, "[ge.runtime] the run was cancelled before it started");
      RunResult r = run_impl(state->views, {}, false, &state->cancel);
      const std::lock_guard lock(state->mutex);
      state->result = std::move(r);
    } catch (...) {
      const std::lock_guard lock(state->mutex);
      state->error = std::current_exception();
    }
    {
      const std::lock_guard lock(state->mutex);
      state->ended = true;
      state->ended_cv.notify_all();
    }
    if (state->done) {
      {
        const std::lock_guard lock(state->mutex);
        state->observed = true;
      }
      try {
        state->done(state->result ? &*state->result : nullptr, state->error);
      } catch (...) {  // a callback must not throw: what it threw has no one to go to but the log
        log_message(LogLevel::error, "[ge.runtime] a run_async callback threw (ignored): " + what_of(std::current_exception()));
      }
    }
    // The last touch of the session, under its lock (see ~Session).
    const std::lock_guard lock(impl_->async_mutex);
    --impl_->in_flight;
    impl_->async_done.notify_all();
  });
  AsyncRun a;
  a.state_ = std::move(state);
  return a;
}

AsyncRun Session::run_async(std::span<const NamedTensor> inputs, RunCallback done) {
  const std::vector<TensorView> in = detail::by_name(inputs, model_->inputs(), "input");
  return run_async(std::span<const TensorView>(in), std::move(done));
}

}  // namespace ge
