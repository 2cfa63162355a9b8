// Compile-time checks of typed broadcasting: compiling this file is passing it.
// Tables of numpy's rule over intervals, for dims and for shapes (aligned from the right).
#include <type_traits>

#include "ge/shape/typed_shape.hpp"

namespace {
using namespace ge::typed;
using std::is_same_v;

// Dims. `X` marks a pair no value pair of which broadcasts (a compile error).
struct X final {};
template <class A, class B>
using bc = typename std::conditional_t<can_broadcast_v<A, B>, broadcast_result<A, B>, std::type_identity<X>>::type;
// One row of the table: the broadcast of A with each column in turn.
template <class A, class R1, class R3, class R1to4, class R2to8, class RUnknown>
constexpr bool row = is_same_v<bc<A, Static<1>>, R1> && is_same_v<bc<A, Static<3>>, R3> &&
                     is_same_v<bc<A, Ranged<1, 4>>, R1to4> && is_same_v<bc<A, Ranged<2, 8>>, R2to8> &&
                     is_same_v<bc<A, Unknown>, RUnknown>;

//                a               b: 1            3          1~4           2~8           -1
static_assert(row<Static<1>,       Static<1>,      Static<3>, Ranged<1, 4>, Ranged<2, 8>, Unknown>);
static_assert(row<Static<3>,       Static<3>,      Static<3>, Static<3>,    Static<3>,    Static<3>>);
static_assert(row<Static<4>,       Static<4>,      X,         Static<4>,    Static<4>,    Static<4>>);
static_assert(row<Static<0>,       Static<0>,      X,         Static<0>,    X,            Static<0>>);
static_assert(row<Ranged<1, 4>,    Ranged<1, 4>,   Static<3>, Ranged<1, 4>, Ranged<2, 8>, Unknown>);
static_assert(row<Ranged<2, 8>,    Ranged<2, 8>,   Static<3>, Ranged<2, 8>, Ranged<2, 8>, Ranged<2, 8>>);
static_assert(row<Ranged<9, inf>,  Ranged<9, inf>, X,         Ranged<9, inf>, X,          Ranged<9, inf>>);
static_assert(row<Unknown,         Unknown,        Static<3>, Unknown,      Ranged<2, 8>, Unknown>);
// Hulls and intersections of ranges.
static_assert(is_same_v<bc<Ranged<1, 4>, Ranged<0, 2>>, Ranged<0, 4>> && is_same_v<bc<Ranged<2, 8>, Ranged<4, 16>>, Ranged<4, 8>>);
static_assert(is_same_v<bc<Ranged<2, 3>, Ranged<5, 6>>, X> && is_same_v<bc<Ranged<1, 3>, Ranged<5, 6>>, Ranged<5, 6>>);

// Shapes: aligned from the right, missing dims copied, unknown rank absorbs.
static_assert(is_same_v<broadcast_t<StaticShape<8, 1, 6, 1>, StaticShape<7, 1, 5>>, StaticShape<8, 7, 6, 5>>);
static_assert(is_same_v<broadcast_t<StaticShape<5, 4>, StaticShape<1>>, StaticShape<5, 4>>);
static_assert(is_same_v<broadcast_t<StaticShape<15, 3, 5>, StaticShape<15, 1, 5>>, StaticShape<15, 3, 5>>);
static_assert(is_same_v<broadcast_t<ShapeOf<>, StaticShape<2, 3>>, StaticShape<2, 3>>);
static_assert(is_same_v<broadcast_t<ShapeOf<Ranged<1, 8>, Static<3>, Static<224>, Static<224>>, StaticShape<3, 1, 1>>,
                        ShapeOf<Ranged<1, 8>, Static<3>, Static<224>, Static<224>>>);
static_assert(is_same_v<broadcast_t<ShapeOf<Unknown, Static<3>, Static<1>>, StaticShape<1, 224>>,
                        ShapeOf<Unknown, Static<3>, Static<224>>>);
static_assert(is_same_v<broadcast_t<UnknownRank, StaticShape<2, 3>>, UnknownRank>);
static_assert(is_same_v<broadcast_t<ShapeOf<>, UnknownRank>, UnknownRank>);
static_assert(!can_broadcast_v<StaticShape<3>, StaticShape<4>> && !can_broadcast_v<StaticShape<2, 1>, StaticShape<8, 4, 3>>);
static_assert(can_broadcast_v<UnknownRank, StaticShape<2, 3>>);
}  // namespace
