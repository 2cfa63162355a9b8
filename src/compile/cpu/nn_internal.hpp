#pragma once
// Private to compile/cpu/nn.cpp and nn_nhwc.cpp: a conv's attributes and activation, read
// once at compile time, and the registration of the NHWC conv kernels.
#include <cstdint>
#include <span>
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "ops/window_attrs.hpp"

namespace ge::cpu_lower::nn {

// The attributes of a 2-D Conv that do not depend on the input's dims (a 1-D conv runs
// as 2-D with H = 1: its axis is the W slot).
struct ConvAttrs {
  ops::WindowAttrs window;
  std::int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, group = 1;
};

[[nodiscard]] ConvAttrs conv_attrs(const InferContext& c);
// The strides, dilations and group (what does not depend on the input's dims).
[[nodiscard]] cpu::Conv2dParams params_of(const ConvAttrs& a);
// The parameters for a rank-4 input of dims `x` and kernel kh x kw: pads from the
// attributes, or SAME's from x.
[[nodiscard]] cpu::Conv2dParams resolve(const ConvAttrs& a, std::span<const std::int64_t> x, std::int64_t kh,
                                        std::int64_t kw);
// A FusedConv on NHWC images (made by `ge::layout_nhwc`).
[[nodiscard]] bool is_nhwc(const KernelRequest& r);
// A FusedConv whose input is quantized (compile/qdq.cpp): only the int8 kernel takes it.
[[nodiscard]] bool quantized(const KernelRequest& r);
// The activation of a FusedConv from its attributes (`prefix`: a fused block's second
// conv's); none for a Conv.
[[nodiscard]] cpu::PostOp post_op(const InferContext& c, bool fused, const std::string& prefix = "");
// What a conv kernel applies to each value as it stores it: the activation, or none for
// the kinds applied as a pass over the output (`cpu::is_map`), which `finish` applies.
[[nodiscard]] cpu::PostOp on_store(const cpu::PostOp& post);
void finish(const cpu::PostOp& post, const TensorView& y);

// The NHWC FusedConvs and FusedPointwiseDepthwise (nn_nhwc.cpp).
void register_cpu_nn_nhwc(KernelRegistry& r);

}  // namespace ge::cpu_lower::nn
