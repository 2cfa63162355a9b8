#pragma once
/// \file
/// `ge::enumerate_gears`: a gear config turned into concrete input shapes, one set per gear.
///
/// ```
/// ge::BuildOptions opts{{"ge.inputShape", "data:1,-1,-1"}, {"ge.dynamicDims", "1,2;3,4;5,6"}};
/// auto gears = ge::enumerate_gears(ge::parse_dynamic_config(opts, ge::default_target()));
/// // gears[0].shapes[0] == 1,1,2   gears[1].shapes[0] == 1,3,4   gears[2].shapes[0] == 1,5,6
/// ```
///
/// | INPUT_SHAPE                   | gear option                  | gear shapes                          |
/// |-------------------------------|------------------------------|--------------------------------------|
/// | `data:-1,3,416,416`           | batch `1,2`                  | `1,3,416,416`; `2,3,416,416`          |
/// | `a:-1,3;b:-1,5`               | batch `4,8`                  | `4,3` `4,5`; `8,3` `8,5`              |
/// | `data:8,3,-1,-1` (NCHW)       | image `416,416;832,640`      | `8,3,416,416`; `8,3,832,640`          |
/// | `a:-1,2;b:3,-1`               | dims `1,4;5,6`               | `1,2` `3,4`; `5,2` `3,6`              |

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/options/dynamic_config.hpp"
#include "ge/shape/shape.hpp"

namespace ge {

/// One gear: its values and the static shape of every INPUT_SHAPE entry under it.
struct GE_API Gear {
  std::size_t index = 0;              ///< position in the gear option (0-based)
  std::vector<std::int64_t> values;   ///< the gear's values, as in `DynamicConfig::gears`
  std::vector<Shape> shapes;          ///< one static shape per INPUT_SHAPE entry, in order
};

/// The gears of `config`, in the order written; empty unless `config.mode` is
/// `ShapeMode::gears`. Every shape is static.
[[nodiscard]] GE_API std::vector<Gear> enumerate_gears(const DynamicConfig& config);

}  // namespace ge
