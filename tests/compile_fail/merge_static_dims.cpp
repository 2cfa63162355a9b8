// expect: ge::typed::merge: static dims differ.*can_merge_v<ge::typed::Static<224>, ge::typed::Static<256> >
// Merging shapes whose static dims differ must not compile.
#include "ge/shape/typed_shape.hpp"

using namespace ge::typed;

constexpr auto s = merge(ShapeOf<Unknown, Static<3>, Static<224>>{}, StaticShape<8, 3, 256>{});
