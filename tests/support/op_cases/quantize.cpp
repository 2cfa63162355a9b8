// Random cases of the linear quantization ops: u8 and i8, per tensor and per axis, zero
// points given or omitted; the integer products with per-row / per-column parameters.
#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

DataType q_type(int k) { return k % 2 == 0 ? DataType::u8 : DataType::i8; }

RefTensor q_values(Gen& g, DataType t, Dims d) {
  return t == DataType::u8 ? g.ints(t, std::move(d), 0, 255) : g.ints(t, std::move(d), -128, 127);
}

// One element (scalar or [1]) or one per entry: positive scales.
RefTensor scales(Gen& g, std::int64_t n) { return g.f32(n == 0 ? Dims{} : Dims{n}, 0.01, 0.5); }

std::vector<OpCase> quantize_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(1, 3, 1, 5);
    const auto r = static_cast<std::int64_t>(d.size());
    const std::int64_t axis = g.integer(-r, r - 1);
    const std::int64_t n = k >= 2 ? d[static_cast<std::size_t>(axis < 0 ? axis + r : axis)] : 0;
    std::vector<std::optional<CaseInput>> ins{in(g.f32(d, -40, 40)), cst(scales(g, n))};
    if (k != 0) ins.emplace_back(cst(q_values(g, q_type(k), n == 0 ? Dims{} : Dims{n})));
    v.push_back(make("QuantizeLinear", ins, {{"axis", axis}}));
  }
  return v;
}

std::vector<OpCase> dequantize_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(1, 3, 1, 5);
    const auto r = static_cast<std::int64_t>(d.size());
    const std::int64_t axis = g.integer(-r, r - 1);
    const std::int64_t n = k >= 2 ? d[static_cast<std::size_t>(axis < 0 ? axis + r : axis)] : 0;
    std::vector<std::optional<CaseInput>> ins{in(q_values(g, q_type(k), d)), cst(scales(g, n))};
    if (k != 0) ins.emplace_back(cst(q_values(g, q_type(k), n == 0 ? Dims{} : Dims{n})));
    v.push_back(make("DequantizeLinear", ins, {{"axis", axis}}));
  }
  return v;
}

std::vector<OpCase> dynamic_quantize_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const double lo : {-3.0, 0.5}) {
    OpCase c = make("DynamicQuantizeLinear", {in(g.f32(g.dims(1, 3, 1, 5), lo, 2.0))});
    c.outputs = 3;
    v.push_back(c);
  }
  return v;
}

std::vector<OpCase> matmul_cases(Gen& g, bool q) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const std::int64_t m = g.integer(1, 4), kk = g.integer(1, 5), n = g.integer(1, 4);
    const Dims batch = k == 2 ? Dims{2} : Dims{};
    Dims da = batch, db = batch;
    da.insert(da.end(), {m, kk});
    db.insert(db.end(), {kk, n});
    const DataType ta = q_type(k), tb = q_type(k + 1);
    const std::int64_t rows = k == 1 ? m : 0, cols = k == 1 ? n : 0;  // per row / column on k == 1
    const auto zp = [&](DataType t, std::int64_t len) { return cst(q_values(g, t, len == 0 ? Dims{} : Dims{len})); };
    if (q) {
      const DataType ty = q_type(k);
      v.push_back(make("QLinearMatMul", {in(q_values(g, ta, da)), cst(scales(g, rows)), zp(ta, rows),
                                         in(q_values(g, tb, db)), cst(scales(g, cols)), zp(tb, cols),
                                         cst(g.f32({}, 1.0, 4.0)), zp(ty, 0)}));
    } else {
      std::vector<std::optional<CaseInput>> ins{in(q_values(g, ta, da)), in(q_values(g, tb, db))};
      if (k != 0) ins.insert(ins.end(), {zp(ta, rows), zp(tb, cols)});
      v.push_back(make("MatMulInteger", ins));
    }
  }
  return v;
}

std::vector<OpCase> conv_cases(Gen& g, bool q) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const std::int64_t group = k == 2 ? 2 : 1, cin = 2 * group, cout = 2 * group;
    const Dims dx{1, cin, g.integer(3, 5), g.integer(3, 5)}, dw{cout, cin / group, 2, 2};
    const DataType tx = q_type(k), tw = q_type(k + 1);
    const std::int64_t per = k == 1 ? cout : 0;
    const auto zp = [&](DataType t, std::int64_t len) { return cst(q_values(g, t, len == 0 ? Dims{} : Dims{len})); };
    Attributes a{{"group", group}, {"pads", Dims{k, 0, 0, k}}, {"strides", Dims{1, k + 1}}};
    if (q) {
      v.push_back(make("QLinearConv", {in(q_values(g, tx, dx)), cst(scales(g, 0)), zp(tx, 0), cst(q_values(g, tw, dw)),
                                       cst(scales(g, per)), zp(tw, per), cst(g.f32({}, 1.0, 4.0)), zp(q_type(k), 0),
                                       cst(g.ints(DataType::i32, {cout}, -50, 50))},
                       a));
    } else {
      std::vector<std::optional<CaseInput>> ins{in(q_values(g, tx, dx)), cst(q_values(g, tw, dw))};
      if (k != 0) ins.insert(ins.end(), {zp(tx, 0), zp(tw, per)});
      v.push_back(make("ConvInteger", ins, a));
    }
  }
  return v;
}

}  // namespace

void add_quantize_cases(GenTable& t) {
  t["QuantizeLinear"] = quantize_cases;
  t["DequantizeLinear"] = dequantize_cases;
  t["DynamicQuantizeLinear"] = dynamic_quantize_cases;
  t["MatMulInteger"] = [](Gen& g) { return matmul_cases(g, false); };
  t["QLinearMatMul"] = [](Gen& g) { return matmul_cases(g, true); };
  t["ConvInteger"] = [](Gen& g) { return conv_cases(g, false); };
  t["QLinearConv"] = [](Gen& g) { return conv_cases(g, true); };
}

}  // namespace ge::test::cases
