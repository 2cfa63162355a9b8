#pragma once
// Private to src/compile/cpu: a subgraph of a control-flow node (If's branches, Loop's
// and Scan's body) made ready to run: the graph passes run on it (ge::optimize), its
// values described from what the node's inputs can be, a kernel per node made then (or at run time for a node whose input rank is
// unknown until then). A run goes through the nodes in order on tensors of their real
// dims (`detail::run_step`), each value let go after its last reader.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/compile/kernel.hpp"
#include "ge/graph/graph.hpp"

namespace ge::cpu_lower {

class Program {
 public:
  // Throws the failing node's error with `where` ("body of node 'Loop_3'") in front.
  Program(GraphRef graph, std::span<const TensorDesc> inputs, Precision precision, std::string where);

  // The outputs of one run on `inputs` (views valid for the call).
  [[nodiscard]] std::vector<Tensor> run(std::span<const TensorView> inputs) const;
  // What a run on inputs of these dims would give, inferred without running (a loop of
  // no iterations still has its scan outputs' dims).
  [[nodiscard]] std::vector<TensorDesc> output_descs(std::span<const TensorView> inputs) const;

 private:
  [[nodiscard]] std::shared_ptr<const Kernel> make(const Node& node, const std::vector<TensorDesc>& desc) const;
  void run_node(std::size_t n, std::vector<Tensor>& values) const;

  GraphRef graph_;
  Precision precision_;
  std::string where_;
  std::vector<TensorDesc> desc_;
  std::vector<std::size_t> order_;
  std::vector<std::ptrdiff_t> last_use_;  // per value: the last step reading it
  std::vector<std::shared_ptr<const Kernel>> kernels_;
  std::vector<const OpSchema*> schemas_;  // per node
  std::vector<Attributes> attrs_;         // per node, with the schema's defaults
};

// Shared by the control-flow kernels (control_flow.cpp, loops.cpp).
std::string where(const KernelRequest& r, std::string_view attr);                    // "body of node 'x'"
std::vector<TensorDesc> input_descs(const KernelRequest& r, std::size_t from, std::size_t to);
void hand_out(std::span<const Tensor> got, std::size_t first,
              FunctionRef<void*(std::size_t, std::span<const std::int64_t>)> allocate);  // copies each out
bool truth(const TensorView& v, std::string_view what);                              // a one-element cond
void register_cpu_loops(KernelRegistry& r);

}  // namespace ge::cpu_lower
