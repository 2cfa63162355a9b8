// fold_transposes: a Transpose of a Transpose is one Transpose of the first one's input,
// and none at all where the two permutations undo each other. The layout pass leaves such
// pairs where a model permutes its own tensors next to a chain it ran on NHWC images
// (ConvNeXt's NCHW -> NHWC Permute right after a depthwise conv the pass made NHWC:
// the pass's `.to_nchw` and the model's permute cancel). A Transpose into NHWC that only
// first convs over few channels read goes into them (`fold_into_first_convs`).
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "compile/pass_work.hpp"

namespace ge::detail {

namespace {

// The permutation of a Transpose over a rank-`rank` input (ONNX's default: reversed).
std::vector<std::int64_t> perm_of(const WNode& n, std::size_t rank) {
  const auto a = attr_of(n, "perm");
  std::vector<std::int64_t> p = a ? a->as_ints() : std::vector<std::int64_t>{};
  if (p.empty())
    for (std::size_t i = rank; i-- > 0;) p.push_back(static_cast<std::int64_t>(i));
  return p;
}

bool is_permutation(const std::vector<std::int64_t>& p) {
  std::vector<bool> seen(p.size(), false);
  for (const std::int64_t v : p) {
    if (v < 0 || v >= static_cast<std::int64_t>(p.size()) || seen[static_cast<std::size_t>(v)]) return false;
    seen[static_cast<std::size_t>(v)] = true;
  }
  return true;
}

// The live node making each value (SIZE_MAX: none, an input or a constant).
std::vector<std::size_t> producers(const Work& w) {
  std::vector<std::size_t> producer(w.values.size(), SIZE_MAX);
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    if (w.nodes[i].alive)
      for (const ValueId v : w.nodes[i].outputs) producer[v] = i;
  return producer;
}

// A stand-in for the one dim that is not static (a free batch) in `reshape_dims`: a prime
// no product of other dims equals, so `split_groups` keeps it an axis of its own.
constexpr std::int64_t kFree = 2147483647;

// The dims of a value with its one non-static dim, if any, as `kFree` (`free`: that dim,
// which must be the same Dim on every value of one rewrite); nullopt for more than one.
std::optional<std::vector<std::int64_t>> reshape_dims(const Work& w, ValueId v, std::optional<Dim>& free) {
  const Shape& x = w.desc(v).shape;
  if (!x.rank_known()) return std::nullopt;
  std::vector<std::int64_t> d;
  bool seen = false;
  for (const Dim& a : x.dims()) {
    if (a.is_static()) {
      if (a.value() >= kFree) return std::nullopt;
      d.push_back(a.value());
      continue;
    }
    if (seen || (free && !(*free == a))) return std::nullopt;
    seen = true;
    free = a;
    d.push_back(kFree);
  }
  return d;
}

// Dims with `kFree` back as the free dim (a Reshape's -1, or `free` in a description).
std::vector<std::int64_t> as_reshape(std::vector<std::int64_t> d) {
  for (std::int64_t& e : d)
    if (e == kFree) e = -1;
  return d;
}
Shape as_shape(const std::vector<std::int64_t>& d, const std::optional<Dim>& free) {
  std::vector<Dim> out;
  for (const std::int64_t e : d) out.push_back(e == kFree && free ? *free : Dim(e));
  return Shape(std::move(out));
}

// How `fine` splits `coarse` when a Reshape only splits axes (or, read the other way,
// only merges neighbours): per axis of `coarse`, the first axis of `fine` its group
// starts at (and, last, fine's rank); nullopt when it is not such a Reshape. An axis of 1
// takes one fine axis of 1.
std::optional<std::vector<std::size_t>> split_groups(const std::vector<std::int64_t>& coarse,
                                                     const std::vector<std::int64_t>& fine) {
  std::vector<std::size_t> start;
  std::size_t pos = 0;
  for (const std::int64_t c : coarse) {
    start.push_back(pos);
    std::int64_t prod = 1;
    do {
      if (pos == fine.size() || fine[pos] < 1) return std::nullopt;
      prod *= fine[pos++];
    } while (prod < c);
    if (prod != c) return std::nullopt;
  }
  if (pos != fine.size()) return std::nullopt;
  start.push_back(pos);
  return start;
}

// A Transpose next to a Reshape that only splits or merges axes, with another Transpose
// on the Reshape's other side, moves to that side, where the two become one (the pair
// below): MaxViT's window partition, `x.view(B, C, H/p, p, W/p, p).permute(...)`, after
// the layout pass's Transpose back to NCHW reads the NHWC image in place, split as
// [B, H/p, p, W/p, p, C]; its departition merges back into NHWC the same way.
//   Transpose(P) -> split -> Transpose: split' (X's axes, each split as its image under P
//   is) -> Transpose(Q), Q placing each group where P put its axis.
//   Transpose -> merge -> Transpose(P): Transpose(Q) (the groups of the merged axes in P's
//   order) -> merge' (to the output's dims).
void push_through_reshapes(Work& w, PassStats& s) {
  const Work::Readers readers = w.readers();
  const std::vector<std::size_t> producer = producers(w);
  const auto only_reader = [&](ValueId v) {
    return readers.count[v] == 1 && !w.is_output(v) ? readers.node[v] : SIZE_MAX;
  };
  const auto is_transpose = [&](std::size_t i) {
    return i != SIZE_MAX && w.nodes[i].alive && w.nodes[i].op == "Transpose" && w.nodes[i].inputs.size() == 1;
  };
  const auto reshape_to = [&](WNode& r, ValueId from, const std::vector<std::int64_t>& dims) {
    r.inputs = {from, w.add_constant(r.name + ".split", Tensor::from<std::int64_t>({static_cast<std::int64_t>(dims.size())}, dims))};
    r.attrs = Attributes{};
  };
  for (const std::size_t ri : w.order) {
    WNode& r = w.nodes[ri];
    if (!r.alive || r.op != "Reshape" || r.inputs.size() != 2 || r.outputs.size() != 1) continue;
    const std::size_t before = producer[r.inputs[0]], after = only_reader(r.outputs[0]);
    if (!is_transpose(before) || !is_transpose(after) || only_reader(r.inputs[0]) != ri) continue;
    // (A free batch is one axis that the Reshape keeps whole: the same Dim on each side.)
    std::optional<Dim> free;
    const auto in = reshape_dims(w, r.inputs[0], free), out = reshape_dims(w, r.outputs[0], free);
    const auto x = reshape_dims(w, w.nodes[before].inputs[0], free);
    if (!in || !out || !x) continue;
    WNode& t = w.nodes[before];
    WNode& u = w.nodes[after];
    const std::vector<std::int64_t> p = perm_of(t, in->size()), q_after = perm_of(u, out->size());
    if (p.size() != in->size() || !is_permutation(p) || q_after.size() != out->size() || !is_permutation(q_after))
      continue;
    if (const auto g = split_groups(*in, *out)) {
      // A split: Y = T(X, P) split into Z. X axis P[i] splits as Y axis i does.
      std::vector<std::size_t> inv(p.size());
      for (std::size_t i = 0; i < p.size(); ++i) inv[static_cast<std::size_t>(p[i])] = i;
      std::vector<std::int64_t> dims;
      std::vector<std::size_t> at(p.size());  // where X axis j's group starts in the new split
      for (std::size_t j = 0; j < p.size(); ++j) {
        at[j] = dims.size();
        for (std::size_t e = (*g)[inv[j]]; e < (*g)[inv[j] + 1]; ++e) dims.push_back((*out)[e]);
      }
      std::vector<std::int64_t> q;
      for (std::size_t i = 0; i < p.size(); ++i)
        for (std::size_t e = 0; e < (*g)[i + 1] - (*g)[i]; ++e)
          q.push_back(static_cast<std::int64_t>(at[static_cast<std::size_t>(p[i])] + e));
      // The Reshape now splits X; the Transpose reads it and gives Z.
      const ValueId z = r.outputs[0], y = t.outputs[0];
      TensorDesc split = w.desc(z);
      split.shape = as_shape(dims, free);
      w.values[y].desc = split;  // (Y, read only here, now names the split of X)
      reshape_to(r, t.inputs[0], as_reshape(dims));
      r.outputs = {y};
      t.inputs = {y};
      t.outputs = {z};
      t.attrs.insert_or_assign("perm", q);
      std::swap(r, t);  // (keep the order: the Reshape first)
      ++s.nodes_added, ++s.nodes_removed;
    } else if (const auto m = split_groups(*out, *in)) {
      // A merge: Y (from a Transpose) merged into Z, read by U = T(Z, Q): U's axis k is Z
      // axis Q[k], the group of Y's axes (*m)[Q[k]].. in order.
      std::vector<std::int64_t> perm;
      std::vector<std::int64_t> dims;
      for (const std::int64_t k : q_after) {
        for (std::size_t e = (*m)[static_cast<std::size_t>(k)]; e < (*m)[static_cast<std::size_t>(k) + 1]; ++e)
          perm.push_back(static_cast<std::int64_t>(e));
        dims.push_back((*out)[static_cast<std::size_t>(k)]);
      }
      std::vector<std::int64_t> moved;
      for (const std::int64_t e : perm) moved.push_back((*in)[static_cast<std::size_t>(e)]);
      const ValueId yv = r.inputs[0], z = r.outputs[0], uout = u.outputs[0];
      TensorDesc tmid = w.desc(yv);
      tmid.shape = as_shape(moved, free);
      w.values[z].desc = tmid;  // (Z, read only by U, now names Y transposed)
      u.inputs = {yv};
      u.outputs = {z};
      u.attrs.insert_or_assign("perm", perm);
      reshape_to(r, z, as_reshape(dims));
      r.outputs = {uout};
      std::swap(r, u);  // (the Transpose first)
      ++s.nodes_added, ++s.nodes_removed;
    }
  }
}

// A Transpose from NCHW to NHWC read only as the image of NHWC convs over at most 4 input
// channels (an image net's first conv: the layout pass's `.to_nhwc` of the model's input)
// goes: the convs read the image as given (x_layout NCHW). At batch 8 the transpose of
// the 3 x 224 x 224 images took 290 us of MNASNet-0.5's 12.5 ms, at batch 1 1-2% of the
// small nets' time.
void fold_into_first_convs(Work& w, PassStats& s) {
  const auto reads_nchw = [&](const WNode& n, ValueId v) {
    if (!n.alive || n.op != "FusedConv" || n.inputs.size() < 2 || n.inputs[0] != v) return false;
    for (std::size_t k = 1; k < n.inputs.size(); ++k)
      if (n.inputs[k] == v) return false;
    const auto layout = attr_of(n, "layout"), x_layout = attr_of(n, "x_layout"), group = attr_of(n, "group");
    const auto x_scale = attr_of(n, "x_scale");
    const bool gate = n.inputs.size() > 4 && n.inputs[4] != no_value;
    const Tensor* wt = w.constant(n.inputs[1]);
    return layout && layout->as_string() == "NHWC" && (!x_layout || x_layout->as_string().empty()) &&
           (!group || group->as_int() == 1) && (!x_scale || x_scale->as_float() <= 0.0) && !gate &&
           wt != nullptr && wt->dtype() == DataType::f32 && wt->dims().size() == 4 && wt->dims()[1] <= 4;
  };
  for (const std::size_t i : w.order) {
    WNode& t = w.nodes[i];
    if (!t.alive || t.op != "Transpose" || t.inputs.size() != 1 || t.outputs.size() != 1) continue;
    const ValueId x = t.inputs[0], y = t.outputs[0];
    const Shape& xs = w.desc(x).shape;
    if (w.is_output(y) || w.desc(x).dtype != DataType::f32 || !xs.rank_known() || xs.rank() != 4 ||
        perm_of(t, 4) != std::vector<std::int64_t>{0, 2, 3, 1})
      continue;
    std::vector<std::size_t> convs;
    bool others = false;
    for (std::size_t j = 0; j < w.nodes.size() && !others; ++j) {
      const WNode& n = w.nodes[j];
      if (!n.alive || std::find(n.inputs.begin(), n.inputs.end(), y) == n.inputs.end()) continue;
      if (reads_nchw(n, y)) convs.push_back(j);
      else others = true;
    }
    if (others || convs.empty()) continue;
    for (const std::size_t j : convs) {
      w.nodes[j].inputs[0] = x;
      w.nodes[j].attrs.insert_or_assign("x_layout", "NCHW");
    }
    t.alive = false;
    ++s.nodes_removed;
  }
}

}  // namespace

// A Shape of a Transpose's output read only by Gathers at constant indices (a dynamic
// export's batch, `x.size(0)`, beside MaxViT's window partition) reads the Transpose's
// input instead, each index i now perm[i]: the Transpose then has one reader less, which
// `push_through_reshapes` needs (it moves a Transpose read only by its Reshape). A Shape
// no node reads (its Gathers folded) moves too.
void shapes_before_transposes(Work& w) {
  const Work::Readers readers = w.readers();
  const std::vector<std::size_t> producer = producers(w);
  for (const std::size_t i : w.order) {
    const WNode& n = w.nodes[i];
    const auto start = attr_of(n, "start");
    if (!n.alive || n.op != "Shape" || n.inputs.size() != 1 || n.outputs.size() != 1 ||
        (start && start->as_int() != 0) || attr_of(n, "end") || producer[n.inputs[0]] == SIZE_MAX ||
        w.is_output(n.outputs[0]))
      continue;
    const WNode& t = w.nodes[producer[n.inputs[0]]];
    const Shape& x = t.inputs.empty() ? Shape::unknown_rank() : w.desc(t.inputs[0]).shape;
    if (t.op != "Transpose" || t.inputs.size() != 1 || !x.rank_known()) continue;
    const std::vector<std::int64_t> p = perm_of(t, x.rank());
    if (p.size() != x.rank() || !is_permutation(p)) continue;
    const auto rank = static_cast<std::int64_t>(p.size());
    std::vector<std::size_t> gathers;
    for (std::size_t j = 0; j < w.nodes.size(); ++j) {
      const WNode& g = w.nodes[j];
      if (!g.alive || std::find(g.inputs.begin(), g.inputs.end(), n.outputs[0]) == g.inputs.end()) continue;
      const auto axis = attr_of(g, "axis");
      const Tensor* idx = g.op == "Gather" && g.inputs.size() == 2 ? w.constant(g.inputs[1]) : nullptr;
      bool ok = g.inputs[0] == n.outputs[0] && (!axis || axis->as_int() == 0) && idx != nullptr &&
                idx->dims().size() <= 1 && (idx->dtype() == DataType::i64 || idx->dtype() == DataType::i32);
      for (const std::int64_t k : ok ? idx->to_int64s() : std::vector<std::int64_t>{})
        ok = ok && k >= -rank && k < rank;
      if (!ok) {
        gathers.clear();
        break;
      }
      gathers.push_back(j);
    }
    if (gathers.size() != readers.count[n.outputs[0]]) continue;  // (none: a Shape left unread by the folding)
    for (const std::size_t j : gathers) {
      const Tensor& idx = *w.constant(w.nodes[j].inputs[1]);
      std::vector<std::int64_t> moved;
      for (const std::int64_t k : idx.to_int64s()) moved.push_back(p[static_cast<std::size_t>(k < 0 ? k + rank : k)]);
      const ValueId id = w.add_constant(w.nodes[j].name + ".indices", Tensor::from<std::int64_t>(idx.dims(), moved));
      w.nodes[j].inputs[1] = id;
    }
    w.nodes[i].inputs[0] = w.nodes[producer[w.nodes[i].inputs[0]]].inputs[0];  // (no node added or removed)
  }
}

void fold_transposes(Work& w, PassStats& s) {
  shapes_before_transposes(w);
  push_through_reshapes(w, s);
  fold_into_first_convs(w, s);
  const std::vector<std::size_t> producer = producers(w);
  const auto transpose_perm = [&](const WNode& n) -> std::optional<std::vector<std::int64_t>> {
    if (!n.alive || n.op != "Transpose" || n.inputs.size() != 1 || n.outputs.size() != 1) return std::nullopt;
    const Shape& x = w.desc(n.inputs[0]).shape;
    if (!x.rank_known()) return std::nullopt;
    std::vector<std::int64_t> p = perm_of(n, x.rank());
    if (p.size() != x.rank() || !is_permutation(p)) return std::nullopt;
    return p;
  };
  for (const std::size_t i : w.order) {
    WNode& second = w.nodes[i];
    const auto outer = transpose_perm(second);
    if (!outer || producer[second.inputs[0]] == SIZE_MAX) continue;
    const WNode& first = w.nodes[producer[second.inputs[0]]];
    const auto inner = transpose_perm(first);
    if (!inner || inner->size() != outer->size()) continue;
    // Output dim j of `second` is its input's dim outer[j], which is `first`'s input dim inner[outer[j]].
    std::vector<std::int64_t> both(outer->size());
    bool identity = true;
    for (std::size_t j = 0; j < both.size(); ++j) {
      both[j] = (*inner)[static_cast<std::size_t>((*outer)[j])];
      identity = identity && both[j] == static_cast<std::int64_t>(j);
    }
    const ValueId source = first.inputs[0], out = second.outputs[0];
    if (identity && !w.is_output(out)) {
      // Every reader of the second Transpose's output reads the first one's input instead.
      for (WNode& n : w.nodes)
        if (n.alive)
          for (ValueId& v : n.inputs)
            if (v == out) v = source;
      second.alive = false;
      ++s.nodes_removed;
      continue;
    }
    // A layout pass's Transpose (`.to_nhwc`, `.to_nchw`) folded into the model's own one is
    // the model's op now, named after it (`gec compile` counts layout Transposes by name).
    const auto layout = [](const std::string& name) {
      return name.find(".to_nhwc") != std::string::npos || name.find(".to_nchw") != std::string::npos ||
             name.find(".to_ncdhw") != std::string::npos;
    };
    if (layout(second.name) && !layout(first.name)) second.name = first.name + ".with_layout";
    second.inputs[0] = source;
    second.attrs.insert_or_assign("perm", both);
  }
}

}  // namespace ge::detail
