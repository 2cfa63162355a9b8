#pragma once
/// \file
/// Compile-time dims: `Static<N>`, `Ranged<Lo, Hi>` and `Unknown`, the typed face of
/// `ge::Dim` (dim.hpp), with the same intervals, spellings and algebra.
///
/// | typed             | `ge::Dim` | interval   |
/// |-------------------|-----------|------------|
/// | `Static<5>`       | `5`       | [5, 5]     |
/// | `Ranged<8, 20>`   | `8~20`    | [8, 20]    |
/// | `Ranged<8, inf>`  | `8~inf`   | [8, inf]   |
/// | `Unknown`         | `-1`      | [0, inf]   |
///
/// Each is an empty `final` struct: a dim costs nothing at run time and a diagnostic
/// names it as written (`ge::typed::Static<3>`). `D::dim` is the runtime dim.
///
/// The algebra, as types (`_t`, `_v`) and as constexpr functions on values:
/// - `compatible_v<A, B>`, `relaxes_v<A, B>`, `refines_v<A, B>`: as in dim.hpp.
/// - `merge_t<A, B>`, `broadcast_t<A, B>`, `product_t<A, B>` (also `merge(a, b)`,
///   `broadcast(a, b)`, `a * b`): the dim the runtime function returns, spelling included.
/// - `can_merge_v<A, B>`, `can_broadcast_v<A, B>`: true exactly where the runtime function
///   does not throw. Where it would throw, `merge_t`/`broadcast_t` is a compile error whose
///   message names the API, in a template whose arguments are the two dims:
///
/// ```
/// using namespace ge::typed;
/// static_assert(std::is_same_v<broadcast_t<Static<1>, Ranged<2, 8>>, Ranged<2, 8>>);
/// static_assert(std::is_same_v<merge_t<Ranged<2, 8>, Ranged<4, 16>>, Ranged<4, 8>>);
/// static_assert(!can_broadcast_v<Static<3>, Static<4>>);
/// // broadcast_t<Static<3>, Static<4>>:
/// //   error: static assertion failed: ge::typed::broadcast: static dims differ and neither is 1
/// ```
///
/// A ranged or unknown dim is not checked away: the result carries the interval the
/// runtime algebra gives, and `check()` (typed_check.hpp) tests real dims against it.

#include <cstdint>
#include <type_traits>

#include "ge/shape/detail/typed_algebra.hpp"
#include "ge/shape/dim.hpp"

namespace ge::typed {

/// The unbounded upper end, as in `Ranged<8, inf>`.
inline constexpr std::int64_t inf = Dim::inf;

/// The fixed dim N >= 0 (`ge::Dim(N)`).
template <std::int64_t N>
struct Static final {
  static_assert(N >= 0, "ge::typed::Static: a dim must be >= 0 (write Unknown for -1)");
  static constexpr std::int64_t value = N;
  static constexpr Dim dim = Dim(N < 0 ? 0 : N);
};

/// The range Lo~Hi, 0 <= Lo <= Hi, Hi may be `inf` (`ge::Dim::range(Lo, Hi)`).
template <std::int64_t Lo, std::int64_t Hi>
struct Ranged final {
  static_assert(0 <= Lo && Lo <= Hi,
                "ge::typed::Ranged: bad range; expected Ranged<Lo, Hi> with 0 <= Lo <= Hi");
  static constexpr Dim dim = 0 <= Lo && Lo <= Hi ? Dim::range(Lo, Hi) : Dim::unknown();
};

/// Any value >= 0 (`-1`, `ge::Dim::unknown()`).
struct Unknown final {
  static constexpr Dim dim = Dim::unknown();
};

/// True for the typed dims: `Static<N>`, `Ranged<Lo, Hi>`, `Unknown`.
template <class T>
inline constexpr bool is_typed_dim_v = false;
template <std::int64_t N>
inline constexpr bool is_typed_dim_v<Static<N>> = true;
template <std::int64_t Lo, std::int64_t Hi>
inline constexpr bool is_typed_dim_v<Ranged<Lo, Hi>> = true;
template <>
inline constexpr bool is_typed_dim_v<Unknown> = true;

/// `Static<N>`, `Ranged<Lo, Hi>` or `Unknown`.
template <class T>
concept TypedDim = is_typed_dim_v<T>;

/// True for the typed shapes of typed_shape.hpp, which specializes it.
template <class T>
inline constexpr bool is_typed_shape_v = false;

/// The dim has one value (`Static<N>`, or `Ranged<N, N>`), as `Dim::is_static()`.
template <TypedDim D>
inline constexpr bool is_static_v = D::dim.is_static();

namespace detail {
template <Dim::Kind K, std::int64_t Lo, std::int64_t Hi>
struct dim_type {
  using type = Unknown;
};
template <std::int64_t Lo, std::int64_t Hi>
struct dim_type<Dim::Kind::fixed, Lo, Hi> {
  using type = Static<Lo>;
};
template <std::int64_t Lo, std::int64_t Hi>
struct dim_type<Dim::Kind::range, Lo, Hi> {
  using type = Ranged<Lo, Hi>;
};
/// The typed dim spelled as the constant dim `d`: `dim_t<d.kind(), d.lo(), d.hi()>`.
template <Dim::Kind K, std::int64_t Lo, std::int64_t Hi>
using dim_t = typename dim_type<K, Lo, Hi>::type;
/// Both static: picks which message a failed check gives.
template <TypedDim A, TypedDim B>
inline constexpr bool both_static_v = is_static_v<A> && is_static_v<B>;
/// `static_assert(detail::checked<Checks...>)` completes each check class, which runs
/// its static_asserts (a static member's initializer alone would not be instantiated).
template <class... Checks>
inline constexpr bool checked = ((sizeof(Checks) > 0) && ...);
/// The typed dim of `F(A::dim, B::dim)` where `Ok`; A otherwise (the failure is
/// reported by the caller's static_assert, and nothing else fails after it).
template <Dim (*F)(const Dim&, const Dim&), bool Ok, TypedDim A, TypedDim B>
struct apply {
  static constexpr Dim dim = Ok ? F(A::dim, B::dim) : A::dim;
  using type = dim_t<dim.kind(), dim.lo(), dim.hi()>;
};
}  // namespace detail

/// The runtime dim, same interval and spelling: `to_dim(Ranged<8, inf>{})` is `8~inf`.
template <TypedDim D>
[[nodiscard]] constexpr Dim to_dim(D) noexcept {
  return D::dim;
}

// The predicates: exactly the runtime functions' answers. Typed shapes
// (typed_shape.hpp) specialize them too; any other pair is false.

/// Some value lies in both (`ge::compatible`).
template <class A, class B>
inline constexpr bool compatible_v = false;
template <TypedDim A, TypedDim B>
inline constexpr bool compatible_v<A, B> = ge::compatible(A::dim, B::dim);
/// a ⊇ b (`ge::relaxes`).
template <class A, class B>
inline constexpr bool relaxes_v = false;
template <TypedDim A, TypedDim B>
inline constexpr bool relaxes_v<A, B> = ge::relaxes(A::dim, B::dim);
/// a ⊆ b, for dims and for shapes.
template <class A, class B>
inline constexpr bool refines_v = relaxes_v<B, A>;
/// `merge_t<A, B>` exists: `ge::merge` does not throw.
template <class A, class B>
inline constexpr bool can_merge_v = false;
template <TypedDim A, TypedDim B>
inline constexpr bool can_merge_v<A, B> = detail::can_merge(A::dim, B::dim);
/// `broadcast_t<A, B>` exists: `ge::broadcast` does not throw.
template <class A, class B>
inline constexpr bool can_broadcast_v = false;
template <TypedDim A, TypedDim B>
inline constexpr bool can_broadcast_v<A, B> = detail::can_broadcast(A::dim, B::dim);

/// `merge_result<A, B>::type`: the intersection, as `ge::merge`. Static dims that differ,
/// or intervals that do not meet, are a compile error naming `ge::typed::merge`.
template <class A, class B>
struct merge_result;
template <TypedDim A, TypedDim B>
struct merge_result<A, B> {
  static_assert(can_merge_v<A, B> || !detail::both_static_v<A, B>, "ge::typed::merge: static dims differ");
  static_assert(can_merge_v<A, B> || detail::both_static_v<A, B>,
                "ge::typed::merge: dims have no value in common");
  using type = typename detail::apply<detail::merge, can_merge_v<A, B>, A, B>::type;
};
template <class A, class B>
using merge_t = typename merge_result<A, B>::type;

/// `broadcast_result<A, B>::type`: numpy's rule over intervals, as `ge::broadcast`.
/// Static dims that differ with neither 1, or intervals that cannot meet with neither
/// containing 1, are a compile error naming `ge::typed::broadcast`.
template <class A, class B>
struct broadcast_result;
template <TypedDim A, TypedDim B>
struct broadcast_result<A, B> {
  static_assert(can_broadcast_v<A, B> || !detail::both_static_v<A, B>,
                "ge::typed::broadcast: static dims differ and neither is 1");
  static_assert(can_broadcast_v<A, B> || detail::both_static_v<A, B>,
                "ge::typed::broadcast: dims have no value in common and neither can be 1");
  using type = typename detail::apply<detail::broadcast, can_broadcast_v<A, B>, A, B>::type;
};
template <class A, class B>
using broadcast_t = typename broadcast_result<A, B>::type;

/// The interval product, as `ge::Dim`'s `operator*`: static stays static
/// (`product_t<Static<3>, Static<4>>` is `Static<12>`), an unbounded end stays unbounded,
/// and finite dims whose product leaves int64 do not compile.
template <TypedDim A, TypedDim B>
using product_t = typename detail::apply<detail::mul, true, A, B>::type;
/// The interval sum, as `ge::Dim`'s `operator+`: `sum_t<Static<3>, Ranged<1, 2>>` is
/// `Ranged<4, 5>`; finite dims whose sum leaves int64 do not compile.
template <TypedDim A, TypedDim B>
using sum_t = typename detail::apply<detail::add, true, A, B>::type;

/// Two dims, or two typed shapes (typed_shape.hpp): the operands of the algebra.
template <class A, class B>
concept TypedPair = (TypedDim<A> && TypedDim<B>) || (is_typed_shape_v<A> && is_typed_shape_v<B>);

// The same on values, for dims and shapes alike, so that they compose as expressions:
// `broadcast(Static<1>{}, d)`, `merge(x, make_shape(Unknown{}, Static<3>{}))`.
/// `compatible_v` of the operands' types.
template <class A, class B>
  requires TypedPair<A, B>
[[nodiscard]] constexpr bool compatible(A, B) noexcept {
  return compatible_v<A, B>;
}
/// `relaxes_v` of the operands' types.
template <class A, class B>
  requires TypedPair<A, B>
[[nodiscard]] constexpr bool relaxes(A, B) noexcept {
  return relaxes_v<A, B>;
}
/// `refines_v` of the operands' types.
template <class A, class B>
  requires TypedPair<A, B>
[[nodiscard]] constexpr bool refines(A, B) noexcept {
  return refines_v<A, B>;
}
/// A `merge_t` value: `merge(Ranged<1, 8>{}, Static<4>{})` is `Static<4>{}`.
template <class A, class B>
  requires TypedPair<A, B>
[[nodiscard]] constexpr merge_t<A, B> merge(A, B) noexcept {
  return {};
}
/// A `broadcast_t` value: `broadcast(Static<1>{}, Unknown{})` is `Unknown{}`.
template <class A, class B>
  requires TypedPair<A, B>
[[nodiscard]] constexpr broadcast_t<A, B> broadcast(A, B) noexcept {
  return {};
}
/// A `product_t` value: `Static<3>{} * Ranged<1, 2>{}` is `Ranged<3, 6>{}`.
template <TypedDim A, TypedDim B>
[[nodiscard]] constexpr product_t<A, B> operator*(A, B) noexcept {
  return {};
}
/// A `sum_t` value: `Static<3>{} + Ranged<1, 2>{}` is `Ranged<4, 5>{}`.
template <TypedDim A, TypedDim B>
[[nodiscard]] constexpr sum_t<A, B> operator+(A, B) noexcept {
  return {};
}
/// Same set of values, as `ge::Dim`'s `==` (`Ranged<5, 5>{} == Static<5>{}`); the
/// spelling is the type: `std::is_same_v`.
template <TypedDim A, TypedDim B>
[[nodiscard]] constexpr bool operator==(A, B) noexcept {
  return A::dim == B::dim;
}

}  // namespace ge::typed
