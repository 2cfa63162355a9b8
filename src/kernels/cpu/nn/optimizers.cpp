// The training-domain optimizers (optimizers.hpp), in double, one element at a time.
#include "kernels/cpu/nn/optimizers.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace ge::cpu {

namespace {

constexpr std::string_view name_of(Optimizer k) {
  return k == Optimizer::adagrad ? "Adagrad" : k == Optimizer::momentum ? "Momentum" : "Adam";
}

double scalar(std::string_view op, const char* what, const TensorView& t) {
  if (t.elements() != 1)
    fail(Errc::bad_op_inputs, op, std::string(what) + " is " + bracketed(t.dims) + "; expected a scalar");
  check_data(op, what, t);
  switch (t.dtype) {
    case DataType::f32: return *t.as<const float>();
    case DataType::f64: return *t.as<const double>();
    case DataType::i64: return static_cast<double>(*t.as<const std::int64_t>());
    default: fail(Errc::type_mismatch, op, std::string(what) + " is " + std::string(to_string(t.dtype)));
  }
}

double get(const TensorView& t, std::int64_t i) {
  return t.dtype == DataType::f64 ? t.as<const double>()[i] : t.as<const float>()[i];
}
void put(const TensorView& t, std::int64_t i, double v) {
  if (t.dtype == DataType::f64) t.as<double>()[i] = v;
  else t.as<float>()[i] = static_cast<float>(v);
}

// One element: x, g and the states s (1 or 2) in; the new x and states out.
double update(const OptimizerParams& p, double r, double step, double x, double g, double* s) {
  const double gr = g + p.norm_coefficient * x;
  switch (p.kind) {
    case Optimizer::adagrad: {
      s[0] += gr * gr;
      return x - r / (1 + step * p.decay_factor) * gr / (std::sqrt(s[0]) + p.epsilon);
    }
    case Optimizer::momentum: {
      s[0] = p.alpha * s[0] + (step > 0 ? p.beta : 1.0) * gr;
      return x - r * (p.nesterov ? gr + p.alpha * s[0] : s[0]);
    }
    case Optimizer::adam: {
      s[0] = p.alpha * s[0] + (1 - p.alpha) * gr;
      s[1] = p.beta * s[1] + (1 - p.beta) * gr * gr;
      const double ra = step > 0 ? r * std::sqrt(1 - std::pow(p.beta, step)) / (1 - std::pow(p.alpha, step)) : r;
      return (1 - p.norm_coefficient_post) * (x - ra * s[0] / (std::sqrt(s[1]) + p.epsilon));
    }
  }
  return x;
}

}  // namespace

std::size_t optimizer_states(Optimizer kind) noexcept { return kind == Optimizer::adam ? 2 : 1; }

void optimizer_step(const OptimizerParams& p, std::span<const TensorView> in, std::span<const TensorView> out) {
  const std::string_view op = name_of(p.kind);
  const std::size_t states = optimizer_states(p.kind);
  const std::size_t groups = 2 + states;
  if (in.size() < 2 + groups || (in.size() - 2) % groups != 0)
    fail(Errc::bad_op_inputs, op, "has " + std::to_string(in.size()) + " inputs; expected R, T and " +
                                      std::to_string(groups) + " per optimized tensor");
  const std::size_t n = (in.size() - 2) / groups;
  if (out.size() != n * (1 + states))
    fail(Errc::bad_op_inputs, op, "has " + std::to_string(out.size()) + " outputs; expected " +
                                      std::to_string(n * (1 + states)));
  const double r = scalar(op, "R", in[0]);
  const double step = scalar(op, "T", in[1]);
  if (step < 0) fail(Errc::bad_op_inputs, op, "T is " + std::to_string(step) + "; expected a step count >= 0");
  for (std::size_t k = 0; k < n; ++k) {
    const TensorView& x = in[2 + k];
    if (x.dtype != DataType::f32 && x.dtype != DataType::f64)
      fail(Errc::type_mismatch, op, "X is " + std::string(to_string(x.dtype)) + "; expected f32 or f64");
    std::vector<const TensorView*> views{&in[2 + n + k]};
    for (std::size_t s = 0; s < states; ++s) views.push_back(&in[2 + (2 + s) * n + k]);
    views.push_back(&out[k]);
    for (std::size_t s = 0; s < states; ++s) views.push_back(&out[(1 + s) * n + k]);
    for (const TensorView* v : views) {
      check_dtype(op, "an input or output", *v, x.dtype);
      check_dims(op, "an input or output", *v, x.dims);
    }
    check_data(op, "X", x);
    for (std::int64_t i = 0; i < x.elements(); ++i) {
      double s[2] = {get(*views[1], i), states > 1 ? get(*views[2], i) : 0.0};
      put(out[k], i, update(p, r, step, get(x, i), get(*views[0], i), s));
      for (std::size_t j = 0; j < states; ++j) put(out[(1 + j) * n + k], i, s[j]);
    }
  }
}

}  // namespace ge::cpu
