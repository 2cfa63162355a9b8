#pragma once
/// \file
/// 2-D convolution (ONNX Conv, NCHW, OIHW weights) with fused bias, residual add and
/// activation, and 2-D transposed convolution (ONNX ConvTranspose).
///
/// Conv runs as GEMM over image patches, never materialising the column matrix: the
/// weights are packed once (`pack_conv_weights`) into the GEMM's A panels, and each task
/// packs a Kc x Nc block of patches (K = Cin*KH*KW rows, Nc output pixels) straight from
/// the image into B panels in a pooled buffer (a 1x1/stride-1/no-pad conv copies input
/// rows; other kernels read through per-tap offset tables), then sweeps all output
/// channels over it with the bias/residual/activation epilogue fused into the store.
/// Tasks are (image, group, column block); when there are too few of them for the
/// threads (small images at batch 1) the patches are packed over all of K in parallel
/// and the output channels are split instead. Depthwise convs (group == C == Cout) have
/// their own row loop.
///
/// ```
/// ge::cpu::Conv2dParams p{.stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1,
///                         .pad_bottom = 1, .pad_right = 1, .post = {ge::cpu::Activation::relu}};
/// auto packed = ge::cpu::pack_conv_weights(p, w);  // once, at compile time
/// ge::cpu::conv2d(p, x, packed, &bias, y);         // every run
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

namespace ge::cpu {

/// Resolved attributes of a 2-D Conv: explicit pads, strides, dilations, group, and the
/// fused activation.
struct Conv2dParams {
  std::int64_t stride_h = 1;    ///< vertical stride, >= 1
  std::int64_t stride_w = 1;    ///< horizontal stride, >= 1
  std::int64_t pad_top = 0;     ///< rows of zeros above, >= 0
  std::int64_t pad_left = 0;    ///< columns of zeros left, >= 0
  std::int64_t pad_bottom = 0;  ///< rows of zeros below, >= 0
  std::int64_t pad_right = 0;   ///< columns of zeros right, >= 0
  std::int64_t dilation_h = 1;  ///< vertical dilation, >= 1
  std::int64_t dilation_w = 1;  ///< horizontal dilation, >= 1
  std::int64_t group = 1;       ///< groups; C and Cout must be multiples
  PostOp post{};                  ///< fused activation, applied after bias and residual
};

/// Conv weights reordered once for `conv2d`: GEMM A panels per group, or the plain
/// [C, KH*KW] taps of a depthwise conv, or (`bf16`) per group the bf16 rows of the AMX
/// kernels: Cout/group rows rounded up to 16, each K = Cin/group*KH*KW rounded up to 32.
struct PackedConvWeights {
  std::int64_t cout = 0;           ///< output channels
  std::int64_t cin_per_group = 0;  ///< input channels per group
  std::int64_t kh = 0;             ///< kernel height
  std::int64_t kw = 0;             ///< kernel width
  std::int64_t group = 1;          ///< groups
  bool depthwise = false;          ///< group == C == Cout: taps, not panels
  bool bf16 = false;               ///< bf16 rows for the bf16 kernels (kernels/cpu/gemm/amx.hpp)
  bool pixel_major = false;        ///< per group W^T as GEMM B panels: the pixels are the rows
  bool winograd = false;           ///< Winograd F(2x2, 3x3): 16 A operands of Cout x Cin
  bool direct = false;             ///< few input channels: blocks of 16 output channels [tap][16]
  Scratch data;                    ///< the packed floats (or bf16 pairs)
};

/// How `pack_conv_weights` may lay the weights out, most preferred first (each where it
/// applies; else the channel-major GEMM's A panels).
struct ConvPacking {
  bool bf16 = false;         ///< bf16 rows (when `bf16_usable()`; not depthwise)
  bool winograd = false;     ///< Winograd F(2x2, 3x3) (3x3, stride 1, no dilation, group 1)
  bool pixel_major = false;  ///< W^T as B panels: the output pixels are the GEMM's rows
                             ///< (small images: 7x7, 8x8)
  bool direct = false;       ///< few input channels (at most 4, group 1, no dilation, stride 1
                             ///< or 2 across, AVX2 or AVX-512): output rows straight from input rows
};

/// The floats `pack_conv_weights` gives weights of `w`'s numbers (dims, group and
/// variant flags), or -2 for numbers it never makes (a model file's part that says
/// otherwise is refused before a kernel could read past its buffer).
[[nodiscard]] std::int64_t packed_conv_floats(const PackedConvWeights& w) noexcept;

/// Packs f32 OIHW weights `w` for `conv2d` with `p.group` (and, for `winograd`, its
/// strides and dilations, which every run must then have). Raises
/// `Errc::type_mismatch`, `Errc::rank_mismatch` (not 4-D), `Errc::bad_attribute` (group
/// < 1 or not dividing O).
[[nodiscard]] PackedConvWeights pack_conv_weights(const Conv2dParams& p, const TensorView& w,
                                                  const ConvPacking& packing = {});

/// ONNX Conv on f32 NCHW: `y = post(conv(x, w) + bias + residual)`. `bias` ([Cout]) and
/// `residual` (same dims as `y`) may be null. `y.dims` must be the exact output dims.
/// Raises `Errc::type_mismatch`, `Errc::rank_mismatch`, `Errc::bad_attribute` (strides,
/// dilations, group, pads out of range), `Errc::bad_op_inputs` (channel, bias, residual
/// or output dims that do not fit).
void conv2d(const Conv2dParams& p, const TensorView& x, const TensorView& w, const TensorView* bias,
            const TensorView& y, const TensorView* residual = nullptr);

/// `conv2d` with weights packed by `pack_conv_weights` (same `p.group`).
void conv2d(const Conv2dParams& p, const TensorView& x, const PackedConvWeights& w, const TensorView* bias,
            const TensorView& y, const TensorView* residual = nullptr);

/// Depthwise weights [C, 1, KH, KW] (at most 49 taps) as NHWC's `depthwise_nhwc` reads
/// them: per tap, the C channels.
struct PackedDepthwiseNhwc {
  std::int64_t c = 0, kh = 0, kw = 0;  ///< channels and kernel
  Scratch taps;                        ///< [KH * KW][C]
};

/// Packs f32 depthwise weights. Raises `Errc::type_mismatch`, `Errc::rank_mismatch`,
/// `Errc::bad_op_inputs` (not 1 input channel per group), `Errc::unsupported` (> 49 taps).
[[nodiscard]] PackedDepthwiseNhwc pack_depthwise_nhwc(const TensorView& w);

/// Depthwise conv (group == C == Cout) on f32 NHWC images: x [N, H, W, C], y [N, OH, OW,
/// C] (exact), optional bias [C] and residual (y's dims); any strides, dilations, pads;
/// `p.post` applied last. Vectorised over channels. Same errors as `conv2d`.
void depthwise_nhwc(const Conv2dParams& p, const TensorView& x, const PackedDepthwiseNhwc& w, const TensorView* bias,
                    const TensorView& y, const TensorView* residual = nullptr);

/// A pointwise conv then a depthwise conv on its output, on f32 NHWC images, without the
/// expanded image in memory (an inverted-residual block's first two convs): x [N, H, W,
/// C]; `pw` the 1x1 weights as B = W^T [C, E] (f32), `pw_bias` ([E] or null) and
/// `pw_post` its epilogue; then the depthwise conv of `p` (group E, any strides,
/// dilations, pads; `p.post` last) with `w`, `bias` and `residual` as `depthwise_nhwc`
/// takes them; y [N, OH, OW, E] (exact). Per run of output rows, the input rows they read
/// are expanded row by row into a ring of (KH - 1) * dilation + 1 rows that stays in
/// cache; `pw_out` (when given) is a quantize-dequantize round trip on each expanded value
/// (a QDQ model's quantization of the depthwise conv's input). Same errors as `depthwise_nhwc`.
void pointwise_depthwise_nhwc(const Conv2dParams& p, const TensorView& x, const PackedMatMulB& pw, const float* pw_bias,
                              const PostOp& pw_post, const PackedDepthwiseNhwc& w, const TensorView* bias,
                              const TensorView& y, const TensorView* residual = nullptr,
                              const FakeQuant* pw_out = nullptr);

/// A depthwise conv then a 1x1 conv on its output, without the depthwise output in
/// memory (an inverted-residual block's last two convs): the depthwise conv of `p` (group
/// C; `p.post` its activation) with `w` and `bias` as `depthwise_nhwc` takes them on x
/// [N, H, W, C]; then the pointwise conv with `pw` (B = W^T [C, M], f32 or bf16 panels),
/// `pw_bias` ([M] or null), `pw_post` and `residual` (like y) in its epilogue; y [N, OH,
/// OW, M] (exact). Per run of output rows of one image, the depthwise rows go to a buffer
/// that is the product's A at once, on the thread that made them. Same errors as
/// `depthwise_nhwc`.
void depthwise_pointwise_nhwc(const Conv2dParams& p, const TensorView& x, const PackedDepthwiseNhwc& w,
                              const TensorView* bias, const PackedMatMulB& pw, const float* pw_bias,
                              const PostOp& pw_post, const TensorView& y, const TensorView* residual = nullptr);

/// Grouped weights [M, C/group, KH, KW] (1 < group) as `conv_grouped_nhwc` reads them: per
/// group, its M/group outputs in blocks of `v` lanes (16 where M/group is a multiple of 16,
/// else 8), per block [KH][KW][C/group][v] (lanes past the group's outputs zero).
struct PackedGroupedNhwc {
  std::int64_t m = 0, c = 0, kh = 0, kw = 0, group = 1;  ///< outputs, inputs per group, kernel, groups
  std::int64_t v = 8;                                    ///< lanes per block: 8 or 16
  /// Groups per block: 1, or v / (M / group) where groups are narrower than a vector
  /// (C / group == M / group in {2, 4, 8}; then `w` holds ceil(group / gv) * KH * KW * c * v
  /// floats, lane l of a block computing output l % c of its group l / c)
  std::int64_t gv = 1;
  Scratch w;  ///< group * blocks * KH * KW * c * v floats, blocks = ceil(M / group / v)
};

/// Packs f32 grouped weights for `group` groups. Raises `Errc::type_mismatch`,
/// `Errc::rank_mismatch`, `Errc::bad_attribute` (group < 1 or not dividing M).
[[nodiscard]] PackedGroupedNhwc pack_grouped_nhwc(const TensorView& w, std::int64_t group);

/// A grouped conv on f32 NHWC images (any group width; RegNetX, ResNeXt): x [N, H, W, C],
/// y [N, OH, OW, M] (exact), optional bias [M] and residual; any strides, dilations, pads;
/// `p.post` applied last. Per output row, group and block of output channels, 8 pixels
/// accumulate side by side, each input float broadcast once per pixel and block pair.
/// Same errors as `conv2d`.
void conv_grouped_nhwc(const Conv2dParams& p, const TensorView& x, const PackedGroupedNhwc& w, const TensorView* bias,
                       const TensorView& y, const TensorView* residual = nullptr);

/// Dense (group 1) weights [M, C, KH, KW] with at most `kFewChannels` input channels as
/// `conv_few_channels_nhwc` reads them: per tap and input channel, the M outputs (padded
/// to 32); with `bf16`, per input channel, kernel row and pair of neighbouring taps of
/// the row, the M outputs' pairs of bf16 weights (`vdpbf16ps`'s operand order).
inline constexpr std::int64_t kFewChannels = 4;
struct PackedFewChannelsNhwc {
  std::int64_t m = 0, c = 0, kh = 0, kw = 0, m_pad = 0;  ///< outputs, inputs, kernel, outputs padded
  bool bf16 = false;                                    ///< bf16 pairs of taps (the products in bf16)
  Scratch w;  ///< [KH][KW][C][m_pad] floats, or with `bf16` [C][KH][ceil(KW / 2)][m_pad][2] bf16
};

/// Packs f32 dense weights of at most 4 input channels, with `bf16` (where `bf16_usable()`)
/// for bf16 products: then the runs need dilation 1 across. Raises `Errc::type_mismatch`,
/// `Errc::rank_mismatch`, `Errc::unsupported` (more input channels).
[[nodiscard]] PackedFewChannelsNhwc pack_few_channels_nhwc(const TensorView& w, bool bf16 = false);

/// A dense conv (group 1) with few input channels on f32 NHWC images (an image net's
/// first conv in an NHWC chain): x [N, H, W, C], or with `x_nchw` [N, C, H, W] (the image
/// as the model takes it: no transpose before the chain), y [N, OH, OW, M] (exact),
/// optional bias [M] and residual; any strides, dilations, pads; `p.post` applied last.
void conv_few_channels_nhwc(const Conv2dParams& p, const TensorView& x, const PackedFewChannelsNhwc& w,
                            const TensorView* bias, const TensorView& y, const TensorView* residual = nullptr,
                            bool x_nchw = false);

/// Dense (group 1) OIHW weights [M, C, KH, KW] as `conv_gemm_nhwc` reads them: the GEMM
/// B of K = (ky, kx, c) rows by M columns, in panels.
struct PackedConvNhwc {
  std::int64_t m = 0, c = 0, kh = 0, kw = 0;  ///< outputs, inputs, kernel
  bool bf16 = false;                          ///< bf16 VNNI panels (kernels/cpu/gemm/amx.hpp)
  Scratch panels;  ///< `packed_b_size(kh * kw * c, m)` floats, or `bf16_packed_b_size` bf16
};

/// Packs f32 dense weights, in bf16 when `bf16` is asked and `bf16_usable()` (the patches
/// are then converted as they are gathered; f32 sums). Raises `Errc::type_mismatch`,
/// `Errc::rank_mismatch`.
[[nodiscard]] PackedConvNhwc pack_conv_nhwc(const TensorView& w, bool bf16 = false);

/// A dense conv (group 1) on f32 NHWC images as a GEMM of the output pixels (rows) by
/// the packed weights, the rows' patches gathered block by block (a tap's input channels
/// are one contiguous run): x [N, H, W, C], y [N, OH, OW, M] (exact), optional bias [M]
/// and residual; any kernel, strides, dilations, pads; `p.post` applied last. Same
/// errors as `conv2d`.
void conv_gemm_nhwc(const Conv2dParams& p, const TensorView& x, const PackedConvNhwc& w, const TensorView* bias,
                    const TensorView& y, const TensorView* residual = nullptr);

/// Dense (group 1) OIHW weights [M, C, KH, KW] as `conv_taps_nhwc` reads them: per tap
/// (ky, kx) its [C, M] GEMM B, in panels, tap after tap.
struct PackedConvTaps {
  std::int64_t m = 0, c = 0, kh = 0, kw = 0;  ///< outputs, inputs, kernel
  Scratch panels;                             ///< kh * kw x `packed_b_size(c, m)` floats
};

/// Packs f32 dense weights per tap. Raises `Errc::type_mismatch`, `Errc::rank_mismatch`.
[[nodiscard]] PackedConvTaps pack_conv_taps_nhwc(const TensorView& w);

/// The share of (tap, output pixel) pairs whose tap reads inside an h x w image: below 1
/// where taps land in the padding (an atrous conv over a small map).
[[nodiscard]] double conv_taps_live_share(const Conv2dParams& p, std::int64_t h, std::int64_t w, std::int64_t kh,
                                          std::int64_t kw);

/// A dense conv (group 1) on f32 NHWC images as a sum over taps: each tap's product only
/// over the rectangle of output pixels for which it reads the image (their input pixels
/// times the tap's [C, M]), so the work is the live share of `conv_gemm_nhwc`'s. Same
/// operands and errors as `conv_gemm_nhwc`.
void conv_taps_nhwc(const Conv2dParams& p, const TensorView& x, const PackedConvTaps& w, const TensorView* bias,
                    const TensorView& y, const TensorView* residual = nullptr);

/// 3x3 OIHW weights as `conv_winograd_nhwc` reads them: Winograd's 16 transformed
/// matrices U_xi [C][M], each packed as a GEMM B.
struct PackedWinogradNhwc {
  std::int64_t m = 0, c = 0;                          ///< all outputs, inputs per group
  std::int64_t group = 1;                             ///< groups
  bool bf16 = false;                                  ///< U in bf16 VNNI panels (the products in bf16)
  static constexpr std::int64_t kh = 3, kw = 3;       ///< the kernel
  /// [16][group] x `packed_b_size(c, m / group)` floats, or with `bf16` x
  /// `bf16_packed_b_size(c, m / group)` bf16 values
  Scratch u;
};

/// Whether `conv_winograd_nhwc` runs a 3x3 conv with `p` from `c` input channels per group
/// (W's dim 1) to `m` outputs here: stride 1 (any dilation: the tiles of each residue class
/// of pixels), any group dividing `m`, on AVX-512 (AVX2) with all the input channels
/// (c * group) and `m` multiples of 16 (8).
[[nodiscard]] bool winograd_nhwc_fits(std::int64_t c, std::int64_t m, std::int64_t kh, std::int64_t kw,
                                      const Conv2dParams& p);

/// Whether a grouped conv that `winograd_nhwc_fits` runs faster by Winograd than by
/// `conv_grouped_nhwc` on this CPU: `groups` groups of `width` channels (the fewer of a
/// group's inputs and outputs), `image_pixels` outputs per image and channel (OH x OW; 0
/// when unknown), `batch` images (1 when unknown).
[[nodiscard]] bool grouped_winograd_pays(std::int64_t width, std::int64_t groups, std::int64_t image_pixels,
                                         std::int64_t batch);

/// Packs f32 3x3 weights of `group` groups. Raises `Errc::type_mismatch`,
/// `Errc::rank_mismatch`, `Errc::unsupported` (not 3x3), `Errc::bad_attribute` (a group
/// that does not divide W's outputs).
/// With `bf16` (where `bf16_usable()`), U_xi in bf16 panels: the 16 products run in bf16
/// with f32 sums, V_xi converted to bf16 after its transform (f32), the outputs' transform
/// in f32.
[[nodiscard]] PackedWinogradNhwc pack_winograd_nhwc(const TensorView& w, std::int64_t group = 1, bool bf16 = false);

/// A 3x3 stride-1 conv on f32 NHWC images by Winograd's F(2x2, 3x3) (see
/// `winograd_nhwc_fits`): per tile of 2x2 outputs the transforms run on vectors of
/// channels, and the 16 products are GEMMs of tiles (rows) by U_xi. Same operands and
/// errors as `conv_gemm_nhwc`; `Errc::unsupported` where it does not fit.
void conv_winograd_nhwc(const Conv2dParams& p, const TensorView& x, const PackedWinogradNhwc& w,
                        const TensorView* bias, const TensorView& y, const TensorView* residual = nullptr);

/// Resolved attributes of a 2-D ConvTranspose; the output dims (with output_padding and
/// output_shape resolved) come in `y`.
struct ConvTranspose2dParams {
  std::int64_t stride_h = 1;          ///< vertical stride, >= 1
  std::int64_t stride_w = 1;          ///< horizontal stride, >= 1
  std::int64_t pad_top = 0;           ///< rows cropped above, >= 0
  std::int64_t pad_left = 0;          ///< columns cropped left, >= 0
  std::int64_t pad_bottom = 0;        ///< rows cropped below, >= 0
  std::int64_t pad_right = 0;         ///< columns cropped right, >= 0
  std::int64_t dilation_h = 1;        ///< vertical dilation, >= 1
  std::int64_t dilation_w = 1;        ///< horizontal dilation, >= 1
  std::int64_t output_padding_h = 0;  ///< extra rows at the bottom, < stride or dilation
  std::int64_t output_padding_w = 0;  ///< extra columns at the right
  std::int64_t group = 1;             ///< groups
};

/// ONNX ConvTranspose on f32 NCHW with weights [C, Cout/group, KH, KW] and optional bias
/// [Cout]; `y` is [N, Cout, OH, OW] with
/// `OH = stride_h*(H-1) + output_padding_h + dilation_h*(KH-1) + 1 - pad_top - pad_bottom`.
/// Raises like `conv2d`.
void conv_transpose2d(const ConvTranspose2dParams& p, const TensorView& x, const TensorView& w, const TensorView* bias,
                      const TensorView& y);

}  // namespace ge::cpu
