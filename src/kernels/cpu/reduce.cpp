#include "kernels/cpu/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ge::cpu {
namespace {

std::string_view reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "ReduceSum";
    case ReduceOp::mean: return "ReduceMean";
    case ReduceOp::max: return "ReduceMax";
  }
  return "Reduce";
}

// y dims must be x dims with each reduced axis either 1 or dropped (all one way).
void check_reduced_dims(std::string_view op, const TensorView& x, const std::vector<bool>& reduced,
                        const TensorView& y) {
  std::vector<std::int64_t> keep, drop;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    keep.push_back(reduced[i] ? 1 : x.dims[i]);
    if (!reduced[i]) drop.push_back(x.dims[i]);
  }
  const bool is_keep = std::equal(keep.begin(), keep.end(), y.dims.begin(), y.dims.end());
  const bool is_drop = std::equal(drop.begin(), drop.end(), y.dims.begin(), y.dims.end());
  if (!is_keep && !is_drop) {
    fail(Errc::bad_op_inputs, op,
         "Y has dims " + dims_text(y.dims) + "; expected " + dims_text(keep) + " or " + dims_text(drop));
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

template <class T, template <class> class R>
void reduce_typed(const TensorView& x, const std::vector<bool>& reduced, const TensorView& y, bool mean) {
  // Group x's dims (dropping 1s) into alternating runs of kept / reduced axes.
  struct Run {
    std::int64_t size;
    bool reduced;
  };
  std::vector<Run> runs;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (x.dims[i] == 1) continue;
    if (!runs.empty() && runs.back().reduced == reduced[i]) {
      runs.back().size *= x.dims[i];
    } else {
      runs.push_back({x.dims[i], reduced[i]});
    }
  }
  std::int64_t count = 1;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (reduced[i]) count *= x.dims[i];
  }
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  const std::int64_t ny = y.elements();
  const auto finish = [&](T v) -> T {
    if (!mean) return v;
    if constexpr (std::is_floating_point_v<T>) {
      return count > 0 ? v / static_cast<T>(count) : std::numeric_limits<T>::quiet_NaN();
    } else {
      return count > 0 ? static_cast<T>(v / static_cast<T>(count)) : T{0};
    }
  };
  if (count == 0) {
    std::fill(py, py + ny, finish(R<T>::init()));
    return;
  }
  // Innermost run length and whether it is reduced.
  const bool inner_reduced = !runs.empty() && runs.back().reduced;
  const std::int64_t inner = runs.empty() ? 1 : runs.back().size;
  // The remaining runs, outermost first, with their strides in x.
  std::vector<Run> outer_runs(runs.begin(), runs.empty() ? runs.begin() : runs.end() - 1);
  std::vector<std::int64_t> kept_sizes, kept_strides, red_sizes, red_strides;
  {
    std::int64_t stride = inner;
    std::vector<std::int64_t> strides(outer_runs.size());
    for (std::size_t i = outer_runs.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= outer_runs[i].size;
    }
    for (std::size_t i = 0; i < outer_runs.size(); ++i) {
      (outer_runs[i].reduced ? red_sizes : kept_sizes).push_back(outer_runs[i].size);
      (outer_runs[i].reduced ? red_strides : kept_strides).push_back(strides[i]);
    }
  }
  const std::int64_t outer_count = product(kept_sizes, 0, kept_sizes.size());
  const std::int64_t red_count = product(red_sizes, 0, red_sizes.size());
  // Offset in x of the kept index `o` / reduced index `r` (row-major over their runs).
  const auto offset = [](std::int64_t idx, const std::vector<std::int64_t>& sizes,
                         const std::vector<std::int64_t>& strides) {
    std::int64_t off = 0;
    for (std::size_t d = sizes.size(); d-- > 0;) {
      off += (idx % sizes[d]) * strides[d];
      idx /= sizes[d];
    }
    return off;
  };
  if (inner_reduced) {
    // Each output is the reduction of red_count contiguous rows of `inner` elements.
    parallel_for(outer_count, grain_for(red_count * inner), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t o = b; o < e; ++o) {
        const std::int64_t base = offset(o, kept_sizes, kept_strides);
        T acc[kLanes];
        std::fill(acc, acc + kLanes, R<T>::init());
        T tail = R<T>::init();
        for (std::int64_t r = 0; r < red_count; ++r) {
          const T* __restrict row = px + base + offset(r, red_sizes, red_strides);
          std::int64_t i = 0;
          for (; i + kLanes <= inner; i += kLanes) {
            for (std::int64_t j = 0; j < kLanes; ++j) {
              if constexpr (std::is_same_v<R<T>, Sum<T>>) {
                acc[j] = wrap(acc[j], row[i + j]);
              } else {
                acc[j] = R<T>::apply(acc[j], row[i + j]);
              }
            }
          }
          for (; i < inner; ++i) {
            if constexpr (std::is_same_v<R<T>, Sum<T>>) {
              tail = wrap(tail, row[i]);
            } else {
              tail = R<T>::apply(tail, row[i]);
            }
          }
        }
        for (std::int64_t j = 0; j < kLanes; ++j) {
          if constexpr (std::is_same_v<R<T>, Sum<T>>) {
            tail = wrap(tail, acc[j]);
          } else {
            tail = R<T>::apply(tail, acc[j]);
          }
        }
        py[o] = finish(tail);
      }
    });
    return;
  }
  // Inner axes kept: each output row of `inner` elements accumulates red_count rows.
  parallel_for(outer_count, grain_for(red_count * inner), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) {
      const std::int64_t base = offset(o, kept_sizes, kept_strides);
      T* __restrict out = py + o * inner;
      std::fill(out, out + inner, R<T>::init());
      for (std::int64_t r = 0; r < red_count; ++r) {
        const T* __restrict row = px + base + offset(r, red_sizes, red_strides);
        if constexpr (std::is_same_v<R<T>, Sum<T>>) {
          for_lanes(inner, [&](std::int64_t i) { out[i] = wrap(out[i], row[i]); });
        } else {
          for_lanes(inner, [&](std::int64_t i) { out[i] = R<T>::apply(out[i], row[i]); });
        }
      }
      if (mean) {
        for (std::int64_t i = 0; i < inner; ++i) out[i] = finish(out[i]);
      }
    }
  });
}

std::vector<bool> reduced_axes(std::string_view op, const std::vector<std::int64_t>& axes, const TensorView& x) {
  std::vector<bool> reduced(x.rank(), false);
  for (const std::int64_t a : axes) {
    if (a < 0 || a >= static_cast<std::int64_t>(x.rank()) || reduced[static_cast<std::size_t>(a)]) {
      fail(Errc::bad_attribute, op,
           "axis " + std::to_string(a) + " is out of range or repeated for X " + dims_text(x.dims));
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
  const std::vector<bool> reduced = reduced_axes(op, p.axes, x);
  check_reduced_dims(op, x, reduced, y);
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
        bool better = p.select_last_index ? v >= best : v > best;
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
  constexpr std::string_view op = "ArgMax";
  check_dtype(op, "Y", y, DataType::i64);
  check_data(op, "X", x);
  if (p.axis < 0 || p.axis >= static_cast<std::int64_t>(x.rank())) {
    fail(Errc::bad_attribute, op, "axis " + std::to_string(p.axis) + " is outside X " + dims_text(x.dims));
  }
  std::vector<bool> reduced(x.rank(), false);
  reduced[static_cast<std::size_t>(p.axis)] = true;
  check_reduced_dims(op, x, reduced, y);
  if (x.dims[static_cast<std::size_t>(p.axis)] == 0) {
    fail(Errc::bad_op_inputs, op, "the axis of X " + dims_text(x.dims) + " is empty");
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
