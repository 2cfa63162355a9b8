#pragma once
/// \file
/// Graph passes: each takes a valid `ge::Graph` and returns a new valid graph that
/// computes the same outputs, and says what it did. The graph inputs (order, names,
/// types, shapes) and the outputs (order, names) are kept; a value that survives keeps
/// its name; new constants get derived, unique names.
///
/// ```
/// ge::Graph g = ge::onnx::load("resnet50.onnx");   // or built with ge::GraphBuilder
/// std::vector<ge::PassStats> stats;
/// ge::Graph fast = ge::optimize(g, &stats);   // no BatchNormalization, no Relu left
/// for (const auto& s : stats) std::printf("%s: -%zu +%zu nodes\n", s.pass.c_str(), s.nodes_removed, s.nodes_added);
/// ```
///
/// Every pass first validates its input (`Graph::validate`) and throws that `ge::Error`
/// for a graph that is not valid. See docs/passes.md for each pass's conditions.

#include <cstddef>
#include <string>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/graph/graph.hpp"

namespace ge {

/// What a pass did.
struct PassStats {
  std::string pass;                  ///< the pass's name, e.g. `fold_batch_norm`
  std::size_t nodes_removed = 0;     ///< nodes of the input graph that are gone
  std::size_t nodes_added = 0;       ///< nodes that are new (a fused node)
  std::size_t constants_added = 0;   ///< constants that are new (folded values, folded weights)
  std::size_t constants_removed = 0; ///< constants of the input graph that are gone
};

/// Evaluates now every node whose (given) inputs are all constants, on the CPU kernels,
/// and makes its outputs constants of the same names; also makes the output of a `Shape`
/// node a constant when the dims it returns (all, or `start`..`end`) are static. Leaves a node alone when its
/// outputs would take more than 64 MiB (or have no upper bound), when no CPU kernel fits
/// it, or when its kernel refuses the data.
[[nodiscard]] GE_API Graph fold_constants(const Graph& g, PassStats* stats = nullptr);

/// Drops the nodes and constants that no graph output depends on. Graph inputs stay,
/// read or not.
[[nodiscard]] GE_API Graph remove_dead_code(const Graph& g, PassStats* stats = nullptr);

/// Drops the outer taps of a Conv that only ever read its zero padding: a Conv with
/// constant weights, explicit pads (auto_pad NOTSET) and bounded spatial input dims whose
/// first or last taps along an axis land outside the image for every output index (a
/// dilated conv over a small map: DeepLab's rate-36 3x3 conv on 14x14 is a 1x1 conv)
/// reads a new constant `<conv>.weight.trimmed` holding the live taps, with the kernel
/// shape, pads (never below 0) and, where one tap is left, the dilation (1) to match.
/// The outputs are the same: the dropped taps only multiplied zeros.
[[nodiscard]] GE_API Graph trim_conv_taps(const Graph& g, PassStats* stats = nullptr);

/// Folds an inference BatchNormalization into the Conv before it: Conv (f32, constant
/// W, optional constant B) whose output only the BatchNormalization reads (and is no
/// graph output), BatchNormalization (training_mode 0) with constant f32 scale, B, mean
/// and var. The Conv then reads new constants `<conv>.weight.bn_folded` and
/// `<conv>.bias.bn_folded`: `W' = W * s`, `B' = (B - mean) * s + bn_B` per output
/// channel, `s = scale / sqrt(var + epsilon)`, and produces the BatchNormalization's
/// output value. The old weights stay as constants (see `remove_dead_code`).
[[nodiscard]] GE_API Graph fold_batch_norm(const Graph& g, PassStats* stats = nullptr);

/// A 3-D Conv one frame deep (kernel depth 1, depth stride 1, no depth pads, constant
/// f32 weights, static C, D, H and W) on x [N, C, D, H, W] becomes a 2-D Conv of the
/// frames [N * D, C, H, W]: a `Transpose` (`<x>.to_nchw_frames`) and a `Reshape` before,
/// a `Reshape` and a `Transpose` (`<y>.to_ncdhw`) after, so that the 2-D kernels, the
/// layout pass and the fusions take it. Elementwise ops (Relu, Sigmoid, LeakyRelu,
/// HardSigmoid, HardSwish, Clip, Tanh, Elu; Add, Mul, Sub of equal shapes) whose inputs
/// all have frames run on frames too; a volume no other node reads loses its way back.
/// A 3-D Conv one pixel wide (k x 1 x 1, no spatial pads or strides) becomes a 2-D Conv
/// of the temporal view [N, C, D, H * W] likewise, and a one-frame-deep conv with a depth
/// stride reads frames picked by a `Slice` of that view (docs/passes.md).
[[nodiscard]] GE_API Graph conv_frames(const Graph& g, PassStats* stats = nullptr);

/// Fuses into one `FusedConv` node (named as the Conv): Conv [+ Add of a residual of the
/// same shape] [+ Relu, Clip with constant bounds, Sigmoid, HardSigmoid, HardSwish,
/// LeakyRelu, or the SiLU / HardSwish gates `Mul(v, Sigmoid(v))`], with at least one of the Add and
/// the activation. Each intermediate value must have that one reader and be no graph
/// output; the Conv must be f32 with a 1-D or 2-D window (a CPU kernel fits it); the
/// residual must have the Conv output's shape for sure (equal static dims, or equal
/// ranges that exclude 1, so that the Add cannot broadcast). The fused node produces
/// the last fused value (the activation's output, or the Add's).
[[nodiscard]] GE_API Graph fuse_activations(const Graph& g, PassStats* stats = nullptr);

/// Fuses the LayerNormalization exporters decompose below opset 17 into one
/// `LayerNormalization` (axis -1): `m = ReduceMean(x)`, `d = x - m`, `Pow(d, 2)` (or
/// `d * d`), its ReduceMean `v`, `d / Sqrt(v + eps)`, then optionally `* Scale` and `+ B`
/// (f32 constants of one value per element of the last dim). Both means over the last
/// dim only with keepdims, `x` f32 with a static last dim, the exponent 2, eps a
/// constant >= 0; every intermediate value read by the pattern only. Without the affine
/// part Scale is a new constant of ones.
[[nodiscard]] GE_API Graph fuse_layer_norm(const Graph& g, PassStats* stats = nullptr);

/// Fuses the exact GELU exporters decompose into one `Gelu`: `x / sqrt(2)` (or
/// `x * (1 / sqrt(2))`), `Erf`, `+ 1`, then `x * that * 0.5` in either order of the two
/// products; constants within 1e-4 relative of those values; every intermediate value
/// read by the pattern only.
[[nodiscard]] GE_API Graph fuse_gelu(const Graph& g, PassStats* stats = nullptr);

/// Fuses into one `FusedMatMul` (named as the MatMul): a MatMul of an f32 A by a constant
/// f32 2-D B, [+ Add of a constant bias of one value per column] [+ Relu or Gelu]
/// [+ Add of a residual (not with an activation)], with at least one of them; each
/// intermediate value read by the next fused node only and no graph output. The
/// kernel packs B once and applies bias, Relu and a residual of the output's dims in
/// the product's epilogue.
[[nodiscard]] GE_API Graph fuse_matmul_epilogue(const Graph& g, PassStats* stats = nullptr);

/// Fuses scaled dot-product attention into one `FusedAttention` (named as the second
/// MatMul): `MatMul(Q', K^T)` [times or over a constant] [+ a mask], `Softmax` over the
/// last axis, `MatMul(P, V')` on rank-3 or rank-4 f32 values, where Q' may be Q times or
/// over a constant scalar, K^T is a Transpose of K, and Q, V and the output may each come
/// through the Transpose that moves sequences or heads ([1,0,2] from or to [seq, batch,
/// dim] as torch's multi-head attention exports it; [0,2,1,3] from or to [batch, seq,
/// heads, dim]): the kernel reads and writes those layouts in place, and keeps one score
/// block at a time. The mask is any f32 value the Add does not widen the scores by, or
/// Swin's constant per window added in a view [B/W, W, H, S, S] of the batch (then
/// summed with a constant mask before it into one [W, H, S, S] mask that batch b reads at
/// b mod W). First, Identity and Dropout outside training or with a ratio of 0 are passed
/// by, and a Gather of a scalar or a Split into size-1 parts + Squeeze on axis 0 of a
/// Transpose (unbinding a packed QKV projection) is moved before that Transpose. Every
/// intermediate value is read by the pattern only.
[[nodiscard]] GE_API Graph fuse_attention(const Graph& g, PassStats* stats = nullptr);

/// Runs conv chains on NHWC images (MobileNet's inverted residual blocks, ResNet's
/// bottlenecks): every f32 Conv or FusedConv with constant weights and explicit pads (no
/// auto_pad) that is a 1x1 conv (stride 1, no pads, one group), a depthwise conv (group =
/// input channels = output channels, at most 49 taps), a dense conv over at most 4 input
/// channels (a first conv) or, with `dense_chains`, another one-group conv, joined to the
/// others through its image (input 0) or residual (input 3), in chains that hold a
/// depthwise conv or (with `dense_chains`) at least three 1x1 convs and 4 convs per end,
/// becomes a `FusedConv` with `layout` NHWC reading and writing [N, H, W, C] values (named
/// `<value>.nhwc`). A `Transpose` brings each image or residual from outside a chain in
/// (`<value>.to_nhwc`) and gives each chain value that another node or the graph's outputs
/// read back as the NCHW value (`<value>.to_nchw`); one read only by GlobalAveragePools
/// is pooled on NHWC instead (ReduceMean over H and W, Reshape to [N, C, 1, 1]). A 2-D
/// f32 MaxPool without Indices, or AveragePool, joins a chain too (`layout` NHWC).
/// `compile` turns `dense_chains` off where convs run in bf16 on AMX (the NCHW convs run
/// on AMX tiles; with AVX512-BF16 alone the NHWC dense kernels run bf16 and it stays on).
[[nodiscard]] GE_API Graph layout_nhwc(const Graph& g, PassStats* stats = nullptr, bool dense_chains = true);

/// Quantized (QDQ) models, first of all passes: a `DequantizeLinear` fed by a `QuantizeLinear`
/// of the same constant per-tensor scale and zero point becomes one `FakeQuant` (the pair's
/// round trip, f32 in and out); the `QuantizeLinear` goes when nothing else reads it.
[[nodiscard]] GE_API Graph fold_qdq_pairs(const Graph& g, PassStats* stats = nullptr);

/// Quantized (QDQ) models, after `layout_nhwc`, where the CPU has int8 kernels
/// (AVX512-VNNI): an NHWC `FusedConv` of one group, a `MatMul` or `FusedMatMul`, or a
/// `Gemm` (alpha and beta 1, A not transposed; made a `FusedMatMul`) by constant weights
/// that lie on a per-channel int8 grid, reading a `FakeQuant` over 256 levels, reads that
/// FakeQuant's input and carries its scale and zero point (`x_scale`, `x_zero_point`): its
/// kernel runs in int8 with the model's values. Such a conv whose one reader is a
/// FakeQuant (a depthwise conv's quantized input) takes it into its epilogue (`y_scale`,
/// `y_zero_point`, `y_qmin`, `y_qmax`) when its activation is none, Relu or Clip.
/// Elsewhere the graph comes back unchanged (the FakeQuants run in f32).
[[nodiscard]] GE_API Graph quantize_products(const Graph& g, PassStats* stats = nullptr);

/// An NHWC pointwise FusedConv (1x1, stride 1, no pads, a bias, no residual) whose output only a
/// depthwise NHWC FusedConv with a bias reads, both with constant weights, becomes one
/// `FusedPointwiseDepthwise` node (an inverted-residual block's first two convs), whose
/// kernel never stores the expanded image: where that image is at least 1 MiB per image
/// (smaller ones stay in cache between the two convs anyway) and its rows at least 32
/// pixels wide (narrower ones make the kernel's per-row products too small to pay).
[[nodiscard]] GE_API Graph fuse_pointwise_depthwise(const Graph& g, PassStats* stats = nullptr);

/// An NHWC depthwise FusedConv (constant weights, a bias, no residual, at most 49 taps,
/// not quantized) whose output only an NHWC pointwise FusedConv with constant weights and
/// a bias reads (1x1, stride 1, no pads, group 1, no gate, not quantized; its residual
/// kept) becomes one `FusedDepthwisePointwise` node (an inverted-residual block's last two
/// convs), whose kernel makes runs of depthwise rows and projects them on the thread that
/// made them, never storing the depthwise output whole. Other graphs come back unchanged.
[[nodiscard]] GE_API Graph fuse_depthwise_pointwise(const Graph& g, PassStats* stats = nullptr);

/// A squeeze-and-excitation gate, `Mul(x, g)` of an f32 NHWC image x [N, H, W, C] by one
/// factor per image and channel g [N or 1, 1, 1, C], whose only reader is an NHWC 1x1
/// FusedConv (unit strides, no pads, group 1, not quantized), becomes that conv's gate
/// input G (its input 4): the conv scales its packed weights per image (or its input
/// rows, where the image has fewer pixels than the conv has outputs) and the gated image
/// is never written. Other graphs come back unchanged.
[[nodiscard]] GE_API Graph fuse_channel_gate(const Graph& g, PassStats* stats = nullptr);

/// A Transpose whose input another Transpose makes reads that one's input with the two
/// permutations composed; where they undo each other it goes, its readers reading the
/// first one's input (unless its output is a graph output). The layout pass leaves such
/// pairs where a model permutes its own tensors next to an NHWC chain (ConvNeXt's NCHW ->
/// NHWC Permute after a depthwise conv the pass ran on NHWC). The first Transpose stays
/// for its other readers (see `remove_dead_code`). A Transpose from NCHW to NHWC read
/// only as the image of NHWC FusedConvs over at most 4 input channels (an image net's
/// first conv) goes too: they read the image as given (attribute x_layout NCHW).
[[nodiscard]] GE_API Graph fold_transposes(const Graph& g, PassStats* stats = nullptr);

/// f16 and bf16 as storage types at the graph's edges: when a node other than a `Cast`
/// reads or produces an f16/bf16 value (ge's CPU kernels compute in f32), every value
/// between the graph's inputs and outputs becomes f32. A half-float graph input keeps its
/// type and gets one `Cast` to f32 (`<input>.to_f32`, producing `<input>.f32`) that its
/// readers read; a half-float graph output keeps its name and type, produced by a `Cast`
/// (`<output>.to_f16` / `.to_bf16`) from its f32 value (`<output>.f32`) unless a `Cast`
/// already produces it; half constants are widened under their names; `to`/`dtype`
/// attributes naming f16/bf16 and half tensor attributes become f32. Other graphs come
/// back unchanged. `compile` runs it first, whatever `CompileSettings::optimize` says,
/// and says so in the model's `config().warnings` (logged at warn level). Throws `Errc::unsupported` when the widened graph
/// does not validate (an op whose types the rules above do not reach).
[[nodiscard]] GE_API Graph widen_half_floats(const Graph& g, PassStats* stats = nullptr);

/// Every pass in order: `fold_qdq_pairs`, `fold_constants`, `trim_conv_taps`, `fold_batch_norm`,
/// `fuse_layer_norm`, `fuse_gelu`, `fuse_attention`, `conv_frames`, `fuse_activations`, `fuse_matmul_epilogue`,
/// `layout_nhwc`, `quantize_products`, `fuse_pointwise_depthwise` and `fuse_depthwise_pointwise`
/// (neither when `compile` runs convs in bf16 on AMX), `fuse_channel_gate`, `fold_transposes`,
/// `remove_dead_code`.
/// `stats`, when given, gets one entry per pass (appended).
[[nodiscard]] GE_API Graph optimize(const Graph& g, std::vector<PassStats>* stats = nullptr);

}  // namespace ge
