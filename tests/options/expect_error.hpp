#pragma once
// Test helper: GE_CHECK_ERROR(expr, code, words...) checks that `expr` throws ge::Error
// with `code` and a message holding every word.

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "ge/core/error.hpp"

#define GE_CHECK_ERROR(expr, errc, ...)                                                             \
  do {                                                                                              \
    bool ge_thrown_ = false;                                                                        \
    try {                                                                                           \
      static_cast<void>(expr);                                                                      \
    } catch (const ge::Error& ge_e_) {                                                              \
      ge_thrown_ = true;                                                                            \
      CHECK_MESSAGE(ge_e_.code() == (errc), "code ", ge::to_string(ge_e_.code()), ", expected ",   \
                    ge::to_string(errc), ": ", ge_e_.what());                                       \
      for (std::string_view ge_w_ : std::initializer_list<std::string_view>{__VA_ARGS__})           \
        CHECK_MESSAGE(std::string_view(ge_e_.what()).find(ge_w_) != std::string_view::npos,         \
                      "message lacks '", std::string(ge_w_), "': ", ge_e_.what());                  \
    }                                                                                               \
    CHECK_MESSAGE(ge_thrown_, #expr " did not throw ge::Error");                                    \
  } while (false)

namespace ge::test {

/// The function form of GE_CHECK_ERROR, for expressions with commas: `f()` must throw
/// ge::Error with `code` and a message holding every word.
template <class F>
void expect_error(F&& f, ge::Errc code, std::initializer_list<std::string_view> words) {
  bool thrown = false;
  try {
    static_cast<void>(f());
  } catch (const ge::Error& e) {
    thrown = true;
    CHECK_MESSAGE(e.code() == code, "code ", ge::to_string(e.code()), ", expected ", ge::to_string(code), ": ", e.what());
    for (const std::string_view w : words)
      CHECK_MESSAGE(std::string_view(e.what()).find(w) != std::string_view::npos, "message lacks '", std::string(w),
                    "': ", e.what());
  }
  CHECK_MESSAGE(thrown, "no ge::Error thrown");
}

/// One word.
template <class F>
void expect_error(F&& f, ge::Errc code, const char* word) {
  expect_error(static_cast<F&&>(f), code, {std::string_view(word)});
}

}  // namespace ge::test
