#include "kernels/cpu/reduce/reduce.hpp"
#include "kernels/cpu/reduce/reduce_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ge::cpu {
namespace {

std::string_view reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "ReduceSum";
    case ReduceOp::mean: return "ReduceMean";
    case ReduceOp::max: return "ReduceMax";
    case ReduceOp::min: return "ReduceMin";
    case ReduceOp::prod: return "ReduceProd";
    case ReduceOp::sum_square: return "ReduceSumSquare";
    case ReduceOp::l1: return "ReduceL1";
    case ReduceOp::l2: return "ReduceL2";
    case ReduceOp::log_sum: return "ReduceLogSum";
    case ReduceOp::log_sum_exp: return "ReduceLogSumExp";
  }
  return "Reduce";
}

// y dims must be x dims with each reduced axis either 1 or dropped (all one way).
void check_reduced_dims(std::string_view op, const TensorView& x, const detail::ReducedAxes& reduced,
                        const TensorView& y) {
  SmallDims keep, drop;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    keep.push_back(reduced[i] ? 1 : x.dims[i]);
    if (!reduced[i]) drop.push_back(x.dims[i]);
  }
  const bool is_keep = std::equal(keep.begin(), keep.end(), y.dims.begin(), y.dims.end());
  const bool is_drop = std::equal(drop.begin(), drop.end(), y.dims.begin(), y.dims.end());
  if (!is_keep && !is_drop) {
    fail(Errc::bad_op_inputs, op,
         "Y has dims " + bracketed(y.dims) + "; expected " + bracketed(keep) + " or " + bracketed(drop));
  }
  check_data(op, "Y", y);
}

template <class T>
struct Sum {
  static T init() { return T{0}; }
  static T apply(T a, T b) { return a + b; }
};
template <class T>
struct Max {
  static T init() { return std::numeric_limits<T>::lowest(); }
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return (a > b || a != a) ? a : b;  // NaN propagates
    } else {
      return a > b ? a : b;
    }
  }
};

// Integer sums wrap rather than overflow.
template <class T>
T wrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// One step of reduction R: integer sums wrap.
template <class T, template <class> class R>
inline T combine(T a, T b) {
  if constexpr (std::is_same_v<R<T>, Sum<T>>) {
    return wrap(a, b);
  } else {
    return R<T>::apply(a, b);
  }
}

// A reduced value as stored: divided by the `count` elements reduced for a mean (NaN,
// or 0 for integers, when there are none).
template <class T>
T finish(T v, bool mean, std::int64_t count) {
  if (!mean) return v;
  if constexpr (std::is_floating_point_v<T>) {
    return count > 0 ? v / static_cast<T>(count) : std::numeric_limits<T>::quiet_NaN();
  } else {
    return count > 0 ? static_cast<T>(v / static_cast<T>(count)) : T{0};
  }
}

// x's dims (dropping 1s) grouped into alternating runs of kept and reduced axes: the
// innermost run apart (`inner` elements, reduced or not), the others split into the
// kept ones (`outer_count` output rows) and the reduced ones (`red_count` input rows per
// output), each with its sizes and strides in x, outermost first.
struct ReduceLayout {
  std::int64_t count = 1;  // elements reduced into each output
  bool inner_reduced = false;
  std::int64_t inner = 1;
  SmallDims kept_sizes, kept_strides, red_sizes, red_strides;
  std::int64_t outer_count = 1, red_count = 1;
};

ReduceLayout reduce_layout(const TensorView& x, const detail::ReducedAxes& reduced) {
  struct Run {
    std::int64_t size;
    bool reduced;
  };
  Run run_list[SmallDims::kMax];
  std::size_t n_runs = 0;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (x.dims[i] == 1) continue;
    if (n_runs > 0 && run_list[n_runs - 1].reduced == reduced[i]) {
      run_list[n_runs - 1].size *= x.dims[i];
    } else {
      run_list[n_runs++] = {x.dims[i], static_cast<bool>(reduced[i])};
    }
  }
  ReduceLayout l;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (reduced[i]) l.count *= x.dims[i];
  }
  l.inner_reduced = n_runs > 0 && run_list[n_runs - 1].reduced;
  l.inner = n_runs == 0 ? 1 : run_list[n_runs - 1].size;
  const std::span<const Run> outer_runs(run_list, n_runs == 0 ? 0 : n_runs - 1);
  std::int64_t stride = l.inner;
  SmallDims strides(outer_runs.size(), 0);
  for (std::size_t i = outer_runs.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= outer_runs[i].size;
  }
  for (std::size_t i = 0; i < outer_runs.size(); ++i) {
    (outer_runs[i].reduced ? l.red_sizes : l.kept_sizes).push_back(outer_runs[i].size);
    (outer_runs[i].reduced ? l.red_strides : l.kept_strides).push_back(strides[i]);
  }
  l.outer_count = product(l.kept_sizes, 0, l.kept_sizes.size());
  l.red_count = product(l.red_sizes, 0, l.red_sizes.size());
  return l;
}

// Offset in x of index `idx` row-major over runs of `sizes` with `strides`.
inline std::int64_t run_offset(std::int64_t idx, const SmallDims& sizes, const SmallDims& strides) {
  std::int64_t off = 0;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    off += (idx % sizes[d]) * strides[d];
    idx /= sizes[d];
  }
  return off;
}

// Inner axes reduced: each output is the reduction of red_count contiguous rows of
// `inner` elements, in kLanes partial results.
template <class T, template <class> class R>
void reduce_inner(const ReduceLayout& l, const T* px, T* py, bool mean) {
  if (l.red_count == 1 && l.inner < 2 * kLanes && (l.kept_strides.empty() || l.kept_strides.back() == l.inner) &&
      l.kept_sizes.size() <= 1) {
    // Short contiguous rows (a max over k neighbours): one plain fold per row, no lanes.
    parallel_for(l.outer_count, grain_for(l.inner * 4), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t o = b; o < e; ++o) {
        const T* __restrict row = px + o * l.inner;
        T v = row[0];
        for (std::int64_t i = 1; i < l.inner; ++i) v = combine<T, R>(v, row[i]);
        py[o] = finish(v, mean, l.count);
      }
    });
    return;
  }
  parallel_for(l.outer_count, grain_for(l.red_count * l.inner), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) {
      const std::int64_t base = run_offset(o, l.kept_sizes, l.kept_strides);
      T acc[kLanes];
      std::fill(acc, acc + kLanes, R<T>::init());
      T tail = R<T>::init();
      for (std::int64_t r = 0; r < l.red_count; ++r) {
        const T* __restrict row = px + base + run_offset(r, l.red_sizes, l.red_strides);
        std::int64_t i = 0;
        for (; i + kLanes <= l.inner; i += kLanes) {
          for (std::int64_t j = 0; j < kLanes; ++j) acc[j] = combine<T, R>(acc[j], row[i + j]);
        }
        for (; i < l.inner; ++i) tail = combine<T, R>(tail, row[i]);
      }
      for (std::int64_t j = 0; j < kLanes; ++j) tail = combine<T, R>(tail, acc[j]);
      py[o] = finish(tail, mean, l.count);
    }
  });
}

// Adds reduced rows [r0, r1) of output row `o`, columns [c0, c1), into `out` (already
// holding R's identity or a partial result at those columns).
template <class T, template <class> class R>
void accumulate_rows(const ReduceLayout& l, const T* px, std::int64_t o, std::int64_t r0, std::int64_t r1,
                     std::int64_t c0, std::int64_t c1, T* __restrict out) {
  const std::int64_t base = run_offset(o, l.kept_sizes, l.kept_strides) + c0;
  out += c0;
  for (std::int64_t r = r0; r < r1; ++r) {
    const T* __restrict row = px + base + run_offset(r, l.red_sizes, l.red_strides);
    for_lanes(c1 - c0, [&](std::int64_t i) { out[i] = combine<T, R>(out[i], row[i]); });
  }
}

// Inner axes kept: each output row of `inner` elements accumulates red_count rows. With
// few output rows (a global pool over one NHWC image is one row of C channels) the work
// is cut further: many channels into column blocks, few into parts of the reduced rows,
// each summed into its own partial row and then combined in order. Either way every
// thread reads, and the result does not depend on the number of threads.
template <class T, template <class> class R>
void reduce_outer(const ReduceLayout& l, const T* px, T* py, bool mean) {
  const std::int64_t inner = l.inner, rows = l.red_count;
  constexpr std::int64_t kColumns = 256, kPartWork = 16384, kMaxParts = 32;
  const bool few = l.outer_count < 8 && rows * inner >= 2 * kPartWork;
  const std::int64_t col_blocks = few && inner >= 2 * kColumns ? (inner + kColumns - 1) / kColumns : 1;
  const std::int64_t parts =
      few && col_blocks == 1 ? std::clamp<std::int64_t>(rows * inner / kPartWork, 1, std::min(kMaxParts, rows)) : 1;
  if (parts == 1) {
    const std::int64_t cols = (inner + col_blocks - 1) / col_blocks;
    parallel_for(l.outer_count * col_blocks, grain_for(rows * cols), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t t = b; t < e; ++t) {
        const std::int64_t o = t / col_blocks, c0 = t % col_blocks * cols, c1 = std::min(inner, c0 + cols);
        T* out = py + o * inner;
        std::fill(out + c0, out + c1, R<T>::init());
        accumulate_rows<T, R>(l, px, o, 0, rows, c0, c1, out);
        if (mean) {
          for (std::int64_t i = c0; i < c1; ++i) out[i] = finish(out[i], mean, l.count);
        }
      }
    });
    return;
  }
  std::vector<T> partial(static_cast<std::size_t>(l.outer_count * parts * inner), R<T>::init());
  parallel_for(l.outer_count * parts, 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t o = t / parts, part = t % parts;
      accumulate_rows<T, R>(l, px, o, rows * part / parts, rows * (part + 1) / parts, 0, inner,
                            partial.data() + t * inner);
    }
  });
  for (std::int64_t o = 0; o < l.outer_count; ++o) {
    T* __restrict out = py + o * inner;
    const T* first = partial.data() + o * parts * inner;
    std::copy(first, first + inner, out);
    for (std::int64_t part = 1; part < parts; ++part) {
      const T* __restrict in = first + part * inner;
      for_lanes(inner, [&](std::int64_t i) { out[i] = combine<T, R>(out[i], in[i]); });
    }
    if (mean) {
      for (std::int64_t i = 0; i < inner; ++i) out[i] = finish(out[i], mean, l.count);
    }
  }
}

template <class T, template <class> class R>
void reduce_typed(const TensorView& x, const detail::ReducedAxes& reduced, const TensorView& y, bool mean) {
  const ReduceLayout l = reduce_layout(x, reduced);
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  if (l.count == 0) {
    std::fill(py, py + y.elements(), finish(R<T>::init(), mean, l.count));
    return;
  }
  if (l.inner_reduced) {
    reduce_inner<T, R>(l, px, py, mean);
  } else {
    reduce_outer<T, R>(l, px, py, mean);
  }
}

detail::ReducedAxes reduced_axes(std::string_view op, const std::vector<std::int64_t>& axes, const TensorView& x) {
  detail::ReducedAxes reduced;
  for (const std::int64_t a : axes) {
    if (a < 0 || a >= static_cast<std::int64_t>(x.rank()) || reduced[static_cast<std::size_t>(a)]) {
      fail(Errc::bad_attribute, op,
           "axis " + std::to_string(a) + " is out of range or repeated for X " + bracketed(x.dims));
    }
    reduced[static_cast<std::size_t>(a)] = true;
  }
  return reduced;
}

}  // namespace

void reduce(const ReduceParams& p, const TensorView& x, const TensorView& y) {
  const std::string_view op = reduce_name(p.op);
  check_dtype(op, "Y", y, x.dtype);
  check_data(op, "X", x);
  const detail::ReducedAxes reduced = reduced_axes(op, p.axes, x);
  check_reduced_dims(op, x, reduced, y);
  if (p.op != ReduceOp::sum && p.op != ReduceOp::mean && p.op != ReduceOp::max) {
    return detail::reduce_math(op, p.op, x, reduced, y);
  }
  const bool mean = p.op == ReduceOp::mean;
  const bool max = p.op == ReduceOp::max;
  switch (x.dtype) {
    case DataType::f32:
      return max ? reduce_typed<float, Max>(x, reduced, y, false) : reduce_typed<float, Sum>(x, reduced, y, mean);
    case DataType::i32:
      return max ? reduce_typed<std::int32_t, Max>(x, reduced, y, false)
                 : reduce_typed<std::int32_t, Sum>(x, reduced, y, mean);
    case DataType::i64:
      return max ? reduce_typed<std::int64_t, Max>(x, reduced, y, false)
                 : reduce_typed<std::int64_t, Sum>(x, reduced, y, mean);
    default:
      fail(Errc::unsupported, op,
           "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32, i32 or i64");
  }
}

namespace {

template <class T>
void arg_max_typed(const ArgMaxParams& p, const TensorView& x, const TensorView& y) {
  const auto axis = static_cast<std::size_t>(p.axis);
  const std::int64_t outer = product(x.dims, 0, axis);
  const std::int64_t len = x.dims[axis];
  const std::int64_t inner = product(x.dims, axis + 1, x.rank());
  const T* px = x.as<const T>();
  std::int64_t* py = y.as<std::int64_t>();
  parallel_for(outer * inner, grain_for(len), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t t = b; t < e; ++t) {
      const T* base = px + (t / inner) * len * inner + t % inner;
      T best = base[0];
      std::int64_t at = 0;
      for (std::int64_t i = 1; i < len; ++i) {
        const T v = base[i * inner];
        const bool past = p.min ? v < best : v > best;
        bool better = past || (p.select_last_index && v == best);
        if constexpr (std::is_floating_point_v<T>) {
          // NaN is the largest value: the first (or last) NaN wins.
          if (best != best) better = p.select_last_index && v != v;
          else if (v != v) better = true;
        }
        if (better) {
          best = v;
          at = i;
        }
      }
      py[t] = at;
    }
  });
}

}  // namespace

void arg_max(const ArgMaxParams& p, const TensorView& x, const TensorView& y) {
  const std::string_view op = p.min ? "ArgMin" : "ArgMax";
  check_dtype(op, "Y", y, DataType::i64);
  check_data(op, "X", x);
  if (p.axis < 0 || p.axis >= static_cast<std::int64_t>(x.rank())) {
    fail(Errc::bad_attribute, op, "axis " + std::to_string(p.axis) + " is outside X " + bracketed(x.dims));
  }
  detail::ReducedAxes reduced;
  reduced[static_cast<std::size_t>(p.axis)] = true;
  check_reduced_dims(op, x, reduced, y);
  if (x.dims[static_cast<std::size_t>(p.axis)] == 0) {
    fail(Errc::bad_op_inputs, op, "the axis of X " + bracketed(x.dims) + " is empty");
  }
  if (y.elements() == 0) return;
  switch (x.dtype) {
    case DataType::f32: return arg_max_typed<float>(p, x, y);
    case DataType::i32: return arg_max_typed<std::int32_t>(p, x, y);
    case DataType::i64: return arg_max_typed<std::int64_t>(p, x, y);
    default:
      fail(Errc::unsupported, op,
           "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32, i32 or i64");
  }
}

}  // namespace ge::cpu
