// DFT, STFT, MelWeightMatrix and TfIdfVectorizer on the CPU (see spectral.hpp).
#include "kernels/cpu/sequence/spectral.hpp"

#include <cmath>
#include <algorithm>
#include <complex>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "ge/shape/window.hpp"

namespace ge::cpu {

namespace {

using Complex = std::complex<double>;

std::string tname(DataType t) { return "'" + std::string(to_string(t)) + "'"; }

bool is_float(DataType t) { return t == DataType::f32 || t == DataType::f64; }

double load(const TensorView& t, std::int64_t i) {
  return t.dtype == DataType::f32 ? static_cast<const float*>(t.data)[i] : static_cast<const double*>(t.data)[i];
}

void store(const TensorView& t, std::int64_t i, double v) {
  if (t.dtype == DataType::f32)
    static_cast<float*>(t.data)[i] = static_cast<float>(v);
  else
    static_cast<double*>(t.data)[i] = v;
}

// The transform of `a` (its size n) in place: radix-2 when n is a power of two, else the
// direct sum with the n roots of unity computed once.
class Transform {
 public:
  Transform(std::int64_t n, bool inverse) : n_(n), sign_(inverse ? 1.0 : -1.0), inverse_(inverse) {
    roots_.resize(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k)
      roots_[static_cast<std::size_t>(k)] =
          std::polar(1.0, sign_ * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
  }

  void operator()(std::vector<Complex>& a) {
    if ((n_ & (n_ - 1)) == 0)
      radix2(a);
    else
      direct(a);
    if (inverse_)
      for (Complex& v : a) v /= static_cast<double>(n_);
  }

 private:
  void radix2(std::vector<Complex>& a) const {
    const auto n = static_cast<std::size_t>(n_);
    for (std::size_t i = 1, j = 0; i < n; ++i) {  // bit-reversed order
      std::size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (std::size_t len = 2; len <= n; len <<= 1) {
      const std::size_t step = n / len;
      for (std::size_t i = 0; i < n; i += len)
        for (std::size_t k = 0; k < len / 2; ++k) {
          const Complex u = a[i + k], v = a[i + k + len / 2] * roots_[k * step];
          a[i + k] = u + v;
          a[i + k + len / 2] = u - v;
        }
    }
  }

  void direct(std::vector<Complex>& a) {
    scratch_.assign(a.size(), Complex{});
    const auto n = static_cast<std::size_t>(n_);
    for (std::size_t k = 0; k < n; ++k) {
      Complex s{};
      for (std::size_t j = 0; j < n; ++j) s += a[j] * roots_[(k * j) % n];
      scratch_[k] = s;
    }
    a.swap(scratch_);
  }

  std::int64_t n_;
  double sign_;
  bool inverse_;
  std::vector<Complex> roots_, scratch_;
};

void check_float(std::string_view op, const TensorView& x, const TensorView& y) {
  if (!is_float(x.dtype) || y.dtype != x.dtype)
    fail(Errc::type_mismatch, op, "input " + tname(x.dtype) + ", output " + tname(y.dtype) +
                                      "; expected both 'f32' or both 'f64'");
}

}  // namespace

void dft(const DftParams& p, const TensorView& x, const TensorView& y) {
  check_float("DFT", x, y);
  const std::size_t r = x.rank();
  if (r < 3 || (x.dims[r - 1] != 1 && x.dims[r - 1] != 2))
    fail(Errc::bad_op_inputs, "DFT", "input " + bracketed(x.dims) + "; expected [batch, signal dims..., 1 or 2]");
  if (p.axis < 1 || p.axis > static_cast<std::int64_t>(r) - 2)
    fail(Errc::bad_attribute, "DFT", "axis " + std::to_string(p.axis) + " is not a signal dim of " + bracketed(x.dims));
  if (p.length < 1) fail(Errc::bad_op_inputs, "DFT", "dft_length " + std::to_string(p.length) + "; expected >= 1");
  const auto a = static_cast<std::size_t>(p.axis);
  const std::int64_t bins = p.onesided ? p.length / 2 + 1 : p.length;
  const std::int64_t c = x.dims[r - 1];
  if (y.rank() != r || y.dims[a] != bins || y.dims[r - 1] != 2)
    fail(Errc::bad_op_inputs, "DFT", "output " + bracketed(y.dims) + " does not fit input " + bracketed(x.dims));
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= x.dims[d];
  for (std::size_t d = a + 1; d + 1 < r; ++d) inner *= x.dims[d];
  const std::int64_t len = x.dims[a];
  Transform t(p.length, p.inverse);
  std::vector<Complex> buf;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      buf.assign(static_cast<std::size_t>(p.length), Complex{});
      for (std::int64_t n = 0; n < std::min(len, p.length); ++n) {
        const std::int64_t at = ((o * len + n) * inner + i) * c;
        buf[static_cast<std::size_t>(n)] = Complex(load(x, at), c == 2 ? load(x, at + 1) : 0.0);
      }
      t(buf);
      for (std::int64_t k = 0; k < bins; ++k) {
        const std::int64_t at = ((o * bins + k) * inner + i) * 2;
        store(y, at, buf[static_cast<std::size_t>(k)].real());
        store(y, at + 1, buf[static_cast<std::size_t>(k)].imag());
      }
    }
}

void stft(const StftParams& p, const TensorView& signal, const TensorView* window, const TensorView& y) {
  check_float("STFT", signal, y);
  if (signal.rank() != 3 || (signal.dims[2] != 1 && signal.dims[2] != 2))
    fail(Errc::bad_op_inputs, "STFT", "signal " + bracketed(signal.dims) + "; expected [batch, length, 1 or 2]");
  const std::int64_t batch = signal.dims[0], len = signal.dims[1], c = signal.dims[2];
  if (p.step < 1) fail(Errc::bad_op_inputs, "STFT", "frame_step " + std::to_string(p.step) + "; expected >= 1");
  if (p.length < 1 || p.length > len)
    fail(Errc::bad_op_inputs, "STFT", "frame_length " + std::to_string(p.length) + " for a signal of " +
                                          std::to_string(len) + "; expected 1 to the signal's length");
  if (window != nullptr && (window->dtype != signal.dtype || window->elements() != p.length))
    fail(Errc::bad_op_inputs, "STFT", "window " + tname(window->dtype) + bracketed(window->dims) + "; expected " +
                                          std::to_string(p.length) + " values of the signal's type");
  // The frames: windows of frame_length at stride frame_step over the signal, no pads.
  const std::int64_t frames = window_out(len, p.length, {.stride = p.step});
  const std::int64_t bins = p.onesided ? p.length / 2 + 1 : p.length;
  if (y.rank() != 4 || y.dims[0] != batch || y.dims[1] != frames || y.dims[2] != bins || y.dims[3] != 2)
    fail(Errc::bad_op_inputs, "STFT", "output " + bracketed(y.dims) + " does not fit signal " + bracketed(signal.dims));
  Transform t(p.length, false);
  std::vector<Complex> buf;
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t f = 0; f < frames; ++f) {
      buf.resize(static_cast<std::size_t>(p.length));
      for (std::int64_t n = 0; n < p.length; ++n) {
        const std::int64_t at = (b * len + f * p.step + n) * c;
        const double w = window != nullptr ? load(*window, n) : 1.0;
        buf[static_cast<std::size_t>(n)] = Complex(load(signal, at), c == 2 ? load(signal, at + 1) : 0.0) * w;
      }
      t(buf);
      for (std::int64_t k = 0; k < bins; ++k) {
        const std::int64_t at = ((b * frames + f) * bins + k) * 2;
        store(y, at, buf[static_cast<std::size_t>(k)].real());
        store(y, at + 1, buf[static_cast<std::size_t>(k)].imag());
      }
    }
}

void mel_weight_matrix(const MelParams& p, const TensorView& y) {
  if (p.bins < 1 || p.dft_length < 1 || p.sample_rate < 1)
    fail(Errc::bad_op_inputs, "MelWeightMatrix",
         "num_mel_bins " + std::to_string(p.bins) + ", dft_length " + std::to_string(p.dft_length) + ", sample_rate " +
             std::to_string(p.sample_rate) + "; expected each >= 1");
  if (!(p.lower >= 0 && p.lower <= p.upper && p.upper <= p.sample_rate / 2.0))
    fail(Errc::bad_op_inputs, "MelWeightMatrix",
         "edges " + std::to_string(p.lower) + " to " + std::to_string(p.upper) + " Hz; expected 0 <= lower <= upper <= " +
             std::to_string(p.sample_rate / 2.0) + " (half the sample rate)");
  const std::int64_t rows = p.dft_length / 2 + 1;
  if (!is_float(y.dtype) || y.rank() != 2 || y.dims[0] != rows || y.dims[1] != p.bins)
    fail(Errc::bad_op_inputs, "MelWeightMatrix", "output " + tname(y.dtype) + bracketed(y.dims) + "; expected f32 or f64 [" +
                                                     std::to_string(rows) + "," + std::to_string(p.bins) + "]");
  const auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double lo = to_mel(p.lower), step = (to_mel(p.upper) - lo) / static_cast<double>(p.bins + 2);
  std::vector<std::int64_t> point(static_cast<std::size_t>(p.bins + 2));
  for (std::int64_t i = 0; i < p.bins + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
    point[static_cast<std::size_t>(i)] =
        static_cast<std::int64_t>(std::floor(static_cast<double>(p.dft_length + 1) * hz / static_cast<double>(p.sample_rate)));
  }
  for (std::int64_t i = 0; i < y.elements(); ++i) store(y, i, 0.0);
  const auto set = [&](std::int64_t row, std::int64_t col, double v) {
    if (row >= 0 && row < rows) store(y, row * p.bins + col, v);
  };
  for (std::int64_t m = 0; m < p.bins; ++m) {
    const std::int64_t left = point[static_cast<std::size_t>(m)], centre = point[static_cast<std::size_t>(m + 1)],
                       right = point[static_cast<std::size_t>(m + 2)];
    if (centre == left) {
      set(centre, m, 1.0);
    } else {
      for (std::int64_t j = left; j <= centre; ++j)
        set(j, m, static_cast<double>(j - left) / static_cast<double>(centre - left));
    }
    for (std::int64_t j = centre; j < right; ++j)
      set(j, m, static_cast<double>(right - j) / static_cast<double>(right - centre));
  }
}

void tfidf(const TfIdfParams& p, const TensorView& x, const TensorView& y) {
  if ((x.dtype != DataType::i32 && x.dtype != DataType::i64) || y.dtype != DataType::f32)
    fail(Errc::type_mismatch, "TfIdfVectorizer", "input " + tname(x.dtype) + ", output " + tname(y.dtype) +
                                                     "; expected i32 or i64 in, f32 out");
  if (x.rank() != 1 && x.rank() != 2)
    fail(Errc::bad_op_inputs, "TfIdfVectorizer", "input " + bracketed(x.dims) + "; expected [C] or [N, C]");
  const std::int64_t rows = x.rank() == 2 ? x.dims[0] : 1, cols = x.dims[x.rank() - 1];
  std::int64_t width = 0;
  for (const std::int64_t i : p.indexes) width = std::max(width, i + 1);
  if (y.elements() != rows * width)
    fail(Errc::bad_op_inputs, "TfIdfVectorizer", "output " + bracketed(y.dims) + " does not fit input " + bracketed(x.dims));
  std::map<std::vector<std::int64_t>, std::size_t> pool;  // n-gram -> its place in the pool
  for (std::size_t g = 0; g < p.grams.size(); ++g) pool.emplace(p.grams[g], g);
  const auto value = [&](std::int64_t i) {
    return x.dtype == DataType::i32 ? static_cast<std::int64_t>(static_cast<const std::int32_t*>(x.data)[i])
                                    : static_cast<const std::int64_t*>(x.data)[i];
  };
  auto* out = static_cast<float*>(y.data);
  std::vector<double> counts(static_cast<std::size_t>(width));
  std::vector<std::int64_t> gram;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::fill(counts.begin(), counts.end(), 0.0);
    std::vector<std::size_t> hits(p.grams.size(), 0);
    for (std::int64_t start = 0; start < cols; ++start)
      for (std::int64_t n = p.min_gram; n <= p.max_gram; ++n)
        for (std::int64_t skip = 0; skip <= (n == 1 ? 0 : p.max_skip); ++skip) {
          const std::int64_t last = start + (n - 1) * (skip + 1);
          if (last >= cols) break;
          gram.clear();
          for (std::int64_t k = 0; k < n; ++k) gram.push_back(value(r * cols + start + k * (skip + 1)));
          if (const auto it = pool.find(gram); it != pool.end()) ++hits[it->second];
        }
    for (std::size_t g = 0; g < p.grams.size(); ++g) {
      if (hits[g] == 0) continue;
      const double w = p.weights.empty() ? 1.0 : p.weights[g];
      const double v = p.mode == "TF" ? static_cast<double>(hits[g]) : p.mode == "IDF" ? w : static_cast<double>(hits[g]) * w;
      counts[static_cast<std::size_t>(p.indexes[g])] += v;
    }
    for (std::int64_t k = 0; k < width; ++k) out[r * width + k] = static_cast<float>(counts[static_cast<std::size_t>(k)]);
  }
}

}  // namespace ge::cpu
