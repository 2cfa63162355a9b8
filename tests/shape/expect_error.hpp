#pragma once
// Test helper of the shape tests: runs `f` and expects a ge::Error with `code` whose
// message contains every part.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>

#include "ge/core/error.hpp"

namespace ge_test {

template <class F>
void expect_error(F&& f, ge::Errc code, std::initializer_list<const char*> parts) {
  try {
    f();
    FAIL("expected a ge::Error");
  } catch (const ge::Error& e) {
    CHECK(e.code() == code);
    const std::string msg = e.what();
    for (const char* p : parts) CHECK_MESSAGE(msg.find(p) != std::string::npos, msg, " lacks ", p);
  }
}

}  // namespace ge_test
