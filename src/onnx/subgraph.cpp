// The outer reads of ONNX subgraphs (subgraph.hpp).
#include "onnx/subgraph.hpp"

#include <algorithm>
#include <unordered_set>

namespace ge::onnx::detail {

namespace {

constexpr int max_depth = 64;

void reads(const ::onnx::GraphProto& g, int depth, std::vector<std::string>& out, std::unordered_set<std::string>& seen) {
  if (depth > max_depth)
    fail(Errc::bad_model, "subgraphs nest deeper than " + std::to_string(max_depth) + " levels");
  std::unordered_set<std::string> local;
  for (const auto& in : g.input()) local.insert(in.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) local.insert(o);
  const auto read = [&](const std::string& name) {
    if (!name.empty() && !local.contains(name) && seen.insert(name).second) out.push_back(name);
  };
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) read(in);
    for (const auto& a : n.attribute()) {
      if (!a.has_g()) continue;
      std::vector<std::string> inner;
      std::unordered_set<std::string> inner_seen;
      reads(a.g(), depth + 1, inner, inner_seen);
      for (const auto& name : inner) read(name);
    }
  }
  for (const auto& o : g.output()) read(o.name());
}

}  // namespace

std::vector<std::string> outer_reads(const ::onnx::GraphProto& g) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  reads(g, 1, out, seen);
  return out;
}

std::vector<TensorDesc> formal_inputs(const std::string& op, const Attributes& attrs,
                                      const std::vector<TensorDesc>& inputs) {
  const auto loose = [](const TensorDesc& d, bool drop_first) {
    const Shape& s = d.shape;
    if (!s.rank_known()) return TensorDesc{d.dtype, Shape::unknown_rank()};
    const std::size_t rank = s.rank() - (drop_first && s.rank() > 0 ? 1 : 0);
    return TensorDesc{d.dtype, Shape(std::vector<Dim>(rank, Dim::unknown()))};
  };
  std::vector<TensorDesc> out;
  if (op == "Loop") {
    out = {{DataType::i64, Shape{}}, {DataType::boolean, Shape{}}};
    for (std::size_t k = 2; k < inputs.size(); ++k)
      if (inputs[k].dtype != DataType::undefined) out.push_back(loose(inputs[k], false));
  } else if (op == "Scan") {
    const auto it = attrs.find("num_scan_inputs");
    const std::size_t m = it != attrs.end() && it->second.kind() == AttrKind::integer
                              ? static_cast<std::size_t>(std::max<std::int64_t>(it->second.as_int(), 0))
                              : 0;
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (inputs[k].dtype != DataType::undefined) out.push_back(loose(inputs[k], k + m >= inputs.size()));
  }
  return out;
}

}  // namespace ge::onnx::detail
