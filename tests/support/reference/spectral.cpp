// The reference's DFT, STFT, MelWeightMatrix and TfIdfVectorizer, each from its
// definition in the plainest way: transforms as direct sums, n-grams by comparing
// every candidate with every pooled one.

#include <cmath>
#include <numbers>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// The transform of n complex values (re, im) padded or cut to `len`: `len` outputs.
std::vector<std::pair<double, double>> transform(const std::vector<std::pair<double, double>>& x, std::int64_t len,
                                                 bool inverse) {
  std::vector<std::pair<double, double>> y(static_cast<std::size_t>(len));
  const double sign = inverse ? 1.0 : -1.0;
  for (std::int64_t k = 0; k < len; ++k) {
    double re = 0, im = 0;
    for (std::int64_t n = 0; n < len && n < static_cast<std::int64_t>(x.size()); ++n) {
      const double a = sign * 2 * std::numbers::pi * static_cast<double>(k * n % len) / static_cast<double>(len);
      const auto [xr, xi] = x[static_cast<std::size_t>(n)];
      re += xr * std::cos(a) - xi * std::sin(a);
      im += xr * std::sin(a) + xi * std::cos(a);
    }
    y[static_cast<std::size_t>(k)] = inverse ? std::pair{re / static_cast<double>(len), im / static_cast<double>(len)}
                                             : std::pair{re, im};
  }
  return y;
}

std::int64_t scalar(const Ctx& c, std::size_t k) {
  if (c.in(k).elements() != 1) c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; expected one value");
  return get_i(c.in(k), 0);
}

Outs dft(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 1), r, "axis"));
  const bool onesided = c.i("onesided", 0) != 0, inverse = c.i("inverse", 0) != 0;
  const std::int64_t len = c.has_input(1) ? scalar(c, 1) : x.dims[axis];
  const std::int64_t bins = onesided ? len / 2 + 1 : len, ch = x.dims.back();
  Dims out = x.dims;
  out[axis] = bins;
  out.back() = 2;
  RefTensor y(x.dtype, out);
  const std::int64_t inner = product(x.dims, axis + 1, x.dims.size() - 1), outer = product(x.dims, 0, axis);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<std::pair<double, double>> sig;
      for (std::int64_t n = 0; n < x.dims[axis]; ++n) {
        const std::int64_t at = ((o * x.dims[axis] + n) * inner + i) * ch;
        sig.emplace_back(get_f(x, at), ch == 2 ? get_f(x, at + 1) : 0.0);
      }
      const auto f = transform(sig, len, inverse);
      for (std::int64_t k = 0; k < bins; ++k) {
        set_f(y, ((o * bins + k) * inner + i) * 2, f[static_cast<std::size_t>(k)].first);
        set_f(y, ((o * bins + k) * inner + i) * 2 + 1, f[static_cast<std::size_t>(k)].second);
      }
    }
  return {y};
}

Outs stft(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const std::int64_t step = scalar(c, 1);
  const std::int64_t len = c.has_input(3) ? scalar(c, 3) : c.in(2).elements();
  const bool onesided = c.i("onesided", 1) != 0;
  const std::int64_t frames = (x.dims[1] - len) / step + 1, bins = onesided ? len / 2 + 1 : len, ch = x.dims[2];
  RefTensor y(x.dtype, {x.dims[0], frames, bins, 2});
  for (std::int64_t b = 0; b < x.dims[0]; ++b)
    for (std::int64_t f = 0; f < frames; ++f) {
      std::vector<std::pair<double, double>> sig;
      for (std::int64_t n = 0; n < len; ++n) {
        const std::int64_t at = (b * x.dims[1] + f * step + n) * ch;
        const double w = c.has_input(2) ? get_f(c.in(2), n) : 1.0;
        sig.emplace_back(get_f(x, at) * w, ch == 2 ? get_f(x, at + 1) * w : 0.0);
      }
      const auto t = transform(sig, len, false);
      for (std::int64_t k = 0; k < bins; ++k) {
        set_f(y, ((b * frames + f) * bins + k) * 2, t[static_cast<std::size_t>(k)].first);
        set_f(y, ((b * frames + f) * bins + k) * 2 + 1, t[static_cast<std::size_t>(k)].second);
      }
    }
  return {y};
}

Outs mel(const Ctx& c) {
  const std::int64_t bins = scalar(c, 0), len = scalar(c, 1), rate = scalar(c, 2);
  const double lo = get_f(c.in(3), 0), hi = get_f(c.in(4), 0);
  const auto mel_of = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const auto hz_of = [](double m) { return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0); };
  Dims points;
  for (std::int64_t i = 0; i < bins + 2; ++i) {
    const double m = mel_of(lo) + static_cast<double>(i) * (mel_of(hi) - mel_of(lo)) / static_cast<double>(bins + 2);
    points.push_back(static_cast<std::int64_t>(std::floor(static_cast<double>(len + 1) * hz_of(m) / static_cast<double>(rate))));
  }
  RefTensor y(c.i("output_datatype", 1) == 11 ? DataType::f64 : DataType::f32, {len / 2 + 1, bins});
  for (std::int64_t j = 0; j < len / 2 + 1; ++j)
    for (std::int64_t m = 0; m < bins; ++m) {
      const std::int64_t l = points[static_cast<std::size_t>(m)], ce = points[static_cast<std::size_t>(m + 1)],
                         r = points[static_cast<std::size_t>(m + 2)];
      double v = 0;
      if (j >= l && j <= ce) v = ce == l ? (j == ce ? 1.0 : 0.0) : static_cast<double>(j - l) / static_cast<double>(ce - l);
      if (j >= ce && j < r) v = static_cast<double>(r - j) / static_cast<double>(r - ce);
      set_f(y, j * bins + m, v);
    }
  return {y};
}

Outs tfidf(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const Dims counts = c.ints("ngram_counts"), pool = c.ints("pool_int64s"), indexes = c.ints("ngram_indexes");
  std::vector<double> weights;
  if (c.has("weights")) weights = c.node.attrs.at("weights").as_floats();
  std::vector<Dims> grams;
  for (std::size_t n = 0; n < counts.size(); ++n) {
    const std::int64_t end = n + 1 < counts.size() ? counts[n + 1] : static_cast<std::int64_t>(pool.size());
    for (std::int64_t at = counts[n]; at < end; at += static_cast<std::int64_t>(n + 1))
      grams.emplace_back(pool.begin() + at, pool.begin() + at + static_cast<std::int64_t>(n + 1));
  }
  std::int64_t width = 0;
  for (const std::int64_t i : indexes) width = std::max(width, i + 1);
  const std::int64_t rows = x.dims.size() == 2 ? x.dims[0] : 1, cols = x.dims.back();
  const std::string mode = c.s("mode", "TF");
  RefTensor y(DataType::f32, x.dims.size() == 2 ? Dims{rows, width} : Dims{width});
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::size_t g = 0; g < grams.size(); ++g) {
      const auto n = static_cast<std::int64_t>(grams[g].size());
      if (n < c.i("min_gram_length", 1) || n > c.i("max_gram_length", 1)) continue;
      std::int64_t hits = 0;
      for (std::int64_t s = 0; s < cols; ++s)
        for (std::int64_t skip = 0; skip <= (n == 1 ? 0 : c.i("max_skip_count", 0)); ++skip) {
          bool match = s + (n - 1) * (skip + 1) < cols;
          for (std::int64_t k = 0; match && k < n; ++k)
            match = get_i(x, r * cols + s + k * (skip + 1)) == grams[g][static_cast<std::size_t>(k)];
          hits += match ? 1 : 0;
        }
      if (hits == 0) continue;
      const double w = weights.empty() ? 1.0 : weights[g];
      const double v = mode == "TF" ? static_cast<double>(hits) : mode == "IDF" ? w : static_cast<double>(hits) * w;
      const std::int64_t at = r * width + indexes[g];
      set_f(y, at, get_f(y, at) + v);
    }
  return {y};
}

}  // namespace

void add_spectral_ops(OpTable& t) {
  t["DFT"] = {dft, {"axis", "inverse", "onesided"}};
  t["STFT"] = {stft, {"onesided"}};
  t["MelWeightMatrix"] = {mel, {"output_datatype"}};
  t["TfIdfVectorizer"] = {tfidf, {"max_gram_length", "min_gram_length", "max_skip_count", "mode", "ngram_counts",
                                  "ngram_indexes", "pool_int64s", "weights"}};
}

}  // namespace ge::ref::detail
