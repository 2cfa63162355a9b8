// Session: picks the plan, binds it to a run context's arena, and runs its steps through
// the host scheduler and the device. See include/ge/runtime/session.hpp.
#include "ge/runtime/session.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>
#include <new>
#include <unordered_map>

#include "ge/core/detail/out_of_memory.hpp"
#include "ge/core/text.hpp"
#include "ge/device/cpu_device.hpp"
#include "ge/options/option.hpp"
#include "ge/ops/registry.hpp"
#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/plan_select.hpp"
#include "runtime/plan_run.hpp"
#include "runtime/session_impl.hpp"

namespace ge {

namespace {


using detail::Bound;
// Several inputs' dims as text, e.g. `[2,4] [8]`.
std::string dims_list_text(std::span<const TensorView> inputs) {
  std::string s;
  for (const TensorView& t : inputs) s += (s.empty() ? "" : " ") + dims_text(t.dims);
  return s;
}

}  // namespace

void Output::mismatched_values(DataType asked) const {
  raise(Errc::type_mismatch, "[ge.runtime] output " + quoted(name) + " is " + std::string(to_string(dtype)) +
                                 "; values<T>() asked for " + std::string(to_string(asked)) +
                                 " (use the C++ type of the output's dtype)");
}

const Output& RunResult::operator[](std::string_view name) const {
  for (const Output& o : outputs)
    if (o.name == name) return o;
  std::string names;
  for (const Output& o : outputs) names += " " + quoted(o.name);
  raise(Errc::invalid_argument, "[ge.runtime] no output named " + quoted(name) + "; the outputs are:" + names);
}

// Everything one run owns: its arena, streams, events, bound plans.
// The context of a session given the caller's arena (`SessionOptions::arena`) holds that
// memory and never allocates or frees an arena.
struct Session::Context {
  Device& device;
  void* arena = nullptr;
  std::int64_t arena_size = 0;
  bool callers_arena = false;
  std::vector<Stream> streams;
  std::vector<Event> events;
  std::unordered_map<const Plan*, std::unique_ptr<Bound>> bound;

  explicit Context(Device& d) : device(d) {}
  Context(Device& d, std::span<std::byte> given)
      : device(d), arena(given.data()), arena_size(static_cast<std::int64_t>(given.size())), callers_arena(true) {}
  ~Context() {
    if (!callers_arena) device.deallocate(arena);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void ensure_arena(std::int64_t bytes, std::int64_t alignment) {
    if (callers_arena) {
      if (bytes > arena_size)
        raise(Errc::out_of_memory, "[ge.runtime] the plan needs an arena of " + std::to_string(bytes) +
                                       " bytes; the arena the caller gave holds " + std::to_string(arena_size));
      return;
    }
    if (bytes <= arena_size && arena != nullptr) return;
    void* fresh = device.allocate(std::max<std::int64_t>(bytes, alignment), std::max<std::int64_t>(alignment, 64));
    device.deallocate(arena);
    arena = fresh;
    arena_size = bytes;
    bound.clear();  // every binding pointed into the old arena
  }

  Bound& bind(const std::shared_ptr<const Plan>& plan) {
    const auto it = bound.find(plan.get());
    if (it != bound.end()) return *it->second;
    if (bound.size() >= 128) bound.clear();  // per-signature plans: keep the map bounded
    const Plan& p = *plan;
    while (streams.size() < static_cast<std::size_t>(p.streams.stream_count)) streams.push_back(device.create_stream());
    while (events.size() < p.streams.events.size()) events.push_back(device.create_event());
    auto b = detail::bind_plan(plan, arena);
    Bound& ref = *b;
    bound.emplace(plan.get(), std::move(b));
    return ref;
  }
};

Session::Impl::Impl(int threads, std::shared_ptr<const CompiledModel> m, std::shared_ptr<Device> d, bool tr,
                    std::int64_t limit, bool specialize_ranges)
    : model(m),
      device(std::move(d)),
      tracing(tr),
      memory_limit(limit),
      scheduler(threads),
      plans(std::move(m), 0, specialize_ranges) {}

Session::Impl::~Impl() = default;

Session::Session(std::shared_ptr<const CompiledModel> model, SessionOptions options) : model_(std::move(model)) {
  if (!model_) raise(Errc::invalid_argument, "[ge.runtime] Session: null model");
  if (options.threads < 0)
    raise(Errc::invalid_argument, "[ge.runtime] Session: threads " + std::to_string(options.threads) + "; expected >= 0");
  if (options.memory_limit < 0)
    raise(Errc::invalid_argument,
          "[ge.runtime] Session: memory_limit " + std::to_string(options.memory_limit) + "; expected >= 0 (0: none)");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (options.threads > cores) {
    notices_.push_back("threads " + std::to_string(options.threads) + " asked; this machine has " +
                       std::to_string(cores) + " cores: using " + std::to_string(cores));
    options.threads = cores;
  }
  device_ = options.device ? std::move(options.device) : std::make_shared<CpuDevice>();
  trace_ = options.trace;
  memory_limit_ = options.memory_limit;
  if (options.pad_to_gear && model_->gears().empty())
    raise(Errc::missing_gears, "[ge.runtime] Session: pad_to_gear on a model without gears (mode " +
                                   std::string(to_string(model_->mode())) + "); expected a model compiled with "
                                   "DYNAMIC_BATCH_SIZE, DYNAMIC_IMAGE_SIZE or DYNAMIC_DIMS");
  impl_ = std::make_unique<Impl>(options.threads, model_, device_, trace_, memory_limit_, options.specialize_ranges);
  impl_->pad_to_gear = options.pad_to_gear;
  if (!options.arena.empty()) {
    const std::int64_t align = std::max<std::int64_t>(model_->settings().alignment, 64);
    if (reinterpret_cast<std::uintptr_t>(options.arena.data()) % static_cast<std::uintptr_t>(align) != 0)
      raise(Errc::invalid_argument, "[ge.runtime] Session: the arena given starts at an address that is no multiple of " +
                                        std::to_string(align) + " (the model's alignment)");
    if (static_cast<std::int64_t>(options.arena.size()) < model_->arena_bytes())
      raise(Errc::invalid_argument, "[ge.runtime] Session: the arena given holds " + std::to_string(options.arena.size()) +
                                        " bytes; the model's plans need " + std::to_string(model_->arena_bytes()));
    impl_->callers = std::make_unique<Context>(*device_, options.arena);
  }
}

int Session::threads() const noexcept { return impl_->scheduler.threads(); }

CacheStats Session::plan_cache_stats() const { return impl_->plans.cache_stats(); }

namespace {

// What a run of `plan` reports, and (into a RunResult) its outputs' descriptions.
RunInfo describe_run(const CompiledModel& m, const std::shared_ptr<const Plan>& plan, OutputSink sink) {
  RunInfo info;
  info.gear = plan->gear;
  info.plan = plan->gear >= 0 ? PlanKind::gear
              : std::find(m.plans().begin(), m.plans().end(), plan) == m.plans().end() ? PlanKind::signature
              : m.mode() == ShapeMode::fixed ? PlanKind::fixed
                                             : PlanKind::range;
  info.arena_bytes = plan->arena_bytes();
  if (sink.result != nullptr) {
    RunResult& result = *sink.result;
    result.outputs.resize(m.outputs().size());
    for (std::size_t o = 0; o < m.outputs().size(); ++o) {
      result.outputs[o].name = m.outputs()[o].name;
      result.outputs[o].dtype = m.outputs()[o].dtype;
      result.outputs[o].format = m.outputs()[o].format;
    }
  }
  return info;
}

}  // namespace

RunResult Session::run(std::span<const TensorView> inputs) { return run_impl(inputs, {}, false); }

RunResult Session::run(std::span<const TensorView> inputs, std::span<const TensorView> outputs) {
  return run_impl(inputs, outputs, true);
}

RunInfo Session::run_into(std::span<const TensorView> inputs, std::span<TensorView> outputs) {
  return impl_->run_into(inputs, outputs);
}

RunResult Session::run(std::span<const NamedTensor> inputs) {
  const std::vector<TensorView> in = detail::by_name(inputs, model_->inputs(), "input");
  return run_impl(in, {}, false);
}

RunResult Session::run(std::span<const NamedTensor> inputs, std::span<const NamedTensor> outputs) {
  const std::vector<TensorView> in = detail::by_name(inputs, model_->inputs(), "input");
  const std::vector<TensorView> out = detail::by_name(outputs, model_->outputs(), "output");
  return run_impl(in, out, true);
}

RunResult Session::run_impl(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                            bool caller_outputs, const std::atomic<bool>* cancel) {
  return impl_->run(inputs, outputs, caller_outputs, cancel);
}

RunResult Session::Impl::run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                             bool caller_outputs, const std::atomic<bool>* cancel) {
  return detail::guard_memory("[ge.runtime] a run", [&] {
    RunResult r;
    set_info(r, run_unguarded(inputs, outputs, caller_outputs, cancel, {&r, {}}));
    return r;
  });
}

RunInfo Session::Impl::run_into(std::span<const TensorView> inputs, std::span<TensorView> outputs) {
  return detail::guard_memory("[ge.runtime] a run", [&] {
    return run_unguarded(inputs, std::span<const TensorView>(outputs.data(), outputs.size()), true, nullptr,
                         {nullptr, outputs});
  });
}

RunInfo Session::Impl::run_unguarded(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                                     bool caller_outputs, const std::atomic<bool>* cancel, OutputSink sink) {
  const CompiledModel& m = *model;
  detail::check_inputs(inputs, m.inputs());
  if (caller_outputs) detail::check_output_buffers(outputs, inputs, m.inputs(), m.outputs());
  if (pad_to_gear)
    if (auto padded = run_padded(inputs, sink.result ? outputs : std::span<const TensorView>{},
                                 caller_outputs && sink.result, cancel))
      return hand_padded(std::move(*padded), sink);
  const std::shared_ptr<const Plan> plan_ptr = plans.select(inputs);
  const Plan& plan = *plan_ptr;
  const std::int64_t arena = std::max(m.arena_bytes(), plan.arena_bytes());
  if (memory_limit > 0 && arena > memory_limit)
    raise(Errc::out_of_memory, "[ge.runtime] the plan for input dims " + dims_list_text(inputs) + " needs an arena of " +
                                   std::to_string(arena) + " bytes; the session's memory_limit is " +
                                   std::to_string(memory_limit));

  // The context holding the caller's arena, one run at a time (its turn ends however the
  // run ends); a run nested on the thread whose run holds it, and every run of a session
  // without one, takes a context from the pool (returned however the run ends).
  struct Turn {
    Impl& impl;
    std::unique_lock<std::mutex> lock;
    ~Turn() {
      if (lock.owns_lock()) impl.callers_owner.store(std::thread::id{});
    }
  } turn{*this, {}};
  std::unique_ptr<Context> pooled;
  struct Return {
    Impl& impl;
    std::unique_ptr<Context>& ctx;
    ~Return() {
      if (!ctx) return;
      std::lock_guard lock(impl.mutex);
      impl.free.push_back(std::move(ctx));
    }
  } give_back{*this, pooled};
  Context* ctx = nullptr;
  if (callers && callers_owner.load() != std::this_thread::get_id()) {
    turn.lock = std::unique_lock(callers_mutex);
    callers_owner.store(std::this_thread::get_id());
    ctx = callers.get();
  } else {
    {
      std::lock_guard lock(mutex);
      if (!free.empty()) {
        pooled = std::move(free.back());
        free.pop_back();
      }
    }
    if (!pooled) pooled = std::make_unique<Context>(*device);
    ctx = pooled.get();
  }
  ctx->ensure_arena(arena, m.settings().alignment);
  Bound& b = ctx->bind(plan_ptr);

  RunInfo info = describe_run(m, plan_ptr, sink);
  std::shared_ptr<RunTrace> trace;
  detail::PlanRun run(plan, b, ctx->device, ctx->streams, ctx->events, outputs, caller_outputs, sink, trace,
                      memory_limit, arena);
  run.bind(inputs);
  for (const Event e : ctx->events) ctx->device.reset(e);
  if (tracing) {
    trace = std::make_shared<RunTrace>();
    trace->plan = plan_ptr;
    trace->steps.resize(plan.steps.size());
    trace->start = detail::now_ns();
  }
  const auto step = [&](std::int32_t s) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed))
      raise(Errc::cancelled, "[ge.runtime] the run was cancelled before step " + std::to_string(s) + " of " +
                                 std::to_string(plan.steps.size()));
    run.step(s);
  };
  if (b.flat) {
    scheduler.within([&] {
      for (std::int32_t s = 0; s < static_cast<std::int32_t>(plan.steps.size()); ++s) step(s);
    });
  } else {
    scheduler.run(b.graph, step, std::span<std::atomic<std::int32_t>>(b.waiting.get(), plan.steps.size()));
  }
  if (trace) {
    trace->end = detail::now_ns();
    if (!plan.static_shapes) trace->dims = b.dims;  // every value's real dims in this run
    info.trace = std::move(trace);
  }
  run.collect_outputs();
  return info;
}

// A padded run's result handed to the sink: as it is, or copied into the caller's views.
RunInfo Session::Impl::hand_padded(RunResult&& r, OutputSink sink) {
  const RunInfo info = info_of(r);
  if (sink.result != nullptr) {
    *sink.result = std::move(r);
    return info;
  }
  for (std::size_t o = 0; o < r.outputs.size(); ++o) {
    const Output& y = r.outputs[o];
    TensorView& v = sink.into[o];
    detail::check_holds(v, y.bytes, [&] { return "output " + std::to_string(o) + " " + quoted(y.name); });
    if (y.bytes > 0) std::memcpy(v.data, y.data, static_cast<std::size_t>(y.bytes));
    v.dims = ViewDims(y.dims);
  }
  return info;
}

}  // namespace ge
