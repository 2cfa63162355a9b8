// Random cases of the element-wise math and activation family: the float maps on their
// domains (and f64), Sign, the activations with random attributes, IsNaN/IsInf with NaNs
// and infinities planted, PRelu, And/Or/Xor, LessOrEqual/GreaterOrEqual, BitShift over
// every unsigned type (shifts past the width included), Sum and Mean.
#include <cmath>
#include <limits>
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

RefTensor to_f64(const RefTensor& x) {
  RefTensor y(DataType::f64, x.dims);
  for (std::size_t i = 0; i < y.as<double>().size(); ++i) y.as<double>()[i] = x.as<float>()[i];
  return y;
}

// unary(op, lo, hi) plus one f64 case on the same domain.
Generator float_unary(std::string op, double lo, double hi, Attributes attrs = {}) {
  return [=](Gen& g) {
    std::vector<OpCase> v = unary(op, lo, hi, 1e-5, attrs)(g);
    v.push_back(make(op, {in(to_f64(g.f32(g.dims(1, 3), lo, hi)))}, attrs));
    return v;
  };
}

// Round: halves and quarters (ties to even), and plain values.
std::vector<OpCase> round_cases(Gen& g) {
  RefTensor x = g.ints(DataType::f32, g.dims(1, 3, 2, 9), -40, 40);
  for (float& e : x.as<float>()) e /= 4.0f;
  std::vector<OpCase> v = unary("Round", -5, 5)(g);
  v.push_back(make("Round", {in(x)}));
  return v;
}

std::vector<OpCase> sign_cases(Gen& g) {
  return {make("Sign", {in(g.ints(DataType::f32, g.dims(1, 4), -3, 3))}), make("Sign", {in(g.f32(g.dims(0, 2)))}),
          make("Sign", {in(g.ints(DataType::i64, g.dims(1, 3), -3, 3))}),
          make("Sign", {in(g.ints(DataType::i32, g.dims(1, 3), -3, 3))})};
}

// Float inputs with NaN and +-inf planted at random places.
RefTensor special(Gen& g, Dims d) {
  RefTensor x = g.f32(std::move(d), -3, 3);
  for (float& e : x.as<float>()) {
    const std::int64_t k = g.integer(0, 5);
    if (k == 0) e = std::numeric_limits<float>::quiet_NaN();
    if (k == 1) e = std::numeric_limits<float>::infinity();
    if (k == 2) e = -std::numeric_limits<float>::infinity();
  }
  return x;
}

std::vector<OpCase> is_inf_cases(Gen& g) {
  std::vector<OpCase> v{make("IsInf", {in(special(g, g.dims(1, 4)))})};
  for (const std::int64_t neg : {0, 1})
    v.push_back(make("IsInf", {in(special(g, g.dims(1, 3)))}, {{"detect_negative", neg}, {"detect_positive", 1 - neg}}));
  v.push_back(make("IsInf", {in(to_f64(special(g, g.dims(1, 2))))}));
  return v;
}

std::vector<OpCase> prelu_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const Dims d = g.dims(1, 4);
    v.push_back(make("PRelu", {in(g.f32(d, -2, 2)), in(g.f32(k == 0 ? d : g.broadcastable(d), 0, 0.5))}));
  }
  v.push_back(make("PRelu", {in(g.f32({2, 3, 4, 5}, -2, 2)), cst(RefTensor::of<float>({3, 1, 1}, {0.1f, 0.2f, 0.3f}))}));
  return v;
}

Generator logic(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 3; ++k) {
      const Dims d = g.dims(1, 4);
      v.push_back(k == 2 ? make(op, {in(g.bools(g.broadcastable(d))), in(g.bools(d))})
                         : make(op, {in(g.bools(d)), in(g.bools(k == 0 ? d : g.broadcastable(d)))}));
    }
    return v;
  };
}

std::vector<OpCase> bit_shift_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const DataType t : {DataType::u8, DataType::u16, DataType::u32, DataType::u64}) {
    const std::int64_t bits = size_of(t) * 8;
    const Dims d = g.dims(1, 3);
    const std::string dir = g.coin() ? "LEFT" : "RIGHT";
    v.push_back(make("BitShift", {in(g.ints(t, d, 0, 255)), in(g.ints(t, g.broadcastable(d), 0, bits + 2))},
                     {{"direction", dir}}));
  }
  return v;
}

Generator sum_mean(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    for (int n = 1; n <= 3; ++n) {
      const Dims d = g.dims(1, 4);
      std::vector<std::optional<CaseInput>> ins{in(g.f32(d))};
      for (int k = 1; k < n; ++k) ins.push_back(in(g.f32(g.broadcastable(d))));
      v.push_back(make(op, ins));
    }
    return v;
  };
}

}  // namespace

void add_elementwise_math_cases(GenTable& t) {
  t["Reciprocal"] = float_unary("Reciprocal", 0.25, 4);
  t["Sin"] = float_unary("Sin", -6, 6);
  t["Cos"] = float_unary("Cos", -6, 6);
  t["Tan"] = float_unary("Tan", -1.2, 1.2);
  t["Asin"] = float_unary("Asin", -0.99, 0.99);
  t["Acos"] = float_unary("Acos", -0.99, 0.99);
  t["Atan"] = float_unary("Atan", -5, 5);
  t["Sinh"] = float_unary("Sinh", -4, 4);
  t["Cosh"] = float_unary("Cosh", -4, 4);
  t["Asinh"] = float_unary("Asinh", -5, 5);
  t["Acosh"] = float_unary("Acosh", 1.01, 6);
  t["Atanh"] = float_unary("Atanh", -0.95, 0.95);
  t["Softplus"] = float_unary("Softplus", -10, 10);
  t["Softsign"] = float_unary("Softsign", -5, 5);
  t["Mish"] = float_unary("Mish", -6, 6);
  t["Round"] = round_cases;
  t["Floor"] = float_unary("Floor", -5, 5);
  t["Ceil"] = float_unary("Ceil", -5, 5);
  t["Sign"] = sign_cases;
  t["Elu"] = [](Gen& g) { return float_unary("Elu", -3, 3, {{"alpha", g.real(0.1, 2)}})(g); };
  t["Selu"] = [](Gen& g) {
    std::vector<OpCase> v = float_unary("Selu", -3, 3)(g);
    v.push_back(make("Selu", {in(g.f32(g.dims(1, 3), -3, 3))}, {{"alpha", g.real(0.5, 2)}, {"gamma", g.real(0.5, 2)}}));
    return v;
  };
  t["Celu"] = [](Gen& g) { return float_unary("Celu", -3, 3, {{"alpha", g.real(0.2, 2)}})(g); };
  t["ThresholdedRelu"] = [](Gen& g) { return float_unary("ThresholdedRelu", -3, 3, {{"alpha", g.real(-1, 1)}})(g); };
  t["Shrink"] = [](Gen& g) {
    std::vector<OpCase> v = float_unary("Shrink", -3, 3)(g);
    v.push_back(make("Shrink", {in(g.f32(g.dims(1, 3), -3, 3))}, {{"lambd", g.real(0, 1.5)}, {"bias", g.real(-1, 1)}}));
    return v;
  };
  t["IsNaN"] = [](Gen& g) {
    return std::vector<OpCase>{make("IsNaN", {in(special(g, g.dims(0, 4)))}),
                               make("IsNaN", {in(to_f64(special(g, g.dims(1, 3))))})};
  };
  t["IsInf"] = is_inf_cases;
  t["PRelu"] = prelu_cases;
  t["And"] = logic("And");
  t["Or"] = logic("Or");
  t["Xor"] = logic("Xor");
  t["LessOrEqual"] = comparison("LessOrEqual");
  t["GreaterOrEqual"] = comparison("GreaterOrEqual");
  t["BitShift"] = bit_shift_cases;
  t["Sum"] = sum_mean("Sum");
  t["Mean"] = sum_mean("Mean");
}

}  // namespace ge::test::cases
