// fold_transposes: a Transpose of a Transpose is one Transpose of the first one's input,
// and none at all where the two permutations undo each other. The layout pass leaves such
// pairs where a model permutes its own tensors next to a chain it ran on NHWC images
// (ConvNeXt's NCHW -> NHWC Permute right after a depthwise conv the pass made NHWC:
// the pass's `.to_nchw` and the model's permute cancel).
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

}  // namespace

void fold_transposes(Work& w, PassStats& s) {
  std::vector<std::size_t> producer(w.values.size(), SIZE_MAX);
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    if (w.nodes[i].alive)
      for (const ValueId v : w.nodes[i].outputs) producer[v] = i;
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
    second.inputs[0] = source;
    second.attrs.insert_or_assign("perm", both);
  }
}

}  // namespace ge::detail
