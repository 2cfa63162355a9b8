// Tests of ge/core/version.hpp: the macros, the number and the text agree, and CMake
// read the same version (GE_TEST_PROJECT_VERSION, from project()).
#include <doctest/doctest.h>

#include <string>

#include "ge/core/version.hpp"

static_assert(GE_VERSION == GE_VERSION_MAJOR * 10000 + GE_VERSION_MINOR * 100 + GE_VERSION_PATCH);

TEST_CASE("version: macros, text and the CMake project agree") {
  const std::string text = std::to_string(GE_VERSION_MAJOR) + "." + std::to_string(GE_VERSION_MINOR) + "." +
                           std::to_string(GE_VERSION_PATCH);
  CHECK(std::string(ge::version()) == text);
  CHECK(std::string(ge::version()) == GE_TEST_PROJECT_VERSION);
}

TEST_CASE("version: GE_VERSION_STRING is a literal of the same text") {
  constexpr const char literal[] = GE_VERSION_STRING;  // a string literal, usable in static text
  CHECK(std::string(literal) == ge::version());
  CHECK(std::string("ge " GE_VERSION_STRING) == std::string("ge ") + GE_TEST_PROJECT_VERSION);
}
