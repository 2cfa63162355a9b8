#include "ge/tensor/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>

#include "ge/core/text.hpp"

namespace ge {

namespace {

[[noreturn]] void bad(Errc code, const std::string& what) { raise(code, "[ge.graph] " + what); }

// splitmix64: small, portable, and good enough for seeded weights.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

template <class T>
void fill(std::span<std::byte> bytes, std::size_t i, double v) {
  T x{};
  if constexpr (std::is_floating_point_v<T>) x = static_cast<T>(v);
  else x = static_cast<T>(std::llround(v));
  std::memcpy(bytes.data() + i * sizeof(T), &x, sizeof(T));
}

void store(DataType t, std::span<std::byte> bytes, std::size_t i, double v) {
  visit(t, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_void_v<T>)
      raise(Errc::unsupported, "[ge.graph] cannot fill a tensor of type '" + std::string(to_string(t)) +
                                   "'; expected a float, integer or bool type (f16/bf16 values come as bytes)");
    else if constexpr (std::is_same_v<T, bool>)
      bytes[i] = std::byte{v != 0.0 ? std::uint8_t{1} : std::uint8_t{0}};
    else
      fill<T>(bytes, i, v);
  });
}

template <class T>
T load(std::span<const std::byte> bytes, std::size_t i) {
  T x{};
  std::memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
  return x;
}

double load_double(DataType t, std::span<const std::byte> b, std::size_t i) {
  return visit(t, [&]<class T>(std::type_identity<T>) -> double {
    if constexpr (std::is_void_v<T>)
      raise(Errc::unsupported, "[ge.graph] cannot read a tensor of type '" + std::string(to_string(t)) +
                                   "' as numbers; expected a float, integer or bool type");
    else if constexpr (std::is_same_v<T, bool>)
      return b[i] != std::byte{0} ? 1.0 : 0.0;
    else
      return static_cast<double>(load<T>(b, i));
  });
}

void check_numbers(DataType t, const char* what) {
  if (t == DataType::f16 || t == DataType::bf16 || t == DataType::undefined)
    raise(Errc::unsupported, std::string("[ge.graph] cannot ") + what + " a tensor of type '" +
                                 std::string(to_string(t)) +
                                 "' as numbers; expected a float, integer or bool type (f16/bf16 come as bytes)");
}

std::int64_t count_of(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0) bad(Errc::invalid_argument, "tensor dims '" + dims_text(dims) + "' have a negative dim; expected dims >= 0");
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      bad(Errc::int_overflow, "tensor dims '" + dims_text(dims) + "' hold more elements than int64 counts");
    n *= d;
  }
  return n;
}

}  // namespace

std::string to_string(const TensorDesc& d) {
  return std::string(to_string(d.dtype)) + "[" + d.shape.to_string() + "]";
}

Tensor::Tensor() : Tensor(DataType::f32, {}, std::vector<std::byte>(4)) {}

namespace {
// Throws unless `bytes` bytes hold a tensor of `dtype` and `dims`.
void check_bytes(DataType dtype, const std::vector<std::int64_t>& dims, std::size_t bytes) {
  if (dtype == DataType::undefined) bad(Errc::invalid_argument, "a tensor of type 'undefined'; expected a real data type");
  const std::int64_t n = count_of(dims);
  const auto want = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(size_of(dtype));
  if (want != bytes)
    bad(Errc::bad_tensor, "tensor " + std::string(to_string(dtype)) + "[" + dims_text(dims) + "] needs " +
                              std::to_string(want) + " bytes; got " + std::to_string(bytes));
}
}  // namespace

Tensor::Tensor(DataType dtype, std::vector<std::int64_t> shape, std::vector<std::byte> bytes)
    : dtype_(dtype), dims_(std::move(shape)) {
  check_bytes(dtype_, dims_, bytes.size());
  auto owner = std::make_shared<const std::vector<std::byte>>(std::move(bytes));
  size_ = owner->size();
  data_ = std::shared_ptr<const std::byte>(owner, owner->data());
}

Tensor Tensor::view(DataType dtype, std::vector<std::int64_t> shape, std::span<const std::byte> bytes,
                    std::shared_ptr<const void> owner) {
  check_bytes(dtype, shape, bytes.size());
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(shape);
  t.size_ = bytes.size();
  t.data_ = std::shared_ptr<const std::byte>(std::move(owner), bytes.data());
  return t;
}

Tensor Tensor::without_data(DataType dtype, std::vector<std::int64_t> shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(shape);
  t.data_ = nullptr;
  t.size_ = 0;
  return t;
}

// Zeroed bytes at a 64-byte boundary, for the tensors made here: a vector's bytes start 16
// bytes into a cache line, so every 64-byte vector load of them spans two lines (a kernel
// benchmarked on them ran at half the speed it has on a plan's arena, which aligns to 64).
namespace {
std::pair<std::shared_ptr<const std::byte>, std::span<std::byte>> aligned_bytes(std::size_t n) {
  auto* p = static_cast<std::byte*>(::operator new(std::max<std::size_t>(n, 1), std::align_val_t{64}));
  std::memset(p, 0, n);
  return {std::shared_ptr<const std::byte>(p, [](const std::byte* q) { ::operator delete(const_cast<std::byte*>(q), std::align_val_t{64}); }),
          std::span<std::byte>(p, n)};
}
}  // namespace

Tensor Tensor::full(DataType dtype, std::vector<std::int64_t> shape, double value) {
  check_numbers(dtype, "fill");
  const auto n = static_cast<std::size_t>(count_of(shape));
  auto [owner, bytes] = aligned_bytes(n * static_cast<std::size_t>(size_of(dtype)));
  for (std::size_t i = 0; i < n; ++i) store(dtype, bytes, i, value);
  return view(dtype, std::move(shape), bytes, std::move(owner));
}

Tensor Tensor::random(DataType dtype, std::vector<std::int64_t> shape, std::uint64_t seed, double lo, double hi) {
  check_numbers(dtype, "fill");
  if (dtype == DataType::boolean)
    raise(Errc::unsupported, "[ge.graph] random values of type 'bool'; expected a float or integer type");
  const auto n = static_cast<std::size_t>(count_of(shape));
  auto [owner, bytes] = aligned_bytes(n * static_cast<std::size_t>(size_of(dtype)));
  std::uint64_t state = seed;
  const bool integral = !(dtype == DataType::f32 || dtype == DataType::f64);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(next(state) >> 11) * 0x1.0p-53;  // [0, 1)
    double v = lo + (hi - lo) * u;
    if (integral) v = std::floor(v);
    store(dtype, bytes, i, v);
  }
  return view(dtype, std::move(shape), bytes, std::move(owner));
}

Shape Tensor::shape() const {
  std::vector<Dim> d;
  d.reserve(dims_.size());
  for (std::int64_t x : dims_) d.emplace_back(x);
  return Shape(std::move(d));
}

std::int64_t Tensor::element_count() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t d : dims_) n *= d;
  return n;
}

std::vector<std::int64_t> Tensor::to_int64s() const {
  if (!has_data()) raise(Errc::unsupported, "[ge.graph] the tensor's data is gone (held by a kernel)");
  const auto n = static_cast<std::size_t>(element_count());
  std::vector<std::int64_t> out(n);
  const auto b = bytes();
  visit(dtype_, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = b[i] != std::byte{0};
    } else if constexpr (std::is_integral_v<T>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int64_t>(load<T>(b, i));
    } else if (n > 0) {
      raise(Errc::type_mismatch, "[ge.graph] cannot read a tensor of type '" + std::string(to_string(dtype_)) +
                                     "' as integers; expected an integer or bool type");
    }
  });
  return out;
}

std::vector<double> Tensor::to_doubles() const {
  if (!has_data()) raise(Errc::unsupported, "[ge.graph] the tensor's data is gone (held by a kernel)");
  const auto n = static_cast<std::size_t>(element_count());
  std::vector<double> out(n);
  check_numbers(dtype_, "read");
  for (std::size_t i = 0; i < n; ++i) out[i] = load_double(dtype_, bytes(), i);
  return out;
}

bool operator==(const Tensor& a, const Tensor& b) noexcept {
  if (a.dtype_ != b.dtype_ || a.dims_ != b.dims_) return false;
  if (a.data_ == b.data_ && a.size_ == b.size_) return true;
  if (a.size_ != b.size_) return false;
  return a.size_ == 0 || std::memcmp(a.data_.get(), b.data_.get(), a.size_) == 0;
}

}  // namespace ge
