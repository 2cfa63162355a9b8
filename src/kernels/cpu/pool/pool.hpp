#pragma once
/// \file
/// Pooling kernels on f32 NCHW: MaxPool and AveragePool over 2-D windows (a 1-D pool is
/// a 2-D one with H = 1), and GlobalAveragePool over any number of spatial dims.
///
/// The output dims come from the caller (the compiler resolves auto_pad and ceil_mode);
/// windows that start inside the padded input but run past its end, as ceil_mode makes
/// them, are clipped: MaxPool takes the max of the real elements, AveragePool divides by
/// the elements inside the padded input (count_include_pad) or the real ones (not).
///
/// ```
/// ge::cpu::max_pool2d({.kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2,
///                      .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1}, x, y);
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Resolved attributes of a 2-D MaxPool or AveragePool.
struct Pool2dParams {
  std::int64_t kernel_h = 1;       ///< window height, >= 1
  std::int64_t kernel_w = 1;       ///< window width, >= 1
  std::int64_t stride_h = 1;       ///< >= 1
  std::int64_t stride_w = 1;       ///< >= 1
  std::int64_t pad_top = 0;        ///< >= 0, < kernel
  std::int64_t pad_left = 0;       ///< >= 0, < kernel
  std::int64_t pad_bottom = 0;     ///< >= 0
  std::int64_t pad_right = 0;      ///< >= 0
  std::int64_t dilation_h = 1;     ///< >= 1
  std::int64_t dilation_w = 1;     ///< >= 1
  bool count_include_pad = false;  ///< AveragePool: count padding in the divisor
};

/// MaxPool: `y[n,c,oy,ox]` = max over the window. `y` is [N, C, OH, OW] with OH between
/// the floor and the ceil_mode output size. Raises `Errc::type_mismatch`,
/// `Errc::rank_mismatch`, `Errc::bad_attribute`, `Errc::bad_op_inputs` (output dims).
void max_pool2d(const Pool2dParams& p, const TensorView& x, const TensorView& y);

/// MaxPool on f32 NHWC images: x [N, H, W, C], y [N, OH, OW, C] (exact); the same
/// windows and errors as `max_pool2d`. Vectorised over channels.
void max_pool2d_nhwc(const Pool2dParams& p, const TensorView& x, const TensorView& y);

/// AveragePool on f32 NHWC images: the same windows, counts and errors as
/// `average_pool2d`. Vectorised over channels.
void average_pool2d_nhwc(const Pool2dParams& p, const TensorView& x, const TensorView& y);

/// AveragePool, as `max_pool2d` but the mean.
void average_pool2d(const Pool2dParams& p, const TensorView& x, const TensorView& y);

/// GlobalAveragePool: x [N, C, d1, ...] -> y [N, C, 1, ...]. Raises
/// `Errc::type_mismatch`, `Errc::rank_mismatch`, `Errc::bad_op_inputs`.
void global_average_pool(const TensorView& x, const TensorView& y);

/// GlobalMaxPool: as `global_average_pool` but the maximum (NaN propagates).
void global_max_pool(const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
