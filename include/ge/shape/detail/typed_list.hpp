#pragma once
// Private: the list operations typed shapes are built with (typed_shape.hpp,
// typed_matmul.hpp, typed_conv2d.hpp): indexing, slicing, concatenation, padding, zipping
// two shapes dim by dim. Each is a pack expansion or a fold, in constant instantiation
// depth, to keep compile times low.

#include <cstddef>
#include <utility>

#include "ge/shape/typed_dim.hpp"

namespace ge::typed {

template <TypedDim... Ds>
struct ShapeOf;

namespace detail {

/// `Ts...[I]`, in constant depth.
template <std::size_t I, class T>
struct indexed {
  using type = T;
};
template <class Seq, class... Ts>
struct index_all;
template <std::size_t... Is, class... Ts>
struct index_all<std::index_sequence<Is...>, Ts...> : indexed<Is, Ts>... {};
template <std::size_t I, class T>
indexed<I, T> select(const indexed<I, T>&);
template <std::size_t I, class... Ts>
using at_t = typename decltype(select<I>(index_all<std::index_sequence_for<Ts...>, Ts...>{}))::type;

/// `ShapeOf<Ds...[Is]...>`: some dims of a shape.
template <class S, class Seq>
struct slice;
template <class... Ds, std::size_t... Is>
struct slice<ShapeOf<Ds...>, std::index_sequence<Is...>> {
  using type = ShapeOf<at_t<Is, Ds...>...>;
};
/// The first N dims of S.
template <class S, std::size_t N>
using take_t = typename slice<S, std::make_index_sequence<N>>::type;

/// Two shapes end to end.
template <class A, class B>
struct concat;
template <class... As, class... Bs>
struct concat<ShapeOf<As...>, ShapeOf<Bs...>> {
  using type = ShapeOf<As..., Bs...>;
};
template <class A, class B>
using concat_t = typename concat<A, B>::type;

/// S with 1s in front up to rank N, as numpy aligns shapes from the right.
template <class S, class Seq>
struct pad_front;
template <std::size_t>
struct one {
  using type = Static<1>;
};
template <class... Ds, std::size_t... Is>
struct pad_front<ShapeOf<Ds...>, std::index_sequence<Is...>> {
  using type = ShapeOf<typename one<Is>::type..., Ds...>;
};
template <std::size_t N, class S>
using pad_to_t = typename pad_front<S, std::make_index_sequence<N - S::rank>>::type;
constexpr std::size_t max_rank(std::size_t a, std::size_t b) noexcept { return a < b ? b : a; }

/// `ShapeOf<Op<As, Bs>::type...>` for equal ranks; A when they differ (already reported).
template <template <class, class> class Op, class A, class B>
struct zip {
  using type = A;
};
template <template <class, class> class Op, class... As, class... Bs>
  requires(sizeof...(As) == sizeof...(Bs))
struct zip<Op, ShapeOf<As...>, ShapeOf<Bs...>> {
  using type = ShapeOf<typename Op<As, Bs>::type...>;
};

/// `pred` holds for every dim pair of two shapes of the same rank.
template <class... As, class... Bs, class Pred>
constexpr bool all_pairs(ShapeOf<As...>, ShapeOf<Bs...>, Pred pred) {
  if constexpr (sizeof...(As) != sizeof...(Bs)) {
    return false;
  } else {
    return (pred(As::dim, Bs::dim) && ...);
  }
}

}  // namespace detail
}  // namespace ge::typed
