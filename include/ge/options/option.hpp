#pragma once
/// \file
/// The build options for dynamic inputs (GE-REFERENCE.md §2): their keys, names and
/// command-line flags, and the "did you mean" lookup used for misspelt keys.
///
/// Every option has three spellings, all accepted as keys (the flag's spelling is also
/// `ge::ir_option`'s, the keys of GE's `aclgrphBuildModel`):
///
/// | option               | key (`BuildOptions::set`) | name (also accepted)  | `gec` flag               |
/// |----------------------|---------------------------|-----------------------|--------------------------|
/// | `input_shape`        | `ge.inputShape`           | `INPUT_SHAPE`         | `--input_shape`          |
/// | `dynamic_batch_size` | `ge.dynamicBatchSize`     | `DYNAMIC_BATCH_SIZE`  | `--dynamic_batch_size`   |
/// | `dynamic_image_size` | `ge.dynamicImageSize`     | `DYNAMIC_IMAGE_SIZE`  | `--dynamic_image_size`   |
/// | `dynamic_dims`       | `ge.dynamicDims`          | `DYNAMIC_DIMS`        | `--dynamic_dims`         |
/// | `input_format`       | `ge.inputFormat`          | `INPUT_FORMAT`        | `--input_format`         |
/// | `ac_parallel_enable` | `ac_parallel_enable`      | `AC_PARALLEL_ENABLE`  | `--ac_parallel_enable`   |
/// | `compile_hybrid_mode`| `ge.compileHybridMode`    | `COMPILE_HYBRID_MODE` | `--compile_hybrid_mode`  |
/// | `dynamic_node_type`  | `ge.dynamicNodeType`      | `DYNAMIC_NODE_TYPE`   | `--dynamic_node_type`    |
///
/// ```
/// const ge::OptionInfo& o = ge::find_option("INPUT_SHAPE");   // o.key == "ge.inputShape"
/// ge::find_option("ge.inputshape");  // throws Errc::unknown_option: "did you mean 'ge.inputShape'?"
/// ```

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// One build option for dynamic inputs.
enum class Option : std::uint8_t {
  input_shape,         ///< INPUT_SHAPE: the shape of each model input
  dynamic_batch_size,  ///< DYNAMIC_BATCH_SIZE: batch-size gears
  dynamic_image_size,  ///< DYNAMIC_IMAGE_SIZE: image-resolution gears
  dynamic_dims,        ///< DYNAMIC_DIMS: gears for arbitrary dims (ND)
  input_format,        ///< INPUT_FORMAT: NCHW, NHWC or ND
  ac_parallel_enable,  ///< AC_PARALLEL_ENABLE: host-engine ops in parallel (0 or 1)
  compile_hybrid_mode, ///< COMPILE_HYBRID_MODE: gears plus a range plan for the rest (0 or 1)
  dynamic_node_type,   ///< DYNAMIC_NODE_TYPE: GE's gear input kind (0 dataset, 1 placeholder)
};

/// The number of `Option` values.
inline constexpr std::size_t option_count = 8;

/// The spellings and a one-line summary of one option (see the table in the file comment).
struct OptionInfo {
  Option id;                 ///< which option
  std::string_view key;      ///< the options key, e.g. `ge.inputShape`
  std::string_view name;     ///< the upper-case name, e.g. `INPUT_SHAPE`
  std::string_view flag;     ///< the command-line flag without `--`, e.g. `input_shape`
  std::string_view summary;  ///< what it means, one line
};

/// All options, in `Option` order.
[[nodiscard]] GE_API std::span<const OptionInfo> options_table() noexcept;

/// The record of one option.
[[nodiscard]] GE_API const OptionInfo& option_info(Option id) noexcept;

/// The option whose key, upper-case name or flag spelling is exactly `text`
/// (case-sensitive), or null.
[[nodiscard]] GE_API const OptionInfo* lookup_option(std::string_view text) noexcept;

/// Like `lookup_option`, but throws `Errc::unknown_option` for an unknown `text`; the
/// message quotes it and, when some option is near (`nearest_option`), suggests its key
/// (or its name, when `text` is written in upper case).
[[nodiscard]] GE_API const OptionInfo& find_option(std::string_view text);

/// The option nearest to a misspelt `text` (any of its spellings, `--flag` included),
/// or null when none is near. Near means an edit distance of at most 2 after folding case
/// and dropping `.`, `_`, `-`, so `ge.inputshape`, `INPUT_SHAP`, `--input-shape` and
/// `ge.dynamicBatchsize` all find their option.
[[nodiscard]] GE_API const OptionInfo* nearest_option(std::string_view text) noexcept;

/// The candidate nearest to `text` under the same measure as `nearest_option`, or nullopt
/// when none is within `max_distance`. Ties go to the earlier candidate.
/// `closest_spelling("--taget", {"--target", "--help"}) == "--target"`.
[[nodiscard]] GE_API std::optional<std::string_view> closest_spelling(std::string_view text,
                                                                      std::span<const std::string_view> candidates,
                                                                      std::size_t max_distance = 2) noexcept;

/// The optimal-string-alignment edit distance (insert, delete, substitute, swap two
/// neighbours) between `a` and `b` after folding case and dropping `.`, `_` and `-`.
[[nodiscard]] GE_API std::size_t spelling_distance(std::string_view a, std::string_view b) noexcept;

}  // namespace ge
