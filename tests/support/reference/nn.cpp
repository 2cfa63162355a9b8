// The reference's network ops: Conv and pooling, the normalizations, Gemm and MatMul.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// ---- windows: Conv and pooling ----

// A window geometry over three spatial axes (a 1-D or 2-D one fills the last axes; the
// leading ones have extent 1): input, kernel, stride, dilation, begin and end pads, output
// extent, per axis.
struct Window {
  std::int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
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
  if (n < 1 || n > 3) c.error(std::to_string(n) + " spatial dims; only 1-D to 3-D windows are implemented");
  const Dims strides = per_dim(c, "strides", n, 1), dil = per_dim(c, "dilations", n, 1);
  Dims pads = c.ints("pads");
  if (pads.empty()) pads.assign(2 * n, 0);
  if (pads.size() != 2 * n)
    c.error("attribute 'pads' is " + dims_text(pads) + "; expected " + std::to_string(2 * n) + " values");
  const std::string auto_pad = c.s("auto_pad", "NOTSET");
  const bool ceil_mode = has_ceil_mode && c.i("ceil_mode", 0) != 0;
  Window w{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
  const std::size_t off = 3 - n;
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

// The dims of a window op's output: [N, C, out...] with the spatial rank of the input.
Dims window_out_dims(std::int64_t n, std::int64_t ch, const Window& w, std::size_t spatial) {
  Dims d{n, ch};
  for (std::size_t j = 3 - spatial; j < 3; ++j) d.push_back(w.out[j]);
  return d;
}

// The input position along axis a of output position o and tap t.
std::int64_t tap(const Window& w, std::size_t a, std::int64_t o, std::int64_t t) {
  return o * w.s[a] - w.pb[a] + t * w.d[a];
}

Outs conv(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& wt = c.in(1);
  if (x.dtype != DataType::f32 || wt.dtype != DataType::f32)
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only f32 is implemented");
  if (x.dims.size() < 3 || x.dims.size() > 5 || wt.dims.size() != x.dims.size())
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only 1-D to 3-D convolutions are implemented");
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
  const std::int64_t plane = w.in[0] * w.in[1] * w.in[2], taps = w.k[0] * w.k[1] * w.k[2], Mg = M / group;
  std::int64_t o = 0;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t o0 = 0; o0 < w.out[0]; ++o0)
        for (std::int64_t o1 = 0; o1 < w.out[1]; ++o1)
          for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2, ++o) {
            double acc = bias.empty() ? 0.0 : static_cast<double>(bias[static_cast<std::size_t>(m)]);
            for (std::int64_t ci = 0; ci < Cg; ++ci) {
              const float* xin = xs.data() + (n * C + (m / Mg) * Cg + ci) * plane;
              const float* wk = ws.data() + (m * Cg + ci) * taps;
              for (std::int64_t k0 = 0; k0 < w.k[0]; ++k0)
                for (std::int64_t k1 = 0; k1 < w.k[1]; ++k1)
                  for (std::int64_t k2 = 0; k2 < w.k[2]; ++k2) {
                    const std::int64_t i0 = tap(w, 0, o0, k0), i1 = tap(w, 1, o1, k1), i2 = tap(w, 2, o2, k2);
                    if (i0 < 0 || i0 >= w.in[0] || i1 < 0 || i1 >= w.in[1] || i2 < 0 || i2 >= w.in[2]) continue;
                    acc += static_cast<double>(wk[(k0 * w.k[1] + k1) * w.k[2] + k2]) *
                           xin[(i0 * w.in[1] + i1) * w.in[2] + i2];
                  }
            }
            ys[static_cast<std::size_t>(o)] = static_cast<float>(acc);
          }
  return {y};
}

Outs pool(const Ctx& c, bool is_max) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 3 || x.dims.size() > 5)
    c.error("input 0 is " + x.describe() + "; only 1-D to 3-D pooling is implemented");
  const std::size_t sp = x.dims.size() - 2;
  const Dims kernel = c.ints("kernel_shape");
  if (kernel.size() != sp) c.error("attribute 'kernel_shape' is " + dims_text(kernel) + " for input " + x.describe());
  const Window w = make_window(c, Dims(x.dims.begin() + 2, x.dims.end()), kernel, true);
  const std::int64_t N = x.dims[0], C = x.dims[1], plane = w.in[0] * w.in[1] * w.in[2];
  const bool include_pad = !is_max && c.i("count_include_pad", 0) != 0;
  const bool col_major = is_max && c.i("storage_order", 0) != 0;
  RefTensor y(x.dtype, window_out_dims(N, C, w, sp));
  RefTensor idx(DataType::i64, y.dims);
  std::int64_t o = 0;
  for (std::int64_t nc = 0; nc < N * C; ++nc)
    for (std::int64_t o0 = 0; o0 < w.out[0]; ++o0)
      for (std::int64_t o1 = 0; o1 < w.out[1]; ++o1)
        for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2, ++o) {
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          std::int64_t best_at = -1, count = 0, padded_count = 0;
          const std::int64_t at_o[3] = {o0, o1, o2};
          for (std::int64_t t = 0; t < w.k[0] * w.k[1] * w.k[2]; ++t) {
            const std::int64_t kk[3] = {t / (w.k[1] * w.k[2]), (t / w.k[2]) % w.k[1], t % w.k[2]};
            std::int64_t i[3];
            bool inside = true, padded = true;
            for (std::size_t a = 0; a < 3; ++a) {
              i[a] = tap(w, a, at_o[a], kk[a]);
              inside = inside && i[a] >= 0 && i[a] < w.in[a];
              // Positions inside the input or its pads count for count_include_pad.
              padded = padded && i[a] >= -w.pb[a] && i[a] < w.in[a] + w.pe[a];
            }
            if (padded) ++padded_count;
            if (!inside) continue;
            const std::int64_t at = nc * plane + (i[0] * w.in[1] + i[1]) * w.in[2] + i[2];
            const double v = get_f(x, at);
            ++count;
            sum += v;
            if (best_at < 0 || v > best) {
              best = v;
              best_at = col_major ? nc * plane + i[0] + w.in[0] * (i[1] + w.in[1] * i[2]) : at;
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

// BatchNormalization: with training_mode 1 the statistics are X's (mean and population
// variance over every dim but 1), and the running ones blend in: input * momentum +
// current * (1 - momentum).
Outs batch_norm(const Ctx& c) {
  const bool training = c.i("training_mode", 0) != 0;
  if (!training && c.node.outputs.size() > 1) c.error("running_mean / running_var need training_mode 1");
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 2) c.error("input 0 is " + x.describe() + "; expected rank >= 2");
  const std::int64_t C = x.dims[1], inner = product(x.dims, 2), N = x.dims[0];
  for (std::size_t k = 1; k < 5; ++k)
    if (c.in(k).elements() != C)
      c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; expected " + std::to_string(C) +
              " values");
  const double eps = c.f("epsilon", 1e-5), momentum = c.f("momentum", 0.9);
  RefTensor y(x.dtype, x.dims), run_mean(c.in(3).dtype, {C}), run_var(c.in(4).dtype, {C});
  for (std::int64_t ch = 0; ch < C; ++ch) {
    double mean = get_f(c.in(3), ch), var = get_f(c.in(4), ch);
    if (training) {
      double sum = 0, sq = 0;
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < inner; ++k) sum += get_f(x, (n * C + ch) * inner + k);
      const double count = static_cast<double>(N * inner), m = sum / count;
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < inner; ++k) {
          const double d = get_f(x, (n * C + ch) * inner + k) - m;
          sq += d * d;
        }
      set_f(run_mean, ch, mean * momentum + m * (1 - momentum));
      set_f(run_var, ch, var * momentum + sq / count * (1 - momentum));
      mean = m;
      var = sq / count;
    }
    const double scale = get_f(c.in(1), ch), bias = get_f(c.in(2), ch);
    const double a = scale / std::sqrt(var + eps);
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < inner; ++k) {
        const std::int64_t i = (n * C + ch) * inner + k;
        set_f(y, i, (get_f(x, i) - mean) * a + bias);
      }
  }
  if (training) return {y, run_mean, run_var};
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
