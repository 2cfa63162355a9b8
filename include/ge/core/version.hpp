#pragma once
/// \file
/// ge's version: `GE_VERSION_MAJOR`, `GE_VERSION_MINOR`, `GE_VERSION_PATCH` for the
/// preprocessor, `GE_VERSION` as one number (major * 10000 + minor * 100 + patch),
/// `GE_VERSION_STRING` as a string literal and `ge::version()` as text. This file is the
/// one place the version is written: CMake reads `project(ge VERSION ...)` from it (and
/// so `geConfigVersion.cmake`), so nothing is generated and an `add_subdirectory(ge)`
/// and an installed ge see the same header.
///
/// ```
/// #if GE_VERSION >= 100   // 0.1.0 or later
/// std::puts(ge::version());  // "0.1.0", the same text as GE_VERSION_STRING
/// #endif
/// ```

#define GE_VERSION_MAJOR 0
#define GE_VERSION_MINOR 1
#define GE_VERSION_PATCH 0
#define GE_VERSION (GE_VERSION_MAJOR * 10000 + GE_VERSION_MINOR * 100 + GE_VERSION_PATCH)

#define GE_VERSION_TEXT_(a, b, c) #a "." #b "." #c
#define GE_VERSION_TEXT(a, b, c) GE_VERSION_TEXT_(a, b, c)
/// The version as a string literal, e.g. "0.1.0".
#define GE_VERSION_STRING GE_VERSION_TEXT(GE_VERSION_MAJOR, GE_VERSION_MINOR, GE_VERSION_PATCH)

namespace ge {

namespace detail {
inline constexpr const char version_text[] = GE_VERSION_STRING;
}  // namespace detail

/// The version as text, e.g. "0.1.0" (`GE_VERSION_STRING`).
[[nodiscard]] constexpr const char* version() noexcept { return detail::version_text; }

}  // namespace ge
