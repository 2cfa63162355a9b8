#pragma once
// Private to src/onnx: the importer's first step. Each ONNX node becomes a NodePlan (our
// op, inputs, attributes, older opsets' spellings rewritten); what this build lacks is
// collected into one error instead of thrown at the first.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ge/tensor/attribute.hpp"
#include "onnx/convert.hpp"

namespace ge::onnx::detail {

// One node after conversion: our op, its inputs by name ("" = omitted), constants to
// add as extra inputs, attributes, outputs by name ("" = omitted).
struct NodePlan {
  std::size_t index = 0;  // in the model
  std::string name;       // unique among nodes
  std::string op;
  std::vector<std::string> inputs;
  struct Extra {
    std::size_t position;
    std::string name;
    Tensor data;
  };
  std::vector<Extra> extra;  // attributes that became constant inputs
  Attributes attrs;
  std::vector<std::string> outputs;
  bool legacy_softmax = false;  // Softmax/LogSoftmax before opset 13: flattens at `axis`
  // Graph attributes (If's branches, Loop's and Scan's body): name and index among the
  // node's attributes; the importer makes them graphs once the outer values exist.
  std::vector<std::pair<std::string, int>> graphs;
  std::vector<std::string> implicit;  // what those graphs read from this graph's scope
};

// What the model needs that this build lacks: a key and the first user of each.
class Unsupported {
 public:
  void add(const std::string& what, const std::string& where) {
    if (seen_.insert(what).second) items_.emplace_back(what, where);
  }
  // `opset`: the default domain's, named in the message when known.
  void raise_if_any(std::optional<std::int64_t> opset) const {
    if (items_.empty()) return;
    std::string text;
    for (const auto& [what, where] : items_) text += (text.empty() ? "" : ", ") + what + " (" + where + ")";
    fail(Errc::unsupported_op, "the model uses " + std::to_string(items_.size()) + " thing(s) this build does not support" +
                                   (opset ? " (opset " + std::to_string(*opset) + ")" : std::string()) + ": " + text);
  }

 private:
  std::set<std::string> seen_;
  std::vector<std::pair<std::string, std::string>> items_;
};

// `node #3` or `node 'name'`, as messages name a node.
std::string node_label(const ::onnx::NodeProto& n, std::size_t index);

// Converts the nodes' ops and attributes; records what is unsupported instead of throwing.
class NodeConverter {
 public:
  NodeConverter(std::int64_t opset, const std::filesystem::path& base_dir, const LoadOptions& options,
                Unsupported& unsupported)
      : opset_(opset), base_dir_(base_dir), options_(options), unsupported_(unsupported) {}

  // nullopt when something is unsupported (recorded).
  std::optional<NodePlan> convert(const ::onnx::NodeProto& n, std::size_t index);

 private:
  // One attribute as ours; nullopt when unsupported (recorded).
  std::optional<Attribute> attribute(const std::string& op, const ::onnx::AttributeProto& a, const std::string& where);
  // Rewrites what older opsets spelled differently. False when unsupported (recorded).
  bool legacy(NodePlan& p, const std::string& where);

  std::int64_t opset_;
  const std::filesystem::path& base_dir_;
  const LoadOptions& options_;
  Unsupported& unsupported_;
};

// The constant of a Constant node.
Tensor constant_value(const NodePlan& p, const std::string& where);

// Checks Constant nodes' attributes for the unsupported list.
bool constant_supported(const ::onnx::NodeProto& n, const std::string& where, Unsupported& unsupported);

}  // namespace ge::onnx::detail
