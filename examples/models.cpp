// Builds ResNet-50, MobileNetV2 and a BERT-style encoder layer with ranged batch (and
// sequence) dims, and prints node counts and output shapes.
#include <cstdio>
#include <exception>

#include "ge/graph/graph.hpp"
#include "models/bert_encoder.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

namespace {
void show(const char* name, const ge::Graph& g) {
  std::printf("%-26s %4zu nodes %4zu constants  output %s\n", name, g.nodes().size(), g.constants().size(),
              ge::to_string(g.value(g.outputs().front()).desc).c_str());
}
}  // namespace

int main() {
  try {
    show("resnet50 [1~8,3,224,224]", ge::models::resnet50("1~8,3,224,224"));
    show("mobilenet_v2 [-1,3,224,224]", ge::models::mobilenet_v2("-1,3,224,224"));
    show("bert_encoder [1~8,1~128]", ge::models::bert_encoder("1~8", "1~128"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "models: %s\n", e.what());
    return 1;
  }
  return 0;
}
