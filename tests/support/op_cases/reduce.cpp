// Random cases of the reductions (ReduceMean ... ReduceLogSumExp), ArgMax, ArgMin and CumSum.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// Four cases of a Reduce op: all axes, one axis and two axes as input, and one of i64 data
// in [-int_hi, int_hi] (f64 data in [1, 3] when int_hi is 0); f32 data in [lo, hi].
Generator reduce(std::string op, double lo, double hi, std::int64_t int_hi) {
  return [op, lo, hi, int_hi](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 4; ++k) {
      const Dims d = g.dims(1, 4, 1, 9);
      const auto r = static_cast<std::int64_t>(d.size());
      Attributes a;
      if (g.coin()) a["keepdims"] = 0;
      RefTensor x = k < 3        ? g.f32(d, lo, hi)
                    : int_hi > 0 ? g.ints(DataType::i64, d, -int_hi, int_hi)
                                 : g.ints(DataType::f64, d, 1, 3);
      std::vector<std::optional<CaseInput>> ins{in(std::move(x))};
      if (k > 0) ins.push_back(i64s(k == 1 || r == 1 ? Dims{g.integer(-r, r - 1)} : Dims{0, r - 1}));
      OpCase c = make(op, ins, a);
      c.rtol = c.atol = 1e-5;
      v.push_back(c);
    }
    return v;
  };
}

Generator arg_cases(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 3; ++k) {
      const Dims d = g.dims(1, 4);
      const auto r = static_cast<std::int64_t>(d.size());
      Attributes a{{"axis", g.integer(-r, r - 1)}};
      if (g.coin()) a["keepdims"] = 0;
      v.push_back(make(op, {in(k == 2 ? g.ints(DataType::i32, d, -50, 50) : g.f32(d))}, a));
    }
    // Ties: the first index, or the last with select_last_index.
    v.push_back(make(op, {in(g.ints(DataType::f32, {4, 6}, 0, 2))}, {{"axis", 1}}));
    v.push_back(make(op, {in(g.ints(DataType::f32, {4, 6}, 0, 2))}, {{"axis", 1}, {"select_last_index", 1}}));
    return v;
  };
}

// CumSum over each type, the axis a constant (scalar or one value) or a graph input.
std::vector<OpCase> cum_sum_cases(Gen& g) {
  std::vector<OpCase> v;
  const DataType types[] = {DataType::f32, DataType::f64, DataType::i32, DataType::i64};
  for (int k = 0; k < 6; ++k) {
    const Dims d = g.dims(1, 4);
    const auto r = static_cast<std::int64_t>(d.size());
    const std::int64_t axis = g.integer(-r, r - 1);
    const DataType t = types[k % 4];
    RefTensor x = t == DataType::f32 ? g.f32(d, -3, 3) : g.ints(t, d, -20, 20);
    CaseInput a = k == 4   ? in(RefTensor::of<std::int64_t>({1}, {axis}))
                  : k == 5 ? cst(RefTensor::of<std::int32_t>({}, {static_cast<std::int32_t>(axis)}))
                           : i64s({axis});
    Attributes at;
    if (g.coin()) at["exclusive"] = 1;
    if (g.coin()) at["reverse"] = 1;
    OpCase c = make("CumSum", {in(x), a}, at);
    c.rtol = c.atol = 1e-5;
    v.push_back(c);
  }
  return v;
}

}  // namespace

void add_reduce_cases(GenTable& t) {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceSumSquare", "ReduceL1"})
    t[op] = reduce(op, -3, 3, 9);
  t["ReduceProd"] = reduce("ReduceProd", 0.8, 1.2, 1);
  t["ReduceL2"] = reduce("ReduceL2", -3, 3, 0);
  t["ReduceLogSum"] = reduce("ReduceLogSum", 0.1, 3, 0);
  t["ReduceLogSumExp"] = reduce("ReduceLogSumExp", -3, 3, 0);
  t["ArgMax"] = arg_cases("ArgMax");
  t["ArgMin"] = arg_cases("ArgMin");
  t["CumSum"] = cum_sum_cases;
}

}  // namespace ge::test::cases
