#pragma once
// Private: the compile-time analysis behind `CompiledModel::padding()` (see
// ge/compile/padding.hpp and src/compile/padding.cpp).

#include <cstddef>
#include <vector>

#include "ge/compile/padding.hpp"
#include "ge/graph/graph.hpp"
#include "ge/options/dynamic_config.hpp"
#include "ge/options/gears.hpp"

namespace ge::detail {

/// One entry per value of the gears: whether padding along it is safe in `g` (the graph
/// after the passes, `order` a topological order), with `gear_shapes` every gear's input
/// shapes (one per graph input).
[[nodiscard]] std::vector<GearPadding> analyse_padding(const Graph& g, const std::vector<std::size_t>& order,
                                                       const DynamicConfig& cfg, const std::vector<Gear>& gears,
                                                       const std::vector<std::vector<Shape>>& gear_shapes);

}  // namespace ge::detail
