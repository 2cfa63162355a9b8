// The reference's element-wise indexing (GatherElements, ScatterElements) and Size: each
// index's data coordinates computed from its own, in the plainest way.

#include <algorithm>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// The flat data position that index element t (of indices' dims) names along axis.
std::int64_t position(const Ctx& c, const Dims& data, const RefTensor& indices, std::size_t axis, std::int64_t t) {
  const Dims ds = strides_of(data), is = strides_of(indices.dims);
  std::int64_t v = get_i(indices, t);
  const std::int64_t n = data[axis];
  if (v < -n || v >= n) c.error("index " + std::to_string(v) + " is outside axis " + std::to_string(axis));
  if (v < 0) v += n;
  std::int64_t off = 0;
  for (std::size_t d = 0; d < data.size(); ++d) off += (d == axis ? v : (t / is[d]) % indices.dims[d]) * ds[d];
  return off;
}

Outs gather_elements_op(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& idx = c.in(1);
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), static_cast<std::int64_t>(x.dims.size()), "axis"));
  Dims at;
  for (std::int64_t t = 0; t < idx.elements(); ++t) at.push_back(position(c, x.dims, idx, axis, t));
  return {gather_elements(x, idx.dims, at)};
}

Outs scatter_elements_op(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& idx = c.in(1);
  const RefTensor& upd = c.in(2);
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), static_cast<std::int64_t>(x.dims.size()), "axis"));
  const std::string red = c.s("reduction", "none");
  RefTensor y = x;
  for (std::int64_t t = 0; t < idx.elements(); ++t) {
    const std::int64_t p = position(c, x.dims, idx, axis, t);
    const double a = get_f(y, p), b = get_f(upd, t);
    double v = b;
    if (red == "add") v = a + b;
    else if (red == "mul") v = a * b;
    else if (red == "max") v = std::max(a, b);
    else if (red == "min") v = std::min(a, b);
    else if (red != "none") c.error("reduction '" + red + "'");
    set_f(y, p, v);
  }
  return {y};
}

}  // namespace

void add_indexing_ops(OpTable& t) {
  t["GatherElements"] = {gather_elements_op, {"axis"}};
  t["ScatterElements"] = {scatter_elements_op, {"axis", "reduction"}};
  t["Size"] = {[](const Ctx& c) { return Outs{RefTensor::of<std::int64_t>({}, {c.in(0).elements()})}; }, {}};
}

}  // namespace ge::ref::detail
