// Random cases of the training-domain optimizers Adagrad, Momentum and Adam: one to three
// tensors per node, step counts 0 (no bias correction, Momentum's beta unused) and above.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

Generator optimizer(std::string op, std::size_t states) {
  return [op, states](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 4; ++k) {
      const auto n = static_cast<std::size_t>(g.integer(1, 3));
      std::vector<Dims> dims;
      for (std::size_t i = 0; i < n; ++i) dims.push_back(g.dims(0, 3, 1, 4));
      std::vector<std::optional<CaseInput>> ins{in(RefTensor::of<float>({}, {static_cast<float>(g.real(0.01, 0.5))})),
                                                in(RefTensor::of<std::int64_t>({}, {k == 0 ? 0 : g.integer(1, 9)}))};
      for (std::size_t s = 0; s < 2 + states; ++s)
        for (std::size_t i = 0; i < n; ++i)  // X, G, then states (squared-gradient sums are >= 0)
          ins.push_back(in(s >= 2 && (op != "Adam" || s == 3) && op != "Momentum" ? g.f32(dims[i], 0, 1) : g.f32(dims[i])));
      Attributes a{{"norm_coefficient", g.real(0, 0.1)}};
      if (op == "Adagrad") {
        a.emplace("decay_factor", g.real(0, 0.5));
        a.emplace("epsilon", 1e-5);
      } else if (op == "Momentum") {
        a.emplace("alpha", g.real(0.5, 1));
        a.emplace("beta", g.real(0.1, 1));
        a.emplace("mode", std::string(k % 2 == 0 ? "standard" : "nesterov"));
      } else if (k % 2 == 1) {
        a.emplace("alpha", g.real(0.5, 0.99));
        a.emplace("beta", g.real(0.5, 0.99));
        a.emplace("norm_coefficient_post", g.real(0, 0.1));
      }
      OpCase c = make(op, ins, a);
      c.outputs = n * (1 + states);
      c.rtol = 1e-4;
      c.atol = 1e-5;
      v.push_back(c);
    }
    return v;
  };
}

}  // namespace

void add_optimizer_cases(GenTable& t) {
  t["Adagrad"] = optimizer("Adagrad", 1);
  t["Momentum"] = optimizer("Momentum", 1);
  t["Adam"] = optimizer("Adam", 2);
}

}  // namespace ge::test::cases
