// The reference's Hardmax, EyeLike, OneHot, Dropout (inference) and CastLike, each from
// its definition in the plainest way.

#include <cmath>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

Outs hardmax(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r, "axis"));
  const std::int64_t len = x.dims[axis], inner = product(x.dims, axis + 1);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t t = 0; t < x.elements(); ++t) {
    const std::int64_t a = (t / inner) % len, base = t - a * inner;
    bool first_max = true;
    for (std::int64_t b = 0; b < len; ++b) {
      const double vb = get_f(x, base + b * inner), va = get_f(x, t);
      if (vb > va || (vb == va && b < a)) first_max = false;
    }
    set_f(y, t, first_max ? 1 : 0);
  }
  return {y};
}

Outs eye_like(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() != 2) c.error("input is " + x.describe() + "; expected 2-D");
  const DataType t = c.has("dtype") ? parse_data_type(c.s("dtype", "")) : x.dtype;
  RefTensor y(t, x.dims);
  const std::int64_t k = c.i("k", 0);
  for (std::int64_t i = 0; i < y.elements(); ++i) set_i(y, i, i % x.dims[1] - i / x.dims[1] == k ? 1 : 0);
  return {y};
}

Outs one_hot(const Ctx& c) {
  const RefTensor& idx = c.in(0);
  const RefTensor& values = c.in(2);
  const auto depth = static_cast<std::int64_t>(get_f(c.in(1), 0));
  if (depth < 1) c.error("depth " + std::to_string(depth));
  const auto r = static_cast<std::int64_t>(idx.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r + 1, "axis"));
  Dims out = idx.dims;
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  const std::int64_t inner = product(idx.dims, axis);
  Dims at;
  for (std::int64_t t = 0; t < product(out); ++t) {
    const std::int64_t pos = (t / inner) % depth, i = (t / inner / depth) * inner + t % inner;
    auto v = static_cast<std::int64_t>(std::trunc(get_f(idx, i)));
    if (v < 0) v += depth;
    at.push_back(v == pos ? 1 : 0);
  }
  return {gather_elements(values, out, at)};
}

Outs dropout(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (c.has_input(2) && get_i(c.in(2), 0) != 0 && (!c.has_input(1) || get_f(c.in(1), 0) != 0))
    c.error("training_mode with a ratio above 0 is random");
  RefTensor mask(DataType::boolean, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) set_i(mask, i, 1);
  return {x, mask};
}

Outs cast_like(const Ctx& c) {
  const RefTensor& x = c.in(0);
  RefTensor y(c.in(1).dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    if (is_floating(x.dtype)) set_f(y, i, get_f(x, i));
    else set_i(y, i, get_i(x, i));
  }
  return {y};
}

}  // namespace

void add_one_hot_ops(OpTable& t) {
  t["Hardmax"] = {hardmax, {"axis"}};
  t["EyeLike"] = {eye_like, {"dtype", "k"}};
  t["OneHot"] = {one_hot, {"axis"}};
  t["Dropout"] = {dropout, {"seed", "ratio"}};
  t["CastLike"] = {cast_like, {}};
}

}  // namespace ge::ref::detail
