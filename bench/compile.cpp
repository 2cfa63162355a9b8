// bench/compile: time to compile each example model with 1, 8 and 100 batch gears and
// with a batch range, and of one single-op compile (cache miss and hit). The kernel cache
// is emptied before each model compile, so weights are packed every time.
//
//   ge_bench_compile
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "models/bert_encoder.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
}

std::string gear_list(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += (i > 1 ? "," : "") + std::to_string(i);
  return s;
}

struct Model {
  std::string name;
  std::function<ge::Graph(std::string_view batch)> build;
  std::string input_shape;  // with -1 for the batch
};

}  // namespace

int main() {
  try {
    const std::vector<Model> models{
        {"ResNet-50", [](std::string_view b) { return ge::models::resnet50(std::string(b) + ",3,224,224"); },
         "data:-1,3,224,224"},
        {"MobileNetV2", [](std::string_view b) { return ge::models::mobilenet_v2(std::string(b) + ",3,224,224"); },
         "data:-1,3,224,224"},
        {"BERT encoder", [](std::string_view b) { return ge::models::bert_encoder(b, "128"); },
         "hidden_states:-1,128,256;attention_mask:-1,128"},
    };
    std::printf("bench/compile: wall time of ge::compile (kernel cache emptied first; weights packed each time)\n");
    std::printf("bar: ResNet-50 with 100 gears under 1000 ms on one core\n\n");
    std::printf("| %-13s | %9s | %9s | %9s | %11s | %10s |\n", "model", "1 gear", "8 gears", "100 gears", "range 1~100",
                "plans/arena");
    std::printf("|---------------|-----------|-----------|-----------|-------------|------------|\n");
    for (const Model& m : models) {
      const ge::Graph dynamic = m.build("-1");
      const ge::Graph ranged = m.build("1~100");
      double t[4];
      std::size_t plans = 0;
      double arena_mib = 0;
      for (int k = 0; k < 3; ++k) {
        const int gears[] = {1, 8, 100};
        ge::BuildOptions opts{{"ge.inputShape", m.input_shape}};
        if (gears[k] > 1) opts.set("ge.dynamicBatchSize", gear_list(gears[k]));
        else opts.set("ge.inputShape", [&] {
          std::string s = m.input_shape;
          for (std::size_t p; (p = s.find("-1")) != std::string::npos;) s.replace(p, 2, "1");
          return s;
        }());
        ge::OpCompiler::global().clear();
        const auto t0 = clock_type::now();
        const auto model = ge::compile(dynamic, opts);
        t[k] = ms_since(t0);
        plans = model->plans().size();
        arena_mib = static_cast<double>(model->arena_bytes()) / 1048576.0;
      }
      ge::OpCompiler::global().clear();
      const auto t0 = clock_type::now();
      (void)ge::compile(ranged);
      t[3] = ms_since(t0);
      std::printf("| %-13s | %6.0f ms | %6.0f ms | %6.0f ms | %8.0f ms | %3zu/%4.0fMiB |\n", m.name.c_str(), t[0], t[1],
                  t[2], t[3], plans, arena_mib);
    }

    // Long chains: compile time per node must stay near linear (a plan's checks once
    // visited every pair of values). Alternating Relu and Sigmoid on a small tensor.
    std::printf("\nchains (x -> Relu -> Sigmoid -> ... , 4x64 f32; bar: 100000 nodes under 3000 ms)\n");
    for (const int nodes : {1000, 10000, 100000}) {
      ge::GraphBuilder b;
      auto v = b.input("x", ge::DataType::f32, "4,64");
      for (int i = 0; i < nodes; ++i) v = i % 2 == 0 ? v.relu("n" + std::to_string(i)) : v.sigmoid("n" + std::to_string(i));
      b.output(v);
      ge::Graph g = b.build();
      ge::OpCompiler::global().clear();
      const auto t0 = clock_type::now();
      const auto model = ge::compile(std::move(g));
      std::printf("  %6d nodes: %8.0f ms (%zu steps)\n", nodes, ms_since(t0), model->plans()[0]->steps.size());
    }

    // One single-op compile: a miss, then a hit on an equal request.
    ge::OpCompiler compiler;
    ge::OpCompileRequest r;
    r.op_type = "Conv";
    r.inputs = {ge::OpTensor{ge::DataType::f32, ge::Shape::parse("-1,64,56,56")},
                ge::OpTensor::constant_of(ge::Tensor::random(ge::DataType::f32, {64, 64, 3, 3}, 1))};
    r.attrs = {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}};
    auto t0 = clock_type::now();
    (void)compiler.compile(r);
    const double miss = ms_since(t0) * 1000.0;
    const int hits = 1000;
    t0 = clock_type::now();
    for (int i = 0; i < hits; ++i) (void)compiler.compile(r);
    const double hit = ms_since(t0) * 1000.0 / hits;
    std::printf("\nsingle-op compile (Conv 64->64 3x3, -1 batch): miss %.0f us, hit %.1f us (%llu hits, %llu misses)\n",
                miss, hit, static_cast<unsigned long long>(compiler.stats().hits),
                static_cast<unsigned long long>(compiler.stats().misses));
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "ge_bench_compile: %s\n", e.what());
    return 1;
  }
  return 0;
}
