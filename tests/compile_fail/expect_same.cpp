// expect: expect_same_check<ge::typed::ShapeOf<ge::typed::Static<1>, ge::typed::Static<8>, ge::typed::Static<30>, ge::typed::Static<30> >, ge::typed::ShapeOf<ge::typed::Static<1>, ge::typed::Static<8>, ge::typed::Static<32>, ge::typed::Static<32> > >.*ge::typed::expect_same: the computed type
// A wrong expected shape names both shapes, the computed one first.
#include "ge/shape/typed_conv2d.hpp"

using namespace ge::typed;

using Y = conv2d_t<StaticShape<1, 3, 32, 32>, StaticShape<8, 3, 3, 3>>;
static_assert(expect_same<Y, StaticShape<1, 8, 32, 32>>);
