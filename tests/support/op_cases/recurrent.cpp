// Random cases of RNN, GRU and LSTM: every direction and layout, optional inputs given or
// omitted (sequence lengths down to 0), activations with parameters, clip, and GRU's
// linear_before_reset and LSTM's input_forget.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// Activation lists for `per` activations per direction (cycled through by case k).
std::vector<std::string> acts(std::size_t per, int k) {
  static const std::vector<std::vector<std::string>> pool{
      {"Relu"}, {"LeakyRelu"}, {"HardSigmoid", "Softsign"}, {"ScaledTanh", "Affine", "Elu"},
      {"Sigmoid", "ThresholdedRelu", "Softplus"}, {"Tanh", "Sigmoid"}};
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const auto& v = pool[(static_cast<std::size_t>(k) + i) % pool.size()];
    if (v.size() == per) return v;
  }
  return {};
}

Generator layer(std::string op, std::int64_t gates, std::size_t per) {
  return [op, gates, per](Gen& g) {
    std::vector<OpCase> v;
    const bool lstm = op == "LSTM";
    for (int k = 0; k < 6; ++k) {
      const std::int64_t S = g.integer(1, 4), N = g.integer(1, 3), I = g.integer(1, 4), H = g.integer(1, 4);
      const char* dirs[] = {"forward", "reverse", "bidirectional"};
      const std::string dir = dirs[k % 3];
      const std::int64_t D = dir == "bidirectional" ? 2 : 1;
      const bool bf = k >= 3;
      Attributes a{{"hidden_size", H}, {"direction", dir}, {"layout", std::int64_t{bf ? 1 : 0}}};
      if (k % 2 == 1) {
        a.emplace("activations", acts(per, k));
        a.emplace("activation_alpha", std::vector<double>{g.real(0.1, 0.9), g.real(0.1, 0.9)});
        a.emplace("activation_beta", std::vector<double>{g.real(0.1, 0.9)});
      }
      if (k == 2) a.emplace("clip", 0.5);
      if (op == "GRU") a.emplace("linear_before_reset", std::int64_t{k % 2});
      if (lstm && k == 4) a.emplace("input_forget", std::int64_t{1});
      const Dims state = bf ? Dims{N, D, H} : Dims{D, N, H};
      std::vector<std::optional<CaseInput>> ins{in(g.f32(bf ? Dims{N, S, I} : Dims{S, N, I})),
                                               in(g.f32({D, gates * H, I})), in(g.f32({D, gates * H, H}))};
      ins.push_back(k % 3 != 1 ? std::optional<CaseInput>(in(g.f32({D, 2 * gates * H}))) : std::nullopt);
      ins.push_back(k >= 2 ? std::optional<CaseInput>(in(g.ints(DataType::i32, {N}, 0, S))) : std::nullopt);
      ins.push_back(k % 2 == 0 ? std::optional<CaseInput>(in(g.f32(state))) : std::nullopt);
      if (lstm) {
        ins.push_back(k != 1 ? std::optional<CaseInput>(in(g.f32(state))) : std::nullopt);
        ins.push_back(k % 2 == 1 ? std::optional<CaseInput>(in(g.f32({D, 3 * H}))) : std::nullopt);
      }
      OpCase c = make(op, ins, a);
      c.outputs = lstm ? 3 : 2;
      c.rtol = 1e-4;
      c.atol = 1e-5;
      v.push_back(c);
    }
    return v;
  };
}

}  // namespace

void add_recurrent_cases(GenTable& t) {
  t["RNN"] = layer("RNN", 1, 1);
  t["GRU"] = layer("GRU", 3, 2);
  t["LSTM"] = layer("LSTM", 4, 3);
}

}  // namespace ge::test::cases
