// The graph layer's rule for what a subgraph gives (src/ops/subgraph.hpp): its inputs
// described as the control-flow node gives them, each node's inference in order.
#include <string>

#include "ge/graph/graph.hpp"
#include "ge/ops/registry.hpp"
#include "graph/subgraph.hpp"
#include "ops/subgraph.hpp"

namespace ge::detail {

namespace {

// Subgraphs inside subgraphs: deeper than this is a hostile file, not a model.
constexpr int max_depth = 64;
thread_local int depth = 0;

}  // namespace

std::vector<TensorDesc> value_descs(const Graph& g, std::span<const TensorDesc> inputs,
                                    std::span<const Tensor* const> constants, std::string_view where) {
  const auto fail = [&](Errc code, const std::string& what) {
    raise(code, "[ge.graph] " + std::string(where) + ": " + what);
  };
  if (depth >= max_depth) fail(Errc::bad_model, "subgraphs nest deeper than " + std::to_string(max_depth));
  struct Nest {
    Nest() { ++depth; }
    ~Nest() { --depth; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  } nest;
  if (inputs.size() != g.inputs().size())
    fail(Errc::bad_model, "the subgraph takes " + std::to_string(g.inputs().size()) + " input(s); the node gives " +
                              std::to_string(inputs.size()));
  std::vector<TensorDesc> desc(g.values().size());
  std::vector<const Tensor*> data(g.values().size(), nullptr);
  for (const GraphInput& in : g.inputs()) {
    const TensorDesc& given = inputs[in.index];
    if (given.dtype != in.dtype)
      fail(Errc::type_mismatch, "input " + std::to_string(in.index) + " '" + in.name + "' is " +
                                    std::string(to_string(in.dtype)) + "; the node gives " +
                                    std::string(to_string(given.dtype)));
    if (!compatible(given.shape, in.shape))
      fail(Errc::incompatible_shapes, "input " + std::to_string(in.index) + " '" + in.name + "' is [" +
                                          in.shape.to_string() + "]; the node gives [" + given.shape.to_string() + "]");
    desc[in.value] = {in.dtype, merge(given.shape, in.shape)};
    if (in.index < constants.size()) data[in.value] = constants[in.index];
  }
  for (const Constant& c : g.constants()) {
    desc[c.value] = c.tensor.desc();
    data[c.value] = &c.tensor;
  }
  for (const Node& node : g.nodes())
    for (const ValueId v : node.inputs)
      if (v != no_value && g.values()[v].source == ValueSource::none)
        fail(Errc::bad_model, "node '" + node.name + "' reads '" + g.values()[v].name + "', which nothing produces");
  for (const std::size_t n : g.topological_order()) {
    const Node& node = g.nodes()[n];
    std::vector<TensorDesc> in;
    std::vector<const Tensor*> consts;
    for (const ValueId v : node.inputs) {
      in.push_back(v == no_value ? TensorDesc{} : desc[v]);
      consts.push_back(v == no_value ? nullptr : data[v]);
    }
    try {
      const auto out = infer_outputs(OpRegistry::global().find(node.op), node.name, in, consts, node.attrs,
                                     node.outputs.size());
      for (std::size_t k = 0; k < node.outputs.size() && k < out.size(); ++k) desc[node.outputs[k]] = out[k];
    } catch (const Error& e) {
      raise(e.code(), std::string(where) + ": " + e.what());
    }
  }
  return desc;
}

namespace {

std::vector<TensorDesc> infer_graph(const Graph& g, std::span<const TensorDesc> inputs,
                                    std::span<const Tensor* const> constants, std::string_view where) {
  const std::vector<TensorDesc> desc = value_descs(g, inputs, constants, where);
  std::vector<TensorDesc> out;
  for (const ValueId v : g.outputs()) out.push_back(desc[v]);
  return out;
}

}  // namespace

void install_subgraph_inference() noexcept { set_subgraph_inference(&infer_graph); }

// Installed before main too (this object is linked wherever Graph is: add_node calls the
// function above), for nodes inferred before a graph holds them.
namespace {
const bool installed_at_start = (install_subgraph_inference(), true);
}  // namespace

}  // namespace ge::detail
