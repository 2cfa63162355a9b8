// An ONNX model as a C++ application runs it: load the file, compile it with batch gears
// over its own -1 batch, run it by input name, read the outputs by name.
//
//   ge_example_onnx_run                  a small model written here first (a stand-in for
//                                        a torch export), then loaded back
//   ge_example_onnx_run model.onnx [B]   your model, on inputs of batch B (default 1): f32
//                                        ones filled with 0.5, others with zeros
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ge/ge.hpp"

namespace {

// A classifier head with a dynamic batch, saved as ONNX: logits = relu(x W1 + b1) W2.
std::filesystem::path write_small_model() {
  ge::GraphBuilder b;
  const auto x = b.input("features", ge::DataType::f32, "-1,16");
  const auto h = b.op("Add", {x.matmul(b.random_weights("w1", {16, 32}, 1)), b.random_weights("b1", {32}, 2)}).relu();
  b.output(b.op("MatMul", {h, b.random_weights("w2", {32, 4}, 3)}, {}, "logits"));
  const auto path = std::filesystem::temp_directory_path() / "ge_example_head.onnx";
  ge::onnx::save(b.build(), path);
  return path;
}

// `n` elements of type `t`: f32 0.5, other types zero bytes.
std::vector<std::byte> filled(ge::DataType t, std::int64_t n) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(n) * ge::size_of(t));
  if (t == ge::DataType::f32)
    for (std::int64_t i = 0; i < n; ++i) {
      const float half = 0.5f;
      std::memcpy(bytes.data() + i * 4, &half, 4);
    }
  return bytes;
}

// The batch argument: a whole number >= 1, else a ge::Error saying so.
std::int64_t parse_batch(const char* text) {
  char* end = nullptr;
  const long long b = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || b < 1)
    throw ge::Error(ge::Errc::invalid_argument, std::string("batch '") + text + "'; expected a whole number >= 1");
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::filesystem::path path = argc > 1 ? std::filesystem::path(argv[1]) : write_small_model();
    const std::int64_t batch = argc > 2 ? parse_batch(argv[2]) : 1;
    const ge::Graph graph = ge::onnx::load(path);
    if (argc <= 1) std::filesystem::remove(path);
    std::printf("%s: %zu nodes; inputs:", path.filename().c_str(), graph.nodes().size());
    for (const ge::GraphInput& in : graph.inputs()) std::printf(" %s[%s]", in.name.c_str(), in.shape.to_string().c_str());
    std::printf("\n");

    // Gears where the model has a -1 batch, else its shapes as they are.
    bool has_batch = false;
    for (const ge::GraphInput& in : graph.inputs())
      has_batch = has_batch || (in.shape.rank_known() && in.shape.rank() > 0 && in.shape[0].is_unknown());
    const auto model = has_batch ? ge::compile(graph, ge::batch_gears(graph, {1, 2, 4, 8})) : ge::compile(graph);
    std::printf("compiled: %zu plan(s)\n", model->plans().size());

    // One buffer per input (f32: 0.5, other types: 0); the -1 dims take the batch (or 1).
    std::vector<std::vector<std::byte>> data;
    std::vector<std::vector<std::int64_t>> dims;
    for (const ge::ModelIO& in : model->inputs()) {
      std::vector<std::int64_t> d;
      std::int64_t n = 1;
      for (std::size_t i = 0; i < in.shape.rank(); ++i) {
        const ge::Dim& dim = in.shape[static_cast<std::ptrdiff_t>(i)];
        d.push_back(dim.is_static() ? dim.value() : i == 0 ? batch : std::max<std::int64_t>(dim.lo(), 1));
        n *= d.back();
      }
      dims.push_back(std::move(d));
      data.push_back(filled(in.dtype, n));
    }
    if (model->mode() == ge::ShapeMode::gears && !model->gear_for(dims)) {
      // No gear of this batch: pad the inputs (with zeros) up to the smallest gear that holds them.
      const auto gear = model->gear_for(dims, true);
      if (!gear) throw ge::Error(ge::Errc::no_matching_gear, "batch " + std::to_string(batch) + " is above every gear");
      const ge::Plan& plan = *model->plans()[static_cast<std::size_t>(*gear)];
      for (std::size_t i = 0; i < dims.size(); ++i) {
        dims[i] = plan.input_shapes[i].values();
        std::int64_t n = 1;
        for (const std::int64_t d : dims[i]) n *= d;
        data[i] = filled(model->inputs()[i].dtype, n);
      }
      std::printf("batch %lld is no gear: padded to gear %d (batch %lld)\n", static_cast<long long>(batch), *gear,
                  static_cast<long long>(dims[0][0]));
    }

    ge::Session session(model, {.threads = 2});
    std::vector<ge::NamedTensor> inputs;
    for (std::size_t i = 0; i < dims.size(); ++i)
      inputs.push_back({model->inputs()[i].name, ge::TensorView{data[i].data(), model->inputs()[i].dtype, dims[i]}});
    const ge::RunResult r = session.run(inputs);
    for (const ge::Output& out : r.outputs) {
      std::printf("output %s: %s[%s]", out.name.c_str(), std::string(ge::to_string(out.dtype)).c_str(),
                  out.shape().to_string().c_str());
      if (out.dtype == ge::DataType::f32 && !out.values<float>().empty())
        std::printf(", first value %.5f", static_cast<double>(out.values<float>()[0]));
      std::printf("\n");
    }
    std::printf("onnx_run: ok\n");
    return 0;
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "onnx_run: %s\n", e.what());
    return 1;
  }
}
