#pragma once
/// \file
/// Pieces shared by the model builders of `examples/models/`: a conv + batch-norm +
/// activation block with seeded random weights.

#include <cstdint>
#include <string>

#include "ge/graph/builder.hpp"

namespace ge::models {

/// The activation after a conv block.
enum class Act { none, relu, relu6 };

/// Hands out seeds, one per weight tensor, so that a model's weights depend only on
/// its first seed.
struct Seeds {
  std::uint64_t next = 1;
  std::uint64_t operator()() { return next++; }
};

/// Conv (no bias) + BatchNormalization + activation. Weights He-uniform, batch-norm
/// statistics near identity; nodes named `<name>`, `<name>.bn`, `<name>.relu`.
inline Value conv_bn(GraphBuilder& b, Value x, const std::string& name, std::int64_t out_c, std::int64_t k,
                     std::int64_t stride, std::int64_t pad, Seeds& seed, Act act = Act::relu, std::int64_t group = 1) {
  const std::int64_t in_c = x.shape()[1].value();
  const Value w = b.random_weights(name + ".weight", {out_c, in_c / group, k, k}, seed());
  Value y = x.conv2d(w, {.stride = stride, .pad = pad, .group = group, .name = name});
  y = y.batch_norm(b.random_uniform(name + ".bn.scale", {out_c}, seed(), 0.5, 1.5),
                   b.random_uniform(name + ".bn.bias", {out_c}, seed(), -0.1, 0.1),
                   b.random_uniform(name + ".bn.mean", {out_c}, seed(), -0.1, 0.1),
                   b.random_uniform(name + ".bn.var", {out_c}, seed(), 0.5, 1.5), 1e-5, name + ".bn");
  switch (act) {
    case Act::relu: return y.relu(name + ".relu");
    case Act::relu6: return y.clip(0.0, 6.0, name + ".relu6");
    case Act::none: break;
  }
  return y;
}

/// Global average pool, flatten, and a fully connected layer (Gemm with transB) to
/// `classes` logits.
inline Value classifier(GraphBuilder& b, Value x, std::int64_t classes, Seeds& seed) {
  const std::int64_t c = x.shape()[1].value();
  const Value w = b.random_weights("fc.weight", {classes, c}, seed());
  const Value bias = b.random_uniform("fc.bias", {classes}, seed(), -0.01, 0.01);
  return x.global_avg_pool("avgpool").flatten(1, "flatten").gemm(w, bias, {.trans_b = true, .name = "fc"});
}

}  // namespace ge::models
