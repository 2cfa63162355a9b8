// Plans: a compiled graph specialised for one set of input shapes, its live nodes as steps
// with kernels, streams, the arena values' lifetimes and memory plan; and verify(), the
// check every plan passes before anything runs it. See include/ge/compile/plan.hpp.
#include "compile/plan_build.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "compile/specialize.hpp"
#include "compile/step_order.hpp"
#include "ge/core/log.hpp"
#include "ge/core/text.hpp"
#include "ge/ops/registry.hpp"

namespace ge {
namespace {


// Upper-bound bytes of a description, or -1 when unbounded.
std::int64_t bound_bytes(const TensorDesc& d) {
  if (!d.shape.rank_known()) return -1;
  const Dim b = byte_size(d.shape, d.dtype);
  return b.is_bounded() ? b.hi() : -1;
}

// Per step, the steps that produce its inputs (ascending, each once).
std::vector<std::vector<std::int32_t>> step_preds(const Plan& plan) {
  std::vector<std::vector<std::int32_t>> preds(plan.steps.size());
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    for (const std::int32_t v : plan.steps[s].inputs)
      if (v >= 0 && plan.values[static_cast<std::size_t>(v)].producer >= 0)
        preds[s].push_back(plan.values[static_cast<std::size_t>(v)].producer);
    std::sort(preds[s].begin(), preds[s].end());
    preds[s].erase(std::unique(preds[s].begin(), preds[s].end()), preds[s].end());
  }
  return preds;
}

}  // namespace

namespace detail {

std::shared_ptr<const Kernel> select_kernel(OpCompiler& compiler, const Graph& g, const Node& node,
                                            const std::vector<TensorDesc>& desc, CompileFlag flag, Precision precision,
                                            const std::vector<std::optional<Tensor>>* data, const PackedState* packed) {
  OpCompileRequest r;
  r.packed = packed;
  r.op_type = node.op;
  r.attrs = node.attrs;
  r.flag = flag;
  r.precision = precision;
  for (const ValueId v : node.inputs) {
    if (v == no_value) {
      r.inputs.push_back(OpTensor::undefined());
    } else if (const Tensor* t = data != nullptr && (*data)[v] ? &*(*data)[v] : g.constant_of(v)) {
      r.inputs.push_back(OpTensor::constant_of(*t));
    } else {
      r.inputs.push_back(OpTensor{desc[v].dtype, desc[v].shape, Format::nd, std::nullopt});
    }
  }
  for (const ValueId v : node.outputs) r.outputs.push_back(OpTensor{desc[v].dtype, desc[v].shape, Format::nd, std::nullopt});
  try {
    auto kernel = compiler.compile(r)->kernel;
    log_message(LogLevel::debug, [&] {
      return "[ge.compile] node " + quoted(node.name) + " (" + node.op + "): kernel " + std::string(kernel ? kernel->name() : "none");
    });
    return kernel;
  } catch (const Error& e) {
    raise(e.code(), std::string(e.what()) + " (node " + quoted(node.name) + ")");
  }
}

}  // namespace detail

namespace {

// Constant inputs up to this size (all of a node's together) may key the shared kernel
// cache: shape values folded per plan, small attributes given as tensors.
constexpr std::int64_t small_constant_bytes = 64 * 1024;

// The last step each arena value must stay live for when streams run out of step order:
// every step that is not ordered after all its readers (and its producer) could still
// run beside them.
std::int32_t extended_last(const detail::StepOrder& order, const PlanValue& v, std::int32_t last) {
  std::int32_t result = last;
  const auto after_all = [&](std::int32_t s) {
    if (!order.after(s, v.producer)) return false;
    return std::all_of(v.readers.begin(), v.readers.end(), [&](std::int32_t r) { return order.after(s, r); });
  };
  for (std::int32_t k = 0; k < order.stream_count(); ++k) {
    const auto& steps = order.stream_steps(static_cast<std::size_t>(k));
    // Along a stream, "after all" turns true once and stays true: find the first.
    const auto it = std::partition_point(steps.begin(), steps.end(), [&](std::int32_t s) { return !after_all(s); });
    if (it != steps.begin()) result = std::max(result, *(it - 1));
  }
  return result;
}

// The kernel of a live node of a plan: the compiled graph's when the plan gives the node
// no new constant input (and the graph had one: a known rank), else one made for the
// plan's descriptions and constants (`select_kernel` over the values folded for it).
// Requests whose constants are small go through the shared cache; an entry there holds
// its request's constants, so weights go alone.
std::shared_ptr<const Kernel> plan_kernel(const detail::PlanInputs& in, const detail::Specialized& sp, std::size_t n) {
  const Node& node = in.graph.nodes()[n];
  // An If whose outputs this plan fixes (both branches give the same dims for its
  // shapes) is made again, as an ordinary step.
  const bool fixes_if = node.op == "If" && in.kernels[n] && in.kernels[n]->data_dependent() &&
                        std::all_of(node.outputs.begin(), node.outputs.end(),
                                    [&](ValueId v) { return sp.desc[v].shape.is_static(); });
  if (in.kernels[n] && !sp.new_constants[n] && !fixes_if) return in.kernels[n];
  std::int64_t constant_bytes = 0;
  for (const ValueId v : node.inputs) {
    const Tensor* t = v == no_value ? nullptr : sp.folded[v] ? &*sp.folded[v] : in.graph.constant_of(v);
    if (t == nullptr) continue;
    if (!t->has_data()) {
      // A weight the compiled kernels hold packed (every reader's kernel took it) while
      // the plan made another input of this node constant: the compiled graph's kernel
      // serves, the new constant read at run time like any input.
      if (in.kernels[n]) return in.kernels[n];
      raise(Errc::internal, "[ge.compile] node " + quoted(node.name) + " needs the data of a weight its kernel dropped");
    }
    constant_bytes += static_cast<std::int64_t>(t->bytes().size());
  }
  OpCompiler alone(1);
  return detail::select_kernel(constant_bytes <= small_constant_bytes ? in.compiler : alone, in.graph, node, sp.desc,
                               fixes_if ? CompileFlag::exact : CompileFlag::fuzzy, in.settings.precision, &sp.folded);
}

// Shape work: a step the host engine can run whose outputs are all small integer
// tensors (at most 64 elements: the Shape -> Gather -> Concat arithmetic before a
// Reshape that stays at run time in range plans). It runs on the host engine, so that
// with AC_PARALLEL_ENABLE it gets the host stream, beside the vector engine's work.
bool shape_work(const OpSchema& schema, const Node& node, const detail::Specialized& sp) {
  if (!schema.engines.has(Engine::host) || node.outputs.empty()) return false;
  return std::all_of(node.outputs.begin(), node.outputs.end(), [&](ValueId v) {
    const TensorDesc& d = sp.desc[v];
    if ((d.dtype != DataType::i64 && d.dtype != DataType::i32) || !d.shape.rank_known()) return false;
    const Dim n = element_count(d.shape);
    return n.is_bounded() && n.hi() <= 64;
  });
}

// The plan's values: each graph value added once, the first time the graph's inputs, a
// live step or the graph's outputs name it, as a constant (the graph's or one folded for
// this plan), an arena value (bounded bytes) or a dynamic one (allocated per run).
class PlanValues {
 public:
  PlanValues(const Graph& g, const detail::Specialized& sp, Plan& plan)
      : g_(g), sp_(sp), plan_(plan), index_(g.values().size(), -1) {}

  // The plan value of graph value `v`, added if new.
  std::int32_t operator()(ValueId v) {
    if (index_[v] >= 0) return index_[v];
    index_[v] = static_cast<std::int32_t>(plan_.values.size());
    PlanValue& pv = plan_.values.emplace_back();
    pv.name = g_.values()[v].name;
    pv.desc = sp_.desc[v];
    if (const Tensor* c = sp_.folded[v] ? &*sp_.folded[v] : g_.constant_of(v)) {
      pv.storage = Storage::constant;
      pv.constant = *c;
      pv.bytes = static_cast<std::int64_t>(c->bytes().size());
    } else {
      pv.bytes = bound_bytes(sp_.desc[v]);
      pv.storage = pv.bytes < 0 ? Storage::dynamic : Storage::arena;
    }
    return index_[v];
  }
  PlanValue& at(ValueId v) { return plan_.values[static_cast<std::size_t>((*this)(v))]; }

 private:
  const Graph& g_;
  const detail::Specialized& sp_;
  Plan& plan_;
  std::vector<std::int32_t> index_;  // per graph value: its plan value, or -1
};

// The graph inputs, first of the plan's values.
void add_inputs(const Graph& g, PlanValues& values, Plan& plan) {
  for (std::size_t i = 0; i < g.inputs().size(); ++i) {
    const std::int32_t pv = values(g.inputs()[i].value);
    plan.values[static_cast<std::size_t>(pv)].storage = Storage::input;
    plan.values[static_cast<std::size_t>(pv)].index = static_cast<std::int32_t>(i);
    plan.graph_inputs.push_back(pv);
  }
}

// The steps, in execution order: the live nodes, each with its kernel and engine, the
// values it reads and writes. False when a step's output shapes are not all static or
// its kernel depends on data (counted in `data_dependent_steps`).
bool add_steps(const detail::PlanInputs& in, const detail::Specialized& sp, PlanValues& values, Plan& plan) {
  const OpRegistry& ops = OpRegistry::global();
  bool is_static = true;
  for (const std::size_t n : in.order) {
    if (!sp.live[n]) continue;
    const Node& node = in.graph.nodes()[n];
    const auto s = static_cast<std::int32_t>(plan.steps.size());
    PlanStep& step = plan.steps.emplace_back();
    step.name = node.name;
    step.op = node.op;
    step.schema = &ops.find(node.op);
    step.attrs = node.attrs;
    step.kernel = plan_kernel(in, sp, n);
    step.engine = step.schema->engines.has(Engine::vector) && !shape_work(*step.schema, node, sp) ? Engine::vector
                                                                                                 : Engine::host;
    for (const ValueId v : node.inputs) {
      step.inputs.push_back(v == no_value ? -1 : values(v));
      if (v != no_value) values.at(v).readers.push_back(s);
    }
    for (const ValueId v : node.outputs) {
      const std::int32_t pv = values(v);
      step.outputs.push_back(pv);
      plan.values[static_cast<std::size_t>(pv)].producer = s;
      if (!sp.desc[v].shape.is_static()) is_static = false;
    }
    if (step.kernel->data_dependent()) {
      is_static = false;
      ++plan.data_dependent_steps;
    }
  }
  return is_static;
}

// The graph outputs; one a node writes (not folded to a constant) is stored there.
void add_outputs(const Graph& g, PlanValues& values, Plan& plan) {
  for (std::size_t o = 0; o < g.outputs().size(); ++o) {
    const ValueId v = g.outputs()[o];
    const std::int32_t pv = values(v);
    PlanValue& val = plan.values[static_cast<std::size_t>(pv)];
    if (g.values()[v].source == ValueSource::node && val.storage != Storage::constant) {
      val.storage = Storage::output;
      val.index = static_cast<std::int32_t>(o);
    }
    plan.graph_outputs.push_back(pv);
  }
}

// Lifetimes of the arena values, extended for streams (see extended_last).
void add_lifetimes(const detail::StepOrder& order, Plan& plan) {
  for (PlanValue& v : plan.values) {
    if (v.storage != Storage::arena) continue;
    const std::int32_t last = v.readers.empty() ? v.producer : v.readers.back();
    v.block = static_cast<std::int32_t>(plan.lifetimes.size());
    plan.lifetimes.push_back({.bytes = v.bytes, .first = v.producer, .last = extended_last(order, v, last)});
  }
}

// In place where the schema allows it and the input dies at the step: its extended
// lifetime ends there and every other reader is ordered before the step. (The extended
// end only bounds the steps after it in step order; an earlier reader on another stream
// that the step does not wait for could still be reading the input when the step
// overwrites it.)
void grant_in_place(const detail::StepOrder& order, Plan& plan) {
  for (const PlanStep& step : plan.steps) {
    for (const InPlace& ip : step.schema->in_place) {
      if (ip.output >= step.outputs.size() || ip.input >= step.inputs.size() || step.inputs[ip.input] < 0) continue;
      const PlanValue& out = plan.values[static_cast<std::size_t>(step.outputs[ip.output])];
      const PlanValue& src = plan.values[static_cast<std::size_t>(step.inputs[ip.input])];
      if (out.storage != Storage::arena || src.storage != Storage::arena) continue;
      if (out.desc.dtype != src.desc.dtype || out.bytes != src.bytes) continue;
      if (!out.desc.shape.is_static() && !(out.desc.shape == src.desc.shape)) continue;
      Lifetime& lt = plan.lifetimes[static_cast<std::size_t>(out.block)];
      if (lt.inplace_of >= 0) continue;
      if (plan.lifetimes[static_cast<std::size_t>(src.block)].last != lt.first) continue;
      if (!std::all_of(src.readers.begin(), src.readers.end(), [&](std::int32_t r) { return order.after(lt.first, r); }))
        continue;
      lt.inplace_of = src.block;
    }
  }
}

}  // namespace

namespace detail {

std::shared_ptr<const Plan> build_plan(const PlanInputs& in, const std::vector<Shape>& input_shapes, std::int32_t gear) {
  const Graph& g = in.graph;
  auto plan = std::make_shared<Plan>();
  plan->gear = gear;
  plan->input_shapes = input_shapes;
  const Specialized sp = specialize(g, input_shapes, in.order, in.fold);
  plan->folded_nodes = sp.folded_nodes;

  PlanValues values(g, sp, *plan);
  add_inputs(g, values, *plan);
  plan->static_shapes = add_steps(in, sp, values, *plan);
  add_outputs(g, values, *plan);
  for (PlanValue& v : plan->values) {
    std::sort(v.readers.begin(), v.readers.end());
    v.readers.erase(std::unique(v.readers.begin(), v.readers.end()), v.readers.end());
    if (v.storage == Storage::dynamic) ++plan->per_run_values;
  }

  // Streams: a step depends on the producers of its inputs.
  const auto preds = step_preds(*plan);
  std::vector<bool> on_host(plan->steps.size(), false);
  for (std::size_t s = 0; s < plan->steps.size(); ++s) on_host[s] = plan->steps[s].engine == Engine::host;
  plan->streams = assign_streams(preds, on_host, {.max_streams = in.settings.max_streams, .ac_parallel = in.ac_parallel});

  const StepOrder order(plan->streams);
  add_lifetimes(order, *plan);
  grant_in_place(order, *plan);
  PlanOptions memory_options;
  memory_options.alignment = in.settings.alignment;
  memory_options.search_budget = in.settings.plan_search_budget;
  plan->memory = plan_memory(plan->lifetimes, memory_options);
  for (PlanValue& v : plan->values)
    if (v.storage == Storage::arena) v.offset = plan->memory.offsets[static_cast<std::size_t>(v.block)];
  verify(*plan);  // every plan, before anything runs it: a planner bug is an internal error, not a race
  return plan;
}

}  // namespace detail

std::string_view to_string(Storage s) noexcept {
  switch (s) {
    case Storage::arena: return "arena";
    case Storage::input: return "input";
    case Storage::output: return "output";
    case Storage::constant: return "constant";
    case Storage::dynamic: return "dynamic";
  }
  return "?";
}

std::string_view to_string(PlanKind kind) noexcept {
  switch (kind) {
    case PlanKind::gear: return "gear";
    case PlanKind::range: return "range";
    case PlanKind::signature: return "signature";
    case PlanKind::fixed: break;
  }
  return "fixed";
}

std::string Plan::describe_inputs(const std::vector<std::string>& names) const {
  std::string s;
  for (std::size_t i = 0; i < input_shapes.size(); ++i)
    s += (i ? "; " : "") + (i < names.size() ? names[i] : "input" + std::to_string(i)) + ":" + input_shapes[i].to_string();
  return s;
}

std::shared_ptr<const Plan> build_plan(const CompiledModel& m, std::vector<Shape> input_shapes, std::int32_t gear) {
  const auto& mi = m.inputs();
  if (input_shapes.size() != mi.size())
    raise(Errc::bad_tensor, "[ge.compile] build_plan: " + std::to_string(input_shapes.size()) +
                                " input shapes given; the model has " + std::to_string(mi.size()) + " inputs");
  for (std::size_t i = 0; i < mi.size(); ++i)
    if (mi[i].shape.rank_known() && (!input_shapes[i].rank_known() || input_shapes[i].rank() != mi[i].shape.rank()))
      raise(Errc::bad_tensor, "[ge.compile] build_plan: input " + quoted(mi[i].name) + " shape " + input_shapes[i].to_string() +
                                  " has another rank than the model's " + mi[i].shape.to_string());
  const detail::PlanInputs in{m.graph_, m.order_, m.kernels_, m.settings_, OpCompiler::global(),
                      m.config_.ac_parallel_enable, m.settings_.optimize};
  return detail::build_plan(in, input_shapes, gear);
}

void verify(const Plan& plan) {
  const auto bad = [](const std::string& what) { raise(Errc::internal, "[ge.compile] plan check: " + what); };
  verify(plan.memory, plan.lifetimes);
  const auto preds = step_preds(plan);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    for (const std::int32_t p : preds[s])
      if (p >= static_cast<std::int32_t>(s)) bad("step " + quoted(plan.steps[s].name) + " reads a value made by a later step");
  }
  verify(plan.streams, preds);
  const detail::StepOrder order(plan.streams);
  std::vector<const PlanValue*> arena;
  for (const PlanValue& v : plan.values) {
    if (v.storage != Storage::arena) continue;
    if (v.block < 0 || static_cast<std::size_t>(v.block) >= plan.lifetimes.size()) bad("value " + quoted(v.name) + " has no block");
    if (v.offset != plan.memory.offsets[static_cast<std::size_t>(v.block)]) bad("value " + quoted(v.name) + " is not at its block's offset");
    if (v.bytes < 0 || v.offset < 0 || v.offset + v.bytes > plan.memory.arena_bytes)
      bad("value " + quoted(v.name) + " (" + std::to_string(v.bytes) + " bytes at " + std::to_string(v.offset) +
          ") does not fit the arena of " + std::to_string(plan.memory.arena_bytes));
    if (v.producer < 0) bad("arena value " + quoted(v.name) + " has no producer");
    arena.push_back(&v);
  }
  // Every granted in-place pair: the step writing the value reads the donor through an
  // input its schema lets that output overwrite, and both have one type and size.
  std::vector<const PlanValue*> of_block(plan.lifetimes.size(), nullptr);
  for (const PlanValue* v : arena) of_block[static_cast<std::size_t>(v->block)] = v;
  for (const PlanValue* v : arena) {
    const std::int32_t donor_block = plan.memory.shares_with[static_cast<std::size_t>(v->block)];
    if (donor_block < 0) continue;
    const PlanValue* donor = of_block[static_cast<std::size_t>(donor_block)];
    const PlanStep& step = plan.steps[static_cast<std::size_t>(v->producer)];
    const bool allowed =
        donor != nullptr && step.schema != nullptr &&
        std::any_of(step.schema->in_place.begin(), step.schema->in_place.end(), [&](const InPlace& ip) {
          return ip.output < step.outputs.size() && ip.input < step.inputs.size() &&
                 &plan.values[static_cast<std::size_t>(step.outputs[ip.output])] == v && step.inputs[ip.input] >= 0 &&
                 &plan.values[static_cast<std::size_t>(step.inputs[ip.input])] == donor;
        });
    if (!allowed)
      bad("value " + quoted(v->name) + " reuses " + (donor ? quoted(donor->name) : "a block with no value") + " in place, but step " +
          quoted(step.name) + " (" + step.op + ") may not write it over that input");
    if (donor->desc.dtype != v->desc.dtype || donor->bytes != v->bytes)
      bad("value " + quoted(v->name) + " reuses " + quoted(donor->name) + " in place with another type or size");
  }
  // Two values sharing memory: the later one's producer runs after the earlier one's
  // producer (its write, even when nothing reads it) and after every reader of it; only
  // an in-place pair's step reads the first while it writes the second. Values in
  // producer order paint the arena's bytes: each is checked against the values that
  // last painted its range, which covers every earlier value there by transitivity (a
  // later painter was itself checked to run after the earlier one and its readers).
  // O(n log n): each value adds at most three pieces, and removes the ones it covers.
  const auto check_pair = [&](const PlanValue* a, const PlanValue* b) {
    if (a->producer == b->producer) bad("values " + quoted(a->name) + " and " + quoted(b->name) + " of one step overlap");
    const std::string& writer = plan.steps[static_cast<std::size_t>(b->producer)].name;
    if (!order.after(b->producer, a->producer))
      bad("values " + quoted(a->name) + " and " + quoted(b->name) + " share memory, but step " + quoted(writer) +
          " (writing the second) may run before step " + quoted(plan.steps[static_cast<std::size_t>(a->producer)].name) +
          " (writing the first) finishes");
    for (const std::int32_t r : a->readers) {
      if (r == b->producer) {
        if (plan.memory.shares_with[static_cast<std::size_t>(b->block)] == a->block) continue;
        bad("values " + quoted(a->name) + " and " + quoted(b->name) + " share memory, but step " + quoted(writer) +
            " reads the first while it writes the second, and is not granted to reuse it in place");
      }
      if (!order.after(b->producer, r))
        bad("values " + quoted(a->name) + " and " + quoted(b->name) + " share memory, but step " + quoted(writer) +
            " (writing the second) may run before step " + quoted(plan.steps[static_cast<std::size_t>(r)].name) +
            " (reading the first) finishes");
    }
  };
  std::stable_sort(arena.begin(), arena.end(), [](const PlanValue* a, const PlanValue* b) { return a->producer < b->producer; });
  struct Piece {
    std::int64_t end;
    const PlanValue* by;
  };
  std::map<std::int64_t, Piece> painted;  // start -> piece; the pieces never overlap
  std::vector<const PlanValue*> met;
  for (const PlanValue* b : arena) {
    if (b->bytes == 0) continue;
    const std::int64_t lo = b->offset, hi = b->offset + b->bytes;
    auto it = painted.upper_bound(lo);
    if (it != painted.begin() && std::prev(it)->second.end > lo) --it;
    met.clear();
    std::optional<std::pair<std::int64_t, Piece>> left, right;  // what stays of the pieces cut at the ends
    while (it != painted.end() && it->first < hi) {
      if (met.empty() || met.back() != it->second.by) met.push_back(it->second.by);
      if (it->first < lo) left = std::pair{it->first, Piece{lo, it->second.by}};
      if (it->second.end > hi) right = std::pair{hi, Piece{it->second.end, it->second.by}};
      it = painted.erase(it);
    }
    std::sort(met.begin(), met.end());
    met.erase(std::unique(met.begin(), met.end()), met.end());
    for (const PlanValue* a : met) check_pair(a, b);
    if (left) painted.insert(*left);
    if (right) painted.insert(*right);
    painted.emplace(lo, Piece{hi, b});
  }
}

}  // namespace ge
