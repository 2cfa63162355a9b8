// Writes the model files the C tests of aclmdl* load (tests/acl/mdl_test.c), built in code
// with ge's C++ API and saved with ge::save:
//   batch.gem  x f32[-1,3,2,2] NCHW; y = Relu(1x1 conv of ones, 2 outputs) = the channel sum
//              (twice), z = 2x + 1; batch gears 1,2,4
//   image.gem  img f32[1,2,-1,-1] NCHW; y = 2 img + 1; image gears 4x4, 8x6
//   dims.gem   a f32[2,-1], b f32[-1]; y = a + b; dims gears 3,3 and 5,5
//   hybrid_dims.gem  the same in hybrid mode: dims between the gears run on a range plan
//   range.gem  x f32[1~8,4]; y = 2x + 1 (a range model)
//   fixed.gem  x f32[2,3]; y = 2x + 1
//   conv.gem   x f32[2,3,4,4] NCHW; y = Relu(1x1 conv, 5 outputs, seeded weights) * 2 + bias
//   open.gem   x f32[-1,4] (no upper bound: plans per input signature); y = 2x + 1
// and for each, NAME.sizes: "arena_bytes weights_bytes" as ge's C++ API gives them
// (CompiledModel::arena_bytes of the loaded file, ge::model_weights_bytes), and for
// conv.gem conv.expected: y as ge::Session computes it for x[i] = (i % 7) * 0.5 - 1.5.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ge/compile/model_file.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"

namespace {

ge::Value affine(ge::GraphBuilder& b, ge::Value x, const char* name) {
  const auto two = b.constant(ge::Tensor::scalar(2.0f));
  const auto one = b.constant(ge::Tensor::scalar(1.0f));
  return b.op("Add", {b.op("Mul", {x, two}), one}, {}, name);
}

ge::Graph one_input(const char* name, const char* shape, ge::Format format = ge::Format::nd) {
  ge::GraphBuilder b;
  b.output(affine(b, b.input(name, ge::DataType::f32, shape, format), "y"));
  return b.build();
}

// Saves `model` as DIR/NAME.gem and writes DIR/NAME.sizes from the file loaded back.
void save(const ge::CompiledModel& model, const std::filesystem::path& dir, const std::string& name) {
  const auto path = dir / (name + ".gem");
  ge::save(model, path);
  const auto loaded = ge::load_compiled(path);
  std::ofstream(dir / (name + ".sizes")) << loaded->arena_bytes() << " " << ge::model_weights_bytes(path) << "\n";
}

void conv_model(const std::filesystem::path& dir) {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,3,4,4", ge::Format::nchw);
  const auto w = b.constant("w", ge::Tensor::random(ge::DataType::f32, {5, 3, 1, 1}, 21));
  const auto bias = b.constant("bias", ge::Tensor::random(ge::DataType::f32, {1, 5, 1, 1}, 22));
  const auto two = b.constant(ge::Tensor::scalar(2.0f));
  const auto conv = b.op("Relu", {b.op("Conv", {x, w}, {{"kernel_shape", {1, 1}}}, "conv")}, {}, "relu");
  b.output(b.op("Add", {b.op("Mul", {conv, two}, {}, "twice"), bias}, {}, "y"));
  const auto model = ge::compile(b.build());
  save(*model, dir, "conv");
  std::vector<float> in(2 * 3 * 4 * 4);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7) * 0.5f - 1.5f;
  const std::int64_t dims[] = {2, 3, 4, 4};
  ge::Session s(ge::load_compiled(dir / "conv.gem"));
  const ge::RunResult r = s.run({ge::TensorView{in.data(), ge::DataType::f32, dims}});
  const auto y = r.outputs.at(0).values<float>();
  std::ofstream(dir / "conv.expected", std::ios::binary)
      .write(reinterpret_cast<const char*>(y.data()), static_cast<std::streamsize>(y.size_bytes()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ge_acl_make_models DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  {
    ge::GraphBuilder b;
    const auto x = b.input("x", ge::DataType::f32, "-1,3,2,2", ge::Format::nchw);
    const auto w = b.constant("w", ge::Tensor::full(ge::DataType::f32, {2, 3, 1, 1}, 1.0));
    b.output(b.op("Relu", {b.op("Conv", {x, w}, {{"kernel_shape", {1, 1}}}, "conv")}, {}, "y"));
    b.output(affine(b, x, "z"));
    const ge::Graph g = b.build();
    save(*ge::compile(g, ge::batch_gears(g, {1, 2, 4})), dir, "batch");
  }
  {
    const ge::Graph g = one_input("img", "1,2,-1,-1", ge::Format::nchw);
    const std::vector<std::vector<std::int64_t>> hw{{4, 4}, {8, 6}};
    save(*ge::compile(g, ge::image_gears(g, hw)), dir, "image");
  }
  {
    ge::GraphBuilder b;
    b.output(b.op("Add", {b.input("a", ge::DataType::f32, "2,-1"), b.input("b", ge::DataType::f32, "-1")}, {}, "y"));
    const ge::Graph g = b.build();
    const std::vector<std::vector<std::int64_t>> gears{{3, 3}, {5, 5}};
    save(*ge::compile(g, ge::dims_gears(g, gears)), dir, "dims");
    // Hybrid mode (ge.compileHybridMode=1): dims between the gears run on a range plan.
    ge::BuildOptions hybrid = ge::dims_gears(g, gears);
    hybrid.set("ge.compileHybridMode", "1");
    save(*ge::compile(g, hybrid), dir, "hybrid_dims");
  }
  save(*ge::compile(one_input("x", "1~8,4")), dir, "range");
  save(*ge::compile(one_input("x", "2,3")), dir, "fixed");
  conv_model(dir);
  save(*ge::compile(one_input("x", "-1,4")), dir, "open");
  std::printf("ge_acl_make_models: 8 model files in %s\n", dir.string().c_str());
  return 0;
}
