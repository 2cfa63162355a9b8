// compile(): options -> shapes for the hull of all plans -> passes -> a kernel per node ->
// one Plan per gear (or a range plan, or plans per input signature) with streams and a
// memory plan. See include/ge/compile/compile.hpp.
#include "ge/compile/compile.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "compile/specialize.hpp"
#include "compile/step_order.hpp"
#include "ge/ops/registry.hpp"

namespace ge {

namespace detail {
// `optimize`, owning its graph: BatchNormalization folding drops each Conv's old weights
// once the folded ones exist, instead of holding both sets to the end (src/compile/passes.cpp).
Graph optimize_owned(Graph g, std::vector<PassStats>* stats, bool dense_chains);
}  // namespace detail

namespace {

[[noreturn]] void fail(Errc code, const std::string& what) { raise(code, "[ge.compile] " + what); }

std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }

// Shape propagation: every value's description for these graph-input shapes, in value-id
// order. Nodes are inferred in topological order from their inputs' new descriptions.
std::vector<TensorDesc> propagate(const Graph& g, const std::vector<Shape>& input_shapes,
                                  const std::vector<std::size_t>& order) {
  std::vector<TensorDesc> desc(g.values().size());
  for (std::size_t i = 0; i < g.inputs().size(); ++i)
    desc[g.inputs()[i].value] = {g.inputs()[i].dtype, input_shapes[i]};
  for (const Constant& c : g.constants()) desc[c.value] = c.tensor.desc();
  const OpRegistry& ops = OpRegistry::global();
  std::vector<TensorDesc> in;
  std::vector<const Tensor*> constants;
  for (const std::size_t n : order) {
    const Node& node = g.nodes()[n];
    in.assign(node.inputs.size(), TensorDesc{});
    constants.assign(node.inputs.size(), nullptr);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == no_value) continue;
      in[i] = desc[node.inputs[i]];
      constants[i] = g.constant_of(node.inputs[i]);
    }
    auto out = infer_outputs(ops.find(node.op), node.name, in, constants, node.attrs, node.outputs.size());
    for (std::size_t o = 0; o < node.outputs.size(); ++o) desc[node.outputs[o]] = std::move(out[o]);
  }
  return desc;
}

// A copy of `g` whose inputs have `input_shapes` and whose values carry `desc`.
Graph reshaped(const Graph& g, const std::vector<Shape>& input_shapes, const std::vector<TensorDesc>& desc,
               const std::vector<std::size_t>& order) {
  Graph out;
  std::vector<ValueId> map(g.values().size(), no_value);
  for (std::size_t i = 0; i < g.inputs().size(); ++i) {
    const GraphInput& in = g.inputs()[i];
    map[in.value] = out.add_input(in.name, in.dtype, input_shapes[i], in.format);
  }
  for (const Constant& c : g.constants()) map[c.value] = out.add_constant(c.name, c.tensor);
  for (const std::size_t n : order) {
    const Node& node = g.nodes()[n];
    std::vector<ValueId> ins, outs;
    for (const ValueId v : node.inputs) ins.push_back(v == no_value ? no_value : map[v]);
    for (const ValueId v : node.outputs) outs.push_back(map[v] = out.declare_value(g.values()[v].name, desc[v]));
    out.add_node(node.name, node.op, std::move(ins), std::move(outs), node.attrs);
  }
  for (const ValueId v : g.outputs()) out.add_output(map[v]);
  return out;
}

// `g` with each constant's data from `data` (by value id), or, where that is empty, its
// type and dims only (`Tensor::without_data`); value ids and node indices are kept.
Graph with_data(const Graph& g, const std::vector<std::optional<Tensor>>& data) {
  Graph out;
  std::size_t input = 0;
  for (ValueId v = 0; v < g.values().size(); ++v) {
    const ValueInfo& info = g.values()[v];
    switch (info.source) {
      case ValueSource::input: {
        const GraphInput& in = g.inputs()[input++];
        (void)out.add_input(in.name, in.dtype, in.shape, in.format);
        break;
      }
      case ValueSource::constant: {
        const Tensor& t = *g.constant_of(v);
        (void)out.add_constant(info.name, data[v] ? *data[v] : Tensor::without_data(t.dtype(), t.dims()));
        break;
      }
      default: (void)out.declare_value(info.name, info.desc);
    }
  }
  for (const Node& n : g.nodes()) (void)out.add_node(n.name, n.op, n.inputs, n.outputs, n.attrs);
  for (const ValueId v : g.outputs()) out.add_output(v);
  return out;
}

// The kernel of one node through the single-op compiler and its cache.
std::shared_ptr<const Kernel> select_kernel(OpCompiler& compiler, const Graph& g, const Node& node,
                                            const std::vector<TensorDesc>& desc, CompileFlag flag, Precision precision,
                                            const std::vector<std::optional<Tensor>>* data = nullptr) {
  OpCompileRequest r;
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
    return compiler.compile(r)->kernel;
  } catch (const Error& e) {
    raise(e.code(), std::string(e.what()) + " (node " + q(node.name) + ")");
  }
}

bool rank_known_inputs(const Node& node, const std::vector<TensorDesc>& desc) {
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](ValueId v) { return v == no_value || desc[v].shape.rank_known(); });
}

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

struct PlanInputs {
  const Graph& graph;
  const std::vector<std::size_t>& order;
  const std::vector<std::shared_ptr<const Kernel>>& kernels;  // per node; null: select per plan
  const CompileSettings& settings;
  OpCompiler& compiler;  // for kernels made per plan whose constants are small
  bool ac_parallel = false;
  bool fold = true;  // evaluate what the plan's shapes make constant
};

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
std::shared_ptr<const Kernel> plan_kernel(const PlanInputs& in, const detail::Specialized& sp, std::size_t n) {
  if (in.kernels[n] && !sp.new_constants[n]) return in.kernels[n];
  const Node& node = in.graph.nodes()[n];
  std::int64_t constant_bytes = 0;
  for (const ValueId v : node.inputs) {
    const Tensor* t = v == no_value ? nullptr : sp.folded[v] ? &*sp.folded[v] : in.graph.constant_of(v);
    if (t == nullptr) continue;
    if (!t->has_data())
      raise(Errc::internal, "[ge.compile] node " + q(node.name) + " needs the data of a weight its kernel dropped");
    constant_bytes += static_cast<std::int64_t>(t->bytes().size());
  }
  OpCompiler alone(1);
  return select_kernel(constant_bytes <= small_constant_bytes ? in.compiler : alone, in.graph, node, sp.desc,
                       CompileFlag::fuzzy, in.settings.precision, &sp.folded);
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

std::shared_ptr<const Plan> build_plan(const PlanInputs& in, const std::vector<Shape>& input_shapes, std::int32_t gear) {
  const Graph& g = in.graph;
  auto plan = std::make_shared<Plan>();
  plan->gear = gear;
  plan->input_shapes = input_shapes;
  const detail::Specialized sp = detail::specialize(g, input_shapes, in.order, in.fold);
  plan->folded_nodes = sp.folded_nodes;

  // Values: the graph inputs, then every value a live step reads or writes, then the
  // graph outputs, each once; `index` maps graph value ids to plan values.
  std::vector<std::int32_t> index(g.values().size(), -1);
  const auto value_of = [&](ValueId v) {
    if (index[v] >= 0) return index[v];
    index[v] = static_cast<std::int32_t>(plan->values.size());
    PlanValue& pv = plan->values.emplace_back();
    pv.name = g.values()[v].name;
    pv.desc = sp.desc[v];
    if (const Tensor* c = sp.folded[v] ? &*sp.folded[v] : g.constant_of(v)) {
      pv.storage = Storage::constant;
      pv.constant = *c;
      pv.bytes = static_cast<std::int64_t>(c->bytes().size());
    } else {
      pv.bytes = bound_bytes(sp.desc[v]);
      pv.storage = pv.bytes < 0 ? Storage::dynamic : Storage::arena;
    }
    return index[v];
  };
  for (std::size_t i = 0; i < g.inputs().size(); ++i) {
    const std::int32_t pv = value_of(g.inputs()[i].value);
    plan->values[static_cast<std::size_t>(pv)].storage = Storage::input;
    plan->values[static_cast<std::size_t>(pv)].index = static_cast<std::int32_t>(i);
    plan->graph_inputs.push_back(pv);
  }

  // Steps, in execution order: the live nodes.
  const OpRegistry& ops = OpRegistry::global();
  bool is_static = true;
  for (const std::size_t n : in.order) {
    if (!sp.live[n]) continue;
    const Node& node = g.nodes()[n];
    const auto s = static_cast<std::int32_t>(plan->steps.size());
    PlanStep& step = plan->steps.emplace_back();
    step.name = node.name;
    step.op = node.op;
    step.schema = &ops.find(node.op);
    step.attrs = node.attrs;
    step.kernel = plan_kernel(in, sp, n);
    step.engine = step.schema->engines.has(Engine::vector) && !shape_work(*step.schema, node, sp) ? Engine::vector
                                                                                                 : Engine::host;
    for (const ValueId v : node.inputs) {
      step.inputs.push_back(v == no_value ? -1 : value_of(v));
      if (v != no_value) plan->values[static_cast<std::size_t>(index[v])].readers.push_back(s);
    }
    for (const ValueId v : node.outputs) {
      const std::int32_t pv = value_of(v);
      step.outputs.push_back(pv);
      plan->values[static_cast<std::size_t>(pv)].producer = s;
      if (!sp.desc[v].shape.is_static()) is_static = false;
    }
    if (step.kernel->data_dependent()) {
      is_static = false;
      ++plan->data_dependent_steps;
    }
  }
  for (std::size_t o = 0; o < g.outputs().size(); ++o) {
    const ValueId v = g.outputs()[o];
    const std::int32_t pv = value_of(v);
    PlanValue& val = plan->values[static_cast<std::size_t>(pv)];
    if (g.values()[v].source == ValueSource::node && val.storage != Storage::constant) {
      val.storage = Storage::output;
      val.index = static_cast<std::int32_t>(o);
    }
    plan->graph_outputs.push_back(pv);
  }
  plan->static_shapes = is_static;
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

  // Lifetimes of the arena values, extended for streams; in place where the schema
  // allows it and the input dies at the step: its extended lifetime ends there and every
  // other reader is ordered before the step. (The extended end only bounds the steps
  // after it in step order; an earlier reader on another stream that the step does not
  // wait for could still be reading the input when the step overwrites it.)
  const detail::StepOrder order(plan->streams);
  for (PlanValue& v : plan->values) {
    if (v.storage != Storage::arena) continue;
    const std::int32_t last = v.readers.empty() ? v.producer : v.readers.back();
    v.block = static_cast<std::int32_t>(plan->lifetimes.size());
    plan->lifetimes.push_back({.bytes = v.bytes, .first = v.producer, .last = extended_last(order, v, last)});
  }
  for (const PlanStep& step : plan->steps) {
    for (const InPlace& ip : step.schema->in_place) {
      if (ip.output >= step.outputs.size() || ip.input >= step.inputs.size() || step.inputs[ip.input] < 0) continue;
      const PlanValue& out = plan->values[static_cast<std::size_t>(step.outputs[ip.output])];
      const PlanValue& src = plan->values[static_cast<std::size_t>(step.inputs[ip.input])];
      if (out.storage != Storage::arena || src.storage != Storage::arena) continue;
      if (out.desc.dtype != src.desc.dtype || out.bytes != src.bytes) continue;
      if (!out.desc.shape.is_static() && !(out.desc.shape == src.desc.shape)) continue;
      Lifetime& lt = plan->lifetimes[static_cast<std::size_t>(out.block)];
      if (lt.inplace_of >= 0) continue;
      if (plan->lifetimes[static_cast<std::size_t>(src.block)].last != lt.first) continue;
      if (!std::all_of(src.readers.begin(), src.readers.end(), [&](std::int32_t r) { return order.after(lt.first, r); }))
        continue;
      lt.inplace_of = src.block;
    }
  }
  PlanOptions memory_options;
  memory_options.alignment = in.settings.alignment;
  memory_options.search_budget = in.settings.plan_search_budget;
  plan->memory = plan_memory(plan->lifetimes, memory_options);
  for (PlanValue& v : plan->values)
    if (v.storage == Storage::arena) v.offset = plan->memory.offsets[static_cast<std::size_t>(v.block)];
  verify(*plan);  // every plan, before anything runs it: a planner bug is an internal error, not a race
  return plan;
}

}  // namespace

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
      raise(Errc::bad_tensor, "[ge.compile] build_plan: input " + q(mi[i].name) + " shape " + input_shapes[i].to_string() +
                                  " has another rank than the model's " + mi[i].shape.to_string());
  const PlanInputs in{m.graph_, m.order_, m.kernels_, m.settings_, OpCompiler::global(),
                      m.config_.ac_parallel_enable, m.settings_.optimize};
  return build_plan(in, input_shapes, gear);
}

std::shared_ptr<const CompiledModel> compile(const Graph& graph, const BuildOptions& options, const Target& target,
                                             const CompileSettings& settings) {
  return compile(Graph(graph), options, target, settings);  // a copy shares the weights
}

std::shared_ptr<const CompiledModel> compile(Graph&& graph, const BuildOptions& options, const Target& target,
                                             const CompileSettings& settings) {
  if (settings.max_streams < 1) fail(Errc::invalid_argument, "max_streams " + std::to_string(settings.max_streams) + "; expected >= 1");
  if (settings.alignment < 1 || (settings.alignment & (settings.alignment - 1)) != 0)
    fail(Errc::invalid_argument, "alignment " + std::to_string(settings.alignment) + "; expected a power of two");
  if (settings.plan_cache < 1) fail(Errc::invalid_argument, "plan_cache 0; expected at least 1");
  if (settings.plan_search_budget < 0)
    fail(Errc::invalid_argument, "plan_search_budget " + std::to_string(settings.plan_search_budget) + "; expected >= 0 (0: no search)");
  graph.validate();

  auto model = std::shared_ptr<CompiledModel>(new CompiledModel());
  CompiledModel& m = *model;
  m.settings_ = settings;
  const std::vector<GraphInput> gin = graph.inputs();  // a copy: `graph` is released below

  // 1. Options, checked against the target and the graph's inputs.
  std::vector<ModelInput> model_inputs;
  for (const GraphInput& i : gin) model_inputs.push_back({i.name, i.shape, true});
  const bool shapes_given = options.input_shape().has_value() || options.contains(Option::dynamic_batch_size) ||
                            options.contains(Option::dynamic_image_size) || options.contains(Option::dynamic_dims);
  m.config_ = shapes_given ? parse_dynamic_config(options, target, model_inputs) : parse_dynamic_config(options, target);
  if (settings.precision == Precision::bf16 && !bf16_supported())
    m.config_.warnings.push_back(
        "precision bf16 needs a CPU with AMX-BF16 (and AVX512-BF16), which this one is not: every kernel runs in f32");
  DynamicConfig& cfg = m.config_;

  // INPUT_SHAPE overrides the declared shapes.
  std::vector<Shape> base;
  for (const GraphInput& i : gin) base.push_back(i.shape);
  std::vector<std::size_t> entry_input;  // per INPUT_SHAPE entry: the graph input
  for (std::size_t e = 0; e < cfg.input_shape.entries().size(); ++e) {
    const InputShapeEntry& entry = cfg.input_shape.entries()[e];
    std::size_t k = e;
    if (cfg.input_shape.named())
      for (std::size_t j = 0; j < gin.size(); ++j)
        if (gin[j].name == entry.name) k = j;
    entry_input.push_back(k);
    base[k] = entry.shape;
  }
  if (cfg.mode == ShapeMode::fixed && !std::all_of(base.begin(), base.end(), [](const Shape& s) { return s.is_static(); })) {
    if (!target.supports_ranges)
      fail(Errc::ranges_unsupported, "the graph's inputs have dynamic shapes (" + [&] {
        std::string s;
        for (std::size_t i = 0; i < gin.size(); ++i) s += (i ? "; " : "") + gin[i].name + ":" + base[i].to_string();
        return s;
      }() + "), and target " + q(target.name) + " has no shape ranges; expected INPUT_SHAPE with fixed dims or a gear option");
    cfg.mode = ShapeMode::ranges;
  }

  // 2. The shapes of every plan, and their hull.
  std::vector<std::vector<Shape>> plan_shapes;
  if (cfg.mode == ShapeMode::gears) {
    m.gears_ = enumerate_gears(cfg);
    for (const Gear& gear : m.gears_) {
      std::vector<Shape> shapes = base;
      for (std::size_t e = 0; e < gear.shapes.size(); ++e) shapes[entry_input[e]] = gear.shapes[e];
      plan_shapes.push_back(std::move(shapes));
    }
  } else {
    plan_shapes.push_back(base);
  }
  std::vector<Shape> hull_shapes = plan_shapes.front();
  for (const auto& shapes : plan_shapes)
    for (std::size_t i = 0; i < shapes.size(); ++i) hull_shapes[i] = hull(hull_shapes[i], shapes[i]);

  // 3. Shapes over the hull, then the passes.
  const auto order0 = graph.topological_order();
  Graph g = reshaped(graph, hull_shapes, propagate(graph, hull_shapes, order0), order0);
  graph = Graph();  // `g` holds the only references to the weights the caller gave up
  // bf16 on AMX: dense convs keep NCHW, whose kernels run on AMX tiles (layout_nhwc).
  const bool amx_convs = settings.precision == Precision::bf16 && bf16_supported();
  if (settings.optimize) g = detail::optimize_owned(std::move(g), &m.pass_stats_, !amx_convs);
  const auto order = g.topological_order();
  const std::vector<TensorDesc> hull_desc = propagate(g, hull_shapes, order);

  // 4. A kernel per node, shared by every plan (per plan where the rank is unknown here).
  // The constants' data is held apart from the graph meanwhile: a constant that every
  // reader's kernel holds in its own layout (packed weights) and that is no graph output
  // is let go as soon as its last reader has its kernel, so that the weights are not all
  // in memory twice; the model keeps its type and dims only (`Tensor::without_data`).
  // Without a compiler given, nodes with constant inputs are compiled outside the
  // process-wide cache, whose entries hold their requests' constants.
  OpCompiler& compiler = settings.compiler ? *settings.compiler : OpCompiler::global();
  std::vector<std::optional<Tensor>> data(g.values().size());
  std::vector<std::size_t> readers(g.values().size(), 0);
  std::vector<bool> captured(g.values().size(), true);
  for (const Constant& c : g.constants()) data[c.value] = c.tensor;
  for (const Node& node : g.nodes())
    for (const ValueId v : node.inputs)
      if (v != no_value) ++readers[v];
  for (const ValueId v : g.outputs()) captured[v] = false;
  g = with_data(g, std::vector<std::optional<Tensor>>(g.values().size()));
  m.kernels_.assign(g.nodes().size(), nullptr);
  for (const std::size_t n : order) {
    const Node& node = g.nodes()[n];
    if (rank_known_inputs(node, hull_desc)) {
      const bool reads_constant = std::any_of(node.inputs.begin(), node.inputs.end(),
                                              [&](ValueId v) { return v != no_value && data[v].has_value(); });
      OpCompiler alone(1);
      m.kernels_[n] = select_kernel(settings.compiler == nullptr && reads_constant ? alone : compiler, g, node,
                                    hull_desc, CompileFlag::exact, settings.precision, &data);
    }
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      const ValueId v = node.inputs[k];
      if (v == no_value || !data[v]) continue;
      if (!m.kernels_[n] || !m.kernels_[n]->captures_input(k)) captured[v] = false;
      if (--readers[v] == 0 && captured[v] && data[v]->has_data()) data[v].reset();
    }
  }
  g = with_data(g, data);
  data.clear();

  for (std::size_t i = 0; i < gin.size(); ++i)
    m.inputs_.push_back({gin[i].name, gin[i].dtype, gin[i].format, hull_shapes[i]});
  for (const ValueId v : g.outputs()) {
    const ValueInfo& info = g.values()[v];
    Format f = Format::nd;
    if (info.source == ValueSource::input) f = g.inputs()[info.producer].format;
    m.outputs_.push_back({info.name, info.desc.dtype, f, hull_desc[v].shape});
  }

  // 5. The plans.
  m.per_signature_ = cfg.mode == ShapeMode::ranges &&
                     std::any_of(hull_shapes.begin(), hull_shapes.end(), [](const Shape& s) { return !s.is_bounded(); });
  m.graph_ = std::move(g);
  m.order_ = order;
  m.settings_.compiler = nullptr;  // the caller's cache may not outlive the model
  if (!m.per_signature_) {
    const PlanInputs in{m.graph_, m.order_, m.kernels_, settings, compiler, cfg.ac_parallel_enable, settings.optimize};
    for (std::size_t p = 0; p < plan_shapes.size(); ++p) {
      m.plans_.push_back(build_plan(in, plan_shapes[p], cfg.mode == ShapeMode::gears ? static_cast<std::int32_t>(p) : -1));
      if (settings.progress) settings.progress(p + 1, plan_shapes.size());
      m.arena_bytes_ = std::max(m.arena_bytes_, m.plans_.back()->arena_bytes());
    }
  }
#if defined(__GLIBC__)
  // The weights the passes and the kernels replaced are freed, but glibc keeps freed
  // heap pages in the process: give them back to the system.
  malloc_trim(0);
#endif
  return model;
}

// ---------------------------------------------------------------------------------------

void verify(const Plan& plan) {
  const auto bad = [](const std::string& what) { raise(Errc::internal, "[ge.compile] plan check: " + what); };
  verify(plan.memory, plan.lifetimes);
  const auto preds = step_preds(plan);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    for (const std::int32_t p : preds[s])
      if (p >= static_cast<std::int32_t>(s)) bad("step " + q(plan.steps[s].name) + " reads a value made by a later step");
  }
  verify(plan.streams, preds);
  const detail::StepOrder order(plan.streams);
  std::vector<const PlanValue*> arena;
  for (const PlanValue& v : plan.values) {
    if (v.storage != Storage::arena) continue;
    if (v.block < 0 || static_cast<std::size_t>(v.block) >= plan.lifetimes.size()) bad("value " + q(v.name) + " has no block");
    if (v.offset != plan.memory.offsets[static_cast<std::size_t>(v.block)]) bad("value " + q(v.name) + " is not at its block's offset");
    if (v.bytes < 0 || v.offset < 0 || v.offset + v.bytes > plan.memory.arena_bytes)
      bad("value " + q(v.name) + " (" + std::to_string(v.bytes) + " bytes at " + std::to_string(v.offset) +
          ") does not fit the arena of " + std::to_string(plan.memory.arena_bytes));
    if (v.producer < 0) bad("arena value " + q(v.name) + " has no producer");
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
      bad("value " + q(v->name) + " reuses " + (donor ? q(donor->name) : "a block with no value") + " in place, but step " +
          q(step.name) + " (" + step.op + ") may not write it over that input");
    if (donor->desc.dtype != v->desc.dtype || donor->bytes != v->bytes)
      bad("value " + q(v->name) + " reuses " + q(donor->name) + " in place with another type or size");
  }
  // Two values sharing memory: the later one's producer runs after the earlier one's
  // producer (its write, even when nothing reads it) and after every reader of it; only
  // an in-place pair's step reads the first while it writes the second.
  for (const PlanValue* a : arena)
    for (const PlanValue* b : arena) {
      if (a == b || a->producer > b->producer || (a->producer == b->producer && a > b)) continue;
      if (a->bytes == 0 || b->bytes == 0 || a->offset + a->bytes <= b->offset || b->offset + b->bytes <= a->offset) continue;
      if (a->producer == b->producer) bad("values " + q(a->name) + " and " + q(b->name) + " of one step overlap");
      const std::string& writer = plan.steps[static_cast<std::size_t>(b->producer)].name;
      if (!order.after(b->producer, a->producer))
        bad("values " + q(a->name) + " and " + q(b->name) + " share memory, but step " + q(writer) +
            " (writing the second) may run before step " +
            q(plan.steps[static_cast<std::size_t>(a->producer)].name) + " (writing the first) finishes");
      for (const std::int32_t r : a->readers) {
        if (r == b->producer) {
          if (plan.memory.shares_with[static_cast<std::size_t>(b->block)] == a->block) continue;
          bad("values " + q(a->name) + " and " + q(b->name) + " share memory, but step " + q(writer) +
              " reads the first while it writes the second, and is not granted to reuse it in place");
        }
        if (!order.after(b->producer, r))
          bad("values " + q(a->name) + " and " + q(b->name) + " share memory, but step " +
              q(plan.steps[static_cast<std::size_t>(b->producer)].name) + " (writing the second) may run before step " +
              q(plan.steps[static_cast<std::size_t>(r)].name) + " (reading the first) finishes");
      }
    }
}

}  // namespace ge
