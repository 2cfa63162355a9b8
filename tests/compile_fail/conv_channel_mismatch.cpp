// expect: ge::typed::conv2d: input channels C differ from the weight.s I . groups.*can_merge_v<ge::typed::Static<8>, ge::typed::Static<6> >
// NCHW input with C = 8 against an OIHW weight with I = 3 in 2 groups (3 * 2 = 6).
#include "ge/shape/typed_conv2d.hpp"

using namespace ge::typed;

constexpr auto y = conv2d(StaticShape<1, 8, 56, 56>{}, StaticShape<16, 3, 3, 3>{}, pad<1>, groups<2>);
