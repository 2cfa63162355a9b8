// The choice of gears over plain numbers (gear_select.hpp).

#include "gear_select.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "ge/core/error.hpp"

namespace ge::detail {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

bool holds(const GearPoint& gear, const GearPoint& p) {
  for (std::size_t d = 0; d < p.size(); ++d)
    if (gear[d] < p[d]) return false;
  return true;
}

// The points' indices in lexicographic order, and whether each holds the one before.
std::vector<std::size_t> sorted_points(const std::vector<WeightedPoint>& points, bool& chain) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return points[a].at < points[b].at; });
  chain = true;
  for (std::size_t i = 1; i < order.size(); ++i) chain = chain && holds(points[order[i]].at, points[order[i - 1]].at);
  return order;
}

bool allowed(const GearProblem& p, std::size_t c) { return !p.max_arena || p.arena[c] <= *p.max_arena; }

// A set's quality: the weight of the points no gear holds, then the cost.
struct Score {
  double uncovered = 0, cost = 0;
  bool operator<(const Score& o) const { return uncovered != o.uncovered ? uncovered < o.uncovered : cost < o.cost; }
};

Score score(const GearProblem& p, const std::vector<std::size_t>& set, std::vector<std::size_t>* served = nullptr) {
  Score s;
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    double best = inf;
    std::size_t at = 0;
    for (std::size_t k = 0; k < set.size(); ++k)
      if (p.work[set[k]] < best && holds(p.candidates[set[k]], p.points[i].at)) best = p.work[set[k]], at = k;
    if (best == inf) s.uncovered += p.points[i].weight;
    else s.cost += p.points[i].weight * best;
    if (served) served->push_back(at);
  }
  return s;
}

// Exact dynamic programming over a chain: the points sorted, gear j serving the points
// after the previous gear i up to j; cost[k][j] = min_i cost[k-1][i] + work(j) * W(i, j].
std::vector<std::size_t> chain_dp(const GearProblem& p, const std::vector<std::size_t>& order, std::size_t max_gears) {
  const std::size_t n = order.size();
  std::vector<double> upto(n + 1, 0);  // the weight of the first j sorted points
  for (std::size_t j = 0; j < n; ++j) upto[j + 1] = upto[j] + p.points[order[j]].weight;
  const std::size_t kmax = std::min(max_gears, n);
  std::vector<std::vector<double>> cost(kmax + 1, std::vector<double>(n, inf));
  std::vector<std::vector<std::size_t>> from(kmax + 1, std::vector<std::size_t>(n, 0));
  for (std::size_t j = 0; j < n; ++j)
    if (allowed(p, order[j])) cost[1][j] = p.work[order[j]] * upto[j + 1];
  for (std::size_t k = 2; k <= kmax; ++k)
    for (std::size_t j = 1; j < n; ++j) {
      if (!allowed(p, order[j])) continue;
      for (std::size_t i = k - 2; i < j; ++i) {
        const double c = cost[k - 1][i] + p.work[order[j]] * (upto[j + 1] - upto[i + 1]);
        if (c < cost[k][j]) cost[k][j] = c, from[k][j] = i;
      }
    }
  std::size_t best_k = 1;
  for (std::size_t k = 2; k <= kmax; ++k)
    if (cost[k][n - 1] < cost[best_k][n - 1]) best_k = k;
  std::vector<std::size_t> set;
  if (cost[best_k][n - 1] == inf) return set;  // the largest point has no gear within the arena
  for (std::size_t k = best_k, j = n - 1; k >= 1; --k) {
    set.push_back(order[j]);  // points come first among the candidates: same index
    j = from[k][j];
  }
  return set;
}

// Every set of at most `max_gears` of `usable`, when there are at most `limit` of them.
bool try_every_set(const GearProblem& p, const std::vector<std::size_t>& usable, std::size_t max_gears,
                   std::vector<std::size_t>& best) {
  constexpr double limit = 50000;
  double sets = 0, choose = 1;
  const std::size_t m = usable.size();
  for (std::size_t k = 1; k <= std::min(max_gears, m) && sets <= limit; ++k) {
    choose = choose * static_cast<double>(m - k + 1) / static_cast<double>(k);
    sets += choose;
  }
  if (sets > limit) return false;
  Score best_score{inf, inf};
  std::vector<std::size_t> set;
  // Depth-first over sets in index order; fewer gears are kept on ties (seen first per prefix).
  auto visit = [&](auto&& self, std::size_t from) -> void {
    if (!set.empty()) {
      const Score s = score(p, set);
      if (s < best_score || (!(best_score < s) && set.size() < best.size())) best_score = s, best = set;
    }
    if (set.size() == max_gears) return;
    for (std::size_t i = from; i < m; ++i) {
      set.push_back(usable[i]);
      self(self, i + 1);
      set.pop_back();
    }
  };
  visit(visit, 0);
  return true;
}

// Greedy: the candidate that improves the score most, up to `max_gears` times; then
// single swaps while one improves it.
std::vector<std::size_t> greedy_swaps(const GearProblem& p, const std::vector<std::size_t>& usable,
                                      std::size_t max_gears) {
  std::vector<std::size_t> set;
  Score now{inf, inf};
  while (set.size() < max_gears) {
    std::optional<std::size_t> pick;
    Score best = now;
    for (const std::size_t c : usable) {
      if (std::find(set.begin(), set.end(), c) != set.end()) continue;
      set.push_back(c);
      if (const Score s = score(p, set); s < best) best = s, pick = c;
      set.pop_back();
    }
    if (!pick) break;
    set.push_back(*pick);
    now = best;
  }
  for (bool improved = true; improved;) {  // each swap lowers the score: this ends
    improved = false;
    for (std::size_t k = 0; k < set.size(); ++k)
      for (const std::size_t c : usable) {
        if (std::find(set.begin(), set.end(), c) != set.end()) continue;
        std::vector<std::size_t> trial = set;
        trial[k] = c;
        if (const Score s = score(p, trial); s < now) set = trial, now = s, improved = true;
      }
  }
  return set;
}

}  // namespace

std::vector<GearPoint> gear_candidates(const std::vector<WeightedPoint>& points, bool& complete) {
  std::vector<GearPoint> out;
  for (const WeightedPoint& p : points) out.push_back(p.at);
  bool chain = false;
  (void)sorted_points(points, chain);
  complete = true;
  if (chain || points.empty()) return out;
  constexpr std::size_t cap = 256;
  GearPoint top = points.front().at;
  for (const WeightedPoint& p : points)
    for (std::size_t d = 0; d < top.size(); ++d) top[d] = std::max(top[d], p.at[d]);
  if (std::find(out.begin(), out.end(), top) == out.end()) out.push_back(top);
  for (std::size_t a = 0; a < points.size(); ++a)
    for (std::size_t b = a + 1; b < points.size(); ++b) {
      GearPoint m = points[a].at;
      for (std::size_t d = 0; d < m.size(); ++d) m[d] = std::max(m[d], points[b].at[d]);
      if (std::find(out.begin(), out.end(), m) != out.end()) continue;
      if (out.size() >= cap) {
        complete = false;
        return out;
      }
      out.push_back(std::move(m));
    }
  return out;
}

GearSelection select_gears(const GearProblem& p, std::size_t max_gears) {
  GearSelection out;
  const std::vector<std::size_t> order = sorted_points(p.points, out.chain);
  std::vector<std::size_t> usable;
  for (std::size_t c = 0; c < p.candidates.size(); ++c)
    if (allowed(p, c)) usable.push_back(c);
  if (out.chain) {
    out.chosen = chain_dp(p, order, max_gears);
  } else {
    out.exhaustive = try_every_set(p, usable, max_gears, out.chosen);
    if (!out.exhaustive) out.chosen = greedy_swaps(p, usable, max_gears);
  }
  std::sort(out.chosen.begin(), out.chosen.end(), [&](std::size_t a, std::size_t b) {
    return p.work[a] != p.work[b] ? p.work[a] < p.work[b] : p.candidates[a] < p.candidates[b];
  });
  const Score s = score(p, out.chosen, &out.served_by);
  if (out.chosen.empty() || s.uncovered > 0 || s.cost == inf)
    raise(Errc::invalid_argument,
          "[ge.gears] no set of at most " + std::to_string(max_gears) + " gears within max_arena " +
              std::to_string(p.max_arena.value_or(0)) + " bytes holds every observed shape; expected more gears or "
              "a larger max_arena");
  out.cost = s.cost;
  for (const WeightedPoint& w : p.points) out.own_cost += w.weight * p.work[static_cast<std::size_t>(&w - p.points.data())];
  return out;
}

}  // namespace ge::detail
