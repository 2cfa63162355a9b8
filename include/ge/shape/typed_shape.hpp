#pragma once
/// \file
/// Compile-time shapes: `ShapeOf<Dims...>` (a list of typed dims, empty for a scalar)
/// and `UnknownRank`, the typed face of `ge::Shape` (shape.hpp), with its algebra.
///
/// | typed                                     | `ge::Shape` text |
/// |-------------------------------------------|------------------|
/// | `ShapeOf<Ranged<1, 8>, Static<3>, Unknown>` | `1~8,3,-1`     |
/// | `StaticShape<1, 3, 224, 224>`             | `1,3,224,224`    |
/// | `ShapeOf<>`                               | `` (a scalar)    |
/// | `UnknownRank`                             | `-2`             |
///
/// Shapes are empty types too. The algebra of shape.hpp, on types and on values:
/// `compatible_v`, `relaxes_v`, `refines_v`, `merge_t` (`can_merge_v`), `broadcast_t`
/// (`can_broadcast_v`; dims aligned from the right), `element_count_t`; unknown rank
/// behaves as at run time. A merge or broadcast the runtime would reject is a compile
/// error that names the API and, in the "required from" lines, the two dims and shapes.
///
/// ```
/// using namespace ge::typed;
/// constexpr auto x = make_shape(Ranged<1, 8>{}, Static<3>{}, Static<1>{});
/// static_assert(broadcast(x, StaticShape<3, 5>{}) == ShapeOf<Ranged<1, 8>, Static<3>, Static<5>>{});
/// static_assert(element_count(x) == Ranged<3, 24>{});
/// ge::Shape s = to_shape(x);   // 1~8,3,1
/// ```

#include <boost/hana/tuple.hpp>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ge/shape/detail/typed_list.hpp"
#include "ge/shape/shape.hpp"
#include "ge/shape/typed_dim.hpp"

namespace ge::typed {

/// A shape of known rank: its dims, in order.
template <TypedDim... Ds>
struct ShapeOf final {
  static constexpr std::size_t rank = sizeof...(Ds);
};

/// A shape whose rank is not known (`-2`): compatible with every shape.
struct UnknownRank final {};

/// A shape of static dims: `StaticShape<1, 3, 224, 224>`.
template <std::int64_t... Ns>
using StaticShape = ShapeOf<Static<Ns>...>;

// The typed shapes (typed_dim.hpp declares the trait, for `TypedPair`).
template <TypedDim... Ds>
inline constexpr bool is_typed_shape_v<ShapeOf<Ds...>> = true;
template <>
inline constexpr bool is_typed_shape_v<UnknownRank> = true;

/// `ShapeOf<...>` or `UnknownRank`.
template <class T>
concept TypedShape = is_typed_shape_v<T>;

namespace detail {
/// Where a dim is expected, a Hana or std integral constant means `Static<value>`.
template <class T>
concept IntegralConstant = std::is_empty_v<T> && requires {
  { T::value } -> std::convertible_to<std::int64_t>;
};
template <class T>
struct as_dim {
  using type = T;
};
template <class T>
  requires(!TypedDim<T> && IntegralConstant<T>)
struct as_dim<T> {
  using type = Static<static_cast<std::int64_t>(T::value)>;
};

template <class... Ds>
constexpr Dim count(ShapeOf<Ds...>) {
  Dim n(1);  // a scalar has one element
  ((n = detail::mul(n, Ds::dim)), ...);
  return n;
}
constexpr Dim count(UnknownRank) { return Dim::unknown(); }

inline constexpr auto dims_compatible = [](const Dim& a, const Dim& b) { return ge::compatible(a, b); };
inline constexpr auto dims_relax = [](const Dim& a, const Dim& b) { return ge::relaxes(a, b); };
inline constexpr auto dims_broadcast = [](const Dim& a, const Dim& b) { return detail::can_broadcast(a, b); };
}  // namespace detail

/// The typed shape of the dims given: typed dims, or integral constants (Hana's
/// `hana::int_c<3>`, `std::integral_constant`) for static ones.
template <class... Ds>
  requires(TypedDim<typename detail::as_dim<Ds>::type> && ...)
[[nodiscard]] constexpr ShapeOf<typename detail::as_dim<Ds>::type...> make_shape(Ds...) noexcept {
  return {};
}
/// The typed shape of a Hana tuple of dims.
template <class... Ds>
[[nodiscard]] constexpr auto make_shape(boost::hana::tuple<Ds...>) noexcept {
  return make_shape(Ds{}...);
}
/// The dims as a Hana tuple, for Hana's algorithms: `hana::for_each(dims(s), f)`.
template <TypedDim... Ds>
[[nodiscard]] constexpr boost::hana::tuple<Ds...> dims(ShapeOf<Ds...>) noexcept {
  return {};
}

/// The runtime shape: same dims, same spellings. `to_shape(UnknownRank{})` is `-2`.
template <TypedDim... Ds>
[[nodiscard]] Shape to_shape(ShapeOf<Ds...>) {
  return Shape{Ds::dim...};
}
[[nodiscard]] inline Shape to_shape(UnknownRank) { return Shape::unknown_rank(); }

/// `dim_at_t<S, I>`: dim I of S; a negative I counts from the end, as `Shape::operator[]`.
template <TypedShape S, std::ptrdiff_t I>
struct dim_at {
  static_assert(!std::is_same_v<S, UnknownRank>, "ge::typed::dim_at: the shape has unknown rank");
  using type = Unknown;
};
template <TypedDim... Ds, std::ptrdiff_t I>
struct dim_at<ShapeOf<Ds...>, I> {
  static constexpr auto n = static_cast<std::ptrdiff_t>(sizeof...(Ds));
  static constexpr bool inside = -n <= I && I < n;
  static_assert(inside, "ge::typed::dim_at: the index is outside the shape");
  // Unknown at the end: the answer once the index was reported outside.
  using type = detail::at_t<static_cast<std::size_t>(!inside ? n : I < 0 ? I + n : I), Ds..., Unknown>;
};
template <TypedShape S, std::ptrdiff_t I>
using dim_at_t = typename dim_at<S, I>::type;

// The predicates of shape.hpp; unknown rank is compatible with anything, relaxes
// everything and refines only unknown rank.
template <TypedShape A, TypedShape B>
inline constexpr bool compatible_v<A, B> = true;  // unknown rank on a side
template <TypedDim... As, TypedDim... Bs>
inline constexpr bool compatible_v<ShapeOf<As...>, ShapeOf<Bs...>> =
    detail::all_pairs(ShapeOf<As...>{}, ShapeOf<Bs...>{}, detail::dims_compatible);
template <TypedShape A>
inline constexpr bool relaxes_v<UnknownRank, A> = true;
template <TypedDim... As>
inline constexpr bool relaxes_v<ShapeOf<As...>, UnknownRank> = false;
template <TypedDim... As, TypedDim... Bs>
inline constexpr bool relaxes_v<ShapeOf<As...>, ShapeOf<Bs...>> =
    detail::all_pairs(ShapeOf<As...>{}, ShapeOf<Bs...>{}, detail::dims_relax);
template <TypedShape A, TypedShape B>
inline constexpr bool can_merge_v<A, B> = compatible_v<A, B>;
template <TypedShape A, TypedShape B>
inline constexpr bool can_broadcast_v<A, B> = true;  // unknown rank on one side
template <TypedDim... As, TypedDim... Bs>
inline constexpr bool can_broadcast_v<ShapeOf<As...>, ShapeOf<Bs...>> =
    detail::all_pairs(detail::pad_to_t<detail::max_rank(sizeof...(As), sizeof...(Bs)), ShapeOf<As...>>{},
                      detail::pad_to_t<detail::max_rank(sizeof...(As), sizeof...(Bs)), ShapeOf<Bs...>>{},
                      detail::dims_broadcast);

/// The merged shape: unknown rank yields the other side; equal ranks merge dim by dim;
/// other ranks are a compile error naming `ge::typed::merge`.
template <TypedShape B>
struct merge_result<UnknownRank, B> {
  using type = B;
};
template <TypedDim... As>
struct merge_result<ShapeOf<As...>, UnknownRank> {
  using type = ShapeOf<As...>;
};
template <TypedDim... As, TypedDim... Bs>
struct merge_result<ShapeOf<As...>, ShapeOf<Bs...>> {
  static_assert(sizeof...(As) == sizeof...(Bs), "ge::typed::merge: the shapes' ranks differ");
  using type = typename detail::zip<merge_result, ShapeOf<As...>, ShapeOf<Bs...>>::type;
};

/// The broadcast shape: numpy's rule, dims aligned from the right, each pair by the dim
/// rule; unknown rank on either side gives unknown rank.
template <TypedShape B>
struct broadcast_result<UnknownRank, B> {
  using type = UnknownRank;
};
template <TypedDim... As>
struct broadcast_result<ShapeOf<As...>, UnknownRank> {
  using type = UnknownRank;
};
template <TypedDim... As, TypedDim... Bs>
struct broadcast_result<ShapeOf<As...>, ShapeOf<Bs...>> {
  static constexpr std::size_t rank = detail::max_rank(sizeof...(As), sizeof...(Bs));
  using type = typename detail::zip<broadcast_result, detail::pad_to_t<rank, ShapeOf<As...>>,
                                    detail::pad_to_t<rank, ShapeOf<Bs...>>>::type;
};

/// The number of elements as an interval, as `ge::element_count`: `Static<1>` for a
/// scalar, `Unknown` for unknown rank, saturating at `inf`.
template <TypedShape S>
struct element_count_result {
  static constexpr Dim dim = detail::count(S{});
  using type = detail::dim_t<dim.kind(), dim.lo(), dim.hi()>;
};
template <TypedShape S>
using element_count_t = typename element_count_result<S>::type;
/// An `element_count_t` value: `element_count(StaticShape<2, 3>{})` is `Static<6>{}`.
template <TypedShape S>
[[nodiscard]] constexpr element_count_t<S> element_count(S) noexcept {
  return {};
}

/// Same rank state and equal dims (by value sets), as `ge::Shape`'s `==`.
template <TypedShape A, TypedShape B>
[[nodiscard]] constexpr bool operator==(A, B) noexcept {
  if constexpr (std::is_same_v<A, UnknownRank> || std::is_same_v<B, UnknownRank>) {
    return std::is_same_v<A, B>;
  } else {
    return detail::all_pairs(A{}, B{}, [](const Dim& a, const Dim& b) { return a == b; });
  }
}

/// `static_assert(expect_same<Actual, Expected>)`: a typed dim or shape is exactly the
/// expected one (spelling included). Where `static_assert(std::is_same_v<...>)` says only
/// "static assertion failed", a mismatch here is an error in
/// `ge::typed::expect_same_check<Actual, Expected>`, whose instantiation line shows both:
///
/// ```
/// using Y = conv2d_t<StaticShape<1, 3, 32, 32>, StaticShape<8, 3, 3, 3>>;
/// static_assert(expect_same<Y, StaticShape<1, 8, 30, 30>>);
/// ```
template <class Actual, class Expected>
struct expect_same_check {
  static_assert(std::is_same_v<Actual, Expected>,
                "ge::typed::expect_same: the computed type (Actual) is not the Expected one; the 'In "
                "instantiation of expect_same_check<Actual, Expected>' line above shows both");
  static constexpr bool value = true;
};
template <class Actual, class Expected>
inline constexpr bool expect_same = expect_same_check<Actual, Expected>::value;

}  // namespace ge::typed
