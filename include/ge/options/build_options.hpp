#pragma once
/// \file
/// `ge::BuildOptions`: the build options for dynamic inputs, each parsed and checked on
/// its own as it is set.
///
/// ```
/// ge::BuildOptions opts{{"ge.inputFormat", "NHWC"},
///                       {"ge.inputShape", "data:-1,3,416,416"},
///                       {"ge.dynamicBatchSize", "1,2,4,8"}};
/// opts.set("INPUT_SHAPE", "data:-1,3,224,224");    // upper-case names work too
/// ge::DynamicConfig cfg = ge::parse_dynamic_config(opts, ge::default_target());
/// ```
///
/// `set` is all or nothing: the value is parsed and checked for its own key first, and
/// the options change only when that succeeds. Rules that involve several options (or
/// the target) are checked by `validate` / `parse_dynamic_config`, which never change the
/// options.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/format.hpp"
#include "ge/options/gear_list.hpp"
#include "ge/options/input_shape.hpp"
#include "ge/options/option.hpp"
#include "ge/options/target.hpp"

namespace ge {

/// A set of build options for dynamic inputs (GE-REFERENCE.md §2). See the file comment.
class GE_API BuildOptions {
 public:
  /// No option set.
  BuildOptions() = default;

  /// Sets each `{key, value}` in order, as `set` does; throws on the first bad one.
  BuildOptions(std::initializer_list<std::pair<std::string_view, std::string_view>> items);

  /// Parses `value` for the option `key` (its key, e.g. `ge.inputShape`, or its name,
  /// e.g. `INPUT_SHAPE`) and stores it, replacing an earlier value. Throws
  /// `Errc::unknown_option` (with "did you mean") for an unknown key, or the value's own
  /// error (e.g. `bad_input_shape`, `bad_gear_value`, `bad_input_format`,
  /// `bad_parallel_flag`); on a throw the options are unchanged.
  BuildOptions& set(std::string_view key, std::string_view value);
  /// As above, for a known option.
  BuildOptions& set(Option option, std::string_view value);

  /// Removes `option`; true when it was set.
  bool unset(Option option) noexcept;

  /// True when `option` is set.
  [[nodiscard]] bool contains(Option option) const noexcept;
  /// The text `option` was set with, or nullopt.
  [[nodiscard]] std::optional<std::string_view> text(Option option) const noexcept;
  /// True when no option is set.
  [[nodiscard]] bool empty() const noexcept;
  /// The options that are set, as `{key, text}` in `Option` order.
  [[nodiscard]] std::vector<std::pair<std::string_view, std::string_view>> items() const;

  /// INPUT_SHAPE, parsed.
  [[nodiscard]] const std::optional<InputShape>& input_shape() const noexcept { return input_shape_; }
  /// DYNAMIC_BATCH_SIZE, parsed.
  [[nodiscard]] const std::optional<std::vector<std::int64_t>>& dynamic_batch_size() const noexcept {
    return batch_;
  }
  /// DYNAMIC_IMAGE_SIZE, parsed.
  [[nodiscard]] const std::optional<std::vector<ImageGear>>& dynamic_image_size() const noexcept {
    return image_;
  }
  /// DYNAMIC_DIMS, parsed.
  [[nodiscard]] const std::optional<std::vector<std::vector<std::int64_t>>>& dynamic_dims() const noexcept {
    return dims_;
  }
  /// INPUT_FORMAT, parsed.
  [[nodiscard]] std::optional<Format> input_format() const noexcept { return format_; }
  /// AC_PARALLEL_ENABLE, parsed.
  [[nodiscard]] std::optional<bool> ac_parallel_enable() const noexcept { return ac_parallel_; }
  /// COMPILE_HYBRID_MODE, parsed (`ge.compileHybridMode`: 0 or 1).
  [[nodiscard]] std::optional<bool> compile_hybrid_mode() const noexcept { return hybrid_; }
  /// DYNAMIC_NODE_TYPE, parsed (`ge.dynamicNodeType`: 0 or 1).
  [[nodiscard]] std::optional<int> dynamic_node_type() const noexcept { return node_type_; }

  /// Checks the rules that involve several options and the target, as
  /// `parse_dynamic_config` does, and throws as it does. Never changes the options.
  void validate(const Target& target = default_target()) const;

  /// Same texts for the same options.
  friend bool operator==(const BuildOptions& a, const BuildOptions& b) noexcept {
    return a.texts_ == b.texts_;
  }

 private:
  std::array<std::optional<std::string>, option_count> texts_;
  std::optional<InputShape> input_shape_;
  std::optional<std::vector<std::int64_t>> batch_;
  std::optional<std::vector<ImageGear>> image_;
  std::optional<std::vector<std::vector<std::int64_t>>> dims_;
  std::optional<Format> format_;
  std::optional<bool> ac_parallel_;
  std::optional<bool> hybrid_;
  std::optional<int> node_type_;
};

}  // namespace ge
