#pragma once
/// \file
/// `ge::choose_gears`: the gears to compile, chosen from the input shapes a service saw.
///
/// ```
/// // A model compiled with ranges (or -1) where the shapes vary:
/// auto model = ge::compile(g, {{"ge.inputShape", "input_ids:1,1~128;attention_mask:1,1~128"}});
/// auto seen = ge::parse_shape_histogram("input_ids:1,12;attention_mask:1,12 120\n"
///                                       "input_ids:1,128;attention_mask:1,128 3\n");
/// ge::GearChoice c = ge::choose_gears(*model, seen, {.max_gears = 4, .max_arena = {}});
/// // c.input_shape  "input_ids:1,-1;attention_mask:1,-1"
/// // c.option       Option::dynamic_dims, c.option_text "12,12;128,128", c.input_format "ND"
/// // c.waste_percent, c.gears[i].arena_bytes, c.gears[i].flops
/// ```
///
/// The work of a shape is the model's FLOPs at it (`ge::plan_flops` of the plan
/// `ge::build_plan` makes for it: a gear costs what its plan costs); every observed shape
/// runs on the cheapest gear that holds it (every varying dim >=), and the gears minimise
/// the count-weighted sum of that work. A gear whose arena (`Plan::arena_bytes`) exceeds
/// `GearBudget::max_arena` is not used. Every observed shape is held by some gear.
///
/// Which dims vary: those the model does not fix (INPUT_SHAPE's `-1`s and ranges) whose
/// observed values differ; a dim seen with one value only is fixed at it, and dims that
/// are equal in every observation (the sequence length of `input_ids` and of
/// `attention_mask`) count as one. Guarantees:
/// - one varying dim, or observations that form a chain (each pair ordered in every
///   dim): exact dynamic programming over the sorted distinct observations, optimal among
///   all gear sets whenever the FLOPs do not fall as a dim grows (`optimal` is true);
/// - several dims otherwise: the candidates are the observations and the componentwise
///   maxima of their pairs (for two dims that is every componentwise maximum of any
///   subset, so no gear set is missed); when the candidate sets are few (at most 50,000)
///   every one is tried (`optimal` is true for two dims), else a greedy choice (the gear
///   that saves the most, K times) improved by single swaps: no optimality is claimed.
///
/// The option emitted: one varying dim that is dim 0 of each input where it varies:
/// DYNAMIC_BATCH_SIZE; the H and W of 4-D NCHW or NHWC inputs (as the model's inputs are
/// declared): DYNAMIC_IMAGE_SIZE; else DYNAMIC_DIMS. A choice of one gear emits no gear
/// option (`option` empty): INPUT_SHAPE with that gear's dims is a fixed-shape compile.
/// The texts are accepted as they are by `parse_dynamic_config` (and so by `compile`).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/options/input_shape.hpp"
#include "ge/options/option.hpp"
#include "ge/shape/shape.hpp"

namespace ge {

class CompiledModel;

/// One line of a shape histogram: the static shape of each input written, and how many
/// times it was seen. Inputs whose shape the model fixes may be left out.
struct ObservedShapes {
  std::vector<InputShapeEntry> inputs;  ///< named, every dim fixed
  std::int64_t count = 1;               ///< >= 1
};

/// Parses histogram text: one `name:dims[;name:dims...] COUNT` per line (the shapes in
/// INPUT_SHAPE's named form, then blanks and a count >= 1). Blank lines and lines whose
/// first non-blank character is `#` are skipped. Throws `ge::Error` naming the line:
/// `invalid_argument` for no entry at all, a missing or bad count; INPUT_SHAPE's codes for
/// bad shape text; `bad_input_shape` for a positional entry or a dim that is not fixed.
[[nodiscard]] GE_API std::vector<ObservedShapes> parse_shape_histogram(std::string_view text);

/// What the gears may cost.
struct GearBudget {
  std::size_t max_gears = 4;              ///< at most this many gears, >= 1
  std::optional<std::int64_t> max_arena;  ///< bytes; a gear whose arena is larger is not used
};

/// One chosen gear.
struct GE_API ChosenGear {
  std::vector<std::int64_t> values;  ///< the gear option's values for it (`DynamicConfig::gears` form)
  std::vector<Shape> shapes;         ///< the static shape of every model input at it, in input order
  double flops = 0;                  ///< the work of one run at it (see `GearChoice::work_is_flops`)
  std::int64_t arena_bytes = 0;      ///< its plan's arena
  std::int64_t served = 0;           ///< the observations (counted) that run on it
};

/// The gears chosen, and the options that compile them.
struct GE_API GearChoice {
  std::optional<Option> option;   ///< dynamic_batch_size, dynamic_image_size or dynamic_dims; none for one gear
  std::string option_text;        ///< that option's value (empty without an option)
  std::string input_shape;        ///< INPUT_SHAPE: every model input, `-1` where the gears go
  std::string input_format;       ///< INPUT_FORMAT to give with it: "NCHW"/"NHWC" (image), "ND" (dims), or empty
  std::vector<ChosenGear> gears;  ///< smallest first
  std::size_t varying_dims = 0;   ///< dims that vary after equal ones are merged
  double expected_work = 0;       ///< the count-weighted mean work per observation on the gears
  double own_size_work = 0;       ///< the same with every observation run at its own shape
  double waste_percent = 0;       ///< (expected_work / own_size_work - 1) * 100
  bool optimal = false;           ///< proved optimal (see the file comment)
  bool work_is_flops = true;      ///< false: the model has no op whose FLOPs are modelled; work is input elements
};

/// Chooses at most `budget.max_gears` gears for `model` (compiled with ranges or `-1`s
/// where the shapes vary: `mode()` is `ranges`) from the observed shapes (see the file
/// comment). Throws `ge::Error`: `invalid_argument` for no observation, a count < 1,
/// `max_gears` 0 or `max_arena` < 1, a model not in ranges mode, or a budget no gear set
/// fits (naming the arena needed); `bad_gear_count` for more gears than the model's
/// target allows; `unknown_input` for a name the model lacks; `bad_input_shape` for a
/// wrong rank, a dim that differs from one the model fixes, an input written twice, or a
/// varying input not written; `out_of_range` for a dim outside the model's range.
[[nodiscard]] GE_API GearChoice choose_gears(const CompiledModel& model, std::span<const ObservedShapes> histogram,
                                             const GearBudget& budget);

}  // namespace ge
