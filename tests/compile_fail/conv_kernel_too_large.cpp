// expect: ge::typed::conv2d: the dilated kernel is larger than the padded input.*conv2d_window<ge::typed::Static<5>, ge::typed::Static<7>, 0, 1, 1>
// A 7x7 kernel over a 5x5 input without padding must not compile.
#include "ge/shape/typed_conv2d.hpp"

using namespace ge::typed;

constexpr auto y = conv2d(StaticShape<1, 3, 5, 5>{}, StaticShape<8, 3, 7, 7>{});
