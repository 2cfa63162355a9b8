// GatherElements and ScatterElements: one pass over the indices, each index's position in
// data found from its own coordinates (O(rank) per index); GatherElements of indices shaped
// as data off the axis by rows, over the thread pool.
#include "kernels/cpu/movement/indexing.hpp"

#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {
namespace {

// Checks the ranks, the axis and that indices (and the dims of `other`, when given) fit
// in data off the axis.
void check_indexing(std::string_view op, std::int64_t axis, const TensorView& data, const TensorView& indices) {
  check_data(op, "data", data);
  check_data(op, "indices", indices);
  if (indices.dtype != DataType::i32 && indices.dtype != DataType::i64)
    fail(Errc::type_mismatch, op, "indices are " + type_text(indices.dtype) + "; expected 'i32' or 'i64'");
  if (indices.rank() != data.rank())
    fail(Errc::bad_op_inputs, op, "indices " + bracketed(indices.dims) + " and data " + bracketed(data.dims) +
                                      " differ in rank");
  if (axis < 0 || axis >= static_cast<std::int64_t>(data.rank()))
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside data " + bracketed(data.dims));
  for (std::size_t d = 0; d < data.rank(); ++d)
    if (static_cast<std::int64_t>(d) != axis && indices.dims[d] > data.dims[d])
      fail(Errc::bad_op_inputs, op, "indices " + bracketed(indices.dims) + " exceed data " + bracketed(data.dims) +
                                        " in dim " + std::to_string(d));
}

// For each index t (row-major over indices' dims), the flat position in data it names.
template <class I>
std::vector<std::int64_t> positions(std::string_view op, std::int64_t axis, const TensorView& data,
                                    const TensorView& indices) {
  const std::size_t r = data.rank();
  const auto ax = static_cast<std::size_t>(axis);
  std::vector<std::int64_t> stride(r, 1), idx(r, 0);
  for (std::size_t d = r; d-- > 1;) stride[d - 1] = stride[d] * data.dims[d];
  const I* pi = indices.as<const I>();
  const std::int64_t n = indices.elements(), dim = data.dims[ax];
  std::vector<std::int64_t> pos(static_cast<std::size_t>(n));
  std::int64_t base = 0;  // data offset of idx with the axis coordinate left out
  for (std::int64_t t = 0; t < n; ++t) {
    const auto v = static_cast<std::int64_t>(pi[t]);
    if (v < -dim || v >= dim)
      fail(Errc::index_out_of_range, op,
           "index " + std::to_string(v) + " is outside [-" + std::to_string(dim) + ", " + std::to_string(dim) +
               ") for axis " + std::to_string(axis) + " of data " + bracketed(data.dims));
    pos[static_cast<std::size_t>(t)] = base + (v < 0 ? v + dim : v) * stride[ax];
    for (std::size_t d = r; d-- > 0;) {
      if (d != ax) base += stride[d];
      if (++idx[d] < indices.dims[d]) break;
      if (d != ax) base -= stride[d] * indices.dims[d];
      idx[d] = 0;
    }
  }
  return pos;
}

std::vector<std::int64_t> positions_of(std::string_view op, std::int64_t axis, const TensorView& data,
                                       const TensorView& indices) {
  return indices.dtype == DataType::i64 ? positions<std::int64_t>(op, axis, data, indices)
                                        : positions<std::int32_t>(op, axis, data, indices);
}

// Whether GatherElements or ScatterElements can step along rows: indices match data off
// the axis and the elements are 4 or 8 bytes. With `check`, checks every index first
// (throwing the error that names a bad one), so that nothing is written before a bad index
// is found (ScatterElements, whose output may be its data); GatherElements checks them as
// it copies, in parallel (the serial pass over a k-NN gather's 16384 x 64 indices took as
// long as the copy).
template <class I>
bool rows_fit(std::string_view op, std::int64_t axis, const TensorView& data, const TensorView& indices,
              bool check = true) {
  const auto ax = static_cast<std::size_t>(axis);
  for (std::size_t d = 0; d < data.rank(); ++d)
    if (d != ax && indices.dims[d] != data.dims[d]) return false;
  const std::int64_t es = size_of(data.dtype);
  if (es != 4 && es != 8) return false;
  if (!check) return true;
  const I* pi = indices.as<const I>();
  const std::int64_t n = indices.elements(), dim = data.dims[ax];
  for (std::int64_t t = 0; t < n; ++t) {
    const auto v = static_cast<std::int64_t>(pi[t]);
    if (v < -dim || v >= dim) (void)positions<I>(op, axis, data, indices);  // throws the error naming it
  }
  return true;
}

// GatherElements where indices match data off the axis (the common case: a gather of k
// neighbours along one axis): rows of `inner` elements, the index checks first, then the
// copies over the pool, without a table of positions. False for other shapes and sizes.
template <class I>
bool gather_rows(std::string_view op, std::int64_t axis, const TensorView& data, const TensorView& indices,
                 const TensorView& y) {
  if (!rows_fit<I>(op, axis, data, indices, false)) return false;
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t es = size_of(data.dtype);
  const I* pi = indices.as<const I>();
  const std::int64_t n = indices.elements(), dim = data.dims[ax];
  const std::int64_t inner = product(indices.dims, ax + 1, indices.rank()), a = indices.dims[ax];
  std::atomic<bool> bad{false};
  const auto copy = [&]<class T>(const T* src, T* dst) {
    parallel_for(n, 16384, [&](std::int64_t b, std::int64_t e) {
      // Element t of indices at (o, i, j) over [outer, a, inner]: stepped, not divided, per element.
      std::int64_t i = (b / inner) % a, j = b % inner;
      const T* base = src + b / (a * inner) * dim * inner;
      for (std::int64_t t = b; t < e; ++t) {
        const auto v = static_cast<std::int64_t>(pi[t]);
        if (v < -dim || v >= dim) {  // (named below, after the copy)
          bad.store(true, std::memory_order_relaxed);
          return;
        }
        dst[t] = base[(v < 0 ? v + dim : v) * inner + j];
        if (++j < inner) continue;
        j = 0;
        if (++i < a) continue;
        i = 0;
        base += dim * inner;
      }
    });
  };
  if (es == 4) copy(data.as<const std::uint32_t>(), y.as<std::uint32_t>());
  else copy(data.as<const std::uint64_t>(), y.as<std::uint64_t>());
  if (bad.load()) (void)positions<I>(op, axis, data, indices);  // throws the error naming the first bad index
  return true;
}

// ScatterElements without a reduction where indices match data off the axis: the
// updates written in order (a later write to the same place wins), stepped as
// gather_rows steps, without a table of positions. False for other shapes and sizes.
template <class I>
bool scatter_rows(std::string_view op, std::int64_t axis, const TensorView& data, const TensorView& indices,
                  const TensorView& updates, const TensorView& y) {
  if (!rows_fit<I>(op, axis, data, indices)) return false;
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t es = size_of(data.dtype);
  const I* pi = indices.as<const I>();
  const std::int64_t n = indices.elements(), dim = data.dims[ax];
  if (y.data != data.data && data.elements() > 0)
    std::memcpy(y.data, data.data, static_cast<std::size_t>(data.elements() * es));
  const std::int64_t inner = product(indices.dims, ax + 1, indices.rank()), a = indices.dims[ax];
  const auto write = [&]<class T>(const T* src, T* dst) {
    std::int64_t i = 0, j = 0;
    T* base = dst;
    for (std::int64_t t = 0; t < n; ++t) {
      const auto v = static_cast<std::int64_t>(pi[t]);
      base[(v < 0 ? v + dim : v) * inner + j] = src[t];
      if (++j < inner) continue;
      j = 0;
      if (++i < a) continue;
      i = 0;
      base += dim * inner;
    }
  };
  if (es == 4) write(updates.as<const std::uint32_t>(), y.as<std::uint32_t>());
  else write(updates.as<const std::uint64_t>(), y.as<std::uint64_t>());
  return true;
}

template <class T>
void scatter_reduce(ScatterReduction r, const std::vector<std::int64_t>& pos, const TensorView& updates,
                    const TensorView& y) {
  const T* pu = updates.as<const T>();
  T* py = y.as<T>();
  for (std::size_t t = 0; t < pos.size(); ++t) py[pos[t]] = scatter_combine(r, py[pos[t]], pu[t]);
}

}  // namespace

void gather_elements(std::int64_t axis, const TensorView& data, const TensorView& indices, const TensorView& y) {
  constexpr std::string_view op = "GatherElements";
  same_type(op, "data", data, "output", y);
  check_indexing(op, axis, data, indices);
  check_dims(op, "output", y, indices.dims);
  if (indices.elements() == 0) return;
  if (indices.dtype == DataType::i64 ? gather_rows<std::int64_t>(op, axis, data, indices, y)
                                     : gather_rows<std::int32_t>(op, axis, data, indices, y))
    return;
  const std::vector<std::int64_t> pos = positions_of(op, axis, data, indices);
  const auto es = static_cast<std::size_t>(size_of(data.dtype));
  const auto* src = static_cast<const std::byte*>(data.data);
  auto* dst = static_cast<std::byte*>(y.data);
  for (std::size_t t = 0; t < pos.size(); ++t)
    std::memcpy(dst + t * es, src + static_cast<std::size_t>(pos[t]) * es, es);
}

void scatter_elements(const ScatterParams& p, const TensorView& data, const TensorView& indices,
                      const TensorView& updates, const TensorView& y) {
  constexpr std::string_view op = "ScatterElements";
  same_type(op, "data", data, "output", y);
  same_type(op, "data", data, "updates", updates);
  check_indexing(op, p.axis, data, indices);
  check_dims(op, "updates", updates, indices.dims);
  check_dims(op, "output", y, data.dims);
  const auto es = static_cast<std::size_t>(size_of(data.dtype));
  if (p.reduction == ScatterReduction::none && indices.elements() > 0 &&
      (indices.dtype == DataType::i64 ? scatter_rows<std::int64_t>(op, p.axis, data, indices, updates, y)
                                      : scatter_rows<std::int32_t>(op, p.axis, data, indices, updates, y)))
    return;
  const std::vector<std::int64_t> pos = positions_of(op, p.axis, data, indices);
  if (y.data != data.data && data.elements() > 0)
    std::memcpy(y.data, data.data, static_cast<std::size_t>(data.elements()) * es);
  if (p.reduction == ScatterReduction::none) {
    const auto* src = static_cast<const std::byte*>(updates.data);
    auto* dst = static_cast<std::byte*>(y.data);
    for (std::size_t t = 0; t < pos.size(); ++t)
      std::memcpy(dst + static_cast<std::size_t>(pos[t]) * es, src + t * es, es);
    return;
  }
  switch (data.dtype) {
    case DataType::f32: return scatter_reduce<float>(p.reduction, pos, updates, y);
    case DataType::f64: return scatter_reduce<double>(p.reduction, pos, updates, y);
    case DataType::i32: return scatter_reduce<std::int32_t>(p.reduction, pos, updates, y);
    case DataType::i64: return scatter_reduce<std::int64_t>(p.reduction, pos, updates, y);
    default:
      fail(Errc::unsupported, op,
           "a reduction on " + type_text(data.dtype) + " is not supported; expected f32, f64, i32 or i64");
  }
}

}  // namespace ge::cpu
