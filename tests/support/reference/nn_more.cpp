// The reference's further network ops: ConvTranspose in 1-D to 3-D, LRN,
// MeanVarianceNormalization, the window functions, Det and MaxUnpool.

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

Dims list_attr(const Ctx& c, std::string_view name, std::size_t n, std::int64_t fill) {
  Dims v = c.ints(name);
  if (v.empty()) return Dims(n, fill);
  if (v.size() != n)
    c.error("attribute '" + std::string(name) + "' is " + dims_text(v) + "; expected " + std::to_string(n) + " values");
  return v;
}

// ConvTranspose: input position i and tap t add x * w to output position
// i * stride - pad_begin + t * dilation; the output extents and pads as ONNX defines them
// (from output_shape, auto_pad SAME_* or the pads).
Outs conv_transpose(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const RefTensor& wt = c.in(1);
  if (x.dims.size() < 3 || x.dims.size() > 5 || wt.dims.size() != x.dims.size())
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only 1-D to 3-D are implemented");
  const std::size_t n = x.dims.size() - 2;
  const std::int64_t N = x.dims[0], C = x.dims[1], group = c.i("group", 1);
  if (group < 1 || wt.dims[0] != C || C % group != 0)
    c.error("X " + x.describe() + ", W " + wt.describe() + " and group " + std::to_string(group) + " do not fit");
  const std::int64_t Cg = C / group, Mg = wt.dims[1], M = Mg * group;
  const Dims s = list_attr(c, "strides", n, 1), d = list_attr(c, "dilations", n, 1);
  const Dims op = list_attr(c, "output_padding", n, 0), pads = list_attr(c, "pads", 2 * n, 0);
  const std::string auto_pad = c.s("auto_pad", "NOTSET");
  Dims out_shape = c.ints("output_shape");
  if (out_shape.size() == n + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  Dims in(3, 1), k(3, 1), st(3, 1), dl(3, 1), pb(3, 0), out(3, 1);
  Dims ydims{N, M};
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = 3 - n + i;
    in[j] = x.dims[2 + i];
    k[j] = wt.dims[2 + i];
    st[j] = s[i];
    dl[j] = d[i];
    const std::int64_t full = s[i] * (in[j] - 1) + op[i] + (k[j] - 1) * d[i] + 1;
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out[j] = !out_shape.empty() ? out_shape[i] : in[j] * s[i];
      const std::int64_t total = std::max<std::int64_t>(0, full - out[j]);
      pb[j] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      pb[j] = auto_pad == "VALID" ? 0 : pads[i];
      out[j] = full - pb[j] - (auto_pad == "VALID" ? 0 : pads[i + n]);
    }
    ydims.push_back(out[j]);
  }
  RefTensor y(x.dtype, ydims);
  const std::int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2], taps = k[0] * k[1] * k[2];
  std::vector<double> acc(static_cast<std::size_t>(N * M * out_plane));
  for (std::int64_t b = 0; b < N; ++b)
    for (std::int64_t m = 0; m < M; ++m) {
      double* dst = acc.data() + (b * M + m) * out_plane;
      if (c.has_input(2)) std::fill(dst, dst + out_plane, get_f(c.in(2), m));
      const std::int64_t g = m / Mg;
      for (std::int64_t ci = 0; ci < Cg; ++ci)
        for (std::int64_t i = 0; i < in_plane; ++i) {
          const std::int64_t ii[3] = {i / (in[1] * in[2]), (i / in[2]) % in[1], i % in[2]};
          const double v = get_f(x, (b * C + g * Cg + ci) * in_plane + i);
          for (std::int64_t t = 0; t < taps; ++t) {
            const std::int64_t kk[3] = {t / (k[1] * k[2]), (t / k[2]) % k[1], t % k[2]};
            std::int64_t o = 0;
            bool inside = true;
            for (std::size_t a = 0; a < 3 && inside; ++a) {
              const std::int64_t p = ii[a] * st[a] - pb[a] + kk[a] * dl[a];
              inside = p >= 0 && p < out[a];
              o = o * out[a] + p;
            }
            if (inside) dst[o] += v * get_f(wt, ((g * Cg + ci) * Mg + m % Mg) * taps + t);
          }
        }
    }
  for (std::size_t i = 0; i < acc.size(); ++i) set_f(y, static_cast<std::int64_t>(i), acc[i]);
  return {y};
}

// LRN: x / (bias + alpha / size * sum of squares over channels [c - (size-1)/2, c + size/2])^beta.
Outs lrn(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const std::int64_t size = c.i("size", 0), C = x.dims.at(1), inner = product(x.dims, 2);
  if (size < 1) c.error("size " + std::to_string(size) + " is not >= 1");
  const double alpha = c.f("alpha", 1e-4), beta = c.f("beta", 0.75), bias = c.f("bias", 1.0);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t ch = (i / inner) % C;
    double sum = 0;
    for (std::int64_t k = std::max<std::int64_t>(0, ch - (size - 1) / 2); k <= std::min(C - 1, ch + size / 2); ++k) {
      const double v = get_f(x, i + (k - ch) * inner);
      sum += v * v;
    }
    set_f(y, i, get_f(x, i) / std::pow(bias + alpha / static_cast<double>(size) * sum, beta));
  }
  return {y};
}

// MeanVarianceNormalization: (x - mean) / (sqrt(E[(x - mean)^2]) + 1e-9) over axes.
Outs mvn(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  std::vector<bool> reduced(x.dims.size(), false);
  for (const std::int64_t a : c.ints("axes", {0, 2, 3})) reduced[static_cast<std::size_t>(c.axis(a, r, "axes"))] = true;
  // The key of element i: its coordinates over the kept dims.
  const Dims st = strides_of(x.dims);
  const auto key = [&](std::int64_t i) {
    Dims k;
    for (std::size_t d = 0; d < x.dims.size(); ++d)
      if (!reduced[d]) k.push_back((i / st[d]) % x.dims[d]);
    return k;
  };
  std::map<Dims, std::pair<double, double>> stats;  // sum, count
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    auto& s = stats[key(i)];
    s.first += get_f(x, i);
    s.second += 1;
  }
  std::map<Dims, double> var;
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const Dims k = key(i);
    const double d = get_f(x, i) - stats[k].first / stats[k].second;
    var[k] += d * d;
  }
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const Dims k = key(i);
    const double n = stats[k].second, m = stats[k].first / n;
    set_f(y, i, (get_f(x, i) - m) / (std::sqrt(var[k] / n) + 1e-9));
  }
  return {y};
}

// The window functions: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
Outs window_fn(const Ctx& c, double a0, double a1, double a2) {
  const std::int64_t len = get_i(c.in(0), 0);
  if (len < 0) c.error("size " + std::to_string(len) + " is negative");
  const std::int64_t type = c.i("output_datatype", 1);
  if (type != 1 && type != 11) c.error("output_datatype " + std::to_string(type) + " is not implemented");
  const double big_n = static_cast<double>(c.i("periodic", 1) != 0 ? len : len - 1);
  RefTensor y(type == 11 ? DataType::f64 : DataType::f32, {len});
  for (std::int64_t i = 0; i < len; ++i) {
    const double t = big_n > 0 ? 2 * M_PI * static_cast<double>(i) / big_n : 0.0;
    set_f(y, i, a0 - a1 * std::cos(t) + a2 * std::cos(2 * t));
  }
  return {y};
}

// Det: by the Laplace expansion along the first row (small matrices only).
double det_of(std::vector<double> a, std::int64_t m) {
  if (m == 1) return a[0];
  double d = 0;
  for (std::int64_t j = 0; j < m; ++j) {
    std::vector<double> minor;
    for (std::int64_t r = 1; r < m; ++r)
      for (std::int64_t k = 0; k < m; ++k)
        if (k != j) minor.push_back(a[static_cast<std::size_t>(r * m + k)]);
    d += (j % 2 == 0 ? 1 : -1) * a[static_cast<std::size_t>(j)] * det_of(minor, m - 1);
  }
  return d;
}

Outs det(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const std::size_t r = x.dims.size();
  if (r < 2 || x.dims[r - 1] != x.dims[r - 2] || x.dims[r - 1] > 6) c.error(x.describe() + " is not small square matrices");
  const std::int64_t m = x.dims[r - 1];
  RefTensor y(x.dtype, Dims(x.dims.begin(), x.dims.end() - 2));
  for (std::int64_t b = 0; b < y.elements(); ++b) {
    std::vector<double> a;
    for (std::int64_t i = 0; i < m * m; ++i) a.push_back(get_f(x, b * m * m + i));
    set_f(y, b, det_of(a, m));
  }
  return {y};
}

// MaxUnpool: zeros with x's values at the flat positions of I in the unpooled dims
// ((in - 1) * stride + kernel - pads), then padded at the end (or cut) to output_shape.
Outs max_unpool(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const RefTensor& idx = c.in(1);
  const Dims k = c.ints("kernel_shape");
  const std::size_t n = k.size();
  const Dims s = list_attr(c, "strides", n, 1), pads = list_attr(c, "pads", 2 * n, 0);
  Dims pooled{x.dims[0], x.dims[1]};
  for (std::size_t i = 0; i < n; ++i) pooled.push_back((x.dims[2 + i] - 1) * s[i] + k[i] - pads[i] - pads[i + n]);
  Dims out = pooled;
  if (c.has_input(2)) {
    out.clear();
    for (std::int64_t i = 0; i < c.in(2).elements(); ++i) out.push_back(get_i(c.in(2), i));
  }
  if (out.size() != pooled.size()) c.error("output_shape " + dims_text(out) + " has the wrong rank");
  RefTensor y(x.dtype, out);
  const Dims pst = strides_of(pooled), yst = strides_of(out);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t at = get_i(idx, i);
    if (at < 0 || at >= product(pooled)) c.error("index " + std::to_string(at) + " is outside the output");
    std::int64_t o = 0;
    bool inside = true;
    for (std::size_t d = 0; d < pooled.size(); ++d) {
      const std::int64_t coord = (at / pst[d]) % pooled[d];
      inside = inside && coord < out[d];
      o += coord * yst[d];
    }
    if (inside) set_f(y, o, get_f(x, i));
  }
  return {y};
}

}  // namespace

void add_nn_more_ops(OpTable& t) {
  t["ConvTranspose"] = {conv_transpose,
                        {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads",
                         "strides"}};
  t["LRN"] = {lrn, {"alpha", "beta", "bias", "size"}};
  t["MeanVarianceNormalization"] = {mvn, {"axes"}};
  t["BlackmanWindow"] = {[](const Ctx& c) { return window_fn(c, 0.42, 0.5, 0.08); }, {"output_datatype", "periodic"}};
  t["HammingWindow"] = {[](const Ctx& c) { return window_fn(c, 25.0 / 46, 21.0 / 46, 0); }, {"output_datatype", "periodic"}};
  t["HannWindow"] = {[](const Ctx& c) { return window_fn(c, 0.5, 0.5, 0); }, {"output_datatype", "periodic"}};
  t["Det"] = {det, {}};
  t["MaxUnpool"] = {max_unpool, {"kernel_shape", "pads", "strides"}};
}

}  // namespace ge::ref::detail
