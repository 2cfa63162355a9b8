#pragma once
/// \file
/// Generic window kernels over 1 to 3 spatial dims (NCHW-like layouts: [N, C, d1, ...]):
/// Conv, ConvTranspose, MaxPool (any of f32, f64, i8, u8; with its optional Indices output)
/// and AveragePool. They serve what the specialised 2-D kernels (conv.hpp, pool.hpp) do not:
/// 3-D windows, f64, integer MaxPool and MaxPool's Indices. Direct loops, no packing: each
/// output element costs its window (times the channels per group for the convolutions);
/// except Conv on f32 with weights packed by `pack_conv_nd` (conv_nd_gemm.cpp): a GEMM
/// over image patches per (image, group), as the 2-D conv runs.
///
/// The spatial attributes come resolved (pads from auto_pad), padded to three axes at the
/// front (extent 1, kernel 1, stride 1, no pads) so that one loop nest serves every rank.
///
/// ```
/// ge::cpu::WindowNd p;                       // a 3x3x3 window, stride 1, no pads
/// p.kernel = {3, 3, 3};
/// ge::cpu::max_pool_nd(p, x, y, nullptr);     // x [N, C, D, H, W], y [N, C, D-2, H-2, W-2]
/// ```

#include <array>
#include <cstdint>

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/conv/conv.hpp"

namespace ge::cpu {

/// Resolved window attributes over three spatial axes (a 1-D or 2-D window fills the last ones).
struct WindowNd {
  std::array<std::int64_t, 3> kernel{1, 1, 1};     ///< >= 1 (the convolutions take it from W)
  std::array<std::int64_t, 3> stride{1, 1, 1};     ///< >= 1
  std::array<std::int64_t, 3> dilation{1, 1, 1};   ///< >= 1
  std::array<std::int64_t, 3> pad_begin{0, 0, 0};  ///< >= 0
  std::array<std::int64_t, 3> pad_end{0, 0, 0};    ///< >= 0 (AveragePool's count_include_pad)
  std::int64_t group = 1;                          ///< Conv, ConvTranspose
  bool count_include_pad = false;                  ///< AveragePool: pads count in the divisor
  bool column_major = false;                       ///< MaxPool's Indices: storage_order 1
};

/// Conv: x [N, C, s...], w [M, C/group, k...], optional b [M], y [N, M, o...] (f32 or
/// f64, all alike). Raises `Errc::type_mismatch`, `Errc::rank_mismatch`,
/// `Errc::bad_op_inputs` (channels and group do not fit).
void conv_nd(const WindowNd& p, const TensorView& x, const TensorView& w, const TensorView* b, const TensorView& y);

/// Packs f32 Conv weights w [M, C/group, k...] (1 to 3 spatial dims) for the GEMM conv
/// with `p.group`: per group the GEMM's A panels over K = (C/group) x the taps, held as
/// `PackedConvWeights` of the kernel viewed as [M, C/group, k0*k1, k2] (padded to three
/// axes at the front); depthwise kernels (group == C == M) as their plain taps. Raises
/// `Errc::type_mismatch`, `Errc::rank_mismatch` (not rank 3 to 5), `Errc::bad_attribute`
/// (group not dividing M).
[[nodiscard]] PackedConvWeights pack_conv_nd(const WindowNd& p, const TensorView& w);

/// Conv on f32 with weights packed by `pack_conv_nd`; `p.kernel` must be the packed
/// kernel's (padded to three axes). Not depthwise: a GEMM over image patches in K blocks
/// (the patches packed straight from the image, never the whole column matrix), the bias
/// in its epilogue; depthwise: the direct loop. The errors of `conv_nd`, and
/// `Errc::bad_attribute` when `p` does not fit the packing.
void conv_nd(const WindowNd& p, const TensorView& x, const PackedConvWeights& w, const TensorView* b,
             const TensorView& y);

/// ConvTranspose: x [N, C, s...], w [C, M/group, k...], optional b [M], y [N, M, o...];
/// input position i and tap k add to output position i * stride - pad_begin + k * dilation
/// (those outside y are dropped). The same errors as `conv_nd`.
void conv_transpose_nd(const WindowNd& p, const TensorView& x, const TensorView& w, const TensorView* b,
                       const TensorView& y);

/// MaxPool: y [N, C, o...] the max of the real elements of each window (windows past the
/// input, as ceil_mode makes them, are clipped; one with no real element is the lowest
/// value). `indices` (i64, y's dims, or null) gets the flat index in x of the first max,
/// its spatial part column-major when `p.column_major`. f32, f64, i8, u8.
void max_pool_nd(const WindowNd& p, const TensorView& x, const TensorView& y, const TensorView* indices);

/// AveragePool: the mean of the real elements of each window, or over the elements inside
/// the padded input when `p.count_include_pad`. f32 or f64.
void average_pool_nd(const WindowNd& p, const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
