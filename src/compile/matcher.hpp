#pragma once
// Private to the graph passes (src/compile/fusions.cpp, src/compile/attention.cpp): who
// reads a value and the small structural questions the fusions ask of the working form.

#include <optional>
#include <string_view>
#include <vector>

#include "compile/pass_work.hpp"

namespace ge::detail {

// Who reads each value: the alive nodes, once per input slot.
struct Readers {
  std::vector<std::vector<std::size_t>> of;

  explicit Readers(const Work& w) : of(w.values.size()) {
    for (std::size_t i = 0; i < w.nodes.size(); ++i) {
      if (!w.nodes[i].alive) continue;
      for (const ValueId v : w.nodes[i].inputs)
        if (v != no_value) of[v].push_back(i);
    }
  }
};

struct Matcher {
  Work& w;
  Readers readers;

  explicit Matcher(Work& work) : w(work), readers(work) {}

  // The one alive node reading `v` when nothing else reads it and it is no graph output.
  [[nodiscard]] WNode* sole(ValueId v) const {
    if (v == no_value || readers.of[v].size() != 1 || w.is_output(v)) return nullptr;
    WNode* n = &w.nodes[readers.of[v][0]];
    return n->alive ? n : nullptr;
  }
  // `sole(v)` when it is an `op` with `inputs` inputs and one output.
  [[nodiscard]] WNode* sole_op(ValueId v, std::string_view op, std::size_t inputs) const {
    WNode* n = sole(v);
    return n != nullptr && n->op == op && n->inputs.size() == inputs && n->outputs.size() == 1 ? n : nullptr;
  }
  // The one-element f32 constant behind `v`.
  [[nodiscard]] std::optional<double> scalar(ValueId v) const {
    const Tensor* t = w.constant(v);
    if (t == nullptr || !t->has_data() || t->element_count() != 1 || t->dtype() != DataType::f32) return std::nullopt;
    return t->to_doubles()[0];
  }
  // The input of binary node `n` other than `v` (nullopt unless `v` is one of its two).
  [[nodiscard]] static std::optional<ValueId> other(const WNode& n, ValueId v) {
    if (n.inputs.size() != 2) return std::nullopt;
    if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
    if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
    return std::nullopt;
  }
  // The constant operand of binary node `n` beside `v`, as a scalar.
  [[nodiscard]] std::optional<double> scalar_beside(const WNode& n, ValueId v) const {
    const auto o = other(n, v);
    return o ? scalar(*o) : std::nullopt;
  }
  [[nodiscard]] bool f32(ValueId v) const { return w.desc(v).dtype == DataType::f32; }
};

// The alive node producing `v` alone (one output), or nullptr.
inline WNode* producer_of(Work& w, ValueId v) {
  for (WNode& n : w.nodes)
    if (n.alive && n.outputs.size() == 1 && n.outputs[0] == v) return &n;
  return nullptr;
}

}  // namespace ge::detail
