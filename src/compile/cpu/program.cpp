// Subgraphs run node by node (program.hpp).
#include "compile/cpu/program.hpp"

#include <algorithm>

#include "compile/cpu/lower.hpp"
#include "compile/plan_build.hpp"
#include "compile/run_step.hpp"
#include "ge/compile/passes.hpp"
#include "ge/ops/registry.hpp"
#include "graph/subgraph.hpp"

namespace ge::cpu_lower {

Program::Program(GraphRef graph, std::span<const TensorDesc> inputs, Precision precision, std::string where)
    : graph_(std::make_shared<const Graph>(optimize(*graph))), precision_(precision), where_(std::move(where)) {
  const Graph& g = *graph_;
  const std::vector<const Tensor*> none;
  desc_ = detail::value_descs(g, inputs, none, where_);
  order_ = g.topological_order();
  last_use_.assign(g.values().size(), -1);
  for (std::size_t i = 0; i < order_.size(); ++i)
    for (const ValueId v : g.nodes()[order_[i]].inputs)
      if (v != no_value) last_use_[v] = static_cast<std::ptrdiff_t>(i);
  for (const ValueId v : g.outputs()) last_use_[v] = static_cast<std::ptrdiff_t>(order_.size());
  kernels_.resize(g.nodes().size());
  for (const Node& node : g.nodes()) {  // once, not per run: a loop body runs many times
    schemas_.push_back(&OpRegistry::global().find(node.op));
    attrs_.push_back(schemas_.back()->with_defaults(node.attrs));
  }
  for (const std::size_t n : order_) {
    const Node& node = g.nodes()[n];
    const bool ranked = std::all_of(node.inputs.begin(), node.inputs.end(),
                                    [&](ValueId v) { return v == no_value || desc_[v].shape.rank_known(); });
    if (ranked) kernels_[n] = make(node, desc_);
  }
}

std::vector<Tensor> Program::run(std::span<const TensorView> inputs) const {
  const Graph& g = *graph_;
  std::vector<Tensor> values(g.values().size());
  for (const GraphInput& in : g.inputs()) {
    const TensorView& v = inputs[in.index];
    const std::vector<std::int64_t> dims(v.dims.begin(), v.dims.end());
    const auto bytes = static_cast<std::size_t>(count_of(dims) * size_of(v.dtype));
    values[in.value] = Tensor::view(v.dtype, dims, {static_cast<const std::byte*>(v.data), bytes}, nullptr);
  }
  for (const Constant& c : g.constants()) values[c.value] = c.tensor;
  for (std::size_t i = 0; i < order_.size(); ++i) {
    run_node(order_[i], values);
    for (const ValueId v : g.nodes()[order_[i]].inputs)
      if (v != no_value && last_use_[v] == static_cast<std::ptrdiff_t>(i)) values[v] = Tensor();
  }
  std::vector<Tensor> out;
  for (const ValueId v : g.outputs()) {
    const Tensor& t = values[v];
    // An input handed straight through is the caller's memory: the output owns a copy.
    if (g.values()[v].source == ValueSource::input)
      out.emplace_back(t.dtype(), t.dims(), std::vector<std::byte>(t.bytes().begin(), t.bytes().end()));
    else
      out.push_back(t);
  }
  return out;
}

std::vector<TensorDesc> Program::output_descs(std::span<const TensorView> inputs) const {
  std::vector<TensorDesc> given;
  for (const TensorView& v : inputs)
    given.push_back({v.dtype, Shape(std::vector<Dim>(v.dims.begin(), v.dims.end()))});
  const std::vector<const Tensor*> none;
  const std::vector<TensorDesc> desc = detail::value_descs(*graph_, given, none, where_);
  std::vector<TensorDesc> out;
  for (const ValueId v : graph_->outputs()) out.push_back(desc[v]);
  return out;
}

std::shared_ptr<const Kernel> Program::make(const Node& node, const std::vector<TensorDesc>& desc) const {
  const Graph& g = *graph_;
  const bool reads_constant = std::any_of(node.inputs.begin(), node.inputs.end(),
                                          [&](ValueId v) { return v != no_value && g.constant_of(v) != nullptr; });
  OpCompiler alone(1);
  try {
    return detail::select_kernel(reads_constant ? alone : OpCompiler::global(), g, node, desc, CompileFlag::exact,
                                 precision_, nullptr, nullptr);
  } catch (const Error& e) {
    raise(e.code(), where_ + ": " + e.what());
  }
}

void Program::run_node(std::size_t n, std::vector<Tensor>& values) const {
  const Graph& g = *graph_;
  const Node& node = g.nodes()[n];
  std::vector<TensorView> in(node.inputs.size());
  std::vector<const Tensor*> constants(node.inputs.size(), nullptr);
  for (std::size_t k = 0; k < node.inputs.size(); ++k) {
    const ValueId v = node.inputs[k];
    if (v == no_value) continue;
    in[k] = view_of(values[v]);
    constants[k] = g.constant_of(v);
  }
  std::shared_ptr<const Kernel> kernel = kernels_[n];
  if (!kernel) {  // an input rank known only now: a kernel for these dims
    std::vector<TensorDesc> real = desc_;
    for (std::size_t k = 0; k < node.inputs.size(); ++k)
      if (node.inputs[k] != no_value) real[node.inputs[k]] = values[node.inputs[k]].desc();
    kernel = make(node, real);
  }
  const OpSchema& schema = *schemas_[n];
  const Attributes& attrs = attrs_[n];
  std::vector<DataType> types;
  for (const ValueId v : node.outputs) types.push_back(desc_[v].dtype);
  std::vector<std::vector<std::byte>> buffers(node.outputs.size());
  std::vector<std::vector<std::int64_t>> dims(node.outputs.size());
  std::vector<DataType> made(node.outputs.size(), DataType::undefined);
  const detail::RunStep step{*kernel, schema, node.name, attrs, in, constants, types};
  try {
    detail::run_step(
        step,
        [&](std::size_t o, DataType dtype, std::span<const std::int64_t> d) -> void* {
          dims[o].assign(d.begin(), d.end());
          made[o] = dtype;
          buffers[o].resize(static_cast<std::size_t>(count_of(d) * size_of(dtype)));
          return buffers[o].data();
        },
        [&](std::span<const TensorView> i, std::span<const TensorView> o) { kernel->run(i, o); });
  } catch (const Error& e) {
    raise(e.code(), where_ + ": " + e.what());
  }
  for (std::size_t o = 0; o < node.outputs.size(); ++o) {
    if (made[o] == DataType::undefined)
      raise(Errc::internal, "[ge.runtime] " + where_ + ": node '" + node.name + "' gave no output " + std::to_string(o));
    values[node.outputs[o]] = Tensor(made[o], std::move(dims[o]), std::move(buffers[o]));
  }
}

}  // namespace ge::cpu_lower
