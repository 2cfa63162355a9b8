// Tests of ge/core: errors, data types, formats.
#include <doctest/doctest.h>

#include <string>

#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/format.hpp"
#include "support/expect_error.hpp"

using ge::test::error_of;
using ge::test::expect_error;

TEST_CASE("ge::Error carries a code and a message") {
  const ge::Error e = error_of([] { ge::raise(ge::Errc::bad_range, "[ge.test] boom"); });
  CHECK(e.code() == ge::Errc::bad_range);
  CHECK(std::string(e.what()) == "[ge.test] boom");
  CHECK(ge::to_string(ge::Errc::bad_range) == "bad_range");
  CHECK(ge::to_string(ge::Errc::unknown_option) == "unknown_option");
  CHECK(ge::to_string(ge::Errc::cancelled) == "cancelled");
}

TEST_CASE("data types") {
  CHECK(ge::size_of(ge::DataType::f32) == 4);
  CHECK(ge::size_of(ge::DataType::bf16) == 2);
  CHECK(ge::size_of(ge::DataType::i64) == 8);
  CHECK(ge::size_of(ge::DataType::boolean) == 1);
  CHECK(ge::size_of(ge::DataType::undefined) == 0);
  CHECK(ge::parse_data_type("float32") == ge::DataType::f32);
  CHECK(ge::parse_data_type("int64") == ge::DataType::i64);
  CHECK(ge::parse_data_type(ge::to_string(ge::DataType::boolean)) == ge::DataType::boolean);
  for (auto t : {ge::DataType::f32, ge::DataType::f16, ge::DataType::bf16, ge::DataType::f64, ge::DataType::i8,
                 ge::DataType::i16, ge::DataType::i32, ge::DataType::i64, ge::DataType::u8, ge::DataType::u16,
                 ge::DataType::u32, ge::DataType::u64, ge::DataType::boolean, ge::DataType::undefined})
    CHECK(ge::parse_data_type(ge::to_string(t)) == t);
  expect_error([] { (void)ge::parse_data_type("float33"); }, ge::Errc::invalid_argument, "'float33'");
}

TEST_CASE("formats") {
  CHECK(ge::parse_format("NCHW") == ge::Format::nchw);
  CHECK(ge::parse_format("NHWC") == ge::Format::nhwc);
  CHECK(ge::parse_format("ND") == ge::Format::nd);
  CHECK_FALSE(ge::parse_format("nchw"));
  CHECK(ge::to_string(ge::Format::nhwc) == "NHWC");
  CHECK(ge::hw_index(ge::Format::nchw)->h == 2);
  CHECK(ge::hw_index(ge::Format::nhwc)->w == 2);
  CHECK_FALSE(ge::hw_index(ge::Format::nd));
}
