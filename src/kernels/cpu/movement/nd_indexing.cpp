// GatherND and ScatterND: one pass over the index tuples, a slice copied (or combined)
// per tuple.
#include "kernels/cpu/movement/nd_indexing.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {
namespace {

// The flat offsets (in slices) each index tuple names, for data whose dims [b, b + k)
// the tuples index, with `batches` batch entries of `tuples` tuples each.
struct Tuples {
  std::vector<std::int64_t> offsets;  ///< per tuple: the first element of its slice in data
  std::int64_t slice = 1;             ///< elements per slice
};

Tuples tuple_offsets(std::string_view op, std::int64_t b, const TensorView& data, const TensorView& indices) {
  check_data(op, "data", data);
  check_data(op, "indices", indices);
  check_dtype(op, "indices", indices, DataType::i64);
  const auto r = static_cast<std::int64_t>(data.rank()), q = static_cast<std::int64_t>(indices.rank());
  if (q < 1 || b < 0 || b >= std::min(r, q))
    fail(Errc::bad_attribute, op, "batch_dims " + std::to_string(b) + " for data " + bracketed(data.dims) +
                                      " and indices " + bracketed(indices.dims) + "; expected below both ranks");
  const std::int64_t k = indices.dims[static_cast<std::size_t>(q - 1)];
  if (k < 1 || k > r - b)
    fail(Errc::bad_op_inputs, op, "indices " + bracketed(indices.dims) + " end in " + std::to_string(k) +
                                      "; expected a tuple length in [1, " + std::to_string(r - b) + "]");
  for (std::size_t d = 0; d < static_cast<std::size_t>(b); ++d)
    if (data.dims[d] != indices.dims[d])
      fail(Errc::bad_op_inputs, op, "batch dim " + std::to_string(d) + " differs: data " + bracketed(data.dims) +
                                        ", indices " + bracketed(indices.dims));
  Tuples t;
  const auto bu = static_cast<std::size_t>(b), ku = static_cast<std::size_t>(k);
  t.slice = product(data.dims, bu + ku, data.rank());
  const std::int64_t batch_size = product(data.dims, bu, data.rank());
  const std::int64_t count = indices.elements() / k, per_batch = count / std::max<std::int64_t>(1, product(indices.dims, 0, bu));
  const auto* pi = indices.as<const std::int64_t>();
  t.offsets.resize(static_cast<std::size_t>(count));
  for (std::int64_t n = 0; n < count; ++n) {
    std::int64_t off = 0;
    for (std::size_t j = 0; j < ku; ++j) {
      const std::int64_t dim = data.dims[bu + j];
      std::int64_t v = pi[n * k + static_cast<std::int64_t>(j)];
      if (v < -dim || v >= dim)
        fail(Errc::index_out_of_range, op, "index " + std::to_string(v) + " is outside [-" + std::to_string(dim) +
                                               ", " + std::to_string(dim) + ") for dim " + std::to_string(bu + j) +
                                               " of data " + bracketed(data.dims));
      off = off * dim + (v < 0 ? v + dim : v);
    }
    t.offsets[static_cast<std::size_t>(n)] = (n / per_batch) * batch_size + off * t.slice;
  }
  return t;
}

template <class T>
void scatter_reduce(ScatterReduction r, const Tuples& t, const TensorView& updates, const TensorView& y) {
  const T* pu = updates.as<const T>();
  T* py = y.as<T>();
  for (std::size_t n = 0; n < t.offsets.size(); ++n)
    for (std::int64_t e = 0; e < t.slice; ++e)
      py[t.offsets[n] + e] = scatter_combine(r, py[t.offsets[n] + e], pu[static_cast<std::int64_t>(n) * t.slice + e]);
}

// The dims of indices without the last, then data's from `from`.
std::vector<std::int64_t> gathered_dims(const TensorView& data, const TensorView& indices, std::size_t from) {
  std::vector<std::int64_t> out(indices.dims.begin(), indices.dims.end() - 1);
  out.insert(out.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(from), data.dims.end());
  return out;
}

}  // namespace

void gather_nd(std::int64_t batch_dims, const TensorView& data, const TensorView& indices, const TensorView& y) {
  constexpr std::string_view op = "GatherND";
  same_type(op, "data", data, "output", y);
  const Tuples t = tuple_offsets(op, batch_dims, data, indices);
  const std::int64_t k = indices.dims[indices.rank() - 1];
  check_dims(op, "output", y, gathered_dims(data, indices, static_cast<std::size_t>(batch_dims + k)));
  const auto es = static_cast<std::size_t>(size_of(data.dtype));
  const auto bytes = static_cast<std::size_t>(t.slice) * es;
  const auto* src = static_cast<const std::byte*>(data.data);
  auto* dst = static_cast<std::byte*>(y.data);
  for (std::size_t n = 0; n < t.offsets.size(); ++n)
    if (bytes > 0) std::memcpy(dst + n * bytes, src + static_cast<std::size_t>(t.offsets[n]) * es, bytes);
}

void scatter_nd(ScatterReduction reduction, const TensorView& data, const TensorView& indices,
                const TensorView& updates, const TensorView& y) {
  constexpr std::string_view op = "ScatterND";
  same_type(op, "data", data, "output", y);
  same_type(op, "data", data, "updates", updates);
  check_dims(op, "output", y, data.dims);
  const Tuples t = tuple_offsets(op, 0, data, indices);
  const std::int64_t k = indices.dims[indices.rank() - 1];
  check_dims(op, "updates", updates, gathered_dims(data, indices, static_cast<std::size_t>(k)));
  const auto es = static_cast<std::size_t>(size_of(data.dtype));
  if (y.data != data.data && data.elements() > 0)
    std::memcpy(y.data, data.data, static_cast<std::size_t>(data.elements()) * es);
  if (reduction == ScatterReduction::none) {
    const auto bytes = static_cast<std::size_t>(t.slice) * es;
    const auto* src = static_cast<const std::byte*>(updates.data);
    auto* dst = static_cast<std::byte*>(y.data);
    for (std::size_t n = 0; n < t.offsets.size(); ++n)
      if (bytes > 0) std::memcpy(dst + static_cast<std::size_t>(t.offsets[n]) * es, src + n * bytes, bytes);
    return;
  }
  switch (data.dtype) {
    case DataType::f32: return scatter_reduce<float>(reduction, t, updates, y);
    case DataType::f64: return scatter_reduce<double>(reduction, t, updates, y);
    case DataType::i32: return scatter_reduce<std::int32_t>(reduction, t, updates, y);
    case DataType::i64: return scatter_reduce<std::int64_t>(reduction, t, updates, y);
    default:
      fail(Errc::unsupported, op,
           "a reduction on " + type_text(data.dtype) + " is not supported; expected f32, f64, i32 or i64");
  }
}

}  // namespace ge::cpu
