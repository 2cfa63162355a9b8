// Attention as exporters spell it, into one FusedAttention: MatMul(Q, K^T), a scale, an
// additive mask, Softmax over the last axis, MatMul by V, with the transposes that move
// heads and sequences around them absorbed as the operands' layouts. Before matching, a
// pick of one slice from the leading axis of a Transpose (the `qkv.unbind(0)` of a packed
// projection, exported as Split + Squeeze or as Gather) is moved before the Transpose, so
// that Q, K and V each reach the pattern through a Transpose of their own. Matched on
// the graph's structure (ops, edges, constants), never on names, and only where the fused
// op computes the same function; every intermediate value read by the pattern only.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compile/fold.hpp"
#include "compile/matcher.hpp"
#include "compile/pass_work.hpp"
#include "ge/compile/passes.hpp"
#include "ge/ops/registry.hpp"

namespace ge {

using detail::attr_of;
using detail::Matcher;
using detail::producer_of;
using detail::WNode;
using detail::Work;

namespace {

using Perm = std::vector<std::int64_t>;

std::optional<Perm> perm_of(const WNode& n) {
  if (n.op != "Transpose" || n.inputs.size() != 1 || n.outputs.size() != 1) return std::nullopt;
  const auto it = n.attrs.find("perm");
  if (it == n.attrs.end()) return std::nullopt;
  return it->second.as_ints();
}

// The ints of a constant input (an axes or split operand).
std::optional<std::vector<std::int64_t>> const_ints(const Work& w, ValueId v) {
  const Tensor* t = w.constant(v);
  if (t == nullptr || !t->has_data() || (t->dtype() != DataType::i64 && t->dtype() != DataType::i32))
    return std::nullopt;
  return t->to_int64s();
}

// The axes a Squeeze removes (input or attribute), or nullopt.
std::optional<std::vector<std::int64_t>> squeeze_axes(const Work& w, const WNode& n) {
  if (n.op != "Squeeze" || n.outputs.size() != 1) return std::nullopt;
  if (n.inputs.size() == 2) return const_ints(w, n.inputs[1]);
  const auto it = n.attrs.find("axes");
  if (n.inputs.size() == 1 && it != n.attrs.end()) return it->second.as_ints();
  return std::nullopt;
}

// One slice taken from axis 0 of a Transpose's output: the index, the node that yields
// the slice (a Gather, or the Squeeze after a Split), and the Split it came through.
struct Pick {
  std::int64_t index = 0;
  WNode* node = nullptr;
  WNode* split = nullptr;
};

// Every reader of `t`'s output as picks of axis 0 (Gathers of a constant scalar index, or
// one Split into size-1 parts each squeezed on axis 0), or nullopt when one reader is
// something else.
std::optional<std::vector<Pick>> picks_of(Work& w, const Matcher& m, const WNode& t, std::int64_t leading) {
  const ValueId y = t.outputs[0];
  if (w.is_output(y) || m.readers.of[y].empty()) return std::nullopt;
  std::vector<Pick> picks;
  for (const std::size_t r : m.readers.of[y]) {
    WNode& n = w.nodes[r];
    if (!n.alive) return std::nullopt;  // a reader an earlier hoist rewrote
    const auto axis = attr_of(n, "axis");
    if (!axis || axis->as_int() != 0 || n.inputs.empty() || n.inputs[0] != y) return std::nullopt;
    if (n.op == "Gather" && n.inputs.size() == 2 && n.outputs.size() == 1) {
      const Tensor* i = w.constant(n.inputs[1]);
      const auto idx = const_ints(w, n.inputs[1]);
      if (i == nullptr || !i->dims().empty() || !idx) return std::nullopt;
      const std::int64_t k = (*idx)[0] < 0 ? (*idx)[0] + leading : (*idx)[0];
      if (k < 0 || k >= leading) return std::nullopt;
      picks.push_back({k, &n, nullptr});
    } else if (n.op == "Split" && static_cast<std::int64_t>(n.outputs.size()) == leading) {
      if (n.inputs.size() == 2) {
        const auto sizes = const_ints(w, n.inputs[1]);
        if (!sizes || std::any_of(sizes->begin(), sizes->end(), [](std::int64_t v) { return v != 1; }))
          return std::nullopt;
      }
      for (std::size_t o = 0; o < n.outputs.size(); ++o) {
        WNode* sq = m.sole(n.outputs[o]);
        const auto axes = sq != nullptr ? squeeze_axes(w, *sq) : std::nullopt;
        if (!axes || axes->size() != 1 || (*axes)[0] != 0) return std::nullopt;
        picks.push_back({static_cast<std::int64_t>(o), sq, &n});
      }
    } else {
      return std::nullopt;
    }
  }
  return picks;
}

// Moves picks from axis 0 of a Transpose before it: pick(Transpose(x, perm), 0, i) is
// Transpose(Gather(x, perm[0], i), perm without its first entry, renumbered). The picks
// then read x's slices, and each Transpose can fold into what reads it.
void hoist_picks(Work& w, PassStats& s) {
  const Matcher m(w);
  const std::size_t count = w.nodes.size();
  for (std::size_t ti = 0; ti < count; ++ti) {
    if (!w.nodes[ti].alive) continue;
    const auto perm = perm_of(w.nodes[ti]);
    if (!perm || w.nodes[ti].inputs[0] == no_value) continue;
    const ValueId x = w.nodes[ti].inputs[0];
    const Shape& xs = w.desc(x).shape;
    if (!xs.rank_known() || xs.rank() < 2 || perm->size() != xs.rank()) continue;
    const std::int64_t a = (*perm)[0];
    if (a < 0 || a >= static_cast<std::int64_t>(xs.rank()) || !xs.dims()[static_cast<std::size_t>(a)].is_static())
      continue;
    const auto picks = picks_of(w, m, w.nodes[ti], xs.dims()[static_cast<std::size_t>(a)].value());
    if (!picks) continue;
    Perm rest;
    for (std::size_t j = 1; j < perm->size(); ++j) rest.push_back((*perm)[j] > a ? (*perm)[j] - 1 : (*perm)[j]);
    bool identity = true;
    for (std::size_t j = 0; j < rest.size(); ++j) identity = identity && rest[j] == static_cast<std::int64_t>(j);
    std::vector<Dim> dims = xs.dims();
    dims.erase(dims.begin() + a);
    const std::string tname = w.nodes[ti].name;
    w.nodes[ti].alive = false;
    ++s.nodes_removed;
    std::vector<WNode> added;  // appended after the loop: `picks` points into w.nodes
    for (const Pick& p : *picks) {
      if (p.split != nullptr && p.split->alive) {
        p.split->alive = false;
        ++s.nodes_removed;
      }
      const ValueId out = p.node->outputs[0];
      const ValueId index = w.add_constant(tname + ".pick", Tensor::from<std::int64_t>({}, {p.index}));
      const std::string name = p.node->name;
      if (identity) {
        *p.node = WNode{name, "Gather", {x, index}, {out}, {{"axis", a}}, true};
        continue;
      }
      const ValueId slice = w.add_value(w.values[out].name + ".slice", {w.desc(x).dtype, Shape(dims)});
      *p.node = WNode{name, "Transpose", {slice}, {out}, {{"perm", rest}}, true};
      added.push_back(WNode{name + ".pick", "Gather", {x, index}, {slice}, {{"axis", a}}, true});
      ++s.nodes_added;
    }
    w.nodes.insert(w.nodes.end(), added.begin(), added.end());
  }
}

// Identity and Dropout outside training or with a ratio of 0 (its mask unread) pass their input on:
// their readers read the input instead (torch exports the Dropout after attention's
// Softmax). A graph output keeps its node.
void bypass_no_ops(Work& w, PassStats& s) {
  std::unordered_map<ValueId, ValueId> to;
  const Matcher m(w);
  for (WNode& n : w.nodes) {
    if (!n.alive || n.inputs.empty() || n.inputs[0] == no_value || n.outputs.empty() || w.is_output(n.outputs[0]))
      continue;
    bool no_op = n.op == "Identity" && n.inputs.size() == 1 && n.outputs.size() == 1;
    if (n.op == "Dropout") {
      const bool mask_unread = n.outputs.size() < 2 || n.outputs[1] == no_value ||
                               (m.readers.of[n.outputs[1]].empty() && !w.is_output(n.outputs[1]));
      // Outside training, or training with a ratio of 0 (what torch exports from a module left in training).
      const auto zero = [&](std::size_t i) {
        const Tensor* t = n.inputs.size() > i && n.inputs[i] != no_value ? w.constant(n.inputs[i]) : nullptr;
        return t != nullptr && t->has_data() && t->to_doubles() == std::vector{0.0};
      };
      const bool training_absent = n.inputs.size() < 3 || n.inputs[2] == no_value;
      no_op = mask_unread && (training_absent || zero(2) || zero(1));
    }
    if (!no_op) continue;
    to[n.outputs[0]] = n.inputs[0];
    n.alive = false;
    ++s.nodes_removed;
  }
  if (to.empty()) return;
  for (WNode& n : w.nodes)
    if (n.alive)
      for (ValueId& v : n.inputs)
        for (auto it = to.find(v); it != to.end(); it = to.find(v)) v = it->second;  // through chains of them
}

bool f32_rank(const Work& w, ValueId v, std::size_t rank) {
  const TensorDesc& d = w.desc(v);
  return d.dtype == DataType::f32 && d.shape.rank_known() && d.shape.rank() == rank;
}

// `n` is a Transpose with `perm` whose output only `reader` reads.
bool transposes(const Matcher& m, const WNode* n, const WNode* reader, const Perm& perm) {
  const auto p = n != nullptr ? perm_of(*n) : std::nullopt;
  return p && *p == perm && m.sole(n->outputs[0]) == reader;
}

// The layouts of one rank: what a Transpose feeding Q or V (or reading the output)
// turns, and the two ways K^T may come.
struct Layouts {
  const char* plain;       // the operand as the MatMuls read it
  const char* moved;       // through `move`
  Perm move;               // Q, V in and Y out
  Perm k_plain, k_moved;   // K^T from a `plain` or a `moved` K
};
const Layouts kRank3{"bsd", "sbd", {1, 0, 2}, {0, 2, 1}, {1, 2, 0}};
const Layouts kRank4{"bhsd", "bshd", {0, 2, 1, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}};

// A constant scalar scale: `n`, a Div or Mul of its first input by a one-element
// constant, as a factor.
std::optional<double> scale_of(const Matcher& m, const WNode* n) {
  if (n == nullptr || (n->op != "Div" && n->op != "Mul") || n->inputs.size() != 2 || n->outputs.size() != 1)
    return std::nullopt;
  const auto c = m.scalar(n->inputs[1]);
  if (!c || *c == 0.0) return std::nullopt;
  return n->op == "Div" ? 1.0 / *c : *c;
}

// Whether a mask of `ms` adds to scores of `ss` by numpy's broadcasting.
bool broadcasts(const Shape& ms, const Shape& ss) {
  if (!ms.rank_known() || ms.rank() > ss.rank()) return false;
  const std::size_t skip = ss.rank() - ms.rank();
  for (std::size_t i = 0; i < ms.rank(); ++i) {
    const Dim& md = ms.dims()[i];
    const Dim& sd = ss.dims()[skip + i];
    // A static mask dim is 1 or the scores' static dim; a dynamic one may only equal it.
    const bool ok = md.is_static() ? md.value() == 1 || (sd.is_static() && sd.value() == md.value())
                                   : compatible(md, sd);
    if (!ok) return false;
  }
  return true;
}

// Swin's shifted windows add a constant mask per window in a view that splits the batch:
// Reshape [B, H, Sq, Sk] -> [B/W, W, H, Sq, Sk], Add the mask, Reshape back. The mask then
// holds for batch b at window b mod W: as FusedAttention's mask, [W, H', Sq', Sk'].
struct WindowMask {
  Tensor mask;
  ValueId scores = no_value;  // the [B, H, Sq, Sk] value before the view
  std::vector<WNode*> nodes;
};

std::optional<WindowMask> window_mask(Work& w, const Matcher& m, ValueId v, const WNode* reader) {
  WNode* back = producer_of(w, v);
  if (back == nullptr || back->op != "Reshape" || m.sole(v) != reader) return std::nullopt;
  const ValueId a = back->inputs[0];
  WNode* add = producer_of(w, a);
  if (add == nullptr || add->op != "Add" || add->inputs.size() != 2 || m.sole(a) != back) return std::nullopt;
  for (std::size_t side = 0; side < 2; ++side) {
    const Tensor* c = w.constant(add->inputs[1 - side]);
    const ValueId r = add->inputs[side];
    WNode* view = producer_of(w, r);
    if (c == nullptr || !c->has_data() || c->dtype() != DataType::f32 || view == nullptr || view->op != "Reshape" ||
        m.sole(r) != add)
      continue;
    const Shape& xs = w.desc(view->inputs[0]).shape;
    const Shape& rs = w.desc(r).shape;
    const Shape& vs = w.desc(v).shape;
    if (!xs.rank_known() || !rs.rank_known() || !vs.rank_known() || xs.rank() != 4 || rs.rank() != 5 || vs != xs)
      continue;
    bool fits = c->dims().size() <= 5;
    for (std::size_t i = 1; i < 5 && fits; ++i) fits = rs.dims()[i].is_static();
    for (std::size_t i = 1; i < 4 && fits; ++i) fits = xs.dims()[i] == rs.dims()[i + 1];
    // The constant right-aligned to the view: 1 on the batch of windows, else 1 or the view's dim.
    std::vector<std::int64_t> cd(5 - std::min<std::size_t>(c->dims().size(), 5), 1);
    cd.insert(cd.end(), c->dims().begin(), c->dims().end());
    for (std::size_t i = 0; i < 5 && fits; ++i)
      fits = cd[i] == 1 || (i > 0 && cd[i] == rs.dims()[i].value());
    if (!fits) continue;
    Tensor mask(DataType::f32, {cd[1], cd[2], cd[3], cd[4]},
                std::vector<std::byte>(c->bytes().begin(), c->bytes().end()));
    return WindowMask{std::move(mask), view->inputs[0], {back, add, view}};
  }
  return std::nullopt;
}

// The sum of two constant masks (numpy's broadcasting), by the Add kernel.
std::optional<Tensor> sum_of(const Tensor& a, const Tensor& b) {
  const TensorDesc descs[2] = {a.desc(), b.desc()};
  const Tensor* consts[2] = {&a, &b};
  const Attributes none;
  auto out = detail::evaluate({OpRegistry::global().find("Add"), "mask_sum", descs, consts, none, 1});
  if (!out || out->size() != 1) return std::nullopt;
  return std::move((*out)[0]);
}

// The chain from the scores' MatMul to the Softmax: [* or / a constant] [+ a mask]
// [+ a window mask].
struct Scores {
  WNode* matmul = nullptr;
  double scale = 1.0;
  ValueId mask = no_value;
  std::vector<WNode*> nodes;  // the chain's nodes after the MatMul
};

std::optional<Scores> scores_of(Work& w, const Matcher& m, const WNode& sm, std::size_t rank) {
  Scores sc;
  ValueId v = sm.inputs[0];
  const WNode* reader = &sm;
  auto windows = rank == 4 ? window_mask(w, m, v, reader) : std::nullopt;
  if (windows) {
    sc.nodes = windows->nodes;
    reader = windows->nodes.back();
    v = windows->scores;
  }
  WNode* n = producer_of(w, v);
  if (n != nullptr && n->op == "Add" && n->inputs.size() == 2 && m.sole(v) == reader) {
    for (std::size_t side = 0; side < 2 && sc.mask == no_value; ++side) {
      const ValueId s = n->inputs[side], mask = n->inputs[1 - side];
      WNode* p = producer_of(w, s);
      if (p == nullptr || m.sole(s) != n || (p->op != "MatMul" && !scale_of(m, p))) continue;
      if (!m.f32(mask) || !broadcasts(w.desc(mask).shape, w.desc(s).shape)) continue;
      sc.mask = mask;
      sc.nodes.push_back(n);
      reader = n;
      v = s;
    }
    if (sc.mask == no_value) return std::nullopt;
    n = producer_of(w, v);
  }
  if (n != nullptr && m.sole(v) == reader) {
    if (const auto f = scale_of(m, n)) {
      sc.scale = *f;
      sc.nodes.push_back(n);
      reader = n;
      v = n->inputs[0];
      n = producer_of(w, v);
    }
  }
  if (n == nullptr || n->op != "MatMul" || n->inputs.size() != 2 || m.sole(v) != reader || !f32_rank(w, v, rank))
    return std::nullopt;
  sc.matmul = n;
  if (windows) {  // one constant mask: the window's, plus the other when there is one
    const Tensor* other = sc.mask != no_value ? w.constant(sc.mask) : nullptr;
    if (sc.mask != no_value && (other == nullptr || !other->has_data() || other->dims().size() > 4 ||
                                (other->dims().size() == 4 && other->dims()[0] != 1)))
      return std::nullopt;
    auto mask = other != nullptr ? sum_of(windows->mask, *other) : std::optional<Tensor>(windows->mask);
    if (!mask) return std::nullopt;
    sc.mask = w.add_constant(sm.name + ".mask", std::move(*mask));
  }
  return sc;
}

// Q, K or V as the fused op reads it: the value and its layout, and the nodes absorbed.
struct Operand {
  ValueId value = no_value;
  std::string layout;
};

// Q or V: through a Transpose `move` (then `moved`), else as is.
Operand moved_or_plain(Work& w, const Matcher& m, ValueId v, const WNode* reader, const Layouts& l,
                       std::vector<WNode*>& gone) {
  WNode* t = producer_of(w, v);
  if (transposes(m, t, reader, l.move)) {
    gone.push_back(t);
    return {t->inputs[0], l.moved};
  }
  return {v, l.plain};
}

}  // namespace

namespace detail {
void fuse_attention(Work& w, PassStats& s) {
  bypass_no_ops(w, s);
  hoist_picks(w, s);
  const Matcher m(w);
  for (const std::size_t i : w.order) {
    WNode& sm = w.nodes[i];
    if (!sm.alive || sm.op != "Softmax" || sm.inputs.size() != 1 || sm.outputs.size() != 1) continue;
    const Shape& ss = w.desc(sm.inputs[0]).shape;
    if (!ss.rank_known() || (ss.rank() != 3 && ss.rank() != 4) || !f32_rank(w, sm.inputs[0], ss.rank())) continue;
    const std::size_t rank = ss.rank();
    const Layouts& l = rank == 3 ? kRank3 : kRank4;
    const auto axis = attr_of(sm, "axis");
    if (!axis || (axis->as_int() != -1 && axis->as_int() != static_cast<std::int64_t>(rank) - 1)) continue;
    auto sc = scores_of(w, m, sm, rank);
    WNode* out = m.sole_op(sm.outputs[0], "MatMul", 2);
    if (!sc || out == nullptr || out->inputs[0] != sm.outputs[0] || !f32_rank(w, out->outputs[0], rank)) continue;
    WNode* scores = sc->matmul;
    std::vector<WNode*> gone{scores, &sm, out};
    gone.insert(gone.end(), sc->nodes.begin(), sc->nodes.end());
    // Q: [scaled by a constant] [through a Transpose].
    ValueId q = scores->inputs[0];
    const WNode* q_reader = scores;
    double scale = sc->scale;
    WNode* qs = producer_of(w, q);
    if (const auto f = m.sole(q) == scores ? scale_of(m, qs) : std::nullopt) {
      scale *= *f;
      gone.push_back(qs);
      q = qs->inputs[0];
      q_reader = qs;
    }
    const Operand qo = moved_or_plain(w, m, q, q_reader, l, gone);
    // K^T: a Transpose of K in either layout.
    WNode* kt = producer_of(w, scores->inputs[1]);
    std::string k_layout;
    if (transposes(m, kt, scores, l.k_plain)) k_layout = l.plain;
    else if (transposes(m, kt, scores, l.k_moved)) k_layout = l.moved;
    else continue;
    gone.push_back(kt);
    ValueId k = kt->inputs[0];
    if (WNode* km = producer_of(w, k); k_layout == l.plain && transposes(m, km, kt, l.move)) {
      gone.push_back(km);  // a plain K made by moving one: K^T straight from the moved K
      k = km->inputs[0];
      k_layout = l.moved;
    }
    const Operand vo = moved_or_plain(w, m, out->inputs[1], out, l, gone);
    // The output: [through a Transpose back].
    ValueId y = out->outputs[0];
    std::string out_layout = l.plain;
    if (WNode* yt = m.sole(y); yt != nullptr && perm_of(*yt) == std::optional<Perm>(l.move)) {
      y = yt->outputs[0];
      out_layout = l.moved;
      gone.push_back(yt);
    }
    if (!f32_rank(w, qo.value, rank) || !f32_rank(w, k, rank) || !f32_rank(w, vo.value, rank)) continue;
    WNode& fused = *scores;
    for (WNode* n : gone)
      if (n != &fused) n->alive = false;
    s.nodes_removed += gone.size();
    ++s.nodes_added;
    fused.name = out->name;
    fused.op = "FusedAttention";
    fused.inputs = {qo.value, k, vo.value};
    if (sc->mask != no_value) fused.inputs.push_back(sc->mask);
    fused.outputs = {y};
    fused.attrs = {{"scale", scale}, {"q_layout", qo.layout}, {"k_layout", k_layout}, {"v_layout", vo.layout},
                   {"out_layout", out_layout}};
  }
}
}  // namespace detail

Graph fuse_attention(const Graph& g, PassStats* stats) {
  return detail::run_pass(g, stats, "fuse_attention", detail::fuse_attention);
}

}  // namespace ge
