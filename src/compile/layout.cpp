// The NHWC layout pass: chains of convs (MobileNet's inverted residual blocks, ResNet's
// bottlenecks) run on NHWC images, where a depthwise conv vectorises over whole vectors
// of channels at any image size and stride, a 1x1 conv is a product of the pixels (read
// in place) by the packed weights, and a dense conv a product of gathered patches (or
// Winograd's, on vectors of channels). Transposes sit only where a chain starts and ends.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compile/layout_rewrite.hpp"
#include "compile/pass_work.hpp"
#include "ge/compile/passes.hpp"
#include "ge/ops/registry.hpp"
#include "ops/window_attrs.hpp"

namespace ge {

using detail::attr_of;
using detail::WNode;
using detail::Work;

using detail::layout_ops::kNhwcAxis;
using detail::layout_ops::Rewriter;

namespace {

enum class Kind : std::uint8_t { none, pointwise, depthwise, few_channels, dense, grouped, pool };

std::vector<std::int64_t> ints_attr(const WNode& n, std::string_view name) {
  const auto a = attr_of(n, name);
  return a && a->kind() == AttrKind::integers ? a->as_ints() : std::vector<std::int64_t>{};
}

// Node n's window attributes over `spatial` axes (checked by inference already).
ops::WindowAttrs window_of(const WNode& n, std::size_t spatial) {
  return ops::WindowAttrs::from(OpRegistry::global().find(n.op).with_defaults(n.attrs), spatial);
}

// What node `n` can become on NHWC images: an f32 2-D Conv or FusedConv (NCHW) with
// constant static weights and explicit pads that is a 1x1 (stride 1, no pads, one group),
// a depthwise conv (group == channels == outputs, at most 49 taps), a dense conv over at
// most 4 input channels, another dense (one group) conv, or a grouped conv of 4k
// outputs per group; or a 2-D f32 MaxPool or AveragePool.
Kind kind_of(const Work& w, const WNode& n) {
  if (n.alive && (n.op == "MaxPool" || n.op == "AveragePool") && n.outputs.size() == 1 && n.inputs.size() == 1) {
    // A 2-D f32 MaxPool without Indices (row-major storage) or AveragePool, explicit pads:
    // it joins a chain (ResNet's MaxPool between its stem and its bottlenecks, Inception's
    // AveragePools in its branches).
    const TensorDesc& x = w.desc(n.inputs[0]);
    const auto order = attr_of(n, "storage_order");
    if (x.dtype != DataType::f32 || !x.shape.rank_known() || x.shape.rank() != 4 || ints_attr(n, "kernel_shape").size() != 2)
      return Kind::none;
    return window_of(n, 2).auto_pad == ops::AutoPad::notset && (!order || order->as_int() == 0) ? Kind::pool
                                                                                                  : Kind::none;
  }
  if (!n.alive || (n.op != "Conv" && n.op != "FusedConv") || n.outputs.size() != 1 || n.inputs.size() < 2) {
    return Kind::none;
  }
  if (n.op == "FusedConv") {
    const auto layout = attr_of(n, "layout");
    if (layout && layout->as_string() != "NCHW") return Kind::none;
  }
  const TensorDesc& x = w.desc(n.inputs[0]);
  if (x.dtype != DataType::f32 || !x.shape.rank_known() || x.shape.rank() != 4) return Kind::none;
  const Tensor* wt = w.constant(n.inputs[1]);
  if (wt == nullptr || wt->dtype() != DataType::f32 || wt->dims().size() != 4) return Kind::none;
  const ops::WindowAttrs window = window_of(n, 2);
  if (window.auto_pad != ops::AutoPad::notset) return Kind::none;
  const auto group_attr = attr_of(n, "group");
  const std::int64_t group = group_attr ? group_attr->as_int() : 1;
  const auto& wd = wt->dims();
  if (wd[2] == 1 && wd[3] == 1 && group == 1 && window.unit()) return Kind::pointwise;
  const Dim& c = x.shape[1];
  if (wd[1] == 1 && group == wd[0] && c.is_static() && c.value() == group && wd[2] * wd[3] <= 49) return Kind::depthwise;
  // A first conv (at most 4 input channels): its input, not its wider output, is transposed.
  if (group == 1 && wd[1] <= 4) return Kind::few_channels;
  if (group == 1) return Kind::dense;
  // A grouped conv whose groups give a multiple of 4 outputs each: since its padded image
  // and pair-major tasks the NHWC grouped kernel beats the NCHW per-group GEMM there, 24,
  // 48 and 120 included (RegNetX-1.6GF, 3.2GF, 8GF 6-15% faster in all), and ResNeXt's
  // 4-wide first stage joins the chain instead of ending it (ResNeXt-101 64x4d 15% faster).
  if (wd[0] % group == 0 && c.is_static() && c.value() == wd[1] * group) {
    const std::int64_t width = wd[0] / group;
    if (width % 4 == 0) return Kind::grouped;
  }
  return Kind::none;
}

Shape to_nhwc(const Shape& s) { return Shape(std::vector<Dim>{s[0], s[2], s[3], s[1]}); }


// A 4-D value with spatial extent (its H and W not both a static 1): an image whose
// layout matters. [N, C, 1, 1] values hold the same floats in the same order in NCHW
// and NHWC, so they are no image.
bool is_image(const TensorDesc& d) {
  if (!d.shape.rank_known() || d.shape.rank() != 4) return false;
  return !(d.shape[2].is_static() && d.shape[2].value() == 1 && d.shape[3].is_static() && d.shape[3].value() == 1);
}

// An operand of an elementwise node that broadcasts against an image per channel or as a
// scalar: rank at most 4 and, aligned to [N, C, H, W] from the right, H and W a static 1.
bool per_channel(const TensorDesc& d) {
  if (!d.shape.rank_known() || d.shape.rank() > 4) return false;
  const std::size_t r = d.shape.rank();
  for (std::size_t k = 0; k < r; ++k) {
    const std::size_t axis = 4 - r + k;
    if (axis >= 2 && !(d.shape[k].is_static() && d.shape[k].value() == 1)) return false;
  }
  return true;
}


// How an op maps layouts (a table beside the pass rather than a field of `OpSchema`:
// the schema header is included by nearly every file). Convs and MaxPool are the pass's
// own candidates (`kind_of`); an op not named here needs the layout it was written for.
enum class LayoutRule : std::uint8_t {
  fixed,           // NCHW only: the pass leaves it alone
  elementwise,     // any layout: per element; operands broadcast per channel or as a scalar
  spatial_reduce,  // reduces every spatial axis to 1 (global pools): the axes remapped
  concat,          // joins along `axis`: the axis remapped
  pad,             // pads (constant ones) each axis: the pads permuted
  slice,           // slices (constant starts, ends, axes): the axes remapped
  shuffle,         // a channel shuffle (Reshape to groups, Transpose, Reshape back): in NHWC terms
  resize,          // resizes H and W only (constant scales or sizes): the scales, sizes and roi permuted
  regroup,         // regroups pixels, channels kept (a Reshape, or one beside a Transpose): a Reshape on NHWC
};

LayoutRule layout_rule(std::string_view op) {
  static const std::unordered_map<std::string_view, LayoutRule> rules = [] {
    std::unordered_map<std::string_view, LayoutRule> m;
    for (const std::string_view e :
         {"Relu", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Clip", "Elu", "Selu", "Celu",
          "Softplus", "Softsign", "Mish", "Gelu", "Erf", "Exp", "Log", "Sqrt", "Abs", "Neg", "Sign", "Identity",
          "ThresholdedRelu", "FakeQuant", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean"})
      m.emplace(e, LayoutRule::elementwise);
    m.emplace("GlobalAveragePool", LayoutRule::spatial_reduce);
    m.emplace("GlobalMaxPool", LayoutRule::spatial_reduce);
    for (const std::string_view e : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum"})
      m.emplace(e, LayoutRule::spatial_reduce);
    m.emplace("Concat", LayoutRule::concat);
    m.emplace("Pad", LayoutRule::pad);
    m.emplace("Slice", LayoutRule::slice);
    m.emplace("Resize", LayoutRule::resize);
    return m;
  }();
  const auto it = rules.find(op);
  return it == rules.end() ? LayoutRule::fixed : it->second;
}

// What a node is to the layout solve: a conv or pool that gains from NHWC (`Kind`), or
// an op whose schema says it runs in either layout (`LayoutRule`) on these inputs.
struct Role {
  Kind kind = Kind::none;
  LayoutRule rule = LayoutRule::fixed;
  std::vector<std::size_t> images;  // input slots that carry images (NHWC twins in a chain)
  bool makes_image = false;         // its output is an image (an NHWC twin in a chain)
  std::size_t mid = SIZE_MAX, tail = SIZE_MAX;  // a shuffle's Transpose and last Reshape
  std::int64_t groups = 0;                      // a shuffle's groups
  std::vector<std::int64_t> dims;               // a regroup's NHWC output dims
  [[nodiscard]] bool candidate() const { return kind != Kind::none || rule != LayoutRule::fixed; }
};

// The image a candidate makes: its output, or a shuffle's last Reshape's.
ValueId image_out(const Work& w, const Role& r, std::size_t i) {
  return w.nodes[r.tail != SIZE_MAX ? r.tail : i].outputs[0];
}

// The only reader of value v (a node index), or SIZE_MAX.
std::size_t only_reader(const Work& w, const Work::Readers& readers, ValueId v) {
  return readers.count[v] == 1 && !w.is_output(v) ? readers.node[v] : SIZE_MAX;
}

// A channel shuffle from node i (ShuffleNet's x.view(N, g, C / g, H, W).transpose(1, 2)
// .reshape(N, C, H, W)): a Reshape of an image [N, C, H, W] to [N, g, C / g, H, W] (static
// g and C / g), read only by a Transpose (0, 2, 1, 3, 4), read only by a Reshape back to
// [N, C, H, W]. In NHWC the same floats move as [N, H, W, g, C / g] -> (0, 1, 2, 4, 3).
bool channel_shuffle(const Work& w, const Work::Readers& readers, std::size_t i, Role& r) {
  const WNode& head = w.nodes[i];
  if (head.inputs.size() != 2 || head.outputs.size() != 1 || !is_image(w.desc(head.inputs[0]))) return false;
  const Shape& x = w.desc(head.inputs[0]).shape;
  const Shape& g5 = w.desc(head.outputs[0]).shape;
  // C, H and W static, and all of the groups' dims: a Reshape keeps the element count, so
  // the batch is then the same and the split is of the channels (equal ranges alone would
  // not say that two dims are one).
  const auto fixed = [](const Dim& d, std::int64_t v) { return d.is_static() && d.value() == v; };
  if (!g5.rank_known() || g5.rank() != 5 || !x[1].is_static() || !x[2].is_static() || !x[3].is_static() ||
      !g5[1].is_static() || !g5[2].is_static() || g5[1].value() * g5[2].value() != x[1].value() ||
      !fixed(g5[3], x[2].value()) || !fixed(g5[4], x[3].value()))
    return false;
  const auto zero_allowed = [](const WNode& n) {
    const auto a = attr_of(n, "allowzero");
    return a && a->as_int() != 0;
  };
  if (zero_allowed(head)) return false;  // (the NHWC shapes written for it copy dims with 0)
  const std::size_t mid = only_reader(w, readers, head.outputs[0]);
  if (mid == SIZE_MAX || w.nodes[mid].op != "Transpose" || ints_attr(w.nodes[mid], "perm") !=
      std::vector<std::int64_t>{0, 2, 1, 3, 4})
    return false;
  const std::size_t tail = only_reader(w, readers, w.nodes[mid].outputs[0]);
  if (tail == SIZE_MAX || w.nodes[tail].op != "Reshape" || w.nodes[tail].inputs[0] != w.nodes[mid].outputs[0] ||
      zero_allowed(w.nodes[tail]))
    return false;
  const Shape& y = w.desc(w.nodes[tail].outputs[0]).shape;
  if (!y.rank_known() || y.rank() != 4 || !fixed(y[1], x[1].value()) || !fixed(y[2], x[2].value()) ||
      !fixed(y[3], x[3].value()))
    return false;
  r.mid = mid;
  r.tail = tail;
  r.groups = g5[1].value();
  return true;
}

// A Slice of an image to an image by constant starts, ends and axes (and steps).
bool slices_image(const Work& w, const WNode& n) {
  if (n.inputs.size() < 3 || !is_image(w.desc(n.inputs[0]))) return false;
  for (std::size_t k = 1; k < n.inputs.size(); ++k)
    if (n.inputs[k] != no_value && w.constant(n.inputs[k]) == nullptr) return false;
  return n.inputs.size() < 4 || n.inputs[3] == no_value || w.constant(n.inputs[3])->dtype() == DataType::i64 ||
         w.constant(n.inputs[3])->dtype() == DataType::i32;
}

Role role_of(const Work& w, const Work::Readers& readers, std::size_t i, bool dense_chains) {
  const WNode& n = w.nodes[i];
  Role r;
  r.kind = kind_of(w, n);
  if ((r.kind == Kind::dense || r.kind == Kind::grouped) && !dense_chains) r.kind = Kind::none;
  if (r.kind != Kind::none) {
    r.images = {0};
    if (n.inputs.size() > 3 && n.inputs[3] != no_value) r.images.push_back(3);  // a FusedConv's residual
    r.makes_image = true;
    return r;
  }
  if (!n.alive || n.outputs.size() != 1 || n.inputs.empty()) return r;
  if (n.op == "Reshape" || n.op == "Transpose") {
    const auto g = n.op == "Reshape" && channel_shuffle(w, readers, i, r) ? std::nullopt
                                                                          : detail::layout_ops::regroup_at(w, readers, i);
    if (r.tail == SIZE_MAX && !g) return r;
    r.rule = g ? LayoutRule::regroup : LayoutRule::shuffle;
    if (g) r.tail = g->tail, r.dims = g->dims;
    r.images = {0};
    r.makes_image = true;
    return r;
  }
  const LayoutRule rule = layout_rule(n.op);
  if (rule == LayoutRule::fixed) return r;
  const TensorDesc& y = w.desc(n.outputs[0]);
  switch (rule) {
    case LayoutRule::fixed:
      return r;
    case LayoutRule::elementwise:
      if (!is_image(y)) return r;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (n.inputs[k] == no_value) continue;
        const TensorDesc& d = w.desc(n.inputs[k]);
        if (is_image(d)) {
          r.images.push_back(k);
        } else if (!per_channel(d)) {
          r.images.clear();
          return r;
        }
      }
      r.makes_image = true;
      break;
    case LayoutRule::spatial_reduce:
      // (a [N, C, 1, 1] input too: a chain's last image may be one pixel)
      if (!w.desc(n.inputs[0]).shape.rank_known() || w.desc(n.inputs[0]).shape.rank() != 4) return r;
      if (n.op.starts_with("Global") ? n.inputs.size() != 1 : !detail::layout_ops::reduces_h_and_w(w, n)) return r;
      r.images = {0};
      break;
    case LayoutRule::pad: {
      const Tensor* pads = n.inputs.size() > 1 ? w.constant(n.inputs[1]) : nullptr;
      if (!is_image(y) || !is_image(w.desc(n.inputs[0])) || pads == nullptr || pads->dtype() != DataType::i64 ||
          pads->element_count() != 8)
        return r;
      r.images = {0};
      r.makes_image = true;
      break;
    }
    case LayoutRule::slice:
    case LayoutRule::shuffle:
    case LayoutRule::regroup:
      if (!is_image(y) || !slices_image(w, n)) return r;
      r.images = {0};
      r.makes_image = true;
      break;
    case LayoutRule::resize:
      if (!is_image(y) || !detail::layout_ops::resizes_image(w, n)) return r;
      r.images = {0};
      r.makes_image = true;
      break;
    case LayoutRule::concat:
      if (!is_image(y)) return r;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (n.inputs[k] == no_value || !is_image(w.desc(n.inputs[k]))) return r;
        r.images.push_back(k);
      }
      r.makes_image = true;
      break;
  }
  if (!r.images.empty()) r.rule = rule;
  return r;
}

// The candidates and the chains they form: a candidate joins the chain of the candidate
// whose output image it reads.
struct Chains {
  std::vector<Role> role;                             // per node
  std::unordered_map<ValueId, std::size_t> producer;  // a candidate's output image -> the candidate
  std::vector<std::size_t> parent;                    // per node: union-find towards its chain's root

  std::size_t root(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  [[nodiscard]] bool image_slot(std::size_t i, std::size_t k) const {
    return std::find(role[i].images.begin(), role[i].images.end(), k) != role[i].images.end();
  }
};

Chains find_chains(const Work& w, bool dense_chains) {
  const std::size_t count = w.nodes.size();
  Chains c;
  c.role.resize(count);
  const Work::Readers readers = w.readers();
  for (std::size_t i = 0; i < count; ++i) c.role[i] = role_of(w, readers, i, dense_chains);
  for (std::size_t i = 0; i < count; ++i)  // (a node another's rewrite takes is no member of its own)
    if (c.role[i].tail != SIZE_MAX) c.role[c.role[i].tail] = Role{};
  for (std::size_t i = 0; i < count; ++i)
    if (c.role[i].makes_image) c.producer[image_out(w, c.role[i], i)] = i;
  c.parent.resize(count);
  std::iota(c.parent.begin(), c.parent.end(), std::size_t{0});
  for (std::size_t i = 0; i < count; ++i) {
    for (const std::size_t k : c.role[i].images) {
      const auto it = c.producer.find(w.nodes[i].inputs[k]);
      if (it != c.producer.end()) c.parent[c.root(i)] = c.root(it->second);
    }
  }
  return c;
}

// Per node, whether it is in a chain worth running NHWC: one with a depthwise conv
// (MobileNets), or a long one of 1x1 and dense convs (ResNets: the 1x1 convs' GEMM reads
// the pixels in place and splits over the output channels, 88-101% of the FMA peak at
// batch 1 and 8 on ResNet-50's where NCHW ran 60-97%, and NHWC's Winograd and patch
// GEMM beat NCHW's), with at least 4 convs per Transpose at its ends. Dense convs alone
// count too (they once needed three 1x1s beside them): NHWC's Winograd beat NCHW's on
// ResNet-18/34's and VGG's 3x3s, ResNet-18 13.2 -> 11.4 ms, VGG-16 97 -> 86 ms. The ops between
// the convs (activations, gates, residual sums, concats, global pools) run in the chain's
// layout and cost no Transpose.
std::vector<bool> chain_members(const Work& w, Chains& c, bool dense_chains) {
  const std::size_t count = w.nodes.size();
  struct Chain {
    std::size_t convs = 0, pointwise = 0, ends = 0;
    bool depthwise = false;
  };
  std::unordered_map<std::size_t, Chain> chains;
  for (std::size_t i = 0; i < count; ++i) {
    const Kind k = c.role[i].kind;
    if (k == Kind::none || k == Kind::pool) continue;  // a pool is no conv
    Chain& ch = chains[c.root(i)];
    ++ch.convs;
    ch.pointwise += k == Kind::pointwise;
    ch.depthwise = ch.depthwise || k == Kind::depthwise;
  }
  // Ends: images entering a chain from outside (one Transpose each), and chain images
  // read outside it or given out by the graph.
  std::unordered_set<ValueId> entering;
  for (std::size_t i = 0; i < count; ++i) {
    for (const std::size_t k : c.role[i].images) {
      const ValueId v = w.nodes[i].inputs[k];
      const auto it = c.producer.find(v);
      if ((it == c.producer.end() || c.root(it->second) != c.root(i)) && entering.insert(v).second)
        ++chains[c.root(i)].ends;
    }
  }
  std::unordered_set<ValueId> leaving;
  for (std::size_t i = 0; i < count; ++i) {
    const WNode& n = w.nodes[i];
    if (!n.alive) continue;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const auto it = c.producer.find(n.inputs[k]);
      if (it == c.producer.end()) continue;
      const bool in_chain = c.image_slot(i, k) && c.root(i) == c.root(it->second);
      if (!in_chain && leaving.insert(n.inputs[k]).second) ++chains[c.root(it->second)].ends;
    }
  }
  for (const auto& [v, i] : c.producer)
    if (w.is_output(v) && leaving.insert(v).second) ++chains[c.root(i)].ends;
  std::unordered_set<std::size_t> worth;
  for (const auto& [r, ch] : chains)
    if (ch.depthwise || (dense_chains && ch.convs >= 4 * ch.ends)) worth.insert(r);
  std::vector<bool> member(count, false);
  for (std::size_t i = 0; i < count; ++i) member[i] = c.role[i].candidate() && worth.contains(c.root(i));
  return member;
}

// What the Transposes of running `member` on NHWC cost: the elements they move, then how
// many (an upsampling Resize at a chain's end would move its larger output back).
struct TransposeCost {
  std::int64_t elements = 0;
  std::size_t count = 0;
  friend bool operator<(const TransposeCost& a, const TransposeCost& b) {
    return a.elements != b.elements ? a.elements < b.elements : a.count < b.count;
  }
};

// A value's elements for the cost above: its static count, else its bound's, else 2^24;
// none for an image of one pixel (its "Transpose" is a Reshape: `Rewriter::transpose`).
std::int64_t elements_for_cost(const TensorDesc& d) {
  if (!d.shape.rank_known()) return std::int64_t{1} << 24;
  const auto one = [&](std::size_t k) { return d.shape[k].is_static() && d.shape[k].value() == 1; };
  if (d.shape.rank() == 4 && one(2) && one(3)) return 0;
  std::int64_t n = 1;
  for (const Dim& x : d.shape.dims()) {
    if (!x.is_bounded()) return std::int64_t{1} << 24;
    n = std::min<std::int64_t>(n * std::max<std::int64_t>(x.hi(), 1), std::int64_t{1} << 40);
  }
  return n;
}

// The Transposes running `member` on NHWC takes: one per image a member reads from
// outside (into NHWC), one per member's image read outside or given out (back to NCHW).
TransposeCost transposes_for(const Work& w, const Chains& c, const std::vector<bool>& member) {
  std::unordered_set<ValueId> twinned, in, out;
  for (std::size_t i = 0; i < member.size(); ++i)
    if (member[i] && c.role[i].makes_image) twinned.insert(image_out(w, c.role[i], i));
  for (std::size_t i = 0; i < member.size(); ++i) {
    const WNode& n = w.nodes[i];
    if (!n.alive) continue;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const ValueId v = n.inputs[k];
      if (v == no_value) continue;
      const bool nhwc_read = member[i] && c.image_slot(i, k);
      if (nhwc_read && !twinned.contains(v)) in.insert(v);
      if (!nhwc_read && twinned.contains(v)) out.insert(v);
    }
  }
  for (const ValueId v : twinned)
    if (w.is_output(v)) out.insert(v);
  TransposeCost cost;
  for (const auto* set : {&in, &out})
    for (const ValueId v : *set) cost.elements += elements_for_cost(w.desc(v));
  cost.count = in.size() + out.size();
  return cost;
}

// The ops between the convs join a chain only where that saves Transposes (the elements
// they move, then their count) or costs none:
// a Concat of a chain's branch and an image from outside that an NCHW op reads next
// (ShuffleNet's channel shuffle) runs NCHW. Greedy, until nothing changes.
void prune_free_members(const Work& w, const Chains& c, std::vector<bool>& member) {
  TransposeCost best = transposes_for(w, c, member);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = w.order.rbegin(); it != w.order.rend(); ++it) {
      const std::size_t i = *it;
      if (!member[i] || c.role[i].kind != Kind::none) continue;
      member[i] = false;
      const TransposeCost without = transposes_for(w, c, member);
      if (without < best) {
        best = without;
        changed = true;
      } else {
        member[i] = true;
      }
    }
  }
}

// Runs the members on NHWC images: each member's output image gets an NHWC twin;
// outside readers (and graph outputs) get the NCHW value back through a Transpose, and
// images from outside a chain come in through one (one per value). Per-channel operands
// of elementwise members are reshaped to broadcast over NHWC ([N, C, 1, 1] to
// [N, 1, 1, C]); a global pool becomes a reduction over NHWC's H and W and a Reshape to
// its [N, C, 1, 1] output (the same floats in the same order); a concat's axis is remapped.
void rewrite_members(Work& w, PassStats& s, const Chains& c, const std::vector<bool>& member) {
  const std::size_t count = member.size();
  Rewriter rw(w, s);
  std::unordered_map<ValueId, ValueId> nhwc;
  for (const std::size_t i : w.order) {
    if (!member[i] || !c.role[i].makes_image) continue;
    const ValueId y = image_out(w, c.role[i], i);
    TensorDesc d = w.desc(y);
    d.shape = to_nhwc(d.shape);
    nhwc[y] = rw.new_value(w.values[y].name + ".nhwc", d);
  }
  std::vector<std::size_t> outside(w.values.size(), 0);
  for (std::size_t i = 0; i < count; ++i) {
    if (!w.nodes[i].alive) continue;
    for (std::size_t k = 0; k < w.nodes[i].inputs.size(); ++k) {
      const ValueId v = w.nodes[i].inputs[k];
      if (v != no_value && nhwc.contains(v) && !(member[i] && c.image_slot(i, k))) ++outside[v];
    }
  }
  for (const std::size_t i : w.order) {
    if (!member[i] || !c.role[i].makes_image) continue;
    const ValueId y = image_out(w, c.role[i], i);
    if (outside[y] > 0 || w.is_output(y)) rw.transpose(nhwc.at(y), y, {0, 3, 1, 2}, w.values[y].name + ".to_nchw");
  }
  for (const std::size_t i : w.order) {
    if (!member[i]) continue;
    for (const std::size_t k : c.role[i].images) {
      const ValueId v = w.nodes[i].inputs[k];
      if (!nhwc.contains(v)) {
        TensorDesc d = w.desc(v);
        d.shape = to_nhwc(d.shape);
        const ValueId t = rw.new_value(w.values[v].name + ".nhwc", d);
        nhwc[v] = t;
        rw.transpose(v, t, {0, 2, 3, 1}, w.values[v].name + ".to_nhwc");
      }
    }
  }
  std::unordered_map<ValueId, ValueId> per_channel_nhwc;  // an operand -> its NHWC broadcast form
  for (std::size_t i = 0; i < count; ++i) {
    if (!member[i]) continue;
    const Role& r = c.role[i];
    WNode& n = w.nodes[i];
    for (const std::size_t k : r.images) n.inputs[k] = nhwc.at(n.inputs[k]);
    if (r.kind != Kind::none) {
      n.outputs[0] = nhwc.at(n.outputs[0]);
      if (r.kind != Kind::pool) n.op = "FusedConv";
      n.attrs.insert_or_assign("layout", "NHWC");
      continue;
    }
    switch (r.rule) {
      case LayoutRule::fixed:
        break;
      case LayoutRule::elementwise:
        detail::layout_ops::rewrite_elementwise(w, rw, r.images, i, nhwc, per_channel_nhwc);
        break;
      case LayoutRule::concat: {
        const std::int64_t axis = attr_of(n, "axis")->as_int();
        n.attrs.insert_or_assign("axis", kNhwcAxis[axis < 0 ? axis + 4 : axis]);
        n.outputs[0] = nhwc.at(n.outputs[0]);
        break;
      }
      case LayoutRule::pad: {
        // [begin N, C, H, W, end N, C, H, W] -> [begin N, H, W, C, end N, H, W, C]
        const auto p = w.constant(n.inputs[1])->to_int64s();
        const std::vector<std::int64_t> q{p[0], p[2], p[3], p[1], p[4], p[6], p[7], p[5]};
        const std::string name = w.values[n.inputs[1]].name + ".nhwc";
        const ValueId pads = w.add_constant(name, Tensor::from<std::int64_t>({8}, q));
        WNode& pad = w.nodes[i];
        pad.inputs[1] = pads;
        pad.outputs[0] = nhwc.at(pad.outputs[0]);
        break;
      }
      case LayoutRule::spatial_reduce:
        detail::layout_ops::rewrite_global_pool(w, rw, i);
        break;
      case LayoutRule::slice:
        detail::layout_ops::rewrite_slice(w, i, nhwc);
        break;
      case LayoutRule::shuffle:
        detail::layout_ops::rewrite_shuffle(w, rw, {r.mid, r.tail, r.groups}, i, nhwc);
        break;
      case LayoutRule::resize:
        detail::layout_ops::rewrite_resize(w, i, nhwc);
        break;
      case LayoutRule::regroup:
        detail::layout_ops::rewrite_regroup(w, {r.tail, r.dims}, i, nhwc);
        break;
    }
  }
}

}  // namespace

namespace detail {
void layout_nhwc(Work& w, PassStats& s, bool dense_chains) {
  Chains chains = find_chains(w, dense_chains);
  std::vector<bool> member = chain_members(w, chains, dense_chains);
  prune_free_members(w, chains, member);
  rewrite_members(w, s, chains, member);
}
}  // namespace detail

Graph layout_nhwc(const Graph& g, PassStats* stats, bool dense_chains) {
  return detail::run_pass(g, stats, "layout_nhwc",
                          [dense_chains](Work& w, PassStats& s) { detail::layout_nhwc(w, s, dense_chains); });
}

}  // namespace ge
