#include "kernels/cpu/nn/nn_more.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace ge::cpu {

void batch_norm_training(const BatchNormTrainParams& p, const TensorView& x, const TensorView& scale,
                         const TensorView& b, const TensorView& mean, const TensorView& var, const TensorView& y,
                         const TensorView* running_mean, const TensorView* running_var) {
  constexpr std::string_view op = "BatchNormalization";
  check_dtype(op, "X", x, DataType::f32);
  if (x.rank() < 2) fail(Errc::bad_op_inputs, op, "X " + bracketed(x.dims) + " must have rank >= 2");
  check_dims(op, "Y", y, x.dims);
  const std::int64_t n = x.dims[0], c = x.dims[1], inner = product(x.dims, 2, x.rank());
  const std::int64_t cd[1] = {c};
  for (const auto& [name, t] : {std::pair{"scale", &scale}, std::pair{"B", &b}, std::pair{"input_mean", &mean},
                                std::pair{"input_var", &var}, std::pair{"running_mean", running_mean},
                                std::pair{"running_var", running_var}}) {
    if (t == nullptr) continue;
    check_dtype(op, name, *t, DataType::f32);
    check_dims(op, name, *t, cd);
  }
  const float* xs = x.as<const float>();
  float* ys = y.as<float>();
  parallel_for(c, grain_for(n * inner * 3), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t ch = lo; ch < hi; ++ch) {
      double sum = 0, sq = 0;
      for (std::int64_t i = 0; i < n; ++i)
        for (const float* at = xs + (i * c + ch) * inner; at != xs + (i * c + ch + 1) * inner; ++at) sum += *at;
      const double count = static_cast<double>(n * inner), m = count > 0 ? sum / count : 0.0;
      for (std::int64_t i = 0; i < n; ++i)
        for (const float* at = xs + (i * c + ch) * inner; at != xs + (i * c + ch + 1) * inner; ++at)
          sq += (*at - m) * (*at - m);
      const double v = count > 0 ? sq / count : 0.0;
      const double mom = p.momentum;
      if (running_mean != nullptr)
        running_mean->as<float>()[ch] = static_cast<float>(mean.as<const float>()[ch] * mom + m * (1 - mom));
      if (running_var != nullptr)
        running_var->as<float>()[ch] = static_cast<float>(var.as<const float>()[ch] * mom + v * (1 - mom));
      const double a = scale.as<const float>()[ch] / std::sqrt(v + p.epsilon), bias = b.as<const float>()[ch];
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t base = (i * c + ch) * inner;
        for (std::int64_t k = 0; k < inner; ++k)
          ys[base + k] = static_cast<float>((xs[base + k] - m) * a + bias);
      }
    }
  });
}

}  // namespace ge::cpu

namespace ge::cpu {

void lrn(const LrnParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "LRN";
  check_dtype(op, "X", x, DataType::f32);
  if (x.rank() < 2) fail(Errc::bad_op_inputs, op, "X " + bracketed(x.dims) + " must have rank >= 2");
  check_dims(op, "Y", y, x.dims);
  if (p.size < 1) fail(Errc::bad_attribute, op, "size is " + std::to_string(p.size) + "; expected >= 1");
  if (x.elements() == 0) return;  // (no channels: nothing to read, and X's data may be null)
  const std::int64_t n = x.dims[0], c = x.dims[1], inner = product(x.dims, 2, x.rank());
  const std::int64_t before = (p.size - 1) / 2, after = p.size / 2;
  const float* xs = x.as<const float>();
  float* ys = y.as<float>();
  // Per (n, position): a running sum of squares over the channel window. y may be x: the
  // squares are read one channel ahead of the write, so each column is copied first.
  parallel_for(n * inner, grain_for(c * 4), [&](std::int64_t lo, std::int64_t hi) {
    std::vector<double> sq(static_cast<std::size_t>(c));
    std::vector<float> col(static_cast<std::size_t>(c));
    for (std::int64_t at = lo; at < hi; ++at) {
      const std::int64_t b = at / inner, k = at % inner;
      const float* src = xs + b * c * inner + k;
      for (std::int64_t ch = 0; ch < c; ++ch) {
        col[static_cast<std::size_t>(ch)] = src[ch * inner];
        sq[static_cast<std::size_t>(ch)] = static_cast<double>(src[ch * inner]) * src[ch * inner];
      }
      double sum = 0;
      for (std::int64_t ch = 0; ch < std::min(after, c); ++ch) sum += sq[static_cast<std::size_t>(ch)];
      for (std::int64_t ch = 0; ch < c; ++ch) {
        if (ch + after < c) sum += sq[static_cast<std::size_t>(ch + after)];
        if (ch - before - 1 >= 0) sum -= sq[static_cast<std::size_t>(ch - before - 1)];
        const double d = std::pow(p.bias + p.alpha / static_cast<double>(p.size) * std::max(sum, 0.0), p.beta);
        ys[b * c * inner + ch * inner + k] = static_cast<float>(col[static_cast<std::size_t>(ch)] / d);
      }
    }
  });
}

void mean_variance_normalization(std::span<const std::int64_t> axes, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "MeanVarianceNormalization";
  check_dtype(op, "X", x, DataType::f32);
  check_dims(op, "Y", y, x.dims);
  const std::size_t r = x.rank();
  std::vector<bool> reduced(r, false);
  for (const std::int64_t a : axes) {
    if (a < 0 || a >= static_cast<std::int64_t>(r) || reduced[static_cast<std::size_t>(a)])
      fail(Errc::bad_attribute, op, "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(r) +
                                        " or repeated");
    reduced[static_cast<std::size_t>(a)] = true;
  }
  // Each element's group: its index over the kept dims. Two passes over x, one over y.
  const SmallDims st = strides_of(x.dims);
  std::int64_t groups = 1;
  std::vector<std::int64_t> gst(r, 0);
  for (std::size_t d = r; d-- > 0;)
    if (!reduced[d]) {
      gst[d] = groups;
      groups *= x.dims[d];
    }
  const std::int64_t total = x.elements();
  std::vector<std::int64_t> group_of(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t g = 0;
    for (std::size_t d = 0; d < r; ++d) g += (i / st[d]) % x.dims[d] * gst[d];
    group_of[static_cast<std::size_t>(i)] = g;
  }
  std::vector<double> sum(static_cast<std::size_t>(groups)), sq(static_cast<std::size_t>(groups));
  const double count = static_cast<double>(groups > 0 ? total / groups : 1);
  const float* xs = x.as<const float>();
  for (std::int64_t i = 0; i < total; ++i) sum[static_cast<std::size_t>(group_of[static_cast<std::size_t>(i)])] += xs[i];
  for (double& s : sum) s /= count;
  for (std::int64_t i = 0; i < total; ++i) {
    const auto g = static_cast<std::size_t>(group_of[static_cast<std::size_t>(i)]);
    sq[g] += (xs[i] - sum[g]) * (xs[i] - sum[g]);
  }
  float* ys = y.as<float>();
  for (std::int64_t i = 0; i < total; ++i) {
    const auto g = static_cast<std::size_t>(group_of[static_cast<std::size_t>(i)]);
    ys[i] = static_cast<float>((xs[i] - sum[g]) / (std::sqrt(sq[g] / count) + 1e-9));
  }
}

void window_function(WindowFn kind, bool periodic, const TensorView& y) {
  constexpr std::string_view op = "WindowFunction";
  if (y.rank() != 1) fail(Errc::bad_op_inputs, op, "output " + bracketed(y.dims) + " must be 1-D");
  const std::int64_t len = y.dims[0];
  const double a0 = kind == WindowFn::blackman ? 0.42 : kind == WindowFn::hamming ? 25.0 / 46.0 : 0.5;
  const double a1 = kind == WindowFn::blackman ? 0.5 : 1.0 - a0, a2 = kind == WindowFn::blackman ? 0.08 : 0.0;
  const double big_n = static_cast<double>(periodic ? len : len - 1), pi = 3.14159265358979323846;
  for (std::int64_t i = 0; i < len; ++i) {
    const double t = big_n > 0 ? 2 * pi * static_cast<double>(i) / big_n : 0.0;
    const double v = a0 - a1 * std::cos(t) + a2 * std::cos(2 * t);
    if (y.dtype == DataType::f32) y.as<float>()[i] = static_cast<float>(v);
    else if (y.dtype == DataType::f64) y.as<double>()[i] = v;
    else fail(Errc::type_mismatch, op, "output is " + std::string(to_string(y.dtype)) + "; expected f32 or f64");
  }
}

void det(const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Det";
  if (x.dtype != DataType::f32 && x.dtype != DataType::f64)
    fail(Errc::type_mismatch, op, "X is " + std::string(to_string(x.dtype)) + "; expected f32 or f64");
  check_dtype(op, "Y", y, x.dtype);
  const std::size_t r = x.rank();
  if (r < 2 || x.dims[r - 1] != x.dims[r - 2])
    fail(Errc::bad_op_inputs, op, "X " + bracketed(x.dims) + " must hold square matrices in its last two dims");
  check_dims(op, "Y", y, x.dims.subspan(0, r - 2));
  const std::int64_t m = x.dims[r - 1], count = product(x.dims, 0, r - 2);
  std::vector<double> a(static_cast<std::size_t>(m * m));
  for (std::int64_t b = 0; b < count; ++b) {
    for (std::int64_t i = 0; i < m * m; ++i)
      a[static_cast<std::size_t>(i)] = x.dtype == DataType::f32 ? x.as<const float>()[b * m * m + i]
                                                                : x.as<const double>()[b * m * m + i];
    double d = 1;
    for (std::int64_t col = 0; col < m && d != 0; ++col) {
      std::int64_t piv = col;
      for (std::int64_t row = col + 1; row < m; ++row)
        if (std::abs(a[static_cast<std::size_t>(row * m + col)]) > std::abs(a[static_cast<std::size_t>(piv * m + col)]))
          piv = row;
      if (piv != col) {
        for (std::int64_t k = 0; k < m; ++k)
          std::swap(a[static_cast<std::size_t>(piv * m + k)], a[static_cast<std::size_t>(col * m + k)]);
        d = -d;
      }
      const double p = a[static_cast<std::size_t>(col * m + col)];
      d *= p;
      if (p == 0) break;
      for (std::int64_t row = col + 1; row < m; ++row) {
        const double f = a[static_cast<std::size_t>(row * m + col)] / p;
        for (std::int64_t k = col; k < m; ++k)
          a[static_cast<std::size_t>(row * m + k)] -= f * a[static_cast<std::size_t>(col * m + k)];
      }
    }
    if (y.dtype == DataType::f32) y.as<float>()[b] = static_cast<float>(d);
    else y.as<double>()[b] = d;
  }
}

void max_unpool(const TensorView& x, const TensorView& i, std::span<const std::int64_t> pooled, const TensorView& y) {
  constexpr std::string_view op = "MaxUnpool";
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_dtype(op, "I", i, DataType::i64);
  check_dims(op, "I", i, x.dims);
  if (pooled.size() != y.rank()) fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " has the wrong rank");
  float* ys = y.as<float>();
  std::fill(ys, ys + y.elements(), 0.0F);
  const float* xs = x.as<const float>();
  const std::int64_t* is = i.as<const std::int64_t>();
  const std::int64_t total = product(pooled, 0, pooled.size());
  for (std::int64_t k = 0; k < x.elements(); ++k) {
    if (is[k] < 0 || is[k] >= total)
      fail(Errc::bad_op_inputs, op, "index " + std::to_string(is[k]) + " is outside the unpooled " + bracketed(pooled));
    // The coordinates in `pooled`, then the offset in y (dropped when outside).
    std::int64_t rest = is[k], at = 0, stride = 1;
    bool inside = true;
    for (std::size_t d = pooled.size(); d-- > 0;) {
      const std::int64_t c = rest % pooled[d];
      rest /= pooled[d];
      inside = inside && c < y.dims[d];
      at += c * stride;
      stride *= y.dims[d];
    }
    if (inside) ys[at] = xs[k];
  }
}

}  // namespace ge::cpu
