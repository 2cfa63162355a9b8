#pragma once
/// \file
/// Data movement kernels, for any element type unless noted: Identity/Reshape copies,
/// ConstantOfShape, Transpose, Concat, Split, Slice, Gather, Expand, Cast, Pad and Resize.
///
/// Strided copies collapse the dims that source and destination walk together, so a
/// transpose that keeps the last axis copies whole rows with memcpy, and a Slice of whole
/// rows is one memcpy per row. All parameters are resolved by the caller: non-negative
/// axes, clamped Slice starts, per-axis pads, Resize scales.
///
/// ```
/// const std::int64_t perm[] = {0, 2, 3, 1};
/// ge::cpu::transpose(perm, x, y);                           // NCHW -> NHWC
/// ge::cpu::slice({.starts = {0, 9}, .steps = {1, -2}}, x, y);  // y dims say how many
/// ge::cpu::cast(x_f32, y_i64);
/// ```

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// Identity, Reshape, Flatten, Squeeze, Unsqueeze: copies the bytes of `x` into `y` (same
/// type and element count; nothing to do when they share memory). Raises
/// `Errc::type_mismatch`, `Errc::bad_op_inputs` (element counts differ).
void copy(const TensorView& x, const TensorView& y);

/// ConstantOfShape: fills `y` with the single element of `value` (same type). Raises
/// `Errc::type_mismatch`, `Errc::bad_op_inputs` (value not one element).
void fill(const TensorView& value, const TensorView& y);

/// Transpose: `y.dims[i] == x.dims[perm[i]]`. Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (perm not a permutation of the axes), `Errc::bad_op_inputs`.
void transpose(std::span<const std::int64_t> perm, const TensorView& x, const TensorView& y);

/// Concat of `inputs` along `axis` into `y`. Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (axis), `Errc::bad_op_inputs` (dims do not line up).
void concat(std::int64_t axis, std::span<const TensorView> inputs, const TensorView& y);

/// Split of `x` along `axis` into `outputs`, whose dims along `axis` give the sizes.
/// Raises like `concat`.
void split(std::int64_t axis, const TensorView& x, std::span<const TensorView> outputs);

/// Resolved Slice: for every axis of x, the first index and the step (non-zero, maybe
/// negative); `y.dims[i]` elements are taken along axis i.
struct SliceParams {
  SmallDims starts{};  ///< per axis, 0 <= start < dim (when the output is not empty)
  SmallDims steps{};   ///< per axis, non-zero
};

/// Slice: `y[i...] = x[starts + i * steps ...]`. Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (wrong lengths, zero step), `Errc::index_out_of_range` (an index
/// the output would read lies outside x), `Errc::rank_mismatch`.
void slice(const SliceParams& p, const TensorView& x, const TensorView& y);

/// Gather along `axis` with i32 or i64 `indices` (negative counts from the end):
/// `y.dims = data.dims[:axis] + indices.dims + data.dims[axis+1:]`. Raises
/// `Errc::type_mismatch`, `Errc::bad_attribute` (axis), `Errc::bad_op_inputs` (y dims),
/// `Errc::index_out_of_range` (an index outside [-dim, dim)).
void gather(std::int64_t axis, const TensorView& data, const TensorView& indices, const TensorView& y);

/// Expand: broadcasts `x` to `y.dims` (numpy rules). Raises `Errc::type_mismatch`,
/// `Errc::incompatible_shapes`.
void expand(const TensorView& x, const TensorView& y);

/// Cast between f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64 and bool, same
/// dims. Float to integer truncates toward zero and saturates (NaN gives 0); anything to
/// bool is `!= 0`. Raises `Errc::unsupported`, `Errc::bad_op_inputs`.
void cast(const TensorView& x, const TensorView& y);

/// Pad modes.
enum class PadMode : std::uint8_t {
  constant,  ///< the value outside
  reflect,   ///< mirror without repeating the edge element
  edge,      ///< repeat the edge element
};

/// Resolved Pad: per axis elements added before and after (negative crops).
struct PadParams {
  PadMode mode = PadMode::constant;   ///< how the new elements are chosen
  std::vector<std::int64_t> begin{};    ///< per axis, added before
  std::vector<std::int64_t> end{};      ///< per axis, added after
  double value = 0.0;                 ///< constant mode's value, converted to x's type
};

/// Pad: `y.dims[i] == x.dims[i] + begin[i] + end[i]`. Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (lengths), `Errc::bad_op_inputs` (y dims, edge/reflect of an
/// empty axis), `Errc::unsupported` (a constant of a type without conversion).
void pad(const PadParams& p, const TensorView& x, const TensorView& y);

/// Resize interpolation.
enum class ResizeMode : std::uint8_t {
  nearest,  ///< nearest element (any type)
  linear,   ///< linear along every axis (f32)
  cubic,    ///< cubic convolution (Keys, coefficient `cubic_a`) along every axis (f32)
};
/// How an output coordinate maps back to the input.
enum class ResizeCoord : std::uint8_t {
  half_pixel,          ///< (o + 0.5) / scale - 0.5
  asymmetric,          ///< o / scale
  align_corners,       ///< o * (in - 1) / (out - 1)
  pytorch_half_pixel,  ///< half_pixel, but 0 when out == 1
  tf_half_pixel_for_nn,  ///< (o + 0.5) / scale
  tf_crop_and_resize,  ///< the box `roi` of the input; outside it, `extrapolation`
};
/// How nearest mode rounds a fractional input coordinate.
enum class ResizeNearest : std::uint8_t {
  round_prefer_floor,  ///< round, halves down
  round_prefer_ceil,   ///< round, halves up
  floor,               ///< floor
  ceil,                ///< ceil
};

/// Resolved Resize.
struct ResizeParams {
  ResizeMode mode = ResizeMode::nearest;                        ///< interpolation
  ResizeCoord coord = ResizeCoord::half_pixel;                  ///< coordinate mapping
  ResizeNearest nearest = ResizeNearest::round_prefer_floor;    ///< rounding (nearest only)
  std::vector<float> scales{};  ///< per axis, as given or computed (empty: y.dims / x.dims)
  float cubic_a = -0.75f;        ///< cubic only
  bool exclude_outside = false;  ///< linear and cubic: taps outside the input get weight 0
  float extrapolation = 0.0f;    ///< tf_crop_and_resize: the value outside the box
  std::vector<double> roi{};     ///< tf_crop_and_resize: starts then ends, normalised (empty: 0s, 1s)
};

/// Resize `x` into `y` (same rank and type). Align_corners and pytorch_half_pixel read the
/// output length as in * scale (unfloored) when scales are given, as ONNX does.
/// Raises `Errc::type_mismatch`, `Errc::rank_mismatch`, `Errc::bad_attribute` (scales,
/// roi), `Errc::unsupported` (linear or cubic on a non-f32 type).
void resize(const ResizeParams& p, const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
