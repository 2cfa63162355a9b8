// fuse_channel_gate: a squeeze-and-excitation gate, Mul(x, g) with x an NHWC image
// [N, H, W, C] and g one factor per image and channel [N or 1, 1, 1, C], whose only reader
// is an NHWC 1x1 FusedConv (the block's projection) becomes that conv's gate input G: the
// conv scales its weights per image (or its input, where that is less work) and the
// gated image is never written. The gate cannot go into the conv that produces x: g is a
// function of x's mean over the whole image.
#include <cstddef>
#include <optional>
#include <utility>

#include "compile/pass_work.hpp"
#include "ge/compile/passes.hpp"
#include "ge/ops/registry.hpp"
#include "ops/window_attrs.hpp"

namespace ge {

using detail::attr_of;
using detail::WNode;
using detail::Work;

namespace {

// The NHWC FusedConv `n` is a pointwise product that can take a gate: f32, a 1x1 kernel
// of static shape, unit strides and dilations, no pads, group 1, not quantized, no gate yet.
bool takes_gate(const Work& w, const WNode& n) {
  if (!n.alive || n.op != "FusedConv" || n.outputs.size() != 1 || n.inputs.size() < 2) return false;
  if (n.inputs.size() > 4 && n.inputs[4] != no_value) return false;
  const auto layout = attr_of(n, "layout");
  const auto group = attr_of(n, "group");
  const auto x_scale = attr_of(n, "x_scale");
  if (!layout || layout->as_string() != "NHWC" || (group && group->as_int() != 1) || (x_scale && x_scale->as_float() > 0.0))
    return false;
  const Shape& wt = w.desc(n.inputs[1]).shape;
  if (w.desc(n.inputs[0]).dtype != DataType::f32 || !wt.rank_known() || wt.rank() != 4 || !wt.is_static() ||
      wt[2].value() != 1 || wt[3].value() != 1)
    return false;
  return ops::WindowAttrs::from(OpRegistry::global().find(n.op).with_defaults(n.attrs), 2).unit();
}

// For Mul inputs (x, g): g gates x's channels without widening it. x [N, H, W, C] f32
// with C static; g [N' , 1, 1, C] f32 with N' a static 1, or equal to N (both static,
// or both the same range: a run whose two differ is refused when its shapes are known).
bool gates(const Work& w, ValueId x, ValueId g, const Shape& out) {
  const TensorDesc& xd = w.desc(x);
  const TensorDesc& gd = w.desc(g);
  if (xd.dtype != DataType::f32 || gd.dtype != DataType::f32) return false;
  const Shape& xs = xd.shape;
  const Shape& gs = gd.shape;
  if (!xs.rank_known() || !gs.rank_known() || xs.rank() != 4 || gs.rank() != 4 || !out.rank_known() || out != xs)
    return false;
  const Dim one(1);
  if (!xs[3].is_static() || gs[3] != xs[3] || gs[1] != one || gs[2] != one) return false;
  return gs[0] == one || gs[0] == xs[0];
}

}  // namespace

namespace detail {
void fuse_channel_gate(Work& w, PassStats& s) {
  const Work::Readers readers = w.readers();
  for (const std::size_t i : w.order) {
    WNode& mul = w.nodes[i];
    if (!mul.alive || mul.op != "Mul" || mul.inputs.size() != 2 || mul.outputs.size() != 1) continue;
    const ValueId y = mul.outputs[0];
    if (readers.count[y] != 1 || w.is_output(y)) continue;
    WNode& conv = w.nodes[readers.node[y]];
    if (!takes_gate(w, conv) || conv.inputs[0] != y) continue;
    const Shape& out = w.desc(y).shape;
    std::optional<std::pair<ValueId, ValueId>> xg;
    if (gates(w, mul.inputs[0], mul.inputs[1], out)) xg = std::pair{mul.inputs[0], mul.inputs[1]};
    else if (gates(w, mul.inputs[1], mul.inputs[0], out)) xg = std::pair{mul.inputs[1], mul.inputs[0]};
    if (!xg) continue;
    conv.inputs.resize(5, no_value);
    conv.inputs[0] = xg->first;
    conv.inputs[4] = xg->second;
    mul.alive = false;
    ++s.nodes_removed;
  }
}
}  // namespace detail

Graph fuse_channel_gate(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_channel_gate", detail::fuse_channel_gate);
}

}  // namespace ge
