// The reference's shape ops (Reshape ... ConstantOfShape, Trilu, Pad) and TopK.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

Dims axes_input(const Ctx& c, std::size_t k, std::int64_t rank) {
  Dims axes;
  for (std::int64_t a : c.in(k).to_int64s()) {
    const std::int64_t n = c.axis(a, rank, "axes value");
    if (std::find(axes.begin(), axes.end(), n) != axes.end()) c.error("axes name " + std::to_string(n) + " twice");
    axes.push_back(n);
  }
  return axes;
}

namespace {

// ---- shape ops ----

Outs reshape(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const Dims target = c.in(1).to_int64s();
  const bool allow_zero = c.i("allowzero", 0) != 0;
  Dims out(target.size());
  std::int64_t infer_at = -1, known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int64_t v = target[i];
    if (v == -1) {
      if (infer_at >= 0) c.error("shape " + dims_text(target) + " has two -1");
      infer_at = static_cast<std::int64_t>(i);
      continue;
    }
    if (v == 0 && !allow_zero) {
      if (i >= x.dims.size())
        c.error("shape " + dims_text(target) + " copies dim " + std::to_string(i) + " of " + x.describe());
      out[i] = x.dims[i];
    } else if (v < 0) {
      c.error("shape " + dims_text(target) + " has " + std::to_string(v));
    } else {
      out[i] = v;
    }
    known *= out[i];
  }
  if (infer_at >= 0) {
    if (known == 0 || x.elements() % known != 0) c.error("cannot reshape " + x.describe() + " to " + dims_text(target));
    out[static_cast<std::size_t>(infer_at)] = x.elements() / known;
  }
  if (product(out) != x.elements()) c.error("cannot reshape " + x.describe() + " to " + dims_text(target));
  return {with_dims(x, out)};
}

Outs flatten(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 1), r, "axis", true));
  return {with_dims(x, {product(x.dims, 0, axis), product(x.dims, axis)})};
}

Outs transpose(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const std::size_t r = x.dims.size();
  Dims perm = c.ints("perm");
  if (!c.has("perm"))
    for (std::size_t i = r; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  Dims sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted.size() != r || sorted[i] != static_cast<std::int64_t>(i))
      c.error("perm " + dims_text(perm) + " for " + x.describe());
  const Dims in_strides = strides_of(x.dims);
  Dims out(r), st(r);
  for (std::size_t i = 0; i < r; ++i) {
    out[i] = x.dims[static_cast<std::size_t>(perm[i])];
    st[i] = in_strides[static_cast<std::size_t>(perm[i])];
  }
  return {gather_elements(x, out, strided_index(out, st))};
}

Outs squeeze(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const Dims axes = c.has_input(1) ? axes_input(c, 1, r) : Dims{};
  Dims out;
  for (std::int64_t i = 0; i < r; ++i) {
    const std::int64_t d = x.dims[static_cast<std::size_t>(i)];
    const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (listed && d != 1) c.error("cannot squeeze dim " + std::to_string(i) + " of " + x.describe());
    if (listed || (axes.empty() && d == 1)) continue;
    out.push_back(d);
  }
  return {with_dims(x, out)};
}

Outs unsqueeze(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size() + static_cast<std::size_t>(c.in(1).elements()));
  const Dims axes = axes_input(c, 1, r);
  Dims out;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < r; ++i)
    out.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? 1 : x.dims[next++]);
  return {with_dims(x, out)};
}

Outs concat(const Ctx& c) {
  const RefTensor& first = c.in(0);
  const auto r = static_cast<std::int64_t>(first.dims.size());
  if (r == 0) c.error("scalar inputs; expected rank >= 1");
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  Dims out = first.dims;
  out[axis] = 0;
  for (std::size_t k = 0; k < c.input_count(); ++k) {
    const RefTensor& t = c.in(k);
    bool ok = t.dtype == first.dtype && t.dims.size() == first.dims.size();
    for (std::size_t d = 0; ok && d < t.dims.size(); ++d) ok = d == axis || t.dims[d] == first.dims[d];
    if (!ok) c.error("input " + std::to_string(k) + " " + t.describe() + " does not fit input 0 " + first.describe());
    out[axis] += t.dims[axis];
  }
  RefTensor y(first.dtype, out);
  const std::int64_t outer = product(out, 0, axis), es = size_of(first.dtype);
  std::byte* dst = y.bytes.data();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < c.input_count(); ++k) {
      const RefTensor& t = c.in(k);
      const std::int64_t block = product(t.dims, axis) * es;
      std::memcpy(dst, t.bytes.data() + o * block, static_cast<std::size_t>(block));
      dst += block;
    }
  return {y};
}

Outs split(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  const std::int64_t d = x.dims[axis];
  Dims sizes;
  if (c.has_input(1)) {
    sizes = c.in(1).to_int64s();
  } else {
    const auto n = static_cast<std::int64_t>(c.has("num_outputs") ? static_cast<std::size_t>(c.i("num_outputs", 1))
                                                                  : c.node.outputs.size());
    if (n < 1) c.error("no outputs to split into");
    const std::int64_t chunk = ceil_div(d, n);
    for (std::int64_t k = 0, left = d; k < n; ++k, left -= sizes.back()) sizes.push_back(std::min(chunk, left));
  }
  std::int64_t sum = 0;
  for (std::int64_t s : sizes) sum += s;
  if (sum != d) c.error("split sizes " + dims_text(sizes) + " for dim " + std::to_string(axis) + " of " + x.describe());
  Outs outs;
  const Dims x_strides = strides_of(x.dims);
  std::int64_t start = 0;
  for (std::int64_t s : sizes) {
    Dims od = x.dims;
    od[axis] = s;
    outs.push_back(gather_elements(x, od, strided_index(od, x_strides, start * x_strides[axis])));
    start += s;
  }
  return outs;
}

Outs slice(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const std::size_t r = x.dims.size();
  const Dims starts = c.in(1).to_int64s(), ends = c.in(2).to_int64s();
  Dims axes, steps;
  if (c.has_input(3))
    axes = axes_input(c, 3, static_cast<std::int64_t>(r));
  else
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  steps = c.has_input(4) ? c.in(4).to_int64s() : Dims(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.error("starts, ends, axes and steps differ in length");
  const Dims in_strides = strides_of(x.dims);
  Dims out = x.dims, st = in_strides;
  std::int64_t base = 0;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    const std::int64_t d = x.dims[a], step = steps[k];
    if (step == 0) c.error("a step of 0");
    std::int64_t s = starts[k] < 0 ? starts[k] + d : starts[k];
    std::int64_t e = ends[k] < 0 ? ends[k] + d : ends[k];
    std::int64_t len = 0;
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, d);
      e = std::clamp<std::int64_t>(e, 0, d);
      len = e > s ? ceil_div(e - s, step) : 0;
    } else {
      s = std::clamp<std::int64_t>(s, 0, d - 1);
      e = std::clamp<std::int64_t>(e, -1, d - 1);
      len = s > e ? ceil_div(s - e, -step) : 0;
    }
    out[a] = len;
    if (len > 0) base += s * in_strides[a];
    st[a] = in_strides[a] * step;
  }
  return {gather_elements(x, out, strided_index(out, st, base))};
}

Outs gather(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& ind = c.in(1);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  if (r == 0) c.error("input 0 is a scalar");
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  const std::int64_t d = x.dims[axis], outer = product(x.dims, 0, axis), inner = product(x.dims, axis + 1);
  Dims out(x.dims.begin(), x.dims.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), ind.dims.begin(), ind.dims.end());
  out.insert(out.end(), x.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.dims.end());
  const Dims idx = ind.to_int64s();
  Dims index;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k : idx) {
      if (k < -d || k >= d)
        c.error("index " + std::to_string(k) + " is outside dim " + std::to_string(axis) + " of " + x.describe());
      const std::int64_t kk = k < 0 ? k + d : k;
      for (std::int64_t i = 0; i < inner; ++i) index.push_back((o * d + kk) * inner + i);
    }
  return {gather_elements(x, out, index)};
}

Outs expand(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto dims = broadcast_dims(x.dims, c.in(1).to_int64s());
  if (!dims) c.error("input " + x.describe() + " does not broadcast to " + dims_text(c.in(1).to_int64s()));
  return {gather_elements(x, *dims, broadcast_index(*dims, x.dims))};
}

Outs shape(const Ctx& c) {
  const auto r = static_cast<std::int64_t>(c.in(0).dims.size());
  const auto clampi = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
  const std::int64_t b = clampi(c.i("start", 0)), e = c.has("end") ? clampi(c.i("end", r)) : r;
  Dims v;
  for (std::int64_t i = b; i < e; ++i) v.push_back(c.in(0).dims[static_cast<std::size_t>(i)]);
  return {RefTensor::of<std::int64_t>({static_cast<std::int64_t>(v.size())}, v)};
}

Outs constant_of_shape(const Ctx& c) {
  const Dims dims = c.in(0).to_int64s();
  const RefTensor value = c.has("value") ? RefTensor::from(c.node.attrs.find("value")->second.as_tensor())
                                         : RefTensor::of<float>({1}, {0.f});
  if (value.elements() != 1) c.error("attribute 'value' is " + value.describe() + "; expected one element");
  return {gather_elements(value, dims, Dims(static_cast<std::size_t>(product(dims)), 0))};
}

// Trilu: the upper (upper=1) or lower triangle of the last two dims from diagonal k
// (input 1, default 0); the rest zero.
Outs trilu(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 2) c.error("input 0 is " + x.describe() + "; expected rank >= 2");
  const std::int64_t k = c.has_input(1) ? get_i(c.in(1), 0) : 0;
  const bool upper = c.i("upper", 1) != 0;
  const std::int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
  RefTensor y(x.dtype, x.dims);  // zeros
  const auto es = static_cast<std::size_t>(size_of(x.dtype));
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t col = i % cols, row = (i / cols) % rows;
    if (upper ? col - row >= k : col - row <= k)
      std::memcpy(y.bytes.data() + static_cast<std::size_t>(i) * es, x.bytes.data() + static_cast<std::size_t>(i) * es,
                  es);
  }
  return {y};
}

// Pad: mode constant (input 2 or 0), reflect or edge; negative pads crop.
Outs pad(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const Dims pads = c.in(1).to_int64s();
  const std::size_t r = x.dims.size();
  const std::string mode = c.s("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") c.error("mode '" + mode + "' is not implemented");
  if (pads.size() != 2 * r) c.error("pads " + dims_text(pads) + " for " + x.describe());
  Dims out(r);
  for (std::size_t d = 0; d < r; ++d) out[d] = x.dims[d] + pads[d] + pads[d + r];
  RefTensor y(x.dtype, out);
  const double fill = c.has_input(2) ? get_f(c.in(2), 0) : 0.0;
  const Dims in_strides = strides_of(x.dims);
  for (std::int64_t i = 0; i < y.elements(); ++i) {
    std::int64_t rest = i, src = 0;
    bool inside = true;
    for (std::size_t d = r; d-- > 0;) {
      const std::int64_t n = x.dims[d];
      std::int64_t p = rest % out[d] - pads[d];
      rest /= out[d];
      if (p < 0 || p >= n) {
        if (mode == "constant")
          inside = false;
        else if (mode == "edge")
          p = std::clamp<std::int64_t>(p, 0, n - 1);
        else if (n == 1)
          p = 0;
        else
          while (p < 0 || p >= n) p = p < 0 ? -p : 2 * (n - 1) - p;
      }
      src += p * in_strides[d];
    }
    if (inside)
      std::memcpy(y.bytes.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(size_of(x.dtype)),
                  x.bytes.data() + static_cast<std::size_t>(src) * static_cast<std::size_t>(size_of(x.dtype)),
                  static_cast<std::size_t>(size_of(x.dtype)));
    else
      set_f(y, i, fill);
  }
  return {y};
}

// TopK (sorted): the k largest (or smallest) along axis, ties by the lower index.
Outs topk(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (c.i("sorted", 1) == 0) c.error("sorted=0 is not implemented");
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r, "axis"));
  const std::int64_t k = get_i(c.in(1), 0), n = x.dims[axis], inner = product(x.dims, axis + 1);
  if (k < 0 || k > n) c.error("k " + std::to_string(k) + " for " + x.describe());
  const bool largest = c.i("largest", 1) != 0;
  Dims out = x.dims;
  out[axis] = k;
  RefTensor values(x.dtype, out), indices(DataType::i64, out);
  for (std::int64_t o = 0; o < product(x.dims, 0, axis); ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      Dims order(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) order[static_cast<std::size_t>(j)] = j;
      const auto at = [&](std::int64_t j) { return get_f(x, (o * n + j) * inner + in); };
      std::stable_sort(order.begin(), order.end(),
                       [&](std::int64_t a, std::int64_t b) { return largest ? at(a) > at(b) : at(a) < at(b); });
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t dst = (o * k + j) * inner + in;
        set_f(values, dst, at(order[static_cast<std::size_t>(j)]));
        set_i(indices, dst, order[static_cast<std::size_t>(j)]);
      }
    }
  return {values, indices};
}

}  // namespace

void add_shape_ops(OpTable& t) {
  t["Trilu"] = {trilu, {"upper"}};
  t["Pad"] = {pad, {"mode"}};
  t["TopK"] = {topk, {"axis", "largest", "sorted"}};
  t["Reshape"] = {reshape, {"allowzero"}};
  t["Flatten"] = {flatten, {"axis"}};
  t["Transpose"] = {transpose, {"perm"}};
  t["Squeeze"] = {squeeze, {}};
  t["Unsqueeze"] = {unsqueeze, {}};
  t["Concat"] = {concat, {"axis"}};
  t["Split"] = {split, {"axis", "num_outputs"}};
  t["Slice"] = {slice, {}};
  t["Gather"] = {gather, {"axis"}};
  t["Expand"] = {expand, {}};
  t["Shape"] = {shape, {"start", "end"}};
  t["ConstantOfShape"] = {constant_of_shape, {"value"}};

}

}  // namespace ge::ref::detail
