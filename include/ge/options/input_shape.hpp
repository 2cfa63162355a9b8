#pragma once
/// \file
/// `ge::InputShape`: the parsed value of INPUT_SHAPE (`ge.inputShape`).
///
/// | text                                   | meaning                                      |
/// |----------------------------------------|----------------------------------------------|
/// | `data:1,3,224,224`                     | one named input, fixed shape                 |
/// | `a:8~20,3,5,-1;b:5,3~9,10,-1`          | two named inputs with ranges and unknowns    |
/// | `8~20,3,5,-1;5,3~9,10,-1`              | inputs 0 and 1 by position (data `index`)   |
/// | `a:;b:16,32`                           | `a` is a scalar                              |
/// | `x:0:1,2`                              | name `x:0` (the name ends at the last `:`)   |
///
/// Rules: entries are separated by `;`; either every entry is named (`name:dims`) or
/// none is; a name appears once and is not empty; dims are those of `ge::Shape` text,
/// except that `-2` (unknown rank) is refused (give the rank, with `-1` per unknown dim).
/// In the positional form an empty entry is a scalar input. Blanks around names and
/// dims are ignored.
///
/// ```
/// auto s = ge::InputShape::parse("data:-1,3,416,416");
/// assert(s.named() && s.entries()[0].shape.to_string() == "-1,3,416,416");
/// ```

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/shape/shape.hpp"

namespace ge {

/// One input of INPUT_SHAPE: its name (empty in the positional form) and its shape.
struct GE_API InputShapeEntry {
  std::string name;  ///< the data node's name; empty when given by position
  Shape shape;       ///< its shape (may hold `-1` and ranges)

  /// Equal names and shapes (shape equality compares value sets).
  friend bool operator==(const InputShapeEntry&, const InputShapeEntry&) = default;
};

/// The inputs of INPUT_SHAPE, in the order written.
class GE_API InputShape {
 public:
  /// No inputs.
  InputShape() = default;

  /// Parses INPUT_SHAPE text. Throws `ge::Error` with the whole text and the position:
  /// `bad_input_shape` (empty text, empty name, `-2`), `mixed_input_forms`,
  /// `duplicate_input`, or the dim's code (`bad_dim_text`, `bad_dim_value`, `bad_range`,
  /// `int_overflow`).
  [[nodiscard]] static InputShape parse(std::string_view text);

  /// The inputs, in the order written.
  [[nodiscard]] const std::vector<InputShapeEntry>& entries() const noexcept { return entries_; }
  /// True when the inputs are given by name, false when by position.
  [[nodiscard]] bool named() const noexcept { return named_; }
  /// The entry named `name`, or null (always null in the positional form).
  [[nodiscard]] const InputShapeEntry* find(std::string_view name) const noexcept;
  /// The number of `-1` dims over all inputs.
  [[nodiscard]] std::size_t unknown_dim_count() const noexcept;
  /// True when some dim is written `lo~hi`.
  [[nodiscard]] bool has_range() const noexcept;
  /// The text form: entries joined by `;`, `name:dims` when named. Parses back equal.
  [[nodiscard]] std::string to_string() const;

  /// Same form and equal entries.
  friend bool operator==(const InputShape&, const InputShape&) = default;

 private:
  std::vector<InputShapeEntry> entries_;
  bool named_ = false;
};

}  // namespace ge
