// Fourier transforms and their tables: DFT, STFT, MelWeightMatrix (opset 17); and
// TfIdfVectorizer (n-gram counts of integer tokens). Output dims that depend on input
// values (a dft_length, a frame step, the mel bins) are known when those inputs are
// constants; otherwise the kernel infers them per run.
#include "common.hpp"
#include "ge/shape/window.hpp"

namespace ge::ops {

namespace {

constexpr TypeSet kFloats{DataType::f32, DataType::f64};
constexpr TypeSet kIndex{DataType::i32, DataType::i64};

// The single value of constant input i, when it is a constant of one element.
std::optional<std::int64_t> const_scalar(const InferContext& c, std::size_t i) {
  if (!c.has_input(i)) return std::nullopt;
  const auto v = const_ints(c, i);
  if (!v) return std::nullopt;
  if (v->size() != 1)
    c.fail(Errc::bad_op_inputs, "input " + std::to_string(i) + " holds " + std::to_string(v->size()) +
                                    " values; expected one");
  return v->at(0);
}

void require_one_element(const InferContext& c, std::size_t i, const char* name) {
  if (c.has_input(i) && c.shape(i).rank_known() && !element_count(c.shape(i)).contains(1))
    c.fail(Errc::bad_op_inputs, "input " + std::to_string(i) + " (" + name + ") has shape [" +
                                    c.shape(i).to_string() + "]; expected one value");
}

// The last dim of a signal: 1 (real) or 2 (complex); true when it is known to be 2.
bool complex_signal(const InferContext& c, std::size_t i) {
  const Shape& s = c.shape(i);
  if (!s.rank_known()) return false;
  const Dim& last = s.dims().back();
  if (!last.contains(1) && !last.contains(2))
    c.fail(Errc::bad_op_inputs, "input " + std::to_string(i) + " has last dim " + last.to_string() +
                                    "; expected 1 (real) or 2 (complex)");
  return last.is_static() && last.lo() == 2;
}

std::vector<TensorDesc> infer_dft(const InferContext& c) {
  require_rank(c, 0, 3, max_rank);
  require_one_element(c, 1, "dft_length");
  const bool onesided = c.i("onesided") != 0;
  if (complex_signal(c, 0) && onesided)
    c.fail(Errc::bad_op_inputs, "onesided is 1 but the input is complex; a one-sided transform takes a real signal");
  const Shape& x = c.shape(0);
  if (!x.rank_known()) return {{c.input(0).dtype, Shape::unknown_rank()}};
  const auto r = static_cast<std::int64_t>(x.rank());
  const std::int64_t axis = c.i("axis") < 0 ? c.i("axis") + r : c.i("axis");
  if (axis < 1 || axis > r - 2)
    c.fail(Errc::bad_attribute, "axis " + std::to_string(c.i("axis")) + " is not a signal dim of a rank-" +
                                    std::to_string(r) + " input; expected 1 to " + std::to_string(r - 2) +
                                    " (or " + std::to_string(-r + 1) + " to -2)");
  std::vector<Dim> out = x.dims();
  Dim n = out[static_cast<std::size_t>(axis)];
  if (c.has_input(1)) {
    const auto len = const_scalar(c, 1);
    if (len && *len < 1) c.fail(Errc::bad_op_inputs, "input 1 (dft_length) is " + std::to_string(*len) + "; expected >= 1");
    n = len ? Dim(*len) : Dim::unknown();
  }
  out[static_cast<std::size_t>(axis)] = onesided ? div_floor(n, 2) + Dim(1) : n;
  out.back() = Dim(2);
  return {{c.input(0).dtype, Shape(std::move(out))}};
}

std::vector<TensorDesc> infer_stft(const InferContext& c) {
  require_rank(c, 0, 3, 3);
  require_one_element(c, 1, "frame_step");
  require_one_element(c, 3, "frame_length");
  if (!c.has_input(2) && !c.has_input(3))
    c.fail(Errc::bad_op_inputs, "neither a window (input 2) nor a frame_length (input 3) is given; expected one");
  const bool onesided = c.i("onesided") != 0;
  if (complex_signal(c, 0) && onesided)
    c.fail(Errc::bad_op_inputs, "onesided is 1 but the signal is complex; a one-sided transform takes a real signal");
  if (c.has_input(2)) {
    require_rank(c, 2, 1, 1);
    if (c.input(2).dtype != c.input(0).dtype)
      c.fail(Errc::type_mismatch, "the window is " + std::string(to_string(c.input(2).dtype)) + ", the signal " +
                                      std::string(to_string(c.input(0).dtype)) + "; expected one type");
  }
  const auto step = const_scalar(c, 1);
  if (step && *step < 1) c.fail(Errc::bad_op_inputs, "input 1 (frame_step) is " + std::to_string(*step) + "; expected >= 1");
  std::optional<std::int64_t> length = const_scalar(c, 3);
  const std::optional<std::int64_t> window = c.has_input(2) ? static_length(c, 2) : std::nullopt;
  if (length && window && *length != *window)
    c.fail(Errc::bad_op_inputs, "frame_length " + std::to_string(*length) + " differs from the window's length " +
                                    std::to_string(*window));
  if (!length) length = window;
  if (length && *length < 1) c.fail(Errc::bad_op_inputs, "frame_length " + std::to_string(*length) + "; expected >= 1");
  const Shape& x = c.shape(0);
  Dim batch = Dim::unknown(), frames = Dim::unknown();
  if (x.rank_known()) {
    batch = x.dims()[0];
    const Dim& len = x.dims()[1];
    // The frames are windows of frame_length at stride frame_step, without pads.
    const WindowAxis w{.stride = step.value_or(1)};
    if (length && !window_fits(len, Dim(*length), w))
      c.fail(Errc::bad_op_inputs, "frame_length " + std::to_string(*length) + " is longer than the signal (" +
                                      len.to_string() + ")");
    if (length && step) frames = window_out(len, Dim(*length), w);
  }
  const Dim bins = length ? Dim(onesided ? *length / 2 + 1 : *length) : Dim::unknown();
  return {{c.input(0).dtype, Shape{batch, frames, bins, Dim(2)}}};
}

std::vector<TensorDesc> infer_mel(const InferContext& c) {
  const char* names[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  for (std::size_t i = 0; i < 5; ++i) require_one_element(c, i, names[i]);
  const std::int64_t type = c.i("output_datatype");
  const DataType t = type == 11 ? DataType::f64 : DataType::f32;
  const auto bins = const_scalar(c, 0), length = const_scalar(c, 1);
  if (bins && *bins < 1) c.fail(Errc::bad_op_inputs, "num_mel_bins is " + std::to_string(*bins) + "; expected >= 1");
  if (length && *length < 1) c.fail(Errc::bad_op_inputs, "dft_length is " + std::to_string(*length) + "; expected >= 1");
  return {{t, Shape{length ? Dim(*length / 2 + 1) : Dim::unknown(), bins ? Dim(*bins) : Dim::unknown()}}};
}

std::string output_type_check(const Attribute& a) {
  return a.as_int() == 1 || a.as_int() == 11 ? "" : "1 (float) or 11 (double)";
}

// TfIdfVectorizer's pool, checked: ngram_counts ascending from 0 within the pool, each
// length's run a multiple of it, one index per n-gram, one weight per n-gram if any.
std::size_t checked_ngrams(const InferContext& c) {
  const auto& counts = c.attr("ngram_counts").as_ints();
  const auto& pool = c.attr("pool_int64s").as_ints();
  const auto& indexes = c.attr("ngram_indexes").as_ints();
  if (c.i("min_gram_length") > c.i("max_gram_length"))
    c.fail(Errc::bad_attribute, "min_gram_length " + std::to_string(c.i("min_gram_length")) + " exceeds max_gram_length " +
                                    std::to_string(c.i("max_gram_length")));
  if (counts.empty() || counts[0] != 0)
    c.fail(Errc::bad_attribute, "ngram_counts " + ints_text(counts) + "; expected the pool's start of each n-gram "
                                "length, from 0");
  std::size_t grams = 0;
  for (std::size_t n = 0; n < counts.size(); ++n) {
    const std::int64_t end = n + 1 < counts.size() ? counts[n + 1] : static_cast<std::int64_t>(pool.size());
    if (end < counts[n] || end > static_cast<std::int64_t>(pool.size()) || (end - counts[n]) % static_cast<std::int64_t>(n + 1) != 0)
      c.fail(Errc::bad_attribute, "ngram_counts " + ints_text(counts) + " does not split the pool of " +
                                      std::to_string(pool.size()) + " into whole " + std::to_string(n + 1) + "-grams");
    grams += static_cast<std::size_t>((end - counts[n]) / static_cast<std::int64_t>(n + 1));
  }
  if (indexes.size() != grams)
    c.fail(Errc::bad_attribute, "ngram_indexes has " + std::to_string(indexes.size()) + " entries; the pool holds " +
                                    std::to_string(grams) + " n-grams");
  for (const std::int64_t i : indexes)
    if (i < 0 || i >= max_attr) c.fail(Errc::bad_attribute, "ngram_indexes holds " + std::to_string(i) + "; expected >= 0");
  if (c.has("weights") && c.attr("weights").as_floats().size() != grams)
    c.fail(Errc::bad_attribute, "weights has " + std::to_string(c.attr("weights").as_floats().size()) +
                                    " entries; expected one per n-gram (" + std::to_string(grams) + ")");
  if (c.has("pool_strings") && !c.attr("pool_strings").as_strings().empty())
    c.fail(Errc::unsupported, "pool_strings: ge has no string tensors; expected pool_int64s");
  return grams;
}

std::vector<TensorDesc> infer_tfidf(const InferContext& c) {
  require_rank(c, 0, 1, 2);
  (void)checked_ngrams(c);
  std::int64_t width = 0;
  for (const std::int64_t i : c.attr("ngram_indexes").as_ints()) width = std::max(width, i + 1);
  const Shape& x = c.shape(0);
  if (!x.rank_known()) return {{DataType::f32, Shape::unknown_rank()}};
  return {{DataType::f32, x.rank() == 1 ? Shape{Dim(width)} : Shape{x.dims()[0], Dim(width)}}};
}

}  // namespace

void add_spectral_ops(OpRegistry& r) {
  add_op(r, onnx_op(17),
         schema("DFT", "the discrete Fourier transform of [batch, signal..., 1 or 2] along axis (complex out: last dim 2)",
                {arg("input", "T1"), opt("dft_length", "T2")}, {arg("output", "T1")}, {{"T1", kFloats}, {"T2", kIndex}},
                {attr("axis", 1), attr("inverse", 0, int_in(0, 1)), attr("onesided", 0, int_in(0, 1))}, infer_dft));
  add_op(r, onnx_op(17),
         schema("STFT", "the short-time Fourier transform of [batch, length, 1 or 2]: frames every frame_step, windowed",
                {arg("signal", "T1"), arg("frame_step", "T2"), opt("window", "T1"), opt("frame_length", "T2")},
                {arg("output", "T1")}, {{"T1", kFloats}, {"T2", kIndex}}, {attr("onesided", 1, int_in(0, 1))}, infer_stft));
  add_op(r, onnx_op(17),
         schema("MelWeightMatrix", "triangular mel filters over the bins of a DFT: [dft_length / 2 + 1, num_mel_bins]",
                {arg("num_mel_bins", "T1"), arg("dft_length", "T1"), arg("sample_rate", "T1"),
                 arg("lower_edge_hertz", "T2"), arg("upper_edge_hertz", "T2")},
                {arg("output", "T3")}, {{"T1", kIndex}, {"T2", kFloats}, {"T3", kFloats}},
                {attr("output_datatype", 1, output_type_check)}, infer_mel));
  add_op(r, onnx_op(13),
         schema("TfIdfVectorizer", "n-gram counts (TF), weights (IDF) or both (TFIDF) of integer tokens per row",
                {arg("X", "T")}, {arg("Y", "f32")}, {{"T", kIndex}},
                {attr_req("max_gram_length", AttrKind::integer, int_at_least(1)),
                 attr_req("min_gram_length", AttrKind::integer, int_at_least(1)),
                 attr_req("max_skip_count", AttrKind::integer, int_at_least(0)),
                 attr_req("mode", AttrKind::string, one_of({"TF", "IDF", "TFIDF"})),
                 attr_req("ngram_counts", AttrKind::integers), attr_req("ngram_indexes", AttrKind::integers),
                 attr("pool_int64s", std::vector<std::int64_t>{}), attr_opt("pool_strings", AttrKind::strings),
                 attr_opt("weights", AttrKind::floats)},
                infer_tfidf));
}

}  // namespace ge::ops
