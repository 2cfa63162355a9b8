#pragma once
/// \file
/// The pieces of ge's messages that every layer writes the same way: a name quoted
/// (`'x'`) and a list of dims (`1,3,224,224`).
///
/// ```
/// std::string m = "input " + ge::quoted("x") + " has dims " + ge::dims_text(dims);
/// ```

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// `s` in single quotes, as messages name graphs' inputs, nodes and options. (The
/// overloads for `std::string` and `const char*` keep `std::quoted`, which argument-
/// dependent lookup also finds for them, from being chosen.)
[[nodiscard]] GE_API std::string quoted(std::string_view s);
[[nodiscard]] inline std::string quoted(const std::string& s) { return quoted(std::string_view(s)); }
[[nodiscard]] inline std::string quoted(const char* s) { return quoted(std::string_view(s)); }

/// The dims comma-separated, without brackets: `1,3,224,224` (empty for a scalar).
[[nodiscard]] GE_API std::string dims_text(std::span<const std::int64_t> dims);

}  // namespace ge
