// The model builders of examples/models/: ResNet-50, MobileNetV2, a BERT encoder layer,
// with fixed, ranged and unknown batch dims.
#include <doctest/doctest.h>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/graph/dot.hpp"

namespace {
std::string out_shape(const ge::Graph& g) { return g.value(g.outputs().at(0)).desc.shape.to_string(); }
std::size_t count(const ge::Graph& g, std::string_view op) {
  std::size_t n = 0;
  for (const auto& node : g.nodes()) n += node.op == op;
  return n;
}
std::string shape_of(const ge::Graph& g, std::string_view value) { return g.value(*g.find_value(value)).desc.shape.to_string(); }
}  // namespace

TEST_CASE("ResNet-50 builds with a ranged, unknown and fixed batch: N x 1000") {
  const ge::Graph g = ge::models::resnet50("1~8,3,224,224");
  CHECK(out_shape(g) == "1~8,1000");
  CHECK(count(g, "Conv") == 53);
  CHECK(count(g, "BatchNormalization") == 53);
  CHECK(count(g, "Add") == 16);
  CHECK(count(g, "Gemm") == 1);
  CHECK(count(g, "MaxPool") == 1);
  CHECK(shape_of(g, "maxpool") == "1~8,64,56,56");
  CHECK(shape_of(g, "layer1.2.out") == "1~8,256,56,56");
  CHECK(shape_of(g, "layer2.0.conv2") == "1~8,128,28,28");
  CHECK(shape_of(g, "layer3.5.out") == "1~8,1024,14,14");
  CHECK(shape_of(g, "layer4.2.out") == "1~8,2048,7,7");
  CHECK(shape_of(g, "avgpool") == "1~8,2048,1,1");
  // About 25.5 million parameters.
  std::int64_t params = 0;
  for (const auto& c : g.constants())
    if (c.name.find(".bn.") == std::string::npos) params += c.tensor.element_count();
  CHECK(params > 25'000'000);
  CHECK(params < 26'000'000);

  CHECK(out_shape(ge::models::resnet50("-1,3,224,224")) == "-1,1000");
  CHECK(out_shape(ge::models::resnet50("2,3,224,224")) == "2,1000");
}

TEST_CASE("ResNet-50 over a ranged image size gives ranged feature maps") {
  const ge::Graph g = ge::models::resnet50("1,3,100~208,224");
  CHECK(shape_of(g, "conv1") == "1,64,50~104,112");
  CHECK(shape_of(g, "layer4.2.out") == "1,2048,4~7,7");
  CHECK(out_shape(g) == "1,1000");
}

TEST_CASE("MobileNetV2 builds with ranged and unknown batch") {
  const ge::Graph g = ge::models::mobilenet_v2("1~8,3,224,224");
  CHECK(out_shape(g) == "1~8,1000");
  CHECK(count(g, "Conv") == 52);
  CHECK(count(g, "Clip") == 35);
  CHECK(count(g, "Add") == 10);
  CHECK(shape_of(g, "features.18.relu6") == "1~8,1280,7,7");
  // Depthwise convs have group = channels.
  const auto dw = g.nodes()[*g.find_node("features.2.dw")];
  CHECK(dw.attrs.at("group").as_int() == 96);
  CHECK(out_shape(ge::models::mobilenet_v2("-1,3,224,224")) == "-1,1000");
}

TEST_CASE("BERT encoder layer: batch and sequence as ranges") {
  const ge::Graph g = ge::models::bert_encoder("1~8", "1~128");
  CHECK(out_shape(g) == "1~8,1~128,256");
  CHECK(g.inputs().size() == 2);
  CHECK(g.inputs()[1].dtype == ge::DataType::i64);
  CHECK(count(g, "MatMul") == 8);
  CHECK(count(g, "LayerNormalization") == 2);
  CHECK(count(g, "Softmax") == 1);
  CHECK(shape_of(g, "attention.scores") == "1~8,4,1~128,1~128");
  CHECK(shape_of(g, "attention.context") == "1~8,4,1~128,64");
  CHECK(out_shape(ge::models::bert_encoder("-1", "-1")) == "-1,-1,256");
  CHECK(out_shape(ge::models::bert_encoder("2", "7")) == "2,7,256");
  CHECK(out_shape(ge::models::bert_encoder("1~8", "1~128", {.hidden = 128, .heads = 2, .ffn = 512})) == "1~8,1~128,128");
  // The graph is small enough to draw.
  CHECK(ge::to_dot(g).find("attention.softmax\\nSoftmax") != std::string::npos);
}

TEST_CASE("model builders are deterministic in their seed") {
  const auto a = ge::models::bert_encoder("1", "4", {}, 7);
  const auto b = ge::models::bert_encoder("1", "4", {}, 7);
  const auto c = ge::models::bert_encoder("1", "4", {}, 8);
  REQUIRE(a.constants().size() == b.constants().size());
  CHECK(a.constants()[0].tensor == b.constants()[0].tensor);
  CHECK_FALSE(a.constants()[0].tensor == c.constants()[0].tensor);
}
