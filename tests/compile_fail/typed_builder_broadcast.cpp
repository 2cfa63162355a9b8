// expect: ge::typed::broadcast: static dims differ and neither is 1.*can_broadcast_v<ge::typed::Static<128>, ge::typed::Static<10> >
// A typed builder add of a [1~8, 128] value and a [10] bias must not compile.
#include "ge/graph/typed_value.hpp"

using namespace ge::typed;

void build(ge::GraphBuilder& b) {
  auto h = ge::typed_input<ShapeOf<Ranged<1, 8>, Static<128>>>(b, "h", ge::DataType::f32);
  auto bias = ge::typed_full<StaticShape<10>>(b, "bias", 0.0);
  (void)(h + bias);
}
