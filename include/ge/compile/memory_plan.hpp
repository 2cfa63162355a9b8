#pragma once
/// \file
/// Liveness-based memory planning: offsets in one arena for values with lifetimes.
///
/// A value is written at step `first` and last read at step `last` (inclusive, in the
/// plan's execution order). Two values whose lifetimes meet may not overlap in memory;
/// others may share it. `plan_memory` places every value at an aligned offset in one
/// arena and keeps the smallest arena among its strategies. Each heuristic is an order in
/// which blocks are placed, each into a gap left by the already placed blocks that are
/// live at the same time (best fit: the smallest gap that holds it; first fit: the lowest):
///
/// - `greedy_by_size`: largest first, best fit (TFLite's and most planners' choice).
/// - `greedy_by_breadth`: steps in order of how many bytes are live at them, largest
///   first; at each, its unplaced blocks largest first, best fit.
/// - `by_first_use`: in order of their first step (ties: larger first), best fit.
/// - `by_area`: by bytes x steps lived, largest first, best fit.
/// - `by_conflict`: by the bytes a block meets (its own and those of every block live
///   with it at some step), largest first, best fit: the crowded blocks go first.
/// - `first_fit_by_size`: largest first, first fit.
/// - `first_fit_by_first_use`: in order of their first step (ties: larger first), first
///   fit: the classic left-edge allocator.
/// - `search`: starts from the best plan of the others and improves it within
///   `PlanOptions::search_budget`: an exact branch and bound where the blocks are few
///   (it proves the optimum when it finishes), else randomised greedy restarts (the
///   orders by size, by bytes met and by area, each key scaled by a random factor; first
///   and best fit in turn). Deterministic: a fixed seed, and the budget counts work, not
///   time.
///
/// No plan can be smaller than the lower bound (the largest total live at one step); the
/// planner stops as soon as one reaches it, and `MemoryPlan::optimal` says when the arena
/// is proven the smallest possible for these lifetimes (at the bound, or the exact search
/// finished).
///
/// In place: a value may ask to reuse the memory of an input (`inplace_of`) that dies at
/// the step the value is born (its `last` equals the value's `first`) and is at least as
/// large. Granted requests merge the two into one block; the plan says which were granted.
///
/// Every plan reports its arena size, the no-reuse total (sum of aligned sizes) and the
/// lower bound (the largest total of aligned block sizes live at one step): no placement
/// can use less. `verify` checks that no two values live at one time overlap.
///
/// ```
/// std::vector<ge::Lifetime> values{{.bytes = 100, .first = 0, .last = 1},
///                                  {.bytes = 50, .first = 1, .last = 2},
///                                  {.bytes = 100, .first = 2, .last = 3}};
/// auto plan = ge::plan_memory(values);   // arena 192 with 64-byte alignment:
///                                        // values 0 and 2 share offset 0
/// ge::verify(plan, values);              // throws if two live values overlap
/// ```

#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"

namespace ge {

/// One value to place: its size and its lifetime in steps (inclusive).
struct Lifetime {
  std::int64_t bytes = 0;     ///< size in bytes (0 is allowed: it gets an offset, no space)
  std::int32_t first = 0;     ///< the step that writes it
  std::int32_t last = 0;      ///< the last step that reads it (>= first)
  std::int32_t inplace_of = -1;  ///< index of a value whose memory it may reuse, or -1
};

/// The placement strategies (see the file comment).
enum class PlanStrategy : std::uint8_t {
  greedy_by_size,
  greedy_by_breadth,
  by_first_use,
  by_area,
  by_conflict,
  first_fit_by_size,
  first_fit_by_first_use,
  search,
};

/// Every strategy, in the order `PlanOptions` tries them by default.
inline constexpr PlanStrategy all_plan_strategies[] = {
    PlanStrategy::greedy_by_size, PlanStrategy::greedy_by_breadth, PlanStrategy::by_first_use,
    PlanStrategy::by_area,        PlanStrategy::by_conflict,       PlanStrategy::first_fit_by_size,
    PlanStrategy::first_fit_by_first_use, PlanStrategy::search};

/// The name of a strategy, e.g. `"greedy_by_size"`.
[[nodiscard]] GE_API std::string_view to_string(PlanStrategy s) noexcept;

/// Planner settings.
struct PlanOptions {
  std::int64_t alignment = 64;  ///< every offset is a multiple (a power of two, >= 1)
  /// Strategies to try; the smallest arena wins (ties: the earlier one). `search`, where
  /// listed, runs last, from the best of the others (or from `greedy_by_size` alone).
  std::vector<PlanStrategy> strategies{std::begin(all_plan_strategies), std::end(all_plan_strategies)};
  /// Work the `search` may spend, in block visits (one block looked at while placing
  /// another); 0 turns it off. The default, 1'000'000, took 2 ms on average and 12 ms at
  /// most on bench/memory_plan's random sets (up to 300 values, 60 live together), on a
  /// Zen 5 core; a plan that reaches the lower bound stops there (real models do, before
  /// or soon after the search starts).
  std::int64_t search_budget = default_search_budget;
  static constexpr std::int64_t default_search_budget = 1'000'000;
};

/// A finished plan: one offset per value, and its figures.
struct MemoryPlan {
  std::vector<std::int64_t> offsets;   ///< per value, in the arena
  std::vector<std::int32_t> shares_with;  ///< per value: the value whose memory it reuses (granted in-place), or -1
  std::int64_t arena_bytes = 0;        ///< the arena's size (a multiple of the alignment)
  std::int64_t no_reuse_bytes = 0;     ///< the sum of all aligned sizes: the arena without reuse
  std::int64_t lower_bound = 0;        ///< the largest aligned total live at one step
  std::int64_t alignment = 64;
  PlanStrategy strategy = PlanStrategy::greedy_by_size;  ///< the strategy that won
  /// The arena is proven the smallest any placement of these blocks can have: it equals
  /// the lower bound, or the exact search finished.
  bool optimal = false;
};

/// Plans offsets for `values`. Throws `Errc::invalid_argument` for a negative size, a
/// lifetime with last < first or a negative step, a bad `inplace_of` index, an
/// alignment that is not a power of two, no strategy, or a negative search budget.
[[nodiscard]] GE_API MemoryPlan plan_memory(std::span<const Lifetime> values, const PlanOptions& options = {});

/// The lower bound alone: the largest total of aligned sizes live at one step.
[[nodiscard]] GE_API std::int64_t live_lower_bound(std::span<const Lifetime> values, std::int64_t alignment = 64);

/// Checks a plan against its values: offsets aligned and inside the arena, and no two
/// values that are live at the same time overlap (except a granted in-place pair).
/// Throws `Errc::internal` naming the two values on the first violation.
GE_API void verify(const MemoryPlan& plan, std::span<const Lifetime> values);

}  // namespace ge
