// expect: ge::typed::matmul: inner dims differ.*can_merge_v<ge::typed::Static<32>, ge::typed::Static<33> >
// a @ b with a's last dim 32 and b's second to last 33 must not compile.
#include "ge/shape/typed_matmul.hpp"

using namespace ge::typed;

constexpr auto y = matmul(ShapeOf<Ranged<1, 8>, Static<64>, Static<32>>{}, StaticShape<33, 16>{});
