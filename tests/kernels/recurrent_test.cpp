// The RNN, GRU and LSTM kernel: exact small cases, and the errors only run time shows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "kernel_test.hpp"
#include "kernels/cpu/sequence/recurrent.hpp"
#include "kernels/cpu/sequence/recurrent_internal.hpp"

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

namespace {

// One random layer: its attributes, inputs and the outputs of the fast path and the
// reference, compared. `k` picks the optional parts; sizes include odd ones (H past a
// panel's 16 columns and not a multiple of it, a batch past the GEMM's 6-row tile).
struct RandomLayer {
  cpu::RnnParams p;
  std::vector<Buf<float>> bufs;
  Buf<std::int32_t> lens;
  std::vector<ge::TensorView> in;

  RandomLayer(cpu::RnnCell cell, int k, std::int64_t S, std::int64_t N, std::int64_t I, std::int64_t H, std::uint32_t seed) {
    p.cell = cell;
    p.hidden = H;
    p.directions = k % 3 == 2 ? 2 : 1;
    p.reverse = k % 3 == 1;
    p.batch_first = k % 2 == 1;
    const std::int64_t D = p.directions, G = cell == cpu::RnnCell::rnn ? 1 : cell == cpu::RnnCell::gru ? 3 : 4;
    if (k % 3 == 2) p.clip = 0.7;
    p.linear_before_reset = k % 2 == 0;
    p.input_forget = cell == cpu::RnnCell::lstm && (k == 4 || k == 7);
    static const std::vector<std::vector<std::string>> acts{
        {"Relu"}, {"LeakyRelu"}, {"HardSigmoid", "Softsign"}, {"ScaledTanh", "Affine", "Elu"},
        {"Sigmoid", "ThresholdedRelu", "Softplus"}, {"Tanh", "Sigmoid"}, {"Affine"}, {"Sigmoid", "Tanh", "ScaledTanh"}};
    std::vector<std::string> names;
    if (k % 3 == 0)
      for (std::size_t i = 0; i < acts.size() && names.empty(); ++i)
        if (acts[(static_cast<std::size_t>(k) / 3 + i) % acts.size()].size() == cpu::rnn_activation_count(cell))
          names = acts[(static_cast<std::size_t>(k) / 3 + i) % acts.size()];
    p.activations = cpu::rnn_activations(cell, static_cast<int>(D), names, {0.6, 0.3}, {0.4});
    const std::vector<std::int64_t> state = p.batch_first ? std::vector<std::int64_t>{N, D, H} : std::vector<std::int64_t>{D, N, H};
    bufs.push_back(ge::test::random_f32(p.batch_first ? std::vector<std::int64_t>{N, S, I} : std::vector<std::int64_t>{S, N, I}, seed));
    bufs.push_back(ge::test::random_f32({D, G * H, I}, seed + 1, -0.4f, 0.4f));
    bufs.push_back(ge::test::random_f32({D, G * H, H}, seed + 2, -0.4f, 0.4f));
    bufs.push_back(ge::test::random_f32({D, 2 * G * H}, seed + 3));
    bufs.push_back(ge::test::random_f32(state, seed + 4));
    bufs.push_back(ge::test::random_f32(state, seed + 5));
    bufs.push_back(ge::test::random_f32({D, 3 * H}, seed + 6));
    std::vector<std::int32_t> l(static_cast<std::size_t>(N));
    for (std::int64_t n = 0; n < N; ++n) l[static_cast<std::size_t>(n)] = static_cast<std::int32_t>((seed + 7 * n) % (S + 1));
    lens = Buf<std::int32_t>({N}, l);
    in = {bufs[0].view(), bufs[1].view(), bufs[2].view()};
    in.push_back(k % 4 != 1 ? bufs[3].view() : ge::TensorView{});
    in.push_back(k % 3 != 0 ? lens.view() : ge::TensorView{});
    in.push_back(k % 2 == 0 ? bufs[4].view() : ge::TensorView{});
    if (cell == cpu::RnnCell::lstm) {
      in.push_back(k % 4 != 2 ? bufs[5].view() : ge::TensorView{});
      in.push_back(k / 2 % 2 == 1 ? bufs[6].view() : ge::TensorView{});
    }
  }
};

std::string cell_name(cpu::RnnCell c) { return c == cpu::RnnCell::rnn ? "RNN" : c == cpu::RnnCell::gru ? "GRU" : "LSTM"; }

}  // namespace

TEST_CASE("recurrent: the GEMM path matches the reference on random layers, odd sizes included") {
  const struct {
    std::int64_t S, N, I, H;
  } sizes[] = {{1, 1, 1, 1}, {3, 2, 4, 3}, {5, 7, 5, 17}, {4, 3, 40, 33}, {9, 1, 2, 16}, {2, 13, 3, 5}, {6, 8, 24, 48}};
  std::uint32_t seed = 1;
  for (const cpu::RnnCell cell : {cpu::RnnCell::rnn, cpu::RnnCell::gru, cpu::RnnCell::lstm})
    for (int k = 0; k < 12; ++k)
      for (const auto& sz : sizes) {
        seed += 11;
        RandomLayer l(cell, k, sz.S, sz.N, sz.I, sz.H, seed);
        const std::int64_t D = l.p.directions;
        const std::vector<std::int64_t> yd = l.p.batch_first ? std::vector<std::int64_t>{sz.N, sz.S, D, sz.H}
                                                             : std::vector<std::int64_t>{sz.S, D, sz.N, sz.H};
        const std::vector<std::int64_t> sd = l.p.batch_first ? std::vector<std::int64_t>{sz.N, D, sz.H}
                                                             : std::vector<std::int64_t>{D, sz.N, sz.H};
        Buf<float> y(yd), yh(sd), yc(sd), ry(yd), ryh(sd), ryc(sd);
        std::fill(y.v.begin(), y.v.end(), 42.0f);  // every element written, zeros past the lengths
        const bool lstm = cell == cpu::RnnCell::lstm;
        std::vector<ge::TensorView> out{y.view(), yh.view()}, ref{ry.view(), ryh.view()};
        if (lstm) {
          out.push_back(yc.view());
          ref.push_back(ryc.view());
        }
        INFO(cell_name(cell) << " case " << k << " S " << sz.S << " N " << sz.N << " I " << sz.I << " H " << sz.H);
        cpu::recurrent_reference(l.p, l.in, ref);
        cpu::recurrent(l.p, l.in, out);
        ge::test::check_close(y.v, ry.v, 2e-5f, 1e-4f);
        ge::test::check_close(yh.v, ryh.v, 2e-5f, 1e-4f);
        if (lstm) ge::test::check_close(yc.v, ryc.v, 2e-5f, 1e-4f);
        // Weights packed once, W and R then never read.
        const cpu::PackedMatMulB pw = cpu::pack_rnn_w(l.p, l.in[1]), pr = cpu::pack_rnn_r(l.p, l.in[2]);
        std::vector<ge::TensorView> in = l.in;
        in[1] = ge::TensorView{nullptr, ge::DataType::f32, in[1].dims};
        in[2] = ge::TensorView{nullptr, ge::DataType::f32, in[2].dims};
        Buf<float> y2(yd), yh2(sd), yc2(sd);
        std::vector<ge::TensorView> out2{y2.view(), yh2.view()};
        if (lstm) out2.push_back(yc2.view());
        cpu::recurrent(l.p, in, out2, pw, pr);
        CHECK(y2.v == y.v);
        CHECK(yh2.v == yh.v);
        if (lstm) CHECK(yc2.v == yc.v);
      }
}

TEST_CASE("recurrent: a bidirectional layer whose R only fits L2 split over two threads matches the reference") {
  // R per direction between 3/4 and 3/2 of this machine's L2: the directions run one after
  // another, each step's columns split over the arena's two threads.
  const auto fits = static_cast<double>(cpu::l2_bytes()) * 0.75;
  for (const cpu::RnnCell cell : {cpu::RnnCell::gru, cpu::RnnCell::lstm}) {
    const double g = cell == cpu::RnnCell::gru ? 3.0 : 4.0;
    const auto H = static_cast<std::int64_t>(std::sqrt(1.2 * fits / (g * 4.0)));
    RandomLayer l(cell, 2, 3, 1, 8, H, 77);  // k 2: two directions, no lengths
    REQUIRE(l.p.directions == 2);
    const std::vector<std::int64_t> yd{3, 2, 1, H}, sd{2, 1, H};
    Buf<float> y(yd), yh(sd), yc(sd), ry(yd), ryh(sd), ryc(sd);
    std::vector<ge::TensorView> out{y.view(), yh.view()}, ref{ry.view(), ryh.view()};
    if (cell == cpu::RnnCell::lstm) out.push_back(yc.view()), ref.push_back(ryc.view());
    INFO(cell_name(cell) << " H " << H);
    cpu::recurrent_reference(l.p, l.in, ref);
    tbb::task_arena(2).execute([&] { cpu::recurrent(l.p, l.in, out); });
    ge::test::check_close(y.v, ry.v, 2e-5f, 1e-4f);
    ge::test::check_close(yh.v, ryh.v, 2e-5f, 1e-4f);
  }
}

TEST_CASE("recurrent: packed weights that do not fit the input are errors") {
  cpu::RnnParams p;
  p.cell = cpu::RnnCell::gru;
  p.hidden = 3;
  p.activations = cpu::rnn_activations(p.cell, 1, {}, {}, {});
  Buf<float> w = ge::test::random_f32({1, 9, 4}, 1), r = ge::test::random_f32({1, 9, 3}, 2);
  const cpu::PackedMatMulB pw = cpu::pack_rnn_w(p, w.view()), pr = cpu::pack_rnn_r(p, r.view());
  Buf<float> x = ge::test::random_f32({2, 1, 5}, 3), yh({1, 1, 3});
  std::vector<ge::TensorView> in{x.view(), w.view(), r.view()};
  expect_error([&] { cpu::recurrent(p, in, std::vector<ge::TensorView>{ge::TensorView{}, yh.view()}, pw, pr); },
               Errc::bad_op_inputs, kernels_tag, "input size 4");
  Buf<float> bad({1, 6, 4});
  expect_error([&] { (void)cpu::pack_rnn_w(p, bad.view()); }, Errc::bad_op_inputs, kernels_tag, "W");
  Buf<double> wd({1, 9, 4});
  expect_error([&] { (void)cpu::pack_rnn_w(p, wd.view()); }, Errc::type_mismatch, kernels_tag, "W");
}

TEST_CASE("recurrent: the small-M product matches a plain loop for 1 to 11 rows and ragged columns") {
  if (!cpu::gemm_small_m_fits(1)) return;  // baseline ISA: the general GEMM runs instead
  CHECK_FALSE(cpu::gemm_small_m_fits(12));
  std::uint32_t seed = 3;
  for (std::int64_t m = 1; m < 12; ++m)
    for (const std::int64_t n : {1, 15, 16, 17, 33, 48, 70})
      for (const std::int64_t k : {1, 5, 64}) {
        const Buf<float> a = ge::test::random_f32({m, k + 3}, ++seed), b = ge::test::random_f32({k, n}, ++seed);
        const Buf<float> bias = ge::test::random_f32({n}, ++seed);
        std::vector<float> packed(static_cast<std::size_t>(ge::cpu::packed_b_size(k, n)));
        ge::cpu::pack_b(k, n, b.v.data(), n, false, packed.data());
        const std::int64_t ldc = n + 2, n0 = n > 16 ? 16 : 0;  // from the second panel on, when there is one
        std::vector<float> c(static_cast<std::size_t>(m * ldc), 42.0f), want = c;
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = n0; j < n; ++j) {
            double acc = (m % 2 == 0) ? bias[j] : 0.0;
            for (std::int64_t p = 0; p < k; ++p) acc += static_cast<double>(a[i * (k + 3) + p]) * b[p * n + j];
            want[static_cast<std::size_t>(i * ldc + j)] = static_cast<float>(acc);
          }
        cpu::gemm_small_m(m, n0, n, k, a.v.data(), k + 3, packed.data(), c.data(), ldc, m % 2 == 0 ? bias.v.data() : nullptr);
        INFO("m " << m << " n " << n << " k " << k);
        ge::test::check_close(c, want, 1e-5f, 1e-5f);
      }
}
