// Random cases of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// Inputs [N, C, d...] and targets [N, d...] in [0, C), some equal to ignore_index (-1)
// when `ignore` is set; weights [C] on odd k.
std::vector<OpCase> loss_cases(Gen& g, const std::string& op) {
  std::vector<OpCase> v;
  int k = 0;
  for (const char* red : {"none", "sum", "mean", "mean"}) {
    const Dims x = g.dims(2, 4, 1, 4);
    Dims t{x[0]};
    t.insert(t.end(), x.begin() + 2, x.end());
    const bool ignore = k >= 2;
    RefTensor target = g.ints(k % 2 == 0 ? DataType::i64 : DataType::i32, t, ignore ? -1 : 0, x[1] - 1);
    std::optional<CaseInput> weight;
    if (k % 2 == 1) weight = in(g.f32({x[1]}, 0.1, 2));
    Attributes a{{"reduction", std::string(red)}};
    if (ignore) a.emplace("ignore_index", std::int64_t{-1});
    OpCase c = make(op, {in(g.f32(x, -3, 3)), in(target), weight}, a);
    c.outputs = op == "SoftmaxCrossEntropyLoss" && k % 2 == 0 ? 2 : 1;
    c.rtol = 1e-4;
    c.atol = 1e-5;
    v.push_back(c);
    ++k;
  }
  return v;
}

}  // namespace

void add_loss_cases(GenTable& t) {
  t["NegativeLogLikelihoodLoss"] = [](Gen& g) { return loss_cases(g, "NegativeLogLikelihoodLoss"); };
  t["SoftmaxCrossEntropyLoss"] = [](Gen& g) { return loss_cases(g, "SoftmaxCrossEntropyLoss"); };
}

}  // namespace ge::test::cases
