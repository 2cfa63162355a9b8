// Tile, DepthToSpace and SpaceToDepth: each output element copied from the input position
// its coordinates name (O(rank) per element).
#include "kernels/cpu/movement/rearrange.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {
namespace {

// y[t] = x[source(t)] for every output element, copied by element size.
template <class F>
void gather_by(const TensorView& x, const TensorView& y, F source) {
  const auto es = static_cast<std::size_t>(size_of(x.dtype));
  const auto* src = static_cast<const std::byte*>(x.data);
  auto* dst = static_cast<std::byte*>(y.data);
  const std::int64_t n = y.elements();
  parallel_for(n, grain_for(8), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t t = b; t < e; ++t)
      std::memcpy(dst + static_cast<std::size_t>(t) * es, src + static_cast<std::size_t>(source(t)) * es, es);
  });
}

// The checks of the [N, C, H, W] ops: types, rank 4, block >= 1.
void check_nchw(std::string_view op, std::int64_t block, const TensorView& x, const TensorView& y) {
  same_type(op, "input", x, "output", y);
  check_data(op, "input", x);
  if (block < 1) fail(Errc::bad_attribute, op, "blocksize " + std::to_string(block) + " is below 1");
  if (x.rank() != 4) fail(Errc::bad_op_inputs, op, "input " + bracketed(x.dims) + " is not [N, C, H, W]");
}

}  // namespace

void tile(const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Tile";
  same_type(op, "input", x, "output", y);
  check_data(op, "input", x);
  bool fits = x.rank() == y.rank();
  for (std::size_t d = 0; fits && d < x.rank(); ++d)
    fits = x.dims[d] == 0 ? y.dims[d] == 0 : y.dims[d] % x.dims[d] == 0;
  if (!fits)
    fail(Errc::bad_op_inputs, op, "output " + bracketed(y.dims) + " is not input " + bracketed(x.dims) + " repeated");
  check_data(op, "output", y);
  if (y.elements() == 0) return;
  const std::size_t r = x.rank();
  std::vector<std::int64_t> xs(r, 1);
  for (std::size_t d = r; d-- > 1;) xs[d - 1] = xs[d] * x.dims[d];
  gather_by(x, y, [&](std::int64_t t) {
    std::int64_t off = 0;
    for (std::size_t d = r; d-- > 0;) {
      off += ((t % y.dims[d]) % x.dims[d]) * xs[d];
      t /= y.dims[d];
    }
    return off;
  });
}

void depth_to_space(const DepthToSpaceParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "DepthToSpace";
  check_nchw(op, p.block, x, y);
  const std::int64_t b = p.block, n = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3];
  if (c % (b * b) != 0)
    fail(Errc::bad_op_inputs, op, "input " + bracketed(x.dims) + " has C not a multiple of blocksize^2 " +
                                      std::to_string(b * b));
  const std::int64_t oc = c / (b * b), oh = h * b, ow = w * b;
  check_dims(op, "output", y, std::vector<std::int64_t>{n, oc, oh, ow});
  if (y.elements() == 0) return;
  gather_by(x, y, [&](std::int64_t t) {
    const std::int64_t j = t % ow, i = (t / ow) % oh, k = (t / (ow * oh)) % oc, m = t / (ow * oh * oc);
    const std::int64_t bi = i % b, bj = j % b;
    const std::int64_t ch = p.crd ? (k * b + bi) * b + bj : (bi * b + bj) * oc + k;
    return ((m * c + ch) * h + i / b) * w + j / b;
  });
}

void space_to_depth(std::int64_t block, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "SpaceToDepth";
  check_nchw(op, block, x, y);
  const std::int64_t b = block, n = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3];
  if (h % b != 0 || w % b != 0)
    fail(Errc::bad_op_inputs, op, "input " + bracketed(x.dims) + " has H or W not a multiple of blocksize " +
                                      std::to_string(b));
  const std::int64_t oc = c * b * b, oh = h / b, ow = w / b;
  check_dims(op, "output", y, std::vector<std::int64_t>{n, oc, oh, ow});
  if (y.elements() == 0) return;
  gather_by(x, y, [&](std::int64_t t) {
    const std::int64_t j = t % ow, i = (t / ow) % oh, k = (t / (ow * oh)) % oc, m = t / (ow * oh * oc);
    const std::int64_t ch = k % c, blk = k / c, bi = blk / b, bj = blk % b;
    return ((m * c + ch) * h + i * b + bi) * w + j * b + bj;
  });
}

}  // namespace ge::cpu
