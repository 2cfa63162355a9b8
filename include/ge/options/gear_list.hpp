#pragma once
/// \file
/// The values of the three gear options, parsed on their own (no other option needed).
///
/// | option               | text                 | parsed                         |
/// |----------------------|----------------------|--------------------------------|
/// | DYNAMIC_BATCH_SIZE   | `1,2,4,8`            | `{1, 2, 4, 8}`                 |
/// | DYNAMIC_IMAGE_SIZE   | `416,416;832,832`    | `{{416, 416}, {832, 832}}`     |
/// | DYNAMIC_DIMS         | `1,2;3,4;5,6`        | `{{1, 2}, {3, 4}, {5, 6}}`     |
///
/// Rules checked here: every value is a decimal integer >= 1 (`bad_gear_value`; beyond
/// int64 is `int_overflow`); at least 2 gears (`bad_gear_count`); no gear twice
/// (`duplicate_gear`); an image gear is exactly `h,w` (`bad_option_value`); every
/// DYNAMIC_DIMS gear has as many dims as the first (`gear_shape_mismatch`). Blanks around
/// values are ignored. The target's maximum gear count and the fit with INPUT_SHAPE are
/// checked later, by `parse_dynamic_config`.
///
/// ```
/// auto b = ge::parse_batch_gears("1,2,4,8");         // {1, 2, 4, 8}
/// auto i = ge::parse_image_gears("416,416;832,832"); // {{416, 416}, {832, 832}}
/// ge::parse_batch_gears("1");                         // throws Errc::bad_gear_count
/// ```

#include <cstdint>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"

namespace ge {

/// One DYNAMIC_IMAGE_SIZE gear: the height and width.
struct ImageGear {
  std::int64_t h;  ///< height
  std::int64_t w;  ///< width
  /// Same height and width.
  friend bool operator==(const ImageGear&, const ImageGear&) = default;
};

/// Parses DYNAMIC_BATCH_SIZE: gears separated by `,`. See the file comment for the rules.
[[nodiscard]] GE_API std::vector<std::int64_t> parse_batch_gears(std::string_view text);

/// Parses DYNAMIC_IMAGE_SIZE: `h,w` gears separated by `;`.
[[nodiscard]] GE_API std::vector<ImageGear> parse_image_gears(std::string_view text);

/// Parses DYNAMIC_DIMS: gears separated by `;`, the dims of a gear by `,`.
[[nodiscard]] GE_API std::vector<std::vector<std::int64_t>> parse_dims_gears(std::string_view text);

}  // namespace ge
