// The reference's linear quantization ops: each element from its formula; the integer
// products as the float MatMul and Conv of the reference on (x - zero point), which are
// exact for 8-bit operands.
#include <algorithm>
#include <cmath>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

// Element i's entry of a per-tensor or per-axis parameter (input k; absent: `none`).
double param(const Ctx& c, std::size_t k, std::int64_t entry, double none) {
  if (!c.has_input(k)) return none;
  const RefTensor& p = c.in(k);
  return get_f(p, p.elements() == 1 ? 0 : entry);
}

// The entry along `axis` of x's element i (0 when the scale is per tensor).
std::int64_t entry_of(const Ctx& c, const RefTensor& x, std::int64_t i) {
  if (c.in(1).elements() == 1) return 0;
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto a = static_cast<std::size_t>(c.axis(c.i("axis", 1), r, "axis"));
  return (i / product(x.dims, a + 1)) % x.dims[a];
}

double saturate(DataType t, double v) {
  if (t == DataType::u8) return std::clamp(v, 0.0, 255.0);
  if (t == DataType::i8) return std::clamp(v, -128.0, 127.0);
  return std::clamp(v, -2147483648.0, 2147483647.0);
}

Outs quantize(const Ctx& c) {
  const RefTensor& x = c.in(0);
  RefTensor y(c.has_input(2) ? c.in(2).dtype : DataType::u8, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t e = entry_of(c, x, i);
    const float q = static_cast<float>(get_f(x, i)) / static_cast<float>(param(c, 1, e, 1));
    set_f(y, i, saturate(y.dtype, std::nearbyint(q) + param(c, 2, e, 0)));
  }
  return {y};
}

Outs dequantize(const Ctx& c) {
  const RefTensor& x = c.in(0);
  RefTensor y(DataType::f32, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t e = entry_of(c, x, i);
    set_f(y, i, static_cast<float>(get_f(x, i) - param(c, 2, e, 0)) * static_cast<float>(param(c, 1, e, 1)));
  }
  return {y};
}

Outs dynamic_quantize(const Ctx& c) {
  const RefTensor& x = c.in(0);
  float lo = 0, hi = 0;
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    lo = std::min(lo, static_cast<float>(get_f(x, i)));
    hi = std::max(hi, static_cast<float>(get_f(x, i)));
  }
  const float s = (hi - lo) / 255.0f;
  const float zp = s == 0 ? 0 : std::nearbyint(std::clamp(-lo / s, 0.0f, 255.0f));
  RefTensor y(DataType::u8, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i)
    set_f(y, i, s == 0 ? zp : saturate(DataType::u8, std::nearbyint(static_cast<float>(get_f(x, i)) / s) + zp));
  return {y, RefTensor::of<float>({}, {s}), RefTensor::of<std::uint8_t>({}, {static_cast<std::uint8_t>(zp)})};
}

// t - zero point as `type` (f64; f32, exact for these sums, for the reference's Conv); the
// zero point per tensor, or per entry of dim `axis` of t.
RefTensor centred(const RefTensor& t, const RefTensor* zp, std::size_t axis, DataType type = DataType::f64) {
  RefTensor r(type, t.dims);
  for (std::int64_t i = 0; i < t.elements(); ++i) {
    double z = 0;
    if (zp != nullptr) z = get_f(*zp, zp->elements() == 1 ? 0 : (i / product(t.dims, axis + 1)) % t.dims[axis]);
    set_f(r, i, get_f(t, i) - z);
  }
  return r;
}

const RefTensor* opt_in(const Ctx& c, std::size_t k) { return c.has_input(k) ? &c.in(k) : nullptr; }

// acc as i32, or requantized with scales a (per row: entry `row`), b (per column / channel)
// and y's scale and zero point (inputs sa, sb, sy, sy + 1).
RefTensor finish(const Ctx& c, const RefTensor& acc, bool requantize, std::size_t sa, std::size_t sb, std::size_t sy,
                 std::size_t row_axis, std::size_t col_axis) {
  RefTensor y(requantize ? c.in(sy + 1).dtype : DataType::i32, acc.dims);
  for (std::int64_t i = 0; i < acc.elements(); ++i) {
    double v = std::nearbyint(get_f(acc, i));
    if (requantize) {
      const RefTensor &a = c.in(sa), &b = c.in(sb);
      const std::int64_t r = a.elements() == 1 ? 0 : (i / product(acc.dims, row_axis + 1)) % acc.dims[row_axis];
      const std::int64_t k = b.elements() == 1 ? 0 : (i / product(acc.dims, col_axis + 1)) % acc.dims[col_axis];
      const float m = static_cast<float>(get_f(a, r)) * static_cast<float>(get_f(b, k)) / static_cast<float>(get_f(c.in(sy), 0));
      v = std::nearbyint(v * static_cast<double>(m)) + get_f(c.in(sy + 1), 0);
    }
    set_f(y, i, saturate(y.dtype, v));
  }
  return y;
}

Outs matmul_integer(const Ctx& c, bool q) {
  const std::size_t ia = 0, ib = q ? 3 : 1;
  const RefTensor &a = c.in(ia), &b = c.in(ib);
  const RefTensor* za = q ? &c.in(2) : opt_in(c, 2);
  const RefTensor* zb = q ? &c.in(5) : opt_in(c, 3);
  const RefTensor ca = centred(a, za, a.dims.size() - 2), cb = centred(b, zb, b.dims.size() - 1);
  const RefTensor acc = run_op("MatMul", {&ca, &cb}).at(0);
  return {finish(c, acc, q, 1, 4, 6, acc.dims.size() - 2, acc.dims.size() - 1)};
}

Outs conv_integer(const Ctx& c, bool q) {
  const std::size_t ix = 0, iw = q ? 3 : 1;
  const RefTensor* zx = q ? &c.in(2) : opt_in(c, 2);
  const RefTensor* zw = q ? &c.in(5) : opt_in(c, 3);
  const RefTensor cx = centred(c.in(ix), zx, 0, DataType::f32), cw = centred(c.in(iw), zw, 0, DataType::f32);
  RefTensor acc = run_op("Conv", {&cx, &cw}, c.node.attrs).at(0);
  if (q && c.has_input(8))
    for (std::int64_t i = 0; i < acc.elements(); ++i)
      set_f(acc, i, get_f(acc, i) + get_f(c.in(8), (i / product(acc.dims, 2)) % acc.dims[1]));
  return {finish(c, acc, q, 1, 4, 6, 1, 1)};
}

}  // namespace

void add_quantize_ops(OpTable& t) {
  t["QuantizeLinear"] = {quantize, {"axis"}};
  t["DequantizeLinear"] = {dequantize, {"axis"}};
  t["DynamicQuantizeLinear"] = {dynamic_quantize, {}};
  t["MatMulInteger"] = {[](const Ctx& c) { return matmul_integer(c, false); }, {}};
  t["QLinearMatMul"] = {[](const Ctx& c) { return matmul_integer(c, true); }, {}};
  const std::vector<std::string_view> window{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
  t["ConvInteger"] = {[](const Ctx& c) { return conv_integer(c, false); }, window};
  t["QLinearConv"] = {[](const Ctx& c) { return conv_integer(c, true); }, window};
}

}  // namespace ge::ref::detail
