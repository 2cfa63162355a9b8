// compile(): options -> shapes for the hull of all plans -> passes -> a kernel per node ->
// one Plan per gear (or a range plan, or plans per input signature) with streams and a
// memory plan. See include/ge/compile/compile.hpp.
#include "ge/compile/compile.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/transform.hpp>
#include <tbb/parallel_for.h>

#include "core/tsan.hpp"

#include "compile/padding_analysis.hpp"
#include "compile/plan_build.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "ge/compile/passes.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/core/log.hpp"
#include "ge/core/text.hpp"
#include "ge/ops/registry.hpp"

namespace ge {

namespace views = ranges::views;

namespace detail {
// `optimize`, owning its graph: BatchNormalization folding drops each Conv's old weights
// once the folded ones exist, instead of holding both sets to the end (src/compile/passes.cpp).
Graph optimize_owned(Graph g, std::vector<PassStats>* stats, bool dense_chains);
}  // namespace detail

namespace {

[[noreturn]] void fail(Errc code, const std::string& what) { raise(code, "[ge.compile] " + what); }


// Shape propagation: every value's description for these graph-input shapes, in value-id
// order. Nodes are inferred in topological order from their inputs' new descriptions.
// With `refined`, the graph's recorded descriptions hold for these same shapes (the
// passes' output: constant folding refines a Reshape fed by a computed shape tensor,
// `shape_values.hpp`, beyond what a node's inference sees) and each inferred description
// is narrowed by its recorded one: a kernel is then chosen for the dims the passes knew
// (a BatchNormalization made a 1x1 depthwise conv, after a window-partition Reshape).
std::vector<TensorDesc> propagate(const Graph& g, const std::vector<Shape>& input_shapes,
                                  const std::vector<std::size_t>& order, bool refined = false) {
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
    for (std::size_t o = 0; o < node.outputs.size(); ++o) {
      const TensorDesc& recorded = g.values()[node.outputs[o]].desc;
      if (refined && recorded.dtype == out[o].dtype && compatible(recorded.shape, out[o].shape))
        out[o].shape = merge(out[o].shape, recorded.shape);
      desc[node.outputs[o]] = std::move(out[o]);
    }
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
    std::vector<ValueId> ins = node.inputs |
                               views::transform([&](ValueId v) { return v == no_value ? no_value : map[v]; }) |
                               ranges::to<std::vector>();
    std::vector<ValueId> outs;
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

bool rank_known_inputs(const Node& node, const std::vector<TensorDesc>& desc) {
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](ValueId v) { return v == no_value || desc[v].shape.rank_known(); });
}

// Raises Errc::invalid_argument for settings no graph compiles with.
void check_settings(const CompileSettings& settings) {
  if (settings.max_streams < 1) fail(Errc::invalid_argument, "max_streams " + std::to_string(settings.max_streams) + "; expected >= 1");
  if (settings.alignment < 1 || (settings.alignment & (settings.alignment - 1)) != 0)
    fail(Errc::invalid_argument, "alignment " + std::to_string(settings.alignment) + "; expected a power of two");
  if (settings.plan_cache < 1) fail(Errc::invalid_argument, "plan_cache 0; expected at least 1");
  if (settings.plan_search_budget < 0)
    fail(Errc::invalid_argument, "plan_search_budget " + std::to_string(settings.plan_search_budget) + "; expected >= 0 (0: no search)");
}

// The options, checked against the target and the graph's inputs.
DynamicConfig model_config(const BuildOptions& options, const Target& target, const CompileSettings& settings,
                           const std::vector<GraphInput>& gin) {
  std::vector<ModelInput> model_inputs;
  for (const GraphInput& i : gin) model_inputs.push_back({i.name, i.shape, true});
  const bool shapes_given = options.input_shape().has_value() || options.contains(Option::dynamic_batch_size) ||
                            options.contains(Option::dynamic_image_size) || options.contains(Option::dynamic_dims);
  DynamicConfig cfg =
      shapes_given ? parse_dynamic_config(options, target, model_inputs) : parse_dynamic_config(options, target);
  if (settings.precision == Precision::bf16 && !bf16_supported())
    cfg.warnings.push_back(
        "precision bf16 needs a CPU with AVX512-BF16 (or AMX-BF16), which this one is not: every kernel runs in f32");
  return cfg;
}

// The input shapes the plans start from: the declared ones with INPUT_SHAPE's over them.
struct BaseShapes {
  std::vector<Shape> shapes;              // per graph input
  std::vector<std::size_t> entry_input;  // per INPUT_SHAPE entry: the graph input
};

// The base shapes; a fixed config whose shapes are not all static turns to ranges, where
// the target has them.
BaseShapes base_shapes(DynamicConfig& cfg, const Target& target, const std::vector<GraphInput>& gin) {
  BaseShapes base;
  for (const GraphInput& i : gin) base.shapes.push_back(i.shape);
  for (std::size_t e = 0; e < cfg.input_shape.entries().size(); ++e) {
    const InputShapeEntry& entry = cfg.input_shape.entries()[e];
    std::size_t k = e;
    if (cfg.input_shape.named())
      for (std::size_t j = 0; j < gin.size(); ++j)
        if (gin[j].name == entry.name) k = j;
    base.entry_input.push_back(k);
    base.shapes[k] = entry.shape;
  }
  if (cfg.mode == ShapeMode::fixed &&
      !std::all_of(base.shapes.begin(), base.shapes.end(), [](const Shape& s) { return s.is_static(); })) {
    if (!target.supports_ranges)
      fail(Errc::ranges_unsupported, "the graph's inputs have dynamic shapes (" + [&] {
        std::string s;
        for (std::size_t i = 0; i < gin.size(); ++i) s += (i ? "; " : "") + gin[i].name + ":" + base.shapes[i].to_string();
        return s;
      }() + "), and target " + quoted(target.name) + " has no shape ranges; expected INPUT_SHAPE with fixed dims or a gear option");
    cfg.mode = ShapeMode::ranges;
  }
  return base;
}

// The input shapes of each plan made at compile time: one set per gear, else the base.
std::vector<std::vector<Shape>> plan_shapes(const DynamicConfig& cfg, const std::vector<Gear>& gears,
                                            const BaseShapes& base) {
  if (cfg.mode != ShapeMode::gears) return {base.shapes};
  std::vector<std::vector<Shape>> out;
  for (const Gear& gear : gears) {
    std::vector<Shape> shapes = base.shapes;
    for (std::size_t e = 0; e < gear.shapes.size(); ++e) shapes[base.entry_input[e]] = gear.shapes[e];
    out.push_back(std::move(shapes));
  }
  if (cfg.hybrid) {
    // Hybrid mode: one more plan, over the gears' hull in every dim they fill, or over the
    // range INPUT_SHAPE gives there.
    std::vector<Shape> range = out.front();
    for (const auto& shapes : out)
      for (std::size_t i = 0; i < shapes.size(); ++i) range[i] = hull(range[i], shapes[i]);
    for (std::size_t e = 0; e < cfg.input_shape.entries().size(); ++e) {
      const auto& given = cfg.input_shape.entries()[e].shape.dims();
      std::vector<Dim> dims = range[base.entry_input[e]].dims();
      for (std::size_t d = 0; d < given.size() && d < dims.size(); ++d)
        if (given[d].is_range()) dims[d] = given[d];
      range[base.entry_input[e]] = Shape(std::move(dims));
    }
    out.push_back(std::move(range));
  }
  return out;
}

// A kernel per node, shared by every plan (null where the rank is unknown here: chosen
// per plan); `g` keeps its constants' data only where some reader needs it. The
// constants' data is held apart from the graph meanwhile: a constant that every
// reader's kernel holds in its own layout (packed weights) and that is no graph output
// is let go as soon as its last reader has its kernel, so that the weights are not all
// in memory twice; the model keeps its type and dims only (`Tensor::without_data`).
// Without a compiler given, nodes with constant inputs are compiled outside the
// process-wide cache, whose entries hold their requests' constants.
std::vector<std::shared_ptr<const Kernel>> node_kernels(Graph& g, const std::vector<std::size_t>& order,
                                                        const std::vector<TensorDesc>& hull_desc,
                                                        const CompileSettings& settings, OpCompiler& compiler,
                                                        const detail::NodePacking* packing) {
  std::vector<std::optional<Tensor>> data(g.values().size());
  std::vector<std::size_t> readers(g.values().size(), 0);
  std::vector<bool> captured(g.values().size(), true);
  for (const Constant& c : g.constants()) data[c.value] = c.tensor;
  for (const Node& node : g.nodes())
    for (const ValueId v : node.inputs)
      if (v != no_value) ++readers[v];
  for (const ValueId v : g.outputs()) captured[v] = false;
  g = with_data(g, std::vector<std::optional<Tensor>>(g.values().size()));
  std::vector<std::shared_ptr<const Kernel>> kernels(g.nodes().size(), nullptr);
  for (const std::size_t n : order) {
    const Node& node = g.nodes()[n];
    if (rank_known_inputs(node, hull_desc)) {
      const bool reads_constant = std::any_of(node.inputs.begin(), node.inputs.end(),
                                              [&](ValueId v) { return v != no_value && data[v].has_value(); });
      const PackedState* packed = packing != nullptr ? packing->state(n) : nullptr;
      OpCompiler alone(1);
      kernels[n] = detail::select_kernel((settings.compiler == nullptr && reads_constant) || packed ? alone : compiler,
                                         g, node, hull_desc, CompileFlag::exact, settings.precision, &data, packed);
      if (packed != nullptr) packing->check(n, *kernels[n]);
    }
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      const ValueId v = node.inputs[k];
      if (v == no_value || !data[v]) continue;
      if (!kernels[n] || !kernels[n]->captures_input(k)) captured[v] = false;
      if (--readers[v] == 0 && captured[v] && !settings.keep_weights && data[v]->has_data()) data[v].reset();
    }
  }
  g = with_data(g, data);
  return kernels;
}

// The model's outputs as the hull of the plans gives them.
std::vector<ModelIO> model_outputs(const Graph& g, const std::vector<TensorDesc>& hull_desc) {
  std::vector<ModelIO> out;
  for (const ValueId v : g.outputs()) {
    const ValueInfo& info = g.values()[v];
    Format f = Format::nd;
    if (info.source == ValueSource::input) f = g.inputs()[info.producer].format;
    out.push_back({info.name, info.desc.dtype, f, hull_desc[v].shape});
  }
  return out;
}

}  // namespace

// Builds CompiledModels: `compile` runs every step; `load_compiled` (model_file.cpp)
// starts from a graph whose passes have run.
struct detail::ModelMaker {
  // Step 1-2: the options, checked against the target and the graph's inputs (INPUT_SHAPE
  // overrides the declared shapes); the gears; the shapes of every plan.
  static std::vector<std::vector<Shape>> front(CompiledModel& m, const BuildOptions& options, const Target& target,
                                               const std::vector<GraphInput>& gin) {
    m.options_ = options;
    m.config_ = model_config(options, target, m.settings_, gin);
    for (const std::string& w : m.config_.warnings) log_message(LogLevel::warn, "[ge.compile] " + w);
    const BaseShapes base = base_shapes(m.config_, target, gin);
    if (m.config_.mode == ShapeMode::gears) m.gears_ = enumerate_gears(m.config_);
    return plan_shapes(m.config_, m.gears_, base);
  }

  // Steps 4-5 over `g` (passes done, shapes over the hull): a kernel per node, the
  // model's inputs and outputs, the plans.
  static void back(CompiledModel& m, Graph g, const std::vector<GraphInput>& gin,
                   const std::vector<std::vector<Shape>>& shapes, const std::vector<Shape>& hull_shapes,
                   const NodePacking* packing = nullptr) {
    const CompileSettings settings = m.settings_;
    const auto order = g.topological_order();
    const std::vector<TensorDesc> hull_desc = propagate(g, hull_shapes, order, true);
    OpCompiler& compiler = settings.compiler ? *settings.compiler : OpCompiler::global();
    m.kernels_ = node_kernels(g, order, hull_desc, settings, compiler, packing);
    for (std::size_t i = 0; i < gin.size(); ++i)
      m.inputs_.push_back({gin[i].name, gin[i].dtype, gin[i].format, hull_shapes[i]});
    m.outputs_ = model_outputs(g, hull_desc);
    m.per_signature_ = (m.config_.mode == ShapeMode::ranges || m.config_.hybrid) &&
                       std::any_of(hull_shapes.begin(), hull_shapes.end(), [](const Shape& s) { return !s.is_bounded(); });
    if (m.per_signature_)
      log_message(LogLevel::info, "[ge.compile] an input dim is unbounded: no plan made now; the session makes one "
                                  "per input signature at its first run");
    m.graph_ = std::move(g);
    m.order_ = order;
    m.settings_.compiler = nullptr;  // the caller's cache may not outlive the model
    // Every plan whose shapes are bounded is made now (hybrid mode with an unbounded range:
    // the gears' plans; the rest per input signature).
    std::vector<std::vector<Shape>> made;
    for (const auto& s : shapes)
      if (std::all_of(s.begin(), s.end(), [](const Shape& x) { return x.is_bounded(); })) made.push_back(s);
    if (!made.empty()) {
      const std::vector<std::vector<Shape>>& shapes = made;
      const std::size_t gear_count = m.gears_.size();
      const detail::PlanInputs in{m.graph_, m.order_, m.kernels_, settings, compiler, m.config_.ac_parallel_enable,
                                  settings.optimize};
      // The gears' plans are independent: made on every thread (a load or a compile of
      // many gears waits less), reported to `progress` one at a time, in a rising count.
      m.plans_.resize(shapes.size());
      std::mutex progress_mu;
      std::size_t done = 0;
      const auto one = [&](std::size_t p) {
        const std::int32_t gear = p < gear_count ? static_cast<std::int32_t>(p) : -1;
        m.plans_[p] = detail::build_plan(in, shapes[p], gear);
        if (settings.progress) {
          const std::lock_guard<std::mutex> lock(progress_mu);
          settings.progress(++done, shapes.size());
        }
      };
#ifdef GE_TSAN
      // Under ThreadSanitizer on plain threads, whose start and join it sees (oneTBB hands
      // its tasks over inside the uninstrumented libtbb): the plans stay concurrent, so a
      // race between two gears' builds is still found.
      std::atomic<std::size_t> next{0};
      std::exception_ptr failed;
      std::vector<std::thread> workers;
      for (std::size_t t = 0; t < std::min<std::size_t>(shapes.size(), 4); ++t)
        workers.emplace_back([&] {
          try {
            for (std::size_t p = next++; p < shapes.size(); p = next++) one(p);
          } catch (...) {
            const std::lock_guard<std::mutex> lock(progress_mu);
            if (!failed) failed = std::current_exception();
            next = shapes.size();
          }
        });
      for (auto& w : workers) w.join();
      if (failed) std::rethrow_exception(failed);
#else
      tbb::parallel_for(std::size_t{0}, shapes.size(), one);
#endif
      for (const auto& plan : m.plans_) m.arena_bytes_ = std::max(m.arena_bytes_, plan->arena_bytes());
    }
    if (!m.gears_.empty()) {
      const std::vector<std::vector<Shape>> gear_shapes(shapes.begin(), shapes.begin() + static_cast<std::ptrdiff_t>(m.gears_.size()));
      m.padding_ = detail::analyse_padding(m.graph_, m.order_, m.config_, m.gears_, gear_shapes);
    }
#if defined(__GLIBC__)
    // The weights the passes and the kernels replaced are freed, but glibc keeps freed
    // heap pages in the process: give them back to the system.
    malloc_trim(0);
#endif
  }

  static std::shared_ptr<const CompiledModel> compile(Graph&& graph, const BuildOptions& options,
                                                      const Target& target, const CompileSettings& settings) {
    check_settings(settings);
    auto model = std::shared_ptr<CompiledModel>(new CompiledModel());
    CompiledModel& m = *model;
    m.settings_ = settings;
    // f16/bf16 between ops compute in f32 (validates the graph first), optimize or not.
    PassStats widen;
    graph = widen_half_floats(graph, &widen);
    if (widen.nodes_added + widen.constants_added > 0) m.pass_stats_.push_back(widen);
    const std::vector<GraphInput> gin = graph.inputs();  // a copy: `graph` is released below
    const std::vector<std::vector<Shape>> shapes = front(m, options, target, gin);
    const std::vector<Shape> hull_shapes = hull_of(shapes);
    if (!m.pass_stats_.empty()) {
      m.config_.warnings.push_back("the graph computes in f16/bf16 between its ops; ge's CPU kernels compute it in f32 (" +
                                   std::to_string(widen.nodes_added) + " Cast(s) at its inputs and outputs, " +
                                   std::to_string(widen.constants_added) + " constant(s) widened)");
      log_message(LogLevel::warn, "[ge.compile] " + m.config_.warnings.back());
    }

    // 3. Shapes over the hull, then the passes.
    const auto order0 = graph.topological_order();
    Graph g = reshaped(graph, hull_shapes, propagate(graph, hull_shapes, order0), order0);
    graph = Graph();  // `g` holds the only references to the weights the caller gave up
    // bf16 on AMX: dense convs keep NCHW, whose kernels run on AMX tiles (layout_nhwc).
    // With AVX512-BF16's dot products they run NHWC, as in f32 (the GEMM over patches).
    const bool amx_convs = settings.precision == Precision::bf16 && cpu::amx_bf16_usable();
    if (settings.optimize) g = detail::optimize_owned(std::move(g), &m.pass_stats_, !amx_convs);
    // A quantized (QDQ) model on a CPU without the int8 kernels: the same values, in f32.
    if (!int8_supported())
      if (const auto pairs = std::count_if(g.nodes().begin(), g.nodes().end(), [](const Node& n) { return n.op == "FakeQuant"; });
          pairs > 0) {
        m.config_.warnings.push_back("the model is quantized (" + std::to_string(pairs) +
                                     " QuantizeLinear/DequantizeLinear pairs); this CPU has no AVX512-VNNI, so its "
                                     "convs and matrix products run in f32 on the quantized values");
        log_message(LogLevel::warn, "[ge.compile] " + m.config_.warnings.back());
      }
    back(m, std::move(g), gin, shapes, hull_shapes);
    return model;
  }

  // A model over `g`, a graph as `compile` leaves it (passes done): the same steps
  // without the passes.
  static std::shared_ptr<const CompiledModel> assemble(Graph&& g, const BuildOptions& options, const Target& target,
                                                       const CompileSettings& settings, const NodePacking* packing) {
    check_settings(settings);
    g.validate();
    auto model = std::shared_ptr<CompiledModel>(new CompiledModel());
    model->settings_ = settings;
    const std::vector<GraphInput> gin = g.inputs();
    const std::vector<std::vector<Shape>> shapes = front(*model, options, target, gin);
    back(*model, std::move(g), gin, shapes, hull_of(shapes), packing);
    return model;
  }

  static std::vector<Shape> hull_of(const std::vector<std::vector<Shape>>& shapes) {
    std::vector<Shape> hull_shapes = shapes.front();
    for (const auto& s : shapes)
      for (std::size_t i = 0; i < s.size(); ++i) hull_shapes[i] = hull(hull_shapes[i], s[i]);
    return hull_shapes;
  }
};

namespace detail {
std::shared_ptr<const CompiledModel> compile_cached(Graph&& graph, const BuildOptions& options, const Target& target,
                                                    const CompileSettings& settings);

std::shared_ptr<const CompiledModel> assemble_model(Graph&& g, const BuildOptions& options, const Target& target,
                                                    const CompileSettings& settings, const NodePacking* packing) {
  return ModelMaker::assemble(std::move(g), options, target, settings, packing);
}
}  // namespace detail

std::shared_ptr<const CompiledModel> compile(const Graph& graph, const BuildOptions& options, const Target& target,
                                             const CompileSettings& settings) {
  return detail::guard_memory("[ge.compile] compiling the graph (its weights packed, its plans made)", [&] {
    return compile(Graph(graph), options, target, settings);  // a copy shares the weights
  });
}

std::shared_ptr<const CompiledModel> compile(Graph&& graph, const BuildOptions& options, const Target& target,
                                             const CompileSettings& settings) {
  return detail::guard_memory("[ge.compile] compiling the graph (its weights packed, its plans made)", [&] {
    if (!settings.cache_dir.empty() && !settings.keep_weights)
      return detail::compile_cached(std::move(graph), options, target, settings);  // compile_cache.cpp
    return detail::ModelMaker::compile(std::move(graph), options, target, settings);
  });
}

}  // namespace ge
