// Compress, ReverseSequence and Unique: slices copied whole; Unique sorts the slice
// indices once (O(n log n) comparisons of a slice each).
#include "kernels/cpu/movement/selection.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {
namespace {

// x as [outer, len, inner] around `axis` (none: [1, elements, 1]).
struct AxisSplit {
  std::int64_t outer = 1, len = 1, inner = 1;
};

AxisSplit split_at(std::string_view op, std::optional<std::int64_t> axis, const TensorView& x) {
  if (!axis) return {1, x.elements(), 1};
  if (*axis < 0 || *axis >= static_cast<std::int64_t>(x.rank()))
    fail(Errc::bad_attribute, op, "axis " + std::to_string(*axis) + " is outside input " + bracketed(x.dims));
  const auto a = static_cast<std::size_t>(*axis);
  return {product(x.dims, 0, a), x.dims[a], product(x.dims, a + 1, x.rank())};
}

// Copies slice `from` of x to slice `to` of y (both split as `s`, y with `y_len` slices).
void copy_slice(const AxisSplit& s, std::size_t es, const std::byte* x, std::int64_t from, std::byte* y,
                std::int64_t y_len, std::int64_t to) {
  const auto bytes = static_cast<std::size_t>(s.inner) * es;
  for (std::int64_t o = 0; o < s.outer; ++o)
    std::memcpy(y + static_cast<std::size_t>((o * y_len + to) * s.inner) * es,
                x + static_cast<std::size_t>((o * s.len + from) * s.inner) * es, bytes);
}

template <class T>
UniqueResult unique_typed(bool sorted, const AxisSplit& s, const T* x) {
  // Lexicographic order of slices a and b: -1, 0 or 1.
  const auto compare = [&](std::int64_t a, std::int64_t b) {
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t j = 0; j < s.inner; ++j) {
        const auto va = native(x[(o * s.len + a) * s.inner + j]), vb = native(x[(o * s.len + b) * s.inner + j]);
        if (va < vb) return -1;
        if (vb < va) return 1;
      }
    return 0;
  };
  std::vector<std::int64_t> order(static_cast<std::size_t>(s.len));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return compare(a, b) < 0; });
  // Groups of equal slices in sorted order: each group's first index (stable: the lowest).
  std::vector<std::int64_t> group_of(order.size()), firsts, counts;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || compare(order[i - 1], order[i]) != 0) {
      firsts.push_back(order[i]);
      counts.push_back(0);
    }
    group_of[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(firsts.size() - 1);
    ++counts.back();
  }
  // Output order: sorted groups, or groups by first occurrence.
  std::vector<std::int64_t> rank(firsts.size());
  std::iota(rank.begin(), rank.end(), 0);
  if (!sorted) {
    std::vector<std::int64_t> by_first(firsts.size());
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(), [&](std::int64_t a, std::int64_t b) {
      return firsts[static_cast<std::size_t>(a)] < firsts[static_cast<std::size_t>(b)];
    });
    for (std::size_t i = 0; i < by_first.size(); ++i) rank[static_cast<std::size_t>(by_first[i])] = static_cast<std::int64_t>(i);
  }
  UniqueResult u;
  u.first.resize(firsts.size());
  u.counts.resize(firsts.size());
  for (std::size_t g = 0; g < firsts.size(); ++g) {
    u.first[static_cast<std::size_t>(rank[g])] = firsts[g];
    u.counts[static_cast<std::size_t>(rank[g])] = counts[g];
  }
  u.inverse.resize(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) u.inverse[i] = rank[static_cast<std::size_t>(group_of[i])];
  return u;
}

}  // namespace

void compress(std::optional<std::int64_t> axis, const TensorView& x, const TensorView& condition, const TensorView& y) {
  constexpr std::string_view op = "Compress";
  check_data(op, "input", x);
  check_data(op, "condition", condition);
  check_dtype(op, "condition", condition, DataType::boolean);
  same_type(op, "input", x, "output", y);
  const AxisSplit s = split_at(op, axis, x);
  if (condition.elements() > s.len)
    fail(Errc::bad_op_inputs, op, "condition " + bracketed(condition.dims) + " is longer than the " +
                                      std::to_string(s.len) + " slices it selects from");
  const auto* c = condition.as<const std::uint8_t>();
  std::vector<std::int64_t> kept;
  for (std::int64_t i = 0; i < condition.elements(); ++i)
    if (c[i] != 0) kept.push_back(i);
  std::vector<std::int64_t> out{static_cast<std::int64_t>(kept.size())};
  if (axis) {
    out.assign(x.dims.begin(), x.dims.end());
    out[static_cast<std::size_t>(*axis)] = static_cast<std::int64_t>(kept.size());
  }
  check_dims(op, "output", y, out);
  const auto es = static_cast<std::size_t>(size_of(x.dtype));
  for (std::size_t k = 0; k < kept.size(); ++k)
    copy_slice(s, es, static_cast<const std::byte*>(x.data), kept[k], static_cast<std::byte*>(y.data),
               static_cast<std::int64_t>(kept.size()), static_cast<std::int64_t>(k));
}

void reverse_sequence(std::int64_t time_axis, std::int64_t batch_axis, const TensorView& x, const TensorView& lens,
                      const TensorView& y) {
  constexpr std::string_view op = "ReverseSequence";
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0)))
    fail(Errc::bad_attribute, op, "time_axis " + std::to_string(time_axis) + " and batch_axis " +
                                      std::to_string(batch_axis) + "; expected 0 and 1 in either order");
  check_data(op, "input", x);
  check_data(op, "sequence_lens", lens);
  check_dtype(op, "sequence_lens", lens, DataType::i64);
  same_type(op, "input", x, "Y", y);
  check_dims(op, "Y", y, x.dims);
  if (x.rank() < 2) fail(Errc::bad_op_inputs, op, "input " + bracketed(x.dims) + " has rank below 2");
  const std::int64_t steps = x.dims[static_cast<std::size_t>(time_axis)];
  const std::int64_t batch = x.dims[static_cast<std::size_t>(batch_axis)];
  if (lens.elements() != batch)
    fail(Errc::bad_op_inputs, op, "sequence_lens " + bracketed(lens.dims) + " for " + std::to_string(batch) + " batch entries");
  const auto* pl = lens.as<const std::int64_t>();
  for (std::int64_t b = 0; b < batch; ++b)
    if (pl[b] < 0 || pl[b] > steps)
      fail(Errc::bad_op_inputs, op, "sequence_lens[" + std::to_string(b) + "] is " + std::to_string(pl[b]) +
                                        "; expected [0, " + std::to_string(steps) + "]");
  const std::int64_t inner = product(x.dims, 2, x.rank()), d1 = x.dims[1];
  const auto bytes = static_cast<std::size_t>(inner * size_of(x.dtype));
  const auto* src = static_cast<const std::byte*>(x.data);
  auto* dst = static_cast<std::byte*>(y.data);
  for (std::int64_t t = 0; t < steps; ++t)
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t from = t < pl[b] ? pl[b] - 1 - t : t;
      const std::int64_t to_block = time_axis == 0 ? t * d1 + b : b * d1 + t;
      const std::int64_t from_block = time_axis == 0 ? from * d1 + b : b * d1 + from;
      if (bytes > 0) std::memmove(dst + static_cast<std::size_t>(to_block) * bytes, src + static_cast<std::size_t>(from_block) * bytes, bytes);
    }
}

UniqueResult unique(bool sorted, std::optional<std::int64_t> axis, const TensorView& x) {
  constexpr std::string_view op = "Unique";
  check_data(op, "X", x);
  const AxisSplit s = split_at(op, axis, x);
  if (x.dtype == DataType::f16 || x.dtype == DataType::bf16)
    fail(Errc::unsupported, op, "X is " + type_text(x.dtype) + "; f16 and bf16 are not supported");
  UniqueResult u;
  with_type(x.dtype, [&](auto zero) { u = unique_typed(sorted, s, static_cast<const decltype(zero)*>(x.data)); });
  return u;
}

void unique_values(std::optional<std::int64_t> axis, const TensorView& x, const UniqueResult& u, const TensorView& y) {
  constexpr std::string_view op = "Unique";
  same_type(op, "X", x, "Y", y);
  const AxisSplit s = split_at(op, axis, x);
  const auto n = static_cast<std::int64_t>(u.first.size());
  std::vector<std::int64_t> out{n};
  if (axis) {
    out.assign(x.dims.begin(), x.dims.end());
    out[static_cast<std::size_t>(*axis)] = n;
  }
  check_dims(op, "Y", y, out);
  const auto es = static_cast<std::size_t>(size_of(x.dtype));
  for (std::int64_t k = 0; k < n; ++k)
    copy_slice(s, es, static_cast<const std::byte*>(x.data), u.first[static_cast<std::size_t>(k)],
               static_cast<std::byte*>(y.data), n, k);
}

}  // namespace ge::cpu
