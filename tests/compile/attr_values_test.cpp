// Kernels keyed and fed by values, not only by types and dims: the shared kernel cache
// keys a tensor attribute by its bytes (two ConstantOfShape nodes whose dims come at run
// time, one filling 1 and one 2, as torchvision's detection exports label each class),
// and NonMaxSuppression reads its box limit as an integer (exporters write INT64_MAX for
// "no limit", which a double rounds out of range).
#include <doctest/doctest.h>

#include <algorithm>
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

namespace {
// The greedy pass as ONNX defines it, every candidate against every kept box.
std::vector<std::int64_t> naive_nms(const std::vector<float>& b, const std::vector<float>& s, float threshold) {
  const std::size_t n = s.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return s[l] > s[r]; });
  const auto corner = [&](std::size_t i, int k) { return b[i * 4 + static_cast<std::size_t>(k)]; };
  std::vector<std::int64_t> kept;
  for (const std::size_t i : order) {
    bool drop = false;
    for (const std::int64_t k : kept) {
      const auto j = static_cast<std::size_t>(k);
      const float ay1 = std::min(corner(j, 0), corner(j, 2)), ax1 = std::min(corner(j, 1), corner(j, 3));
      const float ay2 = std::max(corner(j, 0), corner(j, 2)), ax2 = std::max(corner(j, 1), corner(j, 3));
      const float by1 = std::min(corner(i, 0), corner(i, 2)), bx1 = std::min(corner(i, 1), corner(i, 3));
      const float by2 = std::max(corner(i, 0), corner(i, 2)), bx2 = std::max(corner(i, 1), corner(i, 3));
      const float area_a = (ay2 - ay1) * (ax2 - ax1), area_b = (by2 - by1) * (bx2 - bx1);
      if (area_a <= 0 || area_b <= 0) continue;
      const float inter = std::max(0.0f, std::min(ay2, by2) - std::max(ay1, by1)) *
                          std::max(0.0f, std::min(ax2, bx2) - std::max(ax1, bx1));
      const float uni = area_a + area_b - inter;
      if (uni > 0 && inter / uni > threshold) drop = true;
    }
    if (!drop) kept.push_back(static_cast<std::int64_t>(i));
  }
  return kept;
}
}  // namespace

TEST_CASE("NonMaxSuppression: the same boxes as the plain greedy pass, batched classes and any threshold") {
  ge::GraphBuilder b;
  const Value boxes = b.input("boxes", DataType::f32, "1,-1,4");
  const Value scores = b.input("scores", DataType::f32, "1,1,-1");
  const Value iou = b.input("iou", DataType::f32, "1");
  const Value limit = b.constant("limit", Tensor::from<std::int64_t>({1}, {100000}));
  b.output(b.op("NonMaxSuppression", {boxes, scores, limit, iou}, {}, "nms"));
  ge::Session s(ge::compile(b.build(), ge::BuildOptions().set("INPUT_SHAPE", "boxes:1,1~4000,4;scores:1,1,1~4000;iou:1")),
                {.threads = 1});
  std::uint64_t state = 12345;
  const auto next = [&] {  // a portable generator in [0, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>(state >> 40) / static_cast<float>(1ULL << 24);
  };
  for (const float threshold : {0.5f, 0.0f, -0.1f, 0.9f}) {
    for (const std::int64_t n : {1, 37, 3000}) {
      std::vector<float> bx, sc;
      for (std::int64_t i = 0; i < n; ++i) {
        // Classes 0..9 set apart by an offset, as batched NMS does; some boxes of no area.
        const float offset = static_cast<float>(i % 10) * 1000.f;
        const float y = next() * 100, x = next() * 100 + offset, h = next() * 30, w = i % 13 == 0 ? 0.f : next() * 30;
        bx.insert(bx.end(), {y, x, y + h, x + w});
        sc.push_back(static_cast<float>(static_cast<int>(next() * 50)) / 50.f);  // many ties
      }
      const std::int64_t bd[] = {1, n, 4}, sd[] = {1, 1, n}, one[] = {1};
      float t = threshold;
      const auto r = s.run({ge::TensorView{bx.data(), DataType::f32, bd}, ge::TensorView{sc.data(), DataType::f32, sd},
                            ge::TensorView{&t, DataType::f32, one}});
      const auto got = vec(r.outputs.at(0).values<std::int64_t>());
      std::vector<std::int64_t> picked;
      for (std::size_t k = 2; k < got.size(); k += 3) picked.push_back(got[k]);
      CAPTURE(threshold);
      CAPTURE(n);
      CHECK(picked == naive_nms(bx, sc, threshold));
    }
  }
}
