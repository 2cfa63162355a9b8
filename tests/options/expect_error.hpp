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
