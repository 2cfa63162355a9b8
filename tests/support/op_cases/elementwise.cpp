// Random cases of the elementwise ops: unary maps, binary ops with broadcasting, Where,
// Clip, Cast, Softmax, Max, Min, Mod, Not.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// A float unary op, then the same on i64 and i32 integers.
Generator signed_unary(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v = unary(op, -4, 4)(g);
    v.push_back(make(op, {in(g.ints(DataType::i64, g.dims(1, 3), -50, 50))}));
    v.push_back(make(op, {in(g.ints(DataType::i32, g.dims(1, 3), -50, 50))}));
    return v;
  };
}

// f32 operands of the same dims, then broadcast ones, then i64 ones (`int_lo` up).
Generator binary(std::string op, double lo, double hi, std::int64_t int_lo = -20) {
  return [=](Gen& g) {
    std::vector<OpCase> v;
    const Dims d = g.dims(1, 4);
    v.push_back(make(op, {in(g.f32(d, lo, hi)), in(g.f32(d, lo, hi))}));
    const Dims e = g.dims(2, 4);
    v.push_back(make(op, {in(g.f32(e, lo, hi)), in(g.f32(g.broadcastable(e), lo, hi))}));
    v.push_back(make(op, {in(g.f32(g.broadcastable(e), lo, hi)), in(g.f32(e, lo, hi))}));
    const Dims f = g.dims(1, 3);
    v.push_back(
        make(op, {in(g.ints(DataType::i64, f, int_lo, 20)), in(g.ints(DataType::i64, g.broadcastable(f), 1, 9))}));
    return v;
  };
}

std::vector<OpCase> where_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const Dims d = g.dims(1, 4);
    v.push_back(make("Where", {in(g.bools(g.broadcastable(d))), in(g.f32(d)), in(g.f32(g.broadcastable(d)))}));
  }
  v.push_back(
      make("Where", {in(g.bools({5})), in(g.ints(DataType::i64, {5}, -9, 9)), in(g.ints(DataType::i64, {1}, 0, 0))}));
  return v;
}

std::vector<OpCase> clip_cases(Gen& g) {
  const auto scalar = [](float x) { return cst(RefTensor::of<float>({}, {x})); };
  return {make("Clip", {in(g.f32(g.dims(1, 4), -2, 2)), scalar(-0.5f), scalar(0.7f)}),
          make("Clip", {in(g.f32(g.dims(1, 4), -2, 2)), std::nullopt, scalar(0.25f)}),
          make("Clip", {in(g.f32(g.dims(1, 4), -2, 2)), scalar(-1.f)}), make("Clip", {in(g.f32(g.dims(1, 3), -2, 2))}),
          // integers (cpu.clip_int)
          make("Clip", {in(g.ints(DataType::i8, g.dims(1, 3), -100, 100)), cst(g.ints(DataType::i8, {}, -50, 0)),
                        cst(g.ints(DataType::i8, {}, 0, 50))}),
          make("Clip", {in(g.ints(DataType::i64, g.dims(1, 3), -100, 100)), std::nullopt,
                        cst(g.ints(DataType::i64, {}, -10, 10))}),
          make("Clip", {in(g.ints(DataType::u8, g.dims(1, 3), 0, 255)), cst(g.ints(DataType::u8, {}, 10, 100))})};
}

std::vector<OpCase> cast_cases(Gen& g) {
  const auto to = [](DataType t) { return Attributes{{"to", std::string(to_string(t))}}; };
  return {make("Cast", {in(g.f32(g.dims(1, 4), -100, 100))}, to(DataType::i64)),
          make("Cast", {in(g.f32(g.dims(1, 4), -100, 100))}, to(DataType::i32)),
          make("Cast", {in(g.ints(DataType::f32, g.dims(1, 4), -2, 2))}, to(DataType::boolean)),
          make("Cast", {in(g.ints(DataType::i64, g.dims(1, 4), -1000, 1000))}, to(DataType::f32)),
          make("Cast", {in(g.bools(g.dims(1, 3)))}, to(DataType::f32)),
          make("Cast", {in(g.f32(g.dims(1, 3)))}, to(DataType::f64))};
}

Generator softmax(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 3; ++k) {
      const Dims d = g.dims(1, 4, 1, 12);
      const auto r = static_cast<std::int64_t>(d.size());
      v.push_back(make(op, {in(g.f32(d, -5, 5))}, {{"axis", g.integer(-r, r - 1)}}));
    }
    v.push_back(make(op, {in(g.f32(g.dims(1, 3), -5, 5))}));
    return v;
  };
}

// Max and Min of one to three inputs, broadcast; f32 and i64.
Generator extremum(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 4; ++k) {
      const Dims d = g.dims(1, 4);
      const DataType t = k == 3 ? DataType::i64 : DataType::f32;
      std::vector<std::optional<CaseInput>> ins{in(g.ints(t, d, -5, 5))};
      for (int n = 0; n < k % 3; ++n) ins.push_back(in(g.ints(t, g.broadcastable(d), -5, 5)));
      if (k == 1) ins[0] = in(g.f32(d));
      v.push_back(make(op, ins));
    }
    return v;
  };
}

// Mod: integers of both signs (fmod 0 and 1), floats (fmod 1).
std::vector<OpCase> mod_cases(Gen& g) {
  const auto divisor = [&g](DataType t, const Dims& d) {
    RefTensor b = g.ints(t, d, 1, 9);
    for (std::int64_t i = 0; i < b.elements(); ++i)
      if (g.coin() && t == DataType::i64) b.as<std::int64_t>()[static_cast<std::size_t>(i)] *= -1;
    return b;
  };
  std::vector<OpCase> v;
  for (const DataType t : {DataType::i64, DataType::i32}) {
    const Dims d = g.dims(1, 3);
    v.push_back(make("Mod", {in(g.ints(t, d, -50, 50)), in(divisor(t, g.broadcastable(d)))}));
    v.push_back(make("Mod", {in(g.ints(t, d, -50, 50)), in(divisor(t, d))}, {{"fmod", 1}}));
  }
  const Dims d = g.dims(1, 3);
  v.push_back(make("Mod", {in(g.f32(d, -9, 9)), in(g.f32(g.broadcastable(d), 0.5, 3))}, {{"fmod", 1}}));
  v.push_back(make("Mod", {in(g.f32(d, -9, 9)), in(g.f32(d, -3, -0.5))}, {{"fmod", 1}}));
  return v;
}

}  // namespace

Generator unary(std::string op, double lo, double hi, double rtol, Attributes attrs) {
  return [=](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 3; ++k) {
      // 0: maybe a scalar; 2: a few thousand elements (the vector loops and their tails).
      const Dims d = k == 2 ? Dims{g.integer(1, 3), g.integer(100, 999)} : g.dims(k == 0 ? 0 : 1, 4, 1, 9);
      OpCase c = make(op, {in(g.f32(d, lo, hi))}, attrs);
      c.rtol = rtol;
      v.push_back(c);
    }
    return v;
  };
}

Generator comparison(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    for (const DataType t : {DataType::f32, DataType::i64, DataType::f32}) {
      const Dims d = g.dims(1, 4);
      v.push_back(make(op, {in(g.ints(t, d, -3, 3)), in(g.ints(t, g.broadcastable(d), -3, 3))}));
    }
    return v;
  };
}

void add_elementwise_cases(GenTable& t) {
  t["Sqrt"] = unary("Sqrt", 0.01, 4);
  t["Exp"] = unary("Exp", -5, 5);
  t["Log"] = unary("Log", 0.01, 4);
  t["Erf"] = unary("Erf", -3, 3);
  t["Tanh"] = unary("Tanh", -4, 4);
  t["Sigmoid"] = unary("Sigmoid", -6, 6);
  t["HardSwish"] = unary("HardSwish", -5, 5);
  t["LeakyRelu"] = [](Gen& g) {
    std::vector<OpCase> v = unary("LeakyRelu", -2, 2, 1e-5, {{"alpha", g.real(0.01, 0.5)}})(g);
    v.push_back(make("LeakyRelu", {in(g.f32(g.dims(1, 3)))}));
    return v;
  };
  t["Gelu"] = [](Gen& g) {
    std::vector<OpCase> v = unary("Gelu", -4, 4)(g);
    for (OpCase& c : unary("Gelu", -4, 4, 1e-5, {{"approximate", "tanh"}})(g)) v.push_back(c);
    return v;
  };
  t["HardSigmoid"] = [](Gen& g) {
    std::vector<OpCase> v = unary("HardSigmoid", -6, 6)(g);
    v.push_back(make("HardSigmoid", {in(g.f32(g.dims(1, 3), -6, 6))}, {{"alpha", 0.5}, {"beta", 0.25}}));
    return v;
  };
  t["Not"] = [](Gen& g) {
    return std::vector<OpCase>{make("Not", {in(g.bools(g.dims(0, 4)))}),
                               make("Not", {in(g.bools({g.integer(100, 999)}))})};
  };
  t["Max"] = extremum("Max");
  t["Min"] = extremum("Min");
  t["Mod"] = mod_cases;
  t["Identity"] = [](Gen& g) {
    return std::vector<OpCase>{make("Identity", {in(g.f32(g.dims(0, 4)))}),
                               make("Identity", {in(g.ints(DataType::i64, g.dims(1, 3), -9, 9))}),
                               make("Identity", {in(g.bools(g.dims(1, 3)))})};
  };
  for (const char* op : {"Neg", "Abs", "Relu"}) t[op] = signed_unary(op);
  t["Add"] = binary("Add", -2, 2);
  t["Sub"] = binary("Sub", -2, 2);
  t["Mul"] = binary("Mul", -2, 2);
  t["Div"] = binary("Div", 0.5, 2, 0);  // i64: non-negative over positive (C and floor division agree)
  t["Pow"] = [](Gen& g) {
    const Dims d = g.dims(1, 4);
    return std::vector<OpCase>{make("Pow", {in(g.f32(d, 0.1, 3)), in(g.f32(g.broadcastable(d), -2, 2))}),
                               make("Pow", {in(g.f32(d, -3, 3)), cst(RefTensor::of<float>({}, {2.f}))}),
                               make("Pow", {in(g.f32(d, 0.1, 3)), cst(RefTensor::of<float>({1}, {0.5f}))}),
                               // mixed and integer types (cpu.pow_mixed)
                               make("Pow", {in(g.f32(d, -3, 3)), in(g.ints(DataType::i64, g.broadcastable(d), -2, 3))}),
                               make("Pow", {in(g.ints(DataType::i64, d, -4, 4)), in(g.ints(DataType::i32, d, 0, 5))}),
                               make("Pow", {in(g.ints(DataType::i32, d, 1, 5)), in(g.f32(d, 0, 2))}),
                               make("Pow", {in(g.ints(DataType::i64, d, 1, 3)), in(g.ints(DataType::i64, d, -2, 0))}),
                               make("Pow", {in(RefTensor::of<std::int64_t>({4}, {-1, -1, 1, 2})),
                                            in(RefTensor::of<std::int64_t>({4}, {-1, -2, -3, -1}))})};
  };
  for (const char* op : {"Equal", "Less", "Greater"}) t[op] = comparison(op);
  t["Where"] = where_cases;
  t["Clip"] = clip_cases;
  t["Cast"] = cast_cases;
  t["Softmax"] = softmax("Softmax");
  t["LogSoftmax"] = softmax("LogSoftmax");
}

}  // namespace ge::test::cases
