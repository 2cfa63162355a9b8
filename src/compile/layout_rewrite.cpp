// The rewrites of the layout pass's members that are not convs (see layout_rewrite.hpp).
#include "compile/layout_rewrite.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace ge::detail::layout_ops {

// The axes a Reduce* node reduces (its attribute, or from opset 18 its constant second
// input), or nullopt where they are not known now.
namespace {

std::optional<std::vector<std::int64_t>> reduce_axes(const Work& w, const WNode& n) {
  if (n.inputs.size() > 1 && n.inputs[1] != no_value) {
    const Tensor* t = w.constant(n.inputs[1]);
    if (t == nullptr || t->dtype() != DataType::i64) return std::nullopt;
    return t->to_int64s();
  }
  const auto a = attr_of(n, "axes");
  return a && a->kind() == AttrKind::integers ? a->as_ints() : std::vector<std::int64_t>{};
}

}  // namespace

// A mean (max, min, sum) over exactly H and W of an image (`x.mean([2, 3])` in MNASNet and
// others' heads): a global pool, kept or not kept dims.
bool reduces_h_and_w(const Work& w, const WNode& n) {
  const auto axes = reduce_axes(w, n);
  if (!axes || axes->size() != 2) return false;
  std::vector<std::int64_t> a = *axes;
  for (std::int64_t& x : a) x = x < 0 ? x + 4 : x;
  std::sort(a.begin(), a.end());
  return a == std::vector<std::int64_t>{2, 3};
}

// An elementwise member: its per-channel operands take their NHWC broadcast form (a
// Reshape, one per operand however many members read it), its output the NHWC twin.
void rewrite_elementwise(Work& w, Rewriter& rw, const std::vector<std::size_t>& images, std::size_t i,
                         const std::unordered_map<ValueId, ValueId>& nhwc,
                         std::unordered_map<ValueId, ValueId>& per_channel_nhwc) {
  for (std::size_t k = 0; k < w.nodes[i].inputs.size(); ++k) {
    const ValueId v = w.nodes[i].inputs[k];  // (a push_back below moves the nodes)
    if (v == no_value || std::find(images.begin(), images.end(), k) != images.end()) continue;
    const Shape& sh = w.desc(v).shape;
    const std::size_t rank = sh.rank();
    if (rank < 3 || (sh[rank - 3].is_static() && sh[rank - 3].value() == 1)) continue;  // no channel axis
    if (!per_channel_nhwc.contains(v)) {
      // [a, C, 1, 1] -> [a, 1, 1, C]; [C, 1, 1] -> [1, 1, C]
      const std::string name = w.values[v].name;
      const ValueId shape =
          rank == 4 ? w.add_constant(name + ".nhwc_shape", Tensor::from<std::int64_t>({4}, {0, 1, 1, -1}))
                    : w.add_constant(name + ".nhwc_shape", Tensor::from<std::int64_t>({3}, {1, 1, -1}));
      TensorDesc d = w.desc(v);
      d.shape = rank == 4 ? Shape(std::vector<Dim>{sh[0], Dim(1), Dim(1), sh[1]})
                          : Shape(std::vector<Dim>{Dim(1), Dim(1), sh[0]});
      const ValueId t = rw.new_value(name + ".nhwc", d);
      w.nodes.push_back({rw.node_name(name + ".nhwc"), "Reshape", {v, shape}, {t}, Attributes{}, true});
      ++rw.s.nodes_added;
      per_channel_nhwc[v] = t;
    }
    w.nodes[i].inputs[k] = per_channel_nhwc.at(v);
  }
  w.nodes[i].outputs[0] = nhwc.at(w.nodes[i].outputs[0]);
}

// A Reduce* member over H and W (`w.nodes[i]`, reading an NHWC image): over NHWC's axes 1
// and 2; without kept dims its [N, C] output is the same, with them [N, 1, 1, C] then a
// Reshape to the node's [N, C, 1, 1].
void rewrite_spatial_reduce(Work& w, Rewriter& rw, std::size_t i) {
  const std::string name = w.nodes[i].name;
  if (w.nodes[i].inputs.size() > 1 && w.nodes[i].inputs[1] != no_value) {
    const ValueId axes = w.add_constant(name + ".nhwc_axes", Tensor::from<std::int64_t>({2}, {1, 2}));
    w.nodes[i].inputs[1] = axes;
  }
  WNode& n = w.nodes[i];
  if (n.inputs.size() < 2 || n.inputs[1] == no_value) {
    n.attrs.insert_or_assign("axes", std::vector<std::int64_t>{1, 2});
  }
  const auto keep = attr_of(n, "keepdims");
  if (keep && keep->as_int() == 0) return;
  TensorDesc d = w.desc(n.inputs[0]);
  d.shape = Shape(std::vector<Dim>{d.shape[0], Dim(1), Dim(1), d.shape[3]});
  const ValueId reduced = rw.new_value(name + ".nhwc", d);
  const ValueId shape = w.add_constant(name + ".shape", Tensor::from<std::int64_t>({4}, {0, -1, 1, 1}));
  WNode& r = w.nodes[i];
  const ValueId y = r.outputs[0];
  r.outputs[0] = reduced;
  w.nodes.push_back({rw.node_name(name + ".nchw"), "Reshape", {reduced, shape}, {y}, Attributes{}, true});
  ++rw.s.nodes_added;
}

// A global pool member (`w.nodes[i]`, reading an NHWC image) as a reduction over H and W,
// then a Reshape to the pool's [N, C, 1, 1] output.
void rewrite_global_pool(Work& w, Rewriter& rw, std::size_t i) {
  if (!w.nodes[i].op.starts_with("Global")) return rewrite_spatial_reduce(w, rw, i);
  const WNode& n = w.nodes[i];  // [N, H, W, C] -> [N, 1, 1, C]
  TensorDesc d = w.desc(n.inputs[0]);
  d.shape = Shape(std::vector<Dim>{d.shape[0], Dim(1), Dim(1), d.shape[3]});
  const std::string name = n.name;
  const ValueId reduced = rw.new_value(name + ".nhwc", d);
  const std::string reduce = n.op == "GlobalMaxPool" ? "ReduceMax" : "ReduceMean";
  const ValueId x = n.inputs[0];
  const ValueId shape = w.add_constant(name + ".shape", Tensor::from<std::int64_t>({4}, {0, -1, 1, 1}));
  w.nodes.push_back({rw.node_name(name + ".nhwc"), reduce, {x}, {reduced},
                     Attributes{{"axes", std::vector<std::int64_t>{1, 2}}, {"keepdims", std::int64_t{1}}}, true});
  WNode& pool = w.nodes[i];  // push_back may have moved it
  pool.op = "Reshape";
  pool.inputs = {reduced, shape};
  pool.attrs = Attributes{};
  ++rw.s.nodes_added;
}

// A Slice member: its axes (given, or 0, 1, ... by default) remapped to NHWC's.
void rewrite_slice(Work& w, std::size_t i, const std::unordered_map<ValueId, ValueId>& nhwc) {
  const WNode& n = w.nodes[i];
  const std::int64_t count = w.constant(n.inputs[1])->element_count();
  std::vector<std::int64_t> axes(static_cast<std::size_t>(count));
  if (n.inputs.size() > 3 && n.inputs[3] != no_value) {
    axes = w.constant(n.inputs[3])->to_int64s();
  } else {
    std::iota(axes.begin(), axes.end(), std::int64_t{0});
  }
  for (std::int64_t& a : axes) a = kNhwcAxis[a < 0 ? a + 4 : a];
  // (in the indices' type: starts, ends, axes and steps share one, i32 or i64)
  const bool i32 = w.constant(n.inputs[1])->dtype() == DataType::i32;
  std::vector<std::int32_t> narrow(axes.begin(), axes.end());
  const ValueId id = w.add_constant(n.name + ".nhwc_axes", i32 ? Tensor::from<std::int32_t>({count}, narrow)
                                                                : Tensor::from<std::int64_t>({count}, axes));
  WNode& m = w.nodes[i];
  if (m.inputs.size() < 4) m.inputs.resize(4, no_value);
  m.inputs[3] = id;
  m.outputs[0] = nhwc.at(m.outputs[0]);
}

// A channel shuffle member (its three nodes) on NHWC: [N, H, W, C] -> [N, H, W, g, C / g]
// -> (0, 1, 2, 4, 3) -> [N, H, W, C], the last Reshape's output the NHWC twin.
void rewrite_shuffle(Work& w, Rewriter& rw, const Shuffle& r, std::size_t i,
                     const std::unordered_map<ValueId, ValueId>& nhwc) {
  const std::string name = w.nodes[i].name;
  const ValueId y = w.nodes[r.tail].outputs[0];
  const TensorDesc x = w.desc(w.nodes[i].inputs[0]);  // (already the NHWC twin: [N, H, W, C])
  const std::int64_t per = x.shape[3].value() / r.groups;
  const ValueId split = w.add_constant(name + ".nhwc_shape", Tensor::from<std::int64_t>({5}, {0, 0, 0, r.groups, per}));
  const ValueId merge = w.add_constant(name + ".nhwc_merge", Tensor::from<std::int64_t>({4}, {0, 0, 0, -1}));
  TensorDesc g = x, t = x;
  g.shape = Shape(std::vector<Dim>{x.shape[0], x.shape[1], x.shape[2], Dim(r.groups), Dim(per)});
  t.shape = Shape(std::vector<Dim>{x.shape[0], x.shape[1], x.shape[2], Dim(per), Dim(r.groups)});
  const ValueId gv = rw.new_value(name + ".nhwc", g), tv = rw.new_value(w.nodes[r.mid].name + ".nhwc", t);
  WNode& head = w.nodes[i];
  head.inputs[1] = split;
  head.outputs[0] = gv;
  WNode& mid = w.nodes[r.mid];
  mid.inputs[0] = gv;
  mid.outputs[0] = tv;
  mid.attrs.insert_or_assign("perm", std::vector<std::int64_t>{0, 1, 2, 4, 3});
  WNode& tail = w.nodes[r.tail];
  tail.inputs = {tv, merge};
  tail.outputs[0] = nhwc.at(y);
}

// A Resize of an image that leaves N and C alone (LRASPP's and DeepLabV3's upsampling
// between convs): constant scales or sizes (and roi, if any), no `axes` (opset 18) and no
// antialias. The CPU kernel resizes channels-last images with vectors of channels.
bool resizes_image(const Work& w, const WNode& n) {
  // (An input of one pixel too: DeepLabV3's pooled features, spread to the image by a
  // Resize, come into NHWC by a Reshape.)
  const Shape& in = w.desc(n.inputs[0]).shape;
  if (n.inputs.size() < 3 || !in.rank_known() || in.rank() != 4) return false;
  if (attr_of(n, "axes")) return false;
  if (const auto aa = attr_of(n, "antialias"); aa && aa->as_int() != 0) return false;
  for (std::size_t k = 1; k < n.inputs.size(); ++k) {
    if (n.inputs[k] == no_value) continue;
    const Tensor* t = w.constant(n.inputs[k]);  // roi f32[8], scales f32[4], sizes i64[4], or empty
    if (t == nullptr || k > 3 || t->dtype() != (k == 3 ? DataType::i64 : DataType::f32) ||
        (t->element_count() != 0 && t->element_count() != (k == 1 ? 8 : 4)))
      return false;
  }
  const Shape& x = w.desc(n.inputs[0]).shape;
  const Shape& y = w.desc(n.outputs[0]).shape;
  const auto same = [](const Dim& a, const Dim& b) { return a.is_static() && b.is_static() && a.value() == b.value(); };
  if (same(x[0], y[0]) && same(x[1], y[1])) return true;
  // Scales of 1 on N and C keep them, whatever they are (a free batch).
  const Tensor* scales = n.inputs.size() > 2 && n.inputs[2] != no_value ? w.constant(n.inputs[2]) : nullptr;
  if (scales == nullptr || scales->element_count() != 4 || !same(x[1], y[1])) return false;
  const std::vector<double> s = scales->to_doubles();
  return s[0] == 1.0 && s[1] == 1.0;
}

// A Resize member: its roi, scales and sizes (inputs 1 to 3, where given and not empty) as
// NHWC wants them, [N, C, H, W] entries (roi: starts then ends) -> [N, H, W, C].
void rewrite_resize(Work& w, std::size_t i, const NhwcTwins& nhwc) {
  for (std::size_t k = 1; k < std::min<std::size_t>(4, w.nodes[i].inputs.size()); ++k) {
    const ValueId v = w.nodes[i].inputs[k];
    const Tensor* t = v == no_value ? nullptr : w.constant(v);
    if (t == nullptr || t->element_count() == 0) continue;
    const std::vector<double> a = t->to_doubles();
    std::vector<double> b(a.size());
    for (std::size_t h = 0; h < a.size(); h += 4) {
      b[h] = a[h], b[h + 1] = a[h + 2], b[h + 2] = a[h + 3], b[h + 3] = a[h + 1];
    }
    std::vector<std::int64_t> dims = t->dims();
    Tensor out = t->dtype() == DataType::i64
                     ? Tensor::from<std::int64_t>(dims, std::vector<std::int64_t>(b.begin(), b.end()))
                     : Tensor::from<float>(dims, std::vector<float>(b.begin(), b.end()));
    const ValueId id = w.add_constant(w.values[v].name + ".nhwc", std::move(out));
    w.nodes[i].inputs[k] = id;
  }
  w.nodes[i].outputs[0] = nhwc.at(w.nodes[i].outputs[0]);
}

namespace {

// The static C, H and W of a 4-D value [N, C, H, W] whose H and W are not both 1 (an
// image), or nullopt.
std::optional<std::array<std::int64_t, 3>> image_chw(const TensorDesc& d) {
  const Shape& x = d.shape;
  if (!x.rank_known() || x.rank() != 4 || !x[1].is_static() || !x[2].is_static() || !x[3].is_static()) return std::nullopt;
  if (x[2].value() == 1 && x[3].value() == 1) return std::nullopt;
  return std::array<std::int64_t, 3>{x[1].value(), x[2].value(), x[3].value()};
}

bool plain_reshape(const WNode& n) {
  const auto zero = attr_of(n, "allowzero");
  return n.alive && n.op == "Reshape" && n.inputs.size() == 2 && n.outputs.size() == 1 && !(zero && zero->as_int() != 0);
}

bool swaps_1_2(const WNode& n) {
  const auto perm = attr_of(n, "perm");
  return n.alive && n.op == "Transpose" && n.inputs.size() == 1 && n.outputs.size() == 1 && perm &&
         perm->kind() == AttrKind::integers && perm->as_ints() == std::vector<std::int64_t>{0, 2, 1, 3};
}

}  // namespace

// Reshape [A, C, H, W] -> [A', C, H', W'] with H * W = H' * W' keeps each pixel's index
// A * H * W + h * W + w; Reshape [A, C, H, W] -> [B, D, C, H * W] then Transpose (0, 2, 1, 3)
// gives [B, C, D, H * W] whose NHWC floats are (b, d, hw, c) = (a, h, w, c); the reverse
// likewise. The Reshapes leave the floats in order, so these hold for any such nodes.
std::optional<Regroup> regroup_at(const Work& w, const Work::Readers& readers, std::size_t i) {
  const WNode& n = w.nodes[i];
  if (n.inputs.empty() || n.inputs[0] == no_value || n.outputs.size() != 1) return std::nullopt;
  const auto x = image_chw(w.desc(n.inputs[0]));
  if (!x) return std::nullopt;
  const auto only = [&](ValueId v) { return readers.count[v] == 1 && !w.is_output(v) ? readers.node[v] : SIZE_MAX; };
  const Shape& y = w.desc(n.outputs[0]).shape;
  if (plain_reshape(n)) {
    const auto out = image_chw(w.desc(n.outputs[0]));
    if (out && (*out)[0] == (*x)[0] && (*out)[1] * (*out)[2] == (*x)[1] * (*x)[2])
      return Regroup{SIZE_MAX, {-1, (*out)[1], (*out)[2], (*out)[0]}};
    // [A, C, H, W] -> [B, D, C, H * W] -> Transpose (0, 2, 1, 3)
    const std::size_t t = only(n.outputs[0]);
    if (!y.rank_known() || y.rank() != 4 || !y[1].is_static() || !y[2].is_static() || !y[3].is_static() ||
        t == SIZE_MAX || !swaps_1_2(w.nodes[t]) || y[2].value() != (*x)[0] || y[3].value() != (*x)[1] * (*x)[2] ||
        !image_chw(w.desc(w.nodes[t].outputs[0])))
      return std::nullopt;
    return Regroup{t, {-1, y[1].value(), y[3].value(), (*x)[0]}};
  }
  // Transpose (0, 2, 1, 3) of [B, M, D, P] -> Reshape [A, M, H, W], H * W = P
  if (!swaps_1_2(n)) return std::nullopt;
  const std::size_t r = only(n.outputs[0]);
  if (r == SIZE_MAX || !plain_reshape(w.nodes[r]) || w.nodes[r].inputs[0] != n.outputs[0]) return std::nullopt;
  const auto out = image_chw(w.desc(w.nodes[r].outputs[0]));
  if (!out || (*out)[0] != (*x)[0] || (*out)[1] * (*out)[2] != (*x)[2]) return std::nullopt;
  return Regroup{r, {-1, (*out)[1], (*out)[2], (*out)[0]}};
}

// A regroup member on NHWC: one Reshape of the input's twin to the output's; the node
// after it goes (its output, where read outside, comes back from the twin).
void rewrite_regroup(Work& w, const Regroup& r, std::size_t i, const NhwcTwins& nhwc) {
  const ValueId y = w.nodes[r.tail != SIZE_MAX ? r.tail : i].outputs[0];
  const auto rank = static_cast<std::int64_t>(r.dims.size());
  const ValueId shape = w.add_constant(w.nodes[i].name + ".nhwc_shape", Tensor::from<std::int64_t>({rank}, r.dims));
  if (r.tail != SIZE_MAX) w.nodes[r.tail].alive = false;
  WNode& n = w.nodes[i];
  n.op = "Reshape";
  n.inputs = {n.inputs[0], shape};
  n.outputs = {nhwc.at(y)};
  n.attrs = Attributes{};
}

}  // namespace ge::detail::layout_ops
