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

// The kernel of one node through the single-op compiler and its cache, for the values'
// descriptions `desc`; a constant input's data from `data` (by value id) where given.
std::shared_ptr<const Kernel> select_kernel(OpCompiler& compiler, const Graph& g, const Node& node,
                                            const std::vector<TensorDesc>& desc, CompileFlag flag, Precision precision,
                                            const std::vector<std::optional<Tensor>>* data = nullptr);

// The plan of `in` for `input_shapes` (`gear`: its index, or -1), verified.
std::shared_ptr<const Plan> build_plan(const PlanInputs& in, const std::vector<Shape>& input_shapes, std::int32_t gear);

}  // namespace ge::detail
