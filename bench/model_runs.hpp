#pragma once
// What bench/models.cpp and bench/suite.cpp share: a model's input data, the timing of
// ge runs (p50/p90 by nearest rank), the outputs of one run and their relative error.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ge/ge.hpp"

namespace ge_bench {

using clock_type = std::chrono::steady_clock;

struct InputData {
  ge::DataType dtype;
  std::vector<std::int64_t> dims;
  std::vector<std::byte> bytes;
};

// Seeded uniform values in [lo, hi) (integers for an integer type).
inline InputData random_input(ge::DataType dtype, std::vector<std::int64_t> dims, std::uint64_t seed, double lo = -1.0,
                              double hi = 1.0) {
  const ge::Tensor t = ge::Tensor::random(dtype, dims, seed, lo, hi);
  return {dtype, std::move(dims), std::vector<std::byte>(t.bytes().begin(), t.bytes().end())};
}

inline InputData random_f32(std::vector<std::int64_t> dims, std::uint64_t seed) {
  return random_input(ge::DataType::f32, std::move(dims), seed);
}

inline InputData ones_i64(std::vector<std::int64_t> dims) {
  const ge::Tensor t = ge::Tensor::full(ge::DataType::i64, dims, 1.0);
  return {ge::DataType::i64, std::move(dims), std::vector<std::byte>(t.bytes().begin(), t.bytes().end())};
}

struct Timing {
  double p50 = 0, p90 = 0, mean = 0;
  int runs = 0;
};

inline double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto rank = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size()))));
  return sorted[rank - 1];
}

inline std::vector<ge::TensorView> views_of(std::vector<InputData>& inputs) {
  std::vector<ge::TensorView> views;
  for (auto& in : inputs) views.push_back({in.bytes.data(), in.dtype, in.dims});
  return views;
}

// `warmup` runs, then timed runs until `seconds` have passed and at least `min_runs` were made.
inline Timing time_ours(ge::Session& s, std::vector<InputData>& inputs, int warmup, int min_runs, double seconds) {
  const std::vector<ge::TensorView> views = views_of(inputs);
  for (int i = 0; i < warmup; ++i) (void)s.run(views);
  std::vector<double> ms;
  const auto start = clock_type::now();
  while (static_cast<int>(ms.size()) < min_runs ||
         std::chrono::duration<double>(clock_type::now() - start).count() < seconds) {
    const auto t0 = clock_type::now();
    (void)s.run(views);
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  Timing t;
  t.runs = static_cast<int>(ms.size());
  for (const double x : ms) t.mean += x;
  t.mean /= static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  t.p50 = nearest_rank(ms, 0.5);
  t.p90 = nearest_rank(ms, 0.9);
  return t;
}

// The outputs of one run, as f32 (every output of these models is f32).
inline std::vector<std::vector<float>> outputs_of(ge::Session& s, std::vector<InputData>& inputs) {
  std::vector<std::vector<float>> out;
  for (const ge::Output& o : s.run(views_of(inputs)).outputs) {
    const auto v = o.values<float>();
    out.emplace_back(v.begin(), v.end());
  }
  return out;
}

// max |got - want| over max |want|, over all outputs; infinite where one side is NaN (or
// infinite) and the other is not.
inline double relative_error(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want) {
  double err = 0, top = 0;
  for (std::size_t k = 0; k < want.size(); ++k)
    for (std::size_t i = 0; i < want[k].size(); ++i) {
      const float g = got[k][i], w = want[k][i];
      if (!std::isfinite(g) || !std::isfinite(w)) {
        if (!(std::isnan(g) && std::isnan(w)) && g != w) return INFINITY;
        continue;
      }
      err = std::max(err, static_cast<double>(std::fabs(g - w)));
      top = std::max(top, static_cast<double>(std::fabs(w)));
    }
  return top > 0 ? err / top : err;
}

inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace ge_bench
