// The test support of tests/support itself: expect_error fails the test in each way it
// should (the cases marked should_fail pass only when they fail), and error_of.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "ge/core/error.hpp"
#include "support/expect_error.hpp"

using ge::Errc;
using ge::test::error_of;
using ge::test::expect_error;

namespace {
void boom() { ge::raise(Errc::bad_range, "[ge.test] boom at 'x'"); }
}  // namespace

TEST_CASE("expect_error passes on the code and every part") {
  expect_error(boom, Errc::bad_range);
  expect_error(boom, Errc::bad_range, "boom");
  expect_error([] { boom(); }, Errc::bad_range, "[ge.test]", std::string("'x'"));
}

TEST_CASE("expect_error fails when nothing is thrown" * doctest::should_fail()) {
  expect_error([] {}, Errc::bad_range);
}

TEST_CASE("expect_error fails on another exception type" * doctest::should_fail()) {
  expect_error([] { throw std::runtime_error("not a ge::Error"); }, Errc::bad_range);
}

TEST_CASE("expect_error fails on another code" * doctest::should_fail()) { expect_error(boom, Errc::internal); }

TEST_CASE("expect_error fails when a part is missing" * doctest::should_fail()) {
  expect_error(boom, Errc::bad_range, "boom", "bang");
}

TEST_CASE("error_of returns the ge::Error thrown, or code ok") {
  const ge::Error e = error_of(boom);
  CHECK(e.code() == Errc::bad_range);
  CHECK(std::string(e.what()) == "[ge.test] boom at 'x'");
  CHECK(error_of([] {}).code() == Errc::ok);
  CHECK_THROWS_AS((void)error_of([] { throw std::runtime_error("other"); }), std::runtime_error);
}
