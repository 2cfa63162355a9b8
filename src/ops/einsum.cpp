// Einsum: the output shape from the equation over ranged dims. Each label's extent is
// the numpy broadcast of its dims over every place it occurs (equal, or 1 against any),
// so `bij,bjk->bik` with b of 1~8 in both gives 1~8; an operand of unknown rank leaves the
// dims it alone would fix unknown (and the rank too when it feeds the output's `...`).
#include <map>

#include "common.hpp"
#include "einsum_equation.hpp"

namespace ge::ops {

namespace {

// The parsed equation; bad_attribute naming it when it does not parse.
EinsumEquation equation_of(const InferContext& c) {
  const std::string& text = c.s("equation");
  EinsumEquation eq;
  if (std::string why = parse_einsum(text, eq); !why.empty())
    c.fail(Errc::bad_attribute, "equation '" + text + "' does not parse: " + why);
  if (eq.inputs.size() != c.input_count())
    c.fail(Errc::bad_op_inputs, "equation '" + text + "' has " + std::to_string(eq.inputs.size()) +
                                    " input term(s) but the node has " + std::to_string(c.input_count()) + " input(s)");
  return eq;
}

// Output dims when every rank is known: labels resolved, extents broadcast per label.
Shape known_ranks(const InferContext& c, const EinsumEquation& eq) {
  const std::string& text = c.s("equation");
  std::vector<std::size_t> ranks;
  for (std::size_t i = 0; i < c.input_count(); ++i) ranks.push_back(c.shape(i).rank());
  EinsumLabels labels;
  if (std::string why = resolve_einsum(eq, ranks, labels); !why.empty())
    c.fail(Errc::bad_op_inputs, "equation '" + text + "' does not fit the inputs: " + why);
  std::map<int, Dim> extent;
  std::map<int, std::size_t> first;  // the input that set a label's extent, for messages
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t d = 0; d < ranks[i]; ++d) {
      const int label = labels.inputs[i][d];
      const Dim& dim = c.shape(i)[static_cast<std::ptrdiff_t>(d)];
      const auto [it, fresh] = extent.emplace(label, dim);
      if (fresh) {
        first[label] = i;
        continue;
      }
      try {
        it->second = broadcast(it->second, dim);
      } catch (const Error&) {
        c.fail(Errc::bad_op_inputs, "equation '" + text + "': label '" + einsum_label_text(label) + "' is " +
                                        it->second.to_string() + " in input " + std::to_string(first[label]) +
                                        " but " + dim.to_string() + " in input " + std::to_string(i) + " [" +
                                        c.shape(i).to_string() + "]; expected equal dims (or 1)");
      }
    }
  }
  std::vector<Dim> out;
  for (const int label : labels.output) out.push_back(extent.at(label));
  return Shape(std::move(out));
}

// Output dims when some rank is unknown: the letters' dims from the operands whose
// rank is known and whose term has no ellipsis; the rest unknown.
Shape some_ranks_unknown(const InferContext& c, const EinsumEquation& eq) {
  bool out_ellipsis = false;
  for (const int id : eq.output) out_ellipsis = out_ellipsis || id == kEinsumEllipsis;
  if (out_ellipsis) return Shape::unknown_rank();
  std::map<int, Dim> extent;
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    const Shape& s = c.shape(i);
    const auto& term = eq.inputs[i];
    bool ell = false;
    for (const int id : term) ell = ell || id == kEinsumEllipsis;
    if (!s.rank_known() || ell) continue;
    if (s.rank() != term.size())
      c.fail(Errc::bad_op_inputs, "equation '" + c.s("equation") + "' does not fit the inputs: term " + std::to_string(i) +
                                      " has " + std::to_string(term.size()) + " label(s) but input " + std::to_string(i) +
                                      " has rank " + std::to_string(s.rank()));
    for (std::size_t d = 0; d < term.size(); ++d) {
      const Dim& dim = s[static_cast<std::ptrdiff_t>(d)];
      // A 1 may broadcast against the unknown operands: only a dim above 1 fixes it.
      if (dim.lo() > 1 && !extent.count(term[d])) extent.emplace(term[d], dim);
    }
  }
  std::vector<Dim> out;
  for (const int id : eq.output) out.push_back(extent.count(id) ? extent.at(id) : Dim::unknown());
  return Shape(std::move(out));
}

}  // namespace

void add_einsum_op(OpRegistry& r) {
  OpSchema s;
  s.name = "Einsum";
  s.doc = "Einstein summation over the operands as the equation says (\"bij,bjk->bik\", \"...ii->...i\")";
  s.inputs = {many("Inputs", "T")};
  s.outputs = {arg("Output", "T")};
  s.types = {{"T", TypeSet::numeric()}};
  s.attrs = {attr_req("equation", AttrKind::string)};
  s.infer = [](const InferContext& c) {
    const EinsumEquation eq = equation_of(c);
    bool all_known = true;
    for (std::size_t i = 0; i < c.input_count(); ++i) all_known = all_known && c.shape(i).rank_known();
    return std::vector<TensorDesc>{{c.input(0).dtype, all_known ? known_ranks(c, eq) : some_ranks_unknown(c, eq)}};
  };
  add_op(r, onnx_op(13), std::move(s));
}

}  // namespace ge::ops
