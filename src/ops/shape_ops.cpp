// Shape ops: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat, Split, Slice,
// Gather, Expand (Shape, ConstantOfShape, Pad, Resize: src/ops/pad_resize.cpp).
#include <cmath>
#include <limits>

#include "common.hpp"

namespace ge::ops {

namespace {

constexpr auto any_rank = static_cast<std::size_t>(-1);

// Normalizes and checks a list of axes against `rank` (no duplicates).
std::vector<std::int64_t> norm_axes(const InferContext& c, const std::vector<std::int64_t>& axes, std::int64_t rank,
                                    const std::string& what) {
  std::vector<std::int64_t> out;
  for (std::int64_t a : axes) {
    const std::int64_t k = norm_axis(c, a, rank, what);
    if (std::find(out.begin(), out.end(), k) != out.end())
      c.fail(Errc::bad_attribute, what + " " + ints_text(axes) + " names axis " + std::to_string(k) + " twice");
    out.push_back(k);
  }
  return out;
}

Dim product(const std::vector<Dim>& d, std::size_t from, std::size_t to) {
  Dim p(1);
  for (std::size_t i = from; i < to; ++i) p = p * d[i];
  return p;
}

// ---- Reshape ----
std::vector<TensorDesc> infer_reshape(const InferContext& c) {
  require_rank(c, 1, 1, 1);
  const DataType t = c.input(0).dtype;
  const auto target = const_ints(c, 1);
  if (!target) {
    const auto n = static_length(c, 1);
    return {{t, n ? unknown_dims(static_cast<std::size_t>(*n)) : Shape::unknown_rank()}};
  }
  const Shape& x = c.shape(0);
  const bool allow_zero = c.i("allowzero") != 0;
  std::vector<Dim> out;
  std::vector<bool> cancelled(x.rank_known() ? x.rank() : 0, false);
  std::int64_t infer_at = -1;
  Dim known(1);  // product of the output dims that are not copied and not inferred
  for (std::size_t i = 0; i < target->size(); ++i) {
    const std::int64_t v = (*target)[i];
    if (v == -1) {
      if (infer_at >= 0)
        c.fail(Errc::bad_op_inputs, "input 1 (shape) " + ints_text(*target) + " has more than one -1; expected at most one");
      infer_at = static_cast<std::int64_t>(i);
      out.emplace_back(Dim::unknown());
    } else if (v == 0 && !allow_zero) {
      if (!x.rank_known()) {
        out.emplace_back(Dim::unknown());
        continue;
      }
      if (i >= x.rank())
        c.fail(Errc::bad_op_inputs, "input 1 (shape) " + ints_text(*target) + " copies dim " + std::to_string(i) +
                                        " (a 0) but input 0 (data) [" + x.to_string() + "] has rank " +
                                        std::to_string(x.rank()));
      out.push_back(x[static_cast<std::ptrdiff_t>(i)]);
      cancelled[i] = true;
    } else if (v < 0) {
      c.fail(Errc::bad_op_inputs, "input 1 (shape) " + ints_text(*target) + " has " + std::to_string(v) +
                                      "; expected dims >= 0, or -1 once");
    } else {
      if (v == 0 && infer_at >= 0)
        c.fail(Errc::bad_op_inputs, "input 1 (shape) " + ints_text(*target) + " has both a 0 (allowzero) and a -1");
      out.emplace_back(v);
      known = known * Dim(v);
    }
  }
  if (!x.rank_known()) return {{t, Shape(std::move(out))}};
  // What the non-copied input dims hold must equal what the non-copied output dims hold.
  Dim rest(1);
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (!cancelled[i]) rest = rest * x[static_cast<std::ptrdiff_t>(i)];
  const auto mismatch = [&] {
    c.fail(Errc::bad_op_inputs, "cannot reshape input 0 (data) [" + x.to_string() + "] to " + ints_text(*target) +
                                    "; expected the same element count");
  };
  if (infer_at < 0) {
    if (!compatible(rest, known)) mismatch();
    return {{t, Shape(std::move(out))}};
  }
  const std::int64_t k = known.lo();  // static: every non-copied output dim is a number
  if (k == 0) {
    if (!rest.contains(0)) mismatch();
    out[static_cast<std::size_t>(infer_at)] = Dim::unknown();
  } else if (rest.is_static()) {
    if (rest.lo() % k != 0) mismatch();
    out[static_cast<std::size_t>(infer_at)] = Dim(rest.lo() / k);
  } else {
    const std::int64_t lo = ceil_div(rest.lo(), k);
    const std::int64_t hi = rest.is_bounded() ? rest.hi() / k : Dim::inf;
    if (lo > hi) mismatch();
    out[static_cast<std::size_t>(infer_at)] = Dim::interval(lo, hi);
  }
  return {{t, Shape(std::move(out))}};
}

// ---- Slice ----
struct SliceParams {
  std::int64_t start, end, step;
};
// The ONNX slice length for a dim of extent d.
std::int64_t slice_len(const SliceParams& p, std::int64_t d) {
  std::int64_t s = p.start < 0 ? p.start + d : p.start;
  std::int64_t e = p.end < 0 ? p.end + d : p.end;
  if (p.step > 0) {
    // (e - s and s - e below stay within [-d, d]: no overflow)
    s = std::clamp<std::int64_t>(s, 0, d);
    e = std::clamp<std::int64_t>(e, 0, d);
    return e > s ? ceil_div(e - s, p.step) : 0;
  }
  s = std::clamp<std::int64_t>(s, 0, d - 1);
  e = std::clamp<std::int64_t>(e, -1, d - 1);
  const std::int64_t mag = p.step == std::numeric_limits<std::int64_t>::min() ? Dim::inf : -p.step;
  return s > e ? ceil_div(s - e, mag) : 0;
}
// The interval of slice lengths over the dim's interval. The length is piecewise monotone
// with breaks where start, end or d - 1 cross a clamp; the extremes lie at the ends of the
// pieces, so it is enough to evaluate there (and to test the slope past the last break).
Dim slice_dim(const SliceParams& p, const Dim& d) {
  if (d.is_static()) return Dim(slice_len(p, d.lo()));
  const auto clamp_big = [](std::int64_t v) {
    const std::int64_t big = std::int64_t{1} << 40;
    return std::clamp<std::int64_t>(v, -big, big);
  };
  const std::int64_t s = clamp_big(p.start), e = clamp_big(p.end);
  std::vector<std::int64_t> points{std::min(d.lo(), huge)};
  if (d.is_bounded() && d.hi() <= huge) points.push_back(d.hi());
  std::int64_t last_break = d.lo();
  for (std::int64_t b : {s, -s, e, -e, s + 1, e + 1, -s + 1, -e + 1}) {
    for (std::int64_t q : {b - 1, b, b + 1})
      if (q >= d.lo() && q <= d.hi() && q <= huge) points.push_back(q), last_break = std::max(last_break, q);
  }
  std::int64_t lo = Dim::inf, hi = 0;
  for (std::int64_t q : points) {
    const std::int64_t len = slice_len(p, q);
    lo = std::min(lo, len), hi = std::max(hi, len);
  }
  if (!d.is_bounded() || d.hi() > huge) {
    const std::int64_t step = std::min<std::int64_t>(std::abs(std::max(p.step, -huge)), huge >> 2);
    const std::int64_t far = std::min(last_break, huge >> 1) + 2 * (step + 1);
    if (slice_len(p, far + step) > slice_len(p, far)) hi = Dim::inf;
    else hi = std::max(hi, slice_len(p, far));
  }
  return Dim::interval(lo, hi);
}

std::vector<TensorDesc> infer_slice(const InferContext& c) {
  const Shape& x = c.shape(0);
  const DataType t = c.input(0).dtype;
  for (std::size_t i = 1; i < 5; ++i)
    if (c.has_input(i)) require_rank(c, i, 1, 1);
  if (!x.rank_known()) return {{t, Shape::unknown_rank()}};
  const auto r = static_cast<std::int64_t>(x.rank());
  const auto starts = const_ints(c, 1), ends = const_ints(c, 2);
  const auto axes_in = c.has_input(3) ? const_ints(c, 3) : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{});
  const auto steps_in = c.has_input(4) ? const_ints(c, 4) : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{});
  std::vector<Dim> out = x.dims();
  if (!starts || !ends || !axes_in || !steps_in) {
    // Data-dependent bounds: each sliced dim is at most its input extent.
    std::vector<std::int64_t> axes;
    if (axes_in && !axes_in->empty()) axes = norm_axes(c, *axes_in, r, "input 3 (axes)");
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!axes_in || axes.empty() || std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end())
        out[i] = Dim::interval(0, out[i].hi());
    return {{t, Shape(std::move(out))}};
  }
  std::vector<std::int64_t> axes = *axes_in;
  if (axes.empty())
    for (std::size_t i = 0; i < starts->size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  std::vector<std::int64_t> steps = *steps_in;
  if (steps.empty()) steps.assign(starts->size(), 1);
  if (ends->size() != starts->size() || axes.size() != starts->size() || steps.size() != starts->size())
    c.fail(Errc::bad_op_inputs, "starts " + ints_text(*starts) + ", ends " + ints_text(*ends) + ", axes " + ints_text(axes) +
                                    ", steps " + ints_text(steps) + " differ in length; expected equal lengths");
  axes = norm_axes(c, axes, r, "input 3 (axes)");
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (steps[k] == 0) c.fail(Errc::bad_op_inputs, "input 4 (steps) " + ints_text(steps) + " has a 0; expected non-zero steps");
    auto& d = out[static_cast<std::size_t>(axes[k])];
    d = slice_dim({(*starts)[k], (*ends)[k], steps[k]}, d);
  }
  return {{t, Shape(std::move(out))}};
}

// ---- Split ----
std::vector<TensorDesc> infer_split(const InferContext& c) {
  const Shape& x = c.shape(0);
  const DataType t = c.input(0).dtype;
  const auto sizes = const_ints(c, 1);
  const bool has_num = c.has("num_outputs");
  if (c.has_input(1) && has_num)
    c.fail(Errc::bad_op_inputs, "both input 1 (split) and attribute 'num_outputs' are given; expected one");
  std::size_t n = 0;
  if (has_num) {
    // At most one output per element of any tensor a node could have, and no more than
    // a graph could name: a bound before anything is sized by it.
    constexpr std::int64_t most = 4096;
    const std::int64_t num = c.i("num_outputs");
    if (num < 1 || num > most)
      c.fail(Errc::bad_attribute, "attribute 'num_outputs' is " + std::to_string(num) + "; expected 1 to " +
                                      std::to_string(most));
    if (c.num_outputs() > 0 && static_cast<std::int64_t>(c.num_outputs()) != num)
      c.fail(Errc::bad_op_inputs, "attribute 'num_outputs' is " + std::to_string(num) + " but the node has " +
                                      std::to_string(c.num_outputs()) + " outputs");
  }
  if (sizes) n = sizes->size();
  else if (has_num) n = static_cast<std::size_t>(c.i("num_outputs"));
  else if (c.has_input(1) && static_length(c, 1)) n = static_cast<std::size_t>(*static_length(c, 1));
  else n = c.num_outputs();
  if (n == 0)
    c.fail(Errc::bad_op_inputs, "cannot tell the number of outputs; expected input 1 (split), 'num_outputs' or a number of outputs");
  if (!x.rank_known()) return std::vector<TensorDesc>(n, {t, Shape::unknown_rank()});
  const std::int64_t axis = norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis");
  const Dim d = x[axis];
  std::vector<Dim> parts;
  if (sizes) {
    std::int64_t sum = 0;
    for (std::int64_t v : *sizes) {
      if (v < 0) c.fail(Errc::bad_op_inputs, "input 1 (split) " + ints_text(*sizes) + " has a negative size");
      sum += v;
      parts.emplace_back(v);
    }
    if (!d.contains(sum))
      c.fail(Errc::bad_op_inputs, "input 1 (split) " + ints_text(*sizes) + " sums to " + std::to_string(sum) +
                                      " but dim " + std::to_string(axis) + " of input 0 [" + x.to_string() + "] is " +
                                      d.to_string());
  } else if (c.has_input(1)) {
    parts.assign(n, Dim::interval(0, d.hi()));
  } else {
    const auto ni = static_cast<std::int64_t>(n);
    if (!has_num && d.is_static() && d.lo() % ni != 0)
      c.fail(Errc::bad_op_inputs, "dim " + std::to_string(axis) + " of input 0 [" + x.to_string() + "] is " + d.to_string() +
                                      ", not divisible into " + std::to_string(n) + " equal outputs");
    const auto chunk = [ni](std::int64_t v) { return ceil_div(v, ni); };
    if (d.is_static()) {
      std::int64_t left = d.lo();
      for (std::size_t k = 0; k < n; ++k) {
        const std::int64_t piece = std::min(chunk(d.lo()), left);
        parts.emplace_back(piece);
        left -= piece;
      }
    } else {
      for (std::size_t k = 0; k + 1 < n; ++k) parts.push_back(div_ceil(d, ni));
      parts.push_back(Dim::interval(0, d.is_bounded() ? chunk(d.hi()) : Dim::inf));
    }
  }
  std::vector<TensorDesc> out;
  for (const Dim& p : parts) {
    std::vector<Dim> s = x.dims();
    s[static_cast<std::size_t>(axis)] = p;
    out.push_back({t, Shape(std::move(s))});
  }
  return out;
}

// Reshape, Flatten, Transpose: the dims rearranged, the data as it is.
void add_reshape_ops(OpRegistry& r, const TypeConstraint& any) {
  {
    OpSchema s = schema("Reshape", "new shape from a 1-D i64 tensor: 0 copies the input dim (unless allowzero), -1 is inferred",
                        {arg("data", "T"), arg("shape", "i64")}, {arg("reshaped", "T")}, {any},
                        {attr("allowzero", 0, int_in(0, 1))}, infer_reshape);
    s.in_place = {{0, 0}};
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s = schema("Flatten", "2-D: [prod(dims before axis), prod(dims from axis)]", {arg("input", "T")},
                        {arg("output", "T")}, {any}, {attr("axis", 1)}, [](const InferContext& c) {
                          const Shape& x = c.shape(0);
                          if (!x.rank_known()) return std::vector<TensorDesc>{{c.input(0).dtype, unknown_dims(2)}};
                          const auto r = static_cast<std::int64_t>(x.rank());
                          const std::int64_t a = c.i("axis");
                          if (a < -r || a > r)
                            c.fail(Errc::bad_attribute, "axis " + std::to_string(a) + " is outside [" + std::to_string(-r) +
                                                            ", " + std::to_string(r) + "] for rank " + std::to_string(r));
                          const auto k = static_cast<std::size_t>(a < 0 ? a + r : a);
                          return std::vector<TensorDesc>{
                              {c.input(0).dtype, Shape{product(x.dims(), 0, k), product(x.dims(), k, x.rank())}}};
                        });
    s.in_place = {{0, 0}};
    add_op(r, onnx_op(13), std::move(s));
  }
  add_op(r, onnx_op(13),
         schema("Transpose", "permutes the dims by perm (default: reversed)", {arg("data", "T")}, {arg("transposed", "T")},
                {any}, {attr_opt("perm", AttrKind::integers)}, [](const InferContext& c) {
                  const Shape& x = c.shape(0);
                  std::vector<std::int64_t> perm = c.ints("perm");
                  if (!x.rank_known())
                    return std::vector<TensorDesc>{{c.input(0).dtype, c.has("perm") ? unknown_dims(perm.size()) : x}};
                  const auto r = static_cast<std::int64_t>(x.rank());
                  if (!c.has("perm"))
                    for (std::int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
                  std::vector<bool> seen(static_cast<std::size_t>(r), false);
                  bool ok = static_cast<std::int64_t>(perm.size()) == r;
                  for (std::int64_t p : perm) {
                    if (!ok) break;
                    ok = p >= 0 && p < r && !seen[static_cast<std::size_t>(p)];
                    if (ok) seen[static_cast<std::size_t>(p)] = true;
                  }
                  if (!ok)
                    c.fail(Errc::bad_attribute, "attribute 'perm' is " + ints_text(perm) + " for input [" + x.to_string() +
                                                    "]; expected a permutation of 0.." + std::to_string(r - 1));
                  std::vector<Dim> out;
                  for (std::int64_t p : perm) out.push_back(x[p]);
                  return std::vector<TensorDesc>{{c.input(0).dtype, Shape(std::move(out))}};
                }));
}

// Squeeze and Unsqueeze: dims of extent 1 taken out or put in.
void add_squeeze_ops(OpRegistry& r, const TypeConstraint& any) {
  {
    OpSchema s = schema(
        "Squeeze", "removes the given dims of extent 1 (all such dims when axes is omitted)",
        {arg("data", "T"), opt("axes", "i64")}, {arg("squeezed", "T")}, {any}, {}, [](const InferContext& c) {
          const Shape& x = c.shape(0);
          const DataType t = c.input(0).dtype;
          if (c.has_input(1)) require_rank(c, 1, 1, 1);
          if (!x.rank_known()) return std::vector<TensorDesc>{{t, x}};
          const auto r = static_cast<std::int64_t>(x.rank());
          std::vector<Dim> out;
          if (!c.has_input(1)) {
            for (const Dim& d : x.dims()) {
              if (d.is_static() && d.lo() == 1) continue;
              if (d.contains(1)) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};  // may or may not go
              out.push_back(d);
            }
            return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
          }
          const auto axes_in = const_ints(c, 1);
          if (!axes_in) {
            const auto n = static_length(c, 1);
            if (n && *n > r)
              c.fail(Errc::bad_op_inputs, "input 1 (axes) has " + std::to_string(*n) + " values for input 0 (data) [" +
                                              x.to_string() + "] of rank " + std::to_string(r));
            return std::vector<TensorDesc>{{t, n ? unknown_dims(static_cast<std::size_t>(r - *n)) : Shape::unknown_rank()}};
          }
          const auto axes = norm_axes(c, *axes_in, r, "input 1 (axes)");
          for (std::int64_t i = 0; i < r; ++i) {
            if (std::find(axes.begin(), axes.end(), i) == axes.end()) {
              out.push_back(x[i]);
            } else if (!x[i].contains(1)) {
              c.fail(Errc::bad_op_inputs, "cannot squeeze dim " + std::to_string(i) + " of input 0 (data) [" + x.to_string() +
                                              "]: it is " + x[i].to_string() + "; expected 1");
            }
          }
          return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
        });
    s.in_place = {{0, 0}};
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s = schema(
        "Unsqueeze", "inserts dims of extent 1 at the given axes of the output",
        {arg("data", "T"), arg("axes", "i64")}, {arg("expanded", "T")}, {any}, {}, [](const InferContext& c) {
          const Shape& x = c.shape(0);
          const DataType t = c.input(0).dtype;
          require_rank(c, 1, 0, 1);
          const auto axes_in = const_ints(c, 1);
          if (!x.rank_known() || !axes_in) {
            const auto n = static_length(c, 1);
            if (!x.rank_known() || !n) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
            return std::vector<TensorDesc>{{t, unknown_dims(x.rank() + static_cast<std::size_t>(*n))}};
          }
          const auto r = static_cast<std::int64_t>(x.rank() + axes_in->size());
          const auto axes = norm_axes(c, *axes_in, r, "input 1 (axes)");
          std::vector<Dim> out;
          std::size_t next = 0;
          for (std::int64_t i = 0; i < r; ++i) {
            if (std::find(axes.begin(), axes.end(), i) != axes.end()) out.emplace_back(1);
            else out.push_back(x.dims()[next++]);
          }
          return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
        });
    s.in_place = {{0, 0}};
    add_op(r, onnx_op(13), std::move(s));
  }
}

// Concat, Split, Slice, Gather, Expand: parts of tensors taken or joined.
void add_join_ops(OpRegistry& r, const TypeConstraint& any) {
  add_op(r, onnx_op(13),
         schema("Concat", "joins the inputs along axis", {many("inputs", "T")}, {arg("concat_result", "T")}, {any},
                {attr_req("axis", AttrKind::integer)}, [](const InferContext& c) {
                  const DataType t = c.input(0).dtype;
                  std::optional<Shape> acc;
                  std::int64_t axis = 0;
                  for (std::size_t i = 0; i < c.input_count(); ++i) {
                    const Shape& s = c.shape(i);
                    if (!s.rank_known()) continue;
                    if (!acc) {
                      if (s.rank() == 0) c.fail(Errc::bad_op_inputs, c.input_name(i) + " is a scalar; expected rank >= 1");
                      axis = norm_axis(c, c.i("axis"), static_cast<std::int64_t>(s.rank()), "axis");
                      acc = s;
                      continue;
                    }
                    if (s.rank() != acc->rank())
                      c.fail(Errc::bad_op_inputs, c.input_name(i) + " [" + s.to_string() + "] has rank " +
                                                      std::to_string(s.rank()) + ", the inputs before have rank " +
                                                      std::to_string(acc->rank()) + "; expected equal ranks");
                    std::vector<Dim> d = acc->dims();
                    for (std::size_t k = 0; k < d.size(); ++k) {
                      if (static_cast<std::int64_t>(k) == axis) d[k] = d[k] + s.dims()[k];
                      else d[k] = merge_dims(c, d[k], s.dims()[k], c.input_name(i) + " dim " + std::to_string(k));
                    }
                    acc = Shape(std::move(d));
                  }
                  if (!acc) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
                  // Inputs of unknown rank add an unknown extent along the axis.
                  for (std::size_t i = 0; i < c.input_count(); ++i)
                    if (!c.shape(i).rank_known()) acc->set(axis, Dim::interval((*acc)[axis].lo(), Dim::inf));
                  return std::vector<TensorDesc>{{t, *acc}};
                }));
  add_op(r, onnx_op(13),
         schema("Split", "splits along axis into parts of the 'split' sizes, or num_outputs (near-)equal parts",
                {arg("input", "T"), opt("split", "i64")}, {many("outputs", "T")}, {any},
                {attr("axis", 0), attr_opt("num_outputs", AttrKind::integer, int_at_least(1))}, infer_split));
  add_op(r, onnx_op(13),
         schema("Slice", "ONNX slice: starts, ends, optional axes and steps (negative and clamped indices)",
                {arg("data", "T"), arg("starts", "Tind"), arg("ends", "Tind"), opt("axes", "Tind"), opt("steps", "Tind")},
                {arg("output", "T")}, {any, {"Tind", TypeSet::indices()}}, {}, infer_slice));
  add_op(r, onnx_op(13),
         schema("Gather", "takes entries of data along axis at the indices: data[:axis] + indices + data[axis+1:]",
                {arg("data", "T"), arg("indices", "Tind")}, {arg("output", "T")}, {any, {"Tind", TypeSet::indices()}},
                {attr("axis", 0)}, [](const InferContext& c) {
                  const Shape& x = c.shape(0);
                  const Shape& idx = c.shape(1);
                  const DataType t = c.input(0).dtype;
                  require_rank(c, 0, 1, any_rank);
                  if (!x.rank_known() || !idx.rank_known()) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
                  const std::int64_t axis = norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis");
                  if (const auto v = const_ints(c, 1); v && x[axis].is_static())
                    for (std::int64_t k : *v)
                      if (k < -x[axis].lo() || k >= x[axis].lo())
                        c.fail(Errc::bad_op_inputs, "input 1 (indices) has " + std::to_string(k) + ", outside dim " +
                                                        std::to_string(axis) + " of input 0 [" + x.to_string() + "]");
                  std::vector<Dim> out(x.dims().begin(), x.dims().begin() + axis);
                  out.insert(out.end(), idx.dims().begin(), idx.dims().end());
                  out.insert(out.end(), x.dims().begin() + axis + 1, x.dims().end());
                  return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
                }));
  add_op(r, onnx_op(13),
         schema("Expand", "broadcasts input to the shape given by a 1-D i64 tensor (numpy rules, both ways)",
                {arg("input", "T"), arg("shape", "i64")}, {arg("output", "T")}, {any}, {}, [](const InferContext& c) {
                  require_rank(c, 1, 1, 1);
                  const DataType t = c.input(0).dtype;
                  if (const auto v = const_ints(c, 1)) {
                    std::vector<Dim> d;
                    for (std::int64_t k : *v) {
                      if (k < 0) c.fail(Errc::bad_op_inputs, "input 1 (shape) " + ints_text(*v) + " has a negative dim");
                      d.emplace_back(k);
                    }
                    return std::vector<TensorDesc>{{t, broadcast_shapes(c, c.shape(0), Shape(std::move(d)))}};
                  }
                  const auto n = static_length(c, 1);
                  if (!n || !c.shape(0).rank_known()) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
                  return std::vector<TensorDesc>{
                      {t, unknown_dims(std::max<std::size_t>(c.shape(0).rank(), static_cast<std::size_t>(*n)))}};
                }));
}

}  // namespace

void add_shape_ops(OpRegistry& r) {
  const TypeConstraint any{"T", TypeSet::all()};
  add_reshape_ops(r, any);
  add_squeeze_ops(r, any);
  add_join_ops(r, any);
  add_shape_value_ops(r);  // src/ops/pad_resize.cpp
}

}  // namespace ge::ops
