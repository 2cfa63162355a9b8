#pragma once
/// \file
/// `ge::Plan`: one compiled way to run a graph for one set of input shapes (a gear, a
/// range, or one real input signature): the steps in execution order with their kernels
/// and streams, every value with where it lives, and the memory plan of the arena.
///
/// Plain data, made by `ge::compile` and `ge::build_plan` (see `ge/compile/compile.hpp`)
/// and run by `ge::Session`. A plan is specialised for its shapes: what they make
/// constant (a `Shape` of static dims and the shape arithmetic on it, as exporters emit
/// it before every `Reshape`) is computed when the plan is made, so a gear's plan of a
/// torch export is static like one of a graph built in code. A plan is *static* when every value's dims are known at compile time and
/// no kernel decides its output dims from data: the runtime then prepares every launch
/// once. Otherwise each step infers its outputs' real dims as it runs.
///
/// Where values live (`Storage`):
/// - graph inputs and outputs in the caller's memory (outputs the caller does not supply
///   are allocated for the result), constants in their own bytes, outside the arena;
/// - every other value at an offset in one arena, planned over the values' lifetimes for
///   their upper-bound sizes; a value whose size has no finite bound is allocated per run
///   once its dims are known (`dynamic`).
///
/// Lifetimes are in step order, extended where streams let steps run out of that order:
/// a value stays live until every later step that could still run beside one of its
/// readers has finished, so two values may share memory only when the schedule orders
/// the first one's readers before the second one's producer (see `verify`).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/compile/memory_plan.hpp"
#include "ge/compile/streams.hpp"
#include "ge/core/api.hpp"
#include "ge/ops/schema.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

/// Where a value of a plan lives at run time.
enum class Storage : std::uint8_t {
  arena,     ///< at `PlanValue::offset` in the run's arena
  input,     ///< the caller's buffer of graph input `PlanValue::index`
  output,    ///< the buffer of graph output `PlanValue::index` (the caller's or the result's)
  constant,  ///< the constant's own bytes
  dynamic,   ///< no finite size bound: allocated per run once its dims are known
};

/// The name of a storage kind, e.g. `"arena"`.
[[nodiscard]] GE_API std::string_view to_string(Storage s) noexcept;

/// Which kind of plan serves (or served) a run.
enum class PlanKind : std::uint8_t {
  fixed,      ///< the one plan of a model compiled for fixed shapes
  gear,       ///< a gear's static plan
  range,      ///< the range plan made at compile time (ranges, or hybrid mode between gears)
  signature,  ///< a plan made at run time for one input signature (an unbounded range)
};

/// The name of a plan kind, e.g. `"range"`.
[[nodiscard]] GE_API std::string_view to_string(PlanKind kind) noexcept;

/// One value of a plan. Plan values are numbered in the plan (graph inputs first); a
/// graph value that no step of the plan touches has none.
struct PlanValue {
  std::string name;                  ///< the graph value's name
  TensorDesc desc;                   ///< in this plan: static dims in a static plan, else ranges
  Storage storage = Storage::arena;  ///< where it lives
  std::int32_t index = -1;           ///< graph input or output index (`input`, `output`)
  std::optional<Tensor> constant{};  ///< the data of a `constant`
  std::int64_t bytes = 0;            ///< bytes reserved: the upper bound (-1: unbounded)
  std::int64_t offset = -1;          ///< arena offset (`arena` only)
  std::int32_t block = -1;           ///< its entry in `Plan::lifetimes` (`arena` only)
  std::int32_t producer = -1;        ///< the step that writes it (-1: input or constant)
  std::vector<std::int32_t> readers; ///< the steps that read it, ascending
};

/// One step: a node with its kernel.
struct PlanStep {
  std::string name;                     ///< the node's name
  std::string op;                       ///< the op type
  const OpSchema* schema = nullptr;     ///< for run-time inference in non-static plans
  Attributes attrs;                     ///< the node's attributes (as set)
  std::vector<std::int32_t> inputs;     ///< value indices; -1 for an omitted optional input
  std::vector<std::int32_t> outputs;    ///< value indices
  std::shared_ptr<const Kernel> kernel; ///< the kernel selected for it
  Engine engine = Engine::vector;       ///< the engine that runs it
};

/// One compiled way to run the graph. See the file comment.
struct GE_API Plan {
  std::int32_t gear = -1;                 ///< the gear's index; -1 for a range or fixed plan
  std::vector<Shape> input_shapes;        ///< what each graph input may be under this plan
  std::vector<PlanValue> values;          ///< every value the steps touch
  std::vector<PlanStep> steps;            ///< in execution order (a topological order)
  std::vector<std::int32_t> graph_inputs;   ///< value index of each graph input
  std::vector<std::int32_t> graph_outputs;  ///< value index of each graph output
  StreamAssignment streams;               ///< a stream per step, events between streams
  std::vector<Lifetime> lifetimes;        ///< per arena value (`PlanValue::block`): size, extended lifetime, in place
  MemoryPlan memory;                      ///< offsets of `lifetimes` in the arena, and the figures
  bool static_shapes = false;             ///< every dim known, no data-dependent kernel
  std::size_t data_dependent_steps = 0;   ///< steps whose kernel decides its output dims from data
  std::size_t per_run_values = 0;         ///< values allocated per run (`Storage::dynamic`)
  std::size_t folded_nodes = 0;           ///< nodes evaluated at compile time for this plan's shapes

  /// The arena's size in bytes.
  [[nodiscard]] std::int64_t arena_bytes() const noexcept { return memory.arena_bytes; }
  /// A range plan that works out dims as it runs (each step's output dims inferred from
  /// its inputs'): a session with `specialize_ranges` runs a static plan made for the
  /// real dims instead, while its per-signature cache has room.
  [[nodiscard]] bool works_out_dims() const noexcept { return gear < 0 && !static_shapes; }
  /// The input shapes as text: `data:8,3,224,224; mask:8,128`.
  [[nodiscard]] std::string describe_inputs(const std::vector<std::string>& names) const;
};

/// Checks a plan's invariants and throws `Errc::internal` naming what is wrong:
/// the memory plan (`ge::verify` over `lifetimes`: no two values live at one time
/// overlap), the streams (`ge::verify`: every cross-stream edge ordered by events), that
/// every arena value's reserved bytes fit inside the arena, and that two arena values
/// sharing memory are ordered by the schedule (the second's producer runs after every
/// reader of the first), so no run on any number of threads can corrupt a value.
GE_API void verify(const Plan& plan);

}  // namespace ge
