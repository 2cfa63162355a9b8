#pragma once
// Private to ge: the public entries turn allocation failure (std::bad_alloc from any
// allocation, std::length_error from a container asked for more than it can hold) into
// `ge::Error` with `Errc::out_of_memory`, naming what was being made.
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "ge/core/api.hpp"

namespace ge::detail {

/// Throws `Errc::out_of_memory`: "<what>: no memory left (<reason>)". When even the
/// message cannot be made, a fixed one. Call inside the catch block.
[[noreturn]] GE_API void raise_out_of_memory(const char* what, const std::string* detail) noexcept(false);

/// `body()`, with allocation failure thrown as `Errc::out_of_memory` whose message is
/// `what` and then `detail()` (called only on failure, e.g. a file's name).
template <class Body, class Detail>
decltype(auto) guard_memory(const char* what, Detail&& detail, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    std::string d;
    try {
      d = std::forward<Detail>(detail)();
    } catch (...) {
      raise_out_of_memory(what, nullptr);
    }
    raise_out_of_memory(what, &d);
  } catch (const std::length_error&) {
    std::string d;
    try {
      d = std::forward<Detail>(detail)();
    } catch (...) {
      raise_out_of_memory(what, nullptr);
    }
    raise_out_of_memory(what, &d);
  }
}

/// The same without a detail.
template <class Body>
decltype(auto) guard_memory(const char* what, Body&& body) {
  return guard_memory(what, [] { return std::string(); }, std::forward<Body>(body));
}

}  // namespace ge::detail
