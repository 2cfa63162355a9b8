// fuse_pointwise_depthwise: an NHWC 1x1 conv whose only reader is an NHWC depthwise conv
// (MobileNet's expand then depthwise) becomes one FusedPointwiseDepthwise node on large
// images, whose kernel expands rows into a ring and never writes the expanded image whole.
// fuse_depthwise_pointwise: an NHWC depthwise conv whose only reader is an NHWC 1x1 conv
// (the block's depthwise then projection, where the first fusion did not take the
// depthwise conv) becomes one FusedDepthwisePointwise node, whose kernel makes runs of
// depthwise rows and projects them on the same thread, never writing them whole.
#include <string>
#include <utility>
#include <vector>

#include "compile/pass_work.hpp"
#include "ge/compile/passes.hpp"
#include "ge/ops/registry.hpp"
#include "ops/window_attrs.hpp"

namespace ge {

using detail::attr_of;
using detail::WNode;
using detail::Work;

namespace {

ops::WindowAttrs window_2d(const WNode& n) {
  return ops::WindowAttrs::from(OpRegistry::global().find(n.op).with_defaults(n.attrs), 2);
}

// The expanded image of a pointwise conv, per image, from which fusing it with the
// depthwise conv that reads it pays: smaller ones stay in cache between the two convs
// anyway, and splitting their few rows over the threads would expand rows twice.
constexpr std::int64_t kFuseExpandedBytes = 1 << 20;
// Rows narrower than this make the fused kernel's per-row products too small to pay
// (EfficientNet's 19- and 10-pixel rows of 960 to 2688 channels ran at 40 GFLOP/s fused).
constexpr std::int64_t kFuseMinWidth = 32;

// An NHWC FusedConv with constant weights of `taps` kernel extent, or null.
const Tensor* nhwc_conv_weights(const Work& w, const WNode& n) {
  if (!n.alive || n.op != "FusedConv" || n.outputs.size() != 1 || n.inputs.size() < 2) return nullptr;
  const auto layout = attr_of(n, "layout");
  if (!layout || layout->as_string() != "NHWC") return nullptr;
  const Tensor* wt = w.constant(n.inputs[1]);
  return wt != nullptr && wt->dtype() == DataType::f32 && wt->dims().size() == 4 ? wt : nullptr;
}

// The pointwise conv's epilogue and quantization attributes, as the fused node's
// pointwise_* attributes (the names ops/fused_ops.cpp's schema gives them).
void copy_pointwise_attrs(const WNode& pw, Attributes& attrs) {
  for (const char* name : {"activation", "clip_min", "clip_max", "alpha", "beta", "x_scale", "x_zero_point", "y_scale",
                           "y_zero_point", "y_qmin", "y_qmax"})
    if (const auto a = pw.attrs.find(name); a != pw.attrs.end())
      attrs.insert_or_assign(std::string("pointwise_") + name, a->second);
}

// `keep` becomes the fused node `op` (`ins`, `attrs`); `gone`, the other conv, leaves.
void merge_into(WNode& keep, WNode& gone, const char* op, std::vector<ValueId> ins, Attributes attrs, PassStats& s) {
  keep.op = op;
  keep.inputs = std::move(ins);
  keep.attrs = std::move(attrs);
  gone.alive = false;
  s.nodes_removed += 2;
  ++s.nodes_added;
}

}  // namespace

namespace detail {
void fuse_pointwise_depthwise(Work& w, PassStats& s) {
  const Work::Readers readers = w.readers();
  for (const std::size_t i : w.order) {
    WNode& pw = w.nodes[i];
    const Tensor* w1 = nhwc_conv_weights(w, pw);
    if (w1 == nullptr || w1->dims()[2] != 1 || w1->dims()[3] != 1) continue;
    if (pw.inputs.size() != 3 || pw.inputs[2] == no_value) continue;  // a bias, and no residual
    const auto group = attr_of(pw, "group");
    if ((group && group->as_int() != 1) || !window_2d(pw).unit()) continue;
    const ValueId mid = pw.outputs[0];
    if (readers.count[mid] != 1 || w.is_output(mid)) continue;
    // A QDQ model's quantization of the depthwise conv's input between the two (a FakeQuant,
    // compile/qdq.cpp) goes into the pointwise conv's epilogue.
    WNode* fq = &w.nodes[readers.node[mid]];
    ValueId dw_in = mid;
    if (const auto ys = attr_of(pw, "y_scale"); fq->op == "FakeQuant" && fq->outputs.size() == 1 && !(ys && ys->as_float() > 0.0)) {
      dw_in = fq->outputs[0];
      if (readers.count[dw_in] != 1 || w.is_output(dw_in)) continue;
    } else {
      fq = nullptr;
    }
    WNode& dw = w.nodes[readers.node[dw_in]];
    const Tensor* w2 = nhwc_conv_weights(w, dw);
    if (w2 == nullptr || dw.inputs[0] != dw_in || dw.inputs.size() < 3 || dw.inputs[2] == no_value) continue;
    const auto& d2 = w2->dims();
    const auto dw_group = attr_of(dw, "group");
    if (d2[1] != 1 || d2[0] != w1->dims()[0] || !dw_group || dw_group->as_int() != d2[0] || d2[2] * d2[3] > 49 ||
        window_2d(dw).auto_pad != ops::AutoPad::notset)
      continue;
    const Shape& ms = w.desc(mid).shape;  // [N, H, W, E]
    if (!ms.rank_known() || ms.rank() != 4 || !ms[1].is_static() || !ms[2].is_static() ||
        ms[1].value() * ms[2].value() * d2[0] * 4 < kFuseExpandedBytes || ms[2].value() < kFuseMinWidth)
      continue;
    // X, W1, B1 of the pointwise conv; W2, B2, Z of the depthwise one.
    std::vector<ValueId> ins{pw.inputs[0], pw.inputs[1], pw.inputs[2], dw.inputs[1], dw.inputs[2]};
    if (dw.inputs.size() > 3 && dw.inputs[3] != no_value) ins.push_back(dw.inputs[3]);
    Attributes attrs = dw.attrs;
    attrs.insert_or_assign("kernel_shape", std::vector<std::int64_t>{d2[2], d2[3]});
    // (An int8 pointwise conv, compile/qdq.cpp, keeps its input's and output's quantization.)
    copy_pointwise_attrs(pw, attrs);
    if (fq != nullptr) {
      for (const auto& [from, to] : {std::pair{"scale", "pointwise_y_scale"}, std::pair{"zero_point", "pointwise_y_zero_point"},
                                     std::pair{"qmin", "pointwise_y_qmin"}, std::pair{"qmax", "pointwise_y_qmax"}})
        if (const auto a = attr_of(*fq, from)) attrs.insert_or_assign(to, *a);
      fq->alive = false;
      ++s.nodes_removed;
    }
    merge_into(dw, pw, "FusedPointwiseDepthwise", std::move(ins), std::move(attrs), s);
  }
}

void fuse_depthwise_pointwise(Work& w, PassStats& s) {
  const Work::Readers readers = w.readers();
  const auto quantized = [](const WNode& n) {
    const auto xs = attr_of(n, "x_scale");
    const auto ys = attr_of(n, "y_scale");
    return (xs && xs->as_float() > 0.0) || (ys && ys->as_float() > 0.0);
  };
  for (const std::size_t i : w.order) {
    WNode& dw = w.nodes[i];
    const Tensor* w1 = nhwc_conv_weights(w, dw);
    if (w1 == nullptr || quantized(dw) || dw.inputs.size() < 3 || dw.inputs[2] == no_value) continue;
    if (dw.inputs.size() > 3 && dw.inputs[3] != no_value) continue;  // (a residual on the depthwise conv)
    const auto& d1 = w1->dims();
    const auto group = attr_of(dw, "group");
    if (d1[1] != 1 || !group || group->as_int() != d1[0] || d1[0] < 2 || d1[2] * d1[3] > 49 ||
        window_2d(dw).auto_pad != ops::AutoPad::notset)
      continue;
    const ValueId mid = dw.outputs[0];
    if (readers.count[mid] != 1 || w.is_output(mid)) continue;
    WNode& pw = w.nodes[readers.node[mid]];
    const Tensor* w2 = nhwc_conv_weights(w, pw);
    if (w2 == nullptr || quantized(pw) || pw.inputs[0] != mid || w2->dims()[1] != d1[0] || w2->dims()[2] != 1 ||
        w2->dims()[3] != 1 || pw.inputs.size() < 3 || pw.inputs[2] == no_value)
      continue;
    if (pw.inputs.size() > 4 && pw.inputs[4] != no_value) continue;  // (a channel gate, fuse_channel_gate)
    const auto pw_group = attr_of(pw, "group");
    if ((pw_group && pw_group->as_int() != 1) || !window_2d(pw).unit()) continue;
    // X, W1, B1 of the depthwise conv; W2, B2, Z of the pointwise one.
    std::vector<ValueId> ins{dw.inputs[0], dw.inputs[1], dw.inputs[2], pw.inputs[1], pw.inputs[2]};
    if (pw.inputs.size() > 3 && pw.inputs[3] != no_value) ins.push_back(pw.inputs[3]);
    Attributes attrs = dw.attrs;
    attrs.insert_or_assign("kernel_shape", std::vector<std::int64_t>{d1[2], d1[3]});
    copy_pointwise_attrs(pw, attrs);  // (its epilogue's: quantized convs stay apart)
    merge_into(pw, dw, "FusedDepthwisePointwise", std::move(ins), std::move(attrs), s);
  }
}

}  // namespace detail

Graph fuse_pointwise_depthwise(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_pointwise_depthwise", detail::fuse_pointwise_depthwise);
}

Graph fuse_depthwise_pointwise(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_depthwise_pointwise", detail::fuse_depthwise_pointwise);
}

}  // namespace ge
