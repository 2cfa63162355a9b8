#pragma once
/// \file
/// The graph layer and what it stands on in one include: `Tensor`, `Attribute`, `Graph`,
/// `GraphBuilder`, `to_dot`, `OpSchema`, `OpRegistry`.

#include "ge/graph/builder.hpp"
#include "ge/graph/dot.hpp"
#include "ge/graph/graph.hpp"
#include "ge/graph/typed_value.hpp"
#include "ge/ops/registry.hpp"
#include "ge/ops/schema.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"
