// Shape inference of DFT, STFT, MelWeightMatrix and TfIdfVectorizer, and the errors of
// their attributes and inputs.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

namespace {
ge::Tensor i64(std::int64_t v) { return ge::Tensor::scalar(v); }
}  // namespace

TEST_CASE("DFT: bins along the axis, complex out; bad axis, onesided complex, dft_length") {
  CHECK(shape0("DFT", {t("f32", "1~4,10,8,1")}) == "1~4,10,8,2");
  CHECK(shape0("DFT", {t("f32", "2,10,8,1")}, {{"axis", 2}, {"onesided", 1}}) == "2,10,5,2");
  CHECK(shape0("DFT", {t("f32", "2,10,8,1"), c(i64(16))}, {{"axis", -3}}) == "2,16,8,2");
  CHECK(shape0("DFT", {t("f32", "2,10,8,1"), t("i64", "")}) == "2,-1,8,2");
  CHECK(shape0("DFT", {t("f32", "2,4~12,1")}, {{"onesided", 1}}) == "2,3~7,2");
  check_infer_error("DFT", {t("f32", "2,10,1")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
  check_infer_error("DFT", {t("f32", "2,10,1")}, {{"axis", 0}}, Errc::bad_attribute, "axis 0");
  check_infer_error("DFT", {t("f32", "2,10,2")}, {{"onesided", 1}}, Errc::bad_op_inputs, "complex");
  check_infer_error("DFT", {t("f32", "2,10,3")}, {}, Errc::bad_op_inputs, "1 (real) or 2 (complex)");
  check_infer_error("DFT", {t("f32", "10,1")}, {}, Errc::bad_op_inputs, "rank");
  check_infer_error("DFT", {t("f32", "2,10,1"), c(i64(0))}, {}, Errc::bad_op_inputs, "dft_length");
  check_infer_error("DFT", {t("f32", "2,10,1")}, {{"inverse", 2}}, Errc::bad_attribute, "'inverse'");
}

TEST_CASE("STFT: frames and bins; a window or a frame_length, steps and lengths that fit") {
  CHECK(shape0("STFT", {t("f32", "1,128,1"), c(i64(8)), t("f32", "16")}) == "1,15,9,2");
  CHECK(shape0("STFT", {t("f32", "1,128,1"), c(i64(8)), none(), c(i64(16))}, {{"onesided", 0}}) == "1,15,16,2");
  CHECK(shape0("STFT", {t("f32", "1,128,1"), t("i64", ""), t("f32", "16")}) == "1,-1,9,2");
  // Over a range of signal lengths, the frames of every length that fits (the window rule without pads).
  CHECK(shape0("STFT", {t("f32", "1,100~200,1"), c(i64(10)), t("f32", "16")}) == "1,9~19,9,2");
  CHECK(shape0("STFT", {t("f32", "1,8~20,1"), c(i64(10)), t("f32", "16")}) == "1,1,9,2");
  CHECK(shape0("STFT", {t("f32", "1,-1,1"), c(i64(10)), t("f32", "16")}) == "1,1~inf,9,2");
  check_infer_error("STFT", {t("f32", "1,4~8,1"), c(i64(1)), t("f32", "16")}, {}, Errc::bad_op_inputs, "longer than",
                    "(4~8)");
  check_infer_error("STFT", {t("f32", "1,128,1"), c(i64(8))}, {}, Errc::bad_op_inputs, "neither a window");
  check_infer_error("STFT", {t("f32", "1,128,1"), c(i64(0)), t("f32", "16")}, {}, Errc::bad_op_inputs, "frame_step");
  check_infer_error("STFT", {t("f32", "1,128,1"), c(i64(8)), t("f32", "16"), c(i64(8))}, {}, Errc::bad_op_inputs,
                    "differs from the window");
  check_infer_error("STFT", {t("f32", "1,8,1"), c(i64(1)), t("f32", "16")}, {}, Errc::bad_op_inputs, "longer than");
  check_infer_error("STFT", {t("f32", "1,128,2"), c(i64(8)), t("f32", "16")}, {}, Errc::bad_op_inputs, "complex");
  check_infer_error("STFT", {t("f32", "1,128,1"), c(i64(8)), t("f64", "16")}, {}, Errc::type_mismatch, "window");
}

TEST_CASE("MelWeightMatrix: [dft_length / 2 + 1, bins]; output_datatype; bad sizes") {
  const auto m = infer("MelWeightMatrix", {c(i64(8)), c(i64(16)), c(i64(8192)), t("f32", ""), t("f32", "")});
  CHECK(m[0].shape.to_string() == "9,8");
  CHECK(m[0].dtype == ge::DataType::f32);
  CHECK(infer("MelWeightMatrix", {t("i64", ""), t("i64", ""), t("i64", ""), t("f32", ""), t("f32", "")},
              {{"output_datatype", 11}})[0].dtype == ge::DataType::f64);
  check_infer_error("MelWeightMatrix", {c(i64(0)), c(i64(16)), c(i64(8192)), t("f32", ""), t("f32", "")}, {},
                    Errc::bad_op_inputs, "num_mel_bins");
  check_infer_error("MelWeightMatrix", {t("i64", ""), t("i64", ""), t("i64", ""), t("f32", ""), t("f32", "")},
                    {{"output_datatype", 10}}, Errc::bad_attribute, "'output_datatype'");
}

TEST_CASE("TfIdfVectorizer: [K] or [N, K]; the pool, indexes and weights checked") {
  const ge::Attributes a{{"min_gram_length", 1},
                         {"max_gram_length", 2},
                         {"max_skip_count", 0},
                         {"mode", std::string("TF")},
                         {"ngram_counts", std::vector<std::int64_t>{0, 2}},
                         {"ngram_indexes", std::vector<std::int64_t>{0, 1, 2}},
                         {"pool_int64s", std::vector<std::int64_t>{5, 6, 7, 8}}};
  CHECK(shape0("TfIdfVectorizer", {t("i64", "12")}, a) == "3");
  CHECK(shape0("TfIdfVectorizer", {t("i32", "1~4,12")}, a) == "1~4,3");
  auto bad = a;
  bad["mode"] = std::string("BM25");
  check_infer_error("TfIdfVectorizer", {t("i64", "12")}, bad, Errc::bad_attribute, "'mode'");
  bad = a;
  bad["ngram_counts"] = std::vector<std::int64_t>{0, 3};
  check_infer_error("TfIdfVectorizer", {t("i64", "12")}, bad, Errc::bad_attribute, "whole 2-grams");
  bad = a;
  bad["ngram_indexes"] = std::vector<std::int64_t>{0, 1};
  check_infer_error("TfIdfVectorizer", {t("i64", "12")}, bad, Errc::bad_attribute, "ngram_indexes has 2");
  bad = a;
  bad["weights"] = std::vector<double>{1.0};
  check_infer_error("TfIdfVectorizer", {t("i64", "12")}, bad, Errc::bad_attribute, "weights");
  bad = a;
  bad["min_gram_length"] = 3;
  check_infer_error("TfIdfVectorizer", {t("i64", "12")}, bad, Errc::bad_attribute, "exceeds");
  check_infer_error("TfIdfVectorizer", {t("i64", "2,3,4")}, a, Errc::bad_op_inputs, "rank");
}
