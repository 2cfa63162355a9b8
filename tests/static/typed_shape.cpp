// Compile-time checks of ge/shape/typed_shape.hpp: compiling this file is passing it.
// The rules of shape.hpp on typed shapes: unknown rank, ranks that differ, scalars.
#include <boost/hana/integral_constant.hpp>
#include <type_traits>

#include "ge/shape/typed_shape.hpp"

namespace {
using namespace ge::typed;
using std::is_same_v;
namespace hana = boost::hana;

using Image = ShapeOf<Ranged<1, 8>, Static<3>, Static<224>, Static<224>>;
using Scalar = ShapeOf<>;

// Building, rank, dims.
static_assert(TypedShape<Image> && TypedShape<UnknownRank> && TypedShape<Scalar> && !TypedShape<Static<3>>);
static_assert(Image::rank == 4 && Scalar::rank == 0);
static_assert(is_same_v<decltype(make_shape(Ranged<1, 8>{}, hana::int_c<3>, Static<224>{}, hana::llong_c<224>)),
                        Image>);
static_assert(is_same_v<StaticShape<1, 3>, ShapeOf<Static<1>, Static<3>>>);
static_assert(is_same_v<dim_at_t<Image, 0>, Ranged<1, 8>> && is_same_v<dim_at_t<Image, -3>, Static<3>>);
static_assert(make_shape(dims(Image{})) == Image{});

// == : same rank state, equal dims by value sets.
static_assert(ShapeOf<Ranged<3, 3>>{} == StaticShape<3>{} && UnknownRank{} == UnknownRank{});
static_assert(Scalar{} != UnknownRank{} && StaticShape<3>{} != StaticShape<3, 1>{});

// compatible: unknown rank with anything; ranks must agree; every dim pair meets.
static_assert(compatible_v<UnknownRank, Image> && compatible_v<Scalar, UnknownRank>);
static_assert(compatible_v<Image, StaticShape<4, 3, 224, 224>> && !compatible_v<Image, StaticShape<9, 3, 224, 224>>);
static_assert(!compatible_v<Image, StaticShape<3, 224, 224>> && compatible_v<Scalar, Scalar>);

// relaxes / refines: unknown rank relaxes everything and refines only unknown rank.
static_assert(relaxes_v<UnknownRank, Image> && !relaxes_v<Image, UnknownRank> && refines_v<Image, UnknownRank>);
static_assert(relaxes_v<Image, StaticShape<8, 3, 224, 224>> && !relaxes_v<StaticShape<8, 3, 224, 224>, Image>);
static_assert(!relaxes_v<StaticShape<3>, StaticShape<3, 1>> && relaxes_v<UnknownRank, UnknownRank>);

// merge: unknown rank is the identity; dims merge one by one.
static_assert(is_same_v<merge_t<UnknownRank, Image>, Image> && is_same_v<merge_t<Image, UnknownRank>, Image>);
static_assert(is_same_v<merge_t<ShapeOf<Unknown, Static<3>, Static<224>, Static<224>>, StaticShape<4, 3, 224, 224>>,
                        StaticShape<4, 3, 224, 224>>);
static_assert(is_same_v<merge_t<Image, ShapeOf<Ranged<4, 16>, Unknown, Unknown, Static<224>>>,
                        ShapeOf<Ranged<4, 8>, Static<3>, Static<224>, Static<224>>>);
static_assert(!can_merge_v<Image, StaticShape<3, 224, 224>>);  // ranks differ
static_assert(!can_merge_v<Image, StaticShape<9, 3, 224, 224>>);  // dim 0 cannot meet
static_assert(is_same_v<merge_t<Scalar, Scalar>, Scalar>);

// element count: an interval; a scalar has 1; unknown rank is unknown.
static_assert(is_same_v<element_count_t<StaticShape<2, 3, 4>>, Static<24>>);
static_assert(is_same_v<element_count_t<ShapeOf<Ranged<1, 8>, Static<3>>>, Ranged<3, 24>>);
static_assert(is_same_v<element_count_t<Image>, Ranged<150528, 1204224>>);
static_assert(is_same_v<element_count_t<Scalar>, Static<1>>);
static_assert(is_same_v<element_count_t<UnknownRank>, Unknown>);
static_assert(is_same_v<element_count_t<ShapeOf<Unknown, Static<3>>>, Unknown>);
static_assert(is_same_v<element_count_t<ShapeOf<Ranged<2, inf>, Static<3>>>, Ranged<6, inf>>);
static_assert(is_same_v<element_count_t<ShapeOf<Unknown, Static<0>>>, Static<0>>);
static_assert(element_count(Image{}) == Ranged<150528, 1204224>{});
}  // namespace

// expect_same holds for equal types (the compile_fail test shows a mismatch).
static_assert(ge::typed::expect_same<ge::typed::StaticShape<2, 3>, ge::typed::ShapeOf<ge::typed::Static<2>, ge::typed::Static<3>>>);
