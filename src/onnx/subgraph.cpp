// The outer reads of ONNX subgraphs (subgraph.hpp).
#include "onnx/subgraph.hpp"

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

}  // namespace ge::onnx::detail
