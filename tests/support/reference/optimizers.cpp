// The reference's training-domain optimizers Adagrad, Momentum and Adam, from ONNX's
// update rules, one element at a time.

#include <cmath>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

Outs optimize(const Ctx& c) {
  const std::string& op = c.node.op;
  const std::size_t states = op == "Adam" ? 2 : 1;
  const std::size_t n = (c.input_count() - 2) / (2 + states);
  const double r = get_f(c.in(0), 0);
  const auto t = static_cast<double>(get_i(c.in(1), 0));
  const double norm = c.f("norm_coefficient", 0);
  Outs out(n * (1 + states));
  for (std::size_t k = 0; k < n; ++k) {
    const RefTensor& x = c.in(2 + k);
    const RefTensor& g = c.in(2 + n + k);
    for (std::size_t s = 0; s <= states; ++s) out[s * n + k] = RefTensor(x.dtype, x.dims);
    for (std::int64_t i = 0; i < x.elements(); ++i) {
      const double xi = get_f(x, i), gi = get_f(g, i) + norm * xi;
      const double s0 = get_f(c.in(2 + 2 * n + k), i);
      if (op == "Adagrad") {
        const double h = s0 + gi * gi;
        const double rate = r / (1 + t * c.f("decay_factor", 0));
        set_f(out[k], i, xi - rate * gi / (std::sqrt(h) + c.f("epsilon", 1e-6)));
        set_f(out[n + k], i, h);
      } else if (op == "Momentum") {
        const double alpha = c.f("alpha", 0), v = alpha * s0 + (t > 0 ? c.f("beta", 0) : 1) * gi;
        set_f(out[k], i, c.s("mode", "") == "nesterov" ? xi - r * (gi + alpha * v) : xi - r * v);
        set_f(out[n + k], i, v);
      } else {
        const double alpha = c.f("alpha", 0.9), beta = c.f("beta", 0.999);
        const double v = alpha * s0 + (1 - alpha) * gi;
        const double h = beta * get_f(c.in(2 + 3 * n + k), i) + (1 - beta) * gi * gi;
        const double rate = t > 0 ? r * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t)) : r;
        const double xn = xi - rate * v / (std::sqrt(h) + c.f("epsilon", 1e-6));
        set_f(out[k], i, (1 - c.f("norm_coefficient_post", 0)) * xn);
        set_f(out[n + k], i, v);
        set_f(out[2 * n + k], i, h);
      }
    }
  }
  return out;
}

}  // namespace

void add_optimizer_ops(OpTable& t) {
  t["Adagrad"] = {optimize, {"decay_factor", "epsilon", "norm_coefficient"}};
  t["Momentum"] = {optimize, {"alpha", "beta", "mode", "norm_coefficient"}};
  t["Adam"] = {optimize, {"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"}};
}

}  // namespace ge::ref::detail
