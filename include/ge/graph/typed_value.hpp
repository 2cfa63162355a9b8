#pragma once
/// \file
/// `ge::TypedValue<S>`: a `ge::Value` of the graph builder that carries its shape as a
/// type of the typed shape algebra (`ge/shape/typed.hpp`). Typed ops compute their
/// result type with that algebra, so static dims that cannot fit (conv channels, matmul
/// inner dims, broadcast dims) are a compile error naming the API and the dims; ranged
/// and unknown dims compile, and the runtime builder checks them at the line of the op,
/// throwing `ge::Error` as the untyped builder does.
///
/// ```
/// using namespace ge::typed;
/// ge::GraphBuilder b;
/// using Image = ShapeOf<Ranged<1, 8>, Static<3>, Static<224>, Static<224>>;
/// auto x = ge::typed_input<Image>(b, "data", ge::DataType::f32);
/// auto w = ge::typed_weights<StaticShape<64, 3, 7, 7>>(b, "conv1.w", /*seed=*/1);
/// auto y = x.conv2d(w, stride<2>, pad<3>).relu();
/// static_assert(std::is_same_v<decltype(y)::shape_type,
///                              ShapeOf<Ranged<1, 8>, Static<64>, Static<112>, Static<112>>>);
/// b.output(y.value());   // y.shape().to_string() == "1~8,64,112,112"
/// // x.conv2d(typed_weights<StaticShape<64, 4, 7, 7>>(b, "w2", 1)) does not compile:
/// //   ge::typed::conv2d: input channels C differ from the weight's I * groups
/// ```
///
/// Every typed op calls the runtime `Value` op, then checks (`ge::typed::bind`) that the
/// shape the runtime inferred meets the typed result dim by dim; that fails only if the
/// two algebras ever disagree, and throws `ge::Error` then. The typed result may be the
/// tighter one: a conv over an unknown width infers `-1` at run time, `1~inf` typed (the
/// sizes where the kernel fits). Inputs and weights made here have exactly `to_shape(S{})`.
/// `as_typed<S>(v)` adopts an untyped value with the strict `ge::typed::check`: its shape
/// must lie within `S`, so a batch of `16` or `-1` for `Ranged<1, 8>` throws `ge::Error`.

#include <cstdint>
#include <string_view>
#include <vector>

#include "ge/core/data_type.hpp"
#include "ge/core/format.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/graph/builder.hpp"
#include "ge/shape/shape.hpp"
#include "ge/shape/typed_check.hpp"
#include "ge/shape/typed_conv2d.hpp"
#include "ge/shape/typed_dim.hpp"
#include "ge/shape/typed_matmul.hpp"
#include "ge/shape/typed_shape.hpp"

namespace ge {

/// A typed shape whose dims are all static: `StaticShape<64, 3, 7, 7>` (weights).
template <class S>
inline constexpr bool is_static_typed_shape_v = false;
/// Every dim of `ShapeOf<Ds...>` has one value.
template <typed::TypedDim... Ds>
inline constexpr bool is_static_typed_shape_v<typed::ShapeOf<Ds...>> = (typed::is_static_v<Ds> && ...);
/// `ShapeOf<...>` of static dims only.
template <class S>
concept StaticTypedShape = is_static_typed_shape_v<S>;

namespace detail {
/// Tags the `TypedValue` constructor that takes a typed op's runtime result.
struct OpResult final {};
/// The Conv attributes of the typed conv2d options (ONNX layout: pads are
/// `[top, left, bottom, right]`), defaults stride 1, pad 0, dilation 1, group 1.
struct TypedConvAttrs {
  std::int64_t stride[2] = {1, 1};
  std::int64_t pad[4] = {0, 0, 0, 0};
  std::int64_t dilation[2] = {1, 1};
  std::int64_t group = 1;
};
/// Reads one typed conv2d option into `TypedConvAttrs`.
template <class T>
struct typed_conv_attr;
/// `Stride<H, W>`.
template <std::int64_t H, std::int64_t W>
struct typed_conv_attr<typed::Stride<H, W>> {
  static constexpr void apply(TypedConvAttrs& a) noexcept {
    a.stride[0] = H;
    a.stride[1] = W;
  }
};
/// `Pad<Top, Left, Bottom, Right>`.
template <std::int64_t T, std::int64_t L, std::int64_t B, std::int64_t R>
struct typed_conv_attr<typed::Pad<T, L, B, R>> {
  static constexpr void apply(TypedConvAttrs& a) noexcept {
    a.pad[0] = T;
    a.pad[1] = L;
    a.pad[2] = B;
    a.pad[3] = R;
  }
};
/// `Dilation<H, W>`.
template <std::int64_t H, std::int64_t W>
struct typed_conv_attr<typed::Dilation<H, W>> {
  static constexpr void apply(TypedConvAttrs& a) noexcept {
    a.dilation[0] = H;
    a.dilation[1] = W;
  }
};
/// `Groups<G>`.
template <std::int64_t G>
struct typed_conv_attr<typed::Groups<G>> {
  static constexpr void apply(TypedConvAttrs& a) noexcept { a.group = G; }
};
/// The runtime Conv attributes of the options `Opts...`.
template <class... Opts>
[[nodiscard]] Attributes typed_conv_attributes() {
  TypedConvAttrs a;
  (typed_conv_attr<Opts>::apply(a), ...);
  return Attributes{{"strides", std::vector<std::int64_t>{a.stride[0], a.stride[1]}},
                    {"pads", std::vector<std::int64_t>{a.pad[0], a.pad[1], a.pad[2], a.pad[3]}},
                    {"dilations", std::vector<std::int64_t>{a.dilation[0], a.dilation[1]}},
                    {"group", a.group},
                    {"auto_pad", "NOTSET"}};
}
/// The dims of a static typed shape, for the builder's constant makers.
template <typed::TypedDim... Ds>
[[nodiscard]] std::vector<std::int64_t> static_dims(typed::ShapeOf<Ds...>) {
  return {Ds::dim.lo()...};
}
}  // namespace detail

/// A builder value typed by the shape `S` (a `ge::typed::ShapeOf<...>` or
/// `ge::typed::UnknownRank`): its inferred shape meets `S`, and lies within it for inputs,
/// weights and adopted values. Cheap to copy, valid as long as the builder lives.
template <typed::TypedShape S>
class TypedValue {
 public:
  /// The typed shape.
  using shape_type = S;

  /// Adopts `v`; throws `ge::Error` (from `ge::typed::check`) unless `v`'s inferred
  /// shape lies within `S`. `as_typed<S>(v)` reads better.
  explicit TypedValue(Value v) : v_(v) { typed::check(S{}, v_.shape()); }
  /// Takes the runtime result `v` of a typed op; throws `ge::Error` (from
  /// `ge::typed::bind`) unless its inferred shape meets `S` dim by dim.
  TypedValue(Value v, detail::OpResult) : v_(v) { (void)typed::bind(S{}, v_.shape()); }

  /// The runtime value, for the untyped builder (`b.output(y.value())`).
  [[nodiscard]] Value value() const noexcept { return v_; }
  /// The shape the runtime inferred (meets `S`; within it for inputs and adopted values).
  [[nodiscard]] const Shape& shape() const { return v_.shape(); }
  /// The data type.
  [[nodiscard]] DataType dtype() const { return v_.dtype(); }
  /// The typed shape as a value: `static_assert(x.typed_shape() == StaticShape<2, 3>{})`.
  [[nodiscard]] static constexpr S typed_shape() noexcept { return {}; }

  /// `Relu`: same typed shape.
  [[nodiscard]] TypedValue relu(std::string_view name = {}) const { return {v_.relu(name), detail::OpResult{}}; }
  /// `Sigmoid`: same typed shape.
  [[nodiscard]] TypedValue sigmoid(std::string_view name = {}) const { return {v_.sigmoid(name), detail::OpResult{}}; }
  /// `Tanh`: same typed shape.
  [[nodiscard]] TypedValue tanh(std::string_view name = {}) const { return {v_.tanh(name), detail::OpResult{}}; }

  /// Numpy matmul `this @ w`: `TypedValue<ge::typed::matmul_t<S, W>>`. Static inner
  /// dims that differ do not compile (`ge::typed::matmul: inner dims differ`).
  template <typed::TypedShape W>
  [[nodiscard]] TypedValue<typed::matmul_t<S, W>> matmul(const TypedValue<W>& w, std::string_view name = {}) const {
    return {v_.matmul(w.value(), name), detail::OpResult{}};
  }

  /// 2-D convolution (NCHW input, OIHW weight `w`, no bias) with compile-time options
  /// `ge::typed::stride<2>`, `pad<3>` (or `pad<top, left, bottom, right>`),
  /// `dilation<2>`, `group<32>`: `TypedValue<ge::typed::conv2d_t<S, W, Opts...>>`.
  /// Static channels that differ from I * groups do not compile.
  template <typed::TypedShape W, typed::Conv2dOption... Opts>
  [[nodiscard]] TypedValue<typed::conv2d_t<S, W, Opts...>> conv2d(const TypedValue<W>& w, Opts...) const {
    return {v_.builder().op("Conv", {v_, w.value()}, detail::typed_conv_attributes<Opts...>()), detail::OpResult{}};
  }

 private:
  Value v_;
};

/// Adopts an untyped builder value as `TypedValue<S>`; throws `ge::Error` unless its
/// inferred shape lies within `S` (e.g. a batch `-1` or `16` for `Ranged<1, 8>`).
template <typed::TypedShape S>
[[nodiscard]] TypedValue<S> as_typed(Value v) {
  return TypedValue<S>(v);
}

/// A graph input of shape `to_shape(S{})`: `typed_input<StaticShape<1, 3, 224, 224>>(b, "x", DataType::f32)`.
template <typed::TypedShape S>
[[nodiscard]] TypedValue<S> typed_input(GraphBuilder& b, std::string_view name, DataType dtype,
                                        Format format = Format::nd) {
  return TypedValue<S>(b.input(name, dtype, typed::to_shape(S{}), format));
}

/// Seeded f32 weights of the static shape `S` (`GraphBuilder::random_weights`).
template <StaticTypedShape S>
[[nodiscard]] TypedValue<S> typed_weights(GraphBuilder& b, std::string_view name, std::uint64_t seed) {
  return TypedValue<S>(b.random_weights(name, detail::static_dims(S{}), seed));
}

/// Constant f32 values of the static shape `S` filled with `value` (`GraphBuilder::full`).
template <StaticTypedShape S>
[[nodiscard]] TypedValue<S> typed_full(GraphBuilder& b, std::string_view name, double value) {
  return TypedValue<S>(b.full(name, detail::static_dims(S{}), value));
}

/// Elementwise `Add` with numpy broadcasting: `TypedValue<ge::typed::broadcast_t<A, B>>`.
/// Static dims that differ with neither 1 do not compile (`ge::typed::broadcast`).
template <typed::TypedShape A, typed::TypedShape B>
[[nodiscard]] TypedValue<typed::broadcast_t<A, B>> operator+(const TypedValue<A>& a, const TypedValue<B>& b) {
  return {a.value() + b.value(), detail::OpResult{}};
}
/// Elementwise `Sub` with numpy broadcasting, as `operator+`.
template <typed::TypedShape A, typed::TypedShape B>
[[nodiscard]] TypedValue<typed::broadcast_t<A, B>> operator-(const TypedValue<A>& a, const TypedValue<B>& b) {
  return {a.value() - b.value(), detail::OpResult{}};
}
/// Elementwise `Mul` with numpy broadcasting, as `operator+`.
template <typed::TypedShape A, typed::TypedShape B>
[[nodiscard]] TypedValue<typed::broadcast_t<A, B>> operator*(const TypedValue<A>& a, const TypedValue<B>& b) {
  return {a.value() * b.value(), detail::OpResult{}};
}
/// Elementwise `Div` with numpy broadcasting, as `operator+`.
template <typed::TypedShape A, typed::TypedShape B>
[[nodiscard]] TypedValue<typed::broadcast_t<A, B>> operator/(const TypedValue<A>& a, const TypedValue<B>& b) {
  return {a.value() / b.value(), detail::OpResult{}};
}
/// A value plus a number (a scalar constant of the value's type): same typed shape.
template <typed::TypedShape A>
[[nodiscard]] TypedValue<A> operator+(const TypedValue<A>& a, double b) {
  return {a.value() + b, detail::OpResult{}};
}
/// A value times a number (a scalar constant of the value's type): same typed shape.
template <typed::TypedShape A>
[[nodiscard]] TypedValue<A> operator*(const TypedValue<A>& a, double b) {
  return {a.value() * b, detail::OpResult{}};
}
/// A value minus a number (a scalar constant of the value's type): same typed shape.
template <typed::TypedShape A>
[[nodiscard]] TypedValue<A> operator-(const TypedValue<A>& a, double b) {
  return {a.value() - b, detail::OpResult{}};
}
/// A value divided by a number (a scalar constant of the value's type): same typed shape.
template <typed::TypedShape A>
[[nodiscard]] TypedValue<A> operator/(const TypedValue<A>& a, double b) {
  return {a.value() / b, detail::OpResult{}};
}

}  // namespace ge
