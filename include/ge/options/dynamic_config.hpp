#pragma once
/// \file
/// `ge::DynamicConfig`: the build options for dynamic inputs, checked together against a
/// target (and optionally the model's inputs), in the form the compiler uses.
///
/// ```
/// ge::BuildOptions opts{{"ge.inputShape", "data:1,-1,-1"}, {"ge.dynamicDims", "1,2;3,4"}};
/// ge::DynamicConfig cfg = ge::parse_dynamic_config(opts, ge::find_target("atlas_a2"));
/// // cfg.mode == ge::ShapeMode::gears, cfg.gear_option == ge::Option::dynamic_dims,
/// // cfg.gears == {{1, 2}, {3, 4}}; ge::enumerate_gears(cfg) gives 1,1,2 and 1,3,4.
/// for (const std::string& w : cfg.warnings) std::fprintf(stderr, "%s\n", w.c_str());
/// ```
///
/// The rules, with the code thrown when one is broken:
///
/// | rule                                                                 | code                    |
/// |----------------------------------------------------------------------|-------------------------|
/// | at most one of DYNAMIC_BATCH_SIZE, DYNAMIC_IMAGE_SIZE, DYNAMIC_DIMS  | `conflicting_options`   |
/// | a gear option needs INPUT_SHAPE                                      | `missing_input_shape`   |
/// | the target has gears, and no more than `max_gears` are given         | `gears_unsupported`, `bad_gear_count` |
/// | with gears, INPUT_SHAPE has `-1`s and no `lo~hi`                     | `gear_shape_mismatch`, `bad_input_shape` |
/// | batch gears: every `-1` is the first dim of its input                | `bad_batch_dim`         |
/// | image gears: INPUT_FORMAT is NCHW or NHWC (default NCHW); every input with a `-1` is 4-D with `-1` at exactly H and W | `bad_input_format`, `bad_image_dims` |
/// | dims gears: INPUT_FORMAT is ND (default ND); each gear has one value per `-1` | `bad_input_format`, `gear_shape_mismatch` |
/// | without gears, `-1` or `lo~hi` (a range) needs a target with ranges   | `ranges_unsupported`    |
/// | AC_PARALLEL_ENABLE=1 needs a target that has it                       | `ac_parallel_unsupported` |
/// | COMPILE_HYBRID_MODE=1 needs a gear option and a target with ranges    | `missing_gears`, `ranges_unsupported` |
/// | hybrid mode: a `lo~hi` in INPUT_SHAPE takes gears like a `-1`, each gear value inside it | `gear_shape_mismatch` |
///
/// With the model's inputs (`ModelInput`, in data-node `index` order) also:
/// named inputs exist and positions are in range (`unknown_input`); each entry has the
/// input's rank and dims compatible with it (`bad_input_shape`); a model with a
/// non-fixed input needs INPUT_SHAPE, and with gears every non-fixed input is listed
/// (`missing_input_shape`); with gears every scalar input is listed
/// (`missing_scalar_input`).
///
/// Warnings (never thrown, never printed: collected in `warnings`): a batch gear above
/// 2048; DYNAMIC_DIMS with other than 3 to 4 gears; AC_PARALLEL_ENABLE=1 where the
/// shapes are not dynamic; DYNAMIC_NODE_TYPE 0 in hybrid mode.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/format.hpp"
#include "ge/options/build_options.hpp"
#include "ge/options/input_shape.hpp"
#include "ge/options/option.hpp"
#include "ge/options/target.hpp"
#include "ge/shape/shape.hpp"

namespace ge {

/// How the input shapes are known at compile time.
enum class ShapeMode : std::uint8_t {
  fixed,   ///< every listed dim is fixed (or INPUT_SHAPE is not given)
  gears,   ///< `-1`s filled from one of the DYNAMIC_* options: one static compile per gear
  ranges,  ///< `-1`s and `lo~hi` ranges: one dynamic-shape compile
};

/// The name of a mode: `"fixed"`, `"gears"`, `"ranges"`.
[[nodiscard]] GE_API std::string_view to_string(ShapeMode mode) noexcept;

/// One input of the model, as its data node declares it (used to check INPUT_SHAPE).
struct ModelInput {
  std::string name;       ///< the data node's name
  Shape shape{};          ///< its declared shape (may be dynamic or of unknown rank)
  bool declared = true;   ///< false: only the name is known (`gec gears --inputs`), not the shape
};

/// The checked options (see the file comment). Plain data.
struct GE_API DynamicConfig {
  Target target;                         ///< the target the options were checked against
  ShapeMode mode = ShapeMode::fixed;     ///< fixed, gears or ranges
  std::optional<Option> gear_option;     ///< which DYNAMIC_* option gives the gears
  InputShape input_shape;                ///< INPUT_SHAPE (no entries when not given)
  Format input_format = Format::nchw;    ///< as given, else ND for DYNAMIC_DIMS, else NCHW
  bool ac_parallel_enable = false;       ///< AC_PARALLEL_ENABLE
  /// COMPILE_HYBRID_MODE=1: besides a static plan per gear, one range plan over the
  /// gears' hull (a `lo~hi` in INPUT_SHAPE, allowed only here, bounds its dim instead)
  /// serves inputs that match no gear.
  bool hybrid = false;
  /// One entry per gear: the values that fill the `-1`s. Batch: `{b}` (fills every
  /// `-1`); image: `{h, w}`; dims: one value per `-1`, in order over all inputs.
  std::vector<std::vector<std::int64_t>> gears;
  std::vector<std::string> warnings;     ///< advice that is not an error, one sentence each
  /// True for an INPUT_SHAPE dim the gears fill: a `-1`, or in hybrid mode a `lo~hi`.
  [[nodiscard]] bool gear_slot(const Dim& d) const noexcept { return d.is_unknown() || (hybrid && d.is_range()); }
};

/// Checks `options` against `target` (the rules of the file comment) and returns the
/// config. Throws `ge::Error` with the code of the first broken rule; `options` is not
/// changed either way.
[[nodiscard]] GE_API DynamicConfig parse_dynamic_config(const BuildOptions& options, const Target& target);

/// As above, and also checks INPUT_SHAPE against the model's inputs (in data-node
/// `index` order).
[[nodiscard]] GE_API DynamicConfig parse_dynamic_config(const BuildOptions& options, const Target& target,
                                                        std::span<const ModelInput> model_inputs);

}  // namespace ge
