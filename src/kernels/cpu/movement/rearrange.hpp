#pragma once
/// \file
/// Elements moved to other places: Tile, DepthToSpace and SpaceToDepth, on any element
/// type (copied by size). Each output element is found once from its own coordinates, so
/// the cost is linear in the output.
///
/// ```
/// ge::cpu::tile(x, y);                                            // y's dims a multiple of x's
/// ge::cpu::depth_to_space({.block = 2, .crd = true}, x, y);       // [N,C,H,W] -> [N,C/4,2H,2W]
/// ge::cpu::space_to_depth(2, x, y);                               // [N,C,H,W] -> [N,4C,H/2,W/2]
/// ```

#include <cstdint>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// y = x repeated along each axis (y.dims[d] = x.dims[d] * k). Raises `Errc::type_mismatch`,
/// `Errc::bad_op_inputs` (ranks, dims not multiples).
void tile(const TensorView& x, const TensorView& y);

/// Resolved attributes of DepthToSpace.
struct DepthToSpaceParams {
  std::int64_t block = 1;  ///< blocksize, >= 1
  bool crd = false;        ///< mode CRD (column, row, depth) instead of DCR (depth, column, row)
};

/// [N, C, H, W] -> [N, C / b^2, H * b, W * b]. Raises `Errc::type_mismatch`,
/// `Errc::bad_attribute` (block < 1), `Errc::bad_op_inputs` (rank, C not a multiple of b^2, y dims).
void depth_to_space(const DepthToSpaceParams& p, const TensorView& x, const TensorView& y);

/// [N, C, H, W] -> [N, C * b^2, H / b, W / b], the inverse of DCR DepthToSpace. Raises as
/// `depth_to_space` (H or W not a multiple of b).
void space_to_depth(std::int64_t block, const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
