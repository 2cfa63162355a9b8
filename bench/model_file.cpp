// bench/model_file: ResNet-50 (built in code) compiled with 8 batch gears and saved to a
// model file; then, in fresh processes, the file loaded and batch 1 run once. Prints the
// file's size, the compile and save time, and per cold process: the load, the first run,
// the whole process's wall time, and its peak RSS beside the file's size plus the arena.
//
//   ge_bench_model_file [--runs N] [--threads T] [--keep FILE]
//   ge_bench_model_file --child FILE THREADS     one cold process's figures, for a profiler
//
// --keep writes the model to FILE and leaves it there.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ge/compile/model_file.hpp"
#include "ge/runtime/session.hpp"
#include "models/resnet50.hpp"
#include "processes.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The child: load the file, run batch 1 once; print "load_ms first_run_ms arena_bytes".
int child(const char* path, int threads) {
  const auto t0 = Clock::now();
  const auto model = ge::load_compiled(path);
  const double load = ms_since(t0);
  const auto t1 = Clock::now();
  ge::Session s(model, {.threads = threads});
  std::vector<float> x(3 * 224 * 224, 0.5f);
  const std::int64_t dims[] = {1, 3, 224, 224};
  const ge::RunResult r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  const double run = ms_since(t1);
  const auto t2 = Clock::now();
  (void)s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  const double again = ms_since(t2);
  std::printf("%.3f %.3f %lld %.6f %.3f\n", load, run, static_cast<long long>(model->arena_bytes()),
              static_cast<double>(r.outputs.at(0).values<float>()[0]), again);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--reap") == 0) return ge_bench::reap(argv + 2);
  if (argc > 3 && std::strcmp(argv[1], "--child") == 0) return child(argv[2], std::max(1, std::atoi(argv[3])));
  int runs = 5, threads = 2;
  std::filesystem::path keep;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--keep") == 0) keep = argv[i + 1];
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ge_bench_model_file_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = keep.empty() ? dir / "resnet50.gem" : keep;
  {
    const ge::Graph g = ge::models::resnet50("-1,3,224,224");
    auto t0 = Clock::now();
    const auto model = ge::compile(g, ge::batch_gears(g, {1, 2, 3, 4, 5, 6, 7, 8}));
    const double compile_ms = ms_since(t0);
    t0 = Clock::now();
    ge::save(*model, path);
    const double save_ms = ms_since(t0);
    // On disk before the first child: a file saved earlier is not being written back
    // while it loads.
    ::sync();
    std::printf("bench/model_file: ResNet-50 (code), 8 batch gears, %d threads\n", threads);
    std::printf("compile %.0f ms, save %.0f ms, file %.1f MiB, arena %.1f MiB\n", compile_ms, save_ms,
                static_cast<double>(std::filesystem::file_size(path)) / 1048576.0,
                static_cast<double>(model->arena_bytes()) / 1048576.0);
  }
  std::printf("bar: load + batch-1 run < 50 ms from a cold process; RSS near file + arena\n\n");
  std::printf("| run | load ms | first run ms | load+run ms | second run ms | process wall ms | peak RSS MiB | file+arena MiB |\n");
  std::printf("|-----|---------|--------------|-------------|---------------|-----------------|--------------|----------------|\n");
  const double file_mib = static_cast<double>(std::filesystem::file_size(path)) / 1048576.0;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<double> loads, firsts, totals;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    const ge_bench::Child c = ge_bench::spawn_measured({self, "--child", path.string(), std::to_string(threads)});
    const double wall = ms_since(t0);
    double load = 0, run = 0, out0 = 0, again = 0;
    long long arena = 0;
    if (!c.ok() || std::sscanf(c.out.c_str(), "%lf %lf %lld %lf %lf", &load, &run, &arena, &out0, &again) != 5) {
      std::printf("| %d | failed |\n", r);
      continue;
    }
    std::printf("| %d | %7.1f | %12.1f | %11.1f | %13.1f | %15.1f | %12.1f | %14.1f |\n", r, load, run, load + run, again, wall,
                c.max_rss_mib, file_mib + static_cast<double>(arena) / 1048576.0);
    loads.push_back(load);
    firsts.push_back(run);
    totals.push_back(load + run);
  }
  const auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::printf("\nmedian of %zu: load %.1f ms, first run %.1f ms, load + first run %.1f ms (bar < 50)\n", totals.size(),
              median(loads), median(firsts), median(totals));
  std::filesystem::remove_all(dir);
  return 0;
}
