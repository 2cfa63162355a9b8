#pragma once
/// \file
/// Fourier transforms and the tables around them: DFT, STFT, MelWeightMatrix; and
/// TfIdfVectorizer's n-gram counts. The transforms compute in double: a radix-2 FFT
/// when the length is a power of two, else the direct sum (n^2 per signal).
///
/// ```
/// ge::cpu::dft({.axis = 1, .length = 10}, x, y);   // x [B, 10, 1] real -> y [B, 10, 2]
/// ```

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// DFT of x (f32 or f64, rank >= 3, last dim 1: real or 2: complex) along `axis`
/// (non-negative, neither 0 nor the last), the signal zero-padded or cut to `length`;
/// `inverse` uses e^{+i...} and divides by length; `onesided` keeps length / 2 + 1 bins.
/// y: x's type, x's dims with `axis` = the bins and the last = 2. Raises
/// `Errc::type_mismatch`, `Errc::bad_op_inputs` (dims, length < 1).
struct DftParams {
  std::int64_t axis = 1;
  std::int64_t length = 0;
  bool inverse = false;
  bool onesided = false;
};
void dft(const DftParams& p, const TensorView& x, const TensorView& y);

/// STFT of signal [B, L, 1|2] (f32 or f64): frames of `length` every `step` samples,
/// each multiplied by `window` (null: ones; else `length` values of the signal's type),
/// transformed; y [B, frames, bins, 2] with frames = (L - length) / step + 1 and bins =
/// length / 2 + 1 when `onesided`, else length. Raises `Errc::bad_op_inputs`,
/// `Errc::type_mismatch`.
struct StftParams {
  std::int64_t step = 1;
  std::int64_t length = 1;
  bool onesided = true;
};
void stft(const StftParams& p, const TensorView& signal, const TensorView* window, const TensorView& y);

/// The triangular mel filters: y [dft_length / 2 + 1, bins] (f32 or f64), filter i
/// rising from the spectrogram bin of mel point i to that of point i + 1 and falling to
/// that of point i + 2, the bins + 2 points evenly spaced in mel from `lower` to `upper`
/// hertz. Raises `Errc::bad_op_inputs` (bins or dft_length < 1, sample_rate < 1, lower >
/// upper, upper above the Nyquist rate).
struct MelParams {
  std::int64_t bins = 1;
  std::int64_t dft_length = 1;
  std::int64_t sample_rate = 1;
  double lower = 0;
  double upper = 0;
};
void mel_weight_matrix(const MelParams& p, const TensorView& y);

/// TfIdfVectorizer: for each row of x (i32 or i64, [C] or [N, C]) the n-grams of lengths
/// `min_gram` to `max_gram` whose elements are `skip + 1` apart (skip 0 to `max_skip`;
/// 1-grams once), counted where the pool holds them; y (f32, [K] or [N, K]) at each
/// pooled n-gram's output index: the count (`TF`), its weight where the count is
/// non-zero (`IDF`), or count times weight (`TFIDF`). `grams` lists the pool's n-grams,
/// `indexes` their output positions, `weights` (empty: ones) their weights.
struct TfIdfParams {
  std::int64_t min_gram = 1;
  std::int64_t max_gram = 1;
  std::int64_t max_skip = 0;
  std::string mode = "TF";
  std::vector<std::vector<std::int64_t>> grams;
  std::vector<std::int64_t> indexes;
  std::vector<double> weights;
};
void tfidf(const TfIdfParams& p, const TensorView& x, const TensorView& y);

}  // namespace ge::cpu
