// The reference interpreter's tensors: RefTensor, element access through double and
// int64, dims arithmetic, and the comparison of results (all_close).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "support/reference.hpp"
#include "support/reference/detail.hpp"

namespace ge::ref {

namespace detail {

namespace {

// Element access (any type, through double or int64).
template <class T>
T load(const RefTensor& t, std::int64_t i) {
  T v;
  std::memcpy(&v, t.bytes.data() + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

template <class T>
void store(RefTensor& t, std::int64_t i, T v) {
  std::memcpy(t.bytes.data() + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
}

[[noreturn]] void type_not_implemented(DataType t) {
  fail("element type " + std::string(to_string(t)) + " is not implemented");
}

}  // namespace

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("reference: " + what); }

std::int64_t product(const Dims& d, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < d.size() && i < to; ++i) p *= d[i];
  return p;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string number_text(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

bool is_floating(DataType t) {
  return t == DataType::f32 || t == DataType::f64 || t == DataType::f16 || t == DataType::bf16;
}

// Row-major strides of `d` (in elements).
Dims strides_of(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// For each element of a tensor of dims `out`, in row-major order, the flat index
// `base + sum(position[d] * strides[d])`. Transpose, Slice, broadcasting and the
// reductions are all this walk with suitable strides.
Dims strided_index(const Dims& out, const Dims& strides, std::int64_t base) {
  const std::int64_t n = product(out);
  Dims index(static_cast<std::size_t>(n));
  Dims pos(out.size(), 0);
  std::int64_t off = base;
  for (std::int64_t i = 0; i < n; ++i) {
    index[static_cast<std::size_t>(i)] = off;
    for (std::size_t d = out.size(); d-- > 0;) {
      off += strides[d];
      if (++pos[d] < out[d]) break;
      off -= strides[d] * out[d];
      pos[d] = 0;
    }
  }
  return index;
}

// Numpy broadcasting of two dims lists; nullopt when they do not broadcast.
std::optional<Dims> broadcast_dims(const Dims& a, const Dims& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// For each element of `out` (row-major), the flat index of the element of a tensor of
// dims `in` that broadcasts to it (`in` must broadcast to `out`).
Dims broadcast_index(const Dims& out, const Dims& in) {
  const Dims in_strides = strides_of(in);
  Dims st(out.size(), 0);
  const std::size_t shift = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i) st[i + shift] = in[i] == 1 ? 0 : in_strides[i];
  return strided_index(out, st);
}

// Calls f(T{}) with the C++ type that stores `type` (std::uint8_t for bool).
template <class F>
decltype(auto) visit_type(DataType type, F&& f) {
  switch (type) {
    case DataType::f32: return f(float{});
    case DataType::f64: return f(double{});
    case DataType::i8: return f(std::int8_t{});
    case DataType::i16: return f(std::int16_t{});
    case DataType::i32: return f(std::int32_t{});
    case DataType::i64: return f(std::int64_t{});
    case DataType::u8: return f(std::uint8_t{});
    case DataType::u16: return f(std::uint16_t{});
    case DataType::u32: return f(std::uint32_t{});
    case DataType::u64: return f(std::uint64_t{});
    case DataType::boolean: return f(std::uint8_t{});
    default: type_not_implemented(type);
  }
}

double get_f(const RefTensor& t, std::int64_t i) {
  if (t.dtype == DataType::boolean) return load<std::uint8_t>(t, i) != 0 ? 1.0 : 0.0;
  return visit_type(t.dtype, [&](auto z) { return static_cast<double>(load<decltype(z)>(t, i)); });
}

// A double as int64, truncated toward zero; fails for NaN, infinities, out of range.
std::int64_t to_int64(double v) {
  if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18))
    fail("the value " + number_text(v) + " does not fit an integer");
  return static_cast<std::int64_t>(v);
}

std::int64_t get_i(const RefTensor& t, std::int64_t i) {
  if (t.dtype == DataType::f32 || t.dtype == DataType::f64) return to_int64(get_f(t, i));
  if (t.dtype == DataType::boolean) return load<std::uint8_t>(t, i) != 0 ? 1 : 0;
  return visit_type(t.dtype, [&](auto z) { return static_cast<std::int64_t>(load<decltype(z)>(t, i)); });
}

// Stores v; integer types truncate toward zero, bool is v != 0.
void set_f(RefTensor& t, std::int64_t i, double v) {
  if (t.dtype == DataType::boolean) return store<std::uint8_t>(t, i, v != 0.0 ? 1 : 0);
  visit_type(t.dtype, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T>)
      store<T>(t, i, static_cast<T>(v));
    else
      store<T>(t, i, static_cast<T>(to_int64(v)));
  });
}

// Stores v; narrower integer types wrap, bool is v != 0.
void set_i(RefTensor& t, std::int64_t i, std::int64_t v) {
  if (t.dtype == DataType::boolean) return store<std::uint8_t>(t, i, v != 0 ? 1 : 0);
  visit_type(t.dtype, [&](auto z) { store<decltype(z)>(t, i, static_cast<decltype(z)>(v)); });
}

// dst = the elements of src at the given flat indices (any type: bytes are copied).
RefTensor gather_elements(const RefTensor& src, Dims out_dims, const Dims& index) {
  RefTensor out(src.dtype, std::move(out_dims));
  const auto es = static_cast<std::size_t>(size_of(src.dtype));
  for (std::size_t i = 0; i < index.size(); ++i)
    std::memcpy(out.bytes.data() + i * es, src.bytes.data() + static_cast<std::size_t>(index[i]) * es, es);
  return out;
}

// The same elements with other dims.
RefTensor with_dims(const RefTensor& x, Dims dims) {
  RefTensor y = x;
  y.dims = std::move(dims);
  return y;
}

}  // namespace detail

using namespace detail;

// ---- RefTensor ------------------------------------------------------------------------

// ---- RefTensor ------------------------------------------------------------------------

RefTensor::RefTensor(DataType type, std::vector<std::int64_t> d) : dtype(type), dims(std::move(d)) {
  if (type == DataType::undefined) fail("a tensor of type 'undefined'");
  for (std::int64_t v : dims)
    if (v < 0) fail("a tensor of dims " + dims_text(dims) + " (a negative dim)");
  bytes.assign(static_cast<std::size_t>(elements() * size_of(type)), std::byte{0});
}

RefTensor RefTensor::random(DataType type, std::vector<std::int64_t> d, std::uint64_t seed, double lo, double hi) {
  return from(Tensor::random(type, std::move(d), seed, lo, hi));
}

RefTensor RefTensor::from(const Tensor& t) {
  RefTensor r;
  r.dtype = t.dtype();
  r.dims = t.dims();
  r.bytes.assign(t.bytes().begin(), t.bytes().end());
  return r;
}

Tensor RefTensor::to_tensor() const { return Tensor(dtype, dims, bytes); }

std::int64_t RefTensor::elements() const noexcept { return product(dims); }

std::vector<double> RefTensor::to_doubles() const {
  std::vector<double> v(static_cast<std::size_t>(elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = get_f(*this, static_cast<std::int64_t>(i));
  return v;
}

std::vector<std::int64_t> RefTensor::to_int64s() const {
  std::vector<std::int64_t> v(static_cast<std::size_t>(elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = get_i(*this, static_cast<std::int64_t>(i));
  return v;
}

std::string RefTensor::describe() const { return std::string(to_string(dtype)) + dims_text(dims); }

void RefTensor::check_view(DataType want, std::size_t elem_size) const {
  if (want != dtype) fail("a " + describe() + " tensor read as " + std::string(to_string(want)));
  if (bytes.size() != static_cast<std::size_t>(elements()) * elem_size)
    fail("a " + describe() + " tensor holds " + std::to_string(bytes.size()) + " bytes");
}

// ---- comparison -----------------------------------------------------------------------

namespace {

std::string index_text(const Dims& dims, std::int64_t flat) {
  Dims pos(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    pos[d] = dims[d] == 0 ? 0 : flat % dims[d];
    flat = dims[d] == 0 ? 0 : flat / dims[d];
  }
  return dims_text(pos);
}

// Compares `expected` with the doubles `actual(i)`.
template <class Get>
bool compare(const RefTensor& expected, Get actual, double rtol, double atol, std::string* why) {
  const bool exact = !is_floating(expected.dtype);
  const std::int64_t n = expected.elements();
  std::int64_t bad = 0, first = -1, worst = -1;
  double worst_diff = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double e = get_f(expected, i), a = actual(i);
    bool ok = false;
    double diff = std::fabs(e - a);
    if (exact) {
      ok = e == a;
    } else if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
      diff = ok ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
      diff = ok ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      ok = diff <= atol + rtol * std::fabs(e);
    }
    if (worst < 0 || diff > worst_diff) {
      worst_diff = diff;
      worst = i;
    }
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return true;
  if (why != nullptr) {
    const double e = get_f(expected, first), a = actual(first);
    *why = std::to_string(bad) + " of " + std::to_string(n) + " elements of " + expected.describe() +
           " differ; the first at " + index_text(expected.dims, first) + ": expected " + number_text(e) + ", got " +
           number_text(a) + " (|diff| " + number_text(std::fabs(e - a)) + ", tolerance " +
           number_text(exact ? 0.0 : atol + rtol * std::fabs(e)) + "); the largest |diff| is " +
           number_text(worst_diff) + " at " + index_text(expected.dims, worst);
  }
  return false;
}

}  // namespace

bool all_close(const RefTensor& expected, const float* actual, std::int64_t count, double rtol, double atol,
               std::string* why) {
  if (count != expected.elements()) {
    if (why != nullptr)
      *why = "expected " + expected.describe() + " (" + std::to_string(expected.elements()) + " elements), got " +
             std::to_string(count) + " elements";
    return false;
  }
  return compare(
      expected, [actual](std::int64_t i) { return static_cast<double>(actual[i]); }, rtol, atol, why);
}

bool all_close(const RefTensor& expected, const RefTensor& actual, double rtol, double atol, std::string* why) {
  if (expected.dtype != actual.dtype || expected.dims != actual.dims) {
    if (why != nullptr) *why = "expected " + expected.describe() + ", got " + actual.describe();
    return false;
  }
  return compare(
      expected, [&actual](std::int64_t i) { return get_f(actual, i); }, rtol, atol, why);
}

double max_abs_diff(const RefTensor& expected, const RefTensor& actual) {
  if (expected.elements() != actual.elements())
    fail("max_abs_diff of " + expected.describe() + " and " + actual.describe());
  double m = 0;
  for (std::int64_t i = 0; i < expected.elements(); ++i)
    m = std::max(m, std::fabs(get_f(expected, i) - get_f(actual, i)));
  return m;
}

}  // namespace ge::ref
