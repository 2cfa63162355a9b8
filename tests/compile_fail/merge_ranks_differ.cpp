// expect: merge_result<ge::typed::ShapeOf<ge::typed::Static<3>, ge::typed::Static<4> >, ge::typed::ShapeOf<ge::typed::Static<3> > >.*ge::typed::merge: the shapes. ranks differ
// Merging shapes of different ranks must not compile.
#include "ge/shape/typed_shape.hpp"

using namespace ge::typed;

constexpr auto s = merge(StaticShape<3, 4>{}, StaticShape<3>{});
