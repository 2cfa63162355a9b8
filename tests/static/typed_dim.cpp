// Compile-time checks of ge/shape/typed_dim.hpp: compiling this file is passing it.
// The rules of dim.hpp, case by case, on typed dims (spelling included: the type).
#include <type_traits>

#include "ge/shape/typed_dim.hpp"

namespace {
using namespace ge::typed;
using std::is_same_v;

// The four kinds, their intervals and spellings.
static_assert(Static<5>::dim.lo() == 5 && Static<5>::dim.hi() == 5 && Static<5>::value == 5);
static_assert(Ranged<8, 20>::dim.lo() == 8 && Ranged<8, 20>::dim.hi() == 20 && Ranged<8, 20>::dim.is_range());
static_assert(Ranged<8, inf>::dim.hi() == inf && !Ranged<8, inf>::dim.is_bounded());
static_assert(Unknown::dim.lo() == 0 && Unknown::dim.hi() == inf && Unknown::dim.is_unknown());
static_assert(TypedDim<Static<0>> && TypedDim<Ranged<0, inf>> && TypedDim<Unknown> && !TypedDim<int>);
static_assert(is_static_v<Static<3>> && is_static_v<Ranged<3, 3>> && !is_static_v<Ranged<3, 4>> &&
              !is_static_v<Unknown>);
static_assert(to_dim(Ranged<8, inf>{}).same_spelling(ge::Dim::at_least(8)));
static_assert(to_dim(Unknown{}).same_spelling(ge::Dim(-1)));

// == compares value sets, as ge::Dim does; the type is the spelling.
static_assert(Ranged<5, 5>{} == Static<5>{} && Ranged<0, inf>{} == Unknown{});
static_assert(Static<5>{} != Static<6>{} && !is_same_v<Ranged<5, 5>, Static<5>>);

// compatible: the intervals meet.
static_assert(compatible_v<Static<3>, Static<3>> && !compatible_v<Static<3>, Static<4>>);
static_assert(compatible_v<Ranged<2, 8>, Ranged<8, 16>> && !compatible_v<Ranged<2, 7>, Ranged<8, 16>>);
static_assert(compatible_v<Unknown, Static<0>> && compatible_v<Ranged<3, inf>, Static<1000000>>);
static_assert(!compatible_v<Ranged<3, inf>, Static<2>>);

// relaxes (a ⊇ b) and refines (a ⊆ b).
static_assert(relaxes_v<Unknown, Ranged<2, 8>> && relaxes_v<Ranged<2, 8>, Static<5>>);
static_assert(!relaxes_v<Static<5>, Ranged<2, 8>> && refines_v<Static<5>, Ranged<2, 8>>);
static_assert(relaxes_v<Ranged<1, inf>, Ranged<3, inf>> && !relaxes_v<Ranged<3, inf>, Ranged<1, inf>>);
static_assert(relaxes_v<Static<4>, Ranged<4, 4>> && refines_v<Static<4>, Ranged<4, 4>>);

// merge: the intersection; an input that already is it keeps its spelling.
static_assert(is_same_v<merge_t<Ranged<2, 8>, Ranged<4, 16>>, Ranged<4, 8>>);
static_assert(is_same_v<merge_t<Unknown, Static<5>>, Static<5>>);
static_assert(is_same_v<merge_t<Ranged<2, 8>, Ranged<8, 16>>, Static<8>>);
static_assert(is_same_v<merge_t<Ranged<5, 5>, Static<5>>, Ranged<5, 5>>);
static_assert(is_same_v<merge_t<Static<5>, Ranged<5, 5>>, Static<5>>);
static_assert(is_same_v<merge_t<Ranged<0, inf>, Unknown>, Ranged<0, inf>>);
static_assert(is_same_v<merge_t<Ranged<3, inf>, Ranged<1, 10>>, Ranged<3, 10>>);
static_assert(can_merge_v<Ranged<3, inf>, Unknown> && !can_merge_v<Static<3>, Static<4>>);
static_assert(!can_merge_v<Ranged<1, 4>, Ranged<6, 8>>);
static_assert(merge(Ranged<1, 8>{}, Static<4>{}) == Static<4>{});

// broadcast: the table of dim.hpp.
static_assert(is_same_v<broadcast_t<Static<1>, Ranged<2, 8>>, Ranged<2, 8>>);   // 1 stretches
static_assert(is_same_v<broadcast_t<Static<3>, Static<3>>, Static<3>>);         // equal
static_assert(!can_broadcast_v<Static<3>, Static<4>>);                          // neither is 1
static_assert(is_same_v<broadcast_t<Ranged<2, 8>, Ranged<4, 16>>, Ranged<4, 8>>);  // no 1: equal
static_assert(is_same_v<broadcast_t<Unknown, Static<5>>, Static<5>>);            // -1 is 1 or 5
static_assert(is_same_v<broadcast_t<Ranged<1, 4>, Ranged<0, 2>>, Ranged<0, 4>>);   // both may be 1
static_assert(is_same_v<broadcast_t<Unknown, Unknown>, Unknown>);
// More: 0 broadcasts with 1 only; unbounded ranges; disjoint intervals without 1.
static_assert(is_same_v<broadcast_t<Static<0>, Static<1>>, Static<0>>);
static_assert(is_same_v<broadcast_t<Static<0>, Ranged<0, 2>>, Static<0>>);
static_assert(is_same_v<broadcast_t<Ranged<3, inf>, Ranged<1, inf>>, Ranged<3, inf>>);
static_assert(is_same_v<broadcast_t<Ranged<3, inf>, Ranged<2, 8>>, Ranged<3, 8>>);
static_assert(!can_broadcast_v<Ranged<2, 3>, Ranged<5, 6>> && !can_broadcast_v<Static<0>, Static<2>>);
static_assert(can_broadcast_v<Ranged<1, 3>, Ranged<5, 6>>);
static_assert(broadcast(Static<1>{}, Unknown{}) == Unknown{});

// The product: an interval, static stays static, an unbounded end stays unbounded.
static_assert(is_same_v<product_t<Static<3>, Static<4>>, Static<12>>);
static_assert(is_same_v<product_t<Ranged<1, 8>, Static<3>>, Ranged<3, 24>>);
static_assert(is_same_v<product_t<Unknown, Static<3>>, Unknown>);
static_assert(is_same_v<product_t<Ranged<2, inf>, Static<3>>, Ranged<6, inf>>);
static_assert(is_same_v<product_t<Unknown, Static<0>>, Static<0>>);
static_assert(is_same_v<decltype(Static<6>{} * Ranged<1, 2>{}), Ranged<6, 12>>);
}  // namespace

// The interval sum, evaluated by ge::Dim's operator+ at compile time.
static_assert(std::is_same_v<ge::typed::sum_t<ge::typed::Static<3>, ge::typed::Ranged<1, 2>>, ge::typed::Ranged<4, 5>>);
static_assert(std::is_same_v<ge::typed::sum_t<ge::typed::Static<3>, ge::typed::Static<4>>, ge::typed::Static<7>>);
static_assert(ge::typed::Static<2>{} + ge::typed::Unknown{} == ge::typed::Ranged<2, ge::Dim::inf>{});
