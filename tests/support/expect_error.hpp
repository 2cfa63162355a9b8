#pragma once
// Test support: checks that code throws the right ge::Error.
//
//   expect_error([&] { (void)ge::Shape::parse("1,x"); }, ge::Errc::bad_dim_text, "'x'", "position 2");
//   CHECK(error_of([&] { (void)ge::merge(a, b); }).code() == ge::Errc::incompatible_shapes);
//
// expect_error fails the test (and goes on) when `f` throws nothing, throws something
// other than ge::Error, throws a ge::Error of another code, or one whose message lacks a
// part; each failure prints the message that was thrown.

#include <concepts>
#include <exception>
#include <initializer_list>
#include <source_location>
#include <string_view>
#include <utility>

#include "ge/core/error.hpp"

namespace ge::test {

/// The code expect_error expects, with the place of the call (failures point there).
struct ExpectedCode {
  ExpectedCode(ge::Errc c, std::source_location at = std::source_location::current()) : code(c), where(at) {}
  ge::Errc code;
  std::source_location where;
};

namespace detail {
/// Reports the outcome of one expect_error: `thrown` is the ge::Error caught (null when
/// none was), `other` the message of any other exception caught (null when none was).
void check_thrown(const ge::Error* thrown, const char* other, const ExpectedCode& code,
                  std::initializer_list<std::string_view> parts);
}  // namespace detail

/// Runs `f()`, which must throw a ge::Error of `code` whose message contains every one of
/// `parts` (each anything a std::string_view can be made from).
template <class F, class... Parts>
requires(std::convertible_to<const Parts&, std::string_view>&&...) void expect_error(F&& f, const ExpectedCode& code,
                                                                                     const Parts&... parts) {
  try {
    static_cast<void>(std::forward<F>(f)());
  } catch (const ge::Error& e) {
    detail::check_thrown(&e, nullptr, code, {std::string_view(parts)...});
    return;
  } catch (const std::exception& e) {
    detail::check_thrown(nullptr, e.what(), code, {});
    return;
  } catch (...) {
    detail::check_thrown(nullptr, "an exception not derived from std::exception", code, {});
    return;
  }
  detail::check_thrown(nullptr, nullptr, code, {});
}

/// The ge::Error `f()` throws; one of code `Errc::ok` and an empty message when it
/// throws none. Any other exception passes through.
template <class F>
[[nodiscard]] ge::Error error_of(F&& f) {
  try {
    static_cast<void>(std::forward<F>(f)());
  } catch (const ge::Error& e) {
    return e;
  }
  return ge::Error(ge::Errc::ok, "");
}

}  // namespace ge::test
