#pragma once
/// \file
/// Detection ops: NonMaxSuppression (greedy, per batch entry and class), RoiAlign
/// (average or max of bilinear samples per bin) and GridSample (bilinear, nearest or
/// bicubic sampling at normalised grid points, zeros / border / reflection padding).
///
/// ```
/// std::vector<std::int64_t> sel = ge::cpu::non_max_suppression({.max_per_class = 3}, boxes, scores);
/// ```

#include <cstdint>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// NonMaxSuppression's settings (its three scalar inputs and its attribute).
struct NmsParams {
  std::int64_t max_per_class = 0;  ///< at most this many boxes per (batch, class); 0: none
  float iou_threshold = 0;         ///< a box whose IoU with a kept one is above it is dropped
  bool has_score_threshold = false;
  float score_threshold = 0;       ///< boxes scoring at or below it are never kept
  bool center_point_box = false;   ///< boxes as [x_center, y_center, w, h], else [y1, x1, y2, x2]
};

/// The kept boxes as (batch, class, box) triples, in order: batch, class, then falling
/// score (ties: the lower box index first). boxes f32 [B, N, 4], scores f32 [B, C, N].
/// Raises `Errc::type_mismatch`, `Errc::bad_op_inputs` (dims).
[[nodiscard]] std::vector<std::int64_t> non_max_suppression(const NmsParams& p, const TensorView& boxes,
                                                            const TensorView& scores);

/// RoiAlign's settings.
struct RoiAlignParams {
  bool max = false;         ///< max of the samples (each the largest weighted corner), else their average
  bool half_pixel = true;   ///< half_pixel: boxes shifted by -0.5; output_half_pixel: not, and at least 1x1
  std::int64_t sampling_ratio = 0;  ///< samples per bin side; 0: ceil(roi extent / bins)
  float spatial_scale = 1;
};

/// y [R, C, OH, OW] (f32) = per box r of rois [R, 4] (x1, y1, x2, y2) on image
/// batch_indices[r] of x [N, C, H, W]: each bin's bilinear samples pooled.
void roi_align(const RoiAlignParams& p, const TensorView& x, const TensorView& rois, const TensorView& batch_indices,
               const TensorView& y);

/// GridSample's interpolation and padding.
enum class GridMode : std::uint8_t { bilinear, nearest, bicubic };
enum class GridPadding : std::uint8_t { zeros, border, reflection };

/// y [N, C, HO, WO] (f32) = x [N, C, H, W] sampled at grid [N, HO, WO, 2] ((x, y) in
/// [-1, 1] across the image: the corner pixels' centres with align_corners, their outer
/// edges without).
void grid_sample(GridMode mode, GridPadding padding, bool align_corners, const TensorView& x, const TensorView& grid,
                 const TensorView& y);

}  // namespace ge::cpu
