// Session: picks the plan, binds it to a run context's arena, and runs its steps through
// the host scheduler and the device. See include/ge/runtime/session.hpp.
#include "ge/runtime/session.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <new>
#include <unordered_map>

#include "compile/run_step.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/device/cpu_device.hpp"
#include "ge/options/option.hpp"
#include "ge/ops/registry.hpp"
#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/plan_select.hpp"
#include "runtime/session_impl.hpp"

namespace ge {

namespace {

std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }

using detail::dims_text;
// Host memory for results, aligned for vector loads; `what` names it in the
// out_of_memory error.
std::shared_ptr<void> allocate_host(std::int64_t bytes, const std::string& what = "a result") {
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1));
  void* p = nullptr;
  try {
    p = ::operator new(n, std::align_val_t{64});
  } catch (const std::bad_alloc&) {
    raise(Errc::out_of_memory, "[ge.runtime] no memory for " + std::to_string(bytes) + " bytes of " + what);
  }
  return {p, [](void* q) { ::operator delete(q, std::align_val_t{64}); }};
}

// Several inputs' dims as text, e.g. `[2,4] [8]`.
std::string dims_list_text(const std::vector<std::vector<std::int64_t>>& dims) {
  std::string s;
  for (const auto& d : dims) s += (s.empty() ? "" : " ") + dims_text(d);
  return s;
}

// What a launch runs: a kernel on prepared views.
struct StepLaunch {
  const Kernel* kernel = nullptr;
  std::span<const TensorView> in, out;
};

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Host threads numbered from 0 in order of their first traced step.
std::int32_t thread_number() noexcept {
  static std::atomic<std::int32_t> next{0};
  thread_local const std::int32_t mine = next.fetch_add(1, std::memory_order_relaxed);
  return mine;
}

void run_launch(const void* args) {
  const auto* l = static_cast<const StepLaunch*>(args);
  l->kernel->run(l->in, l->out);
}

}  // namespace

void Output::mismatched_values(DataType asked) const {
  raise(Errc::type_mismatch, "[ge.runtime] output " + q(name) + " is " + std::string(to_string(dtype)) +
                                 "; values<T>() asked for " + std::string(to_string(asked)) +
                                 " (use the C++ type of the output's dtype)");
}

const Output& RunResult::operator[](std::string_view name) const {
  for (const Output& o : outputs)
    if (o.name == name) return o;
  std::string names;
  for (const Output& o : outputs) names += " " + q(o.name);
  raise(Errc::invalid_argument, "[ge.runtime] no output named " + q(name) + "; the outputs are:" + names);
}

// A plan bound to one context: data pointers, dims, and prepared launches.
struct Bound {
  std::shared_ptr<const Plan> plan;
  StepGraph graph;
  bool flat = false;                            // run as one loop in step order
  std::vector<void*> data;                      // per value
  std::vector<std::vector<std::int64_t>> dims;  // per value
  std::vector<TensorView> views;                // static plans: every step's in, then out views
  std::vector<StepLaunch> launches;             // static plans: per step
  std::vector<std::vector<std::int32_t>> value_views;  // per input/output value: indices into views
  std::vector<std::vector<std::int32_t>> waits, records;  // per step: event indices
  std::vector<std::shared_ptr<void>> dynamic;   // per value: per-run memory of `dynamic` values
  std::vector<std::int64_t> dynamic_bytes;      // per value: its capacity
};

// One run of a bound plan: the run's inputs and outputs bound, memory for the values
// whose size is known only now, each step on its stream, and the results.
class PlanRun {
 public:
  PlanRun(const Plan& plan, Bound& b, Device& dev, const std::vector<Stream>& streams, const std::vector<Event>& events,
          std::span<const TensorView> outputs, bool caller_outputs, RunResult& result,
          const std::shared_ptr<RunTrace>& trace, std::int64_t limit = 0, std::int64_t arena = 0)
      : plan_(plan), b_(b), dev_(dev), streams_(streams), events_(events), outputs_(outputs),
        caller_outputs_(caller_outputs), result_(result), trace_(trace), limit_(limit), used_(arena) {}

  // Binds the run's inputs and (static plans) outputs.
  void bind(std::span<const TensorView> inputs, const std::vector<std::vector<std::int64_t>>& in_dims) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto v = static_cast<std::size_t>(plan_.graph_inputs[i]);
      b_.data[v] = inputs[i].data;
      b_.dims[v] = in_dims[i];
      for (const std::int32_t at : b_.value_views[v]) b_.views[static_cast<std::size_t>(at)].data = inputs[i].data;
    }
    if (!plan_.static_shapes) return;
    for (std::size_t o = 0; o < plan_.graph_outputs.size(); ++o) {
      const auto v = static_cast<std::size_t>(plan_.graph_outputs[o]);
      if (plan_.values[v].storage != Storage::output) continue;
      b_.data[v] = storage_for(v, plan_.values[v].bytes);
      for (const std::int32_t at : b_.value_views[v]) b_.views[static_cast<std::size_t>(at)].data = b_.data[v];
    }
  }

  // Step `s`: waits for its events, runs, records its events (timed when traced).
  void step(std::int32_t s) {
    const auto si = static_cast<std::size_t>(s);
    StepTiming* timing = trace_ ? &trace_->steps[si] : nullptr;
    const Stream stream = streams_[static_cast<std::size_t>(plan_.streams.stream[si])];
    if (timing && !b_.waits[si].empty()) timing->wait_start = now_ns();
    for (const std::int32_t e : b_.waits[si]) dev_.wait(stream, events_[static_cast<std::size_t>(e)]);
    if (timing) {
      timing->start = now_ns();
      if (b_.waits[si].empty()) timing->wait_start = timing->start;
    }
    if (plan_.static_shapes) {
      dev_.launch(stream, {run_launch, &b_.launches[si]});
    } else {
      dynamic_step(plan_.steps[si], stream);
    }
    if (timing) {
      timing->end = now_ns();
      timing->thread = thread_number();
    }
    for (const std::int32_t e : b_.records[si]) dev_.record(events_[static_cast<std::size_t>(e)], stream);
  }

  // The outputs' real descriptions; outputs that are graph inputs or constants are copied.
  void collect_outputs() {
    for (std::size_t o = 0; o < plan_.graph_outputs.size(); ++o) {
      const auto v = static_cast<std::size_t>(plan_.graph_outputs[o]);
      const PlanValue& pv = plan_.values[v];
      Output& out = result_.outputs[o];
      out.dims = b_.dims[v];
      out.bytes = detail::element_count(out.dims) * size_of(pv.desc.dtype);
      if (pv.storage == Storage::output) {
        out.data = b_.data[v];
        continue;
      }
      const void* src = b_.data[v];
      if (caller_outputs_) {
        if (outputs_[o].bytes() < out.bytes || (outputs_[o].data == nullptr && out.bytes > 0))
          raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(pv.name) + " needs " +
                                      std::to_string(out.bytes) + " bytes; the buffer given holds " +
                                      std::to_string(outputs_[o].bytes()));
        out.data = outputs_[o].data;
      } else {
        out.storage = allocate_host(out.bytes, "output " + q(pv.name));
        out.data = out.storage.get();
      }
      if (out.bytes > 0) std::memmove(out.data, src, static_cast<std::size_t>(out.bytes));
    }
    if (!caller_outputs_)
      for (Output& out : result_.outputs)
        if (!out.storage && out.data == nullptr) out.storage = allocate_host(0), out.data = out.storage.get();
  }

 private:
  // A step of a plan whose dims are known only at run time, through the run-step
  // routine execute_op runs too; its outputs get memory once their real dims are known.
  void dynamic_step(const PlanStep& step, Stream stream) {
    std::vector<TensorView> in(step.inputs.size());
    std::vector<const Tensor*> constants(step.inputs.size(), nullptr);
    for (std::size_t i = 0; i < step.inputs.size(); ++i) {
      if (step.inputs[i] < 0) continue;
      const auto v = static_cast<std::size_t>(step.inputs[i]);
      in[i] = {b_.data[v], plan_.values[v].desc.dtype, b_.dims[v]};
      if (plan_.values[v].constant) constants[i] = &*plan_.values[v].constant;
    }
    std::vector<DataType> types;
    for (const std::int32_t v : step.outputs) types.push_back(plan_.values[static_cast<std::size_t>(v)].desc.dtype);
    const auto memory = [&](std::size_t o, DataType dtype, std::span<const std::int64_t> dims) -> void* {
      const auto v = static_cast<std::size_t>(step.outputs[o]);
      b_.dims[v].assign(dims.begin(), dims.end());
      return b_.data[v] = storage_for(v, checked_bytes(dims, dtype));  // (a size past int64: int_overflow)
    };
    const auto launch = [&](std::span<const TensorView> ins, std::span<const TensorView> outs) {
      StepLaunch l{step.kernel.get(), ins, outs};
      dev_.launch(stream, {run_launch, &l});
    };
    const OpSchema& schema = step.schema ? *step.schema : OpRegistry::global().find(step.op);
    detail::run_step({*step.kernel, schema, step.name, step.attrs, in, constants, types}, memory, launch);
  }

  // Memory of a value whose real size is now known.
  void* storage_for(std::size_t v, std::int64_t bytes) {
    const PlanValue& pv = plan_.values[v];
    switch (pv.storage) {
      case Storage::arena:
        if (bytes > pv.bytes)
          raise(Errc::internal, "[ge.runtime] value " + q(pv.name) + " needs " + std::to_string(bytes) +
                                    " bytes, more than the " + std::to_string(pv.bytes) + " planned");
        return b_.data[v];
      case Storage::dynamic:
        if (b_.dynamic_bytes[v] < bytes || !b_.dynamic[v]) {
          charge(bytes, "value " + q(pv.name));
          b_.dynamic[v] = allocate_host(bytes, "value " + q(pv.name));
          b_.dynamic_bytes[v] = bytes;
        }
        return b_.dynamic[v].get();
      case Storage::output: {
        const auto o = static_cast<std::size_t>(pv.index);
        if (caller_outputs_) {
          if (outputs_[o].bytes() < bytes || (outputs_[o].data == nullptr && bytes > 0))
            raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(pv.name) + " needs " +
                                        std::to_string(bytes) + " bytes; the buffer given holds " +
                                        std::to_string(outputs_[o].data ? outputs_[o].bytes() : 0));
          return outputs_[o].data;
        }
        charge(bytes, "output " + q(pv.name));
        result_.outputs[o].storage = allocate_host(bytes, "output " + q(pv.name));
        return result_.outputs[o].storage.get();
      }
      case Storage::input:
      case Storage::constant: break;
    }
    raise(Errc::internal, "[ge.runtime] value " + q(pv.name) + " is written but is an input or constant");
  }

  // Counts `bytes` the run allocates beyond its arena against the session's memory_limit:
  // a value whose size only the run knows (or an output ge allocates) past it is refused
  // before it is allocated (a hostile model's Expand to 2^34 elements).
  void charge(std::int64_t bytes, const std::string& what) {
    if (limit_ <= 0) return;
    const std::int64_t before = used_.fetch_add(bytes);  // steps on several streams allocate at once
    if (bytes > limit_ - before) {
      used_.fetch_sub(bytes);
      raise(Errc::out_of_memory, "[ge.runtime] " + what + " needs " + std::to_string(bytes) + " bytes; with the " +
                                     std::to_string(before) + " this run holds, more than the session's memory_limit of " +
                                     std::to_string(limit_));
    }
  }

  const Plan& plan_;
  Bound& b_;
  Device& dev_;
  const std::vector<Stream>& streams_;
  const std::vector<Event>& events_;
  std::span<const TensorView> outputs_;
  bool caller_outputs_;
  RunResult& result_;
  const std::shared_ptr<RunTrace>& trace_;  // set once the steps start, when tracing
  std::int64_t limit_ = 0;                  // the session's memory_limit (0: none)
  std::atomic<std::int64_t> used_{0};       // the arena, then what the run allocated
};

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

    auto b = std::make_unique<Bound>();
    b->plan = plan;
    b->graph = StepGraph::from(p.streams);
    // One loop in step order (a topological order, so every event a step waits for has
    // fired) for a chain, and for plans of tiny steps, where handing steps between
    // threads costs more than the steps: below 16 KiB written per step on average.
    std::int64_t written = 0;
    for (const PlanStep& s : p.steps)
      for (const std::int32_t v : s.outputs) written += std::max<std::int64_t>(p.values[static_cast<std::size_t>(v)].bytes, 0);
    b->flat = b->graph.chain || written <= static_cast<std::int64_t>(p.steps.size()) * 16384;
    const std::size_t nv = p.values.size();
    b->data.assign(nv, nullptr);
    b->dims.resize(nv);
    b->dynamic.resize(nv);
    b->dynamic_bytes.assign(nv, 0);
    b->value_views.resize(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      const PlanValue& pv = p.values[v];
      if (pv.desc.shape.is_static()) b->dims[v] = pv.desc.shape.values();
      if (pv.storage == Storage::arena) b->data[v] = static_cast<std::byte*>(arena) + pv.offset;
      if (pv.storage == Storage::constant)
        b->data[v] = const_cast<std::byte*>(pv.constant->bytes().data());  // kernels never write inputs
    }
    b->waits.resize(p.steps.size());
    b->records.resize(p.steps.size());
    for (std::size_t e = 0; e < p.streams.events.size(); ++e) {
      b->records[static_cast<std::size_t>(p.streams.events[e].from)].push_back(static_cast<std::int32_t>(e));
      b->waits[static_cast<std::size_t>(p.streams.events[e].to)].push_back(static_cast<std::int32_t>(e));
    }
    if (p.static_shapes) {
      std::size_t total = 0;
      for (const PlanStep& s : p.steps) total += s.inputs.size() + s.outputs.size();
      b->views.resize(total);
      b->launches.resize(p.steps.size());
      std::size_t at = 0;
      const auto view_of = [&](std::int32_t v, std::size_t slot) {
        if (v < 0) return;  // omitted optional input: null view
        const auto vi = static_cast<std::size_t>(v);
        b->views[slot] = {b->data[vi], p.values[vi].desc.dtype, b->dims[vi]};
        const Storage st = p.values[vi].storage;
        if (st == Storage::input || st == Storage::output) b->value_views[vi].push_back(static_cast<std::int32_t>(slot));
      };
      for (std::size_t s = 0; s < p.steps.size(); ++s) {
        const PlanStep& step = p.steps[s];
        const std::size_t in_at = at;
        for (const std::int32_t v : step.inputs) view_of(v, at++);
        const std::size_t out_at = at;
        for (const std::int32_t v : step.outputs) view_of(v, at++);
        b->launches[s] = {step.kernel.get(), std::span<const TensorView>(b->views).subspan(in_at, step.inputs.size()),
                          std::span<const TensorView>(b->views).subspan(out_at, step.outputs.size())};
      }
    }
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

RunResult Session::run(std::span<const TensorView> inputs) { return run_impl(inputs, {}, false); }

RunResult Session::run(std::span<const TensorView> inputs, std::span<const TensorView> outputs) {
  return run_impl(inputs, outputs, true);
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
  return detail::guard_memory("[ge.runtime] a run", [&] { return run_unguarded(inputs, outputs, caller_outputs, cancel); });
}

RunResult Session::Impl::run_unguarded(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                                       bool caller_outputs, const std::atomic<bool>* cancel) {
  const CompiledModel& m = *model;
  const auto in_dims = detail::checked_inputs(inputs, m.inputs());
  if (pad_to_gear)
    if (auto padded = run_padded(inputs, in_dims, outputs, caller_outputs, cancel)) return std::move(*padded);
  if (caller_outputs) detail::check_output_buffers(outputs, inputs, m.inputs(), m.outputs());
  const std::shared_ptr<const Plan> plan_ptr = plans.select(in_dims);
  const Plan& plan = *plan_ptr;
  const std::int64_t arena = std::max(m.arena_bytes(), plan.arena_bytes());
  if (memory_limit > 0 && arena > memory_limit)
    raise(Errc::out_of_memory, "[ge.runtime] the plan for input dims " + dims_list_text(in_dims) + " needs an arena of " +
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

  RunResult result;
  result.gear = plan.gear;
  result.plan = plan.gear >= 0 ? PlanKind::gear
                : std::find(m.plans().begin(), m.plans().end(), plan_ptr) == m.plans().end() ? PlanKind::signature
                : m.mode() == ShapeMode::fixed ? PlanKind::fixed
                                               : PlanKind::range;
  result.arena_bytes = plan.arena_bytes();
  result.outputs.resize(m.outputs().size());
  for (std::size_t o = 0; o < m.outputs().size(); ++o) {
    result.outputs[o].name = m.outputs()[o].name;
    result.outputs[o].dtype = m.outputs()[o].dtype;
    result.outputs[o].format = m.outputs()[o].format;
  }
  std::shared_ptr<RunTrace> trace;
  PlanRun run(plan, b, ctx->device, ctx->streams, ctx->events, outputs, caller_outputs, result, trace, memory_limit,
              arena);
  run.bind(inputs, in_dims);
  for (const Event e : ctx->events) ctx->device.reset(e);
  if (tracing) {
    trace = std::make_shared<RunTrace>();
    trace->plan = plan_ptr;
    trace->steps.resize(plan.steps.size());
    trace->start = now_ns();
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
    scheduler.run(b.graph, step);
  }
  if (trace) {
    trace->end = now_ns();
    if (!plan.static_shapes) trace->dims = b.dims;  // every value's real dims in this run
    result.trace = std::move(trace);
  }
  run.collect_outputs();
  return result;
}

}  // namespace ge
