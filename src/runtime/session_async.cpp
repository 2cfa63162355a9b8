// Session::run_async and AsyncRun: a run handed to one of the session's threads.
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "ge/core/detail/out_of_memory.hpp"
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

// The async jobs this thread is inside, innermost first (jobs may nest: oneTBB can run
// another job on a thread that waits inside one).
struct AsyncJobMark;
thread_local const AsyncJobMark* innermost_job = nullptr;

struct AsyncJobMark {
  const void* impl;
  const AsyncJobMark* outer;
  explicit AsyncJobMark(const void* i) noexcept : impl(i), outer(innermost_job) { innermost_job = this; }
  ~AsyncJobMark() { innermost_job = outer; }
  AsyncJobMark(const AsyncJobMark&) = delete;
  AsyncJobMark& operator=(const AsyncJobMark&) = delete;
};

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

namespace detail {
bool in_async_job_of(const void* impl) noexcept {
  for (const AsyncJobMark* m = innermost_job; m != nullptr; m = m->outer)
    if (m->impl == impl) return true;
  return false;
}
}  // namespace detail

Session::~Session() {
  std::unique_lock lock(impl_->async_mutex);
  if (detail::in_async_job_of(impl_.get())) {
    // Destroyed by one of its own async runs (its callback dropped the last owner):
    // waiting would wait for this very thread, and with one thread for the runs queued
    // behind it. Runs touch only the Impl: the last job in flight frees it once its
    // callback has returned (session_async.cpp), after this object is gone.
    impl_->orphaned = true;
    lock.unlock();
    (void)impl_.release();
    return;
  }
  // Async runs hold the Impl: wait for the last (its final touch of `impl_` is under
  // the lock, so nothing of it runs once this returns).
  impl_->async_done.wait(lock, [&] { return impl_->in_flight == 0; });
}

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
  return detail::guard_memory("[ge.runtime] starting an async run", [&] {
    auto state = std::make_shared<AsyncRun::State>();
    detail::check_inputs(inputs, model_->inputs());
    state->views.assign(inputs.begin(), inputs.end());  // a view holds its dims
    state->done = std::move(done);
    {
      const std::lock_guard lock(impl_->async_mutex);
      ++impl_->in_flight;
    }
    // The job touches only the Impl, never `this`: the session may be destroyed by the
    // run's own callback (or by the last owner dropped with `state`), and then the last
    // job in flight frees the Impl.
    Impl* const impl = impl_.get();
    try {
      impl->scheduler.enqueue([impl, state]() mutable {
        const AsyncJobMark mark(impl);
        try {
          if (state->cancel.load(std::memory_order_relaxed))
            raise(Errc::cancelled, "[ge.runtime] the run was cancelled before it started");
          RunResult r = impl->run(state->views, {}, false, &state->cancel);
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
        // The job's hold on the run (and on whatever its callback owns, perhaps the session)
        // ends here, while this thread is still marked as running a job of `impl`.
        state.reset();
        bool last = false;
        {
          // The last touch of the Impl, under its lock (see ~Session).
          const std::lock_guard lock(impl->async_mutex);
          --impl->in_flight;
          last = impl->orphaned && impl->in_flight == 0;
          impl->async_done.notify_all();
        }
        if (last) delete impl;  // the session is gone and no other job holds it
      });
    } catch (...) {  // not queued (no memory for the job): it is not in flight
      const std::lock_guard lock(impl->async_mutex);
      --impl->in_flight;
      impl->async_done.notify_all();
      throw;
    }
    AsyncRun a;
    a.state_ = std::move(state);
    return a;
  });
}

AsyncRun Session::run_async(std::span<const NamedTensor> inputs, RunCallback done) {
  const std::vector<TensorView> in = detail::by_name(inputs, model_->inputs(), "input");
  return run_async(std::span<const TensorView>(in), std::move(done));
}

}  // namespace ge
