// Tests of ge/shape/typed_shape.hpp and typed_check.hpp against ge/shape/shape.hpp: the
// two faces of a shape agree on every pair of a shape_table of shapes (scalars, ranks 1 to 3,
// every dim kind, unknown rank; generated at compile time by Hana's cartesian product),
// for compatible, relaxes, refines, merge, broadcast and the element count; where the
// typed rule is a compile error (its can_*_v is false), the runtime one throws, and
// only there. Then the run-time check of real shapes against typed ones.
#include <doctest/doctest.h>

#include <array>
#include <boost/hana/at.hpp>
#include <boost/hana/cartesian_product.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "ge/shape/typed_check.hpp"
#include "ge/shape/typed_shape.hpp"
#include "support/expect_error.hpp"

namespace hana = boost::hana;
using ge::Dim;
using ge::Errc;
using ge::Shape;
using namespace ge::typed;
using ge::test::error_of;
using ge::test::expect_error;

namespace {
// One row of the shape_table: a typed shape and the text of the same runtime shape.
template <class S>
struct ShapeRow {
  using type = S;
  const char* text;
};

constexpr auto shape_table = hana::make_tuple(
    ShapeRow<ShapeOf<>>{""}, ShapeRow<StaticShape<3>>{"3"}, ShapeRow<StaticShape<1>>{"1"}, ShapeRow<StaticShape<4, 3>>{"4,3"},
    ShapeRow<StaticShape<1, 3>>{"1,3"}, ShapeRow<ShapeOf<Ranged<1, 8>, Static<3>>>{"1~8,3"},
    ShapeRow<ShapeOf<Ranged<2, 8>, Static<1>>>{"2~8,1"}, ShapeRow<ShapeOf<Unknown, Static<1>, Static<3>>>{"-1,1,3"},
    ShapeRow<ShapeOf<Ranged<2, inf>, Static<4>>>{"2~inf,4"}, ShapeRow<StaticShape<0, 3>>{"0,3"},
    ShapeRow<ShapeOf<Static<2>, Ranged<1, 4>, Static<3>>>{"2,1~4,3"}, ShapeRow<UnknownRank>{"-2"});
constexpr std::size_t shape_rows = hana::size(shape_table);

template <class S>
Shape typed_shape_of() {
  return to_shape(S{});
}

// What the typed face says of one pair, computed by the compiler; the shapes it gives
// are converted (to_shape) when the test calls `merge` / `broadcast`.
struct ShapePair {
  const char* a;
  const char* b;
  bool compatible, relaxes, refines, equal, can_merge, can_broadcast;
  Shape (*merge)();  // null where can_merge is false
  Shape (*broadcast)();
};

template <class A, class B>
constexpr ShapePair typed_shape_pair(const char* a, const char* b) {
  ShapePair p{a, b, compatible(A{}, B{}), relaxes(A{}, B{}), refines(A{}, B{}), A{} == B{}, can_merge_v<A, B>,
         can_broadcast_v<A, B>, nullptr, nullptr};
  if constexpr (can_merge_v<A, B>) p.merge = &typed_shape_of<decltype(merge(A{}, B{}))>;
  if constexpr (can_broadcast_v<A, B>) p.broadcast = &typed_shape_of<decltype(broadcast(A{}, B{}))>;
  return p;
}

constexpr auto shape_pairs = [] {
  std::array<ShapePair, shape_rows * shape_rows> out{};
  std::size_t i = 0;
  hana::for_each(hana::cartesian_product(hana::make_tuple(shape_table, shape_table)), [&](const auto& pair) {
    const auto& ra = hana::at_c<0>(pair);
    const auto& rb = hana::at_c<1>(pair);
    out[i++] = typed_shape_pair<typename std::remove_cvref_t<decltype(ra)>::type,
                          typename std::remove_cvref_t<decltype(rb)>::type>(ra.text, rb.text);
  });
  return out;
}();

// Same rank state, and every dim with the same values and spelling.
bool same_spelling(const Shape& a, const Shape& b) { return a == b && a.to_string() == b.to_string(); }
}  // namespace

TEST_CASE("typed shapes convert to the runtime shapes they spell") {
  std::size_t n = 0;
  hana::for_each(shape_table, [&](const auto& row) {
    using S = typename std::remove_cvref_t<decltype(row)>::type;
    INFO(std::string(row.text));
    const Shape runtime = Shape::parse(row.text);
    CHECK(same_spelling(to_shape(S{}), runtime));
    CHECK(to_shape(S{}).to_string() == row.text);
    // The element count, as an interval, spelled as the runtime's.
    const Dim count = to_dim(element_count(S{}));
    CHECK_MESSAGE(count.same_spelling(ge::element_count(runtime)), count.to_string());
    ++n;
  });
  CHECK(n == shape_rows);
  CHECK(to_shape(UnknownRank{}) == Shape::unknown_rank());
  CHECK(to_shape(ShapeOf<>{}).is_scalar());
}

TEST_CASE("compatible, relaxes, refines, == agree on every pair of shapes") {
  for (const ShapePair& p : shape_pairs) {
    const Shape a = Shape::parse(p.a), b = Shape::parse(p.b);
    INFO("'", std::string(p.a), "' vs '", std::string(p.b), "'");
    CHECK(p.compatible == ge::compatible(a, b));
    CHECK(p.relaxes == ge::relaxes(a, b));
    CHECK(p.refines == ge::refines(a, b));
    CHECK(p.equal == (a == b));
  }
}

TEST_CASE("merge agrees on every pair of shapes, and is a compile error exactly where it throws") {
  std::size_t merged = 0, ranks = 0, dims = 0;
  for (const ShapePair& p : shape_pairs) {
    const Shape a = Shape::parse(p.a), b = Shape::parse(p.b);
    INFO("'", std::string(p.a), "' vs '", std::string(p.b), "'");
    if (p.can_merge) {
      REQUIRE_MESSAGE(static_cast<bool>(p.merge), "no typed merge");
      const Shape typed = p.merge();
      const Shape runtime = ge::merge(a, b);
      CHECK_MESSAGE(same_spelling(typed, runtime), typed.to_string(), " != ", runtime.to_string());
      ++merged;
    } else {
      const Errc code = error_of([&] { (void)ge::merge(a, b); }).code();
      CHECK((code == Errc::rank_mismatch || code == Errc::incompatible_shapes));
      (code == Errc::rank_mismatch ? ranks : dims) += 1;
    }
  }
  CHECK(merged > 0);
  CHECK(ranks > 0);
  CHECK(dims > 0);
}

TEST_CASE("broadcast agrees on every pair of shapes, and is a compile error exactly where it throws") {
  std::size_t broadcast = 0, rejected = 0;
  for (const ShapePair& p : shape_pairs) {
    const Shape a = Shape::parse(p.a), b = Shape::parse(p.b);
    INFO("'", std::string(p.a), "' vs '", std::string(p.b), "'");
    if (p.can_broadcast) {
      REQUIRE_MESSAGE(static_cast<bool>(p.broadcast), "no typed broadcast");
      const Shape typed = p.broadcast();
      const Shape runtime = ge::broadcast(a, b);
      CHECK_MESSAGE(same_spelling(typed, runtime), typed.to_string(), " != ", runtime.to_string());
      ++broadcast;
    } else {
      CHECK(error_of([&] { (void)ge::broadcast(a, b); }).code() == Errc::incompatible_shapes);
      ++rejected;
    }
  }
  CHECK(broadcast > 0);
  CHECK(rejected > 0);
}

TEST_CASE("typed shapes are built from typed dims, Hana tuples and integral constants") {
  constexpr auto x = make_shape(Ranged<1, 8>{}, hana::int_c<3>, std::integral_constant<int, 224>{}, Unknown{});
  using X = std::remove_const_t<decltype(x)>;
  static_assert(std::is_same_v<X, ShapeOf<Ranged<1, 8>, Static<3>, Static<224>, Unknown>>);
  static_assert(X::rank == 4);
  static_assert(make_shape(dims(x)) == x);
  static_assert(make_shape(hana::make_tuple(Static<2>{}, hana::llong_c<5>)) == StaticShape<2, 5>{});
  static_assert(std::is_same_v<dim_at_t<X, -1>, Unknown>);
  static_assert(std::is_same_v<dim_at_t<X, 1>, Static<3>>);
  std::string texts;
  hana::for_each(dims(x), [&](auto d) { texts += to_dim(d).to_string() + ";"; });
  CHECK(texts == "1~8;3;224;-1;");
  CHECK(to_shape(x).to_string() == "1~8,3,224,-1");
}

TEST_CASE("check: a real shape must lie within the typed one") {
  constexpr auto input = make_shape(Ranged<1, 8>{}, Static<3>{}, Static<224>{}, Static<224>{});
  check(input, Shape{4, 3, 224, 224});
  check(input, Shape::parse("2~5,3,224,224"));
  check(UnknownRank{}, Shape::parse("7"));
  check(ShapeOf<>{}, Shape{});
  CHECK(matches(input, Shape{8, 3, 224, 224}));
  CHECK_FALSE(matches(input, Shape{9, 3, 224, 224}));

  expect_error(
      [&] {
        check(input, Shape{9, 3, 224, 224});
      },
      Errc::incompatible_shapes,
      "[ge.shape] ge::typed::check: shape '9,3,224,224' does not fit the typed shape '1~8,3,224,224'",
      "dim 0 is '9'; expected a value in '1~8'");
  expect_error([&] { check(input, Shape::parse("-1,3,224,224")); }, Errc::incompatible_shapes, "dim 0 is '-1'");
  expect_error([&] { check(input, Shape{4, 3, 224}); }, Errc::rank_mismatch, "rank 3; expected rank 4");
  expect_error([&] { check(input, Shape::unknown_rank()); }, Errc::unknown_rank, "'-2'",
               "its rank is unknown; expected rank 4");
  expect_error([&] { check(ShapeOf<>{}, Shape{1}); }, Errc::rank_mismatch, "rank 1; expected rank 0");
}

TEST_CASE("bind: a partial runtime shape narrowed by the typed one") {
  constexpr auto input = make_shape(Ranged<1, 8>{}, Static<3>{}, Unknown{});
  CHECK(bind(input, Shape::parse("-1,3,224")).to_string() == "1~8,3,224");
  CHECK(bind(input, Shape::parse("4~16,-1,-1")).to_string() == "4~8,3,-1");
  CHECK(bind(input, Shape::unknown_rank()).to_string() == "1~8,3,-1");
  CHECK(bind(UnknownRank{}, Shape::parse("5,6")).to_string() == "5,6");
  expect_error([&] { (void)bind(input, Shape::parse("9~12,3,224")); }, Errc::incompatible_shapes, "ge::typed::bind",
               "dim 0 is '9~12'; expected a value in '1~8'");
  expect_error([&] { (void)bind(input, Shape{4, 3}); }, Errc::rank_mismatch, "rank 2; expected rank 3");
}
