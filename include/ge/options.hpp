#pragma once
/// \file
/// The options layer in one include: build options for dynamic inputs, targets,
/// validation into a `DynamicConfig`, and gear enumeration. Library code includes what
/// it uses instead.

#include "ge/options/build_options.hpp"
#include "ge/options/dynamic_config.hpp"
#include "ge/options/gear_list.hpp"
#include "ge/options/gears.hpp"
#include "ge/options/input_shape.hpp"
#include "ge/options/option.hpp"
#include "ge/options/target.hpp"
