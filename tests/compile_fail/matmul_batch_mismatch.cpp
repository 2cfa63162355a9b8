// expect: ge::typed::matmul: batch dims differ and neither is 1.*can_broadcast_v<ge::typed::Static<2>, ge::typed::Static<3> >
// The batch dims of a batched matmul broadcast: 2 and 3 cannot.
#include "ge/shape/typed_matmul.hpp"

using namespace ge::typed;

constexpr auto y = matmul(StaticShape<2, 7, 64>{}, StaticShape<3, 64, 16>{});
