#pragma once
/// \file
/// `ge::PlanSelector`: the runtime's choice of a compiled model's plan for real input
/// dims, and its cache of plans made per input signature.
///
/// ```
/// auto model = ge::compile(graph, {{"ge.inputShape", "data:-1,3,224,224"},
///                                  {"ge.dynamicBatchSize", "1,2,4,8"}});
/// ge::PlanSelector plans(model);
/// std::vector<std::vector<std::int64_t>> dims{{2, 3, 224, 224}};
/// plans.select(dims)->gear;             // 1: the gear whose shapes equal the inputs
/// ```
///
/// Compile makes every plan it can; a model with an unbounded input dim
/// (`CompiledModel::plans_per_signature()`) gets a static plan per real input signature,
/// made here on first use through `ge::build_plan` and kept in a bounded LRU cache
/// (`CompileSettings::plan_cache` entries). `ge::Session` has one. Thread-safe.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/api.hpp"
#include "ge/core/lru_cache.hpp"
#include "ge/core/tensor_view.hpp"

namespace ge {

/// See the file comment.
class GE_API PlanSelector {
 public:
  /// A selector over `model` keeping up to `cache` per-signature plans (0: the model's
  /// `CompileSettings::plan_cache`). With `specialize_ranges`, a range plan (which works
  /// out each step's dims as it runs, and an exporter's Shape -> Gather -> Concat before
  /// a Reshape as steps) gives way to a static plan made for the real dims at their
  /// first run (`Plan::works_out_dims`), while the cache has room; past `cache`
  /// signatures the range plan runs (no plan is evicted for it, nothing is made again).
  /// Throws `Errc::invalid_argument` for a null model.
  explicit PlanSelector(std::shared_ptr<const CompiledModel> model, std::size_t cache = 0,
                        bool specialize_ranges = true);

  /// The plan for these real input dims (one list per graph input): the gear whose
  /// shapes equal them (`no_matching_gear`, listing the gears, when none does), the
  /// range plan when they lie inside the ranges (`out_of_range` otherwise), or the
  /// per-signature plan (made now on a cache miss). Counts and ranks must match
  /// (`bad_tensor`).
  [[nodiscard]] std::shared_ptr<const Plan> select(std::span<const std::vector<std::int64_t>> dims);
  /// The same for the dims of these views (one per graph input). Finding a gear's, the
  /// range plan's or a per-signature plan already made allocates nothing.
  [[nodiscard]] std::shared_ptr<const Plan> select(std::span<const TensorView> inputs);

  /// The per-signature plan cache's counters.
  [[nodiscard]] CacheStats cache_stats() const { return signature_plans_.stats(); }

 private:
  template <class D>
  std::shared_ptr<const Plan> select_dims(std::span<const D> dims);

  std::shared_ptr<const CompiledModel> model_;
  LruCache<Plan> signature_plans_;
  bool specialize_ranges_ = true;
};

}  // namespace ge
