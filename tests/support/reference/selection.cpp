// The reference's GatherND, ScatterND, Compress, ReverseSequence and Unique, each
// element's source found from its own coordinates in the plainest way.

#include <algorithm>
#include <map>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// The flat offset in data of index tuple n (k values) under batch entry `batch`.
std::int64_t tuple_offset(const Ctx& c, const Dims& data, const RefTensor& idx, std::size_t b, std::int64_t n,
                          std::int64_t batch) {
  const auto k = static_cast<std::size_t>(idx.dims.back());
  std::int64_t off = batch;
  for (std::size_t j = 0; j < k; ++j) {
    const std::int64_t dim = data[b + j];
    std::int64_t v = get_i(idx, n * static_cast<std::int64_t>(k) + static_cast<std::int64_t>(j));
    if (v < -dim || v >= dim) c.error("index " + std::to_string(v) + " is outside dim " + std::to_string(b + j));
    off = off * dim + (v < 0 ? v + dim : v);
  }
  return off * product(data, b + k);
}

Outs gather_nd(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& idx = c.in(1);
  const auto b = static_cast<std::size_t>(c.i("batch_dims", 0));
  const auto k = static_cast<std::size_t>(idx.dims.back());
  Dims out(idx.dims.begin(), idx.dims.end() - 1);
  out.insert(out.end(), x.dims.begin() + static_cast<std::ptrdiff_t>(b + k), x.dims.end());
  const std::int64_t slice = product(x.dims, b + k), tuples = idx.elements() / static_cast<std::int64_t>(k);
  const std::int64_t per_batch = tuples / std::max<std::int64_t>(1, product(idx.dims, 0, b));
  Dims at;
  for (std::int64_t t = 0; t < product(out); ++t) {
    const std::int64_t n = t / slice;
    at.push_back(tuple_offset(c, x.dims, idx, b, n, n / per_batch) + t % slice);
  }
  return {gather_elements(x, out, at)};
}

Outs scatter_nd(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& idx = c.in(1);
  const RefTensor& upd = c.in(2);
  const std::string red = c.s("reduction", "none");
  const auto k = static_cast<std::size_t>(idx.dims.back());
  const std::int64_t slice = product(x.dims, k);
  RefTensor y = x;
  for (std::int64_t t = 0; t < upd.elements(); ++t) {
    const std::int64_t p = tuple_offset(c, x.dims, idx, 0, t / slice, 0) + t % slice;
    const double a = get_f(y, p), v = get_f(upd, t);
    double r = v;
    if (red == "add") r = a + v;
    else if (red == "mul") r = a * v;
    else if (red == "max") r = std::max(a, v);
    else if (red == "min") r = std::min(a, v);
    else if (red != "none") c.error("reduction '" + red + "'");
    set_f(y, p, r);
  }
  return {y};
}

// x as [outer, len, inner] around the `axis` attribute (none: the flattened elements).
struct Split {
  std::int64_t outer = 1, len = 1, inner = 1;
  std::optional<std::size_t> axis;
};

Split split(const Ctx& c, const RefTensor& x) {
  if (!c.has("axis")) return {1, x.elements(), 1, std::nullopt};
  const auto a = static_cast<std::size_t>(c.axis(c.i("axis", 0), static_cast<std::int64_t>(x.dims.size()), "axis"));
  return {product(x.dims, 0, a), x.dims[a], product(x.dims, a + 1), a};
}

// The slices `keep` of x (split as s), in that order.
RefTensor slices(const RefTensor& x, const Split& s, const Dims& keep) {
  Dims out{static_cast<std::int64_t>(keep.size())};
  if (s.axis) {
    out = x.dims;
    out[*s.axis] = static_cast<std::int64_t>(keep.size());
  }
  Dims at;
  const auto n = static_cast<std::int64_t>(keep.size());
  for (std::int64_t t = 0; t < product(out); ++t) {
    const std::int64_t o = t / (n * s.inner), k = (t / s.inner) % n, j = t % s.inner;
    at.push_back((o * s.len + keep[static_cast<std::size_t>(k)]) * s.inner + j);
  }
  return gather_elements(x, out, at);
}

Outs compress(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& cond = c.in(1);
  const Split s = split(c, x);
  if (cond.elements() > s.len) c.error("condition is longer than the axis");
  Dims keep;
  for (std::int64_t i = 0; i < cond.elements(); ++i)
    if (get_i(cond, i) != 0) keep.push_back(i);
  return {slices(x, s, keep)};
}

Outs reverse_sequence(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& lens = c.in(1);
  const std::int64_t ta = c.i("time_axis", 0), ba = c.i("batch_axis", 1);
  if (ta == ba) c.error("time_axis equals batch_axis");
  const Dims st = strides_of(x.dims);
  Dims at;
  for (std::int64_t t = 0; t < x.elements(); ++t) {
    const std::int64_t step = (t / st[static_cast<std::size_t>(ta)]) % x.dims[static_cast<std::size_t>(ta)];
    const std::int64_t b = (t / st[static_cast<std::size_t>(ba)]) % x.dims[static_cast<std::size_t>(ba)];
    const std::int64_t len = get_i(lens, b);
    at.push_back(step < len ? t + (len - 1 - 2 * step) * st[static_cast<std::size_t>(ta)] : t);
  }
  return {gather_elements(x, x.dims, at)};
}

Outs unique(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const Split s = split(c, x);
  // Each slice's values, as a key; distinct keys in order of first occurrence.
  std::map<std::vector<double>, std::int64_t> first;
  std::vector<std::vector<double>> keys;
  for (std::int64_t i = 0; i < s.len; ++i) {
    std::vector<double> key;
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t j = 0; j < s.inner; ++j) key.push_back(get_f(x, (o * s.len + i) * s.inner + j));
    first.try_emplace(key, i);
    keys.push_back(key);
  }
  Dims order;  // the first index of each distinct slice, in output order
  for (const auto& [key, i] : first) order.push_back(i);
  if (c.i("sorted", 1) == 0) std::sort(order.begin(), order.end());
  std::map<std::vector<double>, std::int64_t> position;
  for (std::size_t k = 0; k < order.size(); ++k) position[keys[static_cast<std::size_t>(order[k])]] = static_cast<std::int64_t>(k);
  Dims inverse, counts(order.size(), 0);
  for (const auto& key : keys) {
    inverse.push_back(position[key]);
    ++counts[static_cast<std::size_t>(position[key])];
  }
  const auto vec = [](const Dims& v) { return RefTensor::of<std::int64_t>({static_cast<std::int64_t>(v.size())}, v); };
  return {slices(x, s, order), vec(order), vec(inverse), vec(counts)};
}

}  // namespace

void add_selection_ops(OpTable& t) {
  t["GatherND"] = {gather_nd, {"batch_dims"}};
  t["ScatterND"] = {scatter_nd, {"reduction"}};
  t["Compress"] = {compress, {"axis"}};
  t["ReverseSequence"] = {reverse_sequence, {"time_axis", "batch_axis"}};
  t["Unique"] = {unique, {"sorted", "axis"}};
}

}  // namespace ge::ref::detail
