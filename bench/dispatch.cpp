// bench/dispatch: host time per op of tiny ops (one float each), where the runtime's own
// overhead is everything: a chain of 10,000 Adds, and 64 independent chains of 100 Adds
// joined by a Concat, serial (1 thread) and with 2 threads.
//
//   ge_bench_dispatch [runs (default 50)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "ge/ge.hpp"

namespace {

// x -> Add(., one) -> ... `length` times, `chains` times side by side, joined by Concat.
ge::Graph adds(int chains, int length) {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "1");
  const auto one = b.full("one", {1}, 1.0);
  std::vector<ge::Value> ends;
  for (int c = 0; c < chains; ++c) {
    ge::Value v = x;
    for (int i = 0; i < length; ++i) v = v + one;
    ends.push_back(v);
  }
  b.output(chains == 1 ? ends[0] : b.op("Concat", ends, {{"axis", std::int64_t{0}}}));
  return b.build();
}

struct Row {
  std::string name;
  int ops;
  int streams;
  double ns_per_op_1, ns_per_op_2;
};

double time_runs(ge::Session& s, int runs, int ops) {
  float x = 0.0f;
  std::int64_t dims[] = {1};
  const ge::TensorView in{&x, ge::DataType::f32, dims};
  (void)s.run({in});
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)s.run({in});
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2] / ops;  // the median run
}

Row measure(const std::string& name, int chains, int length, int runs) {
  const auto model = ge::compile(adds(chains, length));
  Row row{name, chains * length, model->plans()[0]->streams.stream_count, 0, 0};
  ge::Session s1(model, {.threads = 1});
  row.ns_per_op_1 = time_runs(s1, runs, row.ops);
  ge::Session s2(model, {.threads = 2});
  row.ns_per_op_2 = time_runs(s2, runs, row.ops);
  return row;
}

// Tracing's cost: the 10,000-Add chain on one thread with tracing off and on, runs
// interleaved so that both see the same machine; medians in ns/op.
std::pair<double, double> tracing_cost(int runs) {
  const int ops = 10000;
  const auto model = ge::compile(adds(1, ops));
  ge::Session off(model, {.threads = 1});
  ge::Session on(model, {.threads = 1, .trace = true});
  float x = 0.0f;
  std::int64_t dims[] = {1};
  const ge::TensorView in{&x, ge::DataType::f32, dims};
  (void)off.run({in});
  (void)on.run({in});
  std::vector<double> t_off, t_on;
  const auto once = [&](ge::Session& s, std::vector<double>& t) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)s.run({in});
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / ops);
  };
  for (int r = 0; r < runs; ++r) {
    once(off, t_off);
    once(on, t_on);
  }
  std::sort(t_off.begin(), t_off.end());
  std::sort(t_on.begin(), t_on.end());
  return {t_off[t_off.size() / 2], t_on[t_on.size() / 2]};
}

// The floor: the same adds as a plain loop over one float each.
double plain_loop_ns(int ops, int runs) {
  std::vector<float> v(static_cast<std::size_t>(ops) + 1, 0.0f);
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < runs; ++r) {
    for (int i = 0; i < ops; ++i) v[static_cast<std::size_t>(i) + 1] = v[static_cast<std::size_t>(i)] + 1.0f;
    asm volatile("" : : "r"(v.data()) : "memory");
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / runs / ops;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(3, std::atoi(argv[1])) : 50;
  try {
    const Row rows[] = {measure("chain 10000 x Add", 1, 10000, runs), measure("64 chains x 100 Add + Concat", 64, 100, runs)};
    std::printf("bench/dispatch: host time per op (median of %d runs), ONNX Runtime 1.30 here: 190 ns/op sequential, "
                "290 ns/op parallel; bar: <= 100 ns/op serial, 2 threads never slower\n\n",
                runs);
    std::printf("| %-30s | %6s | %7s | %14s | %14s | %9s | %9s |\n", "graph", "ops", "streams", "1 thread ns/op",
                "2 threads ns/op", "vs ORT", "2t / 1t");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|\n", std::string(32, '-').c_str(), std::string(8, '-').c_str(),
                std::string(9, '-').c_str(), std::string(16, '-').c_str(), std::string(17, '-').c_str(),
                std::string(11, '-').c_str(), std::string(11, '-').c_str());
    for (const Row& r : rows)
      std::printf("| %-30s | %6d | %7d | %14.1f | %15.1f | %8.2fx | %8.2fx |\n", r.name.c_str(), r.ops, r.streams,
                  r.ns_per_op_1, r.ns_per_op_2, r.ns_per_op_1 / 190.0, r.ns_per_op_2 / r.ns_per_op_1);
    const auto [off, on] = tracing_cost(runs);
    std::printf("\ntracing (chain 10000 x Add, 1 thread, interleaved runs): off %.1f ns/op, on %.1f ns/op "
                "(+%.1f ns/op: two clock reads and a record per step)\n",
                off, on, on - off);
    std::printf("floor: a plain C++ loop of the same adds takes %.2f ns/op\n", plain_loop_ns(10000, 1000));
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "ge_bench_dispatch: %s\n", e.what());
    return 1;
  }
  return 0;
}
