// expect: ge::typed::conv2d: the input must be NCHW .rank 4.
// conv2d takes a rank 4 input.
#include "ge/shape/typed_conv2d.hpp"

using namespace ge::typed;

constexpr auto y = conv2d(StaticShape<3, 224, 224>{}, StaticShape<8, 3, 3, 3>{});
