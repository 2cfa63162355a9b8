#pragma once
/// \file
/// `ge::Shape`: a runtime shape: a list of `ge::Dim`s, a scalar, or unknown rank.
///
/// Text form (the option syntax of GE-REFERENCE.md §2):
///
/// | text           | shape                                   |
/// |----------------|-----------------------------------------|
/// | `8~20,3,5,-1`  | rank 4: a range, two fixed dims, unknown |
/// | `` (empty)     | a scalar (rank 0)                       |
/// | `-2`           | unknown rank                            |
///
/// `Shape::parse(s).to_string() == s` for every text without blanks that parses.
///
/// The algebra (free functions below) lifts the dim rules of `dim.hpp` to shapes:
/// unknown rank is compatible with anything and is the identity of `merge`;
/// ranks that differ are incompatible (except in `broadcast`, which aligns the
/// dims from the right as numpy does).
///
/// ```
/// auto s = ge::Shape::parse("-1,3,224,224");
/// auto t = ge::merge(s, ge::Shape{4, 3, 224, 224});   // 4,3,224,224
/// auto n = ge::element_count(ge::Shape::parse("1~8,3")); // Dim 3~24
/// ```

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/data_type.hpp"
#include "ge/shape/dim.hpp"

namespace ge {

/// A list of dims (possibly empty: a scalar), or unknown rank.
class GE_API Shape {
 public:
  /// A scalar: rank 0.
  Shape() = default;
  /// The dims given, e.g. `Shape{1, 3, Dim::range(100, 208), -1}`.
  Shape(std::initializer_list<Dim> dims) : dims_(dims) {}
  explicit Shape(std::vector<Dim> dims) : dims_(std::move(dims)) {}

  /// Unknown rank (`-2`).
  [[nodiscard]] static Shape unknown_rank() {
    Shape s;
    s.rank_known_ = false;
    return s;
  }
  /// Parses the text form. Throws with the text and position on bad text
  /// (`bad_shape_text`, or the dim's own code).
  [[nodiscard]] static Shape parse(std::string_view text);

  [[nodiscard]] bool rank_known() const noexcept { return rank_known_; }
  /// The rank. Throws `Errc::unknown_rank` when unknown.
  [[nodiscard]] std::size_t rank() const;
  /// The dims (empty for a scalar or unknown rank).
  [[nodiscard]] const std::vector<Dim>& dims() const noexcept { return dims_; }
  /// Dim `i`; negative `i` counts from the end. Throws `Errc::index_out_of_range`
  /// or `Errc::unknown_rank`.
  [[nodiscard]] const Dim& operator[](std::ptrdiff_t i) const;
  /// Replaces dim `i` (negative counts from the end).
  void set(std::ptrdiff_t i, Dim d);
  /// Appends a dim (the shape must have a known rank).
  void push_back(Dim d);

  [[nodiscard]] bool is_scalar() const noexcept { return rank_known_ && dims_.empty(); }
  /// Known rank and every dim static.
  [[nodiscard]] bool is_static() const noexcept;
  /// Known rank and every dim bounded.
  [[nodiscard]] bool is_bounded() const noexcept;

  /// The text form: dims joined by `,`; empty for a scalar; `-2` for unknown rank.
  [[nodiscard]] std::string to_string() const;
  /// The static values. Throws `Errc::not_static` (naming the shape) otherwise.
  [[nodiscard]] std::vector<std::int64_t> values() const;

  /// Same rank state and equal dims (dim equality is by value sets).
  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    return a.rank_known_ == b.rank_known_ && a.dims_ == b.dims_;
  }

 private:
  std::vector<Dim> dims_;
  bool rank_known_ = true;
};

/// Could describe the same tensor: unknown rank on either side, or equal ranks with
/// every dim pair compatible.
[[nodiscard]] GE_API bool compatible(const Shape& a, const Shape& b) noexcept;
/// The most precise shape both describe. Unknown rank yields the other side.
/// Throws `Errc::rank_mismatch` or `Errc::incompatible_shapes` (naming both shapes and
/// the dim index).
[[nodiscard]] GE_API Shape merge(const Shape& a, const Shape& b);
/// a ⊇ b: every tensor `b` describes, `a` describes. Unknown rank relaxes everything.
[[nodiscard]] GE_API bool relaxes(const Shape& a, const Shape& b) noexcept;
/// a ⊆ b.
[[nodiscard]] GE_API bool refines(const Shape& a, const Shape& b) noexcept;
/// Numpy broadcasting, dims aligned from the right, each pair by `broadcast(Dim, Dim)`.
/// Unknown rank on either side gives unknown rank. Throws `Errc::incompatible_shapes`
/// naming both shapes and the failing dim.
[[nodiscard]] GE_API Shape broadcast(const Shape& a, const Shape& b);
/// The hull: every shape either allows, dim by dim (`hull(Dim, Dim)`); unknown rank when
/// a rank is unknown or the ranks differ.
[[nodiscard]] GE_API Shape hull(const Shape& a, const Shape& b);
/// The number of elements as an interval (a scalar has 1). Unknown rank gives `-1`.
/// Saturates at `Dim::inf`.
[[nodiscard]] GE_API Dim element_count(const Shape& s);
/// The bytes as an interval: `element_count(s) * size_of(t)`.
[[nodiscard]] GE_API Dim byte_size(const Shape& s, DataType t);
/// Every dim at its upper end. Throws `Errc::unbounded` if a dim has none,
/// `Errc::unknown_rank` for unknown rank.
[[nodiscard]] GE_API Shape upper_bound(const Shape& s);
/// Every dim at its lower end. Throws `Errc::unknown_rank` for unknown rank.
[[nodiscard]] GE_API Shape lower_bound(const Shape& s);

}  // namespace ge
