#pragma once
/// \file
/// `ge::Session`: runs a `ge::CompiledModel` on a device.
///
/// ```
/// auto model = ge::compile(graph, {{"ge.inputShape", "data:-1,3,224,224"},
///                                  {"ge.dynamicBatchSize", "1,2,4,8"}});
/// ge::Session session(model, {.threads = 2});
/// std::vector<float> x(2 * 3 * 224 * 224);
/// std::int64_t dims[] = {2, 3, 224, 224};
/// ge::RunResult r = session.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
/// r = session.run({{"data", ge::TensorView{x.data(), ge::DataType::f32, dims}}});   // by name
/// r.gear;                            // 1: the gear whose shapes equal the inputs
/// r.outputs[0].dims;                 // {2, 1000}
/// r.outputs[0].values<float>();      // the logits
/// ```
///
/// A run checks the inputs (count, data type, rank, null buffers), picks the plan
/// (`ge::PlanSelector`: the gear whose shapes equal the inputs, else the range plan
/// after checking the ranges, else the plan of this input signature, made on its first
/// run and kept in the session's cache), binds the plan to an arena, and runs its steps: a plan that
/// is one chain as a flat loop of prepared launches, others through the oneTBB host
/// scheduler, which hands each ready step to the device on its stream, waiting for and
/// recording the plan's events. Each output then has its real description, also where
/// its shape depended on the data.
///
/// Thread safety: `run` may be called from many threads at once. Each run takes a run
/// context (arena, streams, events, prepared launches) from the session's pool, so
/// concurrent runs never share memory, and results equal serial runs. A bad input is a
/// `ge::Error` and leaves the session usable.

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/api.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/device/device.hpp"
#include "ge/runtime/trace.hpp"

namespace ge {

/// Settings of a session.
struct SessionOptions {
  /// Host scheduler threads; 0: every core. More than the machine's cores are clamped to
  /// them, with a line in `Session::notices()` (more threads than cores only slow the
  /// kernels down, and a count written for a bigger machine should still run).
  int threads = 0;
  std::shared_ptr<Device> device{}; ///< null: a new `CpuDevice`
  /// Record every run's step timings in `RunResult::trace` (see `ge/runtime/trace.hpp`).
  /// Off: the runtime does no work for it.
  bool trace = false;
  /// The most bytes a run may hold (0: no limit): its arena, plus what it allocates past
  /// it (values whose size only the data gives, outputs ge allocates). A run whose plan's
  /// arena needs more is refused before it starts, an allocation that would pass the
  /// limit before it is made, `Errc::out_of_memory` naming the sizes (and the value); the
  /// session stays usable for smaller inputs.
  std::int64_t memory_limit = 0;
  /// The caller's memory for the arena (empty: each run context allocates its own). It
  /// must start at a multiple of the model's `settings().alignment` (64 at least) and
  /// hold `model->arena_bytes()` (`invalid_argument` otherwise), and stay valid while the
  /// session lives. Runs then take turns on it, one at a time; a run whose per-signature
  /// plan needs more is `out_of_memory`. (A run oneTBB starts on the thread that holds
  /// the arena, while that thread waits inside its own run, takes a context of its own.)
  ///
  /// ```
  /// const auto n = static_cast<std::size_t>(model->arena_bytes());
  /// auto* work = static_cast<std::byte*>(::operator new(n, std::align_val_t{64}));
  /// ge::Session s(model, {.arena = {work, n}});   // the steps' values live in `work`
  /// ```
  std::span<std::byte> arena{};
  /// Pad inputs that match no gear to the smallest gear that holds them, run that gear's
  /// static plan, and give the outputs sliced back to the real dims (equal, bit for bit,
  /// to an unpadded run's): only along the gear values the compiler proved independent
  /// (`CompiledModel::padding()`); inputs needing padding along another are
  /// `Errc::padding_unsafe` naming the op, or, in hybrid mode, run on the range plan.
  /// `RunResult::padding_waste` says what share of the gear's input was padding. A model
  /// without gears is `Errc::missing_gears` when the session is made.
  bool pad_to_gear = false;
  /// A range plan works out each step's dims as it runs (and an exporter's Shape ->
  /// Gather -> Concat before each Reshape as steps, the dims not known when it is made);
  /// it gives way to a static plan made for the real dims at their first run, with the
  /// gears' fusions and folding and no per-run allocation at all, for up to the
  /// model's `plan_cache` signatures; past them the range plan runs. `RunResult::plan` is
  /// `signature` for such a run. Off: the range plan always runs.
  bool specialize_ranges = true;
};

/// One output of a run: its real description and its data.
struct GE_API Output {
  std::string name;                  ///< the graph output's name
  DataType dtype = DataType::f32;    ///< its data type
  std::vector<std::int64_t> dims;    ///< its real dims
  Format format = Format::nd;        ///< its layout
  std::int64_t bytes = 0;            ///< its size
  void* data = nullptr;              ///< the caller's buffer, or `storage`'s
  std::shared_ptr<void> storage{};   ///< owns `data` when the run allocated it

  /// A view of it.
  [[nodiscard]] TensorView view() const noexcept { return {data, dtype, dims}; }
  /// Its shape.
  [[nodiscard]] Shape shape() const { return Shape(std::vector<Dim>(dims.begin(), dims.end())); }
  /// The elements as `T`. Throws `Errc::type_mismatch` when `T` is not the C++ type of
  /// `dtype` (e.g. `values<double>()` of an f32 output); a bool output reads as `bool` or
  /// as its bytes, `std::uint8_t`.
  template <class T>
  [[nodiscard]] std::span<const T> values() const {
    const bool bytes_of_bool = dtype == DataType::boolean && std::is_same_v<T, std::uint8_t>;
    if (data_type_of<T>() != dtype && !bytes_of_bool) mismatched_values(data_type_of<T>());
    return {static_cast<const T*>(data), static_cast<std::size_t>(bytes / static_cast<std::int64_t>(sizeof(T)))};
  }

 private:
  [[noreturn]] void mismatched_values(DataType asked) const;
};

/// What a run gives back.
struct GE_API RunResult {
  std::vector<Output> outputs;   ///< one per graph output, in order
  std::int32_t gear = -1;        ///< the gear that ran; -1 for a range or fixed plan
  PlanKind plan = PlanKind::fixed;  ///< which kind of plan ran (hybrid mode: `gear` or `range`)
  /// With `SessionOptions::pad_to_gear`: the share of the gear's input elements that were
  /// padding (0 when the inputs matched a gear or were not padded).
  double padding_waste = 0;
  std::int64_t arena_bytes = 0;  ///< the arena the plan used
  /// What the run did step by step, when the session traces (`SessionOptions::trace`).
  std::shared_ptr<const RunTrace> trace{};
  /// The output of that name. Throws `Errc::invalid_argument` listing the names.
  [[nodiscard]] const Output& operator[](std::string_view name) const;
};

/// What `Session::run_into` did: `RunResult` without the outputs (they are the caller's).
struct RunInfo {
  std::int32_t gear = -1;           ///< the gear that ran; -1 for a range, fixed or per-signature plan
  PlanKind plan = PlanKind::fixed;  ///< which kind of plan ran
  double padding_waste = 0;         ///< as `RunResult::padding_waste`
  std::int64_t arena_bytes = 0;     ///< the arena the plan used
  std::shared_ptr<const RunTrace> trace{};  ///< when the session traces
};

/// A graph input or output by its name, for `Session::run` by name.
struct NamedTensor {
  std::string_view name;
  TensorView view;
};

/// What `Session::run_async` calls when its run ends, on the thread that ran it: with the
/// result, or with the error (`error` set, `result` null), never both. It must not throw.
using RunCallback = std::function<void(const RunResult* result, std::exception_ptr error)>;

/// A run started by `Session::run_async`: wait for it, take its result, or cancel it.
/// Copies share the run. The run goes on (and its callback is called) whether or not
/// anyone waits; the session waits for its runs before it is destroyed.
///
/// ```
/// ge::AsyncRun a = session.run_async({x_view});
/// ... other work ...
/// ge::RunResult r = a.get();     // waits; rethrows the run's ge::Error
/// ```
class GE_API AsyncRun {
 public:
  AsyncRun() = default;
  /// Whether this refers to a run (default-constructed: not).
  [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }
  /// Whether the run has ended (with a result, an error, or cancelled).
  [[nodiscard]] bool ready() const;
  /// Waits until the run has ended.
  void wait() const;
  /// Waits, then the run's result; rethrows its error (`Errc::cancelled` when it was
  /// cancelled first). May be called again (the same result or error); outputs the run
  /// allocated are shared between the copies. `Errc::invalid_argument` when not `valid()`.
  [[nodiscard]] RunResult get() const;
  /// Asks the run to stop: one that has not started never starts, one that is running
  /// stops before its next step; it then ends with `Errc::cancelled`. No effect on a run
  /// that has ended. The caller's output buffers may hold partial results.
  void cancel() noexcept;

 private:
  friend class Session;
  struct GE_HIDDEN State;
  std::shared_ptr<State> state_;
};

/// See the file comment.
class GE_API Session {
 public:
  /// A session over `model`. Throws `Errc::invalid_argument` for a null model, a
  /// negative thread count or a negative memory limit.
  explicit Session(std::shared_ptr<const CompiledModel> model, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs on `inputs` (one per graph input, in order); outputs are allocated.
  /// Throws `ge::Error`: `bad_tensor` (count, data type, rank, negative dim, null
  /// buffer, a buffer smaller than its dims where the view knows its capacity),
  /// `int_overflow` (dims whose element count or bytes overflow int64),
  /// `no_matching_gear`, `out_of_range`, `out_of_memory` (above `memory_limit`, or the
  /// device has no memory left), or a kernel's error.
  RunResult run(std::span<const TensorView> inputs);
  RunResult run(std::initializer_list<TensorView> inputs) { return run(std::span<const TensorView>(inputs.begin(), inputs.size())); }
  /// Runs writing the outputs into the caller's buffers (one per graph output; the data
  /// type must match and the buffer, `elements() * size`, must hold the real output:
  /// `bad_tensor` otherwise). The result's outputs point into those buffers.
  RunResult run(std::span<const TensorView> inputs, std::span<const TensorView> outputs);
  RunResult run(std::initializer_list<TensorView> inputs, std::initializer_list<TensorView> outputs) {
    return run(std::span<const TensorView>(inputs.begin(), inputs.size()),
               std::span<const TensorView>(outputs.begin(), outputs.size()));
  }

  /// Runs writing the outputs into the caller's buffers, allocating nothing: one view per
  /// graph output, its data type the output's, its dims saying how much its buffer holds
  /// (`elements() * size`, checked as `run(inputs, outputs)` does). On return each view's
  /// dims are the output's real dims. After the first run of each plan on each of the
  /// session's run contexts (warm-up), a run on a gear, a fixed shape or a per-signature
  /// plan makes no heap allocation at all; the range plan itself (past `plan_cache`
  /// signatures), tracing and `pad_to_gear` allocate what they need.
  RunInfo run_into(std::span<const TensorView> inputs, std::span<TensorView> outputs);

  /// Runs on inputs given by name, in any order: `run({{"input_ids", ids}, {"mask", mask}})`.
  /// Every graph input exactly once: a name the model lacks (with the nearest one), an
  /// input missing or given twice is `bad_tensor` naming it; then as `run(inputs)`.
  RunResult run(std::span<const NamedTensor> inputs);
  RunResult run(std::initializer_list<NamedTensor> inputs) { return run(std::span<const NamedTensor>(inputs.begin(), inputs.size())); }
  /// By name, writing the outputs into the caller's buffers, each graph output exactly
  /// once by name (IO binding); the rules of both forms above.
  RunResult run(std::span<const NamedTensor> inputs, std::span<const NamedTensor> outputs);
  RunResult run(std::initializer_list<NamedTensor> inputs, std::initializer_list<NamedTensor> outputs) {
    return run(std::span<const NamedTensor>(inputs.begin(), inputs.size()),
               std::span<const NamedTensor>(outputs.begin(), outputs.size()));
  }

  /// Starts a run on one of the session's threads and returns at once; `done`, when set,
  /// is called as the run ends. The inputs are checked first, here (the errors of
  /// `run(inputs)` are thrown by this call, not the run); then the views' data must stay
  /// valid until the run has ended (their dims are copied). Many async runs may be in
  /// flight at once, from many threads; each equals the same run made with `run`.
  AsyncRun run_async(std::span<const TensorView> inputs, RunCallback done = {});
  AsyncRun run_async(std::initializer_list<TensorView> inputs, RunCallback done = {}) {
    return run_async(std::span<const TensorView>(inputs.begin(), inputs.size()), std::move(done));
  }
  /// By name (the rules of `run(named inputs)`).
  AsyncRun run_async(std::span<const NamedTensor> inputs, RunCallback done = {});
  AsyncRun run_async(std::initializer_list<NamedTensor> inputs, RunCallback done = {}) {
    return run_async(std::span<const NamedTensor>(inputs.begin(), inputs.size()), std::move(done));
  }

  /// The model.
  [[nodiscard]] const CompiledModel& model() const noexcept { return *model_; }
  /// The scheduler's thread count (after clamping to the machine's cores).
  [[nodiscard]] int threads() const noexcept;
  /// What the session changed of its options, one sentence each (a clamped thread count).
  [[nodiscard]] const std::vector<std::string>& notices() const noexcept { return notices_; }
  /// The device.
  [[nodiscard]] Device& device() const noexcept { return *device_; }
  /// Whether runs record a trace.
  [[nodiscard]] bool tracing() const noexcept { return trace_; }
  /// The counters of the session's per-signature plan cache (`ge::PlanSelector`).
  [[nodiscard]] CacheStats plan_cache_stats() const;

 private:
  struct GE_HIDDEN Context;
  struct GE_HIDDEN Impl;
  RunResult run_impl(std::span<const TensorView> inputs, std::span<const TensorView> outputs, bool caller_outputs,
                     const std::atomic<bool>* cancel = nullptr);

  std::shared_ptr<const CompiledModel> model_;
  std::shared_ptr<Device> device_;
  std::unique_ptr<Impl> impl_;
  bool trace_ = false;
  std::int64_t memory_limit_ = 0;
  std::vector<std::string> notices_;
};

}  // namespace ge
