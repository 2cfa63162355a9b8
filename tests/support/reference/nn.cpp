// The reference's network ops: Conv and pooling, the normalizations, Gemm and MatMul.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// ---- windows: Conv and pooling ----

// A 2-D window geometry (a 1-D one is 2-D with H = 1): input, kernel, stride, dilation,
// begin and end pads, output extent, per spatial dim.
struct Window {
  std::int64_t in[2], k[2], s[2], d[2], pb[2], pe[2], out[2];
};

Dims per_dim(const Ctx& c, std::string_view name, std::size_t n, std::int64_t fill) {
  Dims v = c.ints(name);
  if (v.empty()) return Dims(n, fill);
  if (v.size() != n)
    c.error("attribute '" + std::string(name) + "' is " + dims_text(v) + "; expected " + std::to_string(n) + " values");
  return v;
}

// Reads strides, dilations, pads, auto_pad (and ceil_mode) for the spatial extents
// `in` and kernel extents `kernel`, and computes the pads and the output extents.
Window make_window(const Ctx& c, const Dims& in, const Dims& kernel, bool has_ceil_mode) {
  const std::size_t n = in.size();
  if (n != 1 && n != 2) c.error(std::to_string(n) + " spatial dims; only 1-D and 2-D windows are implemented");
  const Dims strides = per_dim(c, "strides", n, 1), dil = per_dim(c, "dilations", n, 1);
  Dims pads = c.ints("pads");
  if (pads.empty()) pads.assign(2 * n, 0);
  if (pads.size() != 2 * n)
    c.error("attribute 'pads' is " + dims_text(pads) + "; expected " + std::to_string(2 * n) + " values");
  const std::string auto_pad = c.s("auto_pad", "NOTSET");
  const bool ceil_mode = has_ceil_mode && c.i("ceil_mode", 0) != 0;
  Window w{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1}};
  const std::size_t off = 2 - n;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = i + off;
    w.in[j] = in[i];
    w.k[j] = kernel[i];
    w.s[j] = strides[i];
    w.d[j] = dil[i];
    if (w.k[j] < 1 || w.s[j] < 1 || w.d[j] < 1) c.error("kernel, strides and dilations must be >= 1");
    const std::int64_t span = w.d[j] * (w.k[j] - 1) + 1;
    if (auto_pad == "NOTSET" || auto_pad == "VALID") {
      w.pb[j] = auto_pad == "VALID" ? 0 : pads[i];
      w.pe[j] = auto_pad == "VALID" ? 0 : pads[i + n];
      const std::int64_t room = w.in[j] + w.pb[j] + w.pe[j] - span;
      if (room < 0)
        c.error("spatial dim " + std::to_string(i) + " (" + std::to_string(w.in[j]) + ") is too small for the window");
      if (!ceil_mode) {
        w.out[j] = room / w.s[j] + 1;
      } else {
        w.out[j] = ceil_div(room, w.s[j]) + 1;
        // The last window must start inside the input or the begin pad.
        if ((w.out[j] - 1) * w.s[j] >= w.in[j] + w.pb[j]) --w.out[j];
      }
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[j] = ceil_div(w.in[j], w.s[j]);
      const std::int64_t total = std::max<std::int64_t>(0, (w.out[j] - 1) * w.s[j] + span - w.in[j]);
      const std::int64_t half = total / 2;
      w.pb[j] = auto_pad == "SAME_UPPER" ? half : total - half;
      w.pe[j] = total - w.pb[j];
    } else {
      c.error("auto_pad '" + auto_pad + "' is not implemented");
    }
  }
  return w;
}

// The output positions o in [0, out) whose tap o * s - pb + t stays in [0, in), as [lo, hi).
std::pair<std::int64_t, std::int64_t> valid_outputs(std::int64_t in, std::int64_t out, std::int64_t s, std::int64_t pb,
                                                    std::int64_t t) {
  // o * s >= pb - t  and  o * s <= in - 1 + pb - t
  const std::int64_t lo = std::max<std::int64_t>(0, ceil_div(pb - t, s));
  const std::int64_t hi = std::min<std::int64_t>(out, floor_div(in - 1 + pb - t, s) + 1);
  return {lo, std::max(lo, hi)};
}

// The dims of a window op's output: [N, C, out...] with the spatial rank of the input.
Dims window_out_dims(std::int64_t n, std::int64_t ch, const Window& w, std::size_t spatial) {
  Dims d{n, ch};
  for (std::size_t j = 2 - spatial; j < 2; ++j) d.push_back(w.out[j]);
  return d;
}

Outs conv(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& wt = c.in(1);
  if (x.dtype != DataType::f32 || wt.dtype != DataType::f32)
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only f32 is implemented");
  if ((x.dims.size() != 3 && x.dims.size() != 4) || wt.dims.size() != x.dims.size())
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only 1-D and 2-D convolutions are implemented");
  const std::size_t sp = x.dims.size() - 2;
  const std::int64_t N = x.dims[0], C = x.dims[1], M = wt.dims[0], Cg = wt.dims[1];
  const std::int64_t group = c.i("group", 1);
  if (group < 1 || Cg * group != C || M % group != 0)
    c.error("X " + x.describe() + ", W " + wt.describe() + " and group " + std::to_string(group) + " do not fit");
  const Dims kernel(wt.dims.begin() + 2, wt.dims.end());
  if (c.has("kernel_shape") && c.ints("kernel_shape") != kernel)
    c.error("attribute 'kernel_shape' " + dims_text(c.ints("kernel_shape")) + " differs from W " + wt.describe());
  const Window w = make_window(c, Dims(x.dims.begin() + 2, x.dims.end()), kernel, false);
  std::span<const float> bias;
  if (c.has_input(2)) {
    const RefTensor& b = c.in(2);
    if (b.dims != Dims{M}) c.error("input 2 (B) is " + b.describe() + "; expected f32[" + std::to_string(M) + "]");
    bias = b.as<float>();
  }
  RefTensor y(DataType::f32, window_out_dims(N, M, w, sp));
  const auto xs = x.as<float>();
  const auto ws = wt.as<float>();
  auto ys = y.as<float>();
  const std::int64_t H = w.in[0], W = w.in[1], KH = w.k[0], KW = w.k[1], OH = w.out[0], OW = w.out[1];
  const std::int64_t Mg = M / group;
  std::vector<double> acc(static_cast<std::size_t>(OH * OW));
  // The output rows (columns) that kernel row kh (column kw) reaches inside the input.
  std::vector<std::pair<std::int64_t, std::int64_t>> rows, cols;
  for (std::int64_t kh = 0; kh < KH; ++kh) rows.push_back(valid_outputs(H, OH, w.s[0], w.pb[0], kh * w.d[0]));
  for (std::int64_t kw = 0; kw < KW; ++kw) cols.push_back(valid_outputs(W, OW, w.s[1], w.pb[1], kw * w.d[1]));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      const std::int64_t g = m / Mg;
      std::fill(acc.begin(), acc.end(), bias.empty() ? 0.0 : static_cast<double>(bias[static_cast<std::size_t>(m)]));
      for (std::int64_t ci = 0; ci < Cg; ++ci) {
        const float* xin = xs.data() + ((n * C + g * Cg + ci) * H) * W;
        const float* wk = ws.data() + ((m * Cg + ci) * KH) * KW;
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw) {
            const double wv = wk[kh * KW + kw];
            const auto [oh_lo, oh_hi] = rows[static_cast<std::size_t>(kh)];
            const auto [ow_lo, ow_hi] = cols[static_cast<std::size_t>(kw)];
            for (std::int64_t oh = oh_lo; oh < oh_hi; ++oh) {
              // Input element of output (oh, ow): xin[base + ow * stride_w].
              const std::int64_t base = (oh * w.s[0] - w.pb[0] + kh * w.d[0]) * W - w.pb[1] + kw * w.d[1];
              double* out = acc.data() + oh * OW;
              for (std::int64_t ow = ow_lo; ow < ow_hi; ++ow) out[ow] += wv * xin[base + ow * w.s[1]];
            }
          }
      }
      float* dst = ys.data() + (n * M + m) * OH * OW;
      for (std::size_t p = 0; p < acc.size(); ++p) dst[p] = static_cast<float>(acc[p]);
    }
  return {y};
}

Outs pool(const Ctx& c, bool is_max) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() != 3 && x.dims.size() != 4)
    c.error("input 0 is " + x.describe() + "; only 1-D and 2-D pooling is implemented");
  const std::size_t sp = x.dims.size() - 2;
  const Dims kernel = c.ints("kernel_shape");
  if (kernel.size() != sp) c.error("attribute 'kernel_shape' is " + dims_text(kernel) + " for input " + x.describe());
  const Window w = make_window(c, Dims(x.dims.begin() + 2, x.dims.end()), kernel, true);
  const std::int64_t N = x.dims[0], C = x.dims[1], H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1];
  const bool include_pad = !is_max && c.i("count_include_pad", 0) != 0;
  const bool col_major = is_max && c.i("storage_order", 0) != 0;
  RefTensor y(x.dtype, window_out_dims(N, C, w, sp));
  RefTensor idx(DataType::i64, y.dims);
  std::int64_t o = 0;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t ch = 0; ch < C; ++ch)
      for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow, ++o) {
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          std::int64_t best_at = -1, count = 0, padded_count = 0;
          for (std::int64_t kh = 0; kh < w.k[0]; ++kh)
            for (std::int64_t kw = 0; kw < w.k[1]; ++kw) {
              const std::int64_t ih = oh * w.s[0] - w.pb[0] + kh * w.d[0];
              const std::int64_t iw = ow * w.s[1] - w.pb[1] + kw * w.d[1];
              // Positions inside the input or its pads count for count_include_pad.
              if (ih >= -w.pb[0] && ih < H + w.pe[0] && iw >= -w.pb[1] && iw < W + w.pe[1]) ++padded_count;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              const std::int64_t at = ((n * C + ch) * H + ih) * W + iw;
              const double v = get_f(x, at);
              ++count;
              sum += v;
              if (best_at < 0 || v > best) {
                best = v;
                best_at = col_major ? (n * C + ch) * H * W + iw * H + ih : at;
              }
            }
          if (count == 0) c.error("a window covers no input element");
          if (is_max) {
            set_f(y, o, best);
            set_i(idx, o, best_at);
          } else {
            set_f(y, o, sum / static_cast<double>(include_pad ? padded_count : count));
          }
        }
  if (is_max) return {y, idx};
  return {y};
}

Outs global_max_pool(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 3) c.error("input 0 is " + x.describe() + "; expected rank >= 3");
  Dims dims{x.dims[0], x.dims[1]};
  dims.resize(x.dims.size(), 1);
  RefTensor y(x.dtype, dims);
  const std::int64_t inner = product(x.dims, 2);
  for (std::int64_t o = 0; o < x.dims[0] * x.dims[1]; ++o) {
    double m = get_f(x, o * inner);
    for (std::int64_t k = 1; k < inner; ++k) m = std::max(m, get_f(x, o * inner + k));
    set_f(y, o, m);
  }
  return {y};
}

Outs global_avg_pool(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 3) c.error("input 0 is " + x.describe() + "; expected rank >= 3");
  Dims dims{x.dims[0], x.dims[1]};
  dims.resize(x.dims.size(), 1);
  RefTensor y(x.dtype, dims);
  const std::int64_t inner = product(x.dims, 2);
  for (std::int64_t o = 0; o < x.dims[0] * x.dims[1]; ++o) {
    double sum = 0;
    for (std::int64_t k = 0; k < inner; ++k) sum += get_f(x, o * inner + k);
    set_f(y, o, sum / static_cast<double>(inner));
  }
  return {y};
}

// ---- normalization ----

// InstanceNormalization: per (n, c), the mean and (population) variance over the
// spatial dims, then scale[c] * (x - mean) / sqrt(var + epsilon) + B[c].
Outs instance_norm(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 3) c.error("input 0 is " + x.describe() + "; expected rank >= 3");
  const std::int64_t C = x.dims[1], inner = product(x.dims, 2);
  const double eps = c.f("epsilon", 1e-5);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t nc = 0; nc < x.dims[0] * C; ++nc) {
    double mean = 0, var = 0;
    for (std::int64_t k = 0; k < inner; ++k) mean += get_f(x, nc * inner + k);
    mean /= static_cast<double>(inner);
    for (std::int64_t k = 0; k < inner; ++k)
      var += (get_f(x, nc * inner + k) - mean) * (get_f(x, nc * inner + k) - mean);
    var /= static_cast<double>(inner);
    const double a = get_f(c.in(1), nc % C) / std::sqrt(var + eps), b = get_f(c.in(2), nc % C);
    for (std::int64_t k = 0; k < inner; ++k) set_f(y, nc * inner + k, (get_f(x, nc * inner + k) - mean) * a + b);
  }
  return {y};
}

Outs batch_norm(const Ctx& c) {
  if (c.i("training_mode", 0) != 0) c.error("training_mode 1 is not implemented");
  if (c.node.outputs.size() > 1) c.error("the running_mean / running_var outputs (training) are not implemented");
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 2) c.error("input 0 is " + x.describe() + "; expected rank >= 2");
  const std::int64_t C = x.dims[1], inner = product(x.dims, 2);
  for (std::size_t k = 1; k < 5; ++k)
    if (c.in(k).elements() != C)
      c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; expected " + std::to_string(C) +
              " values");
  const double eps = c.f("epsilon", 1e-5);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t n = 0; n < x.dims[0]; ++n)
    for (std::int64_t ch = 0; ch < C; ++ch) {
      const double scale = get_f(c.in(1), ch), bias = get_f(c.in(2), ch), mean = get_f(c.in(3), ch),
                   var = get_f(c.in(4), ch);
      const double a = scale / std::sqrt(var + eps);
      for (std::int64_t k = 0; k < inner; ++k) {
        const std::int64_t i = (n * C + ch) * inner + k;
        set_f(y, i, (get_f(x, i) - mean) * a + bias);
      }
    }
  return {y};
}

Outs layer_norm(const Ctx& c) {
  if (c.i("stash_type", 1) != 1) c.error("stash_type " + std::to_string(c.i("stash_type", 1)) + " is not implemented");
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r, "axis"));
  const Dims norm(x.dims.begin() + static_cast<std::ptrdiff_t>(axis), x.dims.end());
  const std::int64_t outer = product(x.dims, 0, axis), inner = product(norm);
  const double eps = c.f("epsilon", 1e-5);
  // Scale and B broadcast to the normalized dims.
  const auto param_index = [&](std::size_t k) {
    const Dims& p = c.in(k).dims;
    if (broadcast_dims(norm, p) != norm)
      c.error("input " + std::to_string(k) + " is " + c.in(k).describe() +
              "; it does not broadcast to the normalized dims " + dims_text(norm));
    return broadcast_index(norm, p);
  };
  const Dims is = param_index(1);
  const Dims ib = c.has_input(2) ? param_index(2) : Dims{};
  Dims stat_dims = x.dims;
  for (std::size_t k = axis; k < stat_dims.size(); ++k) stat_dims[k] = 1;
  RefTensor y(x.dtype, x.dims), mean_out(DataType::f32, stat_dims), inv_out(DataType::f32, stat_dims);
  for (std::int64_t o = 0; o < outer; ++o) {
    double mean = 0, var = 0;
    for (std::int64_t k = 0; k < inner; ++k) mean += get_f(x, o * inner + k);
    mean /= static_cast<double>(inner);
    for (std::int64_t k = 0; k < inner; ++k) {
      const double d = get_f(x, o * inner + k) - mean;
      var += d * d;
    }
    var /= static_cast<double>(inner);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (std::int64_t k = 0; k < inner; ++k) {
      const auto u = static_cast<std::size_t>(k);
      const double b = ib.empty() ? 0.0 : get_f(c.in(2), ib[u]);
      set_f(y, o * inner + k, (get_f(x, o * inner + k) - mean) * inv * get_f(c.in(1), is[u]) + b);
    }
    set_f(mean_out, o, mean);
    set_f(inv_out, o, inv);
  }
  return {y, mean_out, inv_out};
}

// ---- matrix products ----

Outs gemm(const Ctx& c) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  if (a.dims.size() != 2 || b.dims.size() != 2)
    c.error("inputs " + a.describe() + ", " + b.describe() + "; expected 2-D");
  const bool ta = c.i("transA", 0) != 0, tb = c.i("transB", 0) != 0;
  const double alpha = c.f("alpha", 1.0), beta = c.f("beta", 1.0);
  const std::int64_t M = a.dims[ta ? 1 : 0], K = a.dims[ta ? 0 : 1];
  const std::int64_t Kb = b.dims[tb ? 1 : 0], N = b.dims[tb ? 0 : 1];
  if (K != Kb)
    c.error("A " + a.describe() + (ta ? " (transA)" : "") + " and B " + b.describe() + (tb ? " (transB)" : "") +
            " differ in K");
  const std::vector<double> av = a.to_doubles(), bv = b.to_doubles();
  Dims ic;
  if (c.has_input(2)) {
    if (broadcast_dims({M, N}, c.in(2).dims) != Dims{M, N})
      c.error("input 2 (C) " + c.in(2).describe() + " does not broadcast to [M, N]");
    ic = broadcast_index({M, N}, c.in(2).dims);
  }
  RefTensor y(a.dtype, {M, N});
  std::vector<double> acc(static_cast<std::size_t>(N));
  for (std::int64_t m = 0; m < M; ++m) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double x = av[static_cast<std::size_t>(ta ? k * M + m : m * K + k)];
      for (std::int64_t n = 0; n < N; ++n)
        acc[static_cast<std::size_t>(n)] += x * bv[static_cast<std::size_t>(tb ? n * K + k : k * N + n)];
    }
    for (std::int64_t n = 0; n < N; ++n) {
      double v = alpha * acc[static_cast<std::size_t>(n)];
      if (!ic.empty()) v += beta * get_f(c.in(2), ic[static_cast<std::size_t>(m * N + n)]);
      set_f(y, m * N + n, v);
    }
  }
  return {y};
}

Outs matmul(const Ctx& c) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  if (a.dims.empty() || b.dims.empty()) c.error("a scalar input; expected rank >= 1");
  if (a.dtype != b.dtype) c.error("inputs " + a.describe() + ", " + b.describe() + " differ in type");
  Dims da = a.dims, db = b.dims;
  const bool a1 = da.size() == 1, b1 = db.size() == 1;
  if (a1) da.insert(da.begin(), 1);
  if (b1) db.push_back(1);
  const std::int64_t M = da[da.size() - 2], K = da.back(), N = db.back();
  if (db[db.size() - 2] != K) c.error("inputs " + a.describe() + ", " + b.describe() + " differ in K");
  const Dims ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  const auto batch = broadcast_dims(ba, bb);
  if (!batch) c.error("the batch dims of " + a.describe() + " and " + b.describe() + " do not broadcast");
  const Dims ia = broadcast_index(*batch, ba), ib = broadcast_index(*batch, bb);
  Dims out = *batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  const std::vector<double> av = a.to_doubles(), bv = b.to_doubles();
  RefTensor y(a.dtype, out);
  std::vector<double> acc(static_cast<std::size_t>(N));
  for (std::size_t p = 0; p < ia.size(); ++p) {
    const double* A = av.data() + ia[p] * M * K;
    const double* B = bv.data() + ib[p] * K * N;
    for (std::int64_t m = 0; m < M; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t k = 0; k < K; ++k) {
        const double x = A[m * K + k];
        for (std::int64_t n = 0; n < N; ++n) acc[static_cast<std::size_t>(n)] += x * B[k * N + n];
      }
      for (std::int64_t n = 0; n < N; ++n)
        set_f(y, (static_cast<std::int64_t>(p) * M + m) * N + n, acc[static_cast<std::size_t>(n)]);
    }
  }
  return {y};
}

}  // namespace

void add_nn_ops(OpTable& t) {
  t["Conv"] = {conv, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}};
  t["MaxPool"] = {[](const Ctx& c) { return pool(c, true); },
                  {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "storage_order"}};
  t["AveragePool"] = {[](const Ctx& c) { return pool(c, false); },
                      {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "count_include_pad"}};
  t["GlobalAveragePool"] = {global_avg_pool, {}};
  t["GlobalMaxPool"] = {global_max_pool, {}};
  t["BatchNormalization"] = {batch_norm, {"epsilon", "momentum", "training_mode"}};
  t["InstanceNormalization"] = {instance_norm, {"epsilon"}};
  t["LayerNormalization"] = {layer_norm, {"axis", "epsilon", "stash_type"}};
  t["Gemm"] = {gemm, {"alpha", "beta", "transA", "transB"}};
  t["MatMul"] = {matmul, {}};
}

}  // namespace ge::ref::detail
