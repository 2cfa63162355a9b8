// bench/memory_plan: arena sizes of real models' plans against the bounds, and of 300
// seeded random lifetime sets against every single heuristic.
//
//   ge_bench_memory_plan [--exports DIR] [--onnx FILE.onnx ...] [--budget N]
//
// Per model and batch (or gear): the arena; its own bound (the largest total live at one
// step over the plan's lifetimes, with the granted in-place pairs merged: no placement of
// these lifetimes can be smaller); the fixed-order bound without in place (each value its
// own block); arena / own bound; the strategy that won, whether the arena is proven
// optimal, the best single heuristic, and the planner's time on the plan.
//
// Models: ResNet-50, MobileNetV2 and the BERT encoder built in code (batch 1 and 8), the
// torch exports of ../shared/models/export_models.py (--exports DIR with its
// manifest.json, else made now when python3-torch is there) compiled once with batch gears
// 1,8, and any further ONNX file with a dynamic first dim (--onnx), with the same gears.
// `--budget N` sets PlanOptions::search_budget for the random sets (default: the default).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "models/bert_encoder.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"
#if defined(GE_WITH_ONNX)
#include "ge/onnx.hpp"
#endif

namespace {

namespace fs = std::filesystem;

double mib(std::int64_t b) { return static_cast<double>(b) / 1048576.0; }

// The smallest arena any single heuristic (not the search) finds.
std::int64_t best_single(const std::vector<ge::Lifetime>& v) {
  std::int64_t best = -1;
  for (const ge::PlanStrategy s : ge::all_plan_strategies) {
    if (s == ge::PlanStrategy::search) continue;
    ge::PlanOptions o;
    o.strategies = {s};
    const std::int64_t a = ge::plan_memory(v, o).arena_bytes;
    if (best < 0 || a < best) best = a;
  }
  return best;
}

struct Worst {
  double ratio = 1.0;
  int rows = 0, at_bound = 0;
};

void print_header() {
  std::printf("| %-22s | %-6s | %6s | %9s | %9s | %11s | %7s | %-17s | %-7s | %11s | %8s |\n", "model", "batch", "values",
              "arena MiB", "bound MiB", "no-inpl MiB", "a/bound", "strategy", "optimal", "single MiB", "plan ms");
  std::printf("|------------------------|--------|--------|-----------|-----------|-------------|---------|-------------------|---------|-------------|----------|\n");
}

void print_row(const std::string& model, const std::string& batch, const ge::Plan& p, Worst& worst) {
  ge::verify(p);
  const auto t0 = std::chrono::steady_clock::now();
  const ge::MemoryPlan again = ge::plan_memory(p.lifetimes);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double ratio = static_cast<double>(p.memory.arena_bytes) / static_cast<double>(std::max<std::int64_t>(1, p.memory.lower_bound));
  worst.ratio = std::max(worst.ratio, ratio);
  ++worst.rows;
  worst.at_bound += p.memory.arena_bytes == p.memory.lower_bound;
  std::printf("| %-22s | %-6s | %6zu | %9.3f | %9.3f | %11.3f | %7.3f | %-17s | %-7s | %11.3f | %8.2f |\n", model.c_str(),
              batch.c_str(), p.lifetimes.size(), mib(p.memory.arena_bytes), mib(p.memory.lower_bound),
              mib(ge::live_lower_bound(p.lifetimes)), ratio, std::string(ge::to_string(p.memory.strategy)).c_str(),
              p.memory.optimal ? "yes" : "no", mib(best_single(p.lifetimes)), ms);
  if (again.arena_bytes != p.memory.arena_bytes) std::printf("  (replanned: %lld bytes)\n", static_cast<long long>(again.arena_bytes));
}

// Compiles with batch gears 1,8 over the graph's first dim and prints one row per gear.
void gear_rows(const std::string& name, ge::Graph g, Worst& worst) {
  std::string shapes;
  for (const ge::GraphInput& in : g.inputs()) {
    std::string s = in.shape.to_string();
    shapes += (shapes.empty() ? "" : ";") + in.name + ":" + s;
  }
  const auto model = ge::compile(std::move(g), {{"ge.inputShape", shapes}, {"ge.dynamicBatchSize", "1,8"}});
  const char* batches[] = {"gear 1", "gear 8"};
  for (std::size_t i = 0; i < model->plans().size() && i < 2; ++i) print_row(name, batches[i], *model->plans()[i], worst);
}

#if defined(GE_WITH_ONNX)
fs::path find_exports(const std::string& dir) {
  std::error_code ec;
  if (!dir.empty()) return fs::exists(fs::path(dir) / "manifest.json", ec) ? fs::path(dir) : fs::path();
  const fs::path script = fs::path(GE_SOURCE_DIR) / ".." / "shared" / "models" / "export_models.py";
  if (!fs::exists(script, ec)) return {};
  const fs::path out = fs::temp_directory_path() / "ge_bench_memory_plan_exports";
  if (fs::exists(out / "manifest.json", ec)) return out;
  fs::create_directories(out);
  const std::string cmd = "/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1 && /usr/bin/python3 '" +
                          script.string() + "' '" + out.string() + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0 || !fs::exists(out / "manifest.json", ec)) return {};
  return out;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string exports_dir;
  std::vector<std::string> onnx_files;
  std::int64_t budget = ge::PlanOptions::default_search_budget;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--exports" || a == "--onnx" || a == "--budget") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--exports") exports_dir = v;
      else if (a == "--onnx") onnx_files.push_back(v);
      else budget = std::atoll(v.c_str());
    } else {
      std::fprintf(stderr, "usage: ge_bench_memory_plan [--exports DIR] [--onnx FILE.onnx ...] [--budget N]\n");
      return 2;
    }
  }
  try {
    std::printf("bench/memory_plan: bar: arena / own bound = 1.000 on every model; random sets worst <= 1.05 and "
                "never worse than any single heuristic\n\n");
    print_header();
    Worst worst;
    const struct {
      std::string name;
      std::function<ge::Graph(std::string_view)> build;
    } models[] = {
        {"ResNet-50", [](std::string_view b) { return ge::models::resnet50(std::string(b) + ",3,224,224"); }},
        {"MobileNetV2", [](std::string_view b) { return ge::models::mobilenet_v2(std::string(b) + ",3,224,224"); }},
        {"BERT encoder", [](std::string_view b) { return ge::models::bert_encoder(b, "128"); }},
    };
    for (const auto& m : models) {
      for (const char* batch : {"1", "8"}) print_row(m.name, batch, *ge::compile(m.build(batch))->plans()[0], worst);
      gear_rows(m.name, m.build("-1"), worst);
    }
#if defined(GE_WITH_ONNX)
    const fs::path exports = find_exports(exports_dir);
    if (exports.empty()) std::printf("| torch exports: skipped (no --exports DIR and no python3-torch to make them) |\n");
    else
      for (const char* name : {"resnet50", "mobilenet_v2", "bert_tiny"})
        gear_rows(std::string(name) + " (torch)", ge::onnx::load((exports / (std::string(name) + "_dyn.onnx")).string()), worst);
    for (const std::string& f : onnx_files) gear_rows(fs::path(f).stem().string(), ge::onnx::load(f), worst);
#else
    if (!exports_dir.empty() || !onnx_files.empty()) std::printf("ONNX files skipped: ge was built without GE_WITH_ONNX\n");
#endif
    std::printf("\nmodels: %d rows, %d at their own bound, worst arena / bound %.3f\n", worst.rows, worst.at_bound, worst.ratio);

    // 300 random lifetime sets: sizes from 64 B to 2 MiB, lifetimes over 200 steps.
    int worse = 0, at_bound = 0, proven = 0;
    double worst_ratio = 1.0, sum_ratio = 0.0, worst_single = 1.0, sum_single = 0.0, max_ms = 0.0, sum_ms = 0.0;
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
      ge::PlanOptions options;
      options.search_budget = budget;
      const auto t0 = std::chrono::steady_clock::now();
      const auto ours = ge::plan_memory(v, options);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      max_ms = std::max(max_ms, ms);
      sum_ms += ms;
      ge::verify(ours, v);
      const std::int64_t single = best_single(v);
      worse += ours.arena_bytes > single;
      at_bound += ours.arena_bytes == ours.lower_bound;
      proven += ours.optimal;
      const double lb = static_cast<double>(ours.lower_bound);
      worst_ratio = std::max(worst_ratio, static_cast<double>(ours.arena_bytes) / lb);
      sum_ratio += static_cast<double>(ours.arena_bytes) / lb;
      worst_single = std::max(worst_single, static_cast<double>(single) / lb);
      sum_single += static_cast<double>(single) / lb;
    }
    std::printf("\n300 random lifetime sets (search budget %lld):\n", static_cast<long long>(budget));
    std::printf("  arena / lower bound: mean %.4f, worst %.4f (the best single heuristic: mean %.4f, worst %.4f)\n",
                sum_ratio / 300.0, worst_ratio, sum_single / 300.0, worst_single);
    std::printf("  at the lower bound %d, proven optimal %d, worse than some single heuristic %d; plan time mean %.2f ms, "
                "max %.2f ms\n",
                at_bound, proven, worse, sum_ms / 300.0, max_ms);
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "ge_bench_memory_plan: %s\n", e.what());
    return 1;
  }
  return 0;
}
