// A plan bound to a run context, and one run of it (plan_run.hpp).
#include "runtime/plan_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

#include "compile/run_step.hpp"
#include "ge/core/text.hpp"
#include "ge/ops/registry.hpp"
#include "runtime/session_impl.hpp"

namespace ge::detail {

namespace {


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

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<void> allocate_host(std::int64_t bytes, const std::string& what) {
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1));
  void* p = nullptr;
  try {
    p = ::operator new(n, std::align_val_t{64});
  } catch (const std::bad_alloc&) {
    raise(Errc::out_of_memory, "[ge.runtime] no memory for " + std::to_string(bytes) + " bytes of " + what);
  }
  return {p, [](void* q) { ::operator delete(q, std::align_val_t{64}); }};
}

std::unique_ptr<Bound> bind_plan(const std::shared_ptr<const Plan>& plan, void* arena) {
  const Plan& p = *plan;
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
  b->waiting = std::make_unique<std::atomic<std::int32_t>[]>(std::max<std::size_t>(p.steps.size(), 1));
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
    // Room for any rank, so that binding a run's inputs never allocates.
    b->dims[v].reserve(ViewDims::max_rank);
  }
  b->waits.resize(p.steps.size());
  b->records.resize(p.steps.size());
  for (std::size_t e = 0; e < p.streams.events.size(); ++e) {
    b->records[static_cast<std::size_t>(p.streams.events[e].from)].push_back(static_cast<std::int32_t>(e));
    b->waits[static_cast<std::size_t>(p.streams.events[e].to)].push_back(static_cast<std::int32_t>(e));
  }
  if (!p.static_shapes) return b;
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
  return b;
}

void PlanRun::bind(std::span<const TensorView> inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto v = static_cast<std::size_t>(plan_.graph_inputs[i]);
    b_.data[v] = inputs[i].data;
    b_.dims[v].assign(inputs[i].dims.begin(), inputs[i].dims.end());
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

void PlanRun::step(std::int32_t s) {
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

// The caller's buffer for output `o`, checked to hold `bytes`.
void* PlanRun::caller_buffer(std::size_t o, std::int64_t bytes) const {
  const TensorView& given = outputs_[o];
  detail::check_holds(given, bytes, [&] {
    return "output " + std::to_string(o) + " " +
           quoted(plan_.values[static_cast<std::size_t>(plan_.graph_outputs[o])].name);
  });
  return given.data;
}

void PlanRun::collect_outputs() {
  RunResult* result = sink_.result;
  for (std::size_t o = 0; o < plan_.graph_outputs.size(); ++o) {
    const auto v = static_cast<std::size_t>(plan_.graph_outputs[o]);
    const PlanValue& pv = plan_.values[v];
    const std::int64_t bytes = detail::element_count(b_.dims[v]) * size_of(pv.desc.dtype);
    void* data = b_.data[v];
    if (pv.storage != Storage::output) {  // a graph input or a constant: copied
      if (caller_outputs_) {
        data = caller_buffer(o, bytes);
      } else {
        result->outputs[o].storage = allocate_host(bytes, "output " + quoted(pv.name));
        data = result->outputs[o].storage.get();
      }
      if (bytes > 0) std::memmove(data, b_.data[v], static_cast<std::size_t>(bytes));
    }
    if (result == nullptr) {
      sink_.into[o].dims = ViewDims(b_.dims[v]);
      continue;
    }
    Output& out = result->outputs[o];
    out.dims = b_.dims[v];
    out.bytes = bytes;
    out.data = data;
    if (!caller_outputs_ && out.data == nullptr) out.storage = allocate_host(0, "output " + quoted(pv.name)), out.data = out.storage.get();
  }
}

// A step of a plan whose dims are known only at run time, through the run-step
// routine execute_op runs too; its outputs get memory once their real dims are known.
void PlanRun::dynamic_step(const PlanStep& step, Stream stream) {
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
void* PlanRun::storage_for(std::size_t v, std::int64_t bytes) {
  const PlanValue& pv = plan_.values[v];
  switch (pv.storage) {
    case Storage::arena:
      if (bytes > pv.bytes)
        raise(Errc::internal, "[ge.runtime] value " + quoted(pv.name) + " needs " + std::to_string(bytes) +
                                  " bytes, more than the " + std::to_string(pv.bytes) + " planned");
      return b_.data[v];
    case Storage::dynamic:
      if (b_.dynamic_bytes[v] < bytes || !b_.dynamic[v]) {
        charge(bytes, "value " + quoted(pv.name));
        b_.dynamic[v] = allocate_host(bytes, "value " + quoted(pv.name));
        b_.dynamic_bytes[v] = bytes;
      }
      return b_.dynamic[v].get();
    case Storage::output: {
      const auto o = static_cast<std::size_t>(pv.index);
      if (caller_outputs_) return caller_buffer(o, bytes);
      charge(bytes, "output " + quoted(pv.name));
      sink_.result->outputs[o].storage = allocate_host(bytes, "output " + quoted(pv.name));
      return sink_.result->outputs[o].storage.get();
    }
    case Storage::input:
    case Storage::constant: break;
  }
  raise(Errc::internal, "[ge.runtime] value " + quoted(pv.name) + " is written but is an input or constant");
}

// Counts `bytes` the run allocates beyond its arena against the session's memory_limit:
// a value whose size only the run knows (or an output ge allocates) past it is refused
// before it is allocated (a hostile model's Expand to 2^34 elements).
void PlanRun::charge(std::int64_t bytes, const std::string& what) {
  if (limit_ <= 0) return;
  const std::int64_t before = used_.fetch_add(bytes);  // steps on several streams allocate at once
  if (bytes > limit_ - before) {
    used_.fetch_sub(bytes);
    raise(Errc::out_of_memory, "[ge.runtime] " + what + " needs " + std::to_string(bytes) + " bytes; with the " +
                                   std::to_string(before) + " this run holds, more than the session's memory_limit of " +
                                   std::to_string(limit_));
  }
}

}  // namespace ge::detail
