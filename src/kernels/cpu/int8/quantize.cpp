// Linear quantization and the integer products (quantize.hpp). Values are read once into
// f64 (exact for every 8- and 32-bit integer), products accumulate in int64.
#include "kernels/cpu/int8/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kernels/cpu/movement/data_movement.hpp"

namespace ge::cpu {

namespace {

// The elements of any numeric view as f64.
std::vector<double> values(const TensorView& t) {
  std::vector<double> v(static_cast<std::size_t>(t.elements()));
  const std::int64_t n[1] = {t.elements()};
  if (!v.empty()) cast(TensorView{t.data, t.dtype, n}, TensorView{v.data(), DataType::f64, n});
  return v;
}

// A per-tensor or per-axis parameter (scale or zero point; absent: `none`).
struct Param {
  std::vector<double> v;
  [[nodiscard]] double at(std::int64_t i) const { return v.size() == 1 ? v[0] : v[static_cast<std::size_t>(i)]; }
};

Param param(std::string_view op, const char* name, const TensorView* t, std::int64_t len, double none) {
  if (t == nullptr) return {{none}};
  Param p{values(*t)};
  if (p.v.size() != 1 && static_cast<std::int64_t>(p.v.size()) != len)
    fail(Errc::bad_op_inputs, op, std::string(name) + " has " + std::to_string(p.v.size()) + " elements; expected 1 or " +
                                      std::to_string(len));
  return p;
}

// The range of a quantized type.
void range_of(std::string_view op, DataType t, double& lo, double& hi) {
  switch (t) {
    case DataType::u8: lo = 0, hi = 255; return;
    case DataType::i8: lo = -128, hi = 127; return;
    case DataType::i32:
      lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
      return;
    default: fail(Errc::type_mismatch, op, "the output is " + std::string(to_string(t)) + "; expected u8, i8 or i32");
  }
}

// Writes saturated integer values (already rounded) to y (u8, i8 or i32).
void store(std::string_view op, const std::vector<double>& v, const TensorView& y) {
  double lo = 0, hi = 0;
  range_of(op, y.dtype, lo, hi);
  const auto n = static_cast<std::int64_t>(v.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = v[static_cast<std::size_t>(i)];
    const double q = x != x ? 0.0 : std::clamp(x, lo, hi);  // NaN: 0 (a cast of NaN to an integer is undefined)
    if (y.dtype == DataType::u8) y.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(q);
    else if (y.dtype == DataType::i8) y.as<std::int8_t>()[i] = static_cast<std::int8_t>(q);
    else y.as<std::int32_t>()[i] = static_cast<std::int32_t>(q);
  }
}

// The length of `axis` and the product of the dims after it.
std::pair<std::int64_t, std::int64_t> axis_span(std::string_view op, std::int64_t axis, const TensorView& x) {
  if (x.rank() == 0) return {1, 1};
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.rank()))
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside X " + bracketed(x.dims));
  return {x.dims[static_cast<std::size_t>(axis)], product(x.dims, static_cast<std::size_t>(axis) + 1, x.rank())};
}

}  // namespace

void quantize_linear(std::int64_t axis, const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                     const TensorView& y) {
  constexpr std::string_view op = "QuantizeLinear";
  check_dims(op, "y", y, x.dims);
  const auto [len, inner] = axis_span(op, axis, x);
  const Param s = param(op, "y_scale", &scale, len, 1), z = param(op, "y_zero_point", zero_point, len, 0);
  std::vector<double> v = values(x);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t a = (static_cast<std::int64_t>(i) / inner) % len;
    const float q = static_cast<float>(v[i]) / static_cast<float>(s.at(a));
    v[i] = std::nearbyint(static_cast<double>(q)) + z.at(a);
  }
  store(op, v, y);
}

void dequantize_linear(std::int64_t axis, const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                       const TensorView& y) {
  constexpr std::string_view op = "DequantizeLinear";
  check_dims(op, "y", y, x.dims);
  check_dtype(op, "y", y, DataType::f32);
  const auto [len, inner] = axis_span(op, axis, x);
  const Param s = param(op, "x_scale", &scale, len, 1), z = param(op, "x_zero_point", zero_point, len, 0);
  const std::vector<double> v = values(x);
  float* py = y.as<float>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t a = (static_cast<std::int64_t>(i) / inner) % len;
    py[i] = static_cast<float>(v[i] - z.at(a)) * static_cast<float>(s.at(a));
  }
}

void dynamic_quantize_linear(const TensorView& x, const TensorView& y, const TensorView& scale,
                             const TensorView& zero_point) {
  constexpr std::string_view op = "DynamicQuantizeLinear";
  check_dtype(op, "x", x, DataType::f32);
  check_dims(op, "y", y, x.dims);
  const float* px = x.as<const float>();
  float lo = 0, hi = 0;
  for (std::int64_t i = 0; i < x.elements(); ++i) lo = std::min(lo, px[i]), hi = std::max(hi, px[i]);
  const float s = (hi - lo) / 255.0f;
  const float zp = s == 0 ? 0 : std::nearbyint(std::clamp(0.0f - lo / s, 0.0f, 255.0f));
  *scale.as<float>() = s;
  *zero_point.as<std::uint8_t>() = static_cast<std::uint8_t>(zp);
  std::vector<double> v(static_cast<std::size_t>(x.elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = s == 0 ? zp : std::nearbyint(static_cast<double>(px[i] / s)) + zp;
  store(op, v, y);
}

namespace {

// acc (one per element of y) requantized into y, or written as i32. `row_col(i)` gives the
// index of a_scale and b_scale for y's element i.
template <class F>
void finish(std::string_view op, std::vector<double>& acc, const TensorView& y, const Requantize* rq, std::int64_t alen,
            std::int64_t blen, F row_col) {
  if (rq != nullptr) {
    const Param sa = param(op, "a_scale", rq->a_scale, alen, 1), sb = param(op, "b_scale", rq->b_scale, blen, 1);
    const Param sy = param(op, "y_scale", rq->y_scale, 1, 1), zy = param(op, "y_zero_point", rq->y_zero_point, 1, 0);
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const auto [r, c] = row_col(static_cast<std::int64_t>(i));
      const float m = static_cast<float>(sa.at(r)) * static_cast<float>(sb.at(c)) / static_cast<float>(sy.at(0));
      acc[i] = std::nearbyint(acc[i] * static_cast<double>(m)) + zy.at(0);
    }
  } else {
    for (double& a : acc)  // i32 wraps as the accumulator would
      a = static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::int64_t>(a))));
  }
  store(op, acc, y);
}

}  // namespace

void matmul_integer(const TensorView& a, const TensorView& b, const TensorView* a_zero_point,
                    const TensorView* b_zero_point, const TensorView& y, const Requantize* rq) {
  const std::string_view op = rq != nullptr ? "QLinearMatMul" : "MatMulInteger";
  if (a.rank() < 2 || b.rank() < 2)
    fail(Errc::unsupported, op, "needs operands of rank >= 2; a is " + bracketed(a.dims) + ", b " + bracketed(b.dims));
  const std::size_t ra = a.rank(), rb = b.rank(), ry = y.rank();
  const std::int64_t m = a.dims[ra - 2], k = a.dims[ra - 1], n = b.dims[rb - 1];
  if (b.dims[rb - 2] != k || ry < 2 || y.dims[ry - 2] != m || y.dims[ry - 1] != n)
    fail(Errc::bad_op_inputs, op, "a " + bracketed(a.dims) + ", b " + bracketed(b.dims) + ", y " + bracketed(y.dims) +
                                      " do not fit a matrix product");
  const std::vector<std::int64_t> batch(y.dims.begin(), y.dims.end() - 2);
  std::vector<std::int64_t> ab(a.dims.begin(), a.dims.end() - 2), bb(b.dims.begin(), b.dims.end() - 2);
  const SmallDims sa = broadcast_strides(op, "a", ab, batch), sb = broadcast_strides(op, "b", bb, batch);
  const Param za = param(op, "a_zero_point", a_zero_point, m, 0), zb = param(op, "b_zero_point", b_zero_point, n, 0);
  const std::vector<double> va = values(a), vb = values(b);
  const std::int64_t batches = product(batch, 0, batch.size());
  std::vector<double> acc(static_cast<std::size_t>(batches * m * n));
  std::vector<std::int64_t> lhs(static_cast<std::size_t>(m * k)), rhs(static_cast<std::size_t>(k * n));
  for (std::int64_t t = 0; t < batches; ++t) {
    std::int64_t oa = 0, ob = 0, rem = t;
    for (std::size_t d = batch.size(); d-- > 0;) {
      const std::int64_t i = rem % batch[d];
      rem /= batch[d];
      oa += i * sa[d], ob += i * sb[d];
    }
    for (std::int64_t i = 0; i < m * k; ++i)
      lhs[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(va[static_cast<std::size_t>(oa * m * k + i)] - za.at(i / k));
    for (std::int64_t i = 0; i < k * n; ++i)
      rhs[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(vb[static_cast<std::size_t>(ob * k * n + i)] - zb.at(i % n));
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < n; ++c) {
        std::int64_t s = 0;
        for (std::int64_t j = 0; j < k; ++j) s += lhs[static_cast<std::size_t>(r * k + j)] * rhs[static_cast<std::size_t>(j * n + c)];
        acc[static_cast<std::size_t>((t * m + r) * n + c)] = static_cast<double>(s);
      }
  }
  finish(op, acc, y, rq, m, n, [m, n](std::int64_t i) { return std::pair{(i / n) % m, i % n}; });
}

void conv_integer(const IntConvParams& p, const TensorView& x, const TensorView& w, const TensorView* x_zero_point,
                  const TensorView* w_zero_point, const TensorView* bias, const TensorView& y, const Requantize* rq) {
  const std::string_view op = rq != nullptr ? "QLinearConv" : "ConvInteger";
  const std::size_t r = x.rank(), sp = r - 2;
  if (r < 3 || w.rank() != r || y.rank() != r || p.strides.size() != sp)
    fail(Errc::bad_op_inputs, op, "x " + bracketed(x.dims) + ", w " + bracketed(w.dims) + " do not fit a convolution");
  const std::int64_t batch = x.dims[0], cin = x.dims[1], cout = w.dims[0], cg = w.dims[1], g = p.group;
  if (g < 1 || cg * g != cin || cout % g != 0)
    fail(Errc::bad_op_inputs, op, "w " + bracketed(w.dims) + " with group " + std::to_string(g) + " does not fit x " +
                                      bracketed(x.dims));
  const Param zx = param(op, "x_zero_point", x_zero_point, 1, 0), zw = param(op, "w_zero_point", w_zero_point, cout, 0);
  const Param bs = param(op, "B", bias, cout, 0);
  const std::vector<double> vx = values(x), vw = values(w);
  const std::int64_t out_px = product(y.dims, 2, r), in_px = product(x.dims, 2, r), k_px = product(w.dims, 2, r);
  std::vector<double> acc(static_cast<std::size_t>(y.elements()));
  std::vector<std::int64_t> opos(sp), kpos(sp);
  for (std::int64_t nb = 0; nb < batch; ++nb)
    for (std::int64_t oc = 0; oc < cout; ++oc) {
      const std::int64_t grp = oc / (cout / g);
      for (std::int64_t o = 0; o < out_px; ++o) {
        for (std::size_t d = sp, rem = static_cast<std::size_t>(o); d-- > 0;)
          opos[d] = static_cast<std::int64_t>(rem % static_cast<std::size_t>(y.dims[d + 2])),
          rem /= static_cast<std::size_t>(y.dims[d + 2]);
        std::int64_t s = 0;
        for (std::int64_t kk = 0; kk < k_px; ++kk) {
          std::int64_t off = 0;
          bool inside = true;
          for (std::size_t d = sp, rem = static_cast<std::size_t>(kk); d-- > 0;) {
            const std::int64_t kd = static_cast<std::int64_t>(rem % static_cast<std::size_t>(w.dims[d + 2]));
            rem /= static_cast<std::size_t>(w.dims[d + 2]);
            const std::int64_t at = opos[d] * p.strides[d] - p.pads_begin[d] + kd * p.dilations[d];
            inside = inside && at >= 0 && at < x.dims[d + 2];
            off += at * product(x.dims, d + 3, r);
          }
          if (!inside) continue;
          for (std::int64_t c = 0; c < cg; ++c) {
            const double xv = vx[static_cast<std::size_t>((nb * cin + grp * cg + c) * in_px + off)] - zx.at(0);
            const double wv = vw[static_cast<std::size_t>((oc * cg + c) * k_px + kk)] - zw.at(oc);
            s += static_cast<std::int64_t>(xv) * static_cast<std::int64_t>(wv);
          }
        }
        acc[static_cast<std::size_t>((nb * cout + oc) * out_px + o)] = static_cast<double>(s) + bs.at(oc);
      }
    }
  finish(op, acc, y, rq, 1, cout, [cout, out_px](std::int64_t i) { return std::pair<std::int64_t, std::int64_t>{0, (i / out_px) % cout}; });
}

}  // namespace ge::cpu
