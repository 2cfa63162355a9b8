// The reference interpreter of runtime/reference.hpp (plain loops, ONNX semantics) and
// its tests: each op against small hand-computed values, and a ResNet-50 run.
#include "runtime/reference.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/graph/builder.hpp"

namespace ge::ref {

namespace {

using Dims = std::vector<std::int64_t>;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("reference: " + what); }

std::int64_t product(const Dims& d, std::size_t from = 0, std::size_t to = static_cast<std::size_t>(-1)) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < d.size() && i < to; ++i) p *= d[i];
  return p;
}

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
Dims strided_index(const Dims& out, const Dims& strides, std::int64_t base = 0) {
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

// ---- element access (any type, through double or int64) -------------------------------

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

double get_f(const RefTensor& t, std::int64_t i) {
  switch (t.dtype) {
    case DataType::f32: return load<float>(t, i);
    case DataType::f64: return load<double>(t, i);
    case DataType::i8: return load<std::int8_t>(t, i);
    case DataType::i16: return load<std::int16_t>(t, i);
    case DataType::i32: return load<std::int32_t>(t, i);
    case DataType::i64: return static_cast<double>(load<std::int64_t>(t, i));
    case DataType::u8: return load<std::uint8_t>(t, i);
    case DataType::u16: return load<std::uint16_t>(t, i);
    case DataType::u32: return load<std::uint32_t>(t, i);
    case DataType::u64: return static_cast<double>(load<std::uint64_t>(t, i));
    case DataType::boolean: return load<std::uint8_t>(t, i) != 0 ? 1.0 : 0.0;
    default: type_not_implemented(t.dtype);
  }
}

// A double as int64, truncated toward zero; fails for NaN, infinities, out of range.
std::int64_t to_int64(double v) {
  if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18))
    fail("the value " + number_text(v) + " does not fit an integer");
  return static_cast<std::int64_t>(v);
}

std::int64_t get_i(const RefTensor& t, std::int64_t i) {
  switch (t.dtype) {
    case DataType::i8: return load<std::int8_t>(t, i);
    case DataType::i16: return load<std::int16_t>(t, i);
    case DataType::i32: return load<std::int32_t>(t, i);
    case DataType::i64: return load<std::int64_t>(t, i);
    case DataType::u8: return load<std::uint8_t>(t, i);
    case DataType::u16: return load<std::uint16_t>(t, i);
    case DataType::u32: return load<std::uint32_t>(t, i);
    case DataType::u64: return static_cast<std::int64_t>(load<std::uint64_t>(t, i));
    case DataType::boolean: return load<std::uint8_t>(t, i) != 0 ? 1 : 0;
    case DataType::f32:
    case DataType::f64: return to_int64(get_f(t, i));
    default: type_not_implemented(t.dtype);
  }
}

// Stores v; integer types truncate toward zero, bool is v != 0.
void set_f(RefTensor& t, std::int64_t i, double v) {
  switch (t.dtype) {
    case DataType::f32: return store<float>(t, i, static_cast<float>(v));
    case DataType::f64: return store<double>(t, i, v);
    case DataType::boolean: return store<std::uint8_t>(t, i, v != 0.0 ? 1 : 0);
    case DataType::i8: return store<std::int8_t>(t, i, static_cast<std::int8_t>(to_int64(v)));
    case DataType::i16: return store<std::int16_t>(t, i, static_cast<std::int16_t>(to_int64(v)));
    case DataType::i32: return store<std::int32_t>(t, i, static_cast<std::int32_t>(to_int64(v)));
    case DataType::i64: return store<std::int64_t>(t, i, to_int64(v));
    case DataType::u8: return store<std::uint8_t>(t, i, static_cast<std::uint8_t>(to_int64(v)));
    case DataType::u16: return store<std::uint16_t>(t, i, static_cast<std::uint16_t>(to_int64(v)));
    case DataType::u32: return store<std::uint32_t>(t, i, static_cast<std::uint32_t>(to_int64(v)));
    case DataType::u64: return store<std::uint64_t>(t, i, static_cast<std::uint64_t>(to_int64(v)));
    default: type_not_implemented(t.dtype);
  }
}

// Stores v; narrower integer types wrap, bool is v != 0.
void set_i(RefTensor& t, std::int64_t i, std::int64_t v) {
  switch (t.dtype) {
    case DataType::f32: return store<float>(t, i, static_cast<float>(v));
    case DataType::f64: return store<double>(t, i, static_cast<double>(v));
    case DataType::boolean: return store<std::uint8_t>(t, i, v != 0 ? 1 : 0);
    case DataType::i8: return store<std::int8_t>(t, i, static_cast<std::int8_t>(v));
    case DataType::i16: return store<std::int16_t>(t, i, static_cast<std::int16_t>(v));
    case DataType::i32: return store<std::int32_t>(t, i, static_cast<std::int32_t>(v));
    case DataType::i64: return store<std::int64_t>(t, i, v);
    case DataType::u8: return store<std::uint8_t>(t, i, static_cast<std::uint8_t>(v));
    case DataType::u16: return store<std::uint16_t>(t, i, static_cast<std::uint16_t>(v));
    case DataType::u32: return store<std::uint32_t>(t, i, static_cast<std::uint32_t>(v));
    case DataType::u64: return store<std::uint64_t>(t, i, static_cast<std::uint64_t>(v));
    default: type_not_implemented(t.dtype);
  }
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

}  // namespace

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

// ---- the ops --------------------------------------------------------------------------

namespace {

// What an op sees: the node, its inputs (null for omitted ones), attribute readers that
// fall back to the ONNX default.
class Ctx {
 public:
  Ctx(const Node& n, std::vector<const RefTensor*> in) : node(n), in_(std::move(in)) {}

  const Node& node;

  [[nodiscard]] std::size_t input_count() const { return in_.size(); }
  [[nodiscard]] bool has_input(std::size_t k) const { return k < in_.size() && in_[k] != nullptr; }
  [[nodiscard]] const RefTensor& in(std::size_t k) const {
    if (!has_input(k)) error("input " + std::to_string(k) + " is missing");
    return *in_[k];
  }

  [[nodiscard]] bool has(std::string_view name) const { return node.attrs.find(name) != node.attrs.end(); }
  [[nodiscard]] std::int64_t i(std::string_view name, std::int64_t def) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_int();
  }
  [[nodiscard]] double f(std::string_view name, double def) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_float();
  }
  [[nodiscard]] std::string s(std::string_view name, std::string def) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_string();
  }
  [[nodiscard]] Dims ints(std::string_view name, Dims def = {}) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_ints();
  }

  [[noreturn]] void error(const std::string& what) const {
    fail("node '" + node.name + "' (" + node.op + "): " + what);
  }
  // An axis in [-rank, rank) (or [-rank, rank] with `inclusive`), made non-negative.
  [[nodiscard]] std::int64_t axis(std::int64_t a, std::int64_t rank, const std::string& what,
                                  bool inclusive = false) const {
    const std::int64_t hi = inclusive ? rank : rank - 1;
    if (a < -rank || a > hi)
      error(what + " is " + std::to_string(a) + ", outside [" + std::to_string(-rank) + ", " + std::to_string(hi) +
            "] for rank " + std::to_string(rank));
    return a < 0 ? a + rank : a;
  }
  void require_float(std::size_t k) const {
    const DataType t = in(k).dtype;
    if (t != DataType::f32 && t != DataType::f64)
      error("input " + std::to_string(k) + " is " + in(k).describe() + "; only f32 and f64 are implemented");
  }

 private:
  std::vector<const RefTensor*> in_;
};

using Outs = std::vector<RefTensor>;

// ---- elementwise ----

// y = f(x) for a floating x.
template <class F>
Outs map_float(const Ctx& c, F f) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) set_f(y, i, f(get_f(x, i)));
  return {y};
}

// y = f(x) in double for floating x, g(x) in int64 for integer x.
template <class F, class G>
Outs map_numeric(const Ctx& c, F f, G g) {
  const RefTensor& x = c.in(0);
  RefTensor y(x.dtype, x.dims);
  if (is_floating(x.dtype)) {
    for (std::int64_t i = 0; i < x.elements(); ++i) set_f(y, i, f(get_f(x, i)));
  } else {
    if (x.dtype == DataType::boolean) c.error("input 0 is " + x.describe() + "; a bool input is not implemented");
    for (std::int64_t i = 0; i < x.elements(); ++i) set_i(y, i, g(get_i(x, i)));
  }
  return {y};
}

enum class Bin { add, sub, mul, div, pow, equal, less, greater };

Outs binary(const Ctx& c, Bin op) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  if (op != Bin::pow && a.dtype != b.dtype) c.error("inputs " + a.describe() + " and " + b.describe() + " differ in type");
  const auto dims = broadcast_dims(a.dims, b.dims);
  if (!dims) c.error("inputs " + a.describe() + " and " + b.describe() + " do not broadcast");
  const bool compare = op == Bin::equal || op == Bin::less || op == Bin::greater;
  RefTensor y(compare ? DataType::boolean : a.dtype, *dims);
  const Dims ia = broadcast_index(*dims, a.dims), ib = broadcast_index(*dims, b.dims);
  const bool floating = is_floating(a.dtype) || (op == Bin::pow && is_floating(b.dtype));
  for (std::int64_t i = 0; i < y.elements(); ++i) {
    const std::int64_t ka = ia[static_cast<std::size_t>(i)], kb = ib[static_cast<std::size_t>(i)];
    if (op == Bin::pow) {
      set_f(y, i, std::pow(get_f(a, ka), get_f(b, kb)));
    } else if (floating) {
      const double x = get_f(a, ka), z = get_f(b, kb);
      switch (op) {
        case Bin::add: set_f(y, i, x + z); break;
        case Bin::sub: set_f(y, i, x - z); break;
        case Bin::mul: set_f(y, i, x * z); break;
        case Bin::div: set_f(y, i, x / z); break;
        case Bin::equal: set_i(y, i, x == z); break;
        case Bin::less: set_i(y, i, x < z); break;
        case Bin::greater: set_i(y, i, x > z); break;
        case Bin::pow: break;
      }
    } else {
      const std::int64_t x = get_i(a, ka), z = get_i(b, kb);
      switch (op) {
        case Bin::add: set_i(y, i, x + z); break;
        case Bin::sub: set_i(y, i, x - z); break;
        case Bin::mul: set_i(y, i, x * z); break;
        case Bin::div:
          if (z == 0) c.error("integer division by zero");
          set_i(y, i, x / z);  // truncates toward zero
          break;
        case Bin::equal: set_i(y, i, x == z); break;
        case Bin::less: set_i(y, i, x < z); break;
        case Bin::greater: set_i(y, i, x > z); break;
        case Bin::pow: break;
      }
    }
  }
  return {y};
}

Outs where(const Ctx& c) {
  const RefTensor& cond = c.in(0);
  const RefTensor& x = c.in(1);
  const RefTensor& y = c.in(2);
  if (cond.dtype != DataType::boolean) c.error("input 0 is " + cond.describe() + "; expected bool");
  if (x.dtype != y.dtype) c.error("inputs 1 and 2 differ in type: " + x.describe() + ", " + y.describe());
  auto dims = broadcast_dims(x.dims, y.dims);
  if (dims) dims = broadcast_dims(cond.dims, *dims);
  if (!dims) c.error("inputs " + cond.describe() + ", " + x.describe() + ", " + y.describe() + " do not broadcast");
  const Dims ic = broadcast_index(*dims, cond.dims), ix = broadcast_index(*dims, x.dims),
             iy = broadcast_index(*dims, y.dims);
  RefTensor out(x.dtype, *dims);
  const auto es = static_cast<std::size_t>(size_of(x.dtype));
  for (std::size_t i = 0; i < ic.size(); ++i) {
    const bool pick_x = get_i(cond, ic[i]) != 0;
    const RefTensor& src = pick_x ? x : y;
    const std::int64_t k = pick_x ? ix[i] : iy[i];
    std::memcpy(out.bytes.data() + i * es, src.bytes.data() + static_cast<std::size_t>(k) * es, es);
  }
  return {out};
}

// A one-element optional input as double (Clip's min and max).
std::optional<double> scalar_input(const Ctx& c, std::size_t k) {
  if (!c.has_input(k)) return std::nullopt;
  if (c.in(k).elements() != 1) c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; expected one element");
  return get_f(c.in(k), 0);
}

Outs clip(const Ctx& c) {
  const auto lo = scalar_input(c, 1), hi = scalar_input(c, 2);
  const auto f = [&](double v) {
    if (lo && v < *lo) v = *lo;
    if (hi && v > *hi) v = *hi;
    return v;
  };
  if (!is_floating(c.in(0).dtype))
    for (std::size_t k = 1; k < 3; ++k)
      if (c.has_input(k) && c.in(k).dtype != c.in(0).dtype) c.error("min/max differ in type from the input");
  return map_numeric(c, f, [&](std::int64_t v) { return static_cast<std::int64_t>(f(static_cast<double>(v))); });
}

// The type named by Cast's 'to': a ge type name, or an ONNX TensorProto code.
DataType cast_target(const Ctx& c) {
  const auto it = c.node.attrs.find("to");
  if (it == c.node.attrs.end()) c.error("attribute 'to' is missing");
  if (it->second.kind() == AttrKind::string) return parse_data_type(it->second.as_string());
  switch (it->second.as_int()) {
    case 1: return DataType::f32;
    case 2: return DataType::u8;
    case 3: return DataType::i8;
    case 4: return DataType::u16;
    case 5: return DataType::i16;
    case 6: return DataType::i32;
    case 7: return DataType::i64;
    case 9: return DataType::boolean;
    case 11: return DataType::f64;
    case 12: return DataType::u32;
    case 13: return DataType::u64;
    default: c.error("attribute 'to' is " + it->second.to_string() + ", a type that is not implemented");
  }
}

Outs cast(const Ctx& c) {
  const RefTensor& x = c.in(0);
  RefTensor y(cast_target(c), x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    if (is_floating(x.dtype)) set_f(y, i, get_f(x, i));  // to integers: truncation toward zero
    else set_i(y, i, get_i(x, i));
  }
  return {y};
}

Outs softmax(const Ctx& c, bool log_softmax) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  if (r == 0) c.error("input 0 is a scalar; expected rank >= 1");
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r, "axis"));
  const std::int64_t outer = product(x.dims, 0, axis), n = x.dims[axis], inner = product(x.dims, axis + 1);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      const auto at = [&](std::int64_t k) { return (o * n + k) * inner + in; };
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t k = 0; k < n; ++k) mx = std::max(mx, get_f(x, at(k)));
      double sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += std::exp(get_f(x, at(k)) - mx);
      for (std::int64_t k = 0; k < n; ++k) {
        const double v = get_f(x, at(k)) - mx;
        set_f(y, at(k), log_softmax ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  return {y};
}

// ---- windows: Conv and pooling ----

// A 2-D window geometry (a 1-D one is 2-D with H = 1): input, kernel, stride, dilation,
// begin and end pads, output extent, per spatial dim.
struct Window {
  std::int64_t in[2], k[2], s[2], d[2], pb[2], pe[2], out[2];
};

Dims per_dim(const Ctx& c, std::string_view name, std::size_t n, std::int64_t fill) {
  Dims v = c.ints(name);
  if (v.empty()) return Dims(n, fill);
  if (v.size() != n) c.error("attribute '" + std::string(name) + "' is " + dims_text(v) + "; expected " + std::to_string(n) + " values");
  return v;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// Reads strides, dilations, pads, auto_pad (and ceil_mode) for the spatial extents
// `in` and kernel extents `kernel`, and computes the pads and the output extents.
Window make_window(const Ctx& c, const Dims& in, const Dims& kernel, bool has_ceil_mode) {
  const std::size_t n = in.size();
  if (n != 1 && n != 2) c.error(std::to_string(n) + " spatial dims; only 1-D and 2-D windows are implemented");
  const Dims strides = per_dim(c, "strides", n, 1), dil = per_dim(c, "dilations", n, 1);
  Dims pads = c.ints("pads");
  if (pads.empty()) pads.assign(2 * n, 0);
  if (pads.size() != 2 * n) c.error("attribute 'pads' is " + dims_text(pads) + "; expected " + std::to_string(2 * n) + " values");
  const std::string auto_pad = c.s("auto_pad", "NOTSET");
  const bool ceil_mode = has_ceil_mode && c.i("ceil_mode", 0) != 0;
  Window w{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1}};
  const std::size_t off = 2 - n;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = i + off;
    w.in[j] = in[i];
    w.k[j] = kernel[i];
    w.s[j] = strides[i];
    w.d[j] = dil[i];
    if (w.k[j] < 1 || w.s[j] < 1 || w.d[j] < 1) c.error("kernel, strides and dilations must be >= 1");
    const std::int64_t span = w.d[j] * (w.k[j] - 1) + 1;
    if (auto_pad == "NOTSET" || auto_pad == "VALID") {
      w.pb[j] = auto_pad == "VALID" ? 0 : pads[i];
      w.pe[j] = auto_pad == "VALID" ? 0 : pads[i + n];
      const std::int64_t room = w.in[j] + w.pb[j] + w.pe[j] - span;
      if (room < 0) c.error("spatial dim " + std::to_string(i) + " (" + std::to_string(w.in[j]) + ") is too small for the window");
      if (!ceil_mode) {
        w.out[j] = room / w.s[j] + 1;
      } else {
        w.out[j] = ceil_div(room, w.s[j]) + 1;
        // The last window must start inside the input or the begin pad.
        if ((w.out[j] - 1) * w.s[j] >= w.in[j] + w.pb[j]) --w.out[j];
      }
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[j] = ceil_div(w.in[j], w.s[j]);
      const std::int64_t total = std::max<std::int64_t>(0, (w.out[j] - 1) * w.s[j] + span - w.in[j]);
      const std::int64_t half = total / 2;
      w.pb[j] = auto_pad == "SAME_UPPER" ? half : total - half;
      w.pe[j] = total - w.pb[j];
    } else {
      c.error("auto_pad '" + auto_pad + "' is not implemented");
    }
  }
  return w;
}

// The output positions o in [0, out) whose tap o * s - pb + t stays in [0, in), as [lo, hi).
std::pair<std::int64_t, std::int64_t> valid_outputs(std::int64_t in, std::int64_t out, std::int64_t s, std::int64_t pb,
                                                    std::int64_t t) {
  // o * s >= pb - t  and  o * s <= in - 1 + pb - t
  const std::int64_t lo = std::max<std::int64_t>(0, ceil_div(pb - t, s));
  const std::int64_t hi = std::min<std::int64_t>(out, floor_div(in - 1 + pb - t, s) + 1);
  return {lo, std::max(lo, hi)};
}

// The dims of a window op's output: [N, C, out...] with the spatial rank of the input.
Dims window_out_dims(std::int64_t n, std::int64_t ch, const Window& w, std::size_t spatial) {
  Dims d{n, ch};
  for (std::size_t j = 2 - spatial; j < 2; ++j) d.push_back(w.out[j]);
  return d;
}

Outs conv(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& wt = c.in(1);
  if (x.dtype != DataType::f32 || wt.dtype != DataType::f32)
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only f32 is implemented");
  if ((x.dims.size() != 3 && x.dims.size() != 4) || wt.dims.size() != x.dims.size())
    c.error("inputs " + x.describe() + ", " + wt.describe() + "; only 1-D and 2-D convolutions are implemented");
  const std::size_t sp = x.dims.size() - 2;
  const std::int64_t N = x.dims[0], C = x.dims[1], M = wt.dims[0], Cg = wt.dims[1];
  const std::int64_t group = c.i("group", 1);
  if (group < 1 || Cg * group != C || M % group != 0)
    c.error("X " + x.describe() + ", W " + wt.describe() + " and group " + std::to_string(group) + " do not fit");
  const Dims kernel(wt.dims.begin() + 2, wt.dims.end());
  if (c.has("kernel_shape") && c.ints("kernel_shape") != kernel)
    c.error("attribute 'kernel_shape' " + dims_text(c.ints("kernel_shape")) + " differs from W " + wt.describe());
  const Window w = make_window(c, Dims(x.dims.begin() + 2, x.dims.end()), kernel, false);
  std::span<const float> bias;
  if (c.has_input(2)) {
    const RefTensor& b = c.in(2);
    if (b.dims != Dims{M}) c.error("input 2 (B) is " + b.describe() + "; expected f32[" + std::to_string(M) + "]");
    bias = b.as<float>();
  }
  RefTensor y(DataType::f32, window_out_dims(N, M, w, sp));
  const auto xs = x.as<float>();
  const auto ws = wt.as<float>();
  auto ys = y.as<float>();
  const std::int64_t H = w.in[0], W = w.in[1], KH = w.k[0], KW = w.k[1], OH = w.out[0], OW = w.out[1];
  const std::int64_t Mg = M / group;
  std::vector<double> acc(static_cast<std::size_t>(OH * OW));
  // The output rows (columns) that kernel row kh (column kw) reaches inside the input.
  std::vector<std::pair<std::int64_t, std::int64_t>> rows, cols;
  for (std::int64_t kh = 0; kh < KH; ++kh) rows.push_back(valid_outputs(H, OH, w.s[0], w.pb[0], kh * w.d[0]));
  for (std::int64_t kw = 0; kw < KW; ++kw) cols.push_back(valid_outputs(W, OW, w.s[1], w.pb[1], kw * w.d[1]));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      const std::int64_t g = m / Mg;
      std::fill(acc.begin(), acc.end(), bias.empty() ? 0.0 : static_cast<double>(bias[static_cast<std::size_t>(m)]));
      for (std::int64_t ci = 0; ci < Cg; ++ci) {
        const float* xin = xs.data() + ((n * C + g * Cg + ci) * H) * W;
        const float* wk = ws.data() + ((m * Cg + ci) * KH) * KW;
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw) {
            const double wv = wk[kh * KW + kw];
            const auto [oh_lo, oh_hi] = rows[static_cast<std::size_t>(kh)];
            const auto [ow_lo, ow_hi] = cols[static_cast<std::size_t>(kw)];
            for (std::int64_t oh = oh_lo; oh < oh_hi; ++oh) {
              // Input element of output (oh, ow): xin[base + ow * stride_w].
              const std::int64_t base = (oh * w.s[0] - w.pb[0] + kh * w.d[0]) * W - w.pb[1] + kw * w.d[1];
              double* out = acc.data() + oh * OW;
              for (std::int64_t ow = ow_lo; ow < ow_hi; ++ow) out[ow] += wv * xin[base + ow * w.s[1]];
            }
          }
      }
      float* dst = ys.data() + (n * M + m) * OH * OW;
      for (std::size_t p = 0; p < acc.size(); ++p) dst[p] = static_cast<float>(acc[p]);
    }
  return {y};
}

Outs pool(const Ctx& c, bool is_max) {
  const RefTensor& x = c.in(0);
  if (x.dims.size() != 3 && x.dims.size() != 4) c.error("input 0 is " + x.describe() + "; only 1-D and 2-D pooling is implemented");
  const std::size_t sp = x.dims.size() - 2;
  const Dims kernel = c.ints("kernel_shape");
  if (kernel.size() != sp) c.error("attribute 'kernel_shape' is " + dims_text(kernel) + " for input " + x.describe());
  const Window w = make_window(c, Dims(x.dims.begin() + 2, x.dims.end()), kernel, true);
  const std::int64_t N = x.dims[0], C = x.dims[1], H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1];
  const bool include_pad = !is_max && c.i("count_include_pad", 0) != 0;
  const bool col_major = is_max && c.i("storage_order", 0) != 0;
  RefTensor y(x.dtype, window_out_dims(N, C, w, sp));
  RefTensor idx(DataType::i64, y.dims);
  std::int64_t o = 0;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t ch = 0; ch < C; ++ch)
      for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow, ++o) {
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          std::int64_t best_at = -1, count = 0, padded_count = 0;
          for (std::int64_t kh = 0; kh < w.k[0]; ++kh)
            for (std::int64_t kw = 0; kw < w.k[1]; ++kw) {
              const std::int64_t ih = oh * w.s[0] - w.pb[0] + kh * w.d[0];
              const std::int64_t iw = ow * w.s[1] - w.pb[1] + kw * w.d[1];
              // Positions inside the input or its pads count for count_include_pad.
              if (ih >= -w.pb[0] && ih < H + w.pe[0] && iw >= -w.pb[1] && iw < W + w.pe[1]) ++padded_count;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              const std::int64_t at = ((n * C + ch) * H + ih) * W + iw;
              const double v = get_f(x, at);
              ++count;
              sum += v;
              if (best_at < 0 || v > best) {
                best = v;
                best_at = col_major ? (n * C + ch) * H * W + iw * H + ih : at;
              }
            }
          if (count == 0) c.error("a window covers no input element");
          if (is_max) {
            set_f(y, o, best);
            set_i(idx, o, best_at);
          } else {
            set_f(y, o, sum / static_cast<double>(include_pad ? padded_count : count));
          }
        }
  if (is_max) return {y, idx};
  return {y};
}

Outs global_avg_pool(const Ctx& c) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 3) c.error("input 0 is " + x.describe() + "; expected rank >= 3");
  Dims dims{x.dims[0], x.dims[1]};
  dims.resize(x.dims.size(), 1);
  RefTensor y(x.dtype, dims);
  const std::int64_t inner = product(x.dims, 2);
  for (std::int64_t o = 0; o < x.dims[0] * x.dims[1]; ++o) {
    double sum = 0;
    for (std::int64_t k = 0; k < inner; ++k) sum += get_f(x, o * inner + k);
    set_f(y, o, sum / static_cast<double>(inner));
  }
  return {y};
}

// ---- normalization ----

Outs batch_norm(const Ctx& c) {
  if (c.i("training_mode", 0) != 0) c.error("training_mode 1 is not implemented");
  if (c.node.outputs.size() > 1) c.error("the running_mean / running_var outputs (training) are not implemented");
  c.require_float(0);
  const RefTensor& x = c.in(0);
  if (x.dims.size() < 2) c.error("input 0 is " + x.describe() + "; expected rank >= 2");
  const std::int64_t C = x.dims[1], inner = product(x.dims, 2);
  for (std::size_t k = 1; k < 5; ++k)
    if (c.in(k).elements() != C) c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; expected " + std::to_string(C) + " values");
  const double eps = c.f("epsilon", 1e-5);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t n = 0; n < x.dims[0]; ++n)
    for (std::int64_t ch = 0; ch < C; ++ch) {
      const double scale = get_f(c.in(1), ch), bias = get_f(c.in(2), ch), mean = get_f(c.in(3), ch),
                   var = get_f(c.in(4), ch);
      const double a = scale / std::sqrt(var + eps);
      for (std::int64_t k = 0; k < inner; ++k) {
        const std::int64_t i = (n * C + ch) * inner + k;
        set_f(y, i, (get_f(x, i) - mean) * a + bias);
      }
    }
  return {y};
}

Outs layer_norm(const Ctx& c) {
  if (c.i("stash_type", 1) != 1) c.error("stash_type " + std::to_string(c.i("stash_type", 1)) + " is not implemented");
  c.require_float(0);
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", -1), r, "axis"));
  const Dims norm(x.dims.begin() + static_cast<std::ptrdiff_t>(axis), x.dims.end());
  const std::int64_t outer = product(x.dims, 0, axis), inner = product(norm);
  const double eps = c.f("epsilon", 1e-5);
  // Scale and B broadcast to the normalized dims.
  const auto param_index = [&](std::size_t k) {
    const Dims& p = c.in(k).dims;
    if (broadcast_dims(norm, p) != norm) c.error("input " + std::to_string(k) + " is " + c.in(k).describe() + "; it does not broadcast to the normalized dims " + dims_text(norm));
    return broadcast_index(norm, p);
  };
  const Dims is = param_index(1);
  const Dims ib = c.has_input(2) ? param_index(2) : Dims{};
  Dims stat_dims = x.dims;
  for (std::size_t k = axis; k < stat_dims.size(); ++k) stat_dims[k] = 1;
  RefTensor y(x.dtype, x.dims), mean_out(DataType::f32, stat_dims), inv_out(DataType::f32, stat_dims);
  for (std::int64_t o = 0; o < outer; ++o) {
    double mean = 0, var = 0;
    for (std::int64_t k = 0; k < inner; ++k) mean += get_f(x, o * inner + k);
    mean /= static_cast<double>(inner);
    for (std::int64_t k = 0; k < inner; ++k) {
      const double d = get_f(x, o * inner + k) - mean;
      var += d * d;
    }
    var /= static_cast<double>(inner);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (std::int64_t k = 0; k < inner; ++k) {
      const auto u = static_cast<std::size_t>(k);
      const double b = ib.empty() ? 0.0 : get_f(c.in(2), ib[u]);
      set_f(y, o * inner + k, (get_f(x, o * inner + k) - mean) * inv * get_f(c.in(1), is[u]) + b);
    }
    set_f(mean_out, o, mean);
    set_f(inv_out, o, inv);
  }
  return {y, mean_out, inv_out};
}

// ---- matrix products ----

Outs gemm(const Ctx& c) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  if (a.dims.size() != 2 || b.dims.size() != 2) c.error("inputs " + a.describe() + ", " + b.describe() + "; expected 2-D");
  const bool ta = c.i("transA", 0) != 0, tb = c.i("transB", 0) != 0;
  const double alpha = c.f("alpha", 1.0), beta = c.f("beta", 1.0);
  const std::int64_t M = a.dims[ta ? 1 : 0], K = a.dims[ta ? 0 : 1];
  const std::int64_t Kb = b.dims[tb ? 1 : 0], N = b.dims[tb ? 0 : 1];
  if (K != Kb) c.error("A " + a.describe() + (ta ? " (transA)" : "") + " and B " + b.describe() + (tb ? " (transB)" : "") + " differ in K");
  const std::vector<double> av = a.to_doubles(), bv = b.to_doubles();
  Dims ic;
  if (c.has_input(2)) {
    if (broadcast_dims({M, N}, c.in(2).dims) != Dims{M, N}) c.error("input 2 (C) " + c.in(2).describe() + " does not broadcast to [M, N]");
    ic = broadcast_index({M, N}, c.in(2).dims);
  }
  RefTensor y(a.dtype, {M, N});
  std::vector<double> acc(static_cast<std::size_t>(N));
  for (std::int64_t m = 0; m < M; ++m) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double x = av[static_cast<std::size_t>(ta ? k * M + m : m * K + k)];
      for (std::int64_t n = 0; n < N; ++n) acc[static_cast<std::size_t>(n)] += x * bv[static_cast<std::size_t>(tb ? n * K + k : k * N + n)];
    }
    for (std::int64_t n = 0; n < N; ++n) {
      double v = alpha * acc[static_cast<std::size_t>(n)];
      if (!ic.empty()) v += beta * get_f(c.in(2), ic[static_cast<std::size_t>(m * N + n)]);
      set_f(y, m * N + n, v);
    }
  }
  return {y};
}

Outs matmul(const Ctx& c) {
  const RefTensor& a = c.in(0);
  const RefTensor& b = c.in(1);
  if (a.dims.empty() || b.dims.empty()) c.error("a scalar input; expected rank >= 1");
  if (a.dtype != b.dtype) c.error("inputs " + a.describe() + ", " + b.describe() + " differ in type");
  Dims da = a.dims, db = b.dims;
  const bool a1 = da.size() == 1, b1 = db.size() == 1;
  if (a1) da.insert(da.begin(), 1);
  if (b1) db.push_back(1);
  const std::int64_t M = da[da.size() - 2], K = da.back(), N = db.back();
  if (db[db.size() - 2] != K) c.error("inputs " + a.describe() + ", " + b.describe() + " differ in K");
  const Dims ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  const auto batch = broadcast_dims(ba, bb);
  if (!batch) c.error("the batch dims of " + a.describe() + " and " + b.describe() + " do not broadcast");
  const Dims ia = broadcast_index(*batch, ba), ib = broadcast_index(*batch, bb);
  Dims out = *batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  const std::vector<double> av = a.to_doubles(), bv = b.to_doubles();
  RefTensor y(a.dtype, out);
  std::vector<double> acc(static_cast<std::size_t>(N));
  for (std::size_t p = 0; p < ia.size(); ++p) {
    const double* A = av.data() + ia[p] * M * K;
    const double* B = bv.data() + ib[p] * K * N;
    for (std::int64_t m = 0; m < M; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t k = 0; k < K; ++k) {
        const double x = A[m * K + k];
        for (std::int64_t n = 0; n < N; ++n) acc[static_cast<std::size_t>(n)] += x * B[k * N + n];
      }
      for (std::int64_t n = 0; n < N; ++n)
        set_f(y, (static_cast<std::int64_t>(p) * M + m) * N + n, acc[static_cast<std::size_t>(n)]);
    }
  }
  return {y};
}

// ---- shape ops ----

Outs reshape(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const Dims target = c.in(1).to_int64s();
  const bool allow_zero = c.i("allowzero", 0) != 0;
  Dims out(target.size());
  std::int64_t infer_at = -1, known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int64_t v = target[i];
    if (v == -1) {
      if (infer_at >= 0) c.error("shape " + dims_text(target) + " has two -1");
      infer_at = static_cast<std::int64_t>(i);
      continue;
    }
    if (v == 0 && !allow_zero) {
      if (i >= x.dims.size()) c.error("shape " + dims_text(target) + " copies dim " + std::to_string(i) + " of " + x.describe());
      out[i] = x.dims[i];
    } else if (v < 0) {
      c.error("shape " + dims_text(target) + " has " + std::to_string(v));
    } else {
      out[i] = v;
    }
    known *= out[i];
  }
  if (infer_at >= 0) {
    if (known == 0 || x.elements() % known != 0) c.error("cannot reshape " + x.describe() + " to " + dims_text(target));
    out[static_cast<std::size_t>(infer_at)] = x.elements() / known;
  }
  if (product(out) != x.elements()) c.error("cannot reshape " + x.describe() + " to " + dims_text(target));
  return {with_dims(x, out)};
}

Outs flatten(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 1), r, "axis", true));
  return {with_dims(x, {product(x.dims, 0, axis), product(x.dims, axis)})};
}

Outs transpose(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const std::size_t r = x.dims.size();
  Dims perm = c.ints("perm");
  if (!c.has("perm"))
    for (std::size_t i = r; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  Dims sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted.size() != r || sorted[i] != static_cast<std::int64_t>(i)) c.error("perm " + dims_text(perm) + " for " + x.describe());
  const Dims in_strides = strides_of(x.dims);
  Dims out(r), st(r);
  for (std::size_t i = 0; i < r; ++i) {
    out[i] = x.dims[static_cast<std::size_t>(perm[i])];
    st[i] = in_strides[static_cast<std::size_t>(perm[i])];
  }
  return {gather_elements(x, out, strided_index(out, st))};
}

// The axes of input `k` normalized against `rank`, checked for duplicates.
Dims axes_input(const Ctx& c, std::size_t k, std::int64_t rank) {
  Dims axes;
  for (std::int64_t a : c.in(k).to_int64s()) {
    const std::int64_t n = c.axis(a, rank, "axes value");
    if (std::find(axes.begin(), axes.end(), n) != axes.end()) c.error("axes name " + std::to_string(n) + " twice");
    axes.push_back(n);
  }
  return axes;
}

Outs squeeze(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const Dims axes = c.has_input(1) ? axes_input(c, 1, r) : Dims{};
  Dims out;
  for (std::int64_t i = 0; i < r; ++i) {
    const std::int64_t d = x.dims[static_cast<std::size_t>(i)];
    const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (listed && d != 1) c.error("cannot squeeze dim " + std::to_string(i) + " of " + x.describe());
    if (listed || (axes.empty() && d == 1)) continue;
    out.push_back(d);
  }
  return {with_dims(x, out)};
}

Outs unsqueeze(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size() + static_cast<std::size_t>(c.in(1).elements()));
  const Dims axes = axes_input(c, 1, r);
  Dims out;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < r; ++i) out.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? 1 : x.dims[next++]);
  return {with_dims(x, out)};
}

Outs concat(const Ctx& c) {
  const RefTensor& first = c.in(0);
  const auto r = static_cast<std::int64_t>(first.dims.size());
  if (r == 0) c.error("scalar inputs; expected rank >= 1");
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  Dims out = first.dims;
  out[axis] = 0;
  for (std::size_t k = 0; k < c.input_count(); ++k) {
    const RefTensor& t = c.in(k);
    bool ok = t.dtype == first.dtype && t.dims.size() == first.dims.size();
    for (std::size_t d = 0; ok && d < t.dims.size(); ++d) ok = d == axis || t.dims[d] == first.dims[d];
    if (!ok) c.error("input " + std::to_string(k) + " " + t.describe() + " does not fit input 0 " + first.describe());
    out[axis] += t.dims[axis];
  }
  RefTensor y(first.dtype, out);
  const std::int64_t outer = product(out, 0, axis), es = size_of(first.dtype);
  std::byte* dst = y.bytes.data();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < c.input_count(); ++k) {
      const RefTensor& t = c.in(k);
      const std::int64_t block = product(t.dims, axis) * es;
      std::memcpy(dst, t.bytes.data() + o * block, static_cast<std::size_t>(block));
      dst += block;
    }
  return {y};
}

Outs split(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  const std::int64_t d = x.dims[axis];
  Dims sizes;
  if (c.has_input(1)) {
    sizes = c.in(1).to_int64s();
  } else {
    const auto n = static_cast<std::int64_t>(c.has("num_outputs") ? static_cast<std::size_t>(c.i("num_outputs", 1)) : c.node.outputs.size());
    if (n < 1) c.error("no outputs to split into");
    const std::int64_t chunk = ceil_div(d, n);
    for (std::int64_t k = 0, left = d; k < n; ++k, left -= sizes.back()) sizes.push_back(std::min(chunk, left));
  }
  std::int64_t sum = 0;
  for (std::int64_t s : sizes) sum += s;
  if (sum != d) c.error("split sizes " + dims_text(sizes) + " for dim " + std::to_string(axis) + " of " + x.describe());
  Outs outs;
  const Dims x_strides = strides_of(x.dims);
  std::int64_t start = 0;
  for (std::int64_t s : sizes) {
    Dims od = x.dims;
    od[axis] = s;
    outs.push_back(gather_elements(x, od, strided_index(od, x_strides, start * x_strides[axis])));
    start += s;
  }
  return outs;
}

Outs slice(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const std::size_t r = x.dims.size();
  const Dims starts = c.in(1).to_int64s(), ends = c.in(2).to_int64s();
  Dims axes, steps;
  if (c.has_input(3)) axes = axes_input(c, 3, static_cast<std::int64_t>(r));
  else
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  steps = c.has_input(4) ? c.in(4).to_int64s() : Dims(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.error("starts, ends, axes and steps differ in length");
  const Dims in_strides = strides_of(x.dims);
  Dims out = x.dims, st = in_strides;
  std::int64_t base = 0;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    const std::int64_t d = x.dims[a], step = steps[k];
    if (step == 0) c.error("a step of 0");
    std::int64_t s = starts[k] < 0 ? starts[k] + d : starts[k];
    std::int64_t e = ends[k] < 0 ? ends[k] + d : ends[k];
    std::int64_t len = 0;
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, d);
      e = std::clamp<std::int64_t>(e, 0, d);
      len = e > s ? ceil_div(e - s, step) : 0;
    } else {
      s = std::clamp<std::int64_t>(s, 0, d - 1);
      e = std::clamp<std::int64_t>(e, -1, d - 1);
      len = s > e ? ceil_div(s - e, -step) : 0;
    }
    out[a] = len;
    if (len > 0) base += s * in_strides[a];
    st[a] = in_strides[a] * step;
  }
  return {gather_elements(x, out, strided_index(out, st, base))};
}

Outs gather(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const RefTensor& ind = c.in(1);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  if (r == 0) c.error("input 0 is a scalar");
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  const std::int64_t d = x.dims[axis], outer = product(x.dims, 0, axis), inner = product(x.dims, axis + 1);
  Dims out(x.dims.begin(), x.dims.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), ind.dims.begin(), ind.dims.end());
  out.insert(out.end(), x.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.dims.end());
  const Dims idx = ind.to_int64s();
  Dims index;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k : idx) {
      if (k < -d || k >= d) c.error("index " + std::to_string(k) + " is outside dim " + std::to_string(axis) + " of " + x.describe());
      const std::int64_t kk = k < 0 ? k + d : k;
      for (std::int64_t i = 0; i < inner; ++i) index.push_back((o * d + kk) * inner + i);
    }
  return {gather_elements(x, out, index)};
}

Outs expand(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto dims = broadcast_dims(x.dims, c.in(1).to_int64s());
  if (!dims) c.error("input " + x.describe() + " does not broadcast to " + dims_text(c.in(1).to_int64s()));
  return {gather_elements(x, *dims, broadcast_index(*dims, x.dims))};
}

Outs shape(const Ctx& c) {
  const auto r = static_cast<std::int64_t>(c.in(0).dims.size());
  const auto clampi = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
  const std::int64_t b = clampi(c.i("start", 0)), e = c.has("end") ? clampi(c.i("end", r)) : r;
  Dims v;
  for (std::int64_t i = b; i < e; ++i) v.push_back(c.in(0).dims[static_cast<std::size_t>(i)]);
  return {RefTensor::of<std::int64_t>({static_cast<std::int64_t>(v.size())}, v)};
}

Outs constant_of_shape(const Ctx& c) {
  const Dims dims = c.in(0).to_int64s();
  const RefTensor value = c.has("value") ? RefTensor::from(c.node.attrs.find("value")->second.as_tensor())
                                         : RefTensor::of<float>({1}, {0.f});
  if (value.elements() != 1) c.error("attribute 'value' is " + value.describe() + "; expected one element");
  return {gather_elements(value, dims, Dims(static_cast<std::size_t>(product(dims)), 0))};
}

// ---- reductions ----

enum class Red { mean, sum, max };

Outs reduce(const Ctx& c, Red op) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  if (c.has("axes") && c.has_input(1)) c.error("both input 1 (axes) and attribute 'axes' are given");
  Dims axes;
  if (c.has_input(1)) {
    axes = axes_input(c, 1, r);
  } else {
    for (std::int64_t a : c.ints("axes")) axes.push_back(c.axis(a, r, "axes value"));
  }
  if (axes.empty() && c.i("noop_with_empty_axes", 0) != 0) return {x};
  const bool keep = c.i("keepdims", 1) != 0;
  std::vector<bool> reduced(static_cast<std::size_t>(r), axes.empty());
  for (std::int64_t a : axes) reduced[static_cast<std::size_t>(a)] = true;
  Dims kept = x.dims, out;  // kept: the output dims with 1 at the reduced axes
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (reduced[i]) kept[i] = 1;
    if (!reduced[i] || keep) out.push_back(kept[i]);
  }
  // For each input element, the output element it goes to.
  Dims st = strides_of(kept);
  for (std::size_t i = 0; i < st.size(); ++i)
    if (reduced[i]) st[i] = 0;
  const Dims to = strided_index(x.dims, st);
  const std::int64_t n_out = product(kept), per = n_out == 0 ? 0 : x.elements() / n_out;
  std::vector<double> acc(static_cast<std::size_t>(n_out), op == Red::max ? -std::numeric_limits<double>::infinity() : 0.0);
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    double& a = acc[static_cast<std::size_t>(to[static_cast<std::size_t>(i)])];
    const double v = get_f(x, i);
    a = op == Red::max ? std::max(a, v) : a + v;
  }
  RefTensor y(x.dtype, out);
  for (std::int64_t i = 0; i < n_out; ++i)
    set_f(y, i, op == Red::mean ? acc[static_cast<std::size_t>(i)] / static_cast<double>(per) : acc[static_cast<std::size_t>(i)]);
  return {y};
}

Outs argmax(const Ctx& c) {
  const RefTensor& x = c.in(0);
  const auto r = static_cast<std::int64_t>(x.dims.size());
  const auto axis = static_cast<std::size_t>(c.axis(c.i("axis", 0), r, "axis"));
  const bool last = c.i("select_last_index", 0) != 0;
  const std::int64_t outer = product(x.dims, 0, axis), n = x.dims[axis], inner = product(x.dims, axis + 1);
  Dims out = x.dims;
  if (c.i("keepdims", 1) != 0) out[axis] = 1;
  else out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  RefTensor y(DataType::i64, out);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      std::int64_t best = 0;
      for (std::int64_t k = 1; k < n; ++k) {
        const double v = get_f(x, (o * n + k) * inner + in), b = get_f(x, (o * n + best) * inner + in);
        if (v > b || (last && v == b)) best = k;
      }
      set_i(y, o * inner + in, best);
    }
  return {y};
}

// ---- the table ----

using OpFn = std::function<Outs(const Ctx&)>;
struct OpImpl {
  OpFn run;
  std::vector<std::string_view> attrs;  ///< the attributes it reads; any other one fails
};

const std::map<std::string, OpImpl, std::less<>>& op_table() {
  static const std::map<std::string, OpImpl, std::less<>> table = [] {
    std::map<std::string, OpImpl, std::less<>> t;
    const auto unary_f = [&t](std::string name, double (*f)(double)) {
      t[std::move(name)] = {[f](const Ctx& c) { return map_float(c, f); }, {}};
    };
    unary_f("Sqrt", [](double v) { return std::sqrt(v); });
    unary_f("Exp", [](double v) { return std::exp(v); });
    unary_f("Log", [](double v) { return std::log(v); });
    unary_f("Erf", [](double v) { return std::erf(v); });
    unary_f("Tanh", [](double v) { return std::tanh(v); });
    unary_f("Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
    unary_f("HardSwish", [](double v) { return v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0); });
    t["Relu"] = {[](const Ctx& c) {
                   return map_numeric(c, [](double v) { return v < 0 ? 0.0 : v; },
                                      [](std::int64_t v) { return v < 0 ? std::int64_t{0} : v; });
                 },
                 {}};
    t["Neg"] = {[](const Ctx& c) { return map_numeric(c, [](double v) { return -v; }, [](std::int64_t v) { return -v; }); }, {}};
    t["Abs"] = {[](const Ctx& c) {
                  return map_numeric(c, [](double v) { return std::fabs(v); }, [](std::int64_t v) { return v < 0 ? -v : v; });
                },
                {}};
    t["LeakyRelu"] = {[](const Ctx& c) {
                        const double alpha = c.f("alpha", 0.01);
                        return map_float(c, [alpha](double v) { return v < 0 ? alpha * v : v; });
                      },
                      {"alpha"}};
    t["Gelu"] = {[](const Ctx& c) {
                   const std::string approx = c.s("approximate", "none");
                   if (approx == "none")
                     return map_float(c, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
                   if (approx != "tanh") c.error("approximate '" + approx + "' is not implemented");
                   return map_float(c, [](double v) {
                     const double k = std::sqrt(2.0 / 3.14159265358979323846);
                     return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
                   });
                 },
                 {"approximate"}};
    t["Identity"] = {[](const Ctx& c) { return Outs{c.in(0)}; }, {}};
    t["Clip"] = {clip, {}};
    t["Cast"] = {cast, {"to"}};
    t["Softmax"] = {[](const Ctx& c) { return softmax(c, false); }, {"axis"}};
    t["LogSoftmax"] = {[](const Ctx& c) { return softmax(c, true); }, {"axis"}};
    const auto bin = [&t](std::string name, Bin op) { t[std::move(name)] = {[op](const Ctx& c) { return binary(c, op); }, {}}; };
    bin("Add", Bin::add);
    bin("Sub", Bin::sub);
    bin("Mul", Bin::mul);
    bin("Div", Bin::div);
    bin("Pow", Bin::pow);
    bin("Equal", Bin::equal);
    bin("Less", Bin::less);
    bin("Greater", Bin::greater);
    t["Where"] = {where, {}};

    t["Conv"] = {conv, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}};
    t["MaxPool"] = {[](const Ctx& c) { return pool(c, true); },
                    {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "storage_order"}};
    t["AveragePool"] = {[](const Ctx& c) { return pool(c, false); },
                        {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "count_include_pad"}};
    t["GlobalAveragePool"] = {global_avg_pool, {}};
    t["BatchNormalization"] = {batch_norm, {"epsilon", "momentum", "training_mode"}};
    t["LayerNormalization"] = {layer_norm, {"axis", "epsilon", "stash_type"}};
    t["Gemm"] = {gemm, {"alpha", "beta", "transA", "transB"}};
    t["MatMul"] = {matmul, {}};

    t["Reshape"] = {reshape, {"allowzero"}};
    t["Flatten"] = {flatten, {"axis"}};
    t["Transpose"] = {transpose, {"perm"}};
    t["Squeeze"] = {squeeze, {}};
    t["Unsqueeze"] = {unsqueeze, {}};
    t["Concat"] = {concat, {"axis"}};
    t["Split"] = {split, {"axis", "num_outputs"}};
    t["Slice"] = {slice, {}};
    t["Gather"] = {gather, {"axis"}};
    t["Expand"] = {expand, {}};
    t["Shape"] = {shape, {"start", "end"}};
    t["ConstantOfShape"] = {constant_of_shape, {"value"}};

    t["ReduceMean"] = {[](const Ctx& c) { return reduce(c, Red::mean); }, {"axes", "keepdims", "noop_with_empty_axes"}};
    t["ReduceSum"] = {[](const Ctx& c) { return reduce(c, Red::sum); }, {"axes", "keepdims", "noop_with_empty_axes"}};
    t["ReduceMax"] = {[](const Ctx& c) { return reduce(c, Red::max); }, {"axes", "keepdims", "noop_with_empty_axes"}};
    t["ArgMax"] = {argmax, {"axis", "keepdims", "select_last_index"}};
    return t;
  }();
  return table;
}

// Whether `t` fits the description: same data type, and dims within the shape's ranges.
bool fits(const TensorDesc& d, const RefTensor& t) {
  if (d.dtype != t.dtype) return false;
  if (!d.shape.rank_known()) return true;
  if (d.shape.rank() != t.dims.size()) return false;
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    if (!d.shape.dims()[i].contains(t.dims[i])) return false;
  return true;
}

}  // namespace

// ---- the interpreter ------------------------------------------------------------------

std::vector<RefTensor> run_reference(const Graph& graph, const std::vector<RefTensor>& inputs) {
  if (inputs.size() != graph.inputs().size())
    fail(std::to_string(inputs.size()) + " inputs for a graph of " + std::to_string(graph.inputs().size()));
  const auto& values = graph.values();
  std::vector<std::optional<RefTensor>> vals(values.size());
  // Uses left per value, so that a value is dropped after its last reader; graph
  // outputs keep one use that is never released.
  std::vector<std::size_t> uses(values.size(), 0);
  for (const Node& n : graph.nodes())
    for (ValueId v : n.inputs)
      if (v != no_value) ++uses[v];
  for (ValueId v : graph.outputs()) ++uses[v];

  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const GraphInput& gi = graph.inputs()[k];
    if (!fits({gi.dtype, gi.shape}, inputs[k]))
      fail("input " + std::to_string(k) + " ('" + gi.name + "') is " + inputs[k].describe() + "; the graph expects " +
           to_string(TensorDesc{gi.dtype, gi.shape}));
    vals[gi.value] = inputs[k];
  }
  // A value's tensor; constants are copied in on first use.
  const auto value_of = [&](ValueId v) -> const RefTensor& {
    if (!vals[v]) {
      const Tensor* t = graph.constant_of(v);
      if (t == nullptr) fail("value '" + values[v].name + "' is read before it is computed");
      vals[v] = RefTensor::from(*t);
    }
    return *vals[v];
  };

  const auto& table = op_table();
  for (std::size_t index : graph.topological_order()) {
    const Node& node = graph.nodes()[index];
    const auto it = table.find(node.op);
    if (it == table.end()) fail("op '" + node.op + "' (node '" + node.name + "') is not implemented");
    for (const auto& [name, value] : node.attrs)
      if (std::find(it->second.attrs.begin(), it->second.attrs.end(), name) == it->second.attrs.end())
        fail("node '" + node.name + "' (" + node.op + "): attribute '" + name + "' is not implemented");
    std::vector<const RefTensor*> in;
    for (ValueId v : node.inputs) in.push_back(v == no_value ? nullptr : &value_of(v));
    Outs outs;
    try {
      outs = it->second.run(Ctx(node, std::move(in)));
    } catch (const std::exception& e) {
      // Helpers below the op (element access, attribute kinds) do not know the node.
      const std::string where = "node '" + node.name + "' (" + node.op + ")";
      std::string_view what = e.what();
      if (what.find(where) != std::string_view::npos) throw;
      if (what.starts_with("reference: ")) what.remove_prefix(11);
      fail(where + ": " + std::string(what));
    }
    if (outs.size() < node.outputs.size())
      fail("node '" + node.name + "' (" + node.op + "): output " + std::to_string(outs.size()) + " is not implemented");
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      const ValueId v = node.outputs[k];
      if (!fits(values[v].desc, outs[k]))
        fail("node '" + node.name + "' (" + node.op + ") output " + std::to_string(k) + " ('" + values[v].name +
             "') is " + outs[k].describe() + " but the graph describes it as " + to_string(values[v].desc));
      vals[v] = std::move(outs[k]);
    }
    for (ValueId v : node.inputs)
      if (v != no_value && --uses[v] == 0) vals[v].reset();
  }
  std::vector<RefTensor> result;
  for (ValueId v : graph.outputs()) result.push_back(value_of(v));
  return result;
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
    if (why != nullptr) *why = "expected " + expected.describe() + " (" + std::to_string(expected.elements()) + " elements), got " + std::to_string(count) + " elements";
    return false;
  }
  return compare(expected, [actual](std::int64_t i) { return static_cast<double>(actual[i]); }, rtol, atol, why);
}

bool all_close(const RefTensor& expected, const RefTensor& actual, double rtol, double atol, std::string* why) {
  if (expected.dtype != actual.dtype || expected.dims != actual.dims) {
    if (why != nullptr) *why = "expected " + expected.describe() + ", got " + actual.describe();
    return false;
  }
  return compare(expected, [&actual](std::int64_t i) { return get_f(actual, i); }, rtol, atol, why);
}

double max_abs_diff(const RefTensor& expected, const RefTensor& actual) {
  if (expected.elements() != actual.elements())
    fail("max_abs_diff of " + expected.describe() + " and " + actual.describe());
  double m = 0;
  for (std::int64_t i = 0; i < expected.elements(); ++i) m = std::max(m, std::fabs(get_f(expected, i) - get_f(actual, i)));
  return m;
}

}  // namespace ge::ref

// ---- tests ------------------------------------------------------------------------------

namespace {

using ge::Attributes;
using ge::DataType;
using ge::ref::RefTensor;

// One input of a one-node test graph: a graph input, or a constant.
struct Arg {
  RefTensor t;
  bool constant = false;
};
Arg in(RefTensor t) { return {std::move(t), false}; }
Arg cst(RefTensor t) { return {std::move(t), true}; }
RefTensor f32(std::vector<std::int64_t> dims, std::vector<float> v) { return RefTensor::of<float>(std::move(dims), v); }
RefTensor i64(std::vector<std::int64_t> dims, std::vector<std::int64_t> v) {
  return RefTensor::of<std::int64_t>(std::move(dims), v);
}

// Builds a graph of one `op` node (nullopt: an omitted optional input) through the
// GraphBuilder, so that shape inference checks the reference's output dims too, and
// runs the reference on it. `outputs`: how many outputs the node has (0: the default).
std::vector<RefTensor> run_op(std::string_view op, std::vector<std::optional<Arg>> args, Attributes attrs = {},
                              std::size_t outputs = 0) {
  ge::GraphBuilder b;
  std::vector<ge::Value> vals;
  std::vector<RefTensor> feeds;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (!args[k]) {
      vals.emplace_back();
    } else if (args[k]->constant) {
      vals.push_back(b.constant("c" + std::to_string(k), args[k]->t.to_tensor()));
    } else {
      ge::Shape s;
      for (std::int64_t d : args[k]->t.dims) s.push_back(ge::Dim(d));
      vals.push_back(b.input("x" + std::to_string(k), args[k]->t.dtype, s));
      feeds.push_back(args[k]->t);
    }
  }
  for (const ge::Value& v : b.op_n(op, vals, std::move(attrs), outputs, "node")) b.output(v);
  return ge::ref::run_reference(b.build(), feeds);
}

// The one output of a one-node graph.
RefTensor run1(std::string_view op, std::vector<std::optional<Arg>> args, Attributes attrs = {}) {
  auto out = run_op(op, std::move(args), std::move(attrs));
  REQUIRE(out.size() == 1);
  return out[0];
}

// Checks dims and values (within 1e-5 relative + 1e-6 absolute, or `tol` absolute).
void check(const RefTensor& got, std::vector<std::int64_t> dims, std::vector<double> want, double tol = 1e-6) {
  CHECK(got.dims == dims);
  const std::vector<double> v = got.to_doubles();
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) CHECK_MESSAGE(std::fabs(v[i] - want[i]) <= tol + 1e-5 * std::fabs(want[i]), "element " << i << ": got " << v[i] << ", want " << want[i]);
}

const RefTensor x3x3 = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});

}  // namespace

TEST_CASE("reference: Conv 1x1x3x3 with pads, strides, bias, groups, dilations, auto_pad") {
  const RefTensor ones = f32({1, 1, 3, 3}, std::vector<float>(9, 1.f));
  SUBCASE("3x3 ones kernel, pad 1: sums of the neighbourhoods") {
    check(run1("Conv", {in(x3x3), cst(ones)}, {{"pads", {1, 1, 1, 1}}}), {1, 1, 3, 3},
          {12, 21, 16, 27, 45, 33, 24, 39, 28});
  }
  SUBCASE("stride 2 with a bias") {
    check(run1("Conv", {in(x3x3), cst(ones), cst(f32({1}, {0.5f}))}, {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}),
          {1, 1, 2, 2}, {12.5, 16.5, 24.5, 28.5});
  }
  SUBCASE("correlation, not convolution: the kernel picks the right neighbour") {
    const RefTensor right = f32({1, 1, 3, 3}, {0, 0, 0, 0, 0, 1, 0, 0, 0});
    check(run1("Conv", {in(x3x3), cst(right)}, {{"pads", {1, 1, 1, 1}}}), {1, 1, 3, 3}, {2, 3, 0, 5, 6, 0, 8, 9, 0});
  }
  SUBCASE("channels are summed; depthwise groups are not") {
    const RefTensor x = f32({1, 2, 1, 2}, {1, 2, 3, 4});
    check(run1("Conv", {in(x), cst(f32({1, 2, 1, 1}, {10, 100}))}), {1, 1, 1, 2}, {310, 420});
    check(run1("Conv", {in(x), cst(f32({2, 1, 1, 1}, {10, 100}))}, {{"group", 2}}), {1, 2, 1, 2}, {10, 20, 300, 400});
    // 2 groups, 2 output channels each: outputs 0, 1 read channel 0; outputs 2, 3 channel 1.
    check(run1("Conv", {in(x), cst(f32({4, 1, 1, 1}, {1, -1, 2, -2}))}, {{"group", 2}}), {1, 4, 1, 2},
          {1, 2, -1, -2, 6, 8, -6, -8});
  }
  SUBCASE("dilation") {
    check(run1("Conv", {in(f32({1, 1, 1, 5}, {1, 2, 3, 4, 5})), cst(f32({1, 1, 1, 2}, {1, 1}))}, {{"dilations", {1, 2}}}),
          {1, 1, 1, 3}, {4, 6, 8});
  }
  SUBCASE("auto_pad SAME_UPPER pads at the end, SAME_LOWER at the begin; VALID not at all") {
    const RefTensor x = f32({1, 1, 1, 4}, {1, 2, 3, 4});
    const RefTensor w = f32({1, 1, 1, 2}, {1, 10});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "SAME_UPPER"}}), {1, 1, 1, 4}, {21, 32, 43, 4});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "SAME_LOWER"}}), {1, 1, 1, 4}, {10, 21, 32, 43});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "VALID"}}), {1, 1, 1, 3}, {21, 32, 43});
    check(run1("Conv", {in(x), cst(w)}, {{"auto_pad", "SAME_UPPER"}, {"strides", {1, 2}}}), {1, 1, 1, 2}, {21, 43});
  }
  SUBCASE("1-D convolution and a batch of 2") {
    check(run1("Conv", {in(f32({2, 1, 4}, {1, 2, 3, 4, 0, 0, 0, 1})), cst(f32({1, 1, 2}, {1, 10}))}, {{"pads", {1, 0}}}),
          {2, 1, 4}, {10, 21, 32, 43, 0, 0, 0, 10});
  }
}

TEST_CASE("reference: MaxPool with pads (pads never win), indices, ceil_mode") {
  const Attributes a{{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}};
  const auto out = run_op("MaxPool", {in(x3x3)}, a, 2);
  REQUIRE(out.size() == 2);
  check(out[0], {1, 1, 2, 2}, {5, 6, 8, 9});
  check(out[1], {1, 1, 2, 2}, {4, 5, 7, 8});
  CHECK(out[1].dtype == DataType::i64);
  const RefTensor neg = f32({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  check(run1("MaxPool", {in(neg)}, a), {1, 1, 2, 2}, {-1, -2, -4, -5});
  const RefTensor row = f32({1, 1, 1, 5}, {1, 2, 3, 4, 5});
  const Attributes k2{{"kernel_shape", {1, 2}}, {"strides", {1, 2}}};
  check(run1("MaxPool", {in(row)}, k2), {1, 1, 1, 2}, {2, 4});
  Attributes ceil = k2;
  ceil["ceil_mode"] = 1;
  check(run1("MaxPool", {in(row)}, ceil), {1, 1, 1, 3}, {2, 4, 5});
}

TEST_CASE("reference: AveragePool with and without count_include_pad") {
  Attributes a{{"kernel_shape", {2, 2}}, {"pads", {1, 1, 1, 1}}};
  const RefTensor y = run1("AveragePool", {in(x3x3)}, a);
  CHECK(y.dims == std::vector<std::int64_t>{1, 1, 4, 4});
  const auto v = y.to_doubles();
  CHECK(v[0] == doctest::Approx(1.0));    // only x(0,0) is inside
  CHECK(v[1] == doctest::Approx(1.5));    // x(0,0), x(0,1)
  CHECK(v[5] == doctest::Approx(3.0));    // (1 + 2 + 4 + 5) / 4
  CHECK(v[15] == doctest::Approx(9.0));
  a["count_include_pad"] = 1;
  const auto w = run1("AveragePool", {in(x3x3)}, a).to_doubles();
  CHECK(w[0] == doctest::Approx(0.25));
  CHECK(w[1] == doctest::Approx(0.75));
  CHECK(w[5] == doctest::Approx(3.0));
  // Stride 2, no pads: the mean of each 2x2 block.
  check(run1("AveragePool", {in(f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}))}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}),
        {1, 1, 1, 2}, {3.5, 5.5});
}

TEST_CASE("reference: GlobalAveragePool and Flatten") {
  check(run1("GlobalAveragePool", {in(f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}))}), {1, 2, 1, 1}, {2.5, 6.5});
  const RefTensor x = RefTensor::random(DataType::f32, {2, 3, 4}, 3);
  const std::vector<double> v = x.to_doubles();
  check(run1("Flatten", {in(x)}), {2, 12}, v);
  check(run1("Flatten", {in(x)}, {{"axis", 0}}), {1, 24}, v);
  check(run1("Flatten", {in(x)}, {{"axis", -1}}), {6, 4}, v);
  check(run1("Flatten", {in(x)}, {{"axis", 3}}), {24, 1}, v);
}

TEST_CASE("reference: Gemm with transA, transB, alpha, beta and a broadcast C") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const RefTensor b = f32({2, 3}, {1, 0, 1, 0, 1, 0});
  check(run1("Gemm", {in(a), cst(b)}, {{"transB", 1}}), {2, 2}, {4, 2, 10, 5});
  check(run1("Gemm", {in(a), cst(b), cst(f32({2}, {0.5f, -1.f}))}, {{"transB", 1}, {"alpha", 2.0}, {"beta", 0.5}}),
        {2, 2}, {8.25, 3.5, 20.25, 9.5});
  // transA: A is [K, M] = [3, 2].
  check(run1("Gemm", {in(f32({3, 2}, {1, 4, 2, 5, 3, 6})), cst(b)}, {{"transA", 1}, {"transB", 1}}), {2, 2}, {4, 2, 10, 5});
  // Plain A [2, 2] x B [2, 2] + C [2, 1] (broadcast along N).
  check(run1("Gemm", {in(f32({2, 2}, {1, 2, 3, 4})), cst(f32({2, 2}, {5, 6, 7, 8})), cst(f32({2, 1}, {1, 2}))}),
        {2, 2}, {20, 23, 45, 52});
}

TEST_CASE("reference: MatMul 2-D, batched with broadcasting, and 1-D operands") {
  const RefTensor a = f32({2, 2}, {1, 2, 3, 4});
  const RefTensor b = f32({2, 2}, {5, 6, 7, 8});
  check(run1("MatMul", {in(a), in(b)}), {2, 2}, {19, 22, 43, 50});
  // [2, 1, 2] x [2, 2] -> [2, 1, 2]: B broadcasts over the batch.
  check(run1("MatMul", {in(f32({2, 1, 2}, {1, 0, 0, 1})), in(b)}), {2, 1, 2}, {5, 6, 7, 8});
  // [2, 2, 2] x [1, 2, 1]
  check(run1("MatMul", {in(f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})), in(f32({1, 2, 1}, {1, -1}))}), {2, 2, 1},
        {-1, -1, -1, -1});
  check(run1("MatMul", {in(f32({2}, {1, 1})), in(b)}), {2}, {12, 14});
  check(run1("MatMul", {in(a), in(f32({2}, {1, 1}))}), {2}, {3, 7});
  check(run1("MatMul", {in(f32({2}, {1, 2})), in(f32({2}, {3, 4}))}), {}, {11});
}

TEST_CASE("reference: Softmax and LogSoftmax") {
  check(run1("Softmax", {in(f32({2, 3}, {1, 2, 3, 0, 0, 0}))}), {2, 3},
        {0.09003057317038046, 0.24472847105479767, 0.6652409557748219, 1 / 3., 1 / 3., 1 / 3.});
  check(run1("Softmax", {in(f32({2, 2}, {0, 0, std::log(3.f), 0}))}, {{"axis", 0}}), {2, 2}, {0.25, 0.5, 0.75, 0.5});
  // Large values: no overflow.
  check(run1("Softmax", {in(f32({2}, {1000, 1000}))}), {2}, {0.5, 0.5});
  check(run1("LogSoftmax", {in(f32({2}, {0, 0}))}), {2}, {-std::log(2.0), -std::log(2.0)});
}

TEST_CASE("reference: LayerNormalization of a row, with Mean and InvStdDev outputs") {
  const RefTensor x = f32({1, 4}, {1, 2, 3, 4});
  const auto out = run_op("LayerNormalization", {in(x), cst(f32({4}, {1, 2, 1, 2})), cst(f32({4}, {0, 0, 1, 1}))}, {}, 3);
  REQUIRE(out.size() == 3);
  check(out[0], {1, 4}, {-1.3416354199689269, -0.894423613312618, 1.447211806656309, 3.6832708399378538});
  check(out[1], {1, 1}, {2.5});
  check(out[2], {1, 1}, {0.894423613312618});
  // axis 0 over [2, 2]: all four elements form one group; no bias.
  check(run1("LayerNormalization", {in(f32({2, 2}, {1, 2, 3, 4})), cst(f32({2, 2}, {1, 1, 1, 1}))}, {{"axis", 0}, {"epsilon", 1e-3}}),
        {2, 2}, {-1.5 / std::sqrt(1.251), -0.5 / std::sqrt(1.251), 0.5 / std::sqrt(1.251), 1.5 / std::sqrt(1.251)});
}

TEST_CASE("reference: BatchNormalization (inference)") {
  const RefTensor x = f32({1, 2, 1, 2}, {1, 2, 3, 4});
  check(run1("BatchNormalization",
             {in(x), cst(f32({2}, {1, 2})), cst(f32({2}, {0, 1})), cst(f32({2}, {1, 3})), cst(f32({2}, {4, 0.25f}))}),
        {1, 2, 1, 2}, {0, 1 / std::sqrt(4.00001), 1, 4.99992000239992});
  check(run1("BatchNormalization",
             {in(x), cst(f32({2}, {1, 1})), cst(f32({2}, {0, 0})), cst(f32({2}, {0, 0})), cst(f32({2}, {1, 1}))},
             {{"epsilon", 0.25}}),
        {1, 2, 1, 2}, {1 / std::sqrt(1.25), 2 / std::sqrt(1.25), 3 / std::sqrt(1.25), 4 / std::sqrt(1.25)});
}

TEST_CASE("reference: Add, Sub, Mul, Div, Pow with broadcasting; f32 and i64") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check(run1("Add", {in(a), in(f32({3}, {10, 20, 30}))}), {2, 3}, {11, 22, 33, 14, 25, 36});
  check(run1("Sub", {in(f32({}, {1})), in(a)}), {2, 3}, {0, -1, -2, -3, -4, -5});
  check(run1("Mul", {in(f32({2, 1}, {1, 2})), in(f32({1, 3}, {1, 2, 3}))}), {2, 3}, {1, 2, 3, 2, 4, 6});
  check(run1("Div", {in(a), in(f32({2, 1}, {2, 4}))}), {2, 3}, {0.5, 1, 1.5, 1, 1.25, 1.5});
  const RefTensor q = run1("Div", {in(i64({4}, {7, -7, 6, 1})), in(i64({}, {2}))});
  CHECK(q.dtype == DataType::i64);
  CHECK(q.to_int64s() == std::vector<std::int64_t>{3, -3, 3, 0});
  CHECK(run1("Add", {in(i64({2}, {1, 2})), in(i64({2}, {40, 3000000000}))}).to_int64s() ==
        std::vector<std::int64_t>{41, 3000000002});
  check(run1("Pow", {in(f32({3}, {2, 3, 4})), in(f32({}, {2}))}), {3}, {4, 9, 16});
  CHECK_THROWS_WITH_AS(run1("Div", {in(i64({1}, {1})), in(i64({1}, {0}))}), doctest::Contains("division by zero"),
                       std::runtime_error);
}

TEST_CASE("reference: Equal, Less, Greater, Where") {
  const RefTensor a = f32({3}, {1, 2, 3});
  const RefTensor b = f32({3}, {2, 2, 2});
  CHECK(run1("Equal", {in(a), in(b)}).to_int64s() == std::vector<std::int64_t>{0, 1, 0});
  CHECK(run1("Less", {in(a), in(b)}).to_int64s() == std::vector<std::int64_t>{1, 0, 0});
  const RefTensor gt = run1("Greater", {in(a), in(b)});
  CHECK(gt.dtype == DataType::boolean);
  CHECK(gt.to_int64s() == std::vector<std::int64_t>{0, 0, 1});
  const RefTensor cond = RefTensor::of<bool>({2, 1}, {true, false});
  check(run1("Where", {in(cond), in(a), in(f32({}, {-1}))}), {2, 3}, {1, 2, 3, -1, -1, -1});
}

TEST_CASE("reference: unary ops: Relu, Clip, Sigmoid, Tanh, Sqrt, Exp, Log, Neg, Abs, Erf, LeakyRelu, HardSwish, Identity") {
  const RefTensor x = f32({4}, {-1, 0, 0.5f, 7});
  check(run1("Relu", {in(x)}), {4}, {0, 0, 0.5, 7});
  check(run1("Clip", {in(x), cst(f32({}, {0})), cst(f32({}, {6}))}), {4}, {0, 0, 0.5, 6});
  check(run1("Clip", {in(x), std::nullopt, cst(f32({}, {0.25f}))}), {4}, {-1, 0, 0.25, 0.25});
  check(run1("Clip", {in(x)}), {4}, {-1, 0, 0.5, 7});
  CHECK(run1("Clip", {in(i64({3}, {-5, 3, 9})), cst(i64({}, {0})), cst(i64({}, {6}))}).to_int64s() ==
        std::vector<std::int64_t>{0, 3, 6});
  check(run1("Sigmoid", {in(f32({2}, {0, 1}))}), {2}, {0.5, 0.7310585786300049});
  check(run1("Tanh", {in(f32({2}, {0, 0.5f}))}), {2}, {0, 0.46211715726000974});
  check(run1("Sqrt", {in(f32({2}, {4, 2}))}), {2}, {2, std::sqrt(2.0)});
  check(run1("Exp", {in(f32({2}, {0, 1}))}), {2}, {1, std::exp(1.0)});
  check(run1("Log", {in(f32({2}, {1, 4}))}), {2}, {0, std::log(4.0)});
  check(run1("Neg", {in(x)}), {4}, {1, 0, -0.5, -7});
  CHECK(run1("Neg", {in(i64({2}, {3, -4}))}).to_int64s() == std::vector<std::int64_t>{-3, 4});
  check(run1("Abs", {in(x)}), {4}, {1, 0, 0.5, 7});
  check(run1("Erf", {in(f32({2}, {0, 1}))}), {2}, {0, std::erf(1.0)});
  check(run1("LeakyRelu", {in(x)}), {4}, {-0.01, 0, 0.5, 7});
  check(run1("LeakyRelu", {in(x)}, {{"alpha", 0.5}}), {4}, {-0.5, 0, 0.5, 7});
  check(run1("HardSwish", {in(f32({4}, {-4, 0, 1, 4}))}), {4}, {0, 0, 1 * (1 / 6. + 0.5), 4});
  check(run1("Identity", {in(x)}), {4}, {-1, 0, 0.5, 7});
}

TEST_CASE("reference: Gelu, exact and tanh-approximated") {
  const RefTensor x = f32({4}, {-1, 0, 1, 2});
  check(run1("Gelu", {in(x)}), {4}, {-0.15865525393145707, 0, 0.8413447460685429, 1.9544997361036416});
  check(run1("Gelu", {in(x)}, {{"approximate", "none"}}), {4},
        {-0.15865525393145707, 0, 0.8413447460685429, 1.9544997361036416});
  check(run1("Gelu", {in(x)}, {{"approximate", "tanh"}}), {4},
        {-0.15880800939172324, 0, 0.8411919906082768, 1.954597694087775});
}

TEST_CASE("reference: Cast between i64, f32, i32 and bool") {
  const RefTensor f = run1("Cast", {in(i64({3}, {1, -2, 3000000000}))}, {{"to", "f32"}});
  CHECK(f.dtype == DataType::f32);
  check(f, {3}, {1, -2, 3e9});
  const RefTensor i = run1("Cast", {in(f32({3}, {1.7f, -1.7f, 0}))}, {{"to", "i64"}});
  CHECK(i.dtype == DataType::i64);
  CHECK(i.to_int64s() == std::vector<std::int64_t>{1, -1, 0});
  const RefTensor b = run1("Cast", {in(f32({3}, {0, 0.5f, -2}))}, {{"to", "bool"}});
  CHECK(b.dtype == DataType::boolean);
  CHECK(b.to_int64s() == std::vector<std::int64_t>{0, 1, 1});
  const RefTensor k = run1("Cast", {in(RefTensor::of<bool>({2}, {true, false}))}, {{"to", "i32"}});
  CHECK(k.as<std::int32_t>()[0] == 1);
  CHECK(k.as<std::int32_t>()[1] == 0);
}

TEST_CASE("reference: Reshape with 0 and -1, allowzero; Squeeze, Unsqueeze") {
  const RefTensor x = RefTensor::random(DataType::f32, {2, 3, 4}, 5);
  const std::vector<double> v = x.to_doubles();
  check(run1("Reshape", {in(x), cst(i64({2}, {0, -1}))}), {2, 12}, v);
  check(run1("Reshape", {in(x), cst(i64({3}, {0, 0, -1}))}), {2, 3, 4}, v);
  check(run1("Reshape", {in(x), cst(i64({2}, {-1, 2}))}), {12, 2}, v);
  check(run1("Reshape", {in(x), cst(i64({4}, {1, 0, 2, -1}))}), {1, 3, 2, 4}, v);
  // allowzero: a 0 is a real 0 dim.
  check(run1("Reshape", {in(f32({0, 3}, {})), cst(i64({2}, {3, 0}))}, {{"allowzero", 1}}), {3, 0}, {});
  check(run1("Unsqueeze", {in(f32({3}, {1, 2, 3})), cst(i64({2}, {0, 2}))}), {1, 3, 1}, {1, 2, 3});
  check(run1("Unsqueeze", {in(f32({3}, {1, 2, 3})), cst(i64({1}, {-1}))}), {3, 1}, {1, 2, 3});
  check(run1("Squeeze", {in(f32({1, 3, 1}, {1, 2, 3}))}), {3}, {1, 2, 3});
  check(run1("Squeeze", {in(f32({1, 3, 1}, {1, 2, 3})), cst(i64({1}, {-1}))}), {1, 3}, {1, 2, 3});
}

TEST_CASE("reference: Transpose, Concat, Split, Slice, Gather, Expand, Shape") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check(run1("Transpose", {in(a)}), {3, 2}, {1, 4, 2, 5, 3, 6});
  check(run1("Transpose", {in(f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}))}, {{"perm", {0, 2, 1}}}), {1, 3, 2}, {1, 4, 2, 5, 3, 6});
  check(run1("Transpose", {in(f32({2, 1, 2}, {1, 2, 3, 4}))}, {{"perm", {2, 0, 1}}}), {2, 2, 1}, {1, 3, 2, 4});
  check(run1("Concat", {in(a), in(f32({2, 1}, {7, 8}))}, {{"axis", 1}}), {2, 4}, {1, 2, 3, 7, 4, 5, 6, 8});
  check(run1("Concat", {in(a), in(f32({1, 3}, {7, 8, 9}))}, {{"axis", -2}}), {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const auto parts = run_op("Split", {in(a), cst(i64({2}, {1, 2}))}, {{"axis", 1}}, 2);
  REQUIRE(parts.size() == 2);
  check(parts[0], {2, 1}, {1, 4});
  check(parts[1], {2, 2}, {2, 3, 5, 6});
  check(run1("Slice", {in(a), cst(i64({1}, {1})), cst(i64({1}, {100})), cst(i64({1}, {1}))}), {2, 2}, {2, 3, 5, 6});
  check(run1("Slice", {in(a), cst(i64({2}, {-1, -1})), cst(i64({2}, {-100, -100})), std::nullopt, cst(i64({2}, {-1, -2}))}),
        {2, 2}, {6, 4, 3, 1});
  check(run1("Gather", {in(a), cst(i64({2}, {2, -3}))}, {{"axis", 1}}), {2, 2}, {3, 1, 6, 4});
  check(run1("Gather", {in(a), cst(i64({}, {1}))}), {3}, {4, 5, 6});
  check(run1("Expand", {in(f32({2, 1}, {1, 2})), cst(i64({3}, {2, 1, 3}))}), {2, 2, 3},
        {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  CHECK(run1("Shape", {in(a)}).to_int64s() == std::vector<std::int64_t>{2, 3});
  CHECK(run1("Shape", {in(a)}, {{"start", -1}}).to_int64s() == std::vector<std::int64_t>{3});
}

TEST_CASE("reference: ReduceMean, ReduceSum, ReduceMax, ArgMax") {
  const RefTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 9});
  check(run1("ReduceMean", {in(a)}, {{"axes", {1}}}), {2, 1}, {2, 6});
  check(run1("ReduceMean", {in(a), cst(i64({1}, {0}))}, {{"keepdims", 0}}), {3}, {2.5, 3.5, 6});
  check(run1("ReduceMean", {in(a)}, {{"keepdims", 0}}), {}, {4});
  check(run1("ReduceSum", {in(a)}, {{"axes", {-1}}, {"keepdims", 0}}), {2}, {6, 18});
  check(run1("ReduceMax", {in(a)}, {{"axes", {0}}}), {1, 3}, {4, 5, 9});
  CHECK(run1("ArgMax", {in(a)}, {{"axis", 1}, {"keepdims", 0}}).to_int64s() == std::vector<std::int64_t>{2, 2});
}

TEST_CASE("reference: unimplemented ops, attributes and wrong inputs throw, naming the op") {
  CHECK_THROWS_WITH_AS(run1("ConvTranspose", {in(x3x3), cst(f32({1, 1, 1, 1}, {1}))}),
                       doctest::Contains("op 'ConvTranspose'"), std::runtime_error);
  CHECK_THROWS_WITH_AS(run1("BatchNormalization",
                            {in(x3x3), cst(f32({1}, {1})), cst(f32({1}, {0})), cst(f32({1}, {0})), cst(f32({1}, {1}))},
                            {{"training_mode", 1}}),
                       doctest::Contains("training_mode"), std::runtime_error);
  // An attribute the reference does not know (a graph built without validation).
  ge::Graph g;
  const auto x = g.add_input("x", DataType::f32, ge::Shape{2});
  const auto y = g.declare_value("y", {DataType::f32, ge::Shape{2}});
  g.add_node("r", "Relu", {x}, {y}, {{"slope", 2}});
  g.add_output(y);
  CHECK_THROWS_WITH_AS((void)ge::ref::run_reference(g, {f32({2}, {1, 2})}),
                       doctest::Contains("node 'r' (Relu): attribute 'slope'"), std::runtime_error);
  // An element type the reference does not do: the error still names the node.
  ge::GraphBuilder h;
  h.output(h.input("x", DataType::f16, "2").relu("half_relu"));
  RefTensor half(DataType::f16, {2});
  CHECK_THROWS_WITH_AS((void)ge::ref::run_reference(h.build(), {half}), doctest::Contains("node 'half_relu' (Relu)"),
                       std::runtime_error);
  // Inputs that do not fit the graph inputs.
  ge::GraphBuilder b;
  b.output(b.input("x", DataType::f32, "2,3").relu());
  const ge::Graph relu = b.build();
  CHECK_THROWS_AS((void)ge::ref::run_reference(relu, {f32({3, 2}, {1, 2, 3, 4, 5, 6})}), std::runtime_error);
  CHECK_THROWS_AS((void)ge::ref::run_reference(relu, {i64({2, 3}, {1, 2, 3, 4, 5, 6})}), std::runtime_error);
  CHECK_THROWS_AS((void)ge::ref::run_reference(relu, {}), std::runtime_error);
}

TEST_CASE("reference: all_close compares within atol + rtol * |expected|, exactly for integers") {
  const RefTensor e = f32({2, 2}, {1, 2, 100, std::nanf("")});
  std::vector<float> a{1.0005f, 2, 100.05f, std::nanf("")};
  std::string why;
  CHECK(ge::ref::all_close(e, a.data(), 4, 1e-3, 1e-3, &why));
  a[2] = 100.5f;
  CHECK_FALSE(ge::ref::all_close(e, a.data(), 4, 1e-3, 1e-3, &why));
  CHECK(why.find("at [1,0]") != std::string::npos);
  CHECK_FALSE(ge::ref::all_close(e, a.data(), 3, 1, 1, &why));
  a[3] = 0;
  CHECK_FALSE(ge::ref::all_close(e, a.data(), 4, 1, 1));
  const RefTensor n = i64({2}, {3, 4});
  const std::vector<float> exact{3, 4}, off{3, 4.0001f};
  CHECK(ge::ref::all_close(n, exact.data(), 2, 0.1, 0.1));
  CHECK_FALSE(ge::ref::all_close(n, off.data(), 2, 0.1, 0.1));
  CHECK(ge::ref::all_close(n, i64({2}, {3, 4}), 0, 0));
  CHECK_FALSE(ge::ref::all_close(n, i64({1, 2}, {3, 4}), 0, 0, &why));
  CHECK(ge::ref::max_abs_diff(f32({2}, {1, 2}), f32({2}, {1.5f, 2})) == doctest::Approx(0.5));
}

TEST_CASE("reference: RefTensor helpers") {
  const RefTensor t = f32({2, 2}, {1, 2, 3, 4});
  CHECK(t.elements() == 4);
  CHECK(t.describe() == "f32[2,2]");
  const ge::Tensor gt = t.to_tensor();
  CHECK(gt.dims() == std::vector<std::int64_t>{2, 2});
  const RefTensor back = RefTensor::from(gt);
  CHECK(back.bytes == t.bytes);
  CHECK(back.as<float>()[3] == 4.f);
  CHECK_THROWS_AS((void)t.as<double>(), std::runtime_error);
  CHECK(RefTensor(DataType::i32, {3}).to_int64s() == std::vector<std::int64_t>{0, 0, 0});
  CHECK(RefTensor::of<bool>({2}, {true, false}).as<std::uint8_t>()[0] == 1);
}

namespace {
bool all_finite(const RefTensor& t) {
  for (double v : t.to_doubles())
    if (!std::isfinite(v)) return false;
  return true;
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

TEST_CASE("reference: ResNet-50 at 1x3x64x64 gives finite [1, 1000] logits") {
  const ge::Graph g = ge::models::resnet50("1,3,64,64");
  const auto t0 = std::chrono::steady_clock::now();
  const auto out = ge::ref::run_reference(g, {RefTensor::random(DataType::f32, {1, 3, 64, 64}, 11)});
  MESSAGE("ResNet-50 1x3x64x64 reference run: " << seconds_since(t0) << " s");
  REQUIRE(out.size() == 1);
  CHECK(out[0].dtype == DataType::f32);
  CHECK(out[0].dims == std::vector<std::int64_t>{1, 1000});
  CHECK(all_finite(out[0]));
  // Not all equal: the logits depend on the input.
  const auto v = out[0].to_doubles();
  CHECK(*std::max_element(v.begin(), v.end()) > *std::min_element(v.begin(), v.end()));
}

TEST_CASE("reference: MobileNetV2 and the BERT encoder run and give finite outputs") {
  {
    const ge::Graph g = ge::models::mobilenet_v2("2,3,64,64");
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = ge::ref::run_reference(g, {RefTensor::random(DataType::f32, {2, 3, 64, 64}, 12)});
    MESSAGE("MobileNetV2 2x3x64x64 reference run: " << seconds_since(t0) << " s");
    REQUIRE(out.size() == 1);
    CHECK(out[0].dims == std::vector<std::int64_t>{2, 1000});
    CHECK(all_finite(out[0]));
  }
  {
    const ge::Graph g = ge::models::bert_encoder("2", "8");
    const RefTensor mask = i64({2, 8}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0});
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = ge::ref::run_reference(g, {RefTensor::random(DataType::f32, {2, 8, 256}, 13), mask});
    MESSAGE("BERT encoder 2x8 reference run: " << seconds_since(t0) << " s");
    REQUIRE(out.size() == 1);
    CHECK(out[0].dims == std::vector<std::int64_t>{2, 8, 256});
    CHECK(all_finite(out[0]));
    // Post-norm output: each row has mean ~ mean(norm bias) and is not constant.
    const auto v = out[0].to_doubles();
    CHECK(*std::max_element(v.begin(), v.begin() + 256) > *std::min_element(v.begin(), v.begin() + 256));
  }
}
