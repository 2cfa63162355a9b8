#include "kernels/cpu/host.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

namespace ge::cpu {
namespace {

// Calls f(is_nonzero(i)) for each element through a type-erased reader.
template <class F>
void visit_nonzero(const TensorView& x, F&& f) {
  const std::int64_t n = x.elements();
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.as<const T>();
    for (std::int64_t i = 0; i < n; ++i) f(i, p[i] != T{0});
  };
  switch (x.dtype) {
    case DataType::f32: return run(float{});
    case DataType::f64: return run(double{});
    case DataType::i8: return run(std::int8_t{});
    case DataType::i16: return run(std::int16_t{});
    case DataType::i32: return run(std::int32_t{});
    case DataType::i64: return run(std::int64_t{});
    case DataType::u8:
    case DataType::boolean: return run(std::uint8_t{});
    case DataType::u16: return run(std::uint16_t{});
    case DataType::u32: return run(std::uint32_t{});
    case DataType::u64: return run(std::uint64_t{});
    case DataType::f16:
    case DataType::bf16: {
      // +0 and -0 are the only zeros: every bit but the sign clear.
      const auto* p = x.as<const std::uint16_t>();
      for (std::int64_t i = 0; i < n; ++i) f(i, (p[i] & 0x7fffu) != 0);
      return;
    }
    case DataType::undefined: break;
  }
  fail(Errc::unsupported, "NonZero", "type 'undefined' is not supported");
}

}  // namespace

std::int64_t nonzero_count(const TensorView& x) {
  check_data("NonZero", "X", x);
  std::int64_t count = 0;
  visit_nonzero(x, [&](std::int64_t, bool nz) { count += nz ? 1 : 0; });
  return count;
}

void nonzero(const TensorView& x, const TensorView& y) {
  check_dtype("NonZero", "Y", y, DataType::i64);
  const std::int64_t count = nonzero_count(x);
  const std::int64_t rank = std::max<std::int64_t>(1, static_cast<std::int64_t>(x.rank()));
  const std::int64_t out[2] = {rank, count};
  check_dims("NonZero", "Y", y, out);
  std::int64_t* py = y.as<std::int64_t>();
  std::int64_t col = 0;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(rank), 0);
  visit_nonzero(x, [&](std::int64_t i, bool nz) {
    if (!nz) return;
    std::int64_t r = i;
    for (std::size_t d = x.rank(); d-- > 0;) {
      idx[d] = r % x.dims[d];
      r /= x.dims[d];
    }
    for (std::int64_t d = 0; d < rank; ++d) py[d * count + col] = idx[static_cast<std::size_t>(d)];
    ++col;
  });
}

namespace {

// A strict weak order, best first: NaN above every number, ties by lower index.
template <class T>
bool better(T a, std::int64_t ia, T b, std::int64_t ib, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = a != a, nb = b != b;
    if (na || nb) {
      if (na && nb) return ia < ib;
      return largest ? na : nb;  // largest: NaN first; smallest: NaN last
    }
  }
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

template <class T>
void top_k_typed(const TopKParams& p, const TensorView& x, const TensorView& values, const TensorView& indices) {
  const auto axis = static_cast<std::size_t>(p.axis);
  const std::int64_t outer = product(x.dims, 0, axis);
  const std::int64_t len = x.dims[axis];
  const std::int64_t inner = product(x.dims, axis + 1, x.rank());
  const T* px = x.as<const T>();
  T* pv = values.as<T>();
  std::int64_t* pi = indices.as<std::int64_t>();
  const std::int64_t k = p.k;
  parallel_for(outer * inner, grain_for(len * 8), [&](std::int64_t b, std::int64_t e) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(len));
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t o = t / inner, in = t % inner;
      const T* base = px + o * len * inner + in;
      std::iota(order.begin(), order.end(), std::int64_t{0});
      const auto cmp = [&](std::int64_t i, std::int64_t j) {
        return better(base[i * inner], i, base[j * inner], j, p.largest);
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), cmp);
      for (std::int64_t r = 0; r < k; ++r) {
        const std::int64_t at = (o * k + r) * inner + in;
        pv[at] = base[order[static_cast<std::size_t>(r)] * inner];
        pi[at] = order[static_cast<std::size_t>(r)];
      }
    }
  });
}

}  // namespace

void top_k(const TopKParams& p, const TensorView& x, const TensorView& values, const TensorView& indices) {
  constexpr std::string_view op = "TopK";
  check_dtype(op, "Values", values, x.dtype);
  check_dtype(op, "Indices", indices, DataType::i64);
  check_data(op, "X", x);
  if (p.axis < 0 || p.axis >= static_cast<std::int64_t>(x.rank())) {
    fail(Errc::bad_attribute, op, "axis " + std::to_string(p.axis) + " is outside X " + dims_text(x.dims));
  }
  const auto axis = static_cast<std::size_t>(p.axis);
  if (p.k < 0 || p.k > x.dims[axis]) {
    fail(Errc::bad_attribute, op,
         "k " + std::to_string(p.k) + " is outside [0, " + std::to_string(x.dims[axis]) + "] for X " +
             dims_text(x.dims));
  }
  std::vector<std::int64_t> out(x.dims.begin(), x.dims.end());
  out[axis] = p.k;
  check_dims(op, "Values", values, out);
  check_dims(op, "Indices", indices, out);
  if (values.elements() == 0) return;
  switch (x.dtype) {
    case DataType::f32: return top_k_typed<float>(p, x, values, indices);
    case DataType::i32: return top_k_typed<std::int32_t>(p, x, values, indices);
    case DataType::i64: return top_k_typed<std::int64_t>(p, x, values, indices);
    default:
      fail(Errc::unsupported, op,
           "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32, i32 or i64");
  }
}

}  // namespace ge::cpu
