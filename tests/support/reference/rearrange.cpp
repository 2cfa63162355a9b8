// The reference's Tile, DepthToSpace and SpaceToDepth; the last two as the reshape,
// transpose, reshape that defines them.

#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

Outs tile(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const Dims reps = c.in(1).to_int64s();
  if (reps.size() != x.dims.size()) c.error("repeats " + dims_text(reps) + " do not match input " + x.describe());
  Dims out;
  for (std::size_t d = 0; d < reps.size(); ++d) out.push_back(x.dims[d] * reps[d]);
  const Dims st = strides_of(x.dims);
  Dims at;
  for (std::int64_t t = 0; t < product(out); ++t) {
    std::int64_t rem = t, off = 0;
    for (std::size_t d = out.size(); d-- > 0;) {
      off += (rem % out[d]) % x.dims[d] * st[d];
      rem /= out[d];
    }
    at.push_back(off);
  }
  return {gather_elements(x, out, at)};
}

// x viewed with dims `view`, transposed by `perm`, given dims `out`.
RefTensor view_transpose(const RefTensor& x, const Dims& view, const Dims& perm, const Dims& out) {
  const Dims st = strides_of(view);
  Dims pd, ps;
  for (std::int64_t p : perm) {
    pd.push_back(view[static_cast<std::size_t>(p)]);
    ps.push_back(st[static_cast<std::size_t>(p)]);
  }
  return with_dims(gather_elements(x, pd, strided_index(pd, ps)), out);
}

Outs depth_to_space(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() != 4) c.error("input is " + x.describe() + "; expected rank 4");
  const std::int64_t b = c.i("blocksize", 0), n = x.dims[0], ch = x.dims[1], h = x.dims[2], w = x.dims[3];
  if (b < 1 || ch % (b * b) != 0) c.error("blocksize " + std::to_string(b) + " does not divide the channels");
  const std::int64_t oc = ch / (b * b);
  const Dims out{n, oc, h * b, w * b};
  if (c.s("mode", "DCR") == "CRD") return {view_transpose(x, {n, oc, b, b, h, w}, {0, 1, 4, 2, 5, 3}, out)};
  return {view_transpose(x, {n, b, b, oc, h, w}, {0, 3, 4, 1, 5, 2}, out)};
}

Outs space_to_depth(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() != 4) c.error("input is " + x.describe() + "; expected rank 4");
  const std::int64_t b = c.i("blocksize", 0), n = x.dims[0], ch = x.dims[1], h = x.dims[2], w = x.dims[3];
  if (b < 1 || h % b != 0 || w % b != 0) c.error("blocksize " + std::to_string(b) + " does not divide H and W");
  return {view_transpose(x, {n, ch, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4}, {n, ch * b * b, h / b, w / b})};
}

}  // namespace

void add_rearrange_ops(OpTable& t) {
  t["Tile"] = {tile, {}};
  t["DepthToSpace"] = {depth_to_space, {"blocksize", "mode"}};
  t["SpaceToDepth"] = {space_to_depth, {"blocksize"}};
}

}  // namespace ge::ref::detail
