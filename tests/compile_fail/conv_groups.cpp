// expect: ge::typed::conv2d: the weight.s O is not a multiple of groups.*conv2d_groups<ge::typed::Static<95>, 96>
// A grouped conv whose output channels do not split into the groups must not compile.
#include "ge/shape/typed_conv2d.hpp"

using namespace ge::typed;

constexpr auto y = conv2d(StaticShape<1, 96, 56, 56>{}, StaticShape<95, 1, 3, 3>{}, groups<96>, pad<1>);
