// The DFT, STFT, MelWeightMatrix and TfIdfVectorizer kernels: exact small cases, the
// radix-2 and direct paths agreeing, and the errors of inputs that do not fit.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "kernel_test.hpp"
#include "kernels/cpu/sequence/spectral.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
namespace cpu = ge::cpu;

TEST_CASE("dft: an impulse is flat, a cosine is two bins, inverse undoes forward") {
  Buf<float> impulse({1, 8, 1}, {1, 0, 0, 0, 0, 0, 0, 0}), y({1, 8, 2});
  cpu::dft({.axis = 1, .length = 8}, impulse.view(), y.view());
  for (int k = 0; k < 8; ++k) {
    CHECK(y.v[2 * k] == doctest::Approx(1));
    CHECK(y.v[2 * k + 1] == doctest::Approx(0));
  }
  // cos(2 pi n / 6) over 6 samples (the direct path): bins 1 and 5 hold 3.
  Buf<double> c({1, 6, 1}), yc({1, 6, 2});
  for (int n = 0; n < 6; ++n) c.v[n] = std::cos(2 * std::numbers::pi * n / 6);
  cpu::dft({.axis = 1, .length = 6}, c.view(), yc.view());
  for (int k = 0; k < 6; ++k) CHECK(yc.v[2 * k] == doctest::Approx(k == 1 || k == 5 ? 3 : 0).epsilon(1e-9));
  // One-sided: the first 4 bins of 6.
  Buf<double> half({1, 4, 2});
  cpu::dft({.axis = 1, .length = 6, .onesided = true}, c.view(), half.view());
  CHECK(half.v[2] == doctest::Approx(3));
  // Inverse of forward, on both paths (lengths 16 and 12).
  for (const std::int64_t n : {16, 12}) {
    Buf<float> x({1, n, 2}), f({1, n, 2}), back({1, n, 2});
    for (std::int64_t i = 0; i < 2 * n; ++i) x.v[static_cast<std::size_t>(i)] = std::sin(0.7f * static_cast<float>(i)) + 0.1f;
    cpu::dft({.axis = 1, .length = n}, x.view(), f.view());
    cpu::dft({.axis = 1, .length = n, .inverse = true}, f.view(), back.view());
    for (std::size_t i = 0; i < x.v.size(); ++i) CHECK(back.v[i] == doctest::Approx(x.v[i]).epsilon(1e-5));
  }
}

TEST_CASE("dft, stft: inputs that do not fit are errors") {
  Buf<float> x({1, 8, 3}), y({1, 8, 2}), ok({1, 8, 1});
  expect_error([&] { cpu::dft({.axis = 1, .length = 8}, x.view(), y.view()); }, Errc::bad_op_inputs, "1 or 2");
  expect_error([&] { cpu::dft({.axis = 2, .length = 8}, ok.view(), y.view()); }, Errc::bad_attribute, "axis 2");
  expect_error([&] { cpu::dft({.axis = 1, .length = 0}, ok.view(), y.view()); }, Errc::bad_op_inputs, "dft_length 0");
  expect_error([&] { cpu::dft({.axis = 1, .length = 4}, ok.view(), y.view()); }, Errc::bad_op_inputs, "does not fit");
  Buf<double> d({1, 8, 1});
  expect_error([&] { cpu::dft({.axis = 1, .length = 8}, d.view(), y.view()); }, Errc::type_mismatch, "f32");
  Buf<float> s({1, 16, 1}), w({4}), out({1, 4, 3, 2});
  const ge::TensorView wv = w.view();
  expect_error([&] { cpu::stft({.step = 0, .length = 4}, s.view(), &wv, out.view()); }, Errc::bad_op_inputs,
               "frame_step 0");
  expect_error([&] { cpu::stft({.step = 4, .length = 32}, s.view(), nullptr, out.view()); }, Errc::bad_op_inputs,
               "frame_length 32");
  expect_error([&] { cpu::stft({.step = 4, .length = 5}, s.view(), &wv, out.view()); }, Errc::bad_op_inputs,
               "window");
  cpu::stft({.step = 4, .length = 4}, s.view(), &wv, out.view());  // fits: no error
  // Frames are the window rule without pads: 14 at length 4, step 4: 3 (the last 2 samples in none).
  Buf<float> s14({1, 14, 1}), out3({1, 3, 3, 2}), out4({1, 4, 3, 2});
  cpu::stft({.step = 4, .length = 4}, s14.view(), &wv, out3.view());
  expect_error([&] { cpu::stft({.step = 4, .length = 4}, s14.view(), &wv, out4.view()); }, Errc::bad_op_inputs,
               "does not fit");
}

TEST_CASE("stft: each frame is the DFT of the windowed samples") {
  Buf<float> s({1, 8, 1}, {1, 2, 3, 4, 5, 6, 7, 8}), w({4}, {1, 0, 0, 0}), out({1, 3, 3, 2});
  const ge::TensorView wv = w.view();
  cpu::stft({.step = 2, .length = 4}, s.view(), &wv, out.view());
  // The window keeps each frame's first sample: a flat spectrum of that value.
  for (int f = 0; f < 3; ++f)
    for (int k = 0; k < 3; ++k) CHECK(out.v[static_cast<std::size_t>((f * 3 + k) * 2)] == doctest::Approx(1 + 2 * f));
}

TEST_CASE("mel_weight_matrix and tfidf: by hand, and their errors") {
  Buf<float> m({9, 8});
  cpu::mel_weight_matrix({.bins = 8, .dft_length = 16, .sample_rate = 8192, .lower = 0, .upper = 4096}, m.view());
  float total = 0;
  for (const float v : m.v) total += v;
  CHECK(total == doctest::Approx(8));  // each filter here is one bin wide: a single 1
  CHECK(m.v[0] == 1);
  expect_error([&] { cpu::mel_weight_matrix({.bins = 8, .dft_length = 16, .sample_rate = 8192, .upper = 5000}, m.view()); },
               Errc::bad_op_inputs, "half the sample rate");
  expect_error([&] { cpu::mel_weight_matrix({.bins = 4, .dft_length = 16, .sample_rate = 8192, .upper = 100}, m.view()); },
               Errc::bad_op_inputs, "output");
  Buf<std::int64_t> x({2, 4}, {1, 2, 1, 2, 3, 3, 3, 1});
  Buf<float> y({2, 3});
  cpu::TfIdfParams p{.min_gram = 1, .max_gram = 2, .max_skip = 0, .mode = "TF", .grams = {{1}, {3}, {1, 2}}, .indexes = {0, 1, 2}, .weights = {}};
  cpu::tfidf(p, x.view(), y.view());
  CHECK(y.v == std::vector<float>{2, 0, 2, 1, 3, 0});
  p.mode = "IDF";
  p.weights = {0.5, 2, 4};
  cpu::tfidf(p, x.view(), y.view());
  CHECK(y.v == std::vector<float>{0.5f, 0, 4, 0.5f, 2, 0});
  Buf<float> wrong({2, 4});
  expect_error([&] { cpu::tfidf(p, x.view(), wrong.view()); }, Errc::bad_op_inputs, "does not fit");
  Buf<float> fx({2, 4});
  expect_error([&] { cpu::tfidf(p, fx.view(), y.view()); }, Errc::type_mismatch, "i32 or i64");
}
