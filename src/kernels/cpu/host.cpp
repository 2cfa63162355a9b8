#include "kernels/cpu/host.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

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
  if (x.dtype == DataType::f16 || x.dtype == DataType::bf16) {
    // +0 and -0 are the only zeros: every bit but the sign clear.
    const auto* p = x.as<const std::uint16_t>();
    for (std::int64_t i = 0; i < n; ++i) f(i, (p[i] & 0x7fffu) != 0);
    return;
  }
  visit(x.dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_void_v<T>)
      fail(Errc::unsupported, "NonZero", "type 'undefined' is not supported");
    else if constexpr (std::is_same_v<T, bool>)
      run(std::uint8_t{});
    else
      run(T{});
  });
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

// One heap of the k best per row, its worst at the front: most elements are turned away by
// one comparison with that worst (a NaN or a better number goes on to the full order).
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
  const bool largest = p.largest;
  parallel_for(outer * inner, grain_for(len * 8), [&](std::int64_t b, std::int64_t e) {
    using Entry = std::pair<T, std::int64_t>;
    std::vector<Entry> heap;
    heap.reserve(static_cast<std::size_t>(k));
    std::vector<T> column(inner > 1 ? static_cast<std::size_t>(len) : 0);
    const auto worse_first = [&](const Entry& a, const Entry& c) {
      return better(a.first, a.second, c.first, c.second, largest);
    };
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t o = t / inner, in = t % inner;
      const T* row = px + o * len * inner + in;
      if (inner > 1) {
        for (std::int64_t i = 0; i < len; ++i) column[static_cast<std::size_t>(i)] = row[i * inner];
        row = column.data();
      }
      heap.clear();
      for (std::int64_t i = 0; i < k; ++i) heap.emplace_back(row[i], i);
      std::make_heap(heap.begin(), heap.end(), worse_first);
      for (std::int64_t i = k; i < len; ++i) {
        const T v = row[i];
        const T w = heap.front().first;
        bool maybe = largest ? v > w : v < w;
        if constexpr (std::is_floating_point_v<T>) maybe = maybe || (largest ? v != v : w != w);
        if (!maybe || !better(v, i, w, heap.front().second, largest)) continue;
        std::pop_heap(heap.begin(), heap.end(), worse_first);
        heap.back() = Entry{v, i};
        std::push_heap(heap.begin(), heap.end(), worse_first);
      }
      std::sort_heap(heap.begin(), heap.end(), worse_first);
      for (std::int64_t r = 0; r < k; ++r) {
        const std::int64_t at = (o * k + r) * inner + in;
        pv[at] = heap[static_cast<std::size_t>(r)].first;
        pi[at] = heap[static_cast<std::size_t>(r)].second;
      }
    }
  });
}

// The key of an f32 in the high half of a 64-bit one that orders as `better` does: the
// bits made monotonic in the value (-0 as +0), NaN at the good end; `largest` false
// reverses it.
inline std::uint32_t f32_key(float v, bool largest) {
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  u = v == 0.0f ? 0x80000000u : ((u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u));
  u = largest ? u : ~u;
  return v != v ? (largest ? 0xffffffffu : 0u) : u;
}

// f32 rows: each value's key with its index reversed in the low half (the lower index wins
// a tie), so that the k best are the k largest 64-bit keys. The row is cut into at least k
// blocks (16 values, fewer on short rows): the k-th largest block maximum is a bar that
// the k best all reach (k distinct values reach it), so only the blocks whose maximum
// reaches it are read again, and only their values that reach it are sorted.
void top_k_f32(const TopKParams& p, const TensorView& x, const TensorView& values, const TensorView& indices) {
  const auto axis = static_cast<std::size_t>(p.axis);
  const std::int64_t outer = product(x.dims, 0, axis), len = x.dims[axis];
  const std::int64_t inner = product(x.dims, axis + 1, x.rank());
  const float* px = x.as<const float>();
  float* pv = values.as<float>();
  std::int64_t* pi = indices.as<std::int64_t>();
  const std::int64_t k = p.k;
  const bool largest = p.largest;
  const std::int64_t block = std::clamp<std::int64_t>(len / k, 1, 16), blocks = (len + block - 1) / block;
  parallel_for(outer * inner, grain_for(len * 4), [&](std::int64_t b, std::int64_t e) {
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(len)), maxima(static_cast<std::size_t>(blocks)),
        order(static_cast<std::size_t>(blocks));
    std::vector<std::uint64_t> found(static_cast<std::size_t>(len));
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t o = t / inner, in = t % inner;
      const float* row = px + o * len * inner + in;
      std::uint32_t* key = keys.data();
      if (inner == 1) {
        for (std::int64_t i = 0; i < len; ++i) key[i] = f32_key(row[i], largest);
      } else {
        for (std::int64_t i = 0; i < len; ++i) key[i] = f32_key(row[i * inner], largest);
      }
      for (std::int64_t c = 0; c < blocks; ++c) {
        const std::uint32_t* kb = key + c * block;
        std::uint32_t m = 0;
        if (block == 16 && c * 16 + 16 <= len) {
          for (int i = 0; i < 16; ++i) m = std::max(m, kb[i]);
        } else {
          for (std::int64_t i = 0; i < std::min(block, len - c * block); ++i) m = std::max(m, kb[i]);
        }
        maxima[static_cast<std::size_t>(c)] = m;
      }
      order = maxima;
      std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), std::greater<>());
      const std::uint32_t bar = order[static_cast<std::size_t>(k - 1)];
      std::size_t n = 0;
      for (std::int64_t c = 0; c < blocks; ++c) {
        if (maxima[static_cast<std::size_t>(c)] < bar) continue;
        for (std::int64_t i = c * block; i < std::min(len, c * block + block); ++i) {
          found[n] = (std::uint64_t{key[i]} << 32) | (0xffffffffu - static_cast<std::uint32_t>(i));
          n += key[i] >= bar ? 1 : 0;
        }
      }
      std::partial_sort(found.begin(), found.begin() + k, found.begin() + static_cast<std::ptrdiff_t>(n),
                        std::greater<>());  // best first
      for (std::int64_t r = 0; r < k; ++r) {
        const std::int64_t at = (o * k + r) * inner + in;
        const std::int64_t i = 0xffffffffu - static_cast<std::uint32_t>(found[static_cast<std::size_t>(r)]);
        pv[at] = row[i * inner];
        pi[at] = i;
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
    fail(Errc::bad_attribute, op, "axis " + std::to_string(p.axis) + " is outside X " + bracketed(x.dims));
  }
  const auto axis = static_cast<std::size_t>(p.axis);
  if (p.k < 0 || p.k > x.dims[axis]) {
    fail(Errc::bad_attribute, op,
         "k " + std::to_string(p.k) + " is outside [0, " + std::to_string(x.dims[axis]) + "] for X " +
             bracketed(x.dims));
  }
  std::vector<std::int64_t> out(x.dims.begin(), x.dims.end());
  out[axis] = p.k;
  check_dims(op, "Values", values, out);
  check_dims(op, "Indices", indices, out);
  if (values.elements() == 0) return;
  switch (x.dtype) {
    case DataType::f32:
      if (x.dims[axis] <= std::int64_t{0xffffffff}) return top_k_f32(p, x, values, indices);
      return top_k_typed<float>(p, x, values, indices);
    case DataType::i32: return top_k_typed<std::int32_t>(p, x, values, indices);
    case DataType::i64: return top_k_typed<std::int64_t>(p, x, values, indices);
    default:
      fail(Errc::unsupported, op,
           "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32, i32 or i64");
  }
}

}  // namespace ge::cpu
