// Kernels keyed and fed by values, not only by types and dims: the shared kernel cache
// keys a tensor attribute by its bytes (two ConstantOfShape nodes whose dims come at run
// time, one filling 1 and one 2, as torchvision's detection exports label each class),
// and NonMaxSuppression reads its box limit as an integer (exporters write INT64_MAX for
// "no limit", which a double rounds out of range).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"

using ge::DataType;
using ge::Tensor;
using ge::Value;

namespace {
template <class T>
std::vector<T> vec(std::span<const T> s) {
  return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("kernel cache: ConstantOfShape nodes with different values stay different") {
  ge::GraphBuilder b;
  const Value x = b.input("x", DataType::f32, "1~8");
  const Value shape = b.op("Shape", {x}, {}, "shape");
  b.output(b.op("ConstantOfShape", {shape}, {{"value", Tensor::from<std::int64_t>({1}, {1})}}, "ones"));
  b.output(b.op("ConstantOfShape", {shape}, {{"value", Tensor::from<std::int64_t>({1}, {2})}}, "twos"));
  const auto model = ge::compile(b.build());
  ge::Session s(model, {.threads = 1});
  std::vector<float> data(3, 0.f);
  const std::int64_t dims[] = {3};
  const auto r = s.run({ge::TensorView{data.data(), DataType::f32, dims}});
  REQUIRE(r.outputs.size() == 2);
  CHECK(vec(r.outputs[0].values<std::int64_t>()) == std::vector<std::int64_t>{1, 1, 1});
  CHECK(vec(r.outputs[1].values<std::int64_t>()) == std::vector<std::int64_t>{2, 2, 2});
}

TEST_CASE("NonMaxSuppression: INT64_MAX boxes per class means no limit") {
  ge::GraphBuilder b;
  const Value boxes = b.input("boxes", DataType::f32, "1,4,4");
  const Value scores = b.input("scores", DataType::f32, "1,1,4");
  const Value limit = b.constant("limit", Tensor::from<std::int64_t>({1}, {std::numeric_limits<std::int64_t>::max()}));
  const Value iou = b.constant("iou", Tensor::from<float>({1}, {0.5f}));
  b.output(b.op("NonMaxSuppression", {boxes, scores, limit, iou}, {}, "nms"));
  const auto model = ge::compile(b.build());
  ge::Session s(model, {.threads = 1});
  // Boxes 0 and 1 overlap (IoU 0.9): 1 goes; 2 and 3 stand alone.
  std::vector<float> bx{0, 0, 1, 1, 0, 0, 1, 1.1f, 2, 2, 3, 3, 5, 5, 6, 6};
  std::vector<float> sc{0.9f, 0.8f, 0.7f, 0.1f};
  const std::int64_t bd[] = {1, 4, 4}, sd[] = {1, 1, 4};
  const auto r = s.run({ge::TensorView{bx.data(), DataType::f32, bd}, ge::TensorView{sc.data(), DataType::f32, sd}});
  CHECK(r.outputs.at(0).dims == std::vector<std::int64_t>{3, 3});
  CHECK(vec(r.outputs.at(0).values<std::int64_t>()) == std::vector<std::int64_t>{0, 0, 0, 0, 0, 2, 0, 0, 3});
}
