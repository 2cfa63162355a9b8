// ge::Tensor and ge::Attribute.
#include <doctest/doctest.h>

#include <cstdint>

#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"
#include "ops/infer_helpers.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::expect_error;

TEST_CASE("tensors: from values, full, random, reading back") {
  const auto t = ge::Tensor::from<std::int64_t>({2, 2}, {1, -2, 3, 4});
  CHECK(t.dtype() == DataType::i64);
  CHECK(t.shape().to_string() == "2,2");
  CHECK(t.element_count() == 4);
  CHECK(t.bytes().size() == 32);
  CHECK(t.to_int64s() == std::vector<std::int64_t>{1, -2, 3, 4});
  CHECK(t.to_doubles() == std::vector<double>{1, -2, 3, 4});
  CHECK(ge::to_string(t.desc()) == "i64[2,2]");
  const ge::Tensor d;
  CHECK(d.dtype() == DataType::f32);
  CHECK(d.shape().is_scalar());
  CHECK(ge::Tensor::scalar(true).to_int64s() == std::vector<std::int64_t>{1});
  CHECK(ge::Tensor::full(DataType::i32, {3}, 7).to_int64s() == std::vector<std::int64_t>{7, 7, 7});
  CHECK(ge::Tensor::from<float>({0}, {}).element_count() == 0);
  const auto r1 = ge::Tensor::random(DataType::f32, {100}, 5, -1, 1);
  const auto r2 = ge::Tensor::random(DataType::f32, {100}, 5, -1, 1);
  const auto r3 = ge::Tensor::random(DataType::f32, {100}, 6, -1, 1);
  CHECK(r1 == r2);
  CHECK_FALSE(r1.shares_buffer_with(r2));
  CHECK_FALSE(r1 == r3);
  for (double v : r1.to_doubles()) CHECK((v >= -1 && v < 1));
  for (std::int64_t v : ge::Tensor::random(DataType::i32, {50}, 1, 0, 10).to_int64s()) CHECK((v >= 0 && v < 10));
}

TEST_CASE("tensors: full and random start on a 64-byte boundary") {
  // (A 64-byte vector load of a tensor that starts mid-line spans two cache lines.)
  for (const std::int64_t n : {1, 17, 4096, 300000}) {
    CAPTURE(n);
    const auto f = ge::Tensor::full(DataType::f32, {n}, 1.5);
    const auto r = ge::Tensor::random(DataType::u8, {n}, 3, 0, 255);
    CHECK(reinterpret_cast<std::uintptr_t>(f.bytes().data()) % 64 == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(r.bytes().data()) % 64 == 0);
    CHECK(f.to_doubles().back() == 1.5);
    CHECK(f.bytes().size() == static_cast<std::size_t>(n) * 4);
  }
}

TEST_CASE("tensors: bad construction and reads throw") {
  expect_error(
      [] {
        (void)ge::Tensor(DataType::f32, {2, 2}, std::vector<std::byte>(15));
      },
      Errc::bad_tensor, "f32[2,2]", "16 bytes", "got 15");
  expect_error([] { (void)ge::Tensor::from<float>({3}, {1.f}); }, Errc::bad_tensor, "12 bytes");
  expect_error([] { (void)ge::Tensor(DataType::f32, {-2}, {}); }, Errc::invalid_argument, "negative");
  expect_error([] { (void)ge::Tensor(DataType::undefined, {}, {}); }, Errc::invalid_argument, "undefined");
  expect_error([] { (void)ge::Tensor::scalar(1.5f).to_int64s(); }, Errc::type_mismatch, "f32", "integers");
  expect_error([] { (void)ge::Tensor::random(DataType::f16, {2}, 1); }, Errc::unsupported, "f16");
  expect_error([] { (void)ge::Tensor::random(DataType::boolean, {2}, 1); }, Errc::unsupported, "bool");
  expect_error([] { (void)ge::Tensor(DataType::f16, {1}, std::vector<std::byte>(2)).to_doubles(); }, Errc::unsupported,
               "f16");
}

TEST_CASE("attributes: kinds, access, text") {
  const ge::Attributes a{{"group", 32},         {"epsilon", 1e-5},       {"auto_pad", "SAME_UPPER"},
                         {"kernel_shape", {3, 3}}, {"scales", std::vector<double>{1, 2}}, {"flag", true},
                         {"names", std::vector<std::string>{"a", "b"}}, {"value", ge::Tensor::scalar(1.f)}};
  CHECK(a.at("group").kind() == ge::AttrKind::integer);
  CHECK(a.at("group").as_int() == 32);
  CHECK(a.at("group").as_float() == 32.0);
  CHECK(a.at("epsilon").kind() == ge::AttrKind::floating);
  CHECK(a.at("auto_pad").as_string() == "SAME_UPPER");
  CHECK(a.at("kernel_shape").as_ints() == std::vector<std::int64_t>{3, 3});
  CHECK(a.at("scales").as_floats() == std::vector<double>{1, 2});
  CHECK(a.at("flag").as_bool());
  CHECK(a.at("names").as_strings().size() == 2);
  CHECK(a.at("value").as_tensor().dtype() == DataType::f32);
  CHECK(a.at("group").to_string() == "32");
  CHECK(a.at("epsilon").to_string() == "1e-05");
  CHECK(a.at("auto_pad").to_string() == "\"SAME_UPPER\"");
  CHECK(a.at("kernel_shape").to_string() == "[3,3]");
  CHECK(a.at("flag").to_string() == "true");
  CHECK(a.at("names").to_string() == "[\"a\",\"b\"]");
  CHECK(a.at("value").to_string() == "tensor f32[]");
  CHECK(ge::Attribute(std::vector<bool>{true, false}).to_string() == "[true,false]");
  CHECK(ge::to_string(ge::AttrKind::floats) == "floats");
  expect_error([&] { (void)a.at("auto_pad").as_int(); }, Errc::bad_attribute, "'string'", "'int'");
  expect_error([&] { (void)a.at("group").as_ints(); }, Errc::bad_attribute, "ints");
}
