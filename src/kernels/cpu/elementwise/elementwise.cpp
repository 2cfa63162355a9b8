#include "kernels/cpu/elementwise/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>


namespace ge::cpu {
namespace {

std::string_view binary_name(BinaryOp op) {
  constexpr std::string_view names[] = {"Add",     "Sub",          "Mul",  "Div", "Pow", "Equal",    "Less",
                                        "Greater", "LessOrEqual",  "GreaterOrEqual", "And", "Or", "Xor",
                                        "BitShift", "BitShift", "PRelu"};
  static_assert(std::size(names) == static_cast<std::size_t>(BinaryOp::prelu) + 1);
  return names[static_cast<std::size_t>(op)];
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::equal || op == BinaryOp::less || op == BinaryOp::greater || op == BinaryOp::less_equal ||
         op == BinaryOp::greater_equal;
}
bool is_logical(BinaryOp op) {
  return op == BinaryOp::logical_and || op == BinaryOp::logical_or || op == BinaryOp::logical_xor;
}

// Checks that `out` is exactly the numpy broadcast of `ins`.
void check_broadcast_out(std::string_view op, std::initializer_list<const TensorView*> ins, const TensorView& out) {
  std::size_t rank = 0;
  for (const TensorView* t : ins) rank = std::max(rank, t->rank());
  SmallDims dims(rank, 1);
  for (const TensorView* t : ins) {
    const std::size_t lead = rank - t->rank();
    for (std::size_t i = 0; i < t->rank(); ++i) {
      const std::int64_t d = t->dims[i];
      std::int64_t& o = dims[lead + i];
      if (o == 1) {
        o = d;
      } else if (d != 1 && d != o) {
        std::string what = "input dims";
        for (const TensorView* u : ins) what += " " + bracketed(u->dims);
        fail(Errc::incompatible_shapes, op, what + " do not broadcast together");
      }
    }
  }
  check_dims(op, "output", out, dims);
}

// Runs `row(offsets, inner_begin, len, inner_strides)` over the collapsed broadcast of the
// operands, splitting rows and long inner runs across threads.
template <class Row>
void broadcast_loop(const Collapsed& c, Row&& row) {
  const std::int64_t rows = row_count(c);
  const std::int64_t inner = c.dims.back();
  constexpr std::int64_t kChunk = 1 << 14;
  const std::int64_t chunks = (inner + kChunk - 1) / kChunk;
  const std::int64_t per_task = std::min(inner, kChunk);
  parallel_for(rows * chunks, grain_for(per_task + 16), [&](std::int64_t tb, std::int64_t te) {
    if (chunks == 1) {  // whole rows: one walk over the task's rows (a per-row start divides per dim)
      for_rows(c, tb, te, [&](const std::int64_t* off, std::int64_t n) { row(off, 0, n); });
      return;
    }
    for (std::int64_t t = tb; t < te;) {
      const std::int64_t r = t / chunks;
      const std::int64_t ci0 = t % chunks;
      const std::int64_t ci1 = std::min(chunks, ci0 + (te - t));
      for_rows(c, r, r + 1, [&](const std::int64_t* off, std::int64_t n) {
        for (std::int64_t ci = ci0; ci < ci1; ++ci) {
          const std::int64_t lo = ci * kChunk;
          row(off, lo, std::min(kChunk, n - lo));
        }
      });
      t += ci1 - ci0;
    }
  });
}

// y[i] = f(a[i*sa], b[i*sb]) for sa, sb in {0, 1}, each case a vectorisable loop.
template <class TA, class TY, class F>
inline void binary_run(TY* __restrict y, const TA* __restrict a, const TA* __restrict b, std::int64_t n,
                       std::int64_t sa, std::int64_t sb, F f) {
  if (sa == 1 && sb == 1) {
    for_lanes(n, [&](std::int64_t i) { y[i] = f(a[i], b[i]); });
  } else if (sa == 1) {
    const TA bv = b[0];
    for_lanes(n, [&](std::int64_t i) { y[i] = f(a[i], bv); });
  } else if (sb == 1) {
    const TA av = a[0];
    for_lanes(n, [&](std::int64_t i) { y[i] = f(av, b[i]); });
  } else {
    const TY v = f(a[0], b[0]);
    for_lanes(n, [&](std::int64_t i) { y[i] = v; });
  }
}

// Small tensors of equal dims (or one side a single element): one loop, no allocation.
// Tiny ops are all overhead, and this keeps it to a few nanoseconds.
constexpr std::int64_t kSmallElements = 4096;

bool same_dims(const TensorView& a, const TensorView& b) noexcept {
  if (a.dims.size() != b.dims.size()) return false;
  for (std::size_t i = 0; i < a.dims.size(); ++i)  // a loop: a memcmp call costs more at these sizes
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

// 1 when `t` has `y`'s dims, 0 when it is one element of no higher rank, -1 otherwise.
int small_stride(const TensorView& t, const TensorView& y) noexcept {
  if (same_dims(t, y)) return 1;
  return t.rank() <= y.rank() && t.elements() == 1 ? 0 : -1;
}

bool small_case(const TensorView& a, const TensorView& b, const TensorView& y) noexcept {
  if (y.elements() > kSmallElements) return false;
  const int sa = small_stride(a, y), sb = small_stride(b, y);
  return sa >= 0 && sb >= 0 && (sa == 1 || sb == 1 || y.elements() == 1);
}

// One operand a row of n values repeated along the dim before (a per-channel operand of a
// channels-last image: a squeeze-and-excitation gate [N, 1, 1, C] times [N, H, W, C]), the
// other and Y contiguous there: runs of rows against that row repeated into a buffer of up
// to kRunFloats, one loop per run (row by row, the walk cost more than a 32-channel row:
// EfficientNet's 112x112x32 gate 2.4x ORT's time). False where the pattern does not hold.
constexpr std::int64_t kRunFloats = 1024;

template <class TA, class TY, class F>
bool repeated_rows(const Collapsed& c, const TA* pa, const TA* pb, TY* py, F f) {
  const std::size_t r = c.dims.size();
  if (r < 2) return false;
  const std::int64_t n = c.dims[r - 1], rows = c.dims[r - 2];
  if (n > kRunFloats / 4 || rows < 4) return false;
  const SmallDims &sa = c.strides[1], &sb = c.strides[2];
  const bool b_repeats = sa[r - 1] == 1 && sa[r - 2] == n && sb[r - 1] == 1 && sb[r - 2] == 0;
  const bool a_repeats = sb[r - 1] == 1 && sb[r - 2] == n && sa[r - 1] == 1 && sa[r - 2] == 0;
  if (!b_repeats && !a_repeats) return false;
  Collapsed outer = c;  // the dims before the repeated row's
  outer.dims.pop_back();
  for (std::size_t k = 0; k < outer.operands; ++k) outer.strides[k].pop_back();
  const std::int64_t per_run = kRunFloats / n;  // rows a run takes
  const std::int64_t runs_per_outer = (rows + per_run - 1) / per_run;
  parallel_for(row_count(outer) * runs_per_outer, grain_for(per_run * n + 64), [&](std::int64_t tb, std::int64_t te) {
    TA rep[kRunFloats];
    const TA* last = nullptr;  // the row `rep` repeats
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t o = t / runs_per_outer, i0 = t % runs_per_outer * per_run;
      const std::int64_t count = std::min(per_run, rows - i0);
      for_rows(outer, o, o + 1, [&](const std::int64_t* off, std::int64_t) {
        const TA* row = b_repeats ? pb + off[2] : pa + off[1];
        if (row != last) {
          for (std::int64_t j = 0; j < per_run; ++j) std::copy(row, row + n, rep + j * n);
          last = row;
        }
        const std::int64_t at = i0 * n;
        if (b_repeats)
          binary_run<TA, TY>(py + off[0] + at, pa + off[1] + at, rep, count * n, 1, 1, f);
        else
          binary_run<TA, TY>(py + off[0] + at, rep, pb + off[2] + at, count * n, 1, 1, f);
      });
    }
  });
  return true;
}

template <class TA, class TY, class F>
void binary_typed(const TensorView& a, const TensorView& b, const TensorView& y, F f) {
  if (small_case(a, b, y)) {
    binary_run<TA, TY>(y.as<TY>(), a.as<const TA>(), b.as<const TA>(), y.elements(), small_stride(a, y),
                       small_stride(b, y), f);
    return;
  }
  const Collapsed c = collapse(y.dims, {strides_of(y.dims), broadcast_strides("Binary", "A", a.dims, y.dims),
                                        broadcast_strides("Binary", "B", b.dims, y.dims)});
  const std::int64_t sa = c.strides[1].back(), sb = c.strides[2].back();
  const TA* pa = a.as<const TA>();
  const TA* pb = b.as<const TA>();
  TY* py = y.as<TY>();
  if (repeated_rows<TA, TY>(c, pa, pb, py, f)) return;
  broadcast_loop(c, [&](const std::int64_t* off, std::int64_t lo, std::int64_t len) {
    binary_run<TA, TY>(py + off[0] + lo, pa + off[1] + lo * sa, pb + off[2] + lo * sb, len, sa, sb, f);
  });
}

template <class T>
T int_div(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return static_cast<T>(U{0} - static_cast<U>(a));  // no overflow on MIN / -1
  return static_cast<T>(a / b);
}

// Wrapping arithmetic in an unsigned type at least as wide as unsigned int (u16 * u16
// in int would overflow).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T>
T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
}
template <class T>
T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) - static_cast<Wide<T>>(b));
}
template <class T>
T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
}

template <class T>
void arith_int(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  switch (op) {
    case BinaryOp::add: return binary_typed<T, T>(a, b, y, [](T u, T v) { return wrap_add(u, v); });
    case BinaryOp::sub: return binary_typed<T, T>(a, b, y, [](T u, T v) { return wrap_sub(u, v); });
    case BinaryOp::mul: return binary_typed<T, T>(a, b, y, [](T u, T v) { return wrap_mul(u, v); });
    case BinaryOp::div: {
      const T* pb = b.as<const T>();
      const std::int64_t nb = b.elements();
      if (std::find(pb, pb + nb, T{0}) != pb + nb) {
        fail(Errc::invalid_argument, "Div", "integer division by zero: B " + bracketed(b.dims) + " holds a 0");
      }
      // The loop above proved every divisor non-zero; the scalar loop avoids the
      // vectoriser's lack of integer division.
      const Collapsed c = collapse(y.dims, {strides_of(y.dims), broadcast_strides("Div", "A", a.dims, y.dims),
                                            broadcast_strides("Div", "B", b.dims, y.dims)});
      const std::int64_t sa = c.strides[1].back(), sbb = c.strides[2].back();
      const T* pa = a.as<const T>();
      T* py = y.as<T>();
      broadcast_loop(c, [&](const std::int64_t* off, std::int64_t lo, std::int64_t len) {
        for (std::int64_t i = lo; i < lo + len; ++i) py[off[0] + i] = int_div(pa[off[1] + i * sa], pb[off[2] + i * sbb]);
      });
      return;
    }
    case BinaryOp::shift_left:
    case BinaryOp::shift_right:
      if constexpr (std::is_unsigned_v<T>) {
        constexpr T bits = static_cast<T>(sizeof(T) * 8);
        if (op == BinaryOp::shift_left)
          return binary_typed<T, T>(a, b, y, [](T u, T v) { return v >= bits ? T{0} : static_cast<T>(u << v); });
        return binary_typed<T, T>(a, b, y, [](T u, T v) { return v >= bits ? T{0} : static_cast<T>(u >> v); });
      }
      break;
    default: break;
  }
  fail(Errc::unsupported, binary_name(op), "type '" + std::string(to_string(a.dtype)) + "' is not supported");
}

template <class T>
void arith_float(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  switch (op) {
    case BinaryOp::add: return binary_typed<T, T>(a, b, y, [](T u, T v) { return u + v; });
    case BinaryOp::sub: return binary_typed<T, T>(a, b, y, [](T u, T v) { return u - v; });
    case BinaryOp::mul: return binary_typed<T, T>(a, b, y, [](T u, T v) { return u * v; });
    case BinaryOp::div: return binary_typed<T, T>(a, b, y, [](T u, T v) { return u / v; });
    case BinaryOp::pow: return binary_typed<T, T>(a, b, y, [](T u, T v) { return std::pow(u, v); });
    case BinaryOp::prelu: return binary_typed<T, T>(a, b, y, [](T u, T v) { return u < T(0) ? v * u : u; });
    default:
      fail(Errc::unsupported, binary_name(op), "type '" + std::string(to_string(a.dtype)) + "' is not supported");
  }
}

template <class T>
void compare(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  using B = std::uint8_t;
  switch (op) {
    case BinaryOp::equal: return binary_typed<T, B>(a, b, y, [](T u, T v) { return static_cast<B>(u == v); });
    case BinaryOp::less: return binary_typed<T, B>(a, b, y, [](T u, T v) { return static_cast<B>(u < v); });
    case BinaryOp::greater: return binary_typed<T, B>(a, b, y, [](T u, T v) { return static_cast<B>(u > v); });
    case BinaryOp::less_equal: return binary_typed<T, B>(a, b, y, [](T u, T v) { return static_cast<B>(u <= v); });
    case BinaryOp::greater_equal:
      return binary_typed<T, B>(a, b, y, [](T u, T v) { return static_cast<B>(u >= v); });
    default: break;
  }
}

void logical(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  using B = std::uint8_t;
  switch (op) {
    case BinaryOp::logical_and:
      return binary_typed<B, B>(a, b, y, [](B u, B v) { return static_cast<B>((u != 0) & (v != 0)); });
    case BinaryOp::logical_or:
      return binary_typed<B, B>(a, b, y, [](B u, B v) { return static_cast<B>((u != 0) | (v != 0)); });
    default: return binary_typed<B, B>(a, b, y, [](B u, B v) { return static_cast<B>((u != 0) != (v != 0)); });
  }
}

}  // namespace

void binary(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  const std::string_view name = binary_name(op);
  if (a.dtype != b.dtype) {
    fail(Errc::type_mismatch, name,
         "A is '" + std::string(to_string(a.dtype)) + "' but B is '" + std::string(to_string(b.dtype)) + "'");
  }
  if (is_logical(op) && a.dtype != DataType::boolean)
    fail(Errc::unsupported, name, "type '" + std::string(to_string(a.dtype)) + "' is not supported; expected bool");
  const bool cmp = is_comparison(op);
  check_dtype(name, "Y", y, cmp ? DataType::boolean : a.dtype);
  check_data(name, "A", a);
  check_data(name, "B", b);
  if (!small_case(a, b, y)) check_broadcast_out(name, {&a, &b}, y);
  if (y.elements() == 0) return;
  if (is_logical(op)) return logical(op, a, b, y);
  if (cmp) {
    switch (a.dtype) {
      case DataType::f32: return compare<float>(op, a, b, y);
      case DataType::f64: return compare<double>(op, a, b, y);
      case DataType::i32: return compare<std::int32_t>(op, a, b, y);
      case DataType::i64: return compare<std::int64_t>(op, a, b, y);
      case DataType::boolean:
        if (op == BinaryOp::equal) return compare<std::uint8_t>(op, a, b, y);
        break;
      default: break;
    }
    fail(Errc::unsupported, name,
         "type '" + std::string(to_string(a.dtype)) + "' is not supported; expected f32, f64, i32 or i64");
  }
  switch (a.dtype) {
    case DataType::f32: return arith_float<float>(op, a, b, y);
    case DataType::f64: return arith_float<double>(op, a, b, y);
    case DataType::i32: return arith_int<std::int32_t>(op, a, b, y);
    case DataType::i64: return arith_int<std::int64_t>(op, a, b, y);
    case DataType::u8: return arith_int<std::uint8_t>(op, a, b, y);
    case DataType::u16: return arith_int<std::uint16_t>(op, a, b, y);
    case DataType::u32: return arith_int<std::uint32_t>(op, a, b, y);
    case DataType::u64: return arith_int<std::uint64_t>(op, a, b, y);
    default:
      fail(Errc::unsupported, name,
           "type '" + std::string(to_string(a.dtype)) + "' is not supported; expected f32, f64 or an integer type");
  }
}

namespace {

// x^e for integers: exact by squaring, wrapping in the unsigned type.
template <class T, class E>
T int_power(T x, E e) {
  if constexpr (std::is_signed_v<E>) {
    if (e < 0) {
      if (x == 1) return T{1};
      if constexpr (std::is_signed_v<T>)
        if (x == -1) return (e % 2 == 0) ? T{1} : T{-1};
      return T{0};
    }
  }
  using W = Wide<T>;
  W base = static_cast<W>(x), r = 1;
  for (auto k = static_cast<std::make_unsigned_t<E>>(e); k != 0; k >>= 1) {
    if (k & 1) r = static_cast<W>(r * base);
    base = static_cast<W>(base * base);
  }
  return static_cast<T>(r);
}

template <class T, class E>
T power(T x, E e) {
  if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) {
    return int_power(x, e);
  } else {
    const double v = std::pow(static_cast<double>(x), static_cast<double>(e));
    if constexpr (std::is_integral_v<T>) {
      // Truncation toward zero where T holds it; 0 for NaN and out of range.
      if (!(v > static_cast<double>(std::numeric_limits<T>::lowest()) - 1.0 &&
            v < static_cast<double>(std::numeric_limits<T>::max())))
        return T{0};
    }
    return static_cast<T>(v);
  }
}

template <class T, class E>
void pow_typed(const TensorView& x, const TensorView& y, const TensorView& z) {
  const Collapsed c = collapse(z.dims, {strides_of(z.dims), broadcast_strides("Pow", "X", x.dims, z.dims),
                                        broadcast_strides("Pow", "Y", y.dims, z.dims)});
  const std::int64_t sx = c.strides[1].back(), sy = c.strides[2].back();
  const T* px = x.as<const T>();
  const E* py = y.as<const E>();
  T* pz = z.as<T>();
  broadcast_loop(c, [&](const std::int64_t* off, std::int64_t lo, std::int64_t len) {
    for (std::int64_t i = lo; i < lo + len; ++i) pz[off[0] + i] = power(px[off[1] + i * sx], py[off[2] + i * sy]);
  });
}

// Calls f(T{}) for the C++ type of a Pow operand; unsupported for other types.
template <class F>
void with_pow_type(DataType t, bool exponent, F&& f) {
  switch (t) {
    case DataType::f32: return f(float{});
    case DataType::f64: return f(double{});
    case DataType::i32: return f(std::int32_t{});
    case DataType::i64: return f(std::int64_t{});
    case DataType::u32:
      if (exponent) return f(std::uint32_t{});
      break;
    case DataType::u64:
      if (exponent) return f(std::uint64_t{});
      break;
    default: break;
  }
  fail(Errc::unsupported, "Pow", std::string(exponent ? "Y" : "X") + " of type '" + std::string(to_string(t)) +
                                     "' is not supported; expected f32, f64, i32 or i64" +
                                     (exponent ? " (or u32, u64)" : ""));
}

}  // namespace

void pow_mixed(const TensorView& x, const TensorView& y, const TensorView& z) {
  check_dtype("Pow", "Z", z, x.dtype);
  check_data("Pow", "X", x);
  check_data("Pow", "Y", y);
  check_broadcast_out("Pow", {&x, &y}, z);
  with_pow_type(x.dtype, false, [&](auto tx) {
    with_pow_type(y.dtype, true, [&](auto ty) {
      if (z.elements() > 0) pow_typed<decltype(tx), decltype(ty)>(x, y, z);
    });
  });
}

namespace {

template <class T>
void where_typed(const TensorView& cond, const TensorView& x, const TensorView& y, const TensorView& out) {
  const Collapsed c =
      collapse(out.dims, {strides_of(out.dims), broadcast_strides("Where", "condition", cond.dims, out.dims),
                          broadcast_strides("Where", "X", x.dims, out.dims),
                          broadcast_strides("Where", "Y", y.dims, out.dims)});
  const std::int64_t sc = c.strides[1].back(), sx = c.strides[2].back(), sy = c.strides[3].back();
  const std::uint8_t* pc = cond.as<const std::uint8_t>();
  const T* px = x.as<const T>();
  const T* py = y.as<const T>();
  T* po = out.as<T>();
  broadcast_loop(c, [&](const std::int64_t* off, std::int64_t lo, std::int64_t len) {
    const std::uint8_t* __restrict cc = pc + off[1] + lo * sc;
    const T* __restrict xx = px + off[2] + lo * sx;
    const T* __restrict yy = py + off[3] + lo * sy;
    T* __restrict oo = po + off[0] + lo;
    if (sc == 1 && sx == 1 && sy == 1) {
      for_lanes(len, [&](std::int64_t i) { oo[i] = cc[i] != 0 ? xx[i] : yy[i]; });
    } else {
      for (std::int64_t i = 0; i < len; ++i) oo[i] = cc[i * sc] != 0 ? xx[i * sx] : yy[i * sy];
    }
  });
}

}  // namespace

void where(const TensorView& cond, const TensorView& x, const TensorView& y, const TensorView& out) {
  check_dtype("Where", "condition", cond, DataType::boolean);
  if (x.dtype != y.dtype) {
    fail(Errc::type_mismatch, "Where",
         "X is '" + std::string(to_string(x.dtype)) + "' but Y is '" + std::string(to_string(y.dtype)) + "'");
  }
  check_dtype("Where", "output", out, x.dtype);
  check_data("Where", "condition", cond);
  check_data("Where", "X", x);
  check_data("Where", "Y", y);
  check_broadcast_out("Where", {&cond, &x, &y}, out);
  if (out.elements() == 0) return;
  switch (size_of(x.dtype)) {
    case 1: return where_typed<std::uint8_t>(cond, x, y, out);
    case 2: return where_typed<std::uint16_t>(cond, x, y, out);
    case 4: return where_typed<std::uint32_t>(cond, x, y, out);
    case 8: return where_typed<std::uint64_t>(cond, x, y, out);
    default: fail(Errc::unsupported, "Where", "type 'undefined' is not supported");
  }
}

}  // namespace ge::cpu
