#pragma once
// Private to src/compile: what compile() and build_plan() share. A Plan is built from a
// compiled graph's nodes in order, their kernels and the plan's input shapes
// (plan_build.cpp); kernels come from the single-op compiler.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ge/compile/compile.hpp"

namespace ge::detail {

// What a plan is built from: a compiled graph with its node order and kernels.
struct PlanInputs {
  const Graph& graph;
  const std::vector<std::size_t>& order;
  const std::vector<std::shared_ptr<const Kernel>>& kernels;  // per node; null: select per plan
  const CompileSettings& settings;
  OpCompiler& compiler;  // for kernels made per plan whose constants are small
  bool ac_parallel = false;
  bool fold = true;  // evaluate what the plan's shapes make constant
};

// A model file's packed kernel states by node (model_load.cpp): what `compile`'s
// kernel step takes instead of packing, and the check that the kernel made from a state
// is the one that packed it.
class NodePacking {
 public:
  virtual ~NodePacking() = default;
  [[nodiscard]] virtual const PackedState* state(std::size_t node) const = 0;
  virtual void check(std::size_t node, const Kernel& made) const = 0;
};

// A model over `g`, a graph as `compile` leaves it (passes done): compile's steps
// without the passes, the kernels from `packing` where it has them.
std::shared_ptr<const CompiledModel> assemble_model(Graph&& g, const BuildOptions& options, const Target& target,
                                                    const CompileSettings& settings, const NodePacking* packing);

// The kernel of one node through the single-op compiler and its cache, for the values'
// descriptions `desc`; a constant input's data from `data` (by value id) where given;
// `packed`: a model file's packed state for the kernel (then `compiler` must be one
// of this node only: the state is not part of the cache key).
std::shared_ptr<const Kernel> select_kernel(OpCompiler& compiler, const Graph& g, const Node& node,
                                            const std::vector<TensorDesc>& desc, CompileFlag flag, Precision precision,
                                            const std::vector<std::optional<Tensor>>* data = nullptr,
                                            const PackedState* packed = nullptr);

// The plan of `in` for `input_shapes` (`gear`: its index, or -1), verified.
std::shared_ptr<const Plan> build_plan(const PlanInputs& in, const std::vector<Shape>& input_shapes, std::int32_t gear);

}  // namespace ge::detail
