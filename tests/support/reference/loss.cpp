// The reference's NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, in double, in
// the plainest way: every target's loss from its own coordinates.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// The loss of input [N, C, d...] at target [N, d...] with an optional weight [C].
RefTensor nll(const Ctx& c, const RefTensor& x, const RefTensor& target, const RefTensor* weight) {
  if (x.dims.size() < 2 || target.dims.size() + 1 != x.dims.size())
    c.error("input " + x.describe() + " and target " + target.describe() + " do not fit");
  const std::int64_t n = x.dims[0], classes = x.dims[1], inner = product(x.dims, 2);
  const std::string red = c.s("reduction", "mean");
  RefTensor each(x.dtype, target.dims);
  double total = 0, weights = 0;
  for (std::int64_t k = 0; k < n * inner; ++k) {
    const std::int64_t t = get_i(target, k);
    double l = 0, w = 0;
    if (!c.has("ignore_index") || t != c.i("ignore_index", 0)) {
      if (t < 0 || t >= classes) c.error("target " + std::to_string(t) + " is outside the classes");
      w = weight != nullptr ? get_f(*weight, t) : 1.0;
      l = -get_f(x, ((k / inner) * classes + t) * inner + k % inner) * w;
    }
    set_f(each, k, l);
    total += l;
    weights += w;
  }
  if (red == "none") return each;
  RefTensor y(x.dtype, {});
  if (red == "sum") set_f(y, 0, total);
  else if (red == "mean") set_f(y, 0, total / weights);
  else c.error("reduction '" + red + "'");
  return y;
}

Outs nll_op(const Ctx& c) {
  c.require_float(0);
  return {nll(c, c.in(0), c.in(1), c.has_input(2) ? &c.in(2) : nullptr)};
}

Outs sce_op(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 2) c.error("scores " + x.describe() + " have rank below 2");
  const std::int64_t classes = x.dims[1], inner = product(x.dims, 2);
  RefTensor lp(x.dtype, x.dims);
  for (std::int64_t k = 0; k < x.dims[0] * inner; ++k) {
    const std::int64_t base = (k / inner) * classes * inner + k % inner;
    double m = -std::numeric_limits<double>::infinity(), sum = 0;
    for (std::int64_t j = 0; j < classes; ++j) m = std::max(m, get_f(x, base + j * inner));
    for (std::int64_t j = 0; j < classes; ++j) sum += std::exp(get_f(x, base + j * inner) - m);
    for (std::int64_t j = 0; j < classes; ++j) set_f(lp, base + j * inner, get_f(x, base + j * inner) - m - std::log(sum));
  }
  return {nll(c, lp, c.in(1), c.has_input(2) ? &c.in(2) : nullptr), lp};
}

}  // namespace

void add_loss_ops(OpTable& t) {
  t["NegativeLogLikelihoodLoss"] = {nll_op, {"reduction", "ignore_index"}};
  t["SoftmaxCrossEntropyLoss"] = {sce_op, {"reduction", "ignore_index"}};
}

}  // namespace ge::ref::detail
