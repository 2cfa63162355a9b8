// ge::TypedValue: typed shapes carried through the builder's ops; static dims checked at
// compile time (tests/compile_fail/typed_builder_*.cpp), ranged ones at run time.
#include <doctest/doctest.h>

#include <type_traits>

#include "ge/graph/typed_value.hpp"
#include "ops/infer_helpers.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::expect_error;
using namespace ge::typed;

TEST_CASE("typed: a conv stem carries its typed shapes and matches the runtime shapes") {
  ge::GraphBuilder b;
  auto x = ge::typed_input<StaticShape<1, 3, 224, 224>>(b, "data", DataType::f32, ge::Format::nchw);
  auto w = ge::typed_weights<StaticShape<64, 3, 7, 7>>(b, "conv1.w", 1);
  auto c = x.conv2d(w, stride<2>, pad<3>);
  static_assert(std::is_same_v<decltype(c), ge::TypedValue<StaticShape<1, 64, 112, 112>>>);
  CHECK(c.shape().to_string() == "1,64,112,112");
  auto r = c.relu();
  static_assert(std::is_same_v<decltype(r), decltype(c)>);
  auto bias = ge::typed_full<StaticShape<64, 1, 1>>(b, "bias", 0.5);
  auto y = r + bias;
  static_assert(std::is_same_v<decltype(y), decltype(c)>);
  CHECK(y.shape().to_string() == "1,64,112,112");
  CHECK(y.dtype() == DataType::f32);
  b.output(y.value());
  const ge::Graph g = b.build();
  REQUIRE(g.nodes().size() == 3);
  CHECK(g.nodes()[0].op == "Conv");
}

TEST_CASE("typed: a ranged batch and unknown spatial dims stay ranged through conv2d") {
  ge::GraphBuilder b;
  auto x = ge::typed_input<ShapeOf<Ranged<1, 8>, Static<3>, Ranged<100, 208>, Unknown>>(b, "x", DataType::f32);
  auto w = ge::typed_weights<StaticShape<16, 3, 3, 3>>(b, "w", 2);
  auto y = x.conv2d(w, pad<1>).relu();
  using Expected = ShapeOf<Ranged<1, 8>, Static<16>, Ranged<100, 208>, Ranged<1, inf>>;
  static_assert(std::is_same_v<decltype(y)::shape_type, Expected>);
  // The runtime and the type run the same window rule: both give 1~inf for the unknown
  // width (the widths where the kernel fits).
  CHECK(y.shape().to_string() == "1~8,16,100~208,1~inf");
  CHECK(ge::typed::bind(Expected{}, y.shape()).to_string() == "1~8,16,100~208,1~inf");
}

TEST_CASE("typed: asymmetric pads, dilation and groups reach the runtime Conv") {
  ge::GraphBuilder b;
  auto x = ge::typed_input<StaticShape<2, 32, 56, 56>>(b, "x", DataType::f32);
  auto dw = ge::typed_weights<StaticShape<32, 1, 3, 3>>(b, "dw", 3);
  auto y = x.conv2d(dw, pad<1>, group<32>);
  static_assert(std::is_same_v<decltype(group<32>), decltype(groups<32>)>);  // one option, two spellings
  static_assert(std::is_same_v<decltype(y)::shape_type, StaticShape<2, 32, 56, 56>>);
  CHECK(y.shape().to_string() == "2,32,56,56");
  auto z = x.conv2d(ge::typed_weights<StaticShape<8, 32, 3, 3>>(b, "w", 4), pad<0, 1, 2, 1>, dilation<2>,
                    stride<1, 2>);
  // H: (56 + 0 + 2 - 2 * 2 - 1) / 1 + 1 = 54; W: (56 + 1 + 1 - 5) / 2 + 1 = 27.
  static_assert(std::is_same_v<decltype(z)::shape_type, StaticShape<2, 8, 54, 27>>);
  CHECK(z.shape().to_string() == "2,8,54,27");
}

TEST_CASE("typed: a two-layer MLP with a ranged batch") {
  ge::GraphBuilder b;
  auto x = ge::typed_input<ShapeOf<Ranged<1, 8>, Static<784>>>(b, "x", DataType::f32);
  auto w1 = ge::typed_weights<StaticShape<784, 128>>(b, "fc1.w", 1);
  auto b1 = ge::typed_full<StaticShape<128>>(b, "fc1.b", 0.0);
  auto w2 = ge::typed_weights<StaticShape<128, 10>>(b, "fc2.w", 2);
  auto b2 = ge::typed_full<StaticShape<10>>(b, "fc2.b", 0.0);
  auto h = (x.matmul(w1) + b1).relu();
  static_assert(std::is_same_v<decltype(h)::shape_type, ShapeOf<Ranged<1, 8>, Static<128>>>);
  CHECK(h.shape().to_string() == "1~8,128");
  auto logits = h.matmul(w2, "fc2") + b2;
  static_assert(std::is_same_v<decltype(logits)::shape_type, ShapeOf<Ranged<1, 8>, Static<10>>>);
  CHECK(logits.shape().to_string() == "1~8,10");
  auto scaled = (logits - b2) * 0.5 + 1.0 - 0.25;
  auto ratio = scaled / (b2 * 2.0 + 1.0) / 4.0;
  static_assert(std::is_same_v<decltype(ratio)::shape_type, ShapeOf<Ranged<1, 8>, Static<10>>>);
  CHECK(ratio.shape().to_string() == "1~8,10");
  CHECK(x.sigmoid().tanh().shape().to_string() == "1~8,784");
  b.output(ratio.value());
  CHECK_NOTHROW((void)b.build());
}

TEST_CASE("typed: an unknown inner dim compiles and takes the static one") {
  ge::GraphBuilder b;
  auto x = ge::typed_input<ShapeOf<Ranged<1, 8>, Unknown>>(b, "x", DataType::f32);
  auto w = ge::typed_weights<StaticShape<32, 16>>(b, "w", 1);
  auto y = x.matmul(w);
  static_assert(std::is_same_v<decltype(y)::shape_type, ShapeOf<Ranged<1, 8>, Static<16>>>);
  CHECK(y.shape().to_string() == "1~8,16");
  // Broadcast of ranged dims: 1~8 against 2~4 can only be 2~4.
  auto z = x + ge::typed_input<ShapeOf<Ranged<2, 4>, Unknown>>(b, "z", DataType::f32);
  static_assert(std::is_same_v<decltype(z)::shape_type, ShapeOf<Ranged<2, 4>, Unknown>>);
  CHECK(z.shape().to_string() == "2~4,-1");
}

TEST_CASE("typed: a ranged batch that the runtime shape does not fit throws ge::Error") {
  ge::GraphBuilder b;
  auto w = ge::typed_weights<StaticShape<784, 10>>(b, "w", 1);
  using Batch = ShapeOf<Ranged<1, 8>, Static<784>>;
  // A batch of 16 compiles against Ranged<1, 8> and fails at the line that adopts it.
  auto big = b.input("big", DataType::f32, "16,784");
  expect_error([&] { (void)ge::as_typed<Batch>(big).matmul(w); }, Errc::incompatible_shapes,
               "does not fit the typed shape", "dim 0 is '16'");
  // An unknown batch is not within 1~8 either.
  auto any = b.input("any", DataType::f32, "-1,784");
  expect_error([&] { (void)ge::as_typed<Batch>(any); }, Errc::incompatible_shapes, "does not fit the typed shape");
  // A batch of 4 fits and runs through.
  auto ok = ge::as_typed<Batch>(b.input("ok", DataType::f32, "4,784")).matmul(w);
  static_assert(std::is_same_v<decltype(ok)::shape_type, ShapeOf<Ranged<1, 8>, Static<10>>>);
  CHECK(ok.shape().to_string() == "4,10");
  // The rank is checked too.
  expect_error([&] { (void)ge::as_typed<Batch>(b.input("r3", DataType::f32, "4,784,1")); }, Errc::rank_mismatch,
               "does not fit the typed shape");
}

TEST_CASE("typed: the runtime builder's own checks stay: a data type mismatch throws at the op") {
  ge::GraphBuilder b;
  auto x = ge::typed_input<ShapeOf<Ranged<1, 8>, Static<4>>>(b, "x", DataType::f32);
  auto i = ge::typed_input<ShapeOf<Ranged<1, 8>, Static<4>>>(b, "i", DataType::i64);
  CHECK_THROWS_AS((void)(x + i), ge::Error);
  auto u = ge::typed_input<UnknownRank>(b, "u", DataType::f32);
  auto v = u.matmul(ge::typed_weights<StaticShape<4, 2>>(b, "w", 1));
  static_assert(std::is_same_v<decltype(v)::shape_type, UnknownRank>);
  CHECK(v.dtype() == DataType::f32);
}
