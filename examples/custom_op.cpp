// A custom op with its own CPU kernel (docs/custom-ops.md): Swish(x) = x * sigmoid(beta * x).
// Its schema (types, attribute with default and check, in-place, shape rule) goes into
// ge::OpRegistry, its kernel into ge::KernelRegistry; then graphs built in code use it like
// any op, compiled with batch gears, and the single-op API runs it alone. Prints
// "custom_op: ok" when every result is right.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ge/ge.hpp"

namespace {

// The kernel: holds what does not depend on shapes (beta); runs on any dims.
class SwishKernel final : public ge::Kernel {
 public:
  explicit SwishKernel(double beta) : beta_(static_cast<float>(beta)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "example.swish"; }
  void run(std::span<const ge::TensorView> in, std::span<const ge::TensorView> out) const override {
    const auto* x = static_cast<const float*>(in[0].data);
    auto* y = static_cast<float*>(out[0].data);  // may be x itself: the schema allows in place
    const std::int64_t n = in[0].elements();
    for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-beta_ * x[i]));
  }

 private:
  float beta_;
};

void register_swish() {
  ge::OpSchema s;
  s.name = "Swish";
  s.doc = "x * sigmoid(beta * x)";
  s.inputs = {{"X", "T"}};
  s.outputs = {{"Y", "T"}};
  s.types = {{"T", ge::TypeSet{ge::DataType::f32}}};
  s.attrs = {{.name = "beta",
              .kind = ge::AttrKind::floating,
              .default_value = 1.0,
              .check = [](const ge::Attribute& a) { return a.as_float() > 0 ? "" : "a value > 0"; }}};
  s.in_place = {{0, 0}};  // Y may take X's memory when nothing else reads X
  s.infer = [](const ge::InferContext& c) { return std::vector<ge::TensorDesc>{c.input(0)}; };
  ge::OpRegistry::global().add(std::move(s));
  ge::KernelRegistry::global().add({.op = "Swish",
                                    .name = "example.swish",
                                    .engines = ge::engines(ge::Engine::vector),
                                    .make = [](const ge::KernelRequest& r) -> std::shared_ptr<const ge::Kernel> {
                                      return std::make_shared<SwishKernel>(r.context.f("beta"));
                                    }});
}

float swish(float x, float beta) { return x / (1.0f + std::exp(-beta * x)); }

}  // namespace

int main() {
  try {
    register_swish();

    // A graph: y = Swish(x @ W, beta 2) + x @ W, over batch gears 1, 2 and 4.
    ge::GraphBuilder b;
    const auto x = b.input("x", ge::DataType::f32, "-1,8");
    const auto w = b.constant("w", ge::Tensor::full(ge::DataType::f32, {8, 8}, 0.125));
    const auto h = x.matmul(w, "proj");
    b.output(b.op("Add", {b.op("Swish", {h}, {{"beta", 2.0}}, "swish"), h}, {}, "y"));
    const auto model = ge::compile(b.build(), ge::batch_gears(b.build(), {1, 2, 4}));
    ge::Session session(model);
    bool ok = true;
    for (const std::int64_t batch : {1, 3}) {
      std::vector<float> in(static_cast<std::size_t>(batch * 8));
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 5) - 1.5f;
      // Batch 3 has no gear of its own: pad to the next one (gear_for(dims, true)).
      const std::vector<std::vector<std::int64_t>> dims = {{batch, 8}};
      const auto gear = model->gear_for(dims, true);
      std::vector<float> padded(in);
      padded.resize(static_cast<std::size_t>(model->gears().at(*gear).shapes[0].dims()[0].lo() * 8), 0.f);
      const std::int64_t gear_dims[] = {static_cast<std::int64_t>(padded.size() / 8), 8};
      const auto r = session.run({{"x", ge::TensorView{padded.data(), ge::DataType::f32, gear_dims}}});
      const auto y = r["y"].values<float>();
      for (std::int64_t i = 0; i < batch; ++i) {
        float hv = 0;
        for (int k = 0; k < 8; ++k) hv += in[static_cast<std::size_t>(i * 8 + k)] * 0.125f;
        const float expect = swish(hv, 2.0f) + hv;
        for (int j = 0; j < 8; ++j) ok = ok && std::abs(y[static_cast<std::size_t>(i * 8 + j)] - expect) < 1e-5f;
      }
      std::printf("batch %lld on gear %d (batch %lld): y[0] = %.5f\n", static_cast<long long>(batch), r.gear,
                  static_cast<long long>(gear_dims[0]), static_cast<double>(y[0]));
    }

    // The op alone, through the single-op API: the same kernel.
    const auto op = ge::compile_op("Swish", {ge::OpTensor{ge::DataType::f32, ge::Shape::parse("4")}}, {}, {});
    std::vector<float> v = {-2.f, -0.5f, 0.5f, 2.f}, out(4);
    const std::int64_t d4[] = {4};
    ge::execute_op(*op, std::vector<ge::TensorView>{{v.data(), ge::DataType::f32, d4}},
                   std::vector<ge::TensorView>{{out.data(), ge::DataType::f32, d4}});
    for (std::size_t i = 0; i < 4; ++i) ok = ok && std::abs(out[i] - swish(v[i], 1.0f)) < 1e-6f;
    std::printf("single op: kernel %s, Swish(2) = %.5f\n", std::string(op->kernel->name()).c_str(),
                static_cast<double>(out[3]));

    // A bad attribute is the schema's clear error.
    try {
      (void)ge::compile_op("Swish", {ge::OpTensor{ge::DataType::f32, ge::Shape::parse("4")}}, {}, {{"beta", -1.0}});
      ok = false;
    } catch (const ge::Error& e) {
      std::printf("beta -1: %s [%s]\n", e.what(), std::string(ge::to_string(e.code())).c_str());
      ok = ok && e.code() == ge::Errc::bad_attribute;
    }
    std::printf(ok ? "custom_op: ok\n" : "custom_op: WRONG RESULTS\n");
    return ok ? 0 : 1;
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "custom_op: %s\n", e.what());
    return 1;
  }
}
