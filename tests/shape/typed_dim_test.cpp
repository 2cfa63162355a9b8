// Tests of ge/shape/typed_dim.hpp against ge/shape/dim.hpp: the two faces of a dim agree
// on every pair of a dim_table of dims (generated at compile time by Hana's cartesian
// product), for every rule of the algebra, spelling included; where the typed rule is
// a compile error (its can_*_v is false), the runtime one throws, and only there.
#include <doctest/doctest.h>

#include <array>
#include <boost/hana/at.hpp>
#include <boost/hana/cartesian_product.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ge/shape/typed_check.hpp"
#include "ge/shape/typed_dim.hpp"
#include "support/expect_error.hpp"

namespace hana = boost::hana;
using ge::Dim;
using ge::Errc;
using namespace ge::typed;
using ge::test::error_of;

namespace {
// One row of the dim_table: a typed dim and the text of the same runtime dim.
template <class D>
struct DimRow {
  using type = D;
  const char* text;
};

// Every kind: static 0, 1, 3, 4; ranged with 1, without 1, spelled static, unbounded
// (with and without 1, and [0, inf] spelled as a range); unknown.
constexpr auto dim_table = hana::make_tuple(
    DimRow<Static<0>>{"0"}, DimRow<Static<1>>{"1"}, DimRow<Static<3>>{"3"}, DimRow<Static<4>>{"4"},
    DimRow<Ranged<1, 4>>{"1~4"}, DimRow<Ranged<0, 2>>{"0~2"}, DimRow<Ranged<2, 8>>{"2~8"},
    DimRow<Ranged<4, 16>>{"4~16"}, DimRow<Ranged<3, 3>>{"3~3"}, DimRow<Ranged<3, inf>>{"3~inf"},
    DimRow<Ranged<1, inf>>{"1~inf"}, DimRow<Ranged<0, inf>>{"0~inf"}, DimRow<Unknown>{"-1"});
constexpr std::size_t dim_rows = hana::size(dim_table);

// What the typed face says of one pair, computed by the compiler.
struct DimPair {
  const char* a;
  const char* b;
  bool compatible, relaxes, refines, equal, can_merge, can_broadcast;
  Dim merge, broadcast, product;  // merge, broadcast: unknown where can_* is false
};

template <class A, class B>
constexpr DimPair typed_dim_pair(const char* a, const char* b) {
  DimPair p{a, b,
         compatible(A{}, B{}), relaxes(A{}, B{}), refines(A{}, B{}), A{} == B{},
         can_merge_v<A, B>, can_broadcast_v<A, B>,
         Dim(), Dim(), to_dim(A{} * B{})};
  static_assert(compatible_v<A, B> == compatible(A{}, B{}) && refines_v<A, B> == relaxes_v<B, A>);
  if constexpr (can_merge_v<A, B>) {
    static_assert(std::is_same_v<decltype(merge(A{}, B{})), merge_t<A, B>>);
    p.merge = to_dim(merge(A{}, B{}));
  }
  if constexpr (can_broadcast_v<A, B>) {
    static_assert(std::is_same_v<decltype(broadcast(A{}, B{})), broadcast_t<A, B>>);
    p.broadcast = to_dim(broadcast(A{}, B{}));
  }
  return p;
}

// Every ordered pair of dim_rows (Hana's cartesian product), evaluated at compile time.
constexpr auto dim_pairs = [] {
  std::array<DimPair, dim_rows * dim_rows> out{};
  std::size_t i = 0;
  hana::for_each(hana::cartesian_product(hana::make_tuple(dim_table, dim_table)), [&](const auto& pair) {
    const auto& ra = hana::at_c<0>(pair);
    const auto& rb = hana::at_c<1>(pair);
    out[i++] = typed_dim_pair<typename std::remove_cvref_t<decltype(ra)>::type,
                          typename std::remove_cvref_t<decltype(rb)>::type>(ra.text, rb.text);
  });
  return out;
}();

std::string spelled(const Dim& d) { return d.to_string() + (d.is_range() ? " (range)" : ""); }
}  // namespace

TEST_CASE("typed dims convert to the runtime dims of the same spelling") {
  std::size_t n = 0;
  hana::for_each(dim_table, [&](const auto& row) {
    using D = typename std::remove_cvref_t<decltype(row)>::type;
    INFO(std::string(row.text));
    CHECK(to_dim(D{}).same_spelling(Dim::parse(row.text)));
    CHECK(to_dim(D{}).to_string() == row.text);
    CHECK(is_static_v<D> == Dim::parse(row.text).is_static());
    ++n;
  });
  CHECK(n == 13);
  static_assert(Static<7>::value == 7);
  CHECK(to_dim(Ranged<8, inf>{}).to_string() == "8~inf");
}

TEST_CASE("compatible, relaxes, refines, == agree on every pair") {
  for (const DimPair& p : dim_pairs) {
    const Dim a = Dim::parse(p.a), b = Dim::parse(p.b);
    INFO(std::string(p.a), " vs ", std::string(p.b));
    CHECK(p.compatible == ge::compatible(a, b));
    CHECK(p.relaxes == ge::relaxes(a, b));
    CHECK(p.refines == ge::refines(a, b));
    CHECK(p.equal == (a == b));
  }
}

TEST_CASE("merge agrees on every pair, and is a compile error exactly where it throws") {
  std::size_t merged = 0, rejected = 0;
  for (const DimPair& p : dim_pairs) {
    const Dim a = Dim::parse(p.a), b = Dim::parse(p.b);
    INFO(std::string(p.a), " vs ", std::string(p.b));
    if (p.can_merge) {
      const Dim runtime = ge::merge(a, b);
      CHECK_MESSAGE(p.merge.same_spelling(runtime), spelled(p.merge), " != ", spelled(runtime));
      ++merged;
    } else {
      CHECK(error_of([&] { (void)ge::merge(a, b); }).code() == Errc::incompatible_dims);
      ++rejected;
    }
  }
  CHECK(merged > 0);
  CHECK(rejected > 0);
  CHECK(merged + rejected == dim_rows * dim_rows);
}

TEST_CASE("broadcast agrees on every pair, and is a compile error exactly where it throws") {
  std::size_t broadcast = 0, rejected = 0;
  for (const DimPair& p : dim_pairs) {
    const Dim a = Dim::parse(p.a), b = Dim::parse(p.b);
    INFO(std::string(p.a), " vs ", std::string(p.b));
    if (p.can_broadcast) {
      const Dim runtime = ge::broadcast(a, b);
      CHECK_MESSAGE(p.broadcast.same_spelling(runtime), spelled(p.broadcast), " != ", spelled(runtime));
      ++broadcast;
    } else {
      CHECK(error_of([&] { (void)ge::broadcast(a, b); }).code() == Errc::incompatible_dims);
      ++rejected;
    }
  }
  CHECK(broadcast > 0);
  CHECK(rejected > 0);
  CHECK(broadcast + rejected == dim_rows * dim_rows);
}

TEST_CASE("the product (the element count's step) agrees on every pair") {
  for (const DimPair& p : dim_pairs) {
    const Dim a = Dim::parse(p.a), b = Dim::parse(p.b);
    INFO(std::string(p.a), " * ", std::string(p.b));
    CHECK_MESSAGE(p.product.same_spelling(a * b), spelled(p.product), " != ", spelled(a * b));
  }
  // An unbounded end stays unbounded, as the runtime; a finite product past int64 does
  // not compile (tests/compile_fail/dim_product_overflow.cpp) and throws at run time.
  CHECK(to_dim(Ranged<1, inf>{} * Static<4>{}).same_spelling(Dim::at_least(4)));
  static_assert(std::is_same_v<product_t<Static<(std::int64_t{1} << 40)>, Static<4>>, Static<(std::int64_t{1} << 42)>>);
  CHECK_THROWS_AS((void)(Dim::range(1, inf >> 1) * Dim(4)), ge::Error);
}

TEST_CASE("check tests a real dim against a typed one at run time") {
  check(Ranged<1, 8>{}, Dim(4));
  check(Unknown{}, Dim(123456));
  check(Ranged<1, 8>{}, Dim::range(2, 3));
  CHECK(matches(Static<3>{}, Dim(3)));
  CHECK_FALSE(matches(Static<3>{}, Dim::range(3, 4)));
  const ge::Error e = error_of([] { check(Ranged<1, 8>{}, Dim(9)); });
  CHECK(e.code() == Errc::incompatible_dims);
  CHECK(std::string(e.what()) ==
        "[ge.shape] ge::typed::check: dim '9' does not fit the typed dim; expected a value in '1~8'");
  // A range that only meets the typed one does not lie within it.
  CHECK(error_of([] { check(Static<3>{}, Dim::unknown()); }).code() == Errc::incompatible_dims);
}
