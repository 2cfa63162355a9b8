// libFuzzer target for model files' descriptions: a few real model files (made at start:
// packed and portable weights, gears, a range, a weight-only graph output) edited inside
// their description by the fuzzer's bytes, the checksum resealed, then loaded and, when
// they load, run. Unlike fuzz_model_file (any bytes), every input here is a real file
// with a few lies in it, so the edits reach the graph, the packed states and the plans
// rather than stopping at the header. Any ge::Error is an accepted outcome; another
// exception type, a crash or a sanitizer report is a finding.
//   build/fuzz/tests/fuzz/fuzz_model_desc -max_total_time=1800 -rss_limit_mb=2048 <work dir>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <vector>

#include "compile/model_file_format.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/ge.hpp"

namespace {

#if defined(GE_FUZZ_STATS)  // a standalone driver's counts
std::size_t stats_loaded = 0, stats_refused = 0;
#endif

struct Base {
  std::vector<std::byte> file;
  std::size_t meta_at = 0, meta_n = 0;
};

ge::Graph small_net() {
  ge::GraphBuilder b;
  const auto x = b.input("image", ge::DataType::f32, "-1,3,6,6", ge::Format::nchw);
  const auto w = b.constant("w", ge::Tensor::random(ge::DataType::f32, {4, 3, 3, 3}, 1));
  const auto bias = b.constant("bias", ge::Tensor::random(ge::DataType::f32, {4}, 2));
  const auto conv = b.op("Conv", {x, w, bias}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}, "conv");
  const auto pooled = b.op("GlobalAveragePool", {b.op("Relu", {conv}, {}, "relu")}, {}, "pool");
  const auto flat = b.op("Flatten", {pooled}, {}, "flat");
  const auto fc = b.constant("fc", ge::Tensor::random(ge::DataType::f32, {4, 5}, 3));
  b.output(b.op("MatMul", {flat, fc}, {}, "logits"));
  return b.build();
}

ge::Graph matmul_and_weight_out() {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,4");
  const auto w = b.constant("w", ge::Tensor::random(ge::DataType::f32, {4, 3}, 4));
  const auto k = b.constant("k", ge::Tensor::random(ge::DataType::f32, {3}, 5));
  b.output(b.op("MatMul", {x, w}, {}, "y"));
  b.output(k);
  return b.build();
}

std::vector<Base>& bases() {
  static std::vector<Base> v = [] {
    std::vector<Base> out;
    ge::CompileSettings keep;
    keep.keep_weights = true;
    const auto add = [&](const std::shared_ptr<const ge::CompiledModel>& m, ge::ModelWeights w) {
      Base b;
      b.file = ge::save_to_memory(*m, w);
      b.meta_at = ge::detail::load_le<std::uint64_t>(b.file.data() + ge::detail::ModelHeaderAt::meta_offset);
      b.meta_n = ge::detail::load_le<std::uint64_t>(b.file.data() + ge::detail::ModelHeaderAt::meta_bytes);
      out.push_back(std::move(b));
    };
    const ge::Graph net = small_net();
    add(ge::compile(net, ge::batch_gears(net, {1, 2}), ge::default_target(), keep), ge::ModelWeights::packed);
    add(ge::compile(net, ge::batch_gears(net, {1, 2}), ge::default_target(), keep), ge::ModelWeights::portable);
    add(ge::compile(net, ge::BuildOptions{{"ge.inputShape", "image:1~3,3,6,6"}}), ge::ModelWeights::packed);
    add(ge::compile(matmul_and_weight_out()), ge::ModelWeights::packed);
    return out;
  }();
  return v;
}

// Runs every plan the model made at compile time once, on zeros of its input shapes.
void run_all(const std::shared_ptr<const ge::CompiledModel>& model) {
  // A lie can make a valid graph that needs gigabytes (an Expand to 2^32 elements): the
  // session's memory limit refuses it, as a server's should.
  ge::Session session(model, {.threads = 1, .memory_limit = 256 << 20});
  for (const auto& plan : model->plans()) {
    std::vector<std::vector<std::byte>> data;
    std::vector<std::vector<std::int64_t>> dims;
    std::vector<ge::TensorView> views;
    for (std::size_t i = 0; i < plan->input_shapes.size(); ++i) {
      std::vector<std::int64_t> d;
      std::int64_t n = 1;
      if (!plan->input_shapes[i].rank_known()) return;
      for (const ge::Dim& x : plan->input_shapes[i].dims()) {
        const std::int64_t v = x.is_bounded() ? x.hi() : x.lo() + 1;
        if (v > 64) return;  // a lie about sizes that would only spend memory
        d.push_back(v);
        n *= v;
      }
      dims.push_back(d);
      data.emplace_back(static_cast<std::size_t>(n) * ge::size_of(model->inputs()[i].dtype));
    }
    for (std::size_t i = 0; i < dims.size(); ++i)
      views.push_back(ge::TensorView(data[i].data(), model->inputs()[i].dtype, dims[i], static_cast<std::int64_t>(data[i].size())));
    try {
      (void)session.run(views);
    } catch (const ge::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Base& base = bases()[data[0] % bases().size()];
  std::vector<std::byte> file = base.file;
  // Edits of 6 bytes each: a 4-byte offset into the description, a kind, a value.
  for (std::size_t at = 1; at + 6 <= size; at += 6) {
    std::uint32_t off = 0;
    std::memcpy(&off, data + at, 4);
    const std::size_t p = base.meta_at + off % base.meta_n;
    const std::uint8_t kind = data[at + 4], value = data[at + 5];
    switch (kind % 6) {
      case 0: file[p] = std::byte(value); break;                                     // any byte
      case 1: file[p] = std::byte(static_cast<std::uint8_t>(file[p]) ^ (1u << (value % 8))); break;  // a bit
      case 2:                                                                        // a small count or id
        if (p + 4 <= base.meta_at + base.meta_n) ge::detail::store_le<std::uint32_t>(file.data() + p, value % 16);
        break;
      case 3:  // off by one
        if (p + 4 <= base.meta_at + base.meta_n)
          ge::detail::store_le<std::uint32_t>(file.data() + p, ge::detail::load_le<std::uint32_t>(file.data() + p) + (value % 2 ? 1u : ~0u));
        break;
      case 4:  // a large 64-bit number (offsets, sizes, dims)
        if (p + 8 <= base.meta_at + base.meta_n)
          ge::detail::store_le<std::uint64_t>(file.data() + p, std::uint64_t{1} << (value % 64));
        break;
      default:  // a 64-bit number off by a multiple of 64 (blob offsets stay aligned)
        if (p + 8 <= base.meta_at + base.meta_n)
          ge::detail::store_le<std::uint64_t>(file.data() + p,
                                              ge::detail::load_le<std::uint64_t>(file.data() + p) + 64u * (value % 8));
        break;
    }
  }
  ge::detail::seal_model_file(file);
  try {
    const auto model = ge::load_compiled(std::span<const std::byte>(file));
#if defined(GE_FUZZ_STATS)
    ++stats_loaded;
#endif
    run_all(model);
  } catch (const ge::Error&) {
#if defined(GE_FUZZ_STATS)
    ++stats_refused;
#endif
  }
  return 0;
}
