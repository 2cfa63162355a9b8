// bench/memory_plan: arena sizes of the example models' plans and of 300 seeded random
// lifetime sets against the no-reuse total, the lower bound (the largest total live at
// one step, in the plan's order) and a plain greedy-by-size baseline.
//
//   ge_bench_memory_plan
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "models/bert_encoder.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

namespace {

double mib(std::int64_t b) { return static_cast<double>(b) / 1048576.0; }

ge::MemoryPlan baseline(const std::vector<ge::Lifetime>& v) {
  return ge::plan_memory(v, {.alignment = 64, .strategies = {ge::PlanStrategy::greedy_by_size}});
}

}  // namespace

int main() {
  try {
    std::printf("bench/memory_plan: bar: arena / lower bound = 1.000 on every model; never worse than the baseline\n\n");
    std::printf("| %-13s | %5s | %12s | %12s | %12s | %12s | %13s | %-17s |\n", "model", "batch", "no reuse MiB",
                "lower bd MiB", "arena MiB", "baseline MiB", "arena / lower", "strategy");
    std::printf("|---------------|-------|--------------|--------------|--------------|--------------|---------------|-------------------|\n");
    const struct {
      std::string name;
      std::function<ge::Graph(std::string_view)> build;
    } models[] = {
        {"ResNet-50", [](std::string_view b) { return ge::models::resnet50(std::string(b) + ",3,224,224"); }},
        {"MobileNetV2", [](std::string_view b) { return ge::models::mobilenet_v2(std::string(b) + ",3,224,224"); }},
        {"BERT encoder", [](std::string_view b) { return ge::models::bert_encoder(b, "128"); }},
    };
    for (const auto& m : models)
      for (const char* batch : {"1", "8"}) {
        const auto model = ge::compile(m.build(batch));
        const ge::Plan& p = *model->plans()[0];
        ge::verify(p);
        const ge::MemoryPlan base = baseline(p.lifetimes);
        std::printf("| %-13s | %5s | %12.2f | %12.2f | %12.2f | %12.2f | %13.3f | %-17s |\n", m.name.c_str(), batch,
                    mib(p.memory.no_reuse_bytes), mib(p.memory.lower_bound), mib(p.memory.arena_bytes),
                    mib(base.arena_bytes),
                    static_cast<double>(p.memory.arena_bytes) / static_cast<double>(p.memory.lower_bound),
                    std::string(ge::to_string(p.memory.strategy)).c_str());
      }

    // 300 random lifetime sets: sizes from 64 B to 1 MiB, lifetimes over 200 steps.
    int worse = 0, better = 0, at_bound = 0;
    double worst_ratio = 1.0, sum_ratio = 0.0;
    for (std::uint32_t seed = 1; seed <= 300; ++seed) {
      std::mt19937 rng(seed);
      std::uniform_int_distribution<int> count(20, 300), step(0, 199), len(0, 40), lg(6, 20);
      std::vector<ge::Lifetime> v(static_cast<std::size_t>(count(rng)));
      for (auto& l : v) {
        l.first = step(rng);
        l.last = std::min(199, l.first + len(rng));
        l.bytes = std::int64_t{1} << lg(rng);
        l.bytes += static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(l.bytes));
      }
      const auto ours = ge::plan_memory(v);
      ge::verify(ours, v);
      const auto base = baseline(v);
      if (ours.arena_bytes > base.arena_bytes) ++worse;
      if (ours.arena_bytes < base.arena_bytes) ++better;
      if (ours.arena_bytes == ours.lower_bound) ++at_bound;
      const double r = static_cast<double>(ours.arena_bytes) / static_cast<double>(ours.lower_bound);
      worst_ratio = std::max(worst_ratio, r);
      sum_ratio += r;
    }
    std::printf("\n300 random lifetime sets: worse than the baseline %d, better %d, equal %d; at the lower bound %d; "
                "arena / lower bound mean %.3f, worst %.3f\n",
                worse, better, 300 - worse - better, at_bound, sum_ratio / 300.0, worst_ratio);
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "ge_bench_memory_plan: %s\n", e.what());
    return 1;
  }
  return 0;
}
