// expect: ge::typed::broadcast: static dims differ and neither is 1.*can_broadcast_v<ge::typed::Static<3>, ge::typed::Static<4> >
// Broadcasting shapes 8,1,3 and 5,4: the last dims (3 and 4) cannot broadcast.
#include "ge/shape/typed_shape.hpp"

using namespace ge::typed;

constexpr auto s = broadcast(StaticShape<8, 1, 3>{}, StaticShape<5, 4>{});
