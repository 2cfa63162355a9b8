// The NHWC layout pass: chains of convs (MobileNet's inverted residual blocks, ResNet's
// bottlenecks) run on NHWC images, where a depthwise conv vectorises over whole vectors
// of channels at any image size and stride, a 1x1 conv is a product of the pixels (read
// in place) by the packed weights, and a dense conv a product of gathered patches (or
// Winograd's, on vectors of channels). Transposes sit only where a chain starts and ends.
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
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

enum class Kind : std::uint8_t { none, pointwise, depthwise, few_channels, dense, pool };

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
// most 4 input channels, or another dense (one group) conv; or a 2-D f32 MaxPool.
Kind kind_of(const Work& w, const WNode& n) {
  if (n.alive && n.op == "MaxPool" && n.outputs.size() == 1 && n.inputs.size() == 1) {
    // A 2-D f32 MaxPool without Indices, explicit pads, row-major storage: it joins a
    // chain (ResNet's between its stem and its bottlenecks).
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
  return Kind::none;
}

Shape to_nhwc(const Shape& s) { return Shape(std::vector<Dim>{s[0], s[2], s[3], s[1]}); }

struct Rewriter {
  Work& w;
  PassStats& s;
  std::unordered_set<std::string> node_names;

  Rewriter(Work& work, PassStats& stats) : w(work), s(stats) {
    for (const WNode& n : w.nodes) node_names.insert(n.name);
  }

  ValueId new_value(const std::string& base, TensorDesc desc) {
    const std::string name = w.unique_name(base);
    w.names.insert(name);
    const auto id = static_cast<ValueId>(w.values.size());
    w.values.push_back({name, std::move(desc)});
    return id;
  }

  std::string node_name(const std::string& base) {
    std::string name = base;
    for (std::size_t i = 1; node_names.contains(name); ++i) name = base + "." + std::to_string(i);
    node_names.insert(name);
    return name;
  }

  void transpose(ValueId from, ValueId to, std::vector<std::int64_t> perm, const std::string& name) {
    w.nodes.push_back({node_name(name), "Transpose", {from}, {to}, Attributes{{"perm", std::move(perm)}}, true});
    ++s.nodes_added;
  }
};

// The inputs of a candidate that chain: its image, and a FusedConv's residual.
std::vector<std::size_t> chain_slots(const WNode& n) {
  std::vector<std::size_t> v{0};
  if (n.inputs.size() > 3 && n.inputs[3] != no_value) v.push_back(3);
  return v;
}

// The candidates and the chains they form: a candidate joins the chain of the candidate
// whose output is its image (input 0) or residual (input 3).
struct Chains {
  std::vector<Kind> kind;                             // per node
  std::unordered_map<ValueId, std::size_t> producer;  // a candidate's output -> the candidate
  std::vector<std::size_t> parent;                    // per node: union-find towards its chain's root

  std::size_t root(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
};

Chains find_chains(const Work& w, bool dense_chains) {
  const std::size_t count = w.nodes.size();
  Chains c;
  c.kind.assign(count, Kind::none);
  for (std::size_t i = 0; i < count; ++i) {
    c.kind[i] = kind_of(w, w.nodes[i]);
    if (c.kind[i] == Kind::dense && !dense_chains) c.kind[i] = Kind::none;
    if (c.kind[i] != Kind::none) c.producer[w.nodes[i].outputs[0]] = i;
  }
  c.parent.resize(count);
  std::iota(c.parent.begin(), c.parent.end(), std::size_t{0});
  for (std::size_t i = 0; i < count; ++i) {
    if (c.kind[i] == Kind::none) continue;
    for (const std::size_t k : chain_slots(w.nodes[i])) {
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
// GEMM beat NCHW's), with at least 4 convs per Transpose at its ends.
std::vector<bool> chain_members(const Work& w, Chains& c, bool dense_chains) {
  const std::size_t count = w.nodes.size();
  struct Chain {
    std::size_t convs = 0, pointwise = 0, ends = 0;
    bool depthwise = false;
  };
  std::unordered_map<std::size_t, Chain> chains;
  for (std::size_t i = 0; i < count; ++i) {
    if (c.kind[i] == Kind::none || c.kind[i] == Kind::pool) continue;  // a pool is no conv
    Chain& ch = chains[c.root(i)];
    ++ch.convs;
    ch.pointwise += c.kind[i] == Kind::pointwise;
    ch.depthwise = ch.depthwise || c.kind[i] == Kind::depthwise;
  }
  // Ends: values entering a chain from outside (one Transpose each), and chain values
  // read outside it or given out by the graph.
  std::unordered_set<ValueId> entering;
  for (std::size_t i = 0; i < count; ++i) {
    if (c.kind[i] == Kind::none) continue;
    for (const std::size_t k : chain_slots(w.nodes[i])) {
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
      const bool in_chain = c.kind[i] != Kind::none && (k == 0 || k == 3) && c.root(i) == c.root(it->second);
      if (!in_chain && leaving.insert(n.inputs[k]).second) ++chains[c.root(it->second)].ends;
    }
  }
  for (const auto& [v, i] : c.producer)
    if (w.is_output(v) && leaving.insert(v).second) ++chains[c.root(i)].ends;
  std::unordered_set<std::size_t> worth;
  for (const auto& [r, ch] : chains)
    if (ch.depthwise || (dense_chains && ch.pointwise >= 3 && ch.convs >= 4 * ch.ends)) worth.insert(r);
  std::vector<bool> member(count, false);
  for (std::size_t i = 0; i < count; ++i) member[i] = c.kind[i] != Kind::none && worth.contains(c.root(i));
  return member;
}

// Per value, how many reads of it outside the chain slots of members (`nhwc`: the
// members' outputs with their NHWC twins).
std::vector<std::size_t> outside_reads(const Work& w, const std::vector<bool>& member,
                                       const std::unordered_map<ValueId, ValueId>& nhwc) {
  std::vector<std::size_t> outside(w.values.size(), 0);
  for (std::size_t i = 0; i < member.size(); ++i) {
    if (!w.nodes[i].alive) continue;
    for (std::size_t k = 0; k < w.nodes[i].inputs.size(); ++k) {
      const ValueId v = w.nodes[i].inputs[k];
      const bool chain_slot = member[i] && (k == 0 || k == 3);
      if (v != no_value && nhwc.contains(v) && !chain_slot) ++outside[v];
    }
  }
  return outside;
}

// A chain value read outside only by GlobalAveragePools (the net's head) needs no
// Transpose: each becomes a mean over NHWC's H and W ([N, 1, 1, C]) and a Reshape to
// [N, C, 1, 1], the same floats in the same order. Such values are read outside no more.
void pool_heads(Rewriter& rw, std::size_t count, const std::unordered_map<ValueId, ValueId>& nhwc,
                std::vector<std::size_t>& outside) {
  Work& w = rw.w;
  std::unordered_map<ValueId, std::vector<std::size_t>> pools;
  for (std::size_t i = 0; i < count; ++i) {
    const WNode& n = w.nodes[i];
    if (n.alive && n.op == "GlobalAveragePool" && n.inputs.size() == 1 && n.outputs.size() == 1 &&
        nhwc.contains(n.inputs[0]))
      pools[n.inputs[0]].push_back(i);
  }
  for (const auto& [y, readers] : pools) {
    if (readers.size() != outside[y] || w.is_output(y)) continue;
    for (const std::size_t i : readers) {
      TensorDesc d = w.desc(nhwc.at(y));
      d.shape = Shape(std::vector<Dim>{d.shape[0], Dim(1), Dim(1), d.shape[3]});
      const std::string name = w.nodes[i].name;
      const ValueId mean = rw.new_value(name + ".nhwc", d);
      w.nodes.push_back({rw.node_name(name + ".nhwc"), "ReduceMean", {nhwc.at(y)}, {mean},
                         Attributes{{"axes", std::vector<std::int64_t>{1, 2}}, {"keepdims", std::int64_t{1}}}, true});
      const ValueId shape = w.add_constant(name + ".shape", Tensor::from<std::int64_t>({4}, {0, -1, 1, 1}));
      WNode& pool = w.nodes[i];
      pool.op = "Reshape";
      pool.inputs = {mean, shape};
      pool.attrs = Attributes{};
      ++rw.s.nodes_added;
    }
    outside[y] = 0;
  }
}

// Runs the members on NHWC images: each member's output gets an NHWC twin; outside
// readers (and graph outputs) get the NCHW value back through a Transpose, and images
// and residuals from outside a chain come in through one (one per value).
void rewrite_members(Work& w, PassStats& s, const std::vector<Kind>& kind, const std::vector<bool>& member) {
  const std::size_t count = member.size();
  Rewriter rw(w, s);
  std::unordered_map<ValueId, ValueId> nhwc;
  for (const std::size_t i : w.order) {
    if (!member[i]) continue;
    const ValueId y = w.nodes[i].outputs[0];
    TensorDesc d = w.desc(y);
    d.shape = to_nhwc(d.shape);
    nhwc[y] = rw.new_value(w.values[y].name + ".nhwc", d);
  }
  std::vector<std::size_t> outside = outside_reads(w, member, nhwc);
  pool_heads(rw, count, nhwc, outside);
  for (const std::size_t i : w.order) {
    if (!member[i]) continue;
    const ValueId y = w.nodes[i].outputs[0];
    if (outside[y] > 0 || w.is_output(y)) rw.transpose(nhwc.at(y), y, {0, 3, 1, 2}, w.values[y].name + ".to_nchw");
  }
  for (const std::size_t i : w.order) {
    if (!member[i]) continue;
    for (const std::size_t k : chain_slots(w.nodes[i])) {
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
  for (std::size_t i = 0; i < count; ++i) {
    if (!member[i]) continue;
    WNode& n = w.nodes[i];
    for (const std::size_t k : chain_slots(n)) n.inputs[k] = nhwc.at(n.inputs[k]);
    n.outputs[0] = nhwc.at(n.outputs[0]);
    if (kind[i] != Kind::pool) n.op = "FusedConv";
    n.attrs.insert_or_assign("layout", "NHWC");
  }
}

// The expanded image of a pointwise conv, per image, from which fusing it with the
// depthwise conv that reads it pays: smaller ones stay in cache between the two convs
// anyway, and splitting their few rows over the threads would expand rows twice.
constexpr std::int64_t kFuseExpandedBytes = 1 << 20;

// An NHWC FusedConv with constant weights of `taps` kernel extent, or null.
const Tensor* nhwc_conv_weights(const Work& w, const WNode& n) {
  if (!n.alive || n.op != "FusedConv" || n.outputs.size() != 1 || n.inputs.size() < 2) return nullptr;
  const auto layout = attr_of(n, "layout");
  if (!layout || layout->as_string() != "NHWC") return nullptr;
  const Tensor* wt = w.constant(n.inputs[1]);
  return wt != nullptr && wt->dtype() == DataType::f32 && wt->dims().size() == 4 ? wt : nullptr;
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
    if ((group && group->as_int() != 1) || !window_of(pw, 2).unit()) continue;
    const ValueId mid = pw.outputs[0];
    if (readers.count[mid] != 1 || w.is_output(mid)) continue;
    WNode& dw = w.nodes[readers.node[mid]];
    const Tensor* w2 = nhwc_conv_weights(w, dw);
    if (w2 == nullptr || dw.inputs[0] != mid || dw.inputs.size() < 3 || dw.inputs[2] == no_value) continue;
    const auto& d2 = w2->dims();
    const auto dw_group = attr_of(dw, "group");
    if (d2[1] != 1 || d2[0] != w1->dims()[0] || !dw_group || dw_group->as_int() != d2[0] || d2[2] * d2[3] > 49 ||
        window_of(dw, 2).auto_pad != ops::AutoPad::notset)
      continue;
    const Shape& ms = w.desc(mid).shape;  // [N, H, W, E]
    if (!ms.rank_known() || ms.rank() != 4 || !ms[1].is_static() || !ms[2].is_static() ||
        ms[1].value() * ms[2].value() * d2[0] * 4 < kFuseExpandedBytes)
      continue;
    // X, W1, B1 of the pointwise conv; W2, B2, Z of the depthwise one.
    std::vector<ValueId> ins{pw.inputs[0], pw.inputs[1], pw.inputs[2], dw.inputs[1], dw.inputs[2]};
    if (dw.inputs.size() > 3 && dw.inputs[3] != no_value) ins.push_back(dw.inputs[3]);
    Attributes attrs = dw.attrs;
    attrs.insert_or_assign("kernel_shape", std::vector<std::int64_t>{d2[2], d2[3]});
    for (const auto& [from, to] : {std::pair{"activation", "pointwise_activation"}, std::pair{"clip_min", "pointwise_clip_min"},
                                   std::pair{"clip_max", "pointwise_clip_max"}})
      if (const auto a = pw.attrs.find(from); a != pw.attrs.end()) attrs.insert_or_assign(to, a->second);
    dw.op = "FusedPointwiseDepthwise";
    dw.inputs = std::move(ins);
    dw.attrs = std::move(attrs);
    pw.alive = false;
    s.nodes_removed += 2;
    ++s.nodes_added;
  }
}

void layout_nhwc(Work& w, PassStats& s, bool dense_chains) {
  Chains chains = find_chains(w, dense_chains);
  const std::vector<bool> member = chain_members(w, chains, dense_chains);
  rewrite_members(w, s, chains.kind, member);
}
}  // namespace detail

Graph fuse_pointwise_depthwise(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_pointwise_depthwise", detail::fuse_pointwise_depthwise);
}

Graph layout_nhwc(const Graph& g, PassStats* stats, bool dense_chains) {
  return detail::run_pass(g, stats, "layout_nhwc",
                          [dense_chains](Work& w, PassStats& s) { detail::layout_nhwc(w, s, dense_chains); });
}

}  // namespace ge
