#pragma once
// The choice of gears behind ge::choose_gears, on plain numbers: observed points in the
// varying dims with their weights, candidate gears with their work and arena. Exact
// dynamic programming where the points form a chain, else every candidate set where few,
// else greedy with swaps (include/ge/compile/choose_gears.hpp says what each guarantees).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ge::detail {

/// One value per varying dim.
using GearPoint = std::vector<std::int64_t>;

/// A distinct observed point and how many times it was seen.
struct WeightedPoint {
  GearPoint at;
  double weight = 0;
};

/// The problem: every point must run on a chosen candidate that holds it (>= in every dim).
struct GearProblem {
  std::vector<WeightedPoint> points;      ///< distinct
  std::vector<GearPoint> candidates;      ///< the points first, in their order, then others
  std::vector<double> work;               ///< per candidate: the work of one run on it
  std::vector<std::int64_t> arena;        ///< per candidate: its arena bytes
  std::optional<std::int64_t> max_arena;  ///< candidates above it are not used
};

/// The gears chosen.
struct GearSelection {
  std::vector<std::size_t> chosen;     ///< candidate indices, least work first
  std::vector<std::size_t> served_by;  ///< per point: the index into `chosen` it runs on
  double cost = 0;                     ///< sum over points of weight * work of its gear
  double own_cost = 0;                 ///< sum over points of weight * work at the point itself
  bool chain = false;                  ///< the points form a chain: dynamic programming, optimal
  bool exhaustive = false;             ///< every candidate set was tried
};

/// The candidates for `points`: the points, then, unless they form a chain, the
/// componentwise maxima of pairs of points (at most 256 candidates in all, the maximum
/// of all points always among them). `complete` says whether no pair was left out.
[[nodiscard]] std::vector<GearPoint> gear_candidates(const std::vector<WeightedPoint>& points, bool& complete);

/// Chooses at most `max_gears` (>= 1) candidates. Throws `ge::Error` (`invalid_argument`)
/// when no such set within `max_arena` holds every point.
[[nodiscard]] GearSelection select_gears(const GearProblem& problem, std::size_t max_gears);

}  // namespace ge::detail
