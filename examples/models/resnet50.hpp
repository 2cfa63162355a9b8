#pragma once
/// \file
/// ResNet-50 (v1.5: the stride sits on the 3x3 conv of a bottleneck) built in code with
/// seeded random weights. The batch (and the image size) may be ranges:
///
/// ```
/// ge::Graph g = ge::models::resnet50("1~8,3,224,224");   // output: 1~8,1000
/// ```

#include <cstdint>
#include <string>
#include <string_view>

#include "common.hpp"

namespace ge::models {

/// One bottleneck block: 1x1 reduce, 3x3 (stride), 1x1 expand (x4), plus the shortcut.
inline Value bottleneck(GraphBuilder& b, Value x, const std::string& name, std::int64_t width, std::int64_t stride,
                        Seeds& seed) {
  const std::int64_t out_c = width * 4;
  Value y = conv_bn(b, x, name + ".conv1", width, 1, 1, 0, seed);
  y = conv_bn(b, y, name + ".conv2", width, 3, stride, 1, seed);
  y = conv_bn(b, y, name + ".conv3", out_c, 1, 1, 0, seed, Act::none);
  const bool project = stride != 1 || x.shape()[1].value() != out_c;
  const Value shortcut = project ? conv_bn(b, x, name + ".downsample", out_c, 1, stride, 0, seed, Act::none) : x;
  return (y + shortcut).relu(name + ".out");
}

/// ResNet-50 on an NCHW f32 input named `data` of shape `input_shape`; output `logits`
/// [N, classes].
inline Graph resnet50(std::string_view input_shape = "-1,3,224,224", std::uint64_t seed = 1,
                      std::int64_t classes = 1000) {
  GraphBuilder b;
  Seeds seeds{seed};
  Value x = b.input("data", DataType::f32, input_shape, Format::nchw);
  x = conv_bn(b, x, "conv1", 64, 7, 2, 3, seeds).max_pool({.kernel = 3, .stride = 2, .pad = 1, .name = "maxpool"});
  const struct {
    std::int64_t width, blocks, stride;
  } stages[] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
  for (std::size_t s = 0; s < 4; ++s)
    for (std::int64_t i = 0; i < stages[s].blocks; ++i)
      x = bottleneck(b, x, "layer" + std::to_string(s + 1) + "." + std::to_string(i), stages[s].width,
                     i == 0 ? stages[s].stride : 1, seeds);
  b.output(classifier(b, x, classes, seeds));
  return b.build();
}

}  // namespace ge::models
