// Pad: a copy through per-axis index maps (-1 for "the constant"), which nearest Resize
// (resize.cpp) uses too.
#include "kernels/cpu/movement/data_movement.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {

namespace {

template <class T>
void mapped_copy_typed(const TensorView& x, const TensorView& y, const std::vector<std::vector<std::int64_t>>& maps,
                       T value) {
  const std::size_t rank = x.rank();
  const SmallDims xs = strides_of(x.dims);
  const std::int64_t inner = rank == 0 ? 1 : y.dims[rank - 1];
  const std::int64_t rows = rank == 0 ? 1 : product(y.dims, 0, rank - 1);
  const T* px = x.as<const T>();
  T* py = y.as<T>();
  if (rank == 0) {
    py[0] = px[0];
    return;
  }
  const std::vector<std::int64_t>& last = maps[rank - 1];
  parallel_for(rows, grain_for(inner), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      std::int64_t rem = r;
      std::int64_t base = 0;
      bool constant = false;
      for (std::size_t d = rank - 1; d-- > 0;) {
        const std::int64_t i = rem % y.dims[d];
        rem /= y.dims[d];
        const std::int64_t m = maps[d][static_cast<std::size_t>(i)];
        if (m < 0) constant = true;
        base += m * xs[d];
      }
      T* out = py + r * inner;
      if (constant) {
        std::fill(out, out + inner, value);
        continue;
      }
      const T* in = px + base;
      for (std::int64_t j = 0; j < inner; ++j) {
        const std::int64_t m = last[static_cast<std::size_t>(j)];
        out[j] = m < 0 ? value : in[m];
      }
    }
  });
}

}  // namespace

void mapped_copy(const TensorView& x, const TensorView& y, const std::vector<std::vector<std::int64_t>>& maps,
                 double value) {
  if (y.elements() == 0) return;
  with_type(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    using N = decltype(native(T{}));
    const T v = convert<T>(convert<N>(value));
    mapped_copy_typed<T>(x, y, maps, v);
  });
}

void pad(const PadParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Pad";
  same_type(op, "X", x, "Y", y);
  check_data(op, "X", x);
  if (p.begin.size() != x.rank() || p.end.size() != x.rank()) {
    fail(Errc::bad_attribute, op, "pads need a begin and an end per axis of X " + bracketed(x.dims));
  }
  std::vector<std::int64_t> out(x.rank());
  for (std::size_t i = 0; i < x.rank(); ++i) out[i] = x.dims[i] + p.begin[i] + p.end[i];
  for (const std::int64_t d : out) {
    if (d < 0) fail(Errc::bad_op_inputs, op, "pads crop X " + bracketed(x.dims) + " below zero");
  }
  check_dims(op, "Y", y, out);
  std::vector<std::vector<std::int64_t>> maps(x.rank());
  for (std::size_t i = 0; i < x.rank(); ++i) {
    const std::int64_t n = x.dims[i];
    auto& m = maps[i];
    m.resize(static_cast<std::size_t>(out[i]));
    if (n == 0 && out[i] > 0 && p.mode != PadMode::constant) {
      fail(Errc::bad_op_inputs, op, "edge and reflect pads need a non-empty axis; X is " + bracketed(x.dims));
    }
    for (std::int64_t j = 0; j < out[i]; ++j) {
      std::int64_t s = j - p.begin[i];
      switch (p.mode) {
        case PadMode::constant: s = s >= 0 && s < n ? s : -1; break;
        case PadMode::edge: s = std::clamp<std::int64_t>(s, 0, n - 1); break;
        case PadMode::reflect:
          if (n == 1) {
            s = 0;
          } else {
            const std::int64_t period = 2 * (n - 1);
            s %= period;
            if (s < 0) s += period;
            if (s >= n) s = period - s;
          }
          break;
      }
      m[static_cast<std::size_t>(j)] = s;
    }
  }
  mapped_copy(x, y, maps, p.value);
}

}  // namespace ge::cpu
