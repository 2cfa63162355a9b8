// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: each target read once, the
// weighted losses summed in double.
#include "kernels/cpu/nn/loss.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {
namespace {

// input [N, C, d...] and target [N, d...]: checks the dims, returns {N, C, D = prod(d)}.
struct LossDims {
  std::int64_t n, c, d;
};

LossDims loss_dims(std::string_view op, const TensorView& x, const TensorView& target, const TensorView* weight) {
  check_data(op, "input", x);
  check_data(op, "target", target);
  if (x.dtype != DataType::f32 && x.dtype != DataType::f64)
    fail(Errc::type_mismatch, op, "input is " + type_text(x.dtype) + "; expected 'f32' or 'f64'");
  if (target.dtype != DataType::i32 && target.dtype != DataType::i64)
    fail(Errc::type_mismatch, op, "target is " + type_text(target.dtype) + "; expected 'i32' or 'i64'");
  if (x.rank() < 2 || target.rank() + 1 != x.rank())
    fail(Errc::bad_op_inputs, op, "input " + bracketed(x.dims) + " and target " + bracketed(target.dims) +
                                      "; expected [N, C, d...] and [N, d...]");
  for (std::size_t k = 0; k < target.rank(); ++k)
    if (target.dims[k] != x.dims[k == 0 ? 0 : k + 1])
      fail(Errc::bad_op_inputs, op, "target " + bracketed(target.dims) + " does not fit input " + bracketed(x.dims));
  if (weight != nullptr) {
    same_type(op, "input", x, "weight", *weight);
    const std::int64_t c[1] = {x.dims[1]};
    check_dims(op, "weight", *weight, c);
  }
  return {x.dims[0], x.dims[1], product(x.dims, 2, x.rank())};
}

template <class T, class I>
void nll_typed(std::string_view op, const LossParams& p, LossDims s, const T* x, const I* target, const T* weight, T* loss) {
  double total = 0, weights = 0;
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t d = 0; d < s.d; ++d) {
      const std::int64_t k = n * s.d + d;
      const auto t = static_cast<std::int64_t>(target[k]);
      double l = 0, w = 0;
      if (!p.ignore_index || t != *p.ignore_index) {
        if (t < 0 || t >= s.c)
          fail(Errc::index_out_of_range, op,
               "target " + std::to_string(t) + " is outside [0, " + std::to_string(s.c) + ")");
        w = weight != nullptr ? static_cast<double>(weight[t]) : 1.0;
        l = -static_cast<double>(x[(n * s.c + t) * s.d + d]) * w;
      }
      if (p.reduction == LossReduction::none) loss[k] = static_cast<T>(l);
      total += l;
      weights += w;
    }
  if (p.reduction == LossReduction::sum) *loss = static_cast<T>(total);
  if (p.reduction == LossReduction::mean) *loss = static_cast<T>(total / weights);
}

template <class T>
void nll_dispatch(std::string_view op, const LossParams& p, LossDims s, const TensorView& x, const TensorView& target,
                  const TensorView* weight, const TensorView& loss) {
  const T* w = weight != nullptr ? weight->as<const T>() : nullptr;
  if (target.dtype == DataType::i64)
    nll_typed<T>(op, p, s, x.as<const T>(), target.as<const std::int64_t>(), w, loss.as<T>());
  else
    nll_typed<T>(op, p, s, x.as<const T>(), target.as<const std::int32_t>(), w, loss.as<T>());
}

void check_loss_output(std::string_view op, const LossParams& p, const TensorView& x, const TensorView& target,
                       const TensorView& loss) {
  same_type(op, "input", x, "loss", loss);
  if (p.reduction == LossReduction::none) check_dims(op, "loss", loss, target.dims);
  else check_dims(op, "loss", loss, Dims{});
}

template <class T>
void log_softmax_axis1(LossDims s, const T* x, T* y) {
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t d = 0; d < s.d; ++d) {
      const T* xs = x + n * s.c * s.d + d;
      T* ys = y + n * s.c * s.d + d;
      double m = -std::numeric_limits<double>::infinity();
      for (std::int64_t c = 0; c < s.c; ++c) m = std::max(m, static_cast<double>(xs[c * s.d]));
      double sum = 0;
      for (std::int64_t c = 0; c < s.c; ++c) sum += std::exp(static_cast<double>(xs[c * s.d]) - m);
      const double lse = m + std::log(sum);
      for (std::int64_t c = 0; c < s.c; ++c) ys[c * s.d] = static_cast<T>(static_cast<double>(xs[c * s.d]) - lse);
    }
}

}  // namespace

void nll_loss(const LossParams& p, const TensorView& input, const TensorView& target, const TensorView* weight,
              const TensorView& loss) {
  constexpr std::string_view op = "NegativeLogLikelihoodLoss";
  const LossDims s = loss_dims(op, input, target, weight);
  check_loss_output(op, p, input, target, loss);
  if (input.dtype == DataType::f64) nll_dispatch<double>(op, p, s, input, target, weight, loss);
  else nll_dispatch<float>(op, p, s, input, target, weight, loss);
}

void softmax_cross_entropy(const LossParams& p, const TensorView& scores, const TensorView& labels,
                           const TensorView* weight, const TensorView& loss, const TensorView* log_prob) {
  constexpr std::string_view op = "SoftmaxCrossEntropyLoss";
  const LossDims s = loss_dims(op, scores, labels, weight);
  check_loss_output(op, p, scores, labels, loss);
  if (log_prob != nullptr) {
    same_type(op, "scores", scores, "log_prob", *log_prob);
    check_dims(op, "log_prob", *log_prob, scores.dims);
  }
  const auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> buffer;
    T* lp = log_prob != nullptr ? log_prob->as<T>() : nullptr;
    if (lp == nullptr) {
      buffer.resize(static_cast<std::size_t>(scores.elements()));
      lp = buffer.data();
    }
    log_softmax_axis1(s, scores.as<const T>(), lp);
    nll_dispatch<T>(op, p, s, TensorView{lp, scores.dtype, scores.dims}, labels, weight, loss);
  };
  if (scores.dtype == DataType::f64) run(0.0);
  else run(0.0f);
}

}  // namespace ge::cpu
