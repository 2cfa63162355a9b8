// CPU kernels of the convolutions, f32 NCHW, 2-D (1-D runs as 2-D with H = 1). Conv: strides, dilations, group, pads
// or auto_pad SAME_* resolved per run from the input's dims; constant weights packed once
// in `make`; a 1x1 conv is a matrix product. FusedConv: Conv plus the residual (input 3) and the
// activation (Relu, Clip with its bounds) applied in the conv's epilogue. ConvTranspose: pads, output_padding, and
// output_shape or auto_pad resolved per run from the input's and output's dims.
// The kernels of NHWC images (FusedConv made by `ge::layout_nhwc`, FusedPointwiseDepthwise):
// nn_nhwc.cpp; what both read of a conv's attributes: nn_internal.hpp.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/nn_internal.hpp"
#include "compile/cpu/packed.hpp"
#include "ops/window_attrs.hpp"
#include "kernels/cpu/conv/conv.hpp"

namespace ge::cpu_lower {

namespace nn {

ConvAttrs conv_attrs(const InferContext& c) {
  const Shape& w = c.shape(1);
  const std::size_t n = w.rank_known() && w.rank() >= 3 ? w.rank() - 2 : 2;
  ConvAttrs a;
  a.window = ops::WindowAttrs::from(c, n);
  a.stride_w = a.window.strides[n - 1];
  a.dil_w = a.window.dilations[n - 1];
  if (n == 2) {
    a.stride_h = a.window.strides[0];
    a.dil_h = a.window.dilations[0];
  }
  a.group = c.i("group");
  return a;
}

// The strides, dilations and group (what does not depend on the input's dims).
cpu::Conv2dParams params_of(const ConvAttrs& a) {
  cpu::Conv2dParams p;
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.dilation_h = a.dil_h;
  p.dilation_w = a.dil_w;
  p.group = a.group;
  return p;
}

// The parameters for a rank-4 input of dims `x` and kernel kh x kw: pads from the
// attributes, or SAME's from x.
cpu::Conv2dParams resolve(const ConvAttrs& a, std::span<const std::int64_t> x, std::int64_t kh, std::int64_t kw) {
  cpu::Conv2dParams p = params_of(a);
  const std::size_t n = a.window.rank();
  if (n == 2) std::tie(p.pad_top, p.pad_bottom) = a.window.pads_at(0, x[2], kh);
  std::tie(p.pad_left, p.pad_right) = a.window.pads_at(n - 1, x[3], kw);
  return p;
}

// A FusedConv on NHWC images (made by `ge::layout_nhwc`).
bool is_nhwc(const KernelRequest& r) { return r.context.has("layout") && r.context.s("layout") == "NHWC"; }

// A FusedConv whose input is quantized (compile/qdq.cpp): only the int8 kernel takes it.
bool quantized(const KernelRequest& r) { return r.context.has("x_scale") && r.context.f("x_scale") > 0.0; }

// The activation of a FusedConv from its attributes; none for a Conv.
cpu::PostOp post_op(const InferContext& c, bool fused, const std::string& prefix) {
  cpu::PostOp post;
  if (!fused) return post;
  const std::string& act = c.s(prefix + "activation");
  if (act == "Relu") {
    post.kind = cpu::Activation::relu;
  } else if (act == "Clip") {
    post.kind = cpu::Activation::clip;
    post.lo = static_cast<float>(c.f(prefix + "clip_min"));
    post.hi = static_cast<float>(c.f(prefix + "clip_max"));
  } else if (act == "Sigmoid") {
    post.kind = cpu::Activation::sigmoid;
  } else if (act == "Silu") {
    post.kind = cpu::Activation::silu;
  } else if (act == "Gelu") {
    post.kind = cpu::Activation::gelu;
  } else if (act == "GeluTanh") {
    post.kind = cpu::Activation::gelu_tanh;
  } else if (act == "HardSwish") {
    post.kind = cpu::Activation::hard_swish;
  } else if (act == "LeakyRelu") {
    post.kind = cpu::Activation::leaky_relu;
    post.alpha = static_cast<float>(c.f(prefix + "alpha"));
  } else if (act == "HardSigmoid") {
    post.kind = cpu::Activation::hard_sigmoid;
    post.alpha = static_cast<float>(c.f(prefix + "alpha"));
    post.beta = static_cast<float>(c.f(prefix + "beta"));
  }
  return post;
}

// What a conv kernel applies to each value as it stores it: the activation, or none for
// the kinds applied as a pass over the output (`cpu::is_map`), which `finish` applies.
cpu::PostOp on_store(const cpu::PostOp& post) { return cpu::is_map(post.kind) ? cpu::PostOp{} : post; }
void finish(const cpu::PostOp& post, const TensorView& y) {
  if (cpu::is_map(post.kind)) cpu::activate(post, y.as<float>(), y.elements());
}

}  // namespace nn

namespace {

using namespace nn;

// A 2-D (rank 4) or 1-D (rank 3) f32 convolution on NCHW images.
bool is_2d_f32(const KernelRequest& r) {
  const InferContext& c = r.context;
  return !quantized(r) && c.input(0).dtype == DataType::f32 && c.shape(0).rank_known() &&
         (c.shape(0).rank() == 4 || c.shape(0).rank() == 3) && !is_nhwc(r);
}

// A rank-3 view [N, C, W] as the rank-4 [N, C, 1, W] (`dims` holds the dims); others as they are.
TensorView as_2d(const TensorView& t, std::array<std::int64_t, 4>& dims) {
  if (t.rank() != 3) return t;
  dims = {t.dims[0], t.dims[1], 1, t.dims[2]};
  return TensorView{t.data, t.dtype, dims};
}

// A 1x1 conv with stride 1, no pads, one group is a matrix product per image.
bool is_pointwise(const KernelRequest& r) {
  if (!is_2d_f32(r)) return false;
  const InferContext& c = r.context;
  const Shape& w = c.shape(1);
  if (!w.rank_known() || w.rank() != 4 || !w[2].is_static() || !w[3].is_static()) return false;
  if (w[2].value() != 1 || w[3].value() != 1) return false;
  const ConvAttrs a = conv_attrs(c);
  return a.window.unit() && a.group == 1;
}

// The residual of a FusedConv (input 3) as a rank-4 view, or null.
const TensorView* residual_2d(Views in, bool fused, TensorView& view, std::array<std::int64_t, 4>& dims) {
  const TensorView* z = fused ? optional_input(in, 3) : nullptr;
  if (z == nullptr) return nullptr;
  view = as_2d(*z, dims);
  return &view;
}

// The pixels per channel of every output this kernel serves when they are known now
// (bounded spatial dims: their upper bounds), else -1.
std::int64_t output_pixels(const KernelRequest& r) {
  if (r.outputs.empty()) return -1;
  const Shape& y = r.outputs[0].shape;
  if (!y.rank_known() || y.rank() < 3) return -1;
  std::int64_t pixels = 1;
  for (std::size_t d = 2; d < y.rank(); ++d) {
    if (!y[d].is_bounded()) return -1;
    pixels *= y[d].hi();
  }
  return pixels;
}

// Whether every output is a small image (at most 64 pixels per channel, known now): its
// conv then runs with the pixels as the GEMM's rows.
bool small_output(const KernelRequest& r) {
  const std::int64_t pixels = output_pixels(r);
  return pixels >= 0 && pixels <= 64;
}

// Conv, or FusedConv when `fused` (the residual and activation go into the epilogue).
std::shared_ptr<const Kernel> make_conv(const KernelRequest& r, const char* name, bool fused = false) {
  const InferContext& c = r.context;
  const ConvAttrs a = conv_attrs(c);
  const cpu::PostOp post = post_op(c, fused);
  const Tensor* w = c.constant(1);
  if (w != nullptr) {
    // Weights known now: reorder them once, here, never per run.
    std::array<std::int64_t, 4> wd{};
    const TensorView wv = as_2d(view_of(*w), wd);
    const cpu::Conv2dParams pack_params = params_of(a);
    // Winograd (3x3, stride 1; conv_winograd.cpp) from 16 channels in and out and 7x7
    // output pixels: on every such conv of ResNet-50 at batch 1 and 8 it beat the direct
    // GEMM conv (AMD Zen 5, 2 threads, ms at batch 8: 56x56x64 6.1 -> 4.7, 28x28x128
    // 6.0 -> 3.1, 14x14x256 3.5 (whole batch) -> 2.6, 7x7x512 6.4 -> 3.4), and on the
    // narrow ones too (Sapphire Rapids, 2 threads, batch 1, us: DenseNet's 128 -> 32 at
    // 56x56 2002 -> 1059, 14x14 212 -> 92; 192 -> 48 at 28x28 1037 -> 690; 32 -> 32 at
    // 56x56 572 -> 243; 16 -> 16 at 56x56 183 -> 137).
    const bool winograd = wv.dims[0] >= 16 && wv.dims[1] >= 16 && output_pixels(r) >= 49;
    auto packed = packed_part<cpu::PackedConvWeights>(r, 0, name, [&] {
      return cpu::pack_conv_weights(
          pack_params, wv,
          {.bf16 = r.precision == Precision::bf16, .winograd = winograd, .pixel_major = small_output(r), .direct = true});
    });
    const std::int64_t kh = wv.dims[2], kw = wv.dims[3];
    return make_packed_kernel(std::string(name) + (packed->bf16 ? (packed->winograd ? ".winograd.bf16" : ".bf16") : packed->winograd ? ".winograd" : packed->pixel_major ? ".pixels" : packed->direct ? ".direct" : ""), [a, packed, kh, kw, post, fused](Views in, Views out) {
      std::array<std::int64_t, 4> xd{}, yd{}, zd{};
      const TensorView x = as_2d(in[0], xd), y = as_2d(out[0], yd);
      TensorView zv;
      const TensorView* z = residual_2d(in, fused, zv, zd);
      cpu::Conv2dParams p = resolve(a, x.dims, kh, kw);
      p.post = on_store(post);
      cpu::conv2d(p, x, *packed, optional_input(in, 2), y, z);
      finish(post, y);
    }, {1}, packed);
  }
  return make_kernel(name, [a, post, fused](Views in, Views out) {
    std::array<std::int64_t, 4> xd{}, wd{}, yd{}, zd{};
    const TensorView x = as_2d(in[0], xd), w = as_2d(in[1], wd), y = as_2d(out[0], yd);
    TensorView zv;
    const TensorView* z = residual_2d(in, fused, zv, zd);
    cpu::Conv2dParams p = resolve(a, x.dims, w.dims[2], w.dims[3]);
    p.post = on_store(post);
    cpu::conv2d(p, x, w, optional_input(in, 2), y, z);
    finish(post, y);
  });
}

// The attributes of a 2-D ConvTranspose that do not depend on the dims.
struct ConvTransposeAttrs {
  ConvAttrs base;
  std::int64_t out_pad_h = 0, out_pad_w = 0;
  bool has_output_shape = false;
};

ConvTransposeAttrs conv_transpose_attrs(const InferContext& c) {
  ConvTransposeAttrs a;
  a.base = conv_attrs(c);
  const auto op = c.ints("output_padding");
  if (op.size() == 2) {
    a.out_pad_h = op[0];
    a.out_pad_w = op[1];
  }
  if (op.size() == 1) a.out_pad_w = op[0];
  a.has_output_shape = !c.ints("output_shape").empty();
  return a;
}

// Pads of one spatial dim whose output extent `out` is given (output_shape or SAME_*),
// `ge::transpose_pads`: the positions past the full transposed extent (a negative total)
// become more output padding.
void transpose_pads(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dil, std::int64_t out,
                    bool upper, std::int64_t& out_pad, std::int64_t& begin, std::int64_t& end) {
  const TransposePads t = ge::transpose_pads(in, k, {.stride = stride, .dilation = dil}, out_pad, out, upper);
  begin = t.begin;
  end = t.end;
  out_pad += t.extra;
}

cpu::ConvTranspose2dParams resolve_transpose(const ConvTransposeAttrs& a, std::span<const std::int64_t> x,
                                             std::span<const std::int64_t> w, std::span<const std::int64_t> y) {
  const ConvAttrs& b = a.base;
  cpu::ConvTranspose2dParams p;
  p.stride_h = b.stride_h;
  p.stride_w = b.stride_w;
  p.dilation_h = b.dil_h;
  p.dilation_w = b.dil_w;
  p.group = b.group;
  p.output_padding_h = a.out_pad_h;
  p.output_padding_w = a.out_pad_w;
  if (a.has_output_shape || b.window.same()) {
    const bool upper = b.window.auto_pad == ops::AutoPad::same_upper;
    transpose_pads(x[2], w[2], b.stride_h, b.dil_h, y[2], upper, p.output_padding_h, p.pad_top, p.pad_bottom);
    transpose_pads(x[3], w[3], b.stride_w, b.dil_w, y[3], upper, p.output_padding_w, p.pad_left, p.pad_right);
  } else {
    const std::vector<std::int64_t>& pads = b.window.pads;
    const std::size_t n = b.window.rank();
    std::tie(p.pad_left, p.pad_right) = std::pair{pads[n - 1], pads[2 * n - 1]};
    if (n == 2) std::tie(p.pad_top, p.pad_bottom) = std::pair{pads[0], pads[2]};
  }
  return p;
}

}  // namespace

void register_cpu_nn(KernelRegistry& r) {
  r.add({.op = "Conv",
         .name = "cpu.conv2d.packed_gemm",
         .engines = engines(Engine::vector),
         .fits = is_2d_f32,
         .make = [](const KernelRequest& req) { return make_conv(req, "cpu.conv2d.packed_gemm"); }});
  r.add({.op = "Conv",
         .name = "cpu.conv2d.pointwise_gemm",
         .engines = engines(Engine::vector),
         .priority = 1,
         .fits = is_pointwise,
         .make = [](const KernelRequest& req) { return make_conv(req, "cpu.conv2d.pointwise_gemm"); }});
  r.add({.op = "FusedConv",
         .name = "cpu.fused_conv2d",
         .engines = engines(Engine::vector),
         .fits = is_2d_f32,
         .make = [](const KernelRequest& req) { return make_conv(req, "cpu.fused_conv2d", true); }});
  r.add({.op = "FusedConv",
         .name = "cpu.fused_conv2d.pointwise",
         .engines = engines(Engine::vector),
         .priority = 1,
         .fits = is_pointwise,
         .make = [](const KernelRequest& req) { return make_conv(req, "cpu.fused_conv2d.pointwise", true); }});
  nn::register_cpu_nn_nhwc(r);
  r.add({.op = "ConvTranspose",
         .name = "cpu.conv_transpose2d",
         .engines = engines(Engine::vector),
         .fits = is_2d_f32,
         .make = [](const KernelRequest& req) {
           const ConvTransposeAttrs a = conv_transpose_attrs(req.context);
           return make_kernel("cpu.conv_transpose2d", [a](Views in, Views out) {
             std::array<std::int64_t, 4> xd{}, wd{}, yd{};
             const TensorView x = as_2d(in[0], xd), w = as_2d(in[1], wd), y = as_2d(out[0], yd);
             const cpu::ConvTranspose2dParams p = resolve_transpose(a, x.dims, w.dims, y.dims);
             cpu::conv_transpose2d(p, x, w, optional_input(in, 2), y);
           });
         }});
}

}  // namespace ge::cpu_lower
