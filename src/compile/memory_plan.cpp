#include "ge/compile/memory_plan.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "ge/core/error.hpp"

namespace ge {

std::string_view to_string(PlanStrategy s) noexcept {
  switch (s) {
    case PlanStrategy::greedy_by_size: return "greedy_by_size";
    case PlanStrategy::greedy_by_breadth: return "greedy_by_breadth";
    case PlanStrategy::by_first_use: return "by_first_use";
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

// Places blocks in the given order, each at the best-fitting gap among the placed blocks
// whose lifetimes meet its own. Returns the arena size.
std::int64_t place(const std::vector<Block>& blocks, const std::vector<std::int32_t>& order,
                   std::vector<std::int64_t>& offset) {
  offset.assign(blocks.size(), -1);
  std::vector<std::int32_t> placed;  // kept sorted by offset
  placed.reserve(blocks.size());
  std::int64_t arena = 0;
  for (const std::int32_t b : order) {
    const Block& cur = blocks[static_cast<std::size_t>(b)];
    std::int64_t best = -1, best_gap = 0, top = 0;
    for (const std::int32_t p : placed) {
      const Block& other = blocks[static_cast<std::size_t>(p)];
      if (other.last < cur.first || cur.last < other.first || other.bytes == 0) continue;
      const std::int64_t at = offset[static_cast<std::size_t>(p)];
      const std::int64_t gap = at - top;
      if (gap >= cur.bytes && (best < 0 || gap < best_gap)) {
        best = top;
        best_gap = gap;
      }
      top = std::max(top, at + other.bytes);
    }
    const std::int64_t at = best >= 0 ? best : top;
    offset[static_cast<std::size_t>(b)] = at;
    arena = std::max(arena, at + cur.bytes);
    const auto pos = std::upper_bound(placed.begin(), placed.end(), at, [&](std::int64_t v, std::int32_t p) {
      return v < offset[static_cast<std::size_t>(p)];
    });
    placed.insert(pos, b);
  }
  return arena;
}

std::vector<std::int32_t> order_for(PlanStrategy s, const std::vector<Block>& blocks) {
  std::vector<std::int32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  const auto at = [&](std::int32_t i) -> const Block& { return blocks[static_cast<std::size_t>(i)]; };
  switch (s) {
    case PlanStrategy::greedy_by_size:
      std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        if (at(a).bytes != at(b).bytes) return at(a).bytes > at(b).bytes;
        return at(a).first < at(b).first;
      });
      break;
    case PlanStrategy::by_first_use:
      std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        if (at(a).first != at(b).first) return at(a).first < at(b).first;
        return at(a).bytes > at(b).bytes;
      });
      break;
    case PlanStrategy::greedy_by_breadth: {
      // Steps by their live total, largest first; at each, its blocks largest first.
      std::vector<std::int32_t> steps;
      for (const Block& b : blocks) {
        steps.push_back(b.first);
        steps.push_back(b.last);
      }
      std::sort(steps.begin(), steps.end());
      steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
      std::vector<std::int64_t> live(steps.size(), 0);
      const auto index = [&](std::int32_t step) {
        return static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), step) - steps.begin());
      };
      for (const Block& b : blocks)
        for (std::size_t k = index(b.first); k <= index(b.last); ++k) live[k] += b.bytes;
      std::vector<std::size_t> step_order(steps.size());
      std::iota(step_order.begin(), step_order.end(), std::size_t{0});
      std::stable_sort(step_order.begin(), step_order.end(),
                       [&](std::size_t a, std::size_t b) { return live[a] > live[b]; });
      std::vector<char> taken(blocks.size(), 0);
      std::vector<std::int32_t> by_size = order;
      std::stable_sort(by_size.begin(), by_size.end(),
                       [&](std::int32_t a, std::int32_t b) { return at(a).bytes > at(b).bytes; });
      order.clear();
      for (const std::size_t k : step_order)
        for (const std::int32_t b : by_size)
          if (!taken[static_cast<std::size_t>(b)] && at(b).first <= steps[k] && steps[k] <= at(b).last) {
            taken[static_cast<std::size_t>(b)] = 1;
            order.push_back(b);
          }
      break;
    }
  }
  return order;
}

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

  std::vector<std::int64_t> best_offsets, offsets;
  std::int64_t best_arena = -1;
  for (const PlanStrategy s : options.strategies) {
    const std::int64_t arena = place(blocks, order_for(s, blocks), offsets);
    if (best_arena < 0 || arena < best_arena) {
      best_arena = arena;
      best_offsets = offsets;
      plan.strategy = s;
    }
    if (best_arena == plan.lower_bound) break;  // optimal: nothing can do better
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
  std::vector<std::size_t> root(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t r = i;
    for (std::size_t hops = 0; plan.shares_with[r] >= 0; ++hops) {
      if (hops > n) fail("in-place links of value " + std::to_string(i) + " form a cycle");
      r = static_cast<std::size_t>(plan.shares_with[r]);
    }
    root[i] = r;
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
  // Sweep in offset order: only values whose memory ranges meet need a time check.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return plan.offsets[a] < plan.offsets[b]; });
  for (std::size_t x = 0; x < n; ++x) {
    const std::size_t i = order[x];
    if (values[i].bytes == 0) continue;
    const std::int64_t end_i = plan.offsets[i] + values[i].bytes;
    for (std::size_t y = x + 1; y < n && plan.offsets[order[y]] < end_i; ++y) {
      const std::size_t j = order[y];
      if (values[j].bytes == 0 || root[i] == root[j]) continue;
      if (values[i].last < values[j].first || values[j].last < values[i].first) continue;
      fail("values " + std::to_string(i) + " (steps " + std::to_string(values[i].first) + ".." +
           std::to_string(values[i].last) + ", bytes [" + std::to_string(plan.offsets[i]) + ", " +
           std::to_string(end_i) + ")) and " + std::to_string(j) + " (steps " + std::to_string(values[j].first) +
           ".." + std::to_string(values[j].last) + ", from " + std::to_string(plan.offsets[j]) +
           ") are live together and overlap");
    }
  }
}

}  // namespace ge
