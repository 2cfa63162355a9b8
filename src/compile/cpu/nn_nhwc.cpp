// CPU kernels of the convolutions on NHWC images (FusedConv with layout NHWC, made by
// `ge::layout_nhwc`, and FusedPointwiseDepthwise): which kernel serves which conv, and
// their weights packed once.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/nn_internal.hpp"
#include "compile/cpu/packed.hpp"
#include "compile/cpu/quant_attrs.hpp"
#include "kernels/cpu/gemm/amx.hpp"
#include "kernels/cpu/conv/conv.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge::cpu_lower::nn {

namespace {

// NHWC (f32, rank 4, W [M, C/group, KH, KW] with static dims): a 1x1 conv with stride 1,
// no pads and one group, a depthwise one (group == C == M, at most 49 taps), a dense one
// over at most `cpu::kFewChannels` input channels, a 3x3 one Winograd takes, any other
// one-group conv (the GEMM over patches), or a grouped one (1 < group; the direct kernel
// over blocks of a group's outputs, also a depthwise conv of more than 49 taps).
enum class NhwcKind : std::uint8_t { pointwise, depthwise, few_channels, winograd, dense, taps, grouped };

// In bf16 (`Precision::bf16` where the CPU runs it): the weights in bf16 panels.
bool bf16_kernels(const KernelRequest& r) { return r.precision == Precision::bf16 && cpu::bf16_usable(); }

// X read as the model gave it, NCHW, by an NHWC conv (`ge::fold_transposes`): only the
// kernel over few input channels reads it so.
bool x_nchw(const KernelRequest& r) { return r.context.has("x_layout") && r.context.s("x_layout") == "NCHW"; }

bool nhwc_fits(const KernelRequest& r, NhwcKind kind) {
  const InferContext& c = r.context;
  if (!is_nhwc(r) || c.input(0).dtype != DataType::f32 || !c.shape(0).rank_known() || c.shape(0).rank() != 4)
    return false;
  if (x_nchw(r) && kind != NhwcKind::few_channels) return false;
  if (c.has_input(4) && kind != NhwcKind::pointwise) return false;  // (a gate: the pointwise kernel applies it)
  const Shape& w = c.shape(1);
  if (!w.rank_known() || w.rank() != 4 || !w.is_static()) return false;
  const ConvAttrs a = conv_attrs(c);
  if (kind == NhwcKind::few_channels) return a.group == 1 && w[1].value() <= cpu::kFewChannels;
  if (kind == NhwcKind::dense) return a.group == 1;
  if (kind == NhwcKind::taps) {
    // Most of the patches' taps in the padding (an atrous conv over a small map), for
    // sure: static H and W, at most 60% of (tap, pixel) pairs inside the image.
    const Shape& x = c.shape(0);
    if (a.group != 1 || !x[1].is_static() || !x[2].is_static() || w[2].value() * w[3].value() < 2) return false;
    const std::array<std::int64_t, 4> nchw{1, x[3].is_static() ? x[3].value() : 1, x[1].value(), x[2].value()};
    const cpu::Conv2dParams p = resolve(a, nchw, w[2].value(), w[3].value());
    return cpu::conv_taps_live_share(p, x[1].value(), x[2].value(), w[2].value(), w[3].value()) <= 0.6;
  }
  if (kind == NhwcKind::grouped) {
    const Dim& ch = c.shape(0)[3];
    return a.group > 1 && w[0].value() % a.group == 0 && ch.is_static() && ch.value() == w[1].value() * a.group;
  }
  if (kind == NhwcKind::winograd) {
    // bf16 with AMX: the GEMM over patches on the tiles, as measured on Sapphire Rapids
    // (Winograd's bf16 products were measured with AVX512-BF16's dot products only).
    if (bf16_kernels(r) && cpu::amx_bf16_usable()) return false;
    // Where the NCHW kernel takes Winograd too: 16 channels in and out (and the vector
    // width's multiples), 7x7 outputs. Below 64 channels it beat the GEMM over patches on
    // every shape measured (Sapphire Rapids, 2 threads, batch 1, us: DenseNet's 128 -> 32
    // at 56x56 968 -> 555, 14x14 69 -> 41, 7x7 24 -> 16; 16 -> 16 at 56x56 118 -> 66;
    // 16 -> 32 at 112x112 641 -> 352; 48 -> 48 at 28x28 145 -> 86).
    // A dilated conv runs as undilated ones over the residue classes of its pixels
    // (conv_nhwc.cpp's `WinogradNhwcTiles`), where each class has 4 rows and columns or more: layer 4 of
    // a ResNet with output stride 8 (dilations 2 and 4 at 28x28, 512 channels) took 18 ms a
    // conv as the GEMM over patches. Smaller classes (an ASPP's dilation 12 on 28x28) are
    // mostly padding: `taps`.
    const cpu::Conv2dParams wp = params_of(a);
    const Shape& x = c.shape(0);
    if ((wp.dilation_h > 1 || wp.dilation_w > 1) &&
        (!x[1].is_static() || !x[2].is_static() || x[1].value() < 4 * wp.dilation_h || x[2].value() < 4 * wp.dilation_w))
      return false;
    // (NHWC: the output's pixels are dims 1 and 2.)
    const Shape* y = r.outputs.empty() ? nullptr : &r.outputs[0].shape;
    const bool small = y != nullptr && y->rank_known() && y->rank() == 4 && (*y)[1].is_bounded() && (*y)[2].is_bounded() &&
                       (*y)[1].hi() * (*y)[2].hi() < 49;
    // Grouped: where `grouped_winograd_pays`, X's channels static and the groups' sum.
    if (a.group > 1) {
      const bool known = y != nullptr && y->rank_known() && y->rank() == 4 && (*y)[1].is_static() && (*y)[2].is_static();
      const std::int64_t pixels = known ? (*y)[1].value() * (*y)[2].value() : 0;
      const std::int64_t batch = known && (*y)[0].is_static() ? (*y)[0].value() : 1;
      if (!x[3].is_static() || x[3].value() != w[1].value() * a.group || w[0].value() % a.group != 0 ||
          !cpu::grouped_winograd_pays(std::min(w[1].value(), w[0].value() / a.group), a.group, pixels, batch))
        return false;
    }
    return cpu::winograd_nhwc_fits(w[1].value(), w[0].value(), w[2].value(), w[3].value(), wp) && w[0].value() >= 16 &&
           w[1].value() >= 16 && !small;
  }
  if (kind == NhwcKind::depthwise) {
    const Dim& ch = c.shape(0)[3];
    return a.group == w[0].value() && w[1].value() == 1 && ch.is_static() && ch.value() == a.group &&
           w[2].value() * w[3].value() <= 49;
  }
  return w[2].value() == 1 && w[3].value() == 1 && a.window.unit() && a.group == 1;
}

// An NHWC tensor's dims seen as NCHW (for the pads of auto_pad SAME_*); an NCHW one's
// (`nchw`: `x_nchw`) as they are.
std::array<std::int64_t, 4> nchw_dims(const TensorView& t, bool nchw = false) {
  if (nchw) return {t.dims[0], t.dims[1], t.dims[2], t.dims[3]};
  return {t.dims[0], t.dims[3], t.dims[1], t.dims[2]};
}

// An NHWC kernel whose weights `pack` packs: once, now, when W is constant, else per run.
template <class Pack, class Run>
std::shared_ptr<const Kernel> packed_nhwc(const KernelRequest& r, const char* name, Pack pack, Run run) {
  using Packed = decltype(pack(std::declval<const TensorView&>()));
  if (const Tensor* w = r.context.constant(1); w != nullptr) {
    // The kernel holds W packed: the graph's copy can go (compile lets it go).
    auto packed = packed_part<Packed>(r, 0, name, [&] { return pack(view_of(*w)); });
    return make_packed_kernel(name, [packed, run](Views in, Views out) { run(in, out, *packed); }, {1}, packed);
  }
  return make_kernel(name, [pack, run](Views in, Views out) { run(in, out, pack(in[1])); });
}

// NHWC 1x1: the images' pixels are the rows of a product by W^T (packed once when W is
// constant), with the bias, residual and activation in its epilogue.
std::shared_ptr<const Kernel> make_nhwc_pointwise(const KernelRequest& r) {
  const InferContext& c = r.context;
  const cpu::PostOp post = post_op(c, true);
  const bool bf16 = r.precision == Precision::bf16;
  const auto run = [post](Views in, Views out, const cpu::PackedMatMulB& b) {
    const TensorView& x = in[0];
    const TensorView& y = out[0];
    const std::int64_t pixels = x.dims[0] * x.dims[1] * x.dims[2];
    const std::int64_t ad[2] = {pixels, x.dims[3]}, yd[2] = {pixels, y.dims[3]};
    cpu::GemmEpilogue ep;
    const TensorView* bias = optional_input(in, 2);
    const TensorView* z = optional_input(in, 3);
    if (bias != nullptr) ep.bias_n = bias->as<const float>();
    if (z != nullptr) {
      ep.residual = z->as<const float>();
      ep.ld_residual = y.dims[3];
    }
    ep.post = post;
    const TensorView ax{x.data, x.dtype, ad}, ay{y.data, y.dtype, yd};
    const TensorView* g = optional_input(in, 4);
    if (g == nullptr) return cpu::matmul(ax, b, ay, ep);
    // The gate G (fuse_channel_gate): one factor per input channel, per image or shared.
    const std::int64_t images = x.dims[0], c = x.dims[3];
    if (g->dtype != DataType::f32 || (g->elements() != c && g->elements() != images * c))
      cpu::fail(Errc::bad_op_inputs, "FusedConv",
                "the gate G must hold one f32 per input channel (" + std::to_string(c) + ") or per image and channel (" +
                    std::to_string(images * c) + "), not " + std::to_string(g->elements()));
    if (pixels == 0) return cpu::matmul(ax, b, ay, ep);
    cpu::matmul_scaled_k(ax, g->as<const float>(), g->elements() == c ? 1 : images, b, ay, ep);
  };
  // W [M, C, 1, 1] as B = W^T [C, M]: W [M, C] packed transposed.
  const auto pack = [bf16](const TensorView& w) {
    const std::int64_t md[2] = {w.dims[0], w.dims[1]};
    return cpu::pack_matmul_b(TensorView{w.data, DataType::f32, md}, bf16, true);
  };
  return packed_nhwc(r, bf16 && cpu::bf16_usable() ? "cpu.fused_conv2d.nhwc_pointwise.bf16"
                                                       : "cpu.fused_conv2d.nhwc_pointwise",
                     pack, run);
}

// An NHWC conv kernel: `pack` lays W out, `conv` runs (depthwise, over few input
// channels, as a GEMM over patches, by Winograd), with the attributes resolved per run.
template <class Pack, class Conv>
std::shared_ptr<const Kernel> nhwc_conv(const KernelRequest& r, const char* name, Pack pack, Conv conv) {
  using Packed = decltype(pack(std::declval<const TensorView&>()));
  const ConvAttrs a = conv_attrs(r.context);
  const cpu::PostOp post = post_op(r.context, true);
  return packed_nhwc(r, name, pack, [a, post, conv](Views in, Views out, const Packed& w) {
    cpu::Conv2dParams p = resolve(a, nchw_dims(in[0]), w.kh, w.kw);
    p.post = on_store(post);
    conv(p, in[0], w, optional_input(in, 2), out[0], optional_input(in, 3));
    finish(post, out[0]);
  });
}

std::shared_ptr<const Kernel> make_nhwc_depthwise(const KernelRequest& r) {
  return nhwc_conv(r, "cpu.fused_conv2d.nhwc_depthwise", &cpu::pack_depthwise_nhwc, &cpu::depthwise_nhwc);
}

std::shared_ptr<const Kernel> make_nhwc_few_channels(const KernelRequest& r) {
  const ConvAttrs a = conv_attrs(r.context);
  const cpu::PostOp post = post_op(r.context, true);
  const bool nchw = x_nchw(r);
  const auto run = [a, post, nchw](Views in, Views out, const cpu::PackedFewChannelsNhwc& w) {
    cpu::Conv2dParams p = resolve(a, nchw_dims(in[0], nchw), w.kh, w.kw);
    p.post = on_store(post);
    cpu::conv_few_channels_nhwc(p, in[0], w, optional_input(in, 2), out[0], optional_input(in, 3), nchw);
    finish(post, out[0]);
  };
  // In bf16 the products in bf16 where the kernel is 5 wide or more (dilation 1 across:
  // neighbouring taps of a row make the bf16 pairs). Zen 4, 2 threads, 3 x 224 x 224:
  // the 7x7 stride-2 conv to 64 outputs 1.12 -> 0.81 ms at batch 1, 11.1 -> 6.5 at batch
  // 8; 3x3 ones to 16 or 32 outputs were slower (0.07 -> 0.17, 0.13 -> 0.20 ms at batch
  // 1: two pairs where f32 takes three FMAs, and the image rewritten as pairs first).
  const ge::Shape& ws = r.context.shape(1);
  const bool bf16 = bf16_kernels(r) && a.dil_w == 1 && ws.rank_known() && ws.rank() == 4 && ws[3].is_static() &&
                    ws[3].value() >= 5;
  const char* name = nchw ? (bf16 ? "cpu.fused_conv2d.nhwc_direct.nchw_in.bf16" : "cpu.fused_conv2d.nhwc_direct.nchw_in")
                          : (bf16 ? "cpu.fused_conv2d.nhwc_direct.bf16" : "cpu.fused_conv2d.nhwc_direct");
  return packed_nhwc(
      r, name, [bf16](const TensorView& w) { return cpu::pack_few_channels_nhwc(w, bf16); }, run);
}

std::shared_ptr<const Kernel> make_nhwc_dense(const KernelRequest& r) {
  const bool bf16 = bf16_kernels(r);
  return nhwc_conv(
      r, bf16 ? "cpu.fused_conv2d.nhwc_gemm.bf16" : "cpu.fused_conv2d.nhwc_gemm",
      [bf16](const TensorView& w) { return cpu::pack_conv_nhwc(w, bf16); }, &cpu::conv_gemm_nhwc);
}

std::shared_ptr<const Kernel> make_nhwc_taps(const KernelRequest& r) {
  return nhwc_conv(r, "cpu.fused_conv2d.nhwc_taps", &cpu::pack_conv_taps_nhwc, &cpu::conv_taps_nhwc);
}

// A packer of grouped weights, `pack(w, group)`, with the conv's group.
template <class Pack>
auto with_group(const KernelRequest& r, Pack pack) {
  return [group = conv_attrs(r.context).group, pack](const TensorView& w) { return pack(w, group); };
}

std::shared_ptr<const Kernel> make_nhwc_grouped(const KernelRequest& r) {
  return nhwc_conv(r, "cpu.fused_conv2d.nhwc_grouped", with_group(r, &cpu::pack_grouped_nhwc), &cpu::conv_grouped_nhwc);
}

// NHWC with a quantized input: the int8 GEMM over the quantized image's patches.
bool nhwc_int8_fits(const KernelRequest& r) {
  return quantized(r) && nhwc_fits(r, NhwcKind::dense) && r.context.constant(1) != nullptr;
}

std::shared_ptr<const Kernel> make_nhwc_int8(const KernelRequest& r) {
  const InferContext& c = r.context;
  const cpu::QuantU8 qx = input_quant(c);
  const std::optional<cpu::FakeQuant> out = round_trip(c, "y_", true);
  const bool requantize = out.has_value();
  const cpu::FakeQuant qy = out.value_or(cpu::FakeQuant{});
  return nhwc_conv(r, "cpu.fused_conv2d.nhwc_int8", &cpu::pack_conv_nhwc_s8,
                   [qx, qy, requantize](const cpu::Conv2dParams& p, const TensorView& x, const cpu::PackedS8& w,
                                        const TensorView* bias, const TensorView& y, const TensorView* z) {
                     cpu::conv_nhwc_u8s8(p, x, qx, w, bias, y, z, requantize ? &qy : nullptr);
                   });
}

// In bf16 the 16 products of the transformed tiles run in bf16 (the transforms in f32),
// unless the AMX tiles' depth of 32 pads a group's K to twice its inputs (the dot products
// read K in pairs: 128 x 28 x 28 in groups of 16, Zen 4, 2 threads, 0.128 / 0.97 ms in
// bf16 against 0.145 / 1.13-1.27 in f32 at batch 1 / 8; over the tiles' 32 it had been
// 0.156 / 1.19, slower than f32).
std::shared_ptr<const Kernel> make_nhwc_winograd(const KernelRequest& r) {
  const std::int64_t cg = r.context.shape(1)[1].value();  // (static: `nhwc_fits`)
  const bool bf16 = bf16_kernels(r) && (!cpu::amx_bf16_usable() || cpu::bf16_k(cg) < 2 * cg);
  return nhwc_conv(
      r, bf16 ? "cpu.fused_conv2d.nhwc_winograd.bf16" : "cpu.fused_conv2d.nhwc_winograd",
      [group = conv_attrs(r.context).group, bf16](const TensorView& w) {
        return cpu::pack_winograd_nhwc(w, group, bf16);
      },
      &cpu::conv_winograd_nhwc);
}

// FusedPointwiseDepthwise (made by `ge::layout_nhwc`): both weights constant and packed
// once, the pointwise one as the GEMM's B = W1^T, the depthwise one per tap; B1 read per
// run for the pointwise epilogue.
bool pointwise_depthwise_fits(const KernelRequest& r) {
  const InferContext& c = r.context;
  if (c.input(0).dtype != DataType::f32 || !c.shape(0).rank_known() || c.shape(0).rank() != 4) return false;
  const Tensor* w1 = c.constant(1);
  const Tensor* w2 = c.constant(3);
  return w1 != nullptr && w2 != nullptr && w1->dims().size() == 4 && w2->dims().size() == 4 && w1->dims()[2] == 1 &&
         w1->dims()[3] == 1 && w2->dims()[1] == 1 && w2->dims()[0] == w1->dims()[0] &&
         w2->dims()[2] * w2->dims()[3] <= 49 && c.i("group") == w2->dims()[0];
}

// The same with the pointwise conv in int8 (its input quantized: compile/qdq.cpp).
std::shared_ptr<const Kernel> make_pointwise_depthwise_int8(const KernelRequest& r, const ConvAttrs& a,
                                                           const cpu::PostOp& pw_post, const cpu::PostOp& post) {
  constexpr const char* name = "cpu.fused_pointwise_depthwise.nhwc_int8";
  const InferContext& c = r.context;
  const cpu::QuantU8 qx = input_quant(c, "pointwise_");
  const std::optional<cpu::FakeQuant> out = round_trip(c, "pointwise_y_", true);
  const bool requantize = out.has_value();
  const cpu::FakeQuant qy = out.value_or(cpu::FakeQuant{});
  const Tensor& w1 = *c.constant(1);
  const Tensor& w2 = *c.constant(3);
  auto pw = packed_part<cpu::PackedS8>(r, 0, name, [&] {
    // W1 [E, C, 1, 1] as B = W1^T [C, E].
    const TensorView v = view_of(w1);
    return cpu::pack_b_s8(v.dims[1], v.dims[0], v.as<const float>(), v.dims[1], true);
  });
  auto dw = packed_part<cpu::PackedDepthwiseNhwc>(r, 1, name, [&] { return cpu::pack_depthwise_nhwc(view_of(w2)); });
  return make_packed_kernel(
      name,
      [a, pw_post, post, pw, dw, qx, qy, requantize](Views in, Views out) {
        cpu::Conv2dParams p = resolve(a, nchw_dims(in[0]), dw->kh, dw->kw);
        p.post = on_store(post);
        const TensorView* b1 = optional_input(in, 2);
        if (b1 != nullptr && (b1->dtype != DataType::f32 || b1->elements() != pw->n))
          cpu::fail(Errc::bad_op_inputs, "FusedPointwiseDepthwise",
                    "B1 must hold one f32 per pointwise output (" + std::to_string(pw->n) + ")");
        cpu::pointwise_depthwise_u8s8(p, in[0], qx, *pw, b1 != nullptr ? b1->as<const float>() : nullptr, pw_post,
                                      requantize ? &qy : nullptr, *dw, optional_input(in, 4), out[0],
                                      optional_input(in, 5));
        finish(post, out[0]);
      },
      {1, 3}, pw, dw);
}

std::shared_ptr<const Kernel> make_pointwise_depthwise(const KernelRequest& r) {
  // In bf16 the pointwise product only (its weights in bf16 panels); the depthwise conv
  // and the expanded rows between them stay f32.
  const bool bf16 = bf16_kernels(r);
  const char* name = bf16 ? "cpu.fused_pointwise_depthwise.nhwc.bf16" : "cpu.fused_pointwise_depthwise.nhwc";
  const InferContext& c = r.context;
  const ConvAttrs a = conv_attrs(c);
  const cpu::PostOp pw_post = post_op(c, true, "pointwise_");
  const cpu::PostOp post = post_op(c, true);
  const Tensor& w1 = *c.constant(1);
  const Tensor& w2 = *c.constant(3);
  if (c.f("pointwise_x_scale") > 0.0) return make_pointwise_depthwise_int8(r, a, pw_post, post);
  auto pw = packed_part<cpu::PackedMatMulB>(r, 0, name, [&] {
    const std::int64_t md[2] = {w1.dims()[0], w1.dims()[1]};
    const TensorView v = view_of(w1);
    return cpu::pack_matmul_b(TensorView{v.data, DataType::f32, md}, bf16, true);
  });
  auto dw = packed_part<cpu::PackedDepthwiseNhwc>(r, 1, name, [&] { return cpu::pack_depthwise_nhwc(view_of(w2)); });
  const std::optional<cpu::FakeQuant> out = round_trip(c, "pointwise_y_", true);
  const bool requantize = out.has_value();
  const cpu::FakeQuant qy = out.value_or(cpu::FakeQuant{});
  return make_packed_kernel(
      name,
      [a, pw_post, post, pw, dw, requantize, qy](Views in, Views out) {
        cpu::Conv2dParams p = resolve(a, nchw_dims(in[0]), dw->kh, dw->kw);
        p.post = on_store(post);  // (the pointwise activation is the GEMM's epilogue: any kind)
        const TensorView* b1 = optional_input(in, 2);
        if (b1 != nullptr && (b1->dtype != DataType::f32 || b1->elements() != pw->n))
          cpu::fail(Errc::bad_op_inputs, "FusedPointwiseDepthwise",
                    "B1 must hold one f32 per pointwise output (" + std::to_string(pw->n) + ")");
        cpu::pointwise_depthwise_nhwc(p, in[0], *pw, b1 != nullptr ? b1->as<const float>() : nullptr, pw_post, *dw,
                                      optional_input(in, 4), out[0], optional_input(in, 5), requantize ? &qy : nullptr);
        finish(post, out[0]);
      },
      {1, 3}, pw, dw);
}

// FusedDepthwisePointwise (made by `ge::fuse_depthwise_pointwise`): both weights constant
// and packed once, the depthwise one per tap, the pointwise one as the GEMM's B = W2^T (in
// bf16 panels under Precision::bf16: the depthwise rows go to bf16 at the product's pack
// step); B2 and Z read per run.
bool depthwise_pointwise_fits(const KernelRequest& r) {
  const InferContext& c = r.context;
  if (c.input(0).dtype != DataType::f32 || !c.shape(0).rank_known() || c.shape(0).rank() != 4) return false;
  if (c.f("pointwise_x_scale") > 0.0 || c.f("x_scale") > 0.0) return false;
  const Tensor* w1 = c.constant(1);
  const Tensor* w2 = c.constant(3);
  return w1 != nullptr && w2 != nullptr && w1->dims().size() == 4 && w2->dims().size() == 4 && w1->dims()[1] == 1 &&
         w1->dims()[2] * w1->dims()[3] <= 49 && c.i("group") == w1->dims()[0] && w2->dims()[1] == w1->dims()[0] &&
         w2->dims()[2] == 1 && w2->dims()[3] == 1;
}

std::shared_ptr<const Kernel> make_depthwise_pointwise(const KernelRequest& r) {
  const bool bf16 = bf16_kernels(r);
  const char* name = bf16 ? "cpu.fused_depthwise_pointwise.nhwc.bf16" : "cpu.fused_depthwise_pointwise.nhwc";
  const InferContext& c = r.context;
  const ConvAttrs a = conv_attrs(c);
  const cpu::PostOp post = post_op(c, true);
  const cpu::PostOp pw_post = post_op(c, true, "pointwise_");
  const Tensor& w1 = *c.constant(1);
  const Tensor& w2 = *c.constant(3);
  auto dw = packed_part<cpu::PackedDepthwiseNhwc>(r, 0, name, [&] { return cpu::pack_depthwise_nhwc(view_of(w1)); });
  auto pw = packed_part<cpu::PackedMatMulB>(r, 1, name, [&] {
    const std::int64_t md[2] = {w2.dims()[0], w2.dims()[1]};
    const TensorView v = view_of(w2);
    return cpu::pack_matmul_b(TensorView{v.data, DataType::f32, md}, bf16, true);
  });
  return make_packed_kernel(
      name,
      [a, post, pw_post, dw, pw](Views in, Views out) {
        cpu::Conv2dParams p = resolve(a, nchw_dims(in[0]), dw->kh, dw->kw);
        p.post = post;  // (any kind: the kernel applies it to the depthwise rows; the pointwise one
                        // is the GEMM's epilogue)
        const TensorView* b2 = optional_input(in, 4);
        if (b2 != nullptr && (b2->dtype != DataType::f32 || b2->elements() != pw->n))
          cpu::fail(Errc::bad_op_inputs, "FusedDepthwisePointwise",
                    "B2 must hold one f32 per pointwise output (" + std::to_string(pw->n) + ")");
        cpu::depthwise_pointwise_nhwc(p, in[0], *dw, optional_input(in, 2), *pw,
                                      b2 != nullptr ? b2->as<const float>() : nullptr, pw_post, out[0],
                                      optional_input(in, 5));
      },
      {1, 3}, dw, pw);
}

}  // namespace

void register_cpu_nn_nhwc(KernelRegistry& r) {
  // The NHWC FusedConvs (`ge::layout_nhwc`): the special cases over the GEMM over patches,
  // Winograd over all where it fits.
  const struct {
    const char* name;
    int priority;
    NhwcKind kind;
    std::shared_ptr<const Kernel> (*make)(const KernelRequest&);
  } nhwc[] = {
      {"cpu.fused_conv2d.nhwc_pointwise", 2, NhwcKind::pointwise, make_nhwc_pointwise},
      {"cpu.fused_conv2d.nhwc_depthwise", 2, NhwcKind::depthwise, make_nhwc_depthwise},
      {"cpu.fused_conv2d.nhwc_direct", 2, NhwcKind::few_channels, make_nhwc_few_channels},
      {"cpu.fused_conv2d.nhwc_gemm", 1, NhwcKind::dense, make_nhwc_dense},
      {"cpu.fused_conv2d.nhwc_taps", 2, NhwcKind::taps, make_nhwc_taps},
      {"cpu.fused_conv2d.nhwc_winograd", 3, NhwcKind::winograd, make_nhwc_winograd},
      {"cpu.fused_conv2d.nhwc_grouped", 1, NhwcKind::grouped, make_nhwc_grouped},
  };
  for (const auto& k : nhwc)
    r.add({.op = "FusedConv",
           .name = k.name,
           .engines = engines(Engine::vector),
           .priority = k.priority,
           .fits = [kind = k.kind](const KernelRequest& req) { return !quantized(req) && nhwc_fits(req, kind); },
           .make = k.make});
  r.add({.op = "FusedConv",
         .name = "cpu.fused_conv2d.nhwc_int8",
         .engines = engines(Engine::vector),
         .priority = 4,
         .fits = nhwc_int8_fits,
         .make = make_nhwc_int8});
  r.add({.op = "FusedPointwiseDepthwise",
         .name = "cpu.fused_pointwise_depthwise.nhwc",
         .engines = engines(Engine::vector),
         .fits = pointwise_depthwise_fits,
         .make = make_pointwise_depthwise});
  r.add({.op = "FusedDepthwisePointwise",
         .name = "cpu.fused_depthwise_pointwise.nhwc",
         .engines = engines(Engine::vector),
         .fits = depthwise_pointwise_fits,
         .make = make_depthwise_pointwise});
}

}  // namespace ge::cpu_lower::nn
