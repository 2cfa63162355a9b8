#include "support/expect_error.hpp"

#include <doctest/doctest.h>

#include <string>

namespace ge::test::detail {

void check_thrown(const ge::Error* thrown, const char* other, const ExpectedCode& code,
                  std::initializer_list<std::string_view> parts) {
  const char* file = code.where.file_name();
  const int line = static_cast<int>(code.where.line());
  const std::string expected = "expected ge::Error " + std::string(ge::to_string(code.code));
  if (thrown == nullptr) {
    if (other != nullptr)
      ADD_FAIL_CHECK_AT(file, line, expected << "; another exception was thrown: " << other);
    else
      ADD_FAIL_CHECK_AT(file, line, expected << "; nothing was thrown");
    return;
  }
  const std::string what = thrown->what();
  if (thrown->code() != code.code)
    ADD_FAIL_CHECK_AT(file, line, expected << ", got " << std::string(ge::to_string(thrown->code())) << ": " << what);
  for (const std::string_view part : parts)
    if (what.find(part) == std::string::npos)
      ADD_FAIL_CHECK_AT(file, line, "the message lacks '" << std::string(part) << "': " << what);
}

}  // namespace ge::test::detail
