// The reference's reductions (ReduceMean ... ReduceLogSumExp), ArgMax, ArgMin and CumSum:
// each output gathers the values it reduces, then applies the op's formula in double.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

enum class Red { mean, sum, max, min, prod, sum_square, l1, l2, log_sum, log_sum_exp };

double reduce_values(Red op, const std::vector<double>& v) {
  const double inf = std::numeric_limits<double>::infinity();
  double s = 0;
  switch (op) {
    case Red::max: return v.empty() ? -inf : *std::max_element(v.begin(), v.end());
    case Red::min: return v.empty() ? inf : *std::min_element(v.begin(), v.end());
    case Red::prod: {
      double p = 1;
      for (double x : v) p *= x;
      return p;
    }
    case Red::log_sum_exp: {
      if (v.empty()) return -inf;
      const double m = *std::max_element(v.begin(), v.end());
      for (double x : v) s += std::exp(x - m);
      return m + std::log(s);
    }
    default: break;
  }
  for (double x : v) s += op == Red::l1 ? std::fabs(x) : (op == Red::sum_square || op == Red::l2) ? x * x : x;
  if (op == Red::mean) return s / static_cast<double>(v.size());
  if (op == Red::l2) return std::sqrt(s);
  if (op == Red::log_sum) return std::log(s);
  return s;
}

Outs reduce(const Ctx& c, Red op) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  if (c.has("axes") && c.has_input(1)) c.error("both input 1 (axes) and attribute 'axes' are given");
  Dims axes;
  if (c.has_input(1)) {
    axes = axes_input(c, 1, r);
  } else {
    for (std::int64_t a : c.ints("axes")) axes.push_back(c.axis(a, r, "axes value"));
  }
  if (axes.empty() && c.i("noop_with_empty_axes", 0) != 0) return {x};
  const bool keep = c.i("keepdims", 1) != 0;
  std::vector<bool> reduced(static_cast<std::size_t>(r), axes.empty());
  for (std::int64_t a : axes) reduced[static_cast<std::size_t>(a)] = true;
  Dims kept = x.dims, out;  // kept: the output dims with 1 at the reduced axes
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (reduced[i]) kept[i] = 1;
    if (!reduced[i] || keep) out.push_back(kept[i]);
  }
  // For each input element, the output element it goes to.
  Dims st = strides_of(kept);
  for (std::size_t i = 0; i < st.size(); ++i)
    if (reduced[i]) st[i] = 0;
  const Dims to = strided_index(x.dims, st);
  std::vector<std::vector<double>> values(static_cast<std::size_t>(product(kept)));
  for (std::int64_t i = 0; i < x.elements(); ++i)
    values[static_cast<std::size_t>(to[static_cast<std::size_t>(i)])].push_back(get_f(x, i));
  RefTensor y(x.dtype, out);
  for (std::size_t i = 0; i < values.size(); ++i) set_f(y, static_cast<std::int64_t>(i), reduce_values(op, values[i]));
  return {y};
}

// ArgMax (min = false) or ArgMin along axis; ties go to the first index, or the last
// with select_last_index.
Outs arg_extreme(const Ctx& c, bool min) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  const bool last = c.i("select_last_index", 0) != 0;
  const std::int64_t outer = product(x.dims, 0, axis), n = x.dims[axis], inner = product(x.dims, axis + 1);
  Dims out = x.dims;
  if (c.i("keepdims", 1) != 0)
    out[axis] = 1;
  else
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  RefTensor y(DataType::i64, out);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      std::int64_t best = 0;
      for (std::int64_t k = 1; k < n; ++k) {
        const double v = get_f(x, (o * n + k) * inner + in), b = get_f(x, (o * n + best) * inner + in);
        if ((min ? v < b : v > b) || (last && v == b)) best = k;
      }
      set_i(y, o * inner + in, best);
    }
  return {y};
}

// CumSum: each output the sum of the elements before it along the axis (after it with
// reverse), itself included unless exclusive.
Outs cum_sum(const Ctx& c) {
  const RefTensor& x = c.in(0);
  if (c.in(1).elements() != 1) c.error("input 1 (axis) is " + c.in(1).describe() + "; expected one value");
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(get_i(c.in(1), 0), r, "axis"));
  const bool exclusive = c.i("exclusive", 0) != 0, reverse = c.i("reverse", 0) != 0;
  const std::int64_t n = x.dims[axis], inner = product(x.dims, axis + 1);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t k = (i / inner) % n, line = i - k * inner;
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const bool before = reverse ? j > k : j < k;
      if (before || (j == k && !exclusive)) s += get_f(x, line + j * inner);
    }
    set_f(y, i, s);
  }
  return {y};
}

}  // namespace

void add_reduce_ops(OpTable& t) {
  const std::vector<std::string_view> attrs{"axes", "keepdims", "noop_with_empty_axes"};
  const std::pair<const char*, Red> ops[] = {
      {"ReduceMean", Red::mean}, {"ReduceSum", Red::sum},           {"ReduceMax", Red::max},
      {"ReduceMin", Red::min},   {"ReduceProd", Red::prod},         {"ReduceSumSquare", Red::sum_square},
      {"ReduceL1", Red::l1},     {"ReduceL2", Red::l2},             {"ReduceLogSum", Red::log_sum},
      {"ReduceLogSumExp", Red::log_sum_exp}};
  for (const auto& [name, op] : ops) t[name] = {[op](const Ctx& c) { return reduce(c, op); }, attrs};
  t["ArgMax"] = {[](const Ctx& c) { return arg_extreme(c, false); }, {"axis", "keepdims", "select_last_index"}};
  t["ArgMin"] = {[](const Ctx& c) { return arg_extreme(c, true); }, {"axis", "keepdims", "select_last_index"}};
  t["CumSum"] = {cum_sum, {"exclusive", "reverse"}};
}

}  // namespace ge::ref::detail
