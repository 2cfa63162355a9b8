// Calibration for ge::quantize_qdq: the sets (the caller's, checked, or seeded random
// ones), a copy of the graph that also outputs every value to calibrate, compiled once per
// distinct set of input dims and run on every set, and each value's range (min-max, or
// min-max clipped to the percentile of |x|, found exactly from the largest |x| kept).
#include "runtime/quantize_calibrate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <span>
#include <string>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/core/text.hpp"
#include "ge/options/build_options.hpp"
#include "ge/runtime/session.hpp"

namespace ge::detail {

namespace {

const std::string area = "[ge.quantize] ";

bool allows(const Shape& shape, const std::vector<std::int64_t>& dims) {
  if (!shape.rank_known()) return true;
  if (shape.rank() != dims.size()) return false;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (!shape.dims()[i].contains(dims[i])) return false;
  return true;
}

void check_set(const Graph& graph, const std::vector<Tensor>& set, std::size_t index) {
  const auto& inputs = graph.inputs();
  const std::string which = "calibration set " + std::to_string(index);
  if (set.size() != inputs.size()) {
    std::string names;
    for (const GraphInput& in : inputs) names += (names.empty() ? "" : ", ") + quoted(in.name);
    raise(Errc::bad_tensor, area + which + " has " + std::to_string(set.size()) + " tensors; expected one per graph input: " +
                                std::to_string(inputs.size()) + (names.empty() ? "" : " (" + names + ")"));
  }
  for (std::size_t i = 0; i < set.size(); ++i) {
    const GraphInput& in = inputs[i];
    const Tensor& t = set[i];
    const std::string what = which + ", input " + quoted(in.name);
    if (t.dtype() != in.dtype)
      raise(Errc::bad_tensor, area + what + " is " + std::string(to_string(t.dtype())) + "; the input is " +
                                  std::string(to_string(in.dtype)));
    if (!allows(in.shape, t.dims()))
      raise(Errc::bad_tensor, area + what + " has dims [" + dims_text(t.dims()) + "]; the input allows [" +
                                  in.shape.to_string() + "]");
    if (!t.has_data()) raise(Errc::bad_tensor, area + what + " has no data");
  }
}

// Standard normal floats (Box-Muller over 53-bit uniforms: the same values everywhere).
Tensor normal_tensor(DataType dtype, const std::vector<std::int64_t>& dims, std::mt19937_64& rng) {
  std::int64_t n = 1;
  for (const std::int64_t d : dims) n *= d;
  const auto uniform = [&rng] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };  // (0, 1)
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double a = 2.0 * std::numbers::pi * uniform();
    v[i] = r * std::cos(a);
    if (i + 1 < v.size()) v[i + 1] = r * std::sin(a);
  }
  if (dtype == DataType::f64) return Tensor::from<double>(dims, v);
  return Tensor::from<float>(dims, std::vector<float>(v.begin(), v.end()));
}

std::vector<std::vector<Tensor>> random_sets(const Graph& graph, const QuantizeOptions& options) {
  std::mt19937_64 rng(options.seed);
  std::vector<std::vector<Tensor>> sets(options.random_samples);
  for (auto& set : sets) {
    for (const GraphInput& in : graph.inputs()) {
      if (!in.shape.rank_known())
        raise(Errc::unsupported, area + "input " + quoted(in.name) +
                                     " has an unknown rank: random calibration inputs need one; give calibration sets");
      std::vector<std::int64_t> dims;
      for (const Dim& d : in.shape.dims()) dims.push_back(d.is_static() ? d.lo() : std::max<std::int64_t>(1, d.lo()));
      std::string lower = in.name;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      switch (in.dtype) {
        case DataType::f32:
        case DataType::f64: set.push_back(normal_tensor(in.dtype, dims, rng)); break;
        case DataType::boolean: set.push_back(Tensor::full(in.dtype, dims, 1.0)); break;
        case DataType::i8: case DataType::i16: case DataType::i32: case DataType::i64:
        case DataType::u8: case DataType::u16: case DataType::u32: case DataType::u64:
          set.push_back(lower.find("mask") != std::string::npos ? Tensor::full(in.dtype, dims, 1.0)
                                                                : Tensor::random(in.dtype, dims, rng(), 0.0, 100.0));
          break;
        default:
          raise(Errc::unsupported, area + "input " + quoted(in.name) + " is " + std::string(to_string(in.dtype)) +
                                       ": no random calibration inputs of that type; give calibration sets");
      }
    }
  }
  return sets;
}

// The largest `k` values seen (k >= 1), so that the k-th largest is exact without keeping
// every value: values at or below the k-th largest of a trimmed buffer are dropped.
class LargestK {
 public:
  explicit LargestK(std::size_t k) : k_(std::max<std::size_t>(k, 1)) {}
  void add(float a) {
    if (buf_.size() >= k_ && a <= floor_) return;
    buf_.push_back(a);
    if (buf_.size() >= 2 * k_ + 1024) trim();
  }
  [[nodiscard]] float kth() {
    if (buf_.empty()) return 0.f;
    if (buf_.size() > k_) trim();
    return *std::min_element(buf_.begin(), buf_.end());
  }

 private:
  void trim() {
    std::nth_element(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(k_ - 1), buf_.end(), std::greater<>());
    buf_.resize(k_);
    floor_ = buf_[k_ - 1];
  }
  std::size_t k_;
  std::vector<float> buf_;
  float floor_ = -std::numeric_limits<float>::infinity();
};

struct Stats {
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
  std::uint64_t count = 0;  // finite values
};

// Where a calibrated value is read after a run: a graph input's tensor, or an output.
struct Source {
  bool input = false;
  std::size_t index = 0;
};

// The calibration runs: one compiled model and session per distinct input dims.
class Runner {
 public:
  Runner(const Graph& graph, const std::vector<ValueId>& values, int threads) : graph_(graph), threads_(threads) {
    for (const ValueId v : values) {
      const ValueInfo& info = graph.value(v);
      if (info.source == ValueSource::input) {
        sources_.push_back({true, info.producer});
        continue;
      }
      const auto& outs = graph_.outputs();
      const auto it = std::find(outs.begin(), outs.end(), v);
      if (it == outs.end()) graph_.add_output(v);
      sources_.push_back({false, static_cast<std::size_t>(std::find(graph_.outputs().begin(), graph_.outputs().end(), v) -
                                                          graph_.outputs().begin())});
    }
  }

  // Runs `set` and calls `f(i, values)` for each calibrated value i.
  template <class F>
  void run(const std::vector<Tensor>& set, F&& f) {
    std::vector<TensorView> views;
    std::vector<std::vector<std::int64_t>> key;
    for (const Tensor& t : set) {
      views.emplace_back(const_cast<std::byte*>(t.bytes().data()), t.dtype(), t.dims());
      key.push_back(t.dims());
    }
    const RunResult r = session(key).run(views);
    for (std::size_t i = 0; i < sources_.size(); ++i) {
      const Source& s = sources_[i];
      if (s.input) {
        const Tensor& t = set[s.index];
        std::vector<float> v(static_cast<std::size_t>(t.element_count()));
        if (!v.empty()) std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(float));
        f(i, std::span<const float>(v));
      } else {
        f(i, r.outputs[s.index].values<float>());
      }
    }
  }

 private:
  Session& session(const std::vector<std::vector<std::int64_t>>& dims) {
    auto it = sessions_.find(dims);
    if (it != sessions_.end()) return *it->second;
    BuildOptions options;
    if (!graph_.inputs().empty()) {
      std::string text;
      for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i ? ";" : "") + graph_.inputs()[i].name + ":" + dims_text(dims[i]);
      options.set("ge.inputShape", text);
    }
    auto model = compile(graph_, options);
    it = sessions_.emplace(dims, std::make_unique<Session>(std::move(model), SessionOptions{.threads = threads_})).first;
    return *it->second;
  }

  Graph graph_;
  int threads_;
  std::vector<Source> sources_;
  std::map<std::vector<std::vector<std::int64_t>>, std::unique_ptr<Session>> sessions_;
};

}  // namespace

std::vector<std::vector<Tensor>> calibration_sets(const Graph& graph, const QuantizeOptions& options) {
  if (options.calibration.empty()) return random_sets(graph, options);
  for (std::size_t i = 0; i < options.calibration.size(); ++i) check_set(graph, options.calibration[i], i);
  return options.calibration;
}

std::vector<ValueRange> calibrate(const Graph& graph, const std::vector<ValueId>& values,
                                  const std::vector<std::vector<Tensor>>& sets, const QuantizeOptions& options) {
  Runner runner(graph, values, options.threads);
  std::vector<Stats> stats(values.size());
  for (const auto& set : sets) {
    runner.run(set, [&](std::size_t i, std::span<const float> x) {
      Stats& s = stats[i];
      for (const float a : x) {
        if (!std::isfinite(a)) continue;
        s.min = std::min(s.min, a);
        s.max = std::max(s.max, a);
        ++s.count;
      }
    });
  }
  std::vector<ValueRange> ranges(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    if (stats[i].count > 0) ranges[i] = {stats[i].min, stats[i].max};
  if (options.method != CalibrationMethod::percentile) return ranges;

  // The percentile of |x| by nearest rank: the k-th largest, k = n - ceil(p/100 n) + 1.
  std::vector<LargestK> largest;
  for (const Stats& s : stats) {
    const auto n = static_cast<double>(s.count);
    const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(options.percentile / 100.0 * n)));
    largest.emplace_back(static_cast<std::size_t>(s.count >= rank ? s.count - rank + 1 : 1));
  }
  for (const auto& set : sets) {
    runner.run(set, [&](std::size_t i, std::span<const float> x) {
      for (const float a : x)
        if (std::isfinite(a)) largest[i].add(std::abs(a));
    });
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (stats[i].count == 0) continue;
    const float t = largest[i].kth();
    ranges[i] = {std::max(ranges[i].min, -t), std::min(ranges[i].max, t)};
  }
  return ranges;
}

}  // namespace ge::detail
