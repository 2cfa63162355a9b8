#pragma once
/// \file
/// The graph layer and the op schemas in one include: `Graph`, `GraphBuilder`, `to_dot`,
/// `OpSchema`, `OpRegistry`.

#include "ge/graph/attribute.hpp"
#include "ge/graph/builder.hpp"
#include "ge/graph/dot.hpp"
#include "ge/graph/graph.hpp"
#include "ge/graph/tensor.hpp"
#include "ge/graph/typed_value.hpp"
#include "ge/ops/registry.hpp"
#include "ge/ops/schema.hpp"
