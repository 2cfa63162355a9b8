#pragma once
/// \file
/// `matmul` on typed shapes: the output shape of numpy's batched `a @ b`, over
/// intervals. Batch dims (all but the last two) broadcast as in `broadcast`; a's last
/// dim and b's second to last must be equal (merge's rule); a vector a reads as [1, K]
/// and a vector b as [K, 1], the added 1 dropped from the result; unknown rank on
/// either side gives unknown rank. A rule that fails for every value the dims allow is
/// a compile error naming `ge::typed::matmul` and the two dims.
///
/// | a               | b          | result          |
/// |-----------------|------------|-----------------|
/// | `64,32`         | `32,16`    | `64,16`         |
/// | `1~8,1,64,32`   | `4,32,16`  | `1~8,4,64,16`   |
/// | `32`            | `3,32,16`  | `3,16`          |
/// | `3,32,16`       | `16`       | `3,32`          |
/// | `64,4~8`        | `6~16,16`  | `64,16`         |
/// | `64,32`         | `33,16`    | compile error: inner dims differ |
///
/// ```
/// using namespace ge::typed;
/// static_assert(matmul(ShapeOf<Ranged<1, 8>, Static<64>, Static<32>>{}, StaticShape<32, 16>{}) ==
///               ShapeOf<Ranged<1, 8>, Static<64>, Static<16>>{});
/// static_assert(!can_matmul_v<StaticShape<64, 32>, StaticShape<33, 16>>);
/// ```

#include <cstddef>
#include <type_traits>

#include "ge/shape/detail/typed_list.hpp"
#include "ge/shape/typed_dim.hpp"
#include "ge/shape/typed_shape.hpp"

namespace ge::typed {

namespace detail {
/// a, b as numpy reads them: a vector a is [1, K], a vector b is [K, 1] (the added 1 is
/// dropped from the result). A scalar (reported by the caller) reads as [1, -1] / [-1, 1].
template <class A, class B>
struct matmul_parts {
  static constexpr std::size_t ra = A::rank, rb = B::rank;
  using A1 = std::conditional_t<ra == 0, ShapeOf<Unknown>, A>;
  using B1 = std::conditional_t<rb == 0, ShapeOf<Unknown>, B>;
  using A2 = std::conditional_t<(ra >= 2), A, concat_t<ShapeOf<Static<1>>, A1>>;
  using B2 = std::conditional_t<(rb >= 2), B, concat_t<B1, ShapeOf<Static<1>>>>;
  using Ka = dim_at_t<A2, -1>;
  using Kb = dim_at_t<B2, -2>;
  using BatchA = take_t<A2, A2::rank - 2>;
  using BatchB = take_t<B2, B2::rank - 2>;
  static constexpr std::size_t batch_rank = max_rank(BatchA::rank, BatchB::rank);
  using M = std::conditional_t<ra == 1, ShapeOf<>, ShapeOf<dim_at_t<A2, -2>>>;
  using N = std::conditional_t<rb == 1, ShapeOf<>, ShapeOf<dim_at_t<B2, -1>>>;
  static constexpr bool ok = ra >= 1 && rb >= 1 && can_merge_v<Ka, Kb> && can_broadcast_v<BatchA, BatchB>;
};

/// The inner dims (a's last, b's second to last) must be equal: merge's rule.
template <TypedDim Ka, TypedDim Kb>
struct matmul_inner {
  static_assert(can_merge_v<Ka, Kb> || !both_static_v<Ka, Kb>, "ge::typed::matmul: inner dims differ");
  static_assert(can_merge_v<Ka, Kb> || both_static_v<Ka, Kb>,
                "ge::typed::matmul: inner dims have no value in common");
};
/// The batch dims broadcast: broadcast's rule, with matmul's messages.
template <TypedDim A, TypedDim B>
struct matmul_batch {
  static_assert(can_broadcast_v<A, B> || !both_static_v<A, B>,
                "ge::typed::matmul: batch dims differ and neither is 1");
  static_assert(can_broadcast_v<A, B> || both_static_v<A, B>,
                "ge::typed::matmul: batch dims have no value in common and neither can be 1");
  using type = typename apply<detail::broadcast, can_broadcast_v<A, B>, A, B>::type;
};
}  // namespace detail

/// `matmul_result<A, B>::type`: the shape of `a @ b`. Batch dims (all but the last two)
/// broadcast; a's last dim and b's second to last must be equal; unknown rank on either
/// side gives unknown rank.
template <TypedShape A, TypedShape B>
struct matmul_result {
  using type = UnknownRank;
};
template <TypedDim... As, TypedDim... Bs>
struct matmul_result<ShapeOf<As...>, ShapeOf<Bs...>> {
  using parts = detail::matmul_parts<ShapeOf<As...>, ShapeOf<Bs...>>;
  static_assert(parts::ra >= 1 && parts::rb >= 1,
                "ge::typed::matmul: an operand is a scalar; expected rank >= 1");
  static_assert(detail::checked<detail::matmul_inner<typename parts::Ka, typename parts::Kb>>);
  using batch =
      typename detail::zip<detail::matmul_batch, detail::pad_to_t<parts::batch_rank, typename parts::BatchA>,
                           detail::pad_to_t<parts::batch_rank, typename parts::BatchB>>::type;
  using type = detail::concat_t<batch, detail::concat_t<typename parts::M, typename parts::N>>;
};
template <TypedShape A, TypedShape B>
using matmul_t = typename matmul_result<A, B>::type;
/// `matmul_t` exists: no rule fails for every value the dims allow.
template <TypedShape A, TypedShape B>
inline constexpr bool can_matmul_v = true;  // unknown rank on a side
template <TypedDim... As, TypedDim... Bs>
inline constexpr bool can_matmul_v<ShapeOf<As...>, ShapeOf<Bs...>> =
    detail::matmul_parts<ShapeOf<As...>, ShapeOf<Bs...>>::ok;

template <TypedShape A, TypedShape B>
[[nodiscard]] constexpr matmul_t<A, B> matmul(A, B) noexcept {
  return {};
}

}  // namespace ge::typed
