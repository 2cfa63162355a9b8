// libFuzzer target for the run-time boundary: `Session::run` on small compiled models
// (fixed shapes, batch gears, a bounded range, an unbounded signature, a conv with its
// weights packed) with inputs and caller outputs whose count, data type, rank, dims,
// buffer and known capacity, and aliasing come from the fuzzer's bytes.
//
// Every buffer is either as large as its dims say, or its view knows how large it is (a
// view that lies about raw memory is the caller's bug, not a boundary ge can check). Any
// ge::Error is an accepted outcome; another exception type, a crash, a sanitizer report,
// or a session that fails a good run afterwards is a finding (__builtin_trap).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "ge/ge.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The fuzzer's bytes, read front to back; zeros once they run out.
struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::int64_t dim() {
    switch (u8() % 8) {
      case 0: return 0;
      case 1: return -1 - u8() % 3;                       // negative
      case 2: return std::int64_t{1} << (30 + u8() % 33);  // huge
      default: return 1 + u8() % 9;
    }
  }
};

struct Model {
  std::shared_ptr<const ge::CompiledModel> model;
  std::unique_ptr<ge::Session> session;
  std::vector<std::int64_t> good;  // dims of a run that must succeed
};

ge::Graph elementwise(const char* shape) {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, shape);
  b.output(x.relu("relu") * 2.0 + 1.0);
  return b.build();
}

std::vector<Model>& models() {
  static std::vector<Model> m = [] {
    std::vector<Model> v;
    const auto add = [&](std::shared_ptr<const ge::CompiledModel> c, std::vector<std::int64_t> good) {
      auto s = std::make_unique<ge::Session>(c, ge::SessionOptions{.threads = 2, .memory_limit = 64 << 20});
      v.push_back({std::move(c), std::move(s), std::move(good)});
    };
    add(ge::compile(elementwise("2,4")), {2, 4});
    add(ge::compile(elementwise("-1,4"), {{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "1,2,4"}}), {2, 4});
    add(ge::compile(elementwise("1~8,4")), {3, 4});
    add(ge::compile(elementwise("-1,-1")), {2, 5});
    ge::GraphBuilder b;
    const auto x = b.input("x", ge::DataType::f32, "1~2,3,8,8");
    b.output(x.conv2d(b.random_weights("w", {4, 3, 3, 3}, 1), {.pad = 1}).relu());
    add(ge::compile(b.build()), {1, 3, 8, 8});
    return v;
  }();
  return m;
}

constexpr std::int64_t kMaxBytes = 1 << 20;

// A buffer for a view of `dims` and `dtype`: as large as the dims say when that is small,
// else (or when the bytes ask for it) smaller, with the view knowing its capacity.
struct Buffer {
  std::vector<std::byte> bytes;
  ge::TensorView view;
};

Buffer make_buffer(Bytes& in, ge::DataType dtype, const std::vector<std::int64_t>& dims) {
  Buffer b;
  std::int64_t need = 0;
  bool fits = true;
  try {
    need = ge::checked_bytes(dims, dtype);
  } catch (const ge::Error&) {
    fits = false;  // overflowing or negative dims: any small buffer, capacity known
  }
  const std::uint8_t how = in.u8() % 4;
  if (fits && need <= kMaxBytes && how != 0) {
    b.bytes.resize(static_cast<std::size_t>(need));
    b.view = ge::TensorView(b.bytes.data(), dtype, dims, how == 1 ? need : -1);
  } else {
    b.bytes.resize(static_cast<std::size_t>(in.u8()) * 4);
    b.view = ge::TensorView(b.bytes.data(), dtype, dims, static_cast<std::int64_t>(b.bytes.size()));
  }
  if (in.u8() % 16 == 0) b.view.data = nullptr;  // a null buffer, sometimes
  return b;
}

void good_run(Model& m) {
  std::vector<float> x(static_cast<std::size_t>(ge::checked_elements(m.good)), 0.5f);
  const ge::RunResult r = m.session->run({ge::TensorView(std::span(x), m.good)});
  check(r.outputs.size() == 1 && !r.outputs[0].values<float>().empty());
}

void fuzz_one(Bytes in) {
  Model& m = models()[in.u8() % models().size()];
  static constexpr ge::DataType types[] = {ge::DataType::f32, ge::DataType::f32, ge::DataType::f64,
                                           ge::DataType::i64, ge::DataType::undefined, ge::DataType::boolean};
  const std::size_t count = in.u8() % 4 == 0 ? in.u8() % 3 : 1;
  std::vector<Buffer> inputs(count);
  for (Buffer& b : inputs) {
    const ge::DataType dtype = types[in.u8() % std::size(types)];
    std::vector<std::int64_t> dims(in.u8() % 6);
    for (std::int64_t& d : dims) d = in.dim();
    b = make_buffer(in, dtype, dims);
  }
  std::vector<ge::TensorView> views;
  for (const Buffer& b : inputs) views.push_back(b.view);
  const std::uint8_t outs = in.u8() % 4;
  try {
    if (outs == 0) {
      (void)m.session->run(views);
    } else {
      std::vector<Buffer> out_buffers(outs == 3 ? 2 : 1);
      std::vector<ge::TensorView> out_views;
      for (Buffer& b : out_buffers) {
        std::vector<std::int64_t> dims(in.u8() % 5);
        for (std::int64_t& d : dims) d = in.dim();
        b = make_buffer(in, types[in.u8() % 2], dims);
        out_views.push_back(b.view);
      }
      if (outs == 2 && !views.empty()) out_views[0] = views[0];  // the input's own buffer
      (void)m.session->run(views, out_views);
    }
  } catch (const ge::Error&) {
  } catch (...) {
    check(false);  // only ge::Error may leave the library
  }
  good_run(m);  // the session stays usable
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_one(Bytes{data, size});
  return 0;
}
