#pragma once
/// \file
/// ge's version: `GE_VERSION_MAJOR`, `GE_VERSION_MINOR`, `GE_VERSION_PATCH` for the
/// preprocessor, `GE_VERSION` as one number (major * 10000 + minor * 100 + patch) and
/// `ge::version()` as text. CMake reads the project's version from this file.
///
/// ```
/// #if GE_VERSION >= 100   // 0.1.0 or later
/// std::puts(ge::version());  // "0.1.0"
/// #endif
/// ```

#define GE_VERSION_MAJOR 0
#define GE_VERSION_MINOR 1
#define GE_VERSION_PATCH 0
#define GE_VERSION (GE_VERSION_MAJOR * 10000 + GE_VERSION_MINOR * 100 + GE_VERSION_PATCH)

namespace ge {

namespace detail {
#define GE_VERSION_TEXT_(a, b, c) #a "." #b "." #c
#define GE_VERSION_TEXT(a, b, c) GE_VERSION_TEXT_(a, b, c)
inline constexpr const char version_text[] = GE_VERSION_TEXT(GE_VERSION_MAJOR, GE_VERSION_MINOR, GE_VERSION_PATCH);
#undef GE_VERSION_TEXT
#undef GE_VERSION_TEXT_
}  // namespace detail

/// The version as text, e.g. "0.1.0".
[[nodiscard]] constexpr const char* version() noexcept { return detail::version_text; }

}  // namespace ge
