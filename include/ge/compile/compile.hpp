#pragma once
/// \file
/// `ge::compile`: a graph, build options and a target in; a `ge::CompiledModel` out.
///
/// ```
/// ge::Graph g = ge::onnx::load("resnet50.onnx");   // input "data": -1,3,224,224
/// ge::BuildOptions opts{{"ge.inputShape", "data:-1,3,224,224"}, {"ge.dynamicBatchSize", "1,2,4,8"}};
/// auto model = ge::compile(g, opts);     // one static Plan per batch gear (= ge::batch_gears(g, {1, 2, 4, 8}))
/// model->plans().size();                  // 4
/// model->arena_bytes();                   // the largest gear's arena: all gears share it
/// ```
///
/// The steps (DESIGN.md "The way data flows"):
/// 1. the options are checked against the target and the graph's inputs
///    (`parse_dynamic_config`); INPUT_SHAPE overrides the inputs' declared shapes;
/// 2. shapes are propagated over the graph for the hull of every shape the model must
///    accept (every gear, or the ranges);
/// 3. graph passes (`ge::optimize`: constant folding, BatchNormalization folded into
///    convolutions, activations fused into them, dead code removed);
/// 4. a kernel per node through the single-op kernel cache (`OpCompiler`), shared by
///    every plan, so weights are reordered once however many gears there are (nodes with
///    constant inputs through a cache of this compile only, unless `settings.compiler`
///    is given: an entry of the process-wide cache holds its request's constants, which
///    would keep a model's weights alive after the model);
/// 5. one `Plan` per gear, or for ranges one plan whose memory is planned for the upper
///    bounds (`build_plan`): each specialised for its shapes, so that the shape
///    arithmetic exporters emit (Shape -> Gather -> Concat -> Reshape) is computed at
///    compile time and a gear's plan is static, with no data-dependent step and no value
///    allocated per run. Where an input dim has no upper bound, the runtime makes a plan
///    for each real input signature at its first run (`ge::PlanSelector`);
/// 6. per plan: streams (independent branches on their own streams, host-engine ops on
///    their own with AC_PARALLEL_ENABLE=1, pruned events) and the memory plan.
///
/// Without INPUT_SHAPE and gear options, a graph whose inputs have ranges or unknown dims
/// compiles in range mode from its declared shapes (on a target that has ranges).

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ge/compile/cost.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/compile/padding.hpp"
#include "ge/compile/passes.hpp"
#include "ge/compile/plan.hpp"
#include "ge/core/api.hpp"
#include "ge/graph/graph.hpp"
#include "ge/options/build_options.hpp"
#include "ge/options/dynamic_config.hpp"
#include "ge/options/gears.hpp"
#include "ge/options/target.hpp"

namespace ge {

namespace detail {
struct ModelMaker;  // builds CompiledModels (src/compile/compile.cpp, model_file.cpp)
}  // namespace detail

/// Settings of `compile` that are not build options.
struct GE_API CompileSettings {
  std::int64_t alignment = 64;        ///< arena offsets are multiples (a power of two)
  int max_streams = 4;                ///< vector-engine streams per plan (>= 1)
  bool optimize = true;               ///< run the graph passes
  std::size_t plan_cache = 16;        ///< per-signature plans a session keeps (unbounded ranges), >= 1
  /// Work the memory planner's search may spend on a plan whose heuristics miss the lower
  /// bound (`PlanOptions::search_budget`, see ge/compile/memory_plan.hpp); 0: none, >= 0.
  std::int64_t plan_search_budget = PlanOptions::default_search_budget;
  /// `bf16`: convs and constant-weight matrix products in bf16 with f32 accumulation on
  /// CPUs with AVX512-BF16 or AMX-BF16 (`bf16_supported()`); elsewhere f32, with a notice in
  /// `CompiledModel::config().warnings`. Values between ops and the graph's edges stay f32.
  Precision precision = Precision::f32;
  /// The kernel cache used during this compile; null: `OpCompiler::global()` for nodes
  /// without constant inputs, a cache of this compile for the others (see step 4). The
  /// model does not keep it: plans made later use `OpCompiler::global()`.
  OpCompiler* compiler = nullptr;
  /// Keep every weight's data in `CompiledModel::graph()`, also those the kernels hold
  /// packed, so that the model can be saved to a file (`ge::save`, `gec compile -o`);
  /// costs one more copy of those weights in memory.
  bool keep_weights = false;
  /// Called after each plan made at compile time with (plans done, plans in all): one call
  /// at a time with a rising count, from whichever thread made the plan.
  std::function<void(std::size_t, std::size_t)> progress{};
  /// A folder for compiled models (empty: none). `compile` first looks there for a model
  /// file made from the same graph (its nodes, attributes and weights' bytes), options,
  /// target, settings, ge version and instruction set, and loads it (`load_compiled`: no
  /// passes, no packing); else it compiles and writes one there (to a temporary name,
  /// then renamed, so that processes sharing the folder see whole files). A file that no
  /// longer loads is compiled again and replaced. Not used with `keep_weights`. A folder
  /// that cannot be made or written is `Errc::invalid_argument`.
  std::string cache_dir{};
};

/// A graph input or output as the compiled model sees it.
struct GE_API ModelIO {
  std::string name;                  ///< the value's name
  DataType dtype = DataType::f32;    ///< its data type
  Format format = Format::nd;        ///< its layout
  Shape shape;                       ///< every shape it may take (the hull of all plans)
};

/// Build options for batch gears over the graph's own input shapes: INPUT_SHAPE is the
/// graph's declared inputs (their `-1` batch dims are where the gears go) and
/// DYNAMIC_BATCH_SIZE the `sizes`, so `ge::compile(g, ge::batch_gears(g, {1, 2, 4, 8}))`
/// needs no shape text. The same rules as the options written out (`ge::compile` checks
/// them): every input with a `-1` takes the batch.
[[nodiscard]] GE_API BuildOptions batch_gears(const Graph& graph, std::span<const std::int64_t> sizes);
[[nodiscard]] inline BuildOptions batch_gears(const Graph& graph, std::initializer_list<std::int64_t> sizes) {
  return batch_gears(graph, std::span<const std::int64_t>(sizes.begin(), sizes.size()));
}
/// The same for image-size gears (DYNAMIC_IMAGE_SIZE): each gear an `{h, w}` for the
/// graph's `-1` H and W: `ge::image_gears(g, {{224, 224}, {320, 320}})`. INPUT_FORMAT is
/// the inputs' declared layout: NHWC when one is declared NHWC, else NCHW.
[[nodiscard]] GE_API BuildOptions image_gears(const Graph& graph, std::span<const std::vector<std::int64_t>> sizes);
/// The same for dims gears (DYNAMIC_DIMS): each gear one value per `-1` of the graph's
/// inputs, in order: `ge::dims_gears(g, {{1, 128}, {4, 256}})`.
[[nodiscard]] GE_API BuildOptions dims_gears(const Graph& graph, std::span<const std::vector<std::int64_t>> gears);

/// A compiled graph: its plans and what they were made from. Immutable once made, except
/// the per-signature plan cache, which is thread-safe. Share it (`std::shared_ptr`) among
/// sessions and threads.
class GE_API CompiledModel {
 public:
  /// The graph after the passes, with shapes for the hull of every plan. Weights that
  /// every kernel reading them holds in its own packed layout (Conv, MatMul and Gemm
  /// weights on the CPU) keep their type and dims here but not their data
  /// (`Tensor::has_data()` is false): the model holds each weight once.
  [[nodiscard]] const Graph& graph() const noexcept { return graph_; }
  /// The checked options.
  [[nodiscard]] const DynamicConfig& config() const noexcept { return config_; }
  /// The build options as given.
  [[nodiscard]] const BuildOptions& options() const noexcept { return options_; }
  /// `fixed`, `gears` or `ranges`.
  [[nodiscard]] ShapeMode mode() const noexcept { return config_.mode; }
  /// The gears (empty unless `mode()` is `gears`), in option order.
  [[nodiscard]] const std::vector<Gear>& gears() const noexcept { return gears_; }
  /// True in hybrid mode (`ge.compileHybridMode=1`): besides the gears' plans, a range
  /// plan (the last of `plans()`, `gear` -1; or plans per input signature where its range
  /// is unbounded) serves inputs that match no gear.
  [[nodiscard]] bool hybrid() const noexcept { return config_.hybrid; }
  /// With gears: for each value of the gears (an entry of `Gear::values`), whether inputs
  /// may be padded along it to a larger gear without changing the outputs, and where the
  /// outputs carry it (see ge/compile/padding.hpp). Empty without gears.
  [[nodiscard]] const std::vector<GearPadding>& padding() const noexcept { return padding_; }
  /// The plans made at compile time: one per gear (in hybrid mode then the range plan),
  /// or one.
  [[nodiscard]] const std::vector<std::shared_ptr<const Plan>>& plans() const noexcept { return plans_; }
  /// The graph inputs and outputs.
  [[nodiscard]] const std::vector<ModelIO>& inputs() const noexcept { return inputs_; }
  [[nodiscard]] const std::vector<ModelIO>& outputs() const noexcept { return outputs_; }
  /// What the passes did.
  [[nodiscard]] const std::vector<PassStats>& pass_stats() const noexcept { return pass_stats_; }
  /// The largest arena of the plans made at compile time: one arena serves every gear.
  /// (A per-signature plan's arena is its own `Plan::arena_bytes()`.)
  [[nodiscard]] std::int64_t arena_bytes() const noexcept { return arena_bytes_; }
  /// True when plans are made per input signature at run time (an unbounded range).
  [[nodiscard]] bool plans_per_signature() const noexcept { return per_signature_; }
  /// The settings it was compiled with.
  [[nodiscard]] const CompileSettings& settings() const noexcept { return settings_; }

  /// The gear for real input dims (one list per graph input): the gear whose shapes equal
  /// them; with `round_up`, else the smallest gear (fewest elements) at least as large in
  /// every dim, into which the caller can pad them. None when no gear fits or the model
  /// has no gears. `bad_tensor` for a count or rank the model's inputs do not have.
  [[nodiscard]] std::optional<std::int32_t> gear_for(std::span<const std::vector<std::int64_t>> dims,
                                                     bool round_up = false) const;

  /// What running these input dims (one list per graph input) would cost, with a
  /// session's `options`, on a machine of `speed` (see ge/compile/cost.hpp). Nothing is
  /// run; a plan the dims would need made at run time is made here to read it, and
  /// dropped. Throws as a run would before it starts: `bad_tensor` (count, rank),
  /// `no_matching_gear` or `out_of_range` (outside every gear and range),
  /// `padding_unsafe`; `invalid_argument` for a `speed` that is not calibrated.
  [[nodiscard]] ShapeCost cost(std::span<const std::vector<std::int64_t>> dims, const MachineSpeed& speed,
                               const CostOptions& options = {}) const;
  /// The kernel chosen for each node of `graph()` at compile time (null where a node's
  /// rank was unknown then: chosen per plan), shared by every plan.
  [[nodiscard]] const std::vector<std::shared_ptr<const Kernel>>& kernels() const noexcept { return kernels_; }

 private:
  friend struct detail::ModelMaker;
  friend std::shared_ptr<const Plan> build_plan(const CompiledModel&, std::vector<Shape>, std::int32_t);
  CompiledModel() = default;

  Graph graph_;
  BuildOptions options_;
  DynamicConfig config_;
  CompileSettings settings_;
  std::vector<Gear> gears_;
  std::vector<std::shared_ptr<const Plan>> plans_;
  std::vector<ModelIO> inputs_, outputs_;
  std::vector<PassStats> pass_stats_;
  std::vector<GearPadding> padding_;
  std::vector<std::shared_ptr<const Kernel>> kernels_;  // per node of graph_; null: chosen per plan
  std::vector<std::size_t> order_;                      // a topological order of graph_'s nodes
  std::int64_t arena_bytes_ = 0;
  bool per_signature_ = false;
};

/// Makes the plan of `model` for one set of input shapes (one per graph input; a gear's,
/// or one real input signature's), as `compile` makes the plans it keeps: the graph
/// specialised for the shapes (what they make constant computed now, what no output
/// needs then dropped), the compiled kernels where they still fit, streams and the memory
/// plan. Pure: the model is not changed, and the plan is the caller's. The runtime uses
/// it for models whose plans are made per input signature (`plans_per_signature()`).
/// Throws `ge::Error`: `bad_tensor` for a wrong count or rank of shapes, shape
/// inference's errors naming the node, `no_kernel`.
[[nodiscard]] GE_API std::shared_ptr<const Plan> build_plan(const CompiledModel& model, std::vector<Shape> input_shapes,
                                                            std::int32_t gear = -1);

/// Compiles `graph` for `options` on `target` (see the file comment). Throws `ge::Error`:
/// the options' codes (`parse_dynamic_config`), the graph's (`validate`), shape
/// inference's naming the node, `no_kernel`, `gear_shape_mismatch` when a gear's shapes
/// do not fit the inputs' declared ones, `invalid_argument` for bad settings.
[[nodiscard]] GE_API std::shared_ptr<const CompiledModel> compile(const Graph& graph, const BuildOptions& options = {},
                                                                  const Target& target = default_target(),
                                                                  const CompileSettings& settings = {});
/// The same, consuming `graph`: the weights it held are not kept beside the rewritten
/// ones (BatchNormalization folding frees each Conv's old weights as it goes), which
/// lowers the peak memory of a compile by up to one copy of the weights. Pass a graph
/// that is not needed afterwards.
///
/// ```
/// auto model = ge::compile(ge::onnx::load("resnet50.onnx"), opts);   // a temporary
/// auto other = ge::compile(std::move(g), opts);                       // g is empty after
/// ```
[[nodiscard]] GE_API std::shared_ptr<const CompiledModel> compile(Graph&& graph, const BuildOptions& options = {},
                                                                  const Target& target = default_target(),
                                                                  const CompileSettings& settings = {});

}  // namespace ge
