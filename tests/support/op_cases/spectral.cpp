// Random cases of DFT, STFT, MelWeightMatrix and TfIdfVectorizer.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

RefTensor scalar_i64(std::int64_t v) { return RefTensor::of<std::int64_t>({}, {v}); }

std::vector<OpCase> dft_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 8; ++k) {
    // [batch, a, b, 1 or 2]; lengths 1 to 9 and the powers of two 8 and 16 (the radix-2 path).
    const std::int64_t a = k % 3 == 0 ? 16 : g.integer(1, 9), b = k % 3 == 1 ? 8 : g.integer(1, 5);
    const bool complex_in = k % 2 == 1;
    const Dims d{g.integer(1, 2), a, b, complex_in ? 2 : 1};
    Attributes attrs{{"axis", k % 4 == 2 ? std::int64_t{-2} : g.integer(1, 2)}, {"inverse", std::int64_t{k % 4 == 3}},
                     {"onesided", std::int64_t{!complex_in && k % 4 == 0}}};
    std::optional<CaseInput> len;
    if (k >= 4) len = cst(scalar_i64(g.integer(1, 12)));
    v.push_back(make("DFT", {in(g.f32(d)), len}, attrs));
  }
  return v;
}

std::vector<OpCase> stft_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const std::int64_t len = k == 0 ? 16 : g.integer(2, 9), signal = len + g.integer(0, 20);
    const Dims d{g.integer(1, 2), signal, k == 3 ? 2 : 1};
    std::optional<CaseInput> window, length;
    if (k % 2 == 0) window = in(g.f32({len}, 0, 1));
    if (k != 0) length = cst(scalar_i64(len));
    v.push_back(make("STFT", {in(g.f32(d)), cst(scalar_i64(g.integer(1, 5))), window, length},
                     {{"onesided", std::int64_t{k != 3}}}));
  }
  return v;
}

std::vector<OpCase> mel_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const std::int64_t rate = 8000 * g.integer(1, 4);
    const float hi = static_cast<float>(rate / 2) * static_cast<float>(g.integer(5, 10)) / 10.f;
    v.push_back(make("MelWeightMatrix",
                     {cst(scalar_i64(g.integer(1, 10))), cst(scalar_i64(g.integer(8, 64))), cst(scalar_i64(rate)),
                      cst(RefTensor::of<float>({}, {static_cast<float>(g.integer(0, 300))})),
                      cst(RefTensor::of<float>({}, {hi}))},
                     {{"output_datatype", std::int64_t{k == 2 ? 11 : 1}}}));
  }
  return v;
}

std::vector<OpCase> tfidf_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    // Tokens 0..4 so that pooled n-grams occur; one-grams then two-grams in the pool.
    const Dims d = k % 2 == 0 ? Dims{g.integer(1, 3), g.integer(1, 12)} : Dims{g.integer(1, 12)};
    const std::vector<std::int64_t> pool{0, 3, 1, 2, 2, 4, 1, 1};  // 1-grams 0, 3; 2-grams (1,2) (2,4) (1,1)
    Attributes a{{"min_gram_length", std::int64_t{k == 1 ? 2 : 1}}, {"max_gram_length", std::int64_t{2}},
                 {"max_skip_count", g.integer(0, 3)}, {"mode", std::string(k == 0 ? "TF" : k == 1 ? "IDF" : "TFIDF")},
                 {"ngram_counts", std::vector<std::int64_t>{0, 2}},
                 {"ngram_indexes", std::vector<std::int64_t>{4, 0, 1, 3, 2}}, {"pool_int64s", pool}};
    if (k >= 1) a.emplace("weights", std::vector<double>{0.5, 2.0, 1.5, 0.25, 3.0});
    v.push_back(make("TfIdfVectorizer", {in(g.ints(k == 3 ? DataType::i32 : DataType::i64, d, 0, 4))}, a));
  }
  return v;
}

}  // namespace

void add_spectral_cases(GenTable& t) {
  t["DFT"] = dft_cases;
  t["STFT"] = stft_cases;
  t["MelWeightMatrix"] = mel_cases;
  t["TfIdfVectorizer"] = tfidf_cases;
}

}  // namespace ge::test::cases
