// expect: ge::typed::conv2d: input channels C differ from the weight.s I . groups.*can_merge_v<ge::typed::Static<3>, ge::typed::Static<4> >
// A typed builder conv2d of a 3-channel input by a weight with I = 4 must not compile.
#include "ge/graph/typed_value.hpp"

using namespace ge::typed;

void build(ge::GraphBuilder& b) {
  auto x = ge::typed_input<StaticShape<1, 3, 224, 224>>(b, "x", ge::DataType::f32);
  auto w = ge::typed_weights<StaticShape<64, 4, 7, 7>>(b, "w", 1);
  (void)x.conv2d(w, stride<2>, pad<3>);
}
