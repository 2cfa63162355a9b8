// The training-domain optimizer kernel: exact small steps and the errors of bad inputs.
#include <doctest/doctest.h>

#include <cmath>

#include "kernel_test.hpp"
#include "kernels/cpu/nn/optimizers.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

TEST_CASE("optimizer_step: Adagrad, Momentum and Adam by hand") {
  Buf<float> r(std::vector<std::int64_t>{}, {0.5f});
  Buf<std::int64_t> t0(std::vector<std::int64_t>{}, {0}), t2(std::vector<std::int64_t>{}, {2});
  Buf<float> x({1}, {1}), g({1}, {2}), s({1}, {5}), s2({1}, {1}), xo({1}), so({1}), so2({1});
  cpu::optimizer_step({.kind = cpu::Optimizer::adagrad}, std::vector<ge::TensorView>{r.view(), t0.view(), x.view(), g.view(), s.view()},
                      std::vector<ge::TensorView>{xo.view(), so.view()});
  CHECK(so.v[0] == 9);                          // 5 + 2^2
  CHECK(xo.v[0] == doctest::Approx(1 - 0.5 * 2 / 3.0));
  const cpu::OptimizerParams nesterov{.kind = cpu::Optimizer::momentum, .alpha = 0.5, .beta = 0.1, .nesterov = true};
  cpu::optimizer_step(nesterov, std::vector<ge::TensorView>{r.view(), t0.view(), x.view(), g.view(), s.view()},
                      std::vector<ge::TensorView>{xo.view(), so.view()});
  CHECK(so.v[0] == doctest::Approx(0.5 * 5 + 2));  // beta is 1 at T = 0
  CHECK(xo.v[0] == doctest::Approx(1 - 0.5 * (2 + 0.5 * 4.5)));
  const cpu::OptimizerParams adam{.kind = cpu::Optimizer::adam, .alpha = 0.5, .beta = 0.5};
  cpu::optimizer_step(adam, std::vector<ge::TensorView>{r.view(), t2.view(), x.view(), g.view(), s.view(), s2.view()},
                      std::vector<ge::TensorView>{xo.view(), so.view(), so2.view()});
  CHECK(so.v[0] == doctest::Approx(3.5));   // 0.5 * 5 + 0.5 * 2
  CHECK(so2.v[0] == doctest::Approx(2.5));  // 0.5 * 1 + 0.5 * 4
  CHECK(xo.v[0] == doctest::Approx(1 - 0.5 * std::sqrt(0.75) / 0.75 * 3.5 / std::sqrt(2.5)));
}

TEST_CASE("optimizer_step: bad counts, dims and step counts are errors") {
  Buf<float> r(std::vector<std::int64_t>{}, {0.5f});
  Buf<std::int64_t> neg(std::vector<std::int64_t>{}, {-1}), t(std::vector<std::int64_t>{}, {1});
  Buf<float> x({2}), g({2}), h({3}), xo({2}), ho({2});
  const cpu::OptimizerParams p{};
  expect_error([&] { cpu::optimizer_step(p, std::vector<ge::TensorView>{r.view(), t.view(), x.view(), g.view()}, std::vector<ge::TensorView>{xo.view()}); },
               Errc::bad_op_inputs, kernels_tag, "expected R, T and 3");
  expect_error([&] { cpu::optimizer_step(p, std::vector<ge::TensorView>{r.view(), t.view(), x.view(), g.view(), h.view()}, std::vector<ge::TensorView>{xo.view(), ho.view()}); },
               Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::optimizer_step(p, std::vector<ge::TensorView>{r.view(), neg.view(), x.view(), g.view(), g.view()}, std::vector<ge::TensorView>{xo.view(), ho.view()}); },
               Errc::bad_op_inputs, kernels_tag, "T is");
}
