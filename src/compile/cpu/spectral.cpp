// CPU kernels of src/ops/spectral.cpp: DFT, STFT, MelWeightMatrix and TfIdfVectorizer.
// The scalar inputs that size the output (dft_length, frame_step, frame_length,
// num_mel_bins, dft_length) are read per run; when one is not a constant the kernel is
// data-dependent (make_shaped_kernel).
#include <vector>

#include "compile/cpu/lower.hpp"
#include "ge/ops/registry.hpp"
#include "kernels/cpu/sequence/spectral.hpp"

namespace ge::cpu_lower {

namespace {

// The one value of input `i` (an integer scalar or one-element tensor).
std::int64_t scalar_of(const char* op, Views in, std::size_t i, const char* name) {
  const std::vector<std::int64_t> v = read_ints(op, in[i]);
  if (v.size() != 1) fail(Errc::bad_op_inputs, op, std::string(name) + " holds " + std::to_string(v.size()) + " values; expected one");
  return v[0];
}

double float_of(const char* op, Views in, std::size_t i) {
  const std::vector<double> v = read_doubles(op, in[i]);
  if (v.size() != 1) fail(Errc::bad_op_inputs, op, "input " + std::to_string(i) + " holds " + std::to_string(v.size()) + " values; expected one");
  return v[0];
}

bool float_input(const KernelRequest& r) { return input_type_in(r, 0, {DataType::f32, DataType::f64}); }

std::shared_ptr<const Kernel> make_dft(const KernelRequest& req) {
  const InferContext& c = req.context;
  const std::int64_t axis_attr = c.i("axis");
  const bool inverse = c.i("inverse") != 0, onesided = c.i("onesided") != 0;
  return make_shaped_kernel("cpu.dft", req, {1}, [=](Views in, Views out) {
    const auto r = static_cast<std::int64_t>(in[0].rank());
    const std::int64_t axis = axis_attr < 0 ? axis_attr + r : axis_attr;
    const std::int64_t length = optional_input(in, 1) != nullptr ? scalar_of("DFT", in, 1, "dft_length")
                                : axis >= 0 && axis < r ? in[0].dims[static_cast<std::size_t>(axis)] : 0;
    cpu::dft({.axis = axis, .length = length, .inverse = inverse, .onesided = onesided}, in[0], out[0]);
  });
}

std::shared_ptr<const Kernel> make_stft(const KernelRequest& req) {
  const bool onesided = req.context.i("onesided") != 0;
  return make_shaped_kernel("cpu.stft", req, {1, 3}, [=](Views in, Views out) {
    const TensorView* window = optional_input(in, 2);
    const std::int64_t length = optional_input(in, 3) != nullptr ? scalar_of("STFT", in, 3, "frame_length")
                                : window != nullptr ? window->elements() : 0;
    cpu::stft({.step = scalar_of("STFT", in, 1, "frame_step"), .length = length, .onesided = onesided}, in[0], window,
              out[0]);
  });
}

std::shared_ptr<const Kernel> make_mel(const KernelRequest& req) {
  return make_shaped_kernel("cpu.mel_weight_matrix", req, {0, 1}, [](Views in, Views out) {
    cpu::mel_weight_matrix({.bins = scalar_of("MelWeightMatrix", in, 0, "num_mel_bins"),
                            .dft_length = scalar_of("MelWeightMatrix", in, 1, "dft_length"),
                            .sample_rate = scalar_of("MelWeightMatrix", in, 2, "sample_rate"),
                            .lower = float_of("MelWeightMatrix", in, 3),
                            .upper = float_of("MelWeightMatrix", in, 4)},
                           out[0]);
  });
}

std::shared_ptr<const Kernel> make_tfidf(const KernelRequest& req) {
  const InferContext& c = req.context;
  cpu::TfIdfParams p;
  p.min_gram = c.i("min_gram_length");
  p.max_gram = c.i("max_gram_length");
  p.max_skip = c.i("max_skip_count");
  p.mode = c.s("mode");
  p.indexes = c.attr("ngram_indexes").as_ints();
  if (c.has("weights")) p.weights = c.attr("weights").as_floats();
  const auto& counts = c.attr("ngram_counts").as_ints();
  const auto& pool = c.attr("pool_int64s").as_ints();
  for (std::size_t n = 0; n < counts.size(); ++n) {
    const std::int64_t end = n + 1 < counts.size() ? counts[n + 1] : static_cast<std::int64_t>(pool.size());
    for (std::int64_t at = counts[n]; at < end; at += static_cast<std::int64_t>(n + 1))
      p.grams.emplace_back(pool.begin() + at, pool.begin() + at + static_cast<std::int64_t>(n + 1));
  }
  return make_kernel("cpu.tfidf_vectorizer", [p](Views in, Views out) { cpu::tfidf(p, in[0], out[0]); });
}

}  // namespace

void register_cpu_spectral(KernelRegistry& r) {
  r.add({.op = "DFT", .name = "cpu.dft", .engines = engines(Engine::vector), .fits = float_input, .make = make_dft});
  r.add({.op = "STFT", .name = "cpu.stft", .engines = engines(Engine::vector), .fits = float_input, .make = make_stft});
  r.add({.op = "MelWeightMatrix", .name = "cpu.mel_weight_matrix", .engines = engines(Engine::vector), .make = make_mel});
  r.add({.op = "TfIdfVectorizer", .name = "cpu.tfidf_vectorizer", .engines = engines(Engine::vector), .make = make_tfidf});
}

}  // namespace ge::cpu_lower
