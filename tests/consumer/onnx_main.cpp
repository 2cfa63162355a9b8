// A user's program of the ONNX reader (ge::onnx): a small graph written as ONNX and read
// back. Prints "consumer_onnx: ok".
#include <cstdio>
#include <filesystem>

#include "ge/ge.hpp"

#if !defined(GE_WITH_ONNX)
#error "linking ge::onnx defines GE_WITH_ONNX"
#endif

int main() {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "-1,4");
  b.output(x.relu());
  const auto path = std::filesystem::temp_directory_path() / "ge_consumer_onnx.onnx";
  ge::onnx::save(b.build(), path);
  const ge::Graph g = ge::onnx::load(path.string());
  std::filesystem::remove(path);
  if (g.nodes().size() != 1 || g.nodes()[0].op != "Relu") {
    std::printf("consumer_onnx: read back %zu nodes\n", g.nodes().size());
    return 1;
  }
  std::printf("consumer_onnx: ok\n");
  return 0;
}
