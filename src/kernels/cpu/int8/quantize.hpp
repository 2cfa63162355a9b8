#pragma once
/// \file
/// Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the
/// integer products MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv. Quantized
/// tensors are u8 or i8; scales f32; zero points of the quantized type (absent: 0). A
/// scale or zero point is one element (per tensor) or one per entry of an axis. Rounding
/// is to nearest, ties to even, then saturation to the output type's range.
///
/// ```
/// ge::cpu::quantize_linear(1, x, scale, &zero_point, y);   // y = sat(rint(x / s) + zp)
/// ge::cpu::dequantize_linear(1, y, scale, nullptr, x);     // x = (y - 0) * s
/// ```

#include <cstdint>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// y (u8 or i8) = saturate(rint(x / scale) + zero_point); x f32 or i32; scale and
/// zero_point (may be null) one element or one per entry of `axis` (non-negative) of x.
/// Raises `Errc::type_mismatch`, `Errc::bad_op_inputs` (a scale's length).
void quantize_linear(std::int64_t axis, const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                     const TensorView& y);

/// y (f32) = (x - zero_point) * scale; x u8, i8 or i32; per tensor or per `axis` entry.
void dequantize_linear(std::int64_t axis, const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                       const TensorView& y);

/// y (u8), scale (f32 scalar), zero_point (u8 scalar) from x (f32): the range of x
/// widened to hold 0, mapped onto [0, 255].
void dynamic_quantize_linear(const TensorView& x, const TensorView& y, const TensorView& scale,
                             const TensorView& zero_point);

/// How QLinear ops requantize their i32 accumulators: y = sat(rint(acc * sa * sb / sy) + zy).
struct Requantize {
  const TensorView* a_scale = nullptr;  ///< per tensor or per row of a (QLinearMatMul) / per tensor (QLinearConv)
  const TensorView* b_scale = nullptr;  ///< per tensor, per column of b, or per output channel of W
  const TensorView* y_scale = nullptr;
  const TensorView* y_zero_point = nullptr;
};

/// y (i32, or u8/i8 with `rq`) = (a - a_zero_point) @ (b - b_zero_point), numpy matmul's
/// batch broadcasting, ranks >= 2 (a 1-D operand is made a matrix). Zero points and
/// scales: one element, per row of a (M) or per column of b (N).
void matmul_integer(const TensorView& a, const TensorView& b, const TensorView* a_zero_point,
                    const TensorView* b_zero_point, const TensorView& y, const Requantize* rq = nullptr);

/// The window of ConvInteger / QLinearConv, resolved for the run's dims.
struct IntConvParams {
  std::vector<std::int64_t> strides, dilations, pads_begin;  ///< per spatial axis
  std::int64_t group = 1;
};

/// y (i32, or u8/i8 with `rq`) = conv(x - x_zero_point, w - w_zero_point) (+ bias, i32);
/// w's zero point per tensor or per output channel. y's dims say the output extents.
void conv_integer(const IntConvParams& p, const TensorView& x, const TensorView& w, const TensorView* x_zero_point,
                  const TensorView* w_zero_point, const TensorView* bias, const TensorView& y,
                  const Requantize* rq = nullptr);

}  // namespace ge::cpu
