#pragma once
/// \file
/// Everything of ge in one include. Library code includes what it uses instead.

#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/format.hpp"
#include "ge/shape/dim.hpp"
#include "ge/shape/shape.hpp"
#include "ge/shape/typed.hpp"
#include "ge/options.hpp"
#include "ge/graph.hpp"
