#pragma once
/// \file
/// MobileNetV2 (width 1.0) built in code with seeded random weights: inverted residual
/// blocks of 1x1 expansion, 3x3 depthwise conv (groups = channels) and 1x1 projection,
/// ReLU6 as Clip(0, 6).
///
/// ```
/// ge::Graph g = ge::models::mobilenet_v2("1~8,3,224,224");   // output: 1~8,1000
/// ```

#include <cstdint>
#include <string>
#include <string_view>

#include "common.hpp"

namespace ge::models {

/// One inverted residual block; the shortcut is added when the shapes allow.
inline Value inverted_residual(GraphBuilder& b, Value x, const std::string& name, std::int64_t out_c,
                               std::int64_t stride, std::int64_t expand, Seeds& seed) {
  const std::int64_t in_c = x.shape()[1].value();
  const std::int64_t hidden = in_c * expand;
  Value y = x;
  if (expand != 1) y = conv_bn(b, y, name + ".expand", hidden, 1, 1, 0, seed, Act::relu6);
  y = conv_bn(b, y, name + ".dw", hidden, 3, stride, 1, seed, Act::relu6, hidden);
  y = conv_bn(b, y, name + ".project", out_c, 1, 1, 0, seed, Act::none);
  return stride == 1 && in_c == out_c ? x + y : y;
}

/// MobileNetV2 on an NCHW f32 input named `data`; output [N, classes].
inline Graph mobilenet_v2(std::string_view input_shape = "-1,3,224,224", std::uint64_t seed = 1,
                          std::int64_t classes = 1000) {
  GraphBuilder b;
  Seeds seeds{seed};
  Value x = b.input("data", DataType::f32, input_shape, Format::nchw);
  x = conv_bn(b, x, "features.0", 32, 3, 2, 1, seeds, Act::relu6);
  // expansion t, channels c, repeats n, first stride s
  const struct {
    std::int64_t t, c, n, s;
  } settings[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int index = 1;
  for (const auto& st : settings)
    for (std::int64_t i = 0; i < st.n; ++i)
      x = inverted_residual(b, x, "features." + std::to_string(index++), st.c, i == 0 ? st.s : 1, st.t, seeds);
  x = conv_bn(b, x, "features." + std::to_string(index), 1280, 1, 1, 0, seeds, Act::relu6);
  b.output(classifier(b, x, classes, seeds));
  return b.build();
}

}  // namespace ge::models
