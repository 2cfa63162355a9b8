// expect: ge::typed::broadcast: dims have no value in common and neither can be 1.*Ranged<2, 3>, ge::typed::Ranged<5, 6>
// Ranged dims are checked over their intervals: 2~3 and 5~6 hold no 1 and never meet.
#include "ge/shape/typed_shape.hpp"

using namespace ge::typed;

using S = broadcast_t<ShapeOf<Static<1>, Ranged<2, 3>>, ShapeOf<Ranged<5, 6>>>;
constexpr S s{};
