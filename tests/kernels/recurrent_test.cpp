// The RNN, GRU and LSTM kernel: exact small cases, and the errors only run time shows.
#include <doctest/doctest.h>

#include <cmath>

#include "kernel_test.hpp"
#include "kernels/cpu/recurrent.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::expect_error;
using ge::test::kernels_tag;
namespace cpu = ge::cpu;

TEST_CASE("recurrent: an RNN with Relu and sequence lengths, by hand") {
  cpu::RnnParams p;
  p.hidden = 1;
  p.activations = cpu::rnn_activations(cpu::RnnCell::rnn, 1, {"Relu"}, {}, {});
  // h_t = relu(x_t + 2 h_{t-1}); entry 1 stops after one step.
  Buf<float> x({3, 2, 1}, {1, 5, 1, 7, 1, 9}), w({1, 1, 1}, {1}), r({1, 1, 1}, {2});
  Buf<std::int32_t> lens({2}, {3, 1});
  Buf<float> y({3, 1, 2, 1}), yh({1, 2, 1});
  std::vector<ge::TensorView> in{x.view(), w.view(), r.view(), ge::TensorView{}, lens.view()};
  cpu::recurrent(p, in, std::vector<ge::TensorView>{y.view(), yh.view()});
  CHECK(y.v == std::vector<float>{1, 5, 3, 0, 7, 0});
  CHECK(yh.v == std::vector<float>{7, 5});
  p.reverse = true;  // entry 0 reads 1, 1, 1 backwards: the same sums; entry 1 its one step
  cpu::recurrent(p, in, std::vector<ge::TensorView>{y.view(), yh.view()});
  CHECK(yh.v == std::vector<float>{7, 5});
  CHECK(y.v[0] == 7);
}

TEST_CASE("recurrent: an LSTM step with the input gate forced open matches its equations") {
  cpu::RnnParams p;
  p.cell = cpu::RnnCell::lstm;
  p.hidden = 1;
  p.activations = cpu::rnn_activations(p.cell, 1, {}, {}, {});
  Buf<float> x({1, 1, 1}, {0.5f}), w({1, 4, 1}, {1, 1, 1, 1}), r({1, 4, 1}, {0, 0, 0, 0});
  Buf<float> yh({1, 1, 1}), yc({1, 1, 1});
  std::vector<ge::TensorView> in{x.view(), w.view(), r.view()};
  cpu::recurrent(p, in, std::vector<ge::TensorView>{ge::TensorView{}, yh.view(), yc.view()});
  const double s = 1 / (1 + std::exp(-0.5)), c = s * std::tanh(0.5);
  CHECK(yc.v[0] == doctest::Approx(c));
  CHECK(yh.v[0] == doctest::Approx(s * std::tanh(c)));
}

TEST_CASE("recurrent: bad activations and lengths are errors") {
  expect_error([] { (void)cpu::rnn_activations(cpu::RnnCell::gru, 1, {"Sigmoid", "Cube"}, {}, {}); },
               Errc::bad_attribute, kernels_tag, "Cube");
  expect_error([] { (void)cpu::rnn_activations(cpu::RnnCell::lstm, 2, {"Sigmoid", "Tanh"}, {}, {}); },
               Errc::bad_attribute, kernels_tag, "2 names");
  cpu::RnnParams p;
  p.hidden = 1;
  p.activations = cpu::rnn_activations(cpu::RnnCell::rnn, 1, {}, {}, {});
  Buf<float> x({2, 1, 1}, {1, 1}), w({1, 1, 1}, {1}), r({1, 1, 1}, {1}), yh({1, 1, 1});
  Buf<std::int32_t> lens({1}, {3});
  std::vector<ge::TensorView> in{x.view(), w.view(), r.view(), ge::TensorView{}, lens.view()};
  expect_error([&] { cpu::recurrent(p, in, std::vector<ge::TensorView>{ge::TensorView{}, yh.view()}); },
               Errc::bad_op_inputs, kernels_tag, "sequence_lens[0] is 3");
  Buf<float> w2({1, 2, 1}, {1, 1});
  in[1] = w2.view();
  in[4] = ge::TensorView{};
  expect_error([&] { cpu::recurrent(p, in, std::vector<ge::TensorView>{ge::TensorView{}, yh.view()}); },
               Errc::bad_op_inputs, kernels_tag, "W");
}
