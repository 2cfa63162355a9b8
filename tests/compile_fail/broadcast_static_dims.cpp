// expect: ge::typed::broadcast: static dims differ and neither is 1.*can_broadcast_v<ge::typed::Static<3>, ge::typed::Static<4> >
// Broadcasting two static dims that differ, neither of them 1, must not compile; the
// message names the API, and the note after it the two dims.
#include "ge/shape/typed_dim.hpp"

using namespace ge::typed;

constexpr auto d = broadcast(Static<3>{}, Static<4>{});
