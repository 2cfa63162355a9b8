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

#include "ge/device/cpu_device.hpp"
#include "ge/ops/registry.hpp"
#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/plan_select.hpp"

namespace ge {

namespace {

std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string dims_text(std::span<const std::int64_t> d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

std::int64_t count(std::span<const std::int64_t> d) {
  std::int64_t n = 1;
  for (const std::int64_t x : d) n *= x;
  return n;
}

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

// True when [a, a + na) and [b, b + nb) share a byte.
bool overlap(const void* a, std::int64_t na, const void* b, std::int64_t nb) noexcept {
  if (a == nullptr || b == nullptr || na <= 0 || nb <= 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + static_cast<std::uintptr_t>(nb) && y < x + static_cast<std::uintptr_t>(na);
}

// The bytes a caller's view describes: its dims non-negative, their product and byte
// size within int64 (`int_overflow`, quoting the dims), and no more than its buffer
// holds when the view knows that (a span, or a capacity given).
std::int64_t view_bytes(const TensorView& t, const std::string& which) {
  for (const std::int64_t d : t.dims)
    if (d < 0) raise(Errc::bad_tensor, "[ge.runtime] " + which + " has a negative dim in " + dims_text(t.dims));
  std::int64_t bytes = 0;
  try {
    bytes = checked_bytes(t.dims, t.dtype);
  } catch (const Error& e) {
    raise(e.code(), "[ge.runtime] " + which + ": " + e.what());
  }
  if (t.capacity >= 0 && t.capacity < bytes)
    raise(Errc::bad_tensor, "[ge.runtime] " + which + " with dims " + dims_text(t.dims) + " needs " +
                                std::to_string(bytes) + " bytes; its buffer holds " + std::to_string(t.capacity));
  return bytes;
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

// Everything one run owns: its arena, streams, events, bound plans.
struct Session::Context {
  Device& device;
  void* arena = nullptr;
  std::int64_t arena_size = 0;
  std::vector<Stream> streams;
  std::vector<Event> events;
  std::unordered_map<const Plan*, std::unique_ptr<Bound>> bound;

  explicit Context(Device& d) : device(d) {}
  ~Context() { device.deallocate(arena); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void ensure_arena(std::int64_t bytes, std::int64_t alignment) {
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

struct Session::Impl {
  HostScheduler scheduler;
  PlanSelector plans;
  std::mutex mutex;
  std::vector<std::unique_ptr<Context>> free;

  Impl(int threads, std::shared_ptr<const CompiledModel> model) : scheduler(threads), plans(std::move(model)) {}
};

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
  impl_ = std::make_unique<Impl>(options.threads, model_);
  trace_ = options.trace;
  memory_limit_ = options.memory_limit;
}

Session::~Session() = default;

int Session::threads() const noexcept { return impl_->scheduler.threads(); }

CacheStats Session::plan_cache_stats() const { return impl_->plans.cache_stats(); }

RunResult Session::run(std::span<const TensorView> inputs) { return run_impl(inputs, {}, false); }

RunResult Session::run(std::span<const TensorView> inputs, std::span<const TensorView> outputs) {
  return run_impl(inputs, outputs, true);
}

RunResult Session::run_impl(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                            bool caller_outputs) {
  const CompiledModel& m = *model_;
  const auto& mi = m.inputs();
  const auto& mo = m.outputs();
  // The inputs: count, type, dims, buffers.
  if (inputs.size() != mi.size())
    raise(Errc::bad_tensor, "[ge.runtime] " + std::to_string(inputs.size()) + " inputs given; the model takes " +
                                std::to_string(mi.size()));
  std::vector<std::vector<std::int64_t>> in_dims(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorView& t = inputs[i];
    const std::string which = "input " + std::to_string(i) + " " + q(mi[i].name);
    if (t.dtype != mi[i].dtype)
      raise(Errc::bad_tensor, "[ge.runtime] " + which + " is " + std::string(to_string(t.dtype)) + "; the model takes " +
                                  std::string(to_string(mi[i].dtype)));
    for (const std::int64_t d : t.dims)
      if (d < 0) raise(Errc::bad_tensor, "[ge.runtime] " + which + " has a negative dim in " + dims_text(t.dims));
    const std::int64_t bytes = view_bytes(t, which);
    if (t.data == nullptr && bytes > 0)
      raise(Errc::bad_tensor, "[ge.runtime] " + which + " has no data (null buffer) for dims " + dims_text(t.dims));
    in_dims[i].assign(t.dims.begin(), t.dims.end());
  }
  if (caller_outputs) {
    if (outputs.size() != mo.size())
      raise(Errc::bad_tensor, "[ge.runtime] " + std::to_string(outputs.size()) + " output buffers given; the model has " +
                                  std::to_string(mo.size()) + " outputs");
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      if (outputs[o].dtype != mo[o].dtype)
        raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(mo[o].name) + " buffer is " +
                                    std::string(to_string(outputs[o].dtype)) + "; the output is " +
                                    std::string(to_string(mo[o].dtype)));
      (void)view_bytes(outputs[o], "output " + std::to_string(o) + " " + q(mo[o].name));
      // Outputs are written while inputs may still be read: no buffer may share bytes.
      for (std::size_t i = 0; i < inputs.size(); ++i)
        if (overlap(outputs[o].data, outputs[o].bytes(), inputs[i].data, inputs[i].bytes()))
          raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(mo[o].name) +
                                      " buffer overlaps input " + std::to_string(i) + " " + q(mi[i].name) +
                                      "; expected separate buffers");
      for (std::size_t p = 0; p < o; ++p)
        if (overlap(outputs[o].data, outputs[o].bytes(), outputs[p].data, outputs[p].bytes()))
          raise(Errc::bad_tensor, "[ge.runtime] output buffers " + std::to_string(p) + " and " + std::to_string(o) +
                                      " overlap; expected separate buffers");
    }
  }
  const std::shared_ptr<const Plan> plan_ptr = impl_->plans.select(in_dims);
  const Plan& plan = *plan_ptr;
  if (memory_limit_ > 0) {
    const std::int64_t need = std::max(m.arena_bytes(), plan.arena_bytes());
    if (need > memory_limit_)
      raise(Errc::out_of_memory, "[ge.runtime] the plan for input dims " + dims_list_text(in_dims) + " needs an arena of " +
                                     std::to_string(need) + " bytes; the session's memory_limit is " +
                                     std::to_string(memory_limit_));
  }

  // A context from the pool (returned however the run ends).
  std::unique_ptr<Context> ctx;
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->free.empty()) {
      ctx = std::move(impl_->free.back());
      impl_->free.pop_back();
    }
  }
  if (!ctx) ctx = std::make_unique<Context>(*device_);
  struct Return {
    Impl& impl;
    std::unique_ptr<Context>& ctx;
    ~Return() {
      std::lock_guard lock(impl.mutex);
      impl.free.push_back(std::move(ctx));
    }
  } give_back{*impl_, ctx};
  ctx->ensure_arena(std::max(m.arena_bytes(), plan.arena_bytes()), m.settings().alignment);
  Bound& b = ctx->bind(plan_ptr);

  RunResult result;
  result.gear = plan.gear;
  result.arena_bytes = plan.arena_bytes();
  result.outputs.resize(mo.size());
  for (std::size_t o = 0; o < mo.size(); ++o) {
    result.outputs[o].name = mo[o].name;
    result.outputs[o].dtype = mo[o].dtype;
    result.outputs[o].format = mo[o].format;
  }

  // Memory of a value whose real size is now known.
  const auto storage_for = [&](std::size_t v, std::int64_t bytes) -> void* {
    const PlanValue& pv = plan.values[v];
    switch (pv.storage) {
      case Storage::arena:
        if (bytes > pv.bytes)
          raise(Errc::internal, "[ge.runtime] value " + q(pv.name) + " needs " + std::to_string(bytes) +
                                    " bytes, more than the " + std::to_string(pv.bytes) + " planned");
        return b.data[v];
      case Storage::dynamic:
        if (b.dynamic_bytes[v] < bytes || !b.dynamic[v]) {
          b.dynamic[v] = allocate_host(bytes, "value " + q(pv.name));
          b.dynamic_bytes[v] = bytes;
        }
        return b.dynamic[v].get();
      case Storage::output: {
        const auto o = static_cast<std::size_t>(pv.index);
        if (caller_outputs) {
          if (outputs[o].bytes() < bytes || (outputs[o].data == nullptr && bytes > 0))
            raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(pv.name) + " needs " +
                                        std::to_string(bytes) + " bytes; the buffer given holds " +
                                        std::to_string(outputs[o].data ? outputs[o].bytes() : 0));
          return outputs[o].data;
        }
        result.outputs[o].storage = allocate_host(bytes, "output " + q(pv.name));
        return result.outputs[o].storage.get();
      }
      case Storage::input:
      case Storage::constant: break;
    }
    raise(Errc::internal, "[ge.runtime] value " + q(pv.name) + " is written but is an input or constant");
  };

  // Bind the run's inputs and (static plans) outputs.
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto v = static_cast<std::size_t>(plan.graph_inputs[i]);
    b.data[v] = inputs[i].data;
    b.dims[v] = in_dims[i];
    for (const std::int32_t at : b.value_views[v]) b.views[static_cast<std::size_t>(at)].data = inputs[i].data;
  }
  if (plan.static_shapes) {
    for (std::size_t o = 0; o < plan.graph_outputs.size(); ++o) {
      const auto v = static_cast<std::size_t>(plan.graph_outputs[o]);
      if (plan.values[v].storage != Storage::output) continue;
      b.data[v] = storage_for(v, plan.values[v].bytes);
      for (const std::int32_t at : b.value_views[v]) b.views[static_cast<std::size_t>(at)].data = b.data[v];
    }
  }
  for (const Event e : ctx->events) ctx->device.reset(e);

  Device& dev = ctx->device;
  const OpRegistry& ops = OpRegistry::global();
  std::shared_ptr<RunTrace> trace;
  if (trace_) {
    trace = std::make_shared<RunTrace>();
    trace->plan = plan_ptr;
    trace->steps.resize(plan.steps.size());
    trace->start = now_ns();
  }
  const auto body = [&](std::int32_t s) {
    const auto si = static_cast<std::size_t>(s);
    StepTiming* timing = trace ? &trace->steps[si] : nullptr;
    const Stream stream = ctx->streams[static_cast<std::size_t>(plan.streams.stream[si])];
    if (timing && !b.waits[si].empty()) timing->wait_start = now_ns();
    for (const std::int32_t e : b.waits[si]) dev.wait(stream, ctx->events[static_cast<std::size_t>(e)]);
    if (timing) {
      timing->start = now_ns();
      if (b.waits[si].empty()) timing->wait_start = timing->start;
    }
    if (plan.static_shapes) {
      dev.launch(stream, {run_launch, &b.launches[si]});
    } else {
      const PlanStep& step = plan.steps[si];
      std::vector<TensorView> in(step.inputs.size()), out(step.outputs.size());
      std::vector<TensorDesc> descs(step.inputs.size());
      std::vector<const Tensor*> constants(step.inputs.size(), nullptr);
      for (std::size_t i = 0; i < step.inputs.size(); ++i) {
        if (step.inputs[i] < 0) continue;
        const auto v = static_cast<std::size_t>(step.inputs[i]);
        in[i] = {b.data[v], plan.values[v].desc.dtype, b.dims[v]};
        descs[i] = {plan.values[v].desc.dtype, Shape(std::vector<Dim>(b.dims[v].begin(), b.dims[v].end()))};
        if (plan.values[v].constant) constants[i] = &*plan.values[v].constant;
      }
      if (step.kernel->data_dependent()) {
        step.kernel->run_dynamic(in, [&](std::size_t o, std::span<const std::int64_t> d) -> void* {
          if (o >= step.outputs.size())
            raise(Errc::internal, "[ge.runtime] step " + q(step.name) + " asked for output " + std::to_string(o));
          const auto v = static_cast<std::size_t>(step.outputs[o]);
          b.dims[v].assign(d.begin(), d.end());
          return b.data[v] = storage_for(v, count(d) * size_of(plan.values[v].desc.dtype));
        });
      } else {
        const auto real = infer_outputs(step.schema ? *step.schema : ops.find(step.op), step.name, descs, constants,
                                        step.attrs, step.outputs.size());
        for (std::size_t o = 0; o < step.outputs.size(); ++o) {
          const auto v = static_cast<std::size_t>(step.outputs[o]);
          if (!real[o].shape.is_static())
            raise(Errc::internal, "[ge.runtime] step " + q(step.name) + ": output " + std::to_string(o) +
                                      " has no fixed shape at run time (" + real[o].shape.to_string() + ")");
          b.dims[v] = real[o].shape.values();
          b.data[v] = storage_for(v, count(b.dims[v]) * size_of(real[o].dtype));
          out[o] = {b.data[v], real[o].dtype, b.dims[v]};
        }
        StepLaunch l{step.kernel.get(), in, out};
        dev.launch(stream, {run_launch, &l});
      }
    }
    if (timing) {
      timing->end = now_ns();
      timing->thread = thread_number();
    }
    for (const std::int32_t e : b.records[si]) dev.record(ctx->events[static_cast<std::size_t>(e)], stream);
  };
  if (b.flat) {
    impl_->scheduler.within([&] {
      for (std::int32_t s = 0; s < static_cast<std::int32_t>(plan.steps.size()); ++s) body(s);
    });
  } else {
    impl_->scheduler.run(b.graph, body);
  }
  if (trace) {
    trace->end = now_ns();
    if (!plan.static_shapes) trace->dims = b.dims;  // every value's real dims in this run
    result.trace = std::move(trace);
  }

  // The outputs' real descriptions; outputs that are graph inputs or constants are copied.
  for (std::size_t o = 0; o < plan.graph_outputs.size(); ++o) {
    const auto v = static_cast<std::size_t>(plan.graph_outputs[o]);
    const PlanValue& pv = plan.values[v];
    Output& out = result.outputs[o];
    out.dims = b.dims[v];
    out.bytes = count(out.dims) * size_of(pv.desc.dtype);
    if (pv.storage == Storage::output) {
      out.data = b.data[v];
      continue;
    }
    const void* src = b.data[v];
    if (caller_outputs) {
      if (outputs[o].bytes() < out.bytes || (outputs[o].data == nullptr && out.bytes > 0))
        raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(pv.name) + " needs " +
                                    std::to_string(out.bytes) + " bytes; the buffer given holds " +
                                    std::to_string(outputs[o].bytes()));
      out.data = outputs[o].data;
    } else {
      out.storage = allocate_host(out.bytes, "output " + q(pv.name));
      out.data = out.storage.get();
    }
    if (out.bytes > 0) std::memmove(out.data, src, static_cast<std::size_t>(out.bytes));
  }
  if (!caller_outputs)
    for (Output& out : result.outputs)
      if (!out.storage && out.data == nullptr) out.storage = allocate_host(0), out.data = out.storage.get();
  return result;
}

}  // namespace ge
