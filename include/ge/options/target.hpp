#pragma once
/// \file
/// `ge::Target`: what a product can do with dynamic inputs, as one capability record.
///
/// Rules that differ by product (GE-REFERENCE.md §2 and the seeds) live here and
/// nowhere else:
///
/// | target               | product                               | max gears | gears | ranges | AC parallel | single-op compile |
/// |----------------------|---------------------------------------|-----------|-------|--------|-------------|-------------------|
/// | `cpu` (default)      | ge's CPU device                       | 256       | yes   | yes    | yes         | yes               |
/// | `ascend950`          | Ascend 950PR / 950DT                  | 256       | yes   | yes    | yes         | no                |
/// | `atlas_a3`           | Atlas A3 training / inference         | 100       | yes   | yes    | yes         | yes               |
/// | `atlas_a2`           | Atlas A2 training / inference         | 100       | yes   | yes    | yes         | yes               |
/// | `atlas_200i_500_a2`  | Atlas 200I/500 A2 inference           | 100       | yes   | no     | no          | yes               |
/// | `atlas_inference`    | Atlas inference series                | 100       | yes   | yes    | yes         | yes               |
/// | `atlas_training`     | Atlas training series                 | 100       | yes   | yes    | yes         | yes               |
/// | `ipv350`             | IPV350                                | 0         | no    | no     | no          | no                |
///
/// ```
/// const ge::Target& t = ge::find_target("atlas_a2");   // t.max_gears == 100
/// ge::find_target("atlas-a2");   // throws Errc::unknown_target: "did you mean 'atlas_a2'?"
/// ```

#include <cstdint>
#include <span>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// The capabilities of one target product. Plain data; compare targets by `name`.
struct Target {
  std::string_view name;          ///< the id used by `find_target` and `gec --target`
  std::string_view product;       ///< the products it stands for, in words
  std::uint32_t max_gears;        ///< most gears a DYNAMIC_* option may list (0: no gears)
  bool supports_gears;            ///< DYNAMIC_BATCH_SIZE / _IMAGE_SIZE / _DIMS are accepted
  bool supports_ranges;           ///< INPUT_SHAPE may hold `lo~hi` and (without gears) `-1`
  bool supports_ac_parallel;      ///< AC_PARALLEL_ENABLE=1 is accepted
  bool supports_single_op_compile;  ///< single-operator compile (`aclopCompile`) is offered
};

/// Every known target, the default (`cpu`) first.
[[nodiscard]] GE_API std::span<const Target> targets() noexcept;

/// The default target: ge's own CPU device, which supports everything (256 gears).
[[nodiscard]] GE_API const Target& default_target() noexcept;

/// The target called `name` (exact). Throws `Errc::unknown_target` naming `name`, the
/// nearest known name when one is close, and the list of names.
[[nodiscard]] GE_API const Target& find_target(std::string_view name);

}  // namespace ge
