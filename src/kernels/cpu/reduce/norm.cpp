#include "kernels/cpu/reduce/norm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/elementwise/elementwise.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

namespace ge::cpu {
namespace {

void check_axis(std::string_view op, std::int64_t axis, const TensorView& x) {
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.rank())) {
    fail(Errc::bad_attribute, op,
         "axis " + std::to_string(axis) + " is outside X " + bracketed(x.dims) + "; expected 0 <= axis < rank");
  }
}

// Softmax of one contiguous row, through the vector code of vmath.hpp. `y` may be `x`
// (plans run both ops in place): LogSoftmax reads X again after the sum, so its exps go
// to a scratch chunk, never to Y.
void softmax_row(const float* x, float* y, std::int64_t n, bool log) {
  const float mx = vm::max(x, n);
  if (log) {
    constexpr std::int64_t kChunk = 256;
    float exps[kChunk];
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; i += kChunk) sum += vm::exp_shift_sum(x + i, exps, std::min(kChunk, n - i), mx);
    const float shift = mx + std::log(sum);
    for_lanes(n, [&](std::int64_t k) { y[k] = x[k] - shift; });
  } else {
    vm::scale(y, n, 1.0f / vm::exp_shift_sum(x, y, n, mx));
  }
}

// Softmax along an axis of `len` elements with stride `inner` > 1, for `inner` columns.
// In place too: each element of X is read before the same element of Y is written, and
// LogSoftmax only sums its exps.
void softmax_strided(const float* x, float* y, std::int64_t len, std::int64_t inner, bool log, float* mx,
                     float* sum) {
  std::fill(mx, mx + inner, -std::numeric_limits<float>::infinity());
  std::fill(sum, sum + inner, 0.0f);
  for (std::int64_t a = 0; a < len; ++a) {
    const float* __restrict xr = x + a * inner;
    float* __restrict m = mx;
    for_lanes(inner, [&](std::int64_t j) { m[j] = xr[j] > m[j] ? xr[j] : m[j]; });
  }
  for (std::int64_t a = 0; a < len; ++a) {
    const float* xr = x + a * inner;
    float* yr = y + a * inner;
    const float* __restrict m = mx;
    float* __restrict s = sum;
    if (log) {
      for_lanes(inner, [&](std::int64_t j) { s[j] += exp_approx(xr[j] - m[j]); });
    } else {
      for_lanes(inner, [&](std::int64_t j) {
        const float e = exp_approx(xr[j] - m[j]);
        yr[j] = e;
        s[j] += e;
      });
    }
  }
  if (log) {
    for (std::int64_t j = 0; j < inner; ++j) sum[j] = mx[j] + std::log(sum[j]);
  } else {
    for (std::int64_t j = 0; j < inner; ++j) sum[j] = 1.0f / sum[j];
  }
  for (std::int64_t a = 0; a < len; ++a) {
    const float* xr = x + a * inner;
    float* yr = y + a * inner;
    const float* __restrict s = sum;
    if (log) {
      for_lanes(inner, [&](std::int64_t j) { yr[j] = xr[j] - s[j]; });
    } else {
      for_lanes(inner, [&](std::int64_t j) { yr[j] *= s[j]; });
    }
  }
}

}  // namespace

void softmax(const SoftmaxParams& p, const TensorView& x, const TensorView& y) {
  const std::string_view op = p.log ? "LogSoftmax" : "Softmax";
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_data(op, "X", x);
  check_dims(op, "Y", y, x.dims);
  check_axis(op, p.axis, x);
  const auto axis = static_cast<std::size_t>(p.axis);
  const std::int64_t outer = product(x.dims, 0, axis);
  const std::int64_t len = x.dims[axis];
  const std::int64_t inner = product(x.dims, axis + 1, x.rank());
  if (x.elements() == 0) return;
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  if (inner == 1) {
    parallel_for(outer, grain_for(len * 8), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) softmax_row(px + r * len, py + r * len, len, p.log);
    });
    return;
  }
  parallel_for(outer, grain_for(len * inner * 8), [&](std::int64_t b, std::int64_t e) {
    std::vector<float> mx(static_cast<std::size_t>(inner)), sum(static_cast<std::size_t>(inner));
    for (std::int64_t r = b; r < e; ++r) {
      softmax_strided(px + r * len * inner, py + r * len * inner, len, inner, p.log, mx.data(), sum.data());
    }
  });
}

void layer_norm(const LayerNormParams& p, const TensorView& x, const TensorView& scale, const TensorView* bias,
                const TensorView& y) {
  constexpr std::string_view op = "LayerNormalization";
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Scale", scale, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_data(op, "X", x);
  check_data(op, "Scale", scale);
  check_dims(op, "Y", y, x.dims);
  check_axis(op, p.axis, x);
  const auto axis = static_cast<std::size_t>(p.axis);
  const std::int64_t rows = product(x.dims, 0, axis);
  const std::int64_t d = product(x.dims, axis, x.rank());
  if (scale.elements() != d) {
    fail(Errc::bad_op_inputs, op,
         "Scale " + bracketed(scale.dims) + " must hold the " + std::to_string(d) + " normalised elements of X " +
             bracketed(x.dims) + " from axis " + std::to_string(p.axis));
  }
  const float* pb = nullptr;
  if (bias != nullptr && bias->dtype != DataType::undefined) {
    check_dtype(op, "B", *bias, DataType::f32);
    check_data(op, "B", *bias);
    if (bias->elements() != d) {
      fail(Errc::bad_op_inputs, op, "B " + bracketed(bias->dims) + " must hold " + std::to_string(d) + " elements");
    }
    pb = bias->as<const float>();
  }
  if (x.elements() == 0) return;
  const float* px = x.as<const float>();
  const float* ps = scale.as<const float>();
  float* py = y.as<float>();
  parallel_for(rows, grain_for(d * 4), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const float* __restrict xr = px + r * d;
      float* __restrict yr = py + r * d;
      float acc[kLanes] = {};
      std::int64_t i = 0;
      for (; i + kLanes <= d; i += kLanes) {
        for (std::int64_t j = 0; j < kLanes; ++j) acc[j] += xr[i + j];
      }
      float sum = 0.0f;
      for (; i < d; ++i) sum += xr[i];
      for (std::int64_t j = 0; j < kLanes; ++j) sum += acc[j];
      const float mean = sum / static_cast<float>(d);
      float vacc[kLanes] = {};
      i = 0;
      for (; i + kLanes <= d; i += kLanes) {
        for (std::int64_t j = 0; j < kLanes; ++j) {
          const float c = xr[i + j] - mean;
          vacc[j] += c * c;
        }
      }
      float var = 0.0f;
      for (; i < d; ++i) var += (xr[i] - mean) * (xr[i] - mean);
      for (std::int64_t j = 0; j < kLanes; ++j) var += vacc[j];
      const float inv = 1.0f / std::sqrt(var / static_cast<float>(d) + p.epsilon);
      const float* __restrict s = ps;
      if (pb != nullptr) {
        const float* __restrict bb = pb;
        for_lanes(d, [&](std::int64_t k) { yr[k] = (xr[k] - mean) * inv * s[k] + bb[k]; });
      } else {
        for_lanes(d, [&](std::int64_t k) { yr[k] = (xr[k] - mean) * inv * s[k]; });
      }
    }
  });
}

void batch_norm(const BatchNormParams& p, const TensorView& x, const TensorView& scale, const TensorView& bias,
                const TensorView& mean, const TensorView& var, const TensorView& y) {
  constexpr std::string_view op = "BatchNormalization";
  check_dtype(op, "X", x, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  if (x.rank() < 2) {
    fail(Errc::rank_mismatch, op, "X " + bracketed(x.dims) + " must have rank >= 2 (N, C, ...)");
  }
  check_data(op, "X", x);
  check_dims(op, "Y", y, x.dims);
  const std::int64_t c = x.dims[1];
  const std::int64_t cd[1] = {c};
  const std::pair<const char*, const TensorView*> params[] = {
      {"scale", &scale}, {"B", &bias}, {"input_mean", &mean}, {"input_var", &var}};
  for (const auto& [name, t] : params) {
    check_dtype(op, name, *t, DataType::f32);
    check_dims(op, name, *t, cd);
  }
  const std::int64_t n = x.dims[0];
  const std::int64_t plane = product(x.dims, 2, x.rank());
  if (x.elements() == 0) return;
  std::vector<float> mul(static_cast<std::size_t>(c)), add(static_cast<std::size_t>(c));
  for (std::int64_t ch = 0; ch < c; ++ch) {
    const float m = scale.as<const float>()[ch] / std::sqrt(var.as<const float>()[ch] + p.epsilon);
    mul[static_cast<std::size_t>(ch)] = m;
    add[static_cast<std::size_t>(ch)] = bias.as<const float>()[ch] - mean.as<const float>()[ch] * m;
  }
  const float* px = x.as<const float>();
  float* py = y.as<float>();
  parallel_for(n * c, grain_for(plane), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pc = b; pc < e; ++pc) {
      const float m = mul[static_cast<std::size_t>(pc % c)];
      const float a = add[static_cast<std::size_t>(pc % c)];
      const float* __restrict xr = px + pc * plane;
      float* __restrict yr = py + pc * plane;
      for_lanes(plane, [&](std::int64_t i) { yr[i] = xr[i] * m + a; });
    }
  });
}

}  // namespace ge::cpu
