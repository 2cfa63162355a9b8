// Tests of the CPU kernels behind compile_op/execute_op (src/compile/cpu): every
// registered op has a kernel, and each kernel's output matches a direct reference
// computed here, with the attributes that matter, fuzzy and ranged compiles, and the
// data-dependent path.
#include <doctest/doctest.h>

#include "support/op_buffers.hpp"

#include "support/expect_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/core/error.hpp"
#include "ge/ops/registry.hpp"

using ge::Attributes;
using ge::CompileFlag;
using ge::DataType;
using ge::EngineChoice;
using ge::Errc;
using ge::OpTensor;
using ge::Shape;
using ge::Tensor;
using ge::TensorView;
using Views = std::vector<TensorView>;

namespace {

using namespace ge::test::op;  // Buf, of, zeros, iota, bools, desc, f32, konst, run

using ge::test::expect_error;

void check_near(const std::vector<float>& got, const std::vector<float>& want, double eps = 1e-5) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    CHECK_MESSAGE(got[i] == doctest::Approx(want[i]).epsilon(eps).scale(1.0), "element " << i);
}

}  // namespace

TEST_CASE("every registered op has a CPU kernel on each engine its schema allows") {
  const auto ops = ge::OpRegistry::global().names();
  CHECK(ops.size() >= 55);
  for (const std::string& op : ops) {
    CHECK_MESSAGE(!ge::KernelRegistry::global().names(op).empty(), op);
  }
}

// ---- elementwise -------------------------------------------------------------------

TEST_CASE("unary ops match std:: references") {
  struct Case {
    const char* op;
    Attributes attrs;
    double (*ref)(double);
  };
  const std::vector<Case> cases{
      {"Sqrt", {}, [](double v) { return std::sqrt(std::fabs(v)); }},
      {"Exp", {}, [](double v) { return std::exp(v); }},
      {"Log", {}, [](double v) { return std::log(std::fabs(v)); }},
      {"Erf", {}, [](double v) { return std::erf(v); }},
      {"Tanh", {}, [](double v) { return std::tanh(v); }},
      {"Sigmoid", {}, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"HardSwish", {}, [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }},
      {"Neg", {}, [](double v) { return -v; }},
      {"Abs", {}, [](double v) { return std::fabs(v); }},
      {"Relu", {}, [](double v) { return std::max(v, 0.0); }},
      {"LeakyRelu", {{"alpha", 0.2}}, [](double v) { return v >= 0 ? v : 0.2 * v; }},
      {"Gelu", {}, [](double v) { return v * (1 + std::erf(v / std::sqrt(2.0))) / 2; }},
      {"Gelu", {{"approximate", "tanh"}},
       [](double v) { return v * (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v))) / 2; }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.op);
    const bool positive = std::string(c.op) == "Sqrt" || std::string(c.op) == "Log";
    auto x = iota({2, 5}, positive ? 0.25f : -2.f, 0.45f);
    auto y = zeros({2, 5});
    const auto op = ge::compile_op(c.op, {f32("2,5")}, {f32("2,5")}, c.attrs);
    run(*op, {x.view()}, {y.view()});
    std::vector<float> want;
    for (float v : x.data) want.push_back(static_cast<float>(c.ref(v)));
    check_near(y.data, want, 1e-4);
  }
  // Integer Neg, Abs, Relu.
  auto xi = of<std::int64_t>({4}, {-3, -1, 0, 5});
  auto yi = zeros<std::int64_t>({4});
  run(*ge::compile_op("Abs", {desc(DataType::i64, "4")}, {}), {xi.view()}, {yi.view()});
  CHECK(yi.data == std::vector<std::int64_t>{3, 1, 0, 5});
}

TEST_CASE("Clip with both bounds as inputs") {
  auto x = iota({5}, -2.f), lo = of<float>({}, {-1.f}), hi = of<float>({}, {1.5f}), y = zeros({5});
  const auto op = ge::compile_op("Clip", {f32("5"), f32(""), f32("")}, {});
  run(*op, {x.view(), lo.view(), hi.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{-1.f, -1.f, 0.f, 1.f, 1.5f});
}

TEST_CASE("binary arithmetic broadcasts; comparisons write bool; Where selects") {
  auto a = iota({2, 3}, 1.f), b = of<float>({3}, {2.f, 4.f, 8.f});
  const struct {
    const char* op;
    float (*f)(float, float);
  } ops[] = {{"Add", [](float u, float v) { return u + v; }},
             {"Sub", [](float u, float v) { return u - v; }},
             {"Mul", [](float u, float v) { return u * v; }},
             {"Div", [](float u, float v) { return u / v; }},
             {"Pow", [](float u, float v) { return std::pow(u, v); }}};
  for (const auto& o : ops) {
    CAPTURE(o.op);
    auto y = zeros({2, 3});
    run(*ge::compile_op(o.op, {f32("2,3"), f32("3")}, {}), {a.view(), b.view()}, {y.view()});
    std::vector<float> want;
    for (std::size_t i = 0; i < 6; ++i) want.push_back(o.f(a.data[i], b.data[i % 3]));
    check_near(y.data, want);
  }
  auto ia = of<std::int64_t>({3}, {7, -7, 9}), ib = of<std::int64_t>({1}, {2}), iy = zeros<std::int64_t>({3});
  run(*ge::compile_op("Div", {desc(DataType::i64, "3"), desc(DataType::i64, "1")}, {}), {ia.view(), ib.view()},
      {iy.view()});
  CHECK(iy.data == std::vector<std::int64_t>{3, -3, 4});

  auto p = of<float>({4}, {1.f, 2.f, 3.f, 4.f}), q = of<float>({4}, {1.f, 3.f, 2.f, 4.f});
  const struct {
    const char* op;
    std::vector<std::uint8_t> want;
  } cmps[] = {{"Equal", {1, 0, 0, 1}}, {"Less", {0, 1, 0, 0}}, {"Greater", {0, 0, 1, 0}}};
  for (const auto& c : cmps) {
    CAPTURE(c.op);
    auto y = bools({4}, {9, 9, 9, 9});
    const auto op = ge::compile_op(c.op, {f32("4"), f32("4")}, {desc(DataType::boolean, "4")});
    run(*op, {p.view(), q.view()}, {y.view()});
    CHECK(y.data == c.want);
  }
  auto cond = bools({2, 1}, {1, 0});
  auto x = iota({2, 2}), other = of<float>({2}, {-1.f, -2.f}), w = zeros({2, 2});
  run(*ge::compile_op("Where", {desc(DataType::boolean, "2,1"), f32("2,2"), f32("2")}, {}),
      {cond.view(), x.view(), other.view()}, {w.view()});
  CHECK(w.data == std::vector<float>{0.f, 1.f, -1.f, -2.f});
}

TEST_CASE("types without a kernel are no_kernel at compile time") {
  // (f16/bf16 compute in f32 between casts: widen_test.cpp.)
  expect_error(
      [] {
        (void)ge::compile_op("BatchNormalization",
                             {desc(DataType::f64, "1,2,2"), desc(DataType::f64, "2"), desc(DataType::f64, "2"),
                              desc(DataType::f64, "2"), desc(DataType::f64, "2")},
                             {}, {{"training_mode", std::int64_t{1}}});
      },
      Errc::no_kernel, "BatchNormalization");
}

TEST_CASE("Cast f32 to i64 truncates; i64 to f32") {
  auto x = of<float>({4}, {1.9f, -1.9f, 0.f, 42.5f});
  auto y = zeros<std::int64_t>({4});
  run(*ge::compile_op("Cast", {f32("4")}, {}, {{"to", "i64"}}), {x.view()}, {y.view()});
  CHECK(y.data == std::vector<std::int64_t>{1, -1, 0, 42});
  auto back = zeros({4});
  run(*ge::compile_op("Cast", {desc(DataType::i64, "4")}, {}, {{"to", "f32"}}), {y.view()}, {back.view()});
  CHECK(back.data == std::vector<float>{1.f, -1.f, 0.f, 42.f});
}

// ---- matrix products and convolutions ------------------------------------------------

TEST_CASE("MatMul: batched with a packed constant B, and broadcast batches at run time") {
  auto a = iota({2, 2, 3}, 0.f, 0.5f), b = iota({3, 4}, -1.f, 0.25f), y = zeros({2, 2, 4});
  const auto op = ge::compile_op("MatMul", {f32("2,2,3"), konst(b)}, {});
  CHECK(op->kernel->name() == "cpu.matmul.packed_b");
  run(*op, {a.view(), b.view()}, {y.view()});
  std::vector<float> want;
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 4; ++n) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += a.data[std::size_t(m * 3 + k)] * b.data[std::size_t(k * 4 + n)];
      want.push_back(static_cast<float>(s));
    }
  check_near(y.data, want);
  // B [2, 3, 2] against A [1, 2, 3]: A's batch broadcasts.
  auto a1 = iota({1, 2, 3}), b2 = iota({2, 3, 2}, 1.f), y2 = zeros({2, 2, 2});
  run(*ge::compile_op("MatMul", {f32("1,2,3"), f32("2,3,2")}, {}), {a1.view(), b2.view()}, {y2.view()});
  std::vector<float> want2;
  for (int bt = 0; bt < 2; ++bt)
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 2; ++n) {
        float s = 0;
        for (int k = 0; k < 3; ++k) s += a1.data[std::size_t(m * 3 + k)] * b2.data[std::size_t(bt * 6 + k * 2 + n)];
        want2.push_back(s);
      }
  check_near(y2.data, want2);
}

TEST_CASE("Gemm: transB, alpha, beta and a broadcast C") {
  auto a = iota({2, 3}), b = iota({4, 3}, 1.f), c = of<float>({4}, {1.f, 2.f, 3.f, 4.f}), y = zeros({2, 4});
  const auto op = ge::compile_op("Gemm", {f32("2,3"), f32("4,3"), f32("4")}, {},
                                 {{"transB", std::int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}});
  run(*op, {a.view(), b.view(), c.view()}, {y.view()});
  std::vector<float> want;
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 4; ++n) {
      float s = 0;
      for (int k = 0; k < 3; ++k) s += a.data[std::size_t(m * 3 + k)] * b.data[std::size_t(n * 3 + k)];
      want.push_back(0.5f * s + 2.f * c.data[std::size_t(n)]);
    }
  check_near(y.data, want);
}

TEST_CASE("Gemm with constant B and C packs B once; the other cases run the general product") {
  auto a = iota({2, 3}), b = iota({4, 3}, 1.f), c = of<float>({4}, {1.f, 2.f, 3.f, 4.f}), y = zeros({2, 4});
  const auto want_of = [&](bool trans_b, float alpha, float beta, bool with_c, bool scalar_c) {
    std::vector<float> want;
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 4; ++n) {
        float s = 0;
        for (int k = 0; k < 3; ++k)
          s += a.data[std::size_t(m * 3 + k)] * (trans_b ? b.data[std::size_t(n * 3 + k)] : b.data[std::size_t(k * 4 + n)]);
        want.push_back(alpha * s + (with_c ? beta * c.data[std::size_t(scalar_c ? 0 : n)] : 0.f));
      }
    return want;
  };
  // transB, alpha, beta, C per column: packed.
  auto op = ge::compile_op("Gemm", {f32("2,3"), konst(b), konst(c)}, {},
                           {{"transB", std::int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}});
  CHECK(op->kernel->name() == "cpu.gemm.packed_b");
  run(*op, {a.view(), b.view(), c.view()}, {y.view()});
  check_near(y.data, want_of(true, 0.5f, 2.f, true, false));
  // No transB (B as [3, 4]), no C: packed.
  auto b34 = iota({3, 4}, 1.f);
  b = b34;
  op = ge::compile_op("Gemm", {f32("2,3"), konst(b)}, {});
  CHECK(op->kernel->name() == "cpu.gemm.packed_b");
  run(*op, {a.view(), b.view()}, {y.view()});
  check_near(y.data, want_of(false, 1.f, 1.f, false, false));
  // A scalar C broadcast to every element: packed.
  auto c1 = of<float>({1}, {3.f});
  c = c1;
  op = ge::compile_op("Gemm", {f32("2,3"), konst(b), konst(c)}, {}, {{"beta", 0.5}});
  CHECK(op->kernel->name() == "cpu.gemm.packed_b");
  run(*op, {a.view(), b.view(), c.view()}, {y.view()});
  check_near(y.data, want_of(false, 1.f, 0.5f, true, true));
  // A C per row ([2, 1]) or transA: the general product.
  auto c21 = of<float>({2, 1}, {1.f, 2.f});
  CHECK(ge::compile_op("Gemm", {f32("2,3"), konst(b), konst(c21)}, {})->kernel->name() == "cpu.gemm");
  CHECK(ge::compile_op("Gemm", {f32("3,2"), konst(b)}, {}, {{"transA", std::int64_t{1}}})->kernel->name() == "cpu.gemm");
}

TEST_CASE("ConvTranspose: stride 2 with pads, compared with a direct scatter") {
  auto x = iota({1, 2, 2, 3}, 0.5f, 0.25f), w = iota({2, 1, 3, 3}, -1.f, 0.125f), y = zeros({1, 1, 3, 5});
  const auto op = ge::compile_op("ConvTranspose", {f32("1,2,2,3"), f32("2,1,3,3")}, {f32("1,1,3,5")},
                                 {{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  run(*op, {x.view(), w.view()}, {y.view()});
  // Full output 5x7, cropped by 1 on each side.
  std::vector<double> full(5 * 7, 0.0);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int ki = 0; ki < 3; ++ki)
          for (int kj = 0; kj < 3; ++kj)
            full[std::size_t((2 * i + ki) * 7 + 2 * j + kj)] +=
                x.data[std::size_t(c * 6 + i * 3 + j)] * w.data[std::size_t(c * 9 + ki * 3 + kj)];
  std::vector<float> want;
  for (int i = 1; i < 4; ++i)
    for (int j = 1; j < 6; ++j) want.push_back(static_cast<float>(full[std::size_t(i * 7 + j)]));
  check_near(y.data, want, 1e-4);
}

TEST_CASE("Conv with auto_pad SAME_UPPER resolves pads per run (fuzzy: two shapes)") {
  auto w = of<float>({1, 1, 3, 3}, std::vector<float>(9, 1.f));
  const auto op = ge::compile_op("Conv", {f32("1,1,4,4"), konst(w)}, {f32("1,1,2,2")},
                                 {{"auto_pad", "SAME_UPPER"}, {"strides", Ints{2, 2}}}, EngineChoice::system,
                                 CompileFlag::fuzzy);
  for (std::int64_t n : {4, 5}) {
    auto x = of<float>({1, 1, n, n}, std::vector<float>(std::size_t(n * n), 1.f));
    const std::int64_t o = (n + 1) / 2;
    auto y = zeros({1, 1, o, o});
    run(*op, {x.view(), w.view()}, {y.view()});
    // SAME_UPPER with stride 2: total pad = max(0, (o-1)*2 + 3 - n), the extra at the end.
    const std::int64_t total = std::max<std::int64_t>(0, (o - 1) * 2 + 3 - n), begin = total / 2;
    for (std::int64_t i = 0; i < o; ++i)
      for (std::int64_t j = 0; j < o; ++j) {
        const auto inside = [&](std::int64_t s) { return std::min(s + 3, n) - std::max<std::int64_t>(s, 0); };
        const float want = static_cast<float>(inside(i * 2 - begin) * inside(j * 2 - begin));
        CHECK(y.data[std::size_t(i * o + j)] == want);
      }
  }
}

TEST_CASE("Conv 3x3 stride 1 runs Winograd from 16 channels in and out and 7x7 outputs; narrower ones the GEMM") {
  const auto kernel = [](std::int64_t c, std::int64_t m, std::int64_t hw) {
    const std::string x = "1," + std::to_string(c) + "," + std::to_string(hw) + "," + std::to_string(hw);
    const auto w = ge::Tensor::random(ge::DataType::f32, {m, c, 3, 3}, 3);
    return std::string(ge::compile_op("Conv", {f32(x.c_str()), ge::OpTensor::constant_of(w)}, {}, {{"pads", Ints{1, 1, 1, 1}}})
                           ->kernel->name());
  };
  CHECK(kernel(128, 32, 14) == "cpu.conv2d.packed_gemm.winograd");  // DenseNet's growth convs
  CHECK(kernel(16, 16, 56) == "cpu.conv2d.packed_gemm.winograd");
  CHECK(kernel(8, 16, 56) == "cpu.conv2d.packed_gemm");
  CHECK(kernel(64, 64, 6).find("winograd") == std::string::npos);  // 36 outputs
}

TEST_CASE("Conv 1-D with pads, stride, dilation and bias runs as 2-D") {
  auto x = iota({1, 2, 7}, -1.f, 0.3f), w = iota({3, 2, 2}, 0.5f, -0.2f), b = of<float>({3}, {1.f, 0.f, -1.f});
  // Padded width 7 + 1 + 2 = 10, span 3 (kernel 2, dilation 2), stride 2: (10 - 3) / 2 + 1 = 4.
  auto y = zeros({1, 3, 4});
  const auto op = ge::compile_op("Conv", {f32("1,2,7"), konst(w), f32("3")}, {f32("1,3,4")},
                                 {{"pads", Ints{1, 2}}, {"strides", Ints{2}}, {"dilations", Ints{2}}});
  run(*op, {x.view(), w.view(), b.view()}, {y.view()});
  std::vector<float> want;
  for (int m = 0; m < 3; ++m)
    for (int o = 0; o < 4; ++o) {
      double s = b.data[std::size_t(m)];
      for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 2; ++k) {
          const int i = o * 2 - 1 + k * 2;
          if (i >= 0 && i < 7) s += double(x.data[std::size_t(c * 7 + i)]) * w.data[std::size_t((m * 2 + c) * 2 + k)];
        }
      want.push_back(static_cast<float>(s));
    }
  check_near(y.data, want, 1e-4);
}

TEST_CASE("ConvTranspose with output_shape resolves the pads from the output's dims") {
  auto x = of<float>({1, 1, 2}, {1.f, 2.f}), w = of<float>({1, 1, 3}, {1.f, 10.f, 100.f}), y = zeros({1, 1, 4});
  // Full output: stride 2, kernel 3: 2 * (2 - 1) + 3 = 5 -> [1 10 102 20 200]; output_shape 4 crops 1 (SAME_UPPER
  // puts the odd one at the end; NOTSET here: at the beginning).
  run(*ge::compile_op("ConvTranspose", {f32("1,1,2"), f32("1,1,3")}, {}, {{"strides", Ints{2}}, {"output_shape", Ints{4}}}),
      {x.view(), w.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{10, 102, 20, 200});
}

TEST_CASE("ConvTranspose: an output past the full extent (a negative total pad) is the same on the 2-D and N-D kernels") {
  // Stride 3, kernel 1: the full output of 3 inputs is 3 * 2 + 1 = 7; output_shape 9, or
  // SAME's 3 * 3, adds 2 positions that no tap reaches, at the end: they hold the bias alone.
  const std::vector<float> want{21, 1, 1, 41, 1, 1, 61, 1, 1};  // x * 10 + bias 1
  for (const bool same : {false, true})
    for (const bool nd : {false, true}) {
      CAPTURE(same);
      CAPTURE(nd);
      Attributes a{{"strides", nd ? Ints{1, 1, 3} : Ints{3}}};
      if (same) a["auto_pad"] = std::string("SAME_UPPER");
      else a["output_shape"] = nd ? Ints{1, 1, 9} : Ints{9};
      const Ints lead = nd ? Ints{1, 1, 1, 1} : Ints{1, 1};
      const auto with = [&](std::int64_t e) {
        Ints d = lead;
        d.push_back(e);
        return d;
      };
      const auto op = ge::compile_op("ConvTranspose", {f32(nd ? "1,1,1,1,3" : "1,1,3"), f32(nd ? "1,1,1,1,1" : "1,1,1"),
                                                       f32("1")}, {}, a);
      CHECK(op->kernel->name() == (nd ? "cpu.conv_transpose_nd" : "cpu.conv_transpose2d"));
      auto x = of<float>(with(3), {2, 4, 6}), w = of<float>(with(1), {10}), b = of<float>({1}, {1});
      auto y = zeros(with(9));
      run(*op, {x.view(), w.view(), b.view()}, {y.view()});
      CHECK(y.data == want);
    }
}

// ---- normalisation -------------------------------------------------------------------

TEST_CASE("Softmax axis 0 differs from axis -1; LogSoftmax is its log") {
  auto x = iota({2, 3}, -1.f, 0.7f);
  const auto softmax_ref = [&](bool over_rows) {
    std::vector<float> out(6);
    for (int g = 0; g < (over_rows ? 3 : 2); ++g) {
      const int n = over_rows ? 2 : 3;
      const auto at = [&](int i) { return std::size_t(over_rows ? i * 3 + g : g * 3 + i); };
      double sum = 0;
      for (int i = 0; i < n; ++i) sum += std::exp(double(x.data[at(i)]));
      for (int i = 0; i < n; ++i) out[at(i)] = static_cast<float>(std::exp(double(x.data[at(i)])) / sum);
    }
    return out;
  };
  auto y0 = zeros({2, 3}), y1 = zeros({2, 3}), ly = zeros({2, 3});
  run(*ge::compile_op("Softmax", {f32("2,3")}, {}, {{"axis", std::int64_t{0}}}), {x.view()}, {y0.view()});
  run(*ge::compile_op("Softmax", {f32("2,3")}, {}), {x.view()}, {y1.view()});
  check_near(y0.data, softmax_ref(true));
  check_near(y1.data, softmax_ref(false));
  CHECK(y0.data[0] != doctest::Approx(y1.data[0]));
  run(*ge::compile_op("LogSoftmax", {f32("2,3")}, {}), {x.view()}, {ly.view()});
  std::vector<float> logs;
  for (float v : softmax_ref(false)) logs.push_back(std::log(v));
  check_near(ly.data, logs, 1e-4);
}

TEST_CASE("LayerNormalization: axis, epsilon, bias, and the Mean and InvStdDev outputs") {
  auto x = iota({2, 2, 3}, -2.f, 0.4f), scale = of<float>({3}, {1.f, 2.f, 0.5f}), bias = of<float>({3}, {0.f, 1.f, -1.f});
  auto y = zeros({2, 2, 3}), mean = zeros({2, 2, 1}), inv = zeros({2, 2, 1});
  const auto op = ge::compile_op("LayerNormalization", {f32("2,2,3"), f32("3"), f32("3")},
                                 {f32("2,2,3"), f32("2,2,1"), f32("2,2,1")}, {{"epsilon", 1e-3}});
  run(*op, {x.view(), scale.view(), bias.view()}, {y.view(), mean.view(), inv.view()});
  std::vector<float> want, want_mean, want_inv;
  for (int r = 0; r < 4; ++r) {
    double m = 0, v = 0;
    for (int i = 0; i < 3; ++i) m += x.data[std::size_t(r * 3 + i)] / 3.0;
    for (int i = 0; i < 3; ++i) v += std::pow(x.data[std::size_t(r * 3 + i)] - m, 2) / 3.0;
    const double is = 1 / std::sqrt(v + 1e-3);
    for (int i = 0; i < 3; ++i)
      want.push_back(static_cast<float>((x.data[std::size_t(r * 3 + i)] - m) * is * scale.data[std::size_t(i)] +
                                        bias.data[std::size_t(i)]));
    want_mean.push_back(static_cast<float>(m));
    want_inv.push_back(static_cast<float>(is));
  }
  check_near(y.data, want, 1e-4);
  check_near(mean.data, want_mean, 1e-4);
  check_near(inv.data, want_inv, 1e-4);
  // Axis 1 without bias: normalise over the last two dims; a Scale [1, 3] broadcasts.
  auto s2 = of<float>({1, 3}, {1.f, 1.f, 1.f}), y2 = zeros({2, 2, 3});
  run(*ge::compile_op("LayerNormalization", {f32("2,2,3"), f32("1,3")}, {}, {{"axis", std::int64_t{1}}}),
      {x.view(), s2.view()}, {y2.view()});
  double m = 0;
  for (int i = 0; i < 6; ++i) m += x.data[std::size_t(i)] / 6.0;
  double v = 0;
  for (int i = 0; i < 6; ++i) v += std::pow(x.data[std::size_t(i)] - m, 2) / 6.0;
  CHECK(y2.data[0] == doctest::Approx((x.data[0] - m) / std::sqrt(v + 1e-5)).epsilon(1e-4));
}

TEST_CASE("BatchNormalization in inference mode") {
  auto x = iota({1, 2, 2}), sc = of<float>({2}, {1.f, 2.f}), b = of<float>({2}, {0.f, 1.f}),
       mu = of<float>({2}, {0.5f, 2.f}), var = of<float>({2}, {1.f, 4.f}), y = zeros({1, 2, 2});
  run(*ge::compile_op("BatchNormalization", {f32("1,2,2"), f32("2"), f32("2"), f32("2"), f32("2")}, {}),
      {x.view(), sc.view(), b.view(), mu.view(), var.view()}, {y.view()});
  std::vector<float> want;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 2; ++i)
      want.push_back(static_cast<float>((x.data[std::size_t(c * 2 + i)] - mu.data[std::size_t(c)]) /
                                            std::sqrt(var.data[std::size_t(c)] + 1e-5) * sc.data[std::size_t(c)] +
                                        b.data[std::size_t(c)]));
  check_near(y.data, want);
}

// ---- pools -------------------------------------------------------------------------

TEST_CASE("MaxPool with pads and ceil_mode; AveragePool with count_include_pad; 1-D; global") {
  auto x = iota({1, 1, 4, 4}, 0.f, 1.f);
  // 3x3 windows, stride 2, pad 1 on every side, ceil_mode: out = ceil((4 + 2 - 3) / 2) + 1 = 3, but the
  // last window would start at 4 - 1 + ... = inside the end pad only -> 2 x 2.
  const auto mp = ge::compile_op("MaxPool", {f32("1,1,4,4")}, {},
                                 {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}},
                                  {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", std::int64_t{1}}});
  REQUIRE(mp->outputs[0].shape.to_string() == "1,1,3,3");
  auto y = zeros({1, 1, 3, 3});
  run(*mp, {x.view()}, {y.view()});
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      float m = -1e9f;
      for (int a = i * 2 - 1; a < i * 2 + 2; ++a)
        for (int b = j * 2 - 1; b < j * 2 + 2; ++b)
          if (a >= 0 && a < 4 && b >= 0 && b < 4) m = std::max(m, x.data[std::size_t(a * 4 + b)]);
      want.push_back(m);
    }
  CHECK(y.data == want);

  auto ya = zeros({1, 1, 2, 2});
  run(*ge::compile_op("AveragePool", {f32("1,1,4,4")}, {},
                      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}},
                       {"count_include_pad", std::int64_t{1}}}),
      {x.view()}, {ya.view()});
  // Window (0, 0): rows -1..1, cols -1..1; real elements 0, 1, 4, 5; divisor 9.
  CHECK(ya.data[0] == doctest::Approx((0 + 1 + 4 + 5) / 9.0));
  CHECK(ya.data[3] == doctest::Approx((5 + 6 + 7 + 9 + 10 + 11 + 13 + 14 + 15) / 9.0));

  auto x1 = of<float>({1, 1, 5}, {3.f, 1.f, 4.f, 1.f, 5.f}), y1 = zeros({1, 1, 2});
  run(*ge::compile_op("MaxPool", {f32("1,1,5")}, {}, {{"kernel_shape", Ints{2}}, {"strides", Ints{2}}}), {x1.view()},
      {y1.view()});
  CHECK(y1.data == std::vector<float>{3.f, 4.f});

  auto g = zeros({1, 1, 1, 1});
  run(*ge::compile_op("GlobalAveragePool", {f32("1,1,4,4")}, {}), {x.view()}, {g.view()});
  CHECK(g.data[0] == doctest::Approx(7.5));
}

TEST_CASE("AveragePool with auto_pad SAME_LOWER") {
  auto x = iota({1, 1, 1, 4}), y = zeros({1, 1, 1, 4});
  run(*ge::compile_op("AveragePool", {f32("1,1,1,4")}, {}, {{"kernel_shape", Ints{1, 2}}, {"auto_pad", "SAME_LOWER"}}),
      {x.view()}, {y.view()});
  // Total pad 1, at the beginning: windows {pad, 0}, {0, 1}, {1, 2}, {2, 3}; the pad is not counted.
  CHECK(y.data == std::vector<float>{0.f, 0.5f, 1.5f, 2.5f});
}

// ---- reductions ----------------------------------------------------------------------

TEST_CASE("ReduceMean keepdims=0 over two axes; ReduceSum axes input; ReduceMax over all") {
  auto x = iota({2, 3, 2});
  auto y = zeros({3});
  run(*ge::compile_op("ReduceMean", {f32("2,3,2")}, {}, {{"axes", Ints{0, -1}}, {"keepdims", std::int64_t{0}}}),
      {x.view()}, {y.view()});
  std::vector<float> want;
  for (int j = 0; j < 3; ++j) {
    double s = 0;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) s += x.data[std::size_t(i * 6 + j * 2 + k)];
    want.push_back(static_cast<float>(s / 4));
  }
  check_near(y.data, want);

  auto axes = of<std::int64_t>({1}, {1});
  auto ys = zeros({2, 1, 2});
  run(*ge::compile_op("ReduceSum", {f32("2,3,2"), konst(axes)}, {}), {x.view(), axes.view()}, {ys.view()});
  CHECK(ys.data == std::vector<float>{0 + 2 + 4, 1 + 3 + 5, 6 + 8 + 10, 7 + 9 + 11});

  // Axes known only at run time: data-dependent, the real dims come back.
  auto ys2 = zeros({2, 3, 1});
  auto axes2 = of<std::int64_t>({1}, {2});
  const auto rt = ge::compile_op("ReduceSum", {f32("2,3,2"), desc(DataType::i64, "1")}, {});
  CHECK(rt->kernel->data_dependent());
  const auto dims = run(*rt, {x.view(), axes2.view()}, {ys2.view()});
  CHECK(dims[0] == Ints{2, 3, 1});
  CHECK(ys2.data == std::vector<float>{1, 5, 9, 13, 17, 21});

  auto ym = zeros({1, 1, 1});
  run(*ge::compile_op("ReduceMax", {f32("2,3,2")}, {}), {x.view()}, {ym.view()});
  CHECK(ym.data[0] == 11.f);
  // noop_with_empty_axes: a copy.
  auto yn = zeros({2, 3, 2});
  run(*ge::compile_op("ReduceMax", {f32("2,3,2")}, {}, {{"noop_with_empty_axes", std::int64_t{1}}}), {x.view()},
      {yn.view()});
  CHECK(yn.data == x.data);
}

TEST_CASE("ArgMax along an axis, first and last index of ties") {
  auto x = of<float>({2, 3}, {1.f, 5.f, 5.f, 7.f, 2.f, 7.f});
  auto y = zeros<std::int64_t>({2});
  run(*ge::compile_op("ArgMax", {f32("2,3")}, {}, {{"axis", std::int64_t{-1}}, {"keepdims", std::int64_t{0}}}),
      {x.view()}, {y.view()});
  CHECK(y.data == Ints{1, 0});
  auto yl = zeros<std::int64_t>({2, 1});
  const auto op = ge::compile_op("ArgMax", {f32("2,3")}, {},
                                 {{"axis", std::int64_t{1}}, {"select_last_index", std::int64_t{1}}});
  CHECK(op->engine == ge::Engine::host);
  run(*op, {x.view()}, {yl.view()});
  CHECK(yl.data == Ints{2, 2});
}

// ---- shape and data movement ---------------------------------------------------------

TEST_CASE("Reshape, Flatten, Squeeze, Unsqueeze, Identity copy, or do nothing in place") {
  auto x = iota({2, 3, 1});
  auto shape = of<std::int64_t>({2}, {3, -1});
  auto y = zeros({3, 2});
  run(*ge::compile_op("Reshape", {f32("2,3,1"), konst(shape)}, {}), {x.view(), shape.view()}, {y.view()});
  CHECK(y.data == x.data);
  auto fl = zeros({2, 3});
  run(*ge::compile_op("Flatten", {f32("2,3,1")}, {}), {x.view()}, {fl.view()});
  CHECK(fl.data == x.data);
  auto axes = of<std::int64_t>({1}, {-1});
  auto sq = zeros({2, 3});
  run(*ge::compile_op("Squeeze", {f32("2,3,1"), konst(axes)}, {}), {x.view(), axes.view()}, {sq.view()});
  CHECK(sq.data == x.data);
  auto uaxes = of<std::int64_t>({1}, {0});
  auto un = zeros({1, 2, 3, 1});
  run(*ge::compile_op("Unsqueeze", {f32("2,3,1"), konst(uaxes)}, {}), {x.view(), uaxes.view()}, {un.view()});
  CHECK(un.data == x.data);
  auto id = zeros({2, 3, 1});
  const auto op = ge::compile_op("Identity", {f32("2,3,1")}, {});
  run(*op, {x.view()}, {id.view()});
  CHECK(id.data == x.data);
  run(*op, {x.view()}, {x.view()});  // same memory: nothing to do
  CHECK(id.data == x.data);
  // A shape known only at run time: the dims come back from the data.
  auto rt_shape = of<std::int64_t>({3}, {1, 6, -1});
  auto ry = zeros({1, 6, 1});
  const auto rt = ge::compile_op("Reshape", {f32("2,3,1"), desc(DataType::i64, "3")}, {});
  CHECK(rt->kernel->data_dependent());
  CHECK(run(*rt, {x.view(), rt_shape.view()}, {ry.view()})[0] == Ints{1, 6, 1});
  CHECK(ry.data == x.data);
}

TEST_CASE("Transpose with perm and reversed by default; fuzzy compile reused for two shapes") {
  const auto op = ge::compile_op("Transpose", {f32("2,3,4")}, {}, {{"perm", Ints{1, 2, 0}}}, EngineChoice::system,
                                 CompileFlag::fuzzy);
  for (const Ints& d : {Ints{2, 3, 4}, Ints{3, 1, 2}}) {
    auto x = iota(d);
    auto y = zeros({d[1], d[2], d[0]});
    const auto again = ge::compile_op("Transpose", {f32((std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
                                                        std::to_string(d[2])).c_str())},
                                      {}, {{"perm", Ints{1, 2, 0}}}, EngineChoice::system, CompileFlag::fuzzy);
    CHECK(again == op);
    run(*op, {x.view()}, {y.view()});
    for (std::int64_t i = 0; i < d[0]; ++i)
      for (std::int64_t j = 0; j < d[1]; ++j)
        for (std::int64_t k = 0; k < d[2]; ++k)
          CHECK(y.data[std::size_t((j * d[2] + k) * d[0] + i)] == x.data[std::size_t((i * d[1] + j) * d[2] + k)]);
  }
  auto x = iota({2, 3}), y = zeros({3, 2});
  run(*ge::compile_op("Transpose", {f32("2,3")}, {}), {x.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("Concat of 3 inputs; Split into 3 equal parts and by sizes") {
  auto a = iota({2, 1}), b = iota({2, 2}, 10.f), c = iota({2, 1}, 20.f), y = zeros({2, 4});
  run(*ge::compile_op("Concat", {f32("2,1"), f32("2,2"), f32("2,1")}, {}, {{"axis", std::int64_t{-1}}}),
      {a.view(), b.view(), c.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{0, 10, 11, 20, 1, 12, 13, 21});

  auto x = iota({6, 2});
  auto p0 = zeros({2, 2}), p1 = zeros({2, 2}), p2 = zeros({2, 2});
  run(*ge::compile_op("Split", {f32("6,2")}, {f32("2,2"), f32("2,2"), f32("2,2")}), {x.view()},
      {p0.view(), p1.view(), p2.view()});
  CHECK(p0.data == std::vector<float>{0, 1, 2, 3});
  CHECK(p2.data == std::vector<float>{8, 9, 10, 11});
  auto sizes = of<std::int64_t>({3}, {1, 0, 1});
  auto q0 = zeros({6, 1}), q1 = zeros({6, 0}), q2 = zeros({6, 1});
  run(*ge::compile_op("Split", {f32("6,2"), konst(sizes)}, {f32("6,1"), f32("6,0"), f32("6,1")}, {{"axis", std::int64_t{1}}}),
      {x.view(), sizes.view()}, {q0.view(), q1.view(), q2.view()});
  CHECK(q0.data == std::vector<float>{0, 2, 4, 6, 8, 10});
  CHECK(q2.data == std::vector<float>{1, 3, 5, 7, 9, 11});
}

TEST_CASE("Slice: negative steps, clamped ends, and bounds read at run time") {
  auto x = iota({3, 5});
  auto starts = of<std::int64_t>({2}, {-1, 100}), ends = of<std::int64_t>({2}, {-100, 0}),
       axes = of<std::int64_t>({2}, {0, 1}), steps = of<std::int64_t>({2}, {-2, -3});
  auto y = zeros({2, 2});
  const auto op = ge::compile_op("Slice", {f32("3,5"), konst(starts), konst(ends), konst(axes), konst(steps)}, {});
  REQUIRE(op->outputs[0].shape.to_string() == "2,2");
  run(*op, {x.view(), starts.view(), ends.view(), axes.view(), steps.view()}, {y.view()});
  // Rows 2, 0; columns 4, 1.
  CHECK(y.data == std::vector<float>{14, 11, 4, 1});

  // Runtime starts and ends (i32): data-dependent, real dims returned.
  auto s32 = of<std::int32_t>({1}, {1}), e32 = of<std::int32_t>({1}, {-1});
  auto yr = zeros({3, 3});
  const auto rt = ge::compile_op(
      "Slice", {f32("3,5"), desc(DataType::i32, "1"), desc(DataType::i32, "1"), desc(DataType::i32, "1")}, {});
  CHECK(rt->kernel->data_dependent());
  auto ax32 = of<std::int32_t>({1}, {1});
  CHECK(run(*rt, {x.view(), s32.view(), e32.view(), ax32.view()}, {yr.view()})[0] == Ints{3, 3});
  CHECK(yr.data == std::vector<float>{1, 2, 3, 6, 7, 8, 11, 12, 13});
}

TEST_CASE("Gather with a negative index; Expand") {
  auto data = iota({3, 2}), y = zeros({2, 2});
  auto idx = of<std::int64_t>({2}, {-1, 0});
  run(*ge::compile_op("Gather", {f32("3,2"), desc(DataType::i64, "2")}, {}), {data.view(), idx.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{4, 5, 0, 1});
  auto col = zeros({3, 1});
  auto i1 = of<std::int32_t>({1}, {-2});
  run(*ge::compile_op("Gather", {f32("3,2"), desc(DataType::i32, "1")}, {}, {{"axis", std::int64_t{-1}}}),
      {data.view(), i1.view()}, {col.view()});
  CHECK(col.data == std::vector<float>{0, 2, 4});

  auto x = of<float>({2, 1}, {1.f, 2.f}), e = zeros({2, 2, 3});
  auto shape = of<std::int64_t>({3}, {2, 2, 3});
  run(*ge::compile_op("Expand", {f32("2,1"), konst(shape)}, {}), {x.view(), shape.view()}, {e.view()});
  CHECK(e.data == std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
}

TEST_CASE("Shape with start and end; ConstantOfShape with the default and a given value") {
  auto x = iota({2, 3, 4, 5});
  auto all = zeros<std::int64_t>({4}), mid = zeros<std::int64_t>({2});
  run(*ge::compile_op("Shape", {f32("2,3,4,5")}, {}), {x.view()}, {all.view()});
  CHECK(all.data == Ints{2, 3, 4, 5});
  run(*ge::compile_op("Shape", {f32("2,3,4,5")}, {}, {{"start", std::int64_t{1}}, {"end", std::int64_t{-1}}}), {x.view()},
      {mid.view()});
  CHECK(mid.data == Ints{3, 4});

  auto shape = of<std::int64_t>({2}, {2, 3});
  auto z = iota({2, 3}, 5.f);
  run(*ge::compile_op("ConstantOfShape", {konst(shape)}, {}), {shape.view()}, {z.view()});
  CHECK(z.data == std::vector<float>(6, 0.f));
  auto sevens = zeros<std::int64_t>({2, 3});
  const auto op = ge::compile_op("ConstantOfShape", {konst(shape)}, {}, {{"value", Tensor::from<std::int64_t>({1}, {7})}},
                                 EngineChoice::host);
  CHECK(op->engine == ge::Engine::host);
  run(*op, {shape.view()}, {sevens.view()});
  CHECK(sevens.data == Ints(6, 7));
  // The shape at run time.
  auto rt_shape = of<std::int64_t>({1}, {4});
  auto four = zeros({4});
  const auto rt = ge::compile_op("ConstantOfShape", {desc(DataType::i64, "1")}, {},
                                 {{"value", Tensor::from<float>({1}, {2.5f})}});
  CHECK(run(*rt, {rt_shape.view()}, {four.view()})[0] == Ints{4});
  CHECK(four.data == std::vector<float>(4, 2.5f));
}

TEST_CASE("Pad: reflect, edge, and constant with a value") {
  auto x = iota({2, 3}, 1.f);
  auto pads = of<std::int64_t>({4}, {0, 2, 1, 1});
  auto y = zeros({3, 6});
  run(*ge::compile_op("Pad", {f32("2,3"), konst(pads)}, {}, {{"mode", "reflect"}}), {x.view(), pads.view()}, {y.view()});
  // Row [1 2 3] reflected by 2 before and 1 after: [3 2 1 2 3 2]; one row after mirrors row 0.
  CHECK(y.data == std::vector<float>{3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2});
  auto ye = zeros({3, 6});
  run(*ge::compile_op("Pad", {f32("2,3"), konst(pads)}, {}, {{"mode", "edge"}}), {x.view(), pads.view()}, {ye.view()});
  CHECK(ye.data == std::vector<float>{1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6});
  auto value = of<float>({}, {-1.f});
  auto yc = zeros({3, 6});
  run(*ge::compile_op("Pad", {f32("2,3"), konst(pads), f32("")}, {}), {x.view(), pads.view(), value.view()}, {yc.view()});
  CHECK(yc.data == std::vector<float>{-1, -1, 1, 2, 3, -1, -1, -1, 4, 5, 6, -1, -1, -1, -1, -1, -1, -1});
}

TEST_CASE("Resize: nearest by scales, linear to sizes") {
  auto x = of<float>({1, 1, 2, 2}, {1.f, 2.f, 3.f, 4.f});
  auto scales = of<float>({4}, {1.f, 1.f, 2.f, 2.f});
  auto y = zeros({1, 1, 4, 4});
  run(*ge::compile_op("Resize", {f32("1,1,2,2"), OpTensor::undefined(), konst(scales)}, {}),
      {x.view(), TensorView{}, scales.view()}, {y.view()});
  CHECK(y.data == std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});

  auto sizes = of<std::int64_t>({4}, {1, 1, 3, 3});
  auto yl = zeros({1, 1, 3, 3});
  run(*ge::compile_op("Resize", {f32("1,1,2,2"), OpTensor::undefined(), OpTensor::undefined(), konst(sizes)}, {},
                      {{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}),
      {x.view(), TensorView{}, TensorView{}, sizes.view()}, {yl.view()});
  check_near(yl.data, {1.f, 1.5f, 2.f, 2.f, 2.5f, 3.f, 3.f, 3.5f, 4.f});
  // Linear on integers has no kernel.
  expect_error(
      [&] {
        (void)ge::compile_op("Resize", {desc(DataType::i64, "1,1,2,2"), OpTensor::undefined(), konst(scales)}, {},
                             {{"mode", "linear"}});
      },
      Errc::no_kernel, "Resize");
}

// ---- host ops ----------------------------------------------------------------------

TEST_CASE("NonZero runs through the data-dependent path and returns the real dims") {
  auto x = of<float>({2, 3}, {0.f, 1.f, 0.f, 2.f, 0.f, 3.f});
  const auto op = ge::compile_op("NonZero", {f32("2,3")}, {});
  CHECK(op->engine == ge::Engine::host);
  CHECK(op->kernel->data_dependent());
  auto y = zeros<std::int64_t>({2, 6});  // the worst case
  const auto dims = run(*op, {x.view()}, {y.view()});
  CHECK(dims[0] == Ints{2, 3});
  CHECK(Ints(y.data.begin(), y.data.begin() + 6) == Ints{0, 1, 1, 1, 0, 2});
}

TEST_CASE("TopK with a constant K and with a runtime K") {
  auto x = of<float>({2, 4}, {3.f, 9.f, 1.f, 7.f, 2.f, 2.f, 8.f, 0.f});
  auto k = of<std::int64_t>({1}, {2});
  auto v = zeros({2, 2});
  auto i = zeros<std::int64_t>({2, 2});
  const auto op = ge::compile_op("TopK", {f32("2,4"), konst(k)}, {});
  CHECK(!op->kernel->data_dependent());
  run(*op, {x.view(), k.view()}, {v.view(), i.view()});
  CHECK(v.data == std::vector<float>{9, 7, 8, 2});
  CHECK(i.data == Ints{1, 3, 2, 0});

  auto k3 = of<std::int64_t>({1}, {3});
  auto vs = zeros({2, 4});
  auto is = zeros<std::int64_t>({2, 4});
  const auto rt = ge::compile_op("TopK", {f32("2,4"), desc(DataType::i64, "1")}, {}, {{"largest", std::int64_t{0}}});
  CHECK(rt->kernel->data_dependent());
  const auto dims = run(*rt, {x.view(), k3.view()}, {vs.view(), is.view()});
  CHECK(dims[0] == Ints{2, 3});
  CHECK(dims[1] == Ints{2, 3});
  CHECK(std::vector<float>(vs.data.begin(), vs.data.begin() + 6) == std::vector<float>{1, 3, 7, 0, 2, 2});
  CHECK(Ints(is.data.begin(), is.data.begin() + 6) == Ints{2, 0, 3, 3, 0, 1});
  auto k9 = of<std::int64_t>({1}, {9});
  expect_error(
      [&] {
        run(*rt, {x.view(), k9.view()}, {vs.view(), is.view()});
      },
      Errc::bad_op_inputs, "[ge.compile] [TopK] K is 9");
}

TEST_CASE("a ranged input: one kernel for every batch in 1~8") {
  const auto op = ge::compile_op("Softmax", {f32("1~8,4")}, {});
  for (std::int64_t n : {1, 8}) {
    auto x = iota({n, 4}, 0.f, 0.1f), y = zeros({n, 4});
    run(*op, {x.view()}, {y.view()});
    double s = 0;
    for (int j = 0; j < 4; ++j) s += std::exp(x.data[std::size_t((n - 1) * 4 + j)]);
    CHECK(y.data[std::size_t((n - 1) * 4)] == doctest::Approx(std::exp(x.data[std::size_t((n - 1) * 4)]) / s));
  }
  auto big = iota({9, 4}), ybig = zeros({9, 4});
  expect_error([&] { run(*op, {big.view()}, {ybig.view()}); }, Errc::out_of_range, "1~8,4");
}
