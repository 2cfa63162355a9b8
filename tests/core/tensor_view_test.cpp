// Tests of ge/core/tensor_view.hpp: views own their dims (a temporary vector of dims
// cannot dangle), know their extent when made from a span, and element counts and byte
// sizes are overflow-checked.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "ge/core/error.hpp"
#include "ge/core/tensor_view.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::test::expect_error;

ge::TensorView made_from_a_temporary(float* p) {
  return ge::TensorView{p, ge::DataType::f32, std::vector<std::int64_t>{2, 3, 4}};
}

}  // namespace

TEST_CASE("tensor views own their dims: made from a temporary vector, they keep them") {
  std::vector<float> buf(24);
  const ge::TensorView t = made_from_a_temporary(buf.data());
  std::vector<std::int64_t> noise(64, 12345);  // reuses the freed vector's memory, if anything
  CHECK(t.rank() == 3);
  CHECK(t.dims[0] == 2);
  CHECK(t.dims[1] == 3);
  CHECK(t.dims[2] == 4);
  CHECK(t.elements() == 24);
  CHECK(t.capacity == -1);  // raw memory: not known
  const std::span<const std::int64_t> s = t.dims;
  CHECK(s.size() == 3);
  CHECK(t.dims.back() == 4);
  CHECK(t.dims.first(2).size() == 2);
  // A braced list, an array, a span.
  const ge::TensorView a{buf.data(), ge::DataType::f32, {4, 6}};
  const std::int64_t arr[] = {24};
  const ge::TensorView b{buf.data(), ge::DataType::f32, arr};
  CHECK(a.elements() == 24);
  CHECK(b.dims == ge::ViewDims{24});
  CHECK(ge::TensorView{}.rank() == 0);
}

TEST_CASE("tensor views from spans take the type and the capacity from the span") {
  std::vector<float> f(6);
  const ge::TensorView t{std::span(f), {2, 3}};
  CHECK(t.dtype == ge::DataType::f32);
  CHECK(t.capacity == 24);
  CHECK(t.data == f.data());
  std::vector<double> d(6);
  CHECK(ge::TensorView(std::span(d), {6}).dtype == ge::DataType::f64);
  const std::vector<std::int64_t> ids{1, 2};
  const ge::TensorView c{std::span(ids), {2}};  // const data
  CHECK(c.dtype == ge::DataType::i64);
  CHECK(c.capacity == 16);
  const ge::TensorView raw(f.data(), ge::DataType::f32, {2, 3}, 8);
  CHECK(raw.capacity == 8);
}

TEST_CASE("a view holds at most max_rank dims") {
  const std::vector<std::int64_t> many(ge::ViewDims::max_rank + 1, 1);
  expect_error([&] { (void)ge::TensorView(nullptr, ge::DataType::f32, many); }, ge::Errc::invalid_argument);
  const std::vector<std::int64_t> most(ge::ViewDims::max_rank, 1);
  CHECK(ge::TensorView(nullptr, ge::DataType::f32, most).rank() == ge::ViewDims::max_rank);
}

TEST_CASE("a view's own element count saturates instead of overflowing; a zero dim anywhere gives 0") {
  const std::int64_t big = std::int64_t{1} << 38;
  const ge::TensorView t(nullptr, ge::DataType::f32, {big, std::int64_t{1} << 30, 0});
  CHECK(t.elements() == 0);  // a fuzzer's finding: the product overflowed before the 0
  const ge::TensorView u(nullptr, ge::DataType::f32, {big, big});
  CHECK(u.elements() == std::numeric_limits<std::int64_t>::max());
  CHECK(u.bytes() == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("element counts and byte sizes are checked for overflow") {
  const std::int64_t two33 = std::int64_t{1} << 33;
  CHECK(ge::checked_elements(std::vector<std::int64_t>{2, 3, 4}) == 24);
  CHECK(ge::checked_elements(std::vector<std::int64_t>{}) == 1);
  CHECK(ge::checked_elements(std::vector<std::int64_t>{two33, 0, two33}) == 0);  // empty, whatever the rest
  CHECK(ge::checked_bytes(std::vector<std::int64_t>{2, 3}, ge::DataType::f64) == 48);
  expect_error(
      [&] {
        (void)ge::checked_elements(std::vector<std::int64_t>{two33, two33});
      },
      ge::Errc::int_overflow, "[8589934592,8589934592]");
  // (2^62 + 1) x 4 elements: the count overflows, not only the bytes.
  expect_error(
      [&] {
        (void)ge::checked_elements(std::vector<std::int64_t>{(std::int64_t{1} << 62) + 1, 4});
      },
      ge::Errc::int_overflow);
  // 2^62 floats fit as a count, not as bytes.
  expect_error([&] { (void)ge::checked_bytes(std::vector<std::int64_t>{std::int64_t{1} << 62}, ge::DataType::f32); },
               ge::Errc::int_overflow);
  expect_error([&] { (void)ge::checked_elements(std::vector<std::int64_t>{2, -1}); }, ge::Errc::invalid_argument);
}
