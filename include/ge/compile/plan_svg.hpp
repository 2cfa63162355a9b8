#pragma once
/// \file
/// `ge::plan_svg`: one plan's memory plan as an SVG picture, so that a user can see how
/// the arena is shared (`gec compile --plan_svg arena.svg`).
///
/// x is the execution step, y the offset in the arena (0 at the bottom). Every arena
/// value is one rectangle over its lifetime (extended for streams, as planned) and its
/// bytes `[offset, offset + bytes)`, filled with the colour of its producer's op type,
/// a fused op by what it fused (`FusedConv: Conv+Add+Relu`, see `ge::fused_ops`): a fixed
/// colour per name, and a legend lists those present. A dashed line marks
/// the lower bound (no placement can use less), a thin step line the bytes live at each
/// step, and the heading gives the arena, the bytes without reuse, the lower bound and
/// the ratio arena / lower bound. Hovering a rectangle shows the value's name, shape,
/// bytes, offset, steps and producer.
///
/// The picture is also data: the root `<svg>` carries `data-arena-bytes`,
/// `data-no-reuse-bytes` and `data-lower-bound`; each value's `<rect class="value">`
/// carries `data-value` (the name), `data-op` (the producer's op type), `data-kind` (its
/// legend entry), `data-offset`, `data-bytes`, `data-first`, `data-last` (its lifetime
/// in steps, inclusive) and, for a value that
/// reuses another's memory in place, `data-shares` (that value's name). Names are
/// XML-escaped (control characters and bytes that are not UTF-8 become U+FFFD). The
/// size stays bounded for big models: the automatic width stops growing at 1400 pixels of
/// plot, and a rectangle is at least one pixel in each direction.
///
/// ```
/// auto model = ge::compile(graph, options);
/// std::string svg = ge::plan_svg(*model->plans().front(), {.title = "resnet50, gear 0"});
/// ```

#include <string>

#include "ge/core/api.hpp"

namespace ge {

struct Plan;

/// Options of `plan_svg`.
struct PlanSvgOptions {
  /// The heading's first words; empty: `memory plan` (and `, gear N` for a gear's plan).
  std::string title{};
  /// The picture's width in pixels: 0 picks one from the step count (the plot 14 pixels
  /// a step, 480 to 1400, plus the axis and the legend: 780 to 1960); else 480 to
  /// 16384, and wider only where the legend and a plot of 200 pixels need it.
  int width = 0;
  /// The plot's height in pixels (without heading and axis): 0 picks 520; else 120 to 16384.
  int height = 0;
};

/// The SVG text of `plan`'s memory plan (see the file comment). Throws
/// `Errc::invalid_argument` for a width or height outside its range, and for a plan whose
/// arena values do not fit together: a block that is not in `plan.lifetimes`, a lifetime
/// outside the steps, an offset or size outside the arena, or a producer that is no step.
[[nodiscard]] GE_API std::string plan_svg(const Plan& plan, const PlanSvgOptions& options = {});

}  // namespace ge
