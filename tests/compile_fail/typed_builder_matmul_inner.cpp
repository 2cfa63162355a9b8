// expect: ge::typed::matmul: inner dims differ.*can_merge_v<ge::typed::Static<784>, ge::typed::Static<512> >
// A typed builder matmul of a [1~8, 784] input by [512, 10] weights must not compile,
// though the batch is ranged: the inner dims are static.
#include "ge/graph/typed_value.hpp"

using namespace ge::typed;

void build(ge::GraphBuilder& b) {
  auto x = ge::typed_input<ShapeOf<Ranged<1, 8>, Static<784>>>(b, "x", ge::DataType::f32);
  auto w = ge::typed_weights<StaticShape<512, 10>>(b, "w", 1);
  (void)x.matmul(w);
}
