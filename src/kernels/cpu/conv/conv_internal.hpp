#pragma once
// Internal to the conv kernels (conv.cpp, conv_patches.cpp, conv_bf16.cpp): the output
// geometry, the column matrix of image patches and its packing into GEMM B panels, and
// the bf16 (AMX) conv driver.

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv/conv.hpp"

namespace ge::cpu {

// The checked dims of one conv: input N, C, H, W; Cout and the kernel; the output OH, OW.
struct ConvShape {
  std::int64_t n, c, h, w, cout, kh, kw, oh, ow;
};

// The column matrix of one (image, group): row q = (ci, ky, kx), column j = (oy, ox).
struct Patches {
  const float* x;  // the group's first input plane
  std::int64_t h, w, kh, kw, oh, ow;
  const Conv2dParams* p;
  bool pointwise;  // 1x1, stride 1, no pads: row q is input plane q
};

// Packs rows [q0, q1) and columns [n0, n0 + ncols) of the column matrix into NR-wide
// panels: element (q, n0 + j) goes to dst[(j / NR) * panel_stride + (q - q0) * NR + j % NR];
// lanes past `ncols` are zero.
void pack_patches(const Patches& pt, std::int64_t q0, std::int64_t q1, std::int64_t n0, std::int64_t ncols, float* dst,
                  std::int64_t panel_stride);
// The same packing for a column matrix whose row q is input plane q (a pointwise conv, 2-D
// or N-D): x + q * plane is row q.
void pack_plane_panels(const float* x, std::int64_t plane, std::int64_t q0, std::int64_t q1, std::int64_t n0,
                       std::int64_t ncols, float* dst, std::int64_t panel_stride);

// A depthwise conv (group == C == Cout) with 3x3 or 5x5 taps, strides 1 or 2, no
// dilation, vectorised along the output rows on AVX-512 or AVX2 (depthwise.cpp). False
// (nothing done) for any other conv or CPU.
bool depthwise_vectorised(const Conv2dParams& p, const ConvShape& s, const float* x, const float* taps,
                          const float* bias, float* y, const float* residual);

// Conv as the f32 GEMM C^T = P^T W^T, the output pixels of the batch as its rows, for
// weights packed `pixel_major` (conv_pixels.cpp).
void conv_gemm_pixels(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                      const float* pbias, float* py, const float* pres);

// Winograd F(2x2, 3x3) for 3x3 stride-1 undilated ungrouped convs (conv_winograd.cpp):
// whether `p` (strides, dilations, group) and the kernel fit; the packed size and the
// packing of OIHW weights (16 GEMM A operands of cout x cin); the conv.
bool winograd_fits(std::int64_t kh, std::int64_t kw, const Conv2dParams& p);
std::int64_t winograd_weights_size(std::int64_t cout, std::int64_t cin);
void pack_winograd_weights(std::int64_t cout, std::int64_t cin, const float* w, float* dst);
// The same for bf16 products (`PackedConvWeights::bf16` with `winograd`): U_xi as bf16 rows,
// cout rounded up to 16 rows, cin to the bf16 depth; the size in floats (two bf16 a float).
std::int64_t winograd_bf16_weights_size(std::int64_t cout, std::int64_t cin);
void pack_winograd_weights_bf16(std::int64_t cout, std::int64_t cin, const float* w, float* dst);
void conv_winograd(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                   const float* pbias, float* py, const float* pres);

// What every NHWC conv checks (depthwise_nhwc.cpp): types, ranks, params, output dims
// [N, OH, OW, M] (exact), bias [M] and residual (the output's dims); returns OH, OW and
// the optional pointers. Raises as `conv2d`.
struct NhwcIo {
  std::int64_t oh = 0, ow = 0;
  const float* bias = nullptr;
  const float* residual = nullptr;
};
NhwcIo check_nhwc(const Conv2dParams& p, const TensorView& x, std::int64_t kh, std::int64_t kw, std::int64_t m,
                  const TensorView* bias, const TensorView& y, const TensorView* residual);
// A fused pointwise-depthwise conv's pointwise part: `fn(ctx, in, width, out)` makes the
// expanded row `out` (width pixels of `e` floats) of the input row `in` (width pixels of
// `c_in` floats).
struct RowExpand {
  void (*fn)(const void* ctx, const float* in, std::int64_t width, float* out);
  const void* ctx;
  std::int64_t c_in, e;
};
// `pointwise_depthwise_nhwc` with the pointwise conv's rows made by `expand` (the f32
// GEMM, or the int8 one: int8.cpp). Same checks and errors.
void pointwise_depthwise_rows(const Conv2dParams& p, const TensorView& x, const RowExpand& expand,
                              const PackedDepthwiseNhwc& w, const TensorView* bias, const TensorView& y,
                              const TensorView* residual);
// The few-channels conv with bf16 products (conv_few_channels_bf16.cpp): the weights
// (`p` with its dims set) as pairs of neighbouring taps of a row, [C][KH][ceil(KW / 2)]
// [m_pad][2] bf16; the run (dilation 1 across) on x NHWC or, with `x_nchw`, NCHW.
void pack_few_channels_bf16(const TensorView& w, PackedFewChannelsNhwc& p);
void conv_few_channels_bf16(const Conv2dParams& p, const TensorView& x, const PackedFewChannelsNhwc& w,
                            const NhwcIo& io, const TensorView& y, bool x_nchw);
// `conv_gemm_nhwc` with bf16 weights (conv_nhwc_bf16.cpp), its operands checked.
void conv_gemm_nhwc_bf16(const Conv2dParams& p, const NhwcIo& io, const TensorView& x, const PackedConvNhwc& w,
                         const TensorView& y);
// `check_nhwc` for a dense (group 1) conv whose weights have `c` input channels: X is
// rank 4 with `c` channels last (conv_nhwc.cpp).
NhwcIo check_dense_nhwc(const Conv2dParams& p, const TensorView& x, std::int64_t c, std::int64_t kh, std::int64_t kw,
                        std::int64_t m, const TensorView* bias, const TensorView& y, const TensorView* residual);

// Winograd's U = G g G^T of OIHW 3x3 weights, in f64 then rounded: element xi (0..15) of
// (o, i) at [(xi * cout + o) * cin + i], or with `by_input` at [(xi * cin + i) * cout + o]
// (conv_winograd.cpp; the NCHW kernel packs U_xi as GEMM A, the NHWC one as B).
Scratch winograd_u(std::int64_t cout, std::int64_t cin, const float* w, bool by_input);

// Direct conv for few input channels (conv_direct.cpp): whether it serves (an AVX2 or
// AVX-512 CPU, group 1, at most 4 input channels, no dilation, horizontal stride 1 or 2),
// the packed size and the
// packing of OIHW weights (blocks of 16 output channels, [block][tap][16]), the conv.
bool direct_fits(std::int64_t cin_per_group, std::int64_t cout, std::int64_t kh, std::int64_t kw, const Conv2dParams& p);
std::int64_t direct_weights_size(std::int64_t cout, std::int64_t k);
void pack_direct_weights(std::int64_t cout, std::int64_t k, const float* w, float* dst);
void conv_direct(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                 const float* pbias, float* py, const float* pres);

// Conv as a bf16 GEMM on AMX per (image, group), weights packed by `pack_conv_weights`
// with bf16 (`w.bf16`); the epilogue as the f32 path's.
void conv_gemm_bf16(const Conv2dParams& p, const ConvShape& s, const PackedConvWeights& w, const float* px,
                    const float* pbias, float* py, const float* pres);

}  // namespace ge::cpu
