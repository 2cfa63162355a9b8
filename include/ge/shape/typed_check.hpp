#pragma once
/// \file
/// The run-time half of the typed algebra: a ranged or unknown dim is checked when
/// the real value is known, never dropped.
///
/// - `check(typed, shape)`: the real shape must lie within the typed one
///   (`refines(shape, to_shape(typed))`); throws `ge::Error` otherwise.
/// - `matches(typed, shape)`: the same as a bool.
/// - `bind(typed, shape)`: a partial runtime shape (e.g. option text with `-1`s)
///   narrowed by the typed one: `merge`; throws when no tensor fits both.
///
/// | typed                          | runtime      | check            | bind          |
/// |--------------------------------|--------------|------------------|---------------|
/// | `ShapeOf<Ranged<1, 8>, Static<3>>` | `4,3`    | ok               | `4,3`         |
/// | `ShapeOf<Ranged<1, 8>, Static<3>>` | `-1,3`   | incompatible_shapes | `1~8,3`    |
/// | `ShapeOf<Ranged<1, 8>, Static<3>>` | `9,3`    | incompatible_shapes | incompatible_shapes |
/// | `ShapeOf<Ranged<1, 8>, Static<3>>` | `4,3,1`  | rank_mismatch    | rank_mismatch |
/// | `ShapeOf<Ranged<1, 8>, Static<3>>` | `-2`     | unknown_rank     | `1~8,3`       |
/// | `UnknownRank`                  | anything     | ok               | the shape     |
///
/// ```
/// using namespace ge::typed;
/// constexpr auto input = make_shape(Ranged<1, 8>{}, Static<3>{}, Static<224>{}, Static<224>{});
/// check(input, ge::Shape{4, 3, 224, 224});   // fine
/// check(input, ge::Shape{9, 3, 224, 224});   // ge::Error: ... dim 0 is '9'; expected a value in '1~8'
/// ```

#include <cstddef>
#include <string>

#include "ge/core/error.hpp"
#include "ge/shape/shape.hpp"
#include "ge/shape/typed_dim.hpp"
#include "ge/shape/typed_shape.hpp"

namespace ge::typed {

namespace detail {
inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

/// Throws unless `actual` fits `typed` (`exact`: lies within it; else: meets it).
inline void fit(const char* api, const Shape& typed, const Shape& actual, bool exact) {
  if (!typed.rank_known() || (!exact && !actual.rank_known())) return;
  const std::string head = std::string("[ge.shape] ge::typed::") + api + ": shape " +
                           quoted(actual.to_string()) + " does not fit the typed shape " +
                           quoted(typed.to_string()) + ": ";
  const std::string rank = std::to_string(typed.dims().size());
  if (!actual.rank_known()) raise(Errc::unknown_rank, head + "its rank is unknown; expected rank " + rank);
  if (actual.dims().size() != typed.dims().size())
    raise(Errc::rank_mismatch,
          head + "rank " + std::to_string(actual.dims().size()) + "; expected rank " + rank);
  for (std::size_t i = 0; i < typed.dims().size(); ++i) {
    const Dim& a = actual.dims()[i];
    const Dim& t = typed.dims()[i];
    if (exact ? !ge::refines(a, t) : !ge::compatible(a, t))
      raise(Errc::incompatible_shapes, head + "dim " + std::to_string(i) + " is " + quoted(a.to_string()) +
                                           "; expected a value in " + quoted(t.to_string()));
  }
}
}  // namespace detail

/// Throws `ge::Error` unless every tensor `actual` describes fits `typed`:
/// `unknown_rank` or `rank_mismatch` for the rank, `incompatible_shapes` naming the dim.
template <TypedShape S>
void check(S typed, const Shape& actual) {
  detail::fit("check", to_shape(typed), actual, true);
}
/// Throws `ge::Error(Errc::incompatible_dims)` unless `actual` lies within `typed`.
template <TypedDim D>
void check(D, const Dim& actual) {
  if (!ge::refines(actual, D::dim))
    raise(Errc::incompatible_dims, "[ge.shape] ge::typed::check: dim " + detail::quoted(actual.to_string()) +
                                       " does not fit the typed dim; expected a value in " +
                                       detail::quoted(D::dim.to_string()));
}

/// `check` as a bool: `actual` lies within `typed`.
template <TypedShape S>
[[nodiscard]] bool matches(S typed, const Shape& actual) {
  return ge::refines(actual, to_shape(typed));
}
template <TypedDim D>
[[nodiscard]] constexpr bool matches(D, const Dim& actual) noexcept {
  return ge::refines(actual, D::dim);
}

/// `actual` narrowed by `typed` (their `merge`, `actual`'s spelling kept where it is
/// the result). Throws `ge::Error` (`rank_mismatch`, `incompatible_shapes`) when no
/// tensor fits both.
template <TypedShape S>
[[nodiscard]] Shape bind(S typed, const Shape& actual) {
  const Shape t = to_shape(typed);
  detail::fit("bind", t, actual, false);
  return ge::merge(actual, t);
}

}  // namespace ge::typed
