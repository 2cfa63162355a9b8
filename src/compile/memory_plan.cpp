#include "ge/compile/memory_plan.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "ge/core/error.hpp"

namespace ge {

std::string_view to_string(PlanStrategy s) noexcept {
  switch (s) {
    case PlanStrategy::greedy_by_size: return "greedy_by_size";
    case PlanStrategy::greedy_by_breadth: return "greedy_by_breadth";
    case PlanStrategy::by_first_use: return "by_first_use";
    case PlanStrategy::by_area: return "by_area";
    case PlanStrategy::by_conflict: return "by_conflict";
    case PlanStrategy::first_fit_by_size: return "first_fit_by_size";
    case PlanStrategy::first_fit_by_first_use: return "first_fit_by_first_use";
    case PlanStrategy::search: return "search";
  }
  return "unknown";
}

namespace {

// A block: one or more values that share memory (an in-place chain), placed as a unit.
struct Block {
  std::int64_t bytes;
  std::int32_t first;
  std::int32_t last;
};

std::int64_t align_up(std::int64_t v, std::int64_t a) { return (v + a - 1) / a * a; }

[[noreturn]] void bad(const std::string& what) {
  raise(Errc::invalid_argument, "[ge.compile] memory plan: " + what);
}

void check_inputs(std::span<const Lifetime> values, std::int64_t alignment) {
  if (alignment < 1 || (alignment & (alignment - 1)) != 0)
    bad("alignment " + std::to_string(alignment) + " is not a power of two; expected 1, 2, 4, ... 64, ...");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Lifetime& v = values[i];
    const std::string which = "value " + std::to_string(i);
    if (v.bytes < 0) bad(which + " has " + std::to_string(v.bytes) + " bytes; expected >= 0");
    if (v.bytes > (std::int64_t{1} << 60)) bad(which + " has " + std::to_string(v.bytes) + " bytes; expected at most 2^60");
    if (v.first < 0 || v.last < v.first)
      bad(which + " lives from step " + std::to_string(v.first) + " to " + std::to_string(v.last) +
          "; expected 0 <= first <= last");
    if (v.inplace_of < -1 || v.inplace_of >= static_cast<std::int32_t>(values.size()) ||
        v.inplace_of == static_cast<std::int32_t>(i))
      bad(which + " asks to reuse value " + std::to_string(v.inplace_of) + "; expected -1 or another value's index");
  }
}

std::int64_t peak_live(const std::vector<Block>& blocks) {
  std::vector<std::pair<std::int64_t, std::int64_t>> events;  // (step, delta); ends sort before starts
  events.reserve(blocks.size() * 2);
  for (const Block& b : blocks) {
    events.emplace_back(std::int64_t{b.first} * 2 + 1, b.bytes);
    events.emplace_back((std::int64_t{b.last} + 1) * 2, -b.bytes);
  }
  std::sort(events.begin(), events.end());
  std::int64_t live = 0, peak = 0;
  for (const auto& e : events) {
    live += e.second;
    peak = std::max(peak, live);
  }
  return peak;
}

enum class Fit : std::uint8_t { best, first };

// The blocks and which of them meet in time, to place them in any order. Only blocks
// that meet can conflict, so placing one looks at its neighbours alone; `work` counts
// the neighbours looked at (the search's budget).
class Packing {
 public:
  explicit Packing(const std::vector<Block>& blocks) : blocks_(blocks), meets_(blocks.size()) {
    std::vector<std::int32_t> by_first;
    for (std::size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].bytes > 0) by_first.push_back(static_cast<std::int32_t>(i));
    std::stable_sort(by_first.begin(), by_first.end(), [&](std::int32_t a, std::int32_t b) { return at(a).first < at(b).first; });
    for (std::size_t x = 0; x < by_first.size(); ++x)
      for (std::size_t y = x + 1; y < by_first.size() && at(by_first[y]).first <= at(by_first[x]).last; ++y) {
        meets_[static_cast<std::size_t>(by_first[x])].push_back(by_first[y]);
        meets_[static_cast<std::size_t>(by_first[y])].push_back(by_first[x]);
      }
  }

  [[nodiscard]] const Block& at(std::int32_t i) const { return blocks_[static_cast<std::size_t>(i)]; }
  [[nodiscard]] std::size_t size() const { return blocks_.size(); }
  [[nodiscard]] const std::vector<std::int32_t>& meets(std::int32_t i) const { return meets_[static_cast<std::size_t>(i)]; }

  // The offset `fit` picks for block `b` among the placed blocks (`offset` >= 0) it meets.
  std::int64_t offset_for(std::int32_t b, Fit fit, const std::vector<std::int64_t>& offset) {
    const Block& cur = at(b);
    if (cur.bytes == 0) return 0;
    taken_.clear();
    for (const std::int32_t n : meets(b)) {
      const std::int64_t o = offset[static_cast<std::size_t>(n)];
      if (o >= 0) taken_.emplace_back(o, o + at(n).bytes);
    }
    work += static_cast<std::int64_t>(meets(b).size()) + 1;
    std::sort(taken_.begin(), taken_.end());
    std::int64_t best = -1, best_gap = 0, top = 0;
    for (const auto& [o, end] : taken_) {
      const std::int64_t gap = o - top;
      if (gap >= cur.bytes && (best < 0 || gap < best_gap)) {
        best = top;
        best_gap = gap;
        if (fit == Fit::first) break;
      }
      top = std::max(top, end);
    }
    return best >= 0 ? best : top;
  }

  // Places the blocks of `order` from position `from` on; those before keep `offset`, the
  // others must be -1. Returns the arena: the highest end of any block; or, as soon as
  // it passes `limit`, a value above `limit` with the rest unplaced.
  std::int64_t place(std::span<const std::int32_t> order, Fit fit, std::vector<std::int64_t>& offset, std::size_t from = 0,
                     std::int64_t limit = std::numeric_limits<std::int64_t>::max()) {
    std::int64_t arena = 0;
    for (std::size_t k = 0; k < from; ++k) {
      const std::int32_t b = order[k];
      arena = std::max(arena, offset[static_cast<std::size_t>(b)] + at(b).bytes);
    }
    for (std::size_t k = from; k < order.size(); ++k) {
      const std::int32_t b = order[k];
      const std::int64_t o = offset_for(b, fit, offset);
      offset[static_cast<std::size_t>(b)] = o;
      arena = std::max(arena, o + at(b).bytes);
      if (arena > limit) return arena;
    }
    return arena;
  }

  std::int64_t work = 0;

 private:
  const std::vector<Block>& blocks_;
  std::vector<std::vector<std::int32_t>> meets_;
  std::vector<std::pair<std::int64_t, std::int64_t>> taken_;
};

std::vector<std::int32_t> by_key(std::size_t n, const auto& before) {
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), before);
  return order;
}

std::vector<std::int32_t> breadth_order(const Packing& p) {
  // Steps by their live total, largest first; at each, its blocks largest first.
  std::vector<std::int32_t> steps;
  for (std::size_t i = 0; i < p.size(); ++i) {
    steps.push_back(p.at(static_cast<std::int32_t>(i)).first);
    steps.push_back(p.at(static_cast<std::int32_t>(i)).last);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  std::vector<std::int64_t> live(steps.size(), 0);
  const auto index = [&](std::int32_t step) {
    return static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), step) - steps.begin());
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Block& b = p.at(static_cast<std::int32_t>(i));
    for (std::size_t k = index(b.first); k <= index(b.last); ++k) live[k] += b.bytes;
  }
  std::vector<std::size_t> step_order(steps.size());
  std::iota(step_order.begin(), step_order.end(), std::size_t{0});
  std::stable_sort(step_order.begin(), step_order.end(), [&](std::size_t a, std::size_t b) { return live[a] > live[b]; });
  const std::vector<std::int32_t> by_size =
      by_key(p.size(), [&](std::int32_t a, std::int32_t b) { return p.at(a).bytes > p.at(b).bytes; });
  std::vector<char> taken(p.size(), 0);
  std::vector<std::int32_t> order;
  for (const std::size_t k : step_order)
    for (const std::int32_t b : by_size)
      if (!taken[static_cast<std::size_t>(b)] && p.at(b).first <= steps[k] && steps[k] <= p.at(b).last) {
        taken[static_cast<std::size_t>(b)] = 1;
        order.push_back(b);
      }
  return order;
}

std::vector<std::int32_t> order_for(PlanStrategy s, const Packing& p) {
  const auto bigger = [&](std::int32_t a, std::int32_t b) {
    if (p.at(a).bytes != p.at(b).bytes) return p.at(a).bytes > p.at(b).bytes;
    return p.at(a).first < p.at(b).first;
  };
  const auto keyed = [&](auto key) {
    return by_key(p.size(), [&](std::int32_t a, std::int32_t b) {
      const auto ka = key(a), kb = key(b);
      return ka != kb ? ka > kb : bigger(a, b);
    });
  };
  switch (s) {
    case PlanStrategy::greedy_by_size:
    case PlanStrategy::first_fit_by_size:
    case PlanStrategy::search: return by_key(p.size(), bigger);
    case PlanStrategy::by_first_use:
    case PlanStrategy::first_fit_by_first_use:
      return by_key(p.size(), [&](std::int32_t a, std::int32_t b) {
        if (p.at(a).first != p.at(b).first) return p.at(a).first < p.at(b).first;
        return p.at(a).bytes > p.at(b).bytes;
      });
    case PlanStrategy::greedy_by_breadth: return breadth_order(p);
    case PlanStrategy::by_area:
      return keyed([&](std::int32_t b) {
        return static_cast<double>(p.at(b).bytes) * static_cast<double>(p.at(b).last - p.at(b).first + 1);
      });
    case PlanStrategy::by_conflict:
      return keyed([&](std::int32_t b) {
        std::int64_t met = p.at(b).bytes;
        for (const std::int32_t n : p.meets(b)) met += p.at(n).bytes;
        return met;
      });
  }
  return by_key(p.size(), bigger);
}

// A small deterministic generator for the search.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

// Branch and bound over placement orders, first fit. An optimal packing can be put in a
// canonical form where placing its blocks by ascending offset (ties: ascending index) with
// first fit gives it back: so only orders whose offsets never go down are searched, and
// a branch stops when its blocks cannot fit under the best arena found.
class Exact {
 public:
  Exact(Packing& p, std::int64_t budget, std::int64_t best, std::vector<std::int64_t> best_offsets)
      : p_(p), budget_(budget), best_(best), best_offsets_(std::move(best_offsets)), offset_(p.size(), -1) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto b = static_cast<std::int32_t>(i);
      if (p.at(b).bytes > 0) todo_.push_back(b);
      else offset_[i] = 0;
      steps_.push_back(p.at(b).first);
      steps_.push_back(p.at(b).last);
    }
    std::stable_sort(todo_.begin(), todo_.end(), [&](std::int32_t a, std::int32_t b) { return p.at(a).bytes > p.at(b).bytes; });
    std::sort(steps_.begin(), steps_.end());
    steps_.erase(std::unique(steps_.begin(), steps_.end()), steps_.end());
    room_.resize(steps_.size());
  }

  // Returns true when the search finished: `best()` is then optimal.
  bool run() {
    finished_ = true;
    descend(0, 0, -1, 0);
    return finished_;
  }
  [[nodiscard]] std::int64_t best() const { return best_; }
  [[nodiscard]] const std::vector<std::int64_t>& best_offsets() const { return best_offsets_; }

 private:
  // The least arena any completion can reach once every unplaced block lies at or above
  // `floor`: at each step, the unplaced blocks and the placed bytes above `floor` stack up.
  std::int64_t bound(std::int64_t floor) {
    std::fill(room_.begin(), room_.end(), 0);
    for (const std::int32_t b : todo_) {
      const Block& k = p_.at(b);
      const std::int64_t o = offset_[static_cast<std::size_t>(b)];
      const std::int64_t above = o < 0 ? k.bytes : std::max<std::int64_t>(0, o + k.bytes - std::max(o, floor));
      if (above == 0) continue;
      const auto lo = std::lower_bound(steps_.begin(), steps_.end(), k.first) - steps_.begin();
      const auto hi = std::lower_bound(steps_.begin(), steps_.end(), k.last) - steps_.begin();
      for (auto s = lo; s <= hi; ++s) room_[static_cast<std::size_t>(s)] += above;
      p_.work += hi - lo + 1;
    }
    p_.work += static_cast<std::int64_t>(room_.size());
    return floor + *std::max_element(room_.begin(), room_.end());
  }

  void descend(std::size_t placed, std::int64_t floor, std::int32_t last_block, std::int64_t top) {
    if (p_.work > budget_) {
      finished_ = false;
      return;
    }
    if (placed == todo_.size()) {
      if (top < best_) {
        best_ = top;
        best_offsets_ = offset_;
      }
      return;
    }
    for (const std::int32_t b : todo_) {
      auto& o = offset_[static_cast<std::size_t>(b)];
      if (o >= 0) continue;
      const std::int64_t at = p_.offset_for(b, Fit::first, offset_);
      if (at < floor || (at == floor && b < last_block)) continue;  // not canonical
      const std::int64_t new_top = std::max(top, at + p_.at(b).bytes);
      if (new_top >= best_) continue;
      o = at;
      if (bound(at) < best_) descend(placed + 1, at, b, new_top);
      o = -1;
      if (!finished_) return;
    }
  }

  Packing& p_;
  std::int64_t budget_;
  std::int64_t best_;
  std::vector<std::int64_t> best_offsets_;
  std::vector<std::int64_t> offset_;
  std::vector<std::int32_t> todo_;
  std::vector<std::int32_t> steps_;
  std::vector<std::int64_t> room_;
  bool finished_ = true;
};

// Randomised greedy restarts: the orders of `greedy_by_size`, `by_conflict` and `by_area`
// with each key scaled by a random factor (spread 10% to 50%), placed first fit and best
// fit in turn, each abandoned as soon as it reaches the best arena so far. Many small
// changes to a good order find the packings one order misses; the early stop makes the
// losing tries cheap. Returns the best arena and leaves its offsets in `offsets`.
std::int64_t improve(Packing& p, std::int64_t budget, std::int64_t bound, std::vector<std::int64_t>& offsets) {
  const std::size_t n = p.size();
  std::int64_t best = 0;
  for (std::size_t i = 0; i < n; ++i) best = std::max(best, offsets[i] + p.at(static_cast<std::int32_t>(i)).bytes);
  std::vector<double> keys[3];  // bytes, bytes met, bytes x steps
  for (auto& k : keys) k.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Block& b = p.at(static_cast<std::int32_t>(i));
    double met = static_cast<double>(b.bytes);
    for (const std::int32_t m : p.meets(static_cast<std::int32_t>(i))) met += static_cast<double>(p.at(m).bytes);
    keys[0][i] = static_cast<double>(b.bytes);
    keys[1][i] = met;
    keys[2][i] = static_cast<double>(b.bytes) * static_cast<double>(b.last - b.first + 1);
  }
  SplitMix rng{0x5eed0000ULL + n};
  std::vector<double> key(n);
  std::vector<std::int64_t> trial;
  for (std::uint64_t round = 0; p.work < budget && best > bound; ++round) {
    const std::vector<double>& base = keys[(round / 2) % 3];
    const double spread = 0.1 + 0.1 * static_cast<double>(round % 5);
    for (std::size_t i = 0; i < n; ++i) {
      const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;  // [0, 1)
      key[i] = base[i] * (1.0 + spread * (2.0 * u - 1.0));
    }
    const auto order =
        by_key(n, [&](std::int32_t a, std::int32_t b) { return key[static_cast<std::size_t>(a)] > key[static_cast<std::size_t>(b)]; });
    p.work += static_cast<std::int64_t>(n);
    trial.assign(n, -1);
    const std::int64_t arena = p.place(order, round % 2 ? Fit::best : Fit::first, trial, 0, best - 1);
    if (arena < best) {
      best = arena;
      offsets = trial;
    }
  }
  return best;
}

// Blocks this few are searched exactly (when the budget allows it).
constexpr std::size_t exact_limit = 24;

}  // namespace

std::int64_t live_lower_bound(std::span<const Lifetime> values, std::int64_t alignment) {
  check_inputs(values, alignment);
  std::vector<Block> blocks;
  blocks.reserve(values.size());
  for (const Lifetime& v : values) blocks.push_back({align_up(v.bytes, alignment), v.first, v.last});
  return peak_live(blocks);
}

MemoryPlan plan_memory(std::span<const Lifetime> values, const PlanOptions& options) {
  check_inputs(values, options.alignment);
  if (options.strategies.empty()) bad("no strategy to try; expected at least one");
  if (options.search_budget < 0)
    bad("search budget " + std::to_string(options.search_budget) + "; expected >= 0 (0: no search)");
  const std::size_t n = values.size();
  MemoryPlan plan;
  plan.alignment = options.alignment;
  plan.shares_with.assign(n, -1);

  // In place: grant a request when the donor's block ends where the value starts, the
  // value fits, and nobody took the donor yet. Values in order of birth, so chains work.
  std::vector<std::int32_t> block_of(n, -1);
  std::vector<Block> blocks;
  std::vector<char> donated(n, 0);
  std::vector<std::int32_t> by_birth(n);
  std::iota(by_birth.begin(), by_birth.end(), 0);
  std::stable_sort(by_birth.begin(), by_birth.end(), [&](std::int32_t a, std::int32_t b) {
    return values[static_cast<std::size_t>(a)].first < values[static_cast<std::size_t>(b)].first;
  });
  std::vector<char> seen(n, 0);
  for (const std::int32_t j : by_birth) {
    const auto uj = static_cast<std::size_t>(j);
    const Lifetime& v = values[uj];
    const std::int64_t bytes = align_up(v.bytes, options.alignment);
    plan.no_reuse_bytes += bytes;
    if (v.inplace_of >= 0) {
      const auto ui = static_cast<std::size_t>(v.inplace_of);
      if (seen[ui] && !donated[ui]) {
        Block& donor = blocks[static_cast<std::size_t>(block_of[ui])];
        if (donor.last == v.first && values[ui].last == v.first && bytes <= donor.bytes) {
          donated[ui] = 1;
          donor.last = v.last;
          block_of[uj] = block_of[ui];
          plan.shares_with[uj] = v.inplace_of;
          seen[uj] = 1;
          continue;
        }
      }
    }
    block_of[uj] = static_cast<std::int32_t>(blocks.size());
    blocks.push_back({bytes, v.first, v.last});
    seen[uj] = 1;
  }
  plan.lower_bound = peak_live(blocks);

  Packing packing(blocks);
  std::vector<std::int64_t> best_offsets, offsets;
  std::int64_t best_arena = -1;
  bool search = false;
  for (const PlanStrategy s : options.strategies) {
    if (s == PlanStrategy::search) {
      search = true;
      continue;
    }
    offsets.assign(blocks.size(), -1);
    const Fit fit = s == PlanStrategy::first_fit_by_size || s == PlanStrategy::first_fit_by_first_use ? Fit::first : Fit::best;
    const std::int64_t arena = packing.place(order_for(s, packing), fit, offsets);
    if (best_arena < 0 || arena < best_arena) {
      best_arena = arena;
      best_offsets = offsets;
      plan.strategy = s;
    }
    if (best_arena == plan.lower_bound) break;  // optimal: nothing can do better
  }
  if (best_arena < 0) {  // only the search: it starts from greedy by size
    best_offsets.assign(blocks.size(), -1);
    best_arena = packing.place(order_for(PlanStrategy::greedy_by_size, packing), Fit::best, best_offsets);
    plan.strategy = PlanStrategy::search;
  }
  plan.optimal = best_arena == plan.lower_bound;
  if (search && !plan.optimal && options.search_budget > 0) {
    packing.work = 0;
    const auto nonzero = static_cast<std::size_t>(
        std::count_if(blocks.begin(), blocks.end(), [](const Block& b) { return b.bytes > 0; }));
    std::int64_t arena = best_arena;
    std::vector<std::int64_t> found = best_offsets;
    if (nonzero <= exact_limit) {
      Exact exact(packing, options.search_budget, best_arena, best_offsets);
      plan.optimal = exact.run();
      arena = exact.best();
      found = exact.best_offsets();
    } else {
      arena = improve(packing, options.search_budget, plan.lower_bound, found);
      plan.optimal = arena == plan.lower_bound;
    }
    if (arena < best_arena) {
      best_arena = arena;
      best_offsets = std::move(found);
      plan.strategy = PlanStrategy::search;
    }
  }
  plan.arena_bytes = best_arena;
  plan.offsets.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    plan.offsets[i] = best_offsets[static_cast<std::size_t>(block_of[i])];
  return plan;
}

void verify(const MemoryPlan& plan, std::span<const Lifetime> values) {
  const std::size_t n = values.size();
  const auto fail = [](const std::string& what) {
    raise(Errc::internal, "[ge.compile] memory plan is wrong: " + what);
  };
  if (plan.offsets.size() != n || plan.shares_with.size() != n)
    fail(std::to_string(plan.offsets.size()) + " offsets for " + std::to_string(n) + " values");
  // A value's memory root: follow granted in-place links back to the first owner.
  // Each value's root once: a walk stops at a value whose root is known (a chain of n
  // in-place links costs n, not n^2).
  constexpr std::size_t unknown = static_cast<std::size_t>(-1), walking = static_cast<std::size_t>(-2);
  std::vector<std::size_t> root(n, unknown);
  std::vector<std::size_t> path;
  for (std::size_t i = 0; i < n; ++i) {
    path.clear();
    std::size_t r = i;
    while (root[r] == unknown && plan.shares_with[r] >= 0) {
      if (static_cast<std::size_t>(plan.shares_with[r]) >= n)
        fail("value " + std::to_string(r) + " reuses value " + std::to_string(plan.shares_with[r]) + ", which does not exist");
      root[r] = walking;
      path.push_back(r);
      r = static_cast<std::size_t>(plan.shares_with[r]);
    }
    if (root[r] == walking) fail("in-place links of value " + std::to_string(i) + " form a cycle");
    const std::size_t found = root[r] == unknown ? r : root[r];
    root[r] = found;
    for (const std::size_t p : path) root[p] = found;
    if (plan.shares_with[i] >= 0 && plan.offsets[i] != plan.offsets[static_cast<std::size_t>(plan.shares_with[i])])
      fail("value " + std::to_string(i) + " reuses value " + std::to_string(plan.shares_with[i]) + " at another offset");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t at = plan.offsets[i];
    const std::int64_t bytes = align_up(values[i].bytes, plan.alignment);
    if (at < 0 || at % plan.alignment != 0)
      fail("value " + std::to_string(i) + " at offset " + std::to_string(at) + " is not aligned to " +
           std::to_string(plan.alignment));
    if (at + bytes > plan.arena_bytes)
      fail("value " + std::to_string(i) + " ends at " + std::to_string(at + bytes) + ", past the arena (" +
           std::to_string(plan.arena_bytes) + ")");
  }
  // Sweep in step order: the values live at the current step, by offset. Values of
  // different roots live together never overlap, so a new value can only meet the live
  // values that start inside its range, or the group that starts last before it (values
  // of one root share an offset): O(n log n) however many values share memory over time.
  std::vector<std::size_t> by_first, by_last;
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i].last < values[i].first)
      fail("value " + std::to_string(i) + " is live from step " + std::to_string(values[i].first) + " to step " +
           std::to_string(values[i].last));
    if (values[i].bytes > 0) by_first.push_back(i);
  }
  by_last = by_first;
  std::stable_sort(by_first.begin(), by_first.end(), [&](std::size_t a, std::size_t b) { return values[a].first < values[b].first; });
  std::stable_sort(by_last.begin(), by_last.end(), [&](std::size_t a, std::size_t b) { return values[a].last < values[b].last; });
  using Live = std::multimap<std::int64_t, std::size_t>;  // offset -> value
  Live live;
  std::vector<Live::iterator> where(n, live.end());
  const auto conflict = [&](std::size_t i, std::size_t j) {
    fail("values " + std::to_string(i) + " (steps " + std::to_string(values[i].first) + ".." +
         std::to_string(values[i].last) + ", bytes [" + std::to_string(plan.offsets[i]) + ", " +
         std::to_string(plan.offsets[i] + values[i].bytes) + ")) and " + std::to_string(j) + " (steps " +
         std::to_string(values[j].first) + ".." + std::to_string(values[j].last) + ", from " +
         std::to_string(plan.offsets[j]) + ") are live together and overlap");
  };
  std::size_t retired = 0;
  for (const std::size_t i : by_first) {
    for (; retired < by_last.size() && values[by_last[retired]].last < values[i].first; ++retired)
      if (where[by_last[retired]] != live.end()) live.erase(where[by_last[retired]]);
    const std::int64_t at = plan.offsets[i], end = at + values[i].bytes;
    // Live values starting in [at, end): only those of i's own root (at offset `at`) may.
    for (auto it = live.lower_bound(at); it != live.end() && it->first < end; ++it)
      if (it->first != at || root[it->second] != root[i]) conflict(it->second, i);
    // The group starting last before `at`.
    auto it = live.lower_bound(at);
    if (it != live.begin()) {
      const std::int64_t start = std::prev(it)->first;
      while (it != live.begin() && std::prev(it)->first == start) {
        --it;
        if (start + values[it->second].bytes > at) conflict(it->second, i);
      }
    }
    where[i] = live.emplace(at, i);
  }
}

}  // namespace ge
