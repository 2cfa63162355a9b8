// CPU kernels of the neural-network ops whose parameters need resolving: Conv.
#include <memory>
#include <string>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/conv.hpp"

namespace ge::cpu_lower {

namespace {

// The attributes of a 2-D Conv that do not depend on the input's dims.
struct ConvAttrs {
  std::int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, group = 1;
  std::vector<std::int64_t> pads;  // [top, left, bottom, right] when auto_pad is NOTSET
  std::string auto_pad = "NOTSET";
};

ConvAttrs conv_attrs(const InferContext& c) {
  ConvAttrs a;
  const auto strides = c.ints("strides");
  const auto dilations = c.ints("dilations");
  if (strides.size() == 2) {
    a.stride_h = strides[0];
    a.stride_w = strides[1];
  }
  if (dilations.size() == 2) {
    a.dil_h = dilations[0];
    a.dil_w = dilations[1];
  }
  a.group = c.i("group");
  a.pads = c.ints("pads");
  if (a.pads.empty()) a.pads = {0, 0, 0, 0};
  a.auto_pad = c.s("auto_pad");
  return a;
}

// Pads for one spatial dim under auto_pad SAME_*: the output is ceil(in / stride).
void same_pads(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dil, bool upper, std::int64_t& begin,
               std::int64_t& end) {
  const std::int64_t out = (in + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride + (k - 1) * dil + 1 - in);
  begin = upper ? total / 2 : total - total / 2;
  end = total - begin;
}

cpu::Conv2dParams resolve(const ConvAttrs& a, std::span<const std::int64_t> x, std::int64_t kh, std::int64_t kw) {
  cpu::Conv2dParams p;
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.dilation_h = a.dil_h;
  p.dilation_w = a.dil_w;
  p.group = a.group;
  if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
    const bool upper = a.auto_pad == "SAME_UPPER";
    same_pads(x[2], kh, a.stride_h, a.dil_h, upper, p.pad_top, p.pad_bottom);
    same_pads(x[3], kw, a.stride_w, a.dil_w, upper, p.pad_left, p.pad_right);
  } else if (a.auto_pad == "NOTSET") {
    p.pad_top = a.pads[0];
    p.pad_left = a.pads[1];
    p.pad_bottom = a.pads[2];
    p.pad_right = a.pads[3];
  }
  return p;
}

bool is_2d_f32(const KernelRequest& r) {
  const InferContext& c = r.context;
  return c.input(0).dtype == DataType::f32 && c.shape(0).rank_known() && c.shape(0).rank() == 4;
}

// A 1x1 conv with stride 1, no pads, one group is a matrix product per image.
bool is_pointwise(const KernelRequest& r) {
  if (!is_2d_f32(r)) return false;
  const InferContext& c = r.context;
  const Shape& w = c.shape(1);
  if (!w.rank_known() || w.rank() != 4 || !w[2].is_static() || !w[3].is_static()) return false;
  if (w[2].value() != 1 || w[3].value() != 1) return false;
  const ConvAttrs a = conv_attrs(c);
  for (const std::int64_t p : a.pads)
    if (p != 0) return false;
  return a.stride_h == 1 && a.stride_w == 1 && a.group == 1 && a.auto_pad != "SAME_UPPER" && a.auto_pad != "SAME_LOWER";
}

std::shared_ptr<const Kernel> make_conv(const KernelRequest& r, const char* name) {
  const InferContext& c = r.context;
  const ConvAttrs a = conv_attrs(c);
  const Tensor* w = c.constant(1);
  if (w != nullptr) {
    // Weights known now: reorder them once, here, never per run.
    const auto& wd = w->dims();
    const TensorView wv{const_cast<std::byte*>(w->bytes().data()), w->dtype(), wd};
    cpu::Conv2dParams pack_params;
    pack_params.group = a.group;
    auto packed = std::make_shared<const cpu::PackedConvWeights>(cpu::pack_conv_weights(pack_params, wv));
    const std::int64_t kh = wd[2], kw = wd[3];
    return make_kernel(name, [a, packed, kh, kw](std::span<const TensorView> in, std::span<const TensorView> out) {
      const cpu::Conv2dParams p = resolve(a, in[0].dims, kh, kw);
      cpu::conv2d(p, in[0], *packed, optional_input(in, 2), out[0]);
    });
  }
  return make_kernel(name, [a](std::span<const TensorView> in, std::span<const TensorView> out) {
    const cpu::Conv2dParams p = resolve(a, in[0].dims, in[1].dims[2], in[1].dims[3]);
    cpu::conv2d(p, in[0], in[1], optional_input(in, 2), out[0]);
  });
}

}  // namespace

void register_cpu_nn(KernelRegistry& r) {
  r.add({.op = "Conv",
         .name = "cpu.conv2d.im2col_gemm",
         .engines = engines(Engine::vector),
         .fits = is_2d_f32,
         .make = [](const KernelRequest& req) { return make_conv(req, "cpu.conv2d.im2col_gemm"); }});
  r.add({.op = "Conv",
         .name = "cpu.conv2d.pointwise_gemm",
         .engines = engines(Engine::vector),
         .priority = 1,
         .fits = is_pointwise,
         .make = [](const KernelRequest& req) { return make_conv(req, "cpu.conv2d.pointwise_gemm"); }});
}

}  // namespace ge::cpu_lower
