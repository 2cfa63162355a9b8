// The main example (README's first command): ResNet-50 built in code, compiled with
// dynamic batch gears, run at several batch sizes on the CPU device.
//
//   ge_example_main [runs per batch (default 3)] [threads (default: every core)] [image size (default 224)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "models/resnet50.hpp"

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const int threads = argc > 2 ? std::max(0, std::atoi(argv[2])) : 0;
  const std::int64_t image = argc > 3 ? std::max(32, std::atoi(argv[3])) : 224;
  try {
    using clock = std::chrono::steady_clock;
    const auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };

    // 1. The model, with a dynamic batch dim.
    const std::string hw = std::to_string(image) + "," + std::to_string(image);
    const ge::Graph graph = ge::models::resnet50("-1,3," + hw);
    std::printf("ResNet-50: %zu nodes, %zu constants, input data:%s\n", graph.nodes().size(), graph.constants().size(),
                graph.inputs()[0].shape.to_string().c_str());

    // 2. Compile with four batch gears: one static plan per gear, one shared arena.
    const std::string input_shape = "data:-1,3," + hw;
    const ge::BuildOptions options{{"ge.inputShape", input_shape}, {"ge.dynamicBatchSize", "1,2,4,8"}};
    const auto t0 = clock::now();
    const auto model = ge::compile(graph, options);
    std::printf("compiled in %.0f ms:", ms(clock::now() - t0));
    for (const ge::PassStats& p : model->pass_stats())
      std::printf(" %s -%zu/+%zu", p.pass.c_str(), p.nodes_removed, p.nodes_added);
    std::printf(" -> %zu nodes\n", model->graph().nodes().size());
    for (const auto& plan : model->plans()) {
      ge::verify(*plan);
      const ge::MemoryPlan& m = plan->memory;
      std::printf("  gear %d (batch %lld): %zu steps on %d streams, arena %.1f MiB, lower bound %.1f MiB (x%.3f), "
                  "no reuse %.1f MiB\n",
                  plan->gear, static_cast<long long>(plan->input_shapes[0][0].value()), plan->steps.size(),
                  plan->streams.stream_count, m.arena_bytes / 1048576.0, m.lower_bound / 1048576.0,
                  static_cast<double>(m.arena_bytes) / static_cast<double>(std::max<std::int64_t>(m.lower_bound, 1)),
                  m.no_reuse_bytes / 1048576.0);
    }
    std::printf("one arena for every gear: %.1f MiB\n", model->arena_bytes() / 1048576.0);

    // 3. Run several batch sizes; the session picks the gear whose shape equals the input.
    ge::Session session(model, {.threads = threads});
    std::printf("running on %d threads, %d runs per batch\n", session.threads(), runs);
    for (const std::int64_t batch : {1, 2, 4, 8}) {
      const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, {batch, 3, image, image}, 7);
      const ge::TensorView in{const_cast<std::byte*>(x.bytes().data()), x.dtype(), x.dims()};
      ge::RunResult r = session.run({in});  // warm-up
      double best = 1e300, total = 0;
      for (int i = 0; i < runs; ++i) {
        const auto t = clock::now();
        r = session.run({in});
        const double took = ms(clock::now() - t);
        best = std::min(best, took);
        total += took;
      }
      const auto logits = r.outputs[0].values<float>();
      const auto top = std::max_element(logits.begin(), logits.begin() + 1000) - logits.begin();
      std::printf("  batch %lld -> gear %d, output %s, %.1f ms per run (best %.1f), %.1f images/s, top class of image 0: %td\n",
                  static_cast<long long>(batch), r.gear, r.outputs[0].shape().to_string().c_str(), total / runs, best,
                  static_cast<double>(batch) * 1000.0 / (total / runs), top);
    }

    // 4. A batch in no gear is a clear error, and the session stays usable.
    const ge::Tensor x3 = ge::Tensor::random(ge::DataType::f32, {3, 3, image, image}, 7);
    try {
      (void)session.run({ge::TensorView{const_cast<std::byte*>(x3.bytes().data()), x3.dtype(), x3.dims()}});
    } catch (const ge::Error& e) {
      std::printf("batch 3: %s: %s\n", std::string(ge::to_string(e.code())).c_str(), e.what());
    }
    return 0;
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "ge_example_main: %s\n", e.what());
    return 1;
  }
}
