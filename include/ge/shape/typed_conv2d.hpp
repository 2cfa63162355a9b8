#pragma once
/// \file
/// `conv2d` on typed shapes: the output shape `N, O, H', W'` of a 2-D convolution of an
/// NCHW input by an OIHW weight, over intervals, with stride, padding, dilation and
/// groups as compile-time options. Ranges propagate (a ranged batch or H stays ranged);
/// a rule that fails for every value the dims allow is a compile error naming
/// `ge::typed::conv2d` and the dims.
///
/// `H' = (H + pad_top + pad_bottom - dilation * (KH - 1) - 1) / stride + 1` (W' alike),
/// over the sizes where the dilated kernel fits the padded input.
///
/// | x                  | w          | options             | result                  |
/// |--------------------|------------|---------------------|-------------------------|
/// | `1,3,224,224`      | `64,3,7,7` | `stride<2>, pad<3>` | `1,64,112,112`          |
/// | `1~8,3,100~208,-1` | `16,3,3,3` | `pad<1>`            | `1~8,16,100~208,1~inf`  |
/// | `1,32,56,56`       | `32,1,3,3` | `pad<1>, group<32>` | `1,32,56,56` (depthwise)|
/// | `1,4,56,56`        | `8,3,3,3`  |                     | compile error: C != I * groups |
///
/// ```
/// using namespace ge::typed;
/// constexpr auto y = conv2d(StaticShape<1, 3, 224, 224>{}, StaticShape<64, 3, 7, 7>{},
///                           stride<2>, pad<3>);
/// static_assert(y == StaticShape<1, 64, 112, 112>{});
/// ```

#include <cstdint>
#include <type_traits>

#include "ge/shape/detail/typed_list.hpp"
#include "ge/shape/typed_dim.hpp"
#include "ge/shape/typed_shape.hpp"
#include "ge/shape/window.hpp"

namespace ge::typed {

/// conv2d's options, each at most once, in any order: `stride<2>`, `pad<3>`,
/// `pad<top, left, bottom, right>`, `dilation<2>`, `group<32>` (defaults 1, 0, 1, 1): the
/// names of `ge::ConvOptions`' fields.
template <std::int64_t H, std::int64_t W = H>
struct Stride final {
  static_assert(H >= 1 && W >= 1, "ge::typed::Stride: strides must be >= 1");
};
template <std::int64_t Top, std::int64_t Left = Top, std::int64_t Bottom = Top, std::int64_t Right = Left>
struct Pad final {
  static_assert(Top >= 0 && Left >= 0 && Bottom >= 0 && Right >= 0, "ge::typed::Pad: pads must be >= 0");
};
template <std::int64_t H, std::int64_t W = H>
struct Dilation final {
  static_assert(H >= 1 && W >= 1, "ge::typed::Dilation: dilations must be >= 1");
};
template <std::int64_t G>
struct Groups final {
  static_assert(G >= 1, "ge::typed::Groups: groups must be >= 1");
};
template <std::int64_t H, std::int64_t W = H>
inline constexpr Stride<H, W> stride{};
template <std::int64_t Top, std::int64_t Left = Top, std::int64_t Bottom = Top, std::int64_t Right = Left>
inline constexpr Pad<Top, Left, Bottom, Right> pad{};
template <std::int64_t H, std::int64_t W = H>
inline constexpr Dilation<H, W> dilation{};
/// `group<32>`: the spelling of `ConvOptions::group` and ONNX's `group` attribute;
/// `groups<32>` is the same option.
template <std::int64_t G>
inline constexpr Groups<G> group{};
template <std::int64_t G>
inline constexpr Groups<G> groups{};

namespace detail {
/// The options, read. An option out of range reports itself (its own static_assert)
/// and leaves the default here, so that nothing fails after it.
struct Conv2dParams {
  WindowAxis h, w;
  std::int64_t groups = 1;
  int given[4] = {};  // how often stride, pad, dilation, groups came
  bool in_range = true;
  [[nodiscard]] constexpr bool once() const noexcept {
    return given[0] <= 1 && given[1] <= 1 && given[2] <= 1 && given[3] <= 1;
  }
};
template <class T>
struct conv_option;
template <std::int64_t H, std::int64_t W>
struct conv_option<Stride<H, W>> {
  static constexpr void apply(Conv2dParams& p) noexcept {
    ++p.given[0];
    if (H < 1 || W < 1) return void(p.in_range = false);
    p.h.stride = H;
    p.w.stride = W;
  }
};
template <std::int64_t T, std::int64_t L, std::int64_t B, std::int64_t R>
struct conv_option<Pad<T, L, B, R>> {
  static constexpr void apply(Conv2dParams& p) noexcept {
    ++p.given[1];
    if (T < 0 || L < 0 || B < 0 || R < 0) return void(p.in_range = false);
    p.h.pad_begin = T;
    p.h.pad_end = B;
    p.w.pad_begin = L;
    p.w.pad_end = R;
  }
};
template <std::int64_t H, std::int64_t W>
struct conv_option<Dilation<H, W>> {
  static constexpr void apply(Conv2dParams& p) noexcept {
    ++p.given[2];
    if (H < 1 || W < 1) return void(p.in_range = false);
    p.h.dilation = H;
    p.w.dilation = W;
  }
};
template <std::int64_t G>
struct conv_option<Groups<G>> {
  static constexpr void apply(Conv2dParams& p) noexcept {
    ++p.given[3];
    if (G < 1) return void(p.in_range = false);
    p.groups = G;
  }
};
template <class... Opts>
constexpr Conv2dParams conv_params() noexcept {
  Conv2dParams p;
  (conv_option<Opts>::apply(p), ...);
  return p;
}

/// conv2d reads a shape as NCHW/OIHW: rank 4, or unknown rank (four unknown dims).
template <class S>
inline constexpr bool rank4_v = std::is_same_v<S, UnknownRank>;
template <class... Ds>
inline constexpr bool rank4_v<ShapeOf<Ds...>> = sizeof...(Ds) == 4;
/// S if of rank 4; four unknown dims for unknown rank (or a rank the caller reports).
template <class S>
struct rank4 {
  using type = ShapeOf<Unknown, Unknown, Unknown, Unknown>;
};
template <class... Ds>
  requires(sizeof...(Ds) == 4)
struct rank4<ShapeOf<Ds...>> {
  using type = ShapeOf<Ds...>;
};

/// Some value of O is a multiple of g >= 1: the largest multiple up to O's top is in O.
constexpr bool has_multiple(const Dim& o, std::int64_t g) noexcept { return o.hi() / g * g >= o.lo(); }

/// The input's channels must equal the weight's I times groups: merge's rule.
template <TypedDim C, TypedDim I, std::int64_t G>
struct conv2d_channels {
  using IG = product_t<I, Static<G>>;
  static_assert(can_merge_v<C, IG> || !both_static_v<C, IG>,
                "ge::typed::conv2d: input channels C differ from the weight's I * groups");
  static_assert(can_merge_v<C, IG> || both_static_v<C, IG>,
                "ge::typed::conv2d: input channels C and the weight's I * groups have no value in common");
};
/// The weight's O must be a multiple of groups.
template <TypedDim O, std::int64_t G>
struct conv2d_groups {
  static constexpr bool ok = has_multiple(O::dim, G);
  static_assert(ok || !is_static_v<O>, "ge::typed::conv2d: the weight's O is not a multiple of groups");
  static_assert(ok || is_static_v<O>,
                "ge::typed::conv2d: no value of the weight's O is a multiple of groups");
};
/// One spatial axis: the dilated kernel must fit the padded input (`ge::window_fits`), the
/// output is `ge::window_out` (P: both pads together).
template <TypedDim In, TypedDim K, std::int64_t P, std::int64_t S, std::int64_t D>
struct conv2d_window {
  static constexpr WindowAxis w{.pad_begin = P, .stride = S, .dilation = D};
  static constexpr bool ok = window_fits(In::dim, K::dim, w);
  static_assert(ok || !both_static_v<In, K>,
                "ge::typed::conv2d: the dilated kernel is larger than the padded input");
  static_assert(ok || both_static_v<In, K>,
                "ge::typed::conv2d: the dilated kernel is larger than every padded input size");
  static constexpr Dim dim = ok ? window_out(In::dim, K::dim, w) : Dim(1);
  using type = dim_t<dim.kind(), dim.lo(), dim.hi()>;
};

template <class X, class W, class... Opts>
struct conv2d_parts {
  static constexpr Conv2dParams p = conv_params<Opts...>();
  using X4 = typename rank4<X>::type;
  using W4 = typename rank4<W>::type;
  using N = dim_at_t<X4, 0>;
  using C = dim_at_t<X4, 1>;
  using H = dim_at_t<X4, 2>;
  using Wd = dim_at_t<X4, 3>;
  using O = dim_at_t<W4, 0>;
  using I = dim_at_t<W4, 1>;
  using KH = dim_at_t<W4, 2>;
  using KW = dim_at_t<W4, 3>;
  static constexpr bool ok =
      rank4_v<X> && rank4_v<W> && p.in_range && p.once() && can_merge_v<C, product_t<I, Static<p.groups>>> &&
      has_multiple(O::dim, p.groups) && window_fits(H::dim, KH::dim, p.h) && window_fits(Wd::dim, KW::dim, p.w);
};
}  // namespace detail

/// conv2d's options: `Stride`, `Pad`, `Dilation`, `Groups`.
template <class T>
concept Conv2dOption = requires(detail::Conv2dParams& p) {
  detail::conv_option<T>::apply(p);
};

/// `conv2d_result<X, W, Opts...>::type`: the output shape `N, O, H', W'` of a 2-D
/// convolution of input X (NCHW) by weight W (OIHW), with
/// `H' = (H + pad_top + pad_bottom - dilation * (KH - 1) - 1) / stride + 1` over the
/// interval of H (and the same for W'). Compile errors: a rank other than 4, C not
/// equal to I * groups, O not a multiple of groups, a kernel larger than the padded
/// input, an option given twice. Unknown rank reads as four unknown dims.
template <TypedShape X, TypedShape W, Conv2dOption... Opts>
struct conv2d_result {
  using parts = detail::conv2d_parts<X, W, Opts...>;
  static constexpr auto p = parts::p;
  static_assert(detail::rank4_v<X>, "ge::typed::conv2d: the input must be NCHW (rank 4)");
  static_assert(detail::rank4_v<W>, "ge::typed::conv2d: the weight must be OIHW (rank 4)");
  static_assert(p.once(), "ge::typed::conv2d: an option is given twice");
  static_assert(detail::checked<Opts...>);  // each option's own range check
  static_assert(detail::checked<detail::conv2d_channels<typename parts::C, typename parts::I, p.groups>,
                                detail::conv2d_groups<typename parts::O, p.groups>>);
  using type = ShapeOf<typename parts::N, typename parts::O,
                       typename detail::conv2d_window<typename parts::H, typename parts::KH,
                                                      ge::detail::add_ends(p.h.pad_begin, p.h.pad_end), p.h.stride,
                                                      p.h.dilation>::type,
                       typename detail::conv2d_window<typename parts::Wd, typename parts::KW,
                                                      ge::detail::add_ends(p.w.pad_begin, p.w.pad_end), p.w.stride,
                                                      p.w.dilation>::type>;
};
template <TypedShape X, TypedShape W, Conv2dOption... Opts>
using conv2d_t = typename conv2d_result<X, W, Opts...>::type;
/// `conv2d_t` exists: no rule fails for every value the dims allow.
template <TypedShape X, TypedShape W, Conv2dOption... Opts>
inline constexpr bool can_conv2d_v = detail::conv2d_parts<X, W, Opts...>::ok;

template <TypedShape X, TypedShape W, Conv2dOption... Opts>
[[nodiscard]] constexpr conv2d_t<X, W, Opts...> conv2d(X, W, Opts...) noexcept {
  return {};
}

}  // namespace ge::typed
