#pragma once
/// \file
/// `ge::TensorView`: a non-owning view of a dense, row-major tensor in memory: the ABI
/// between the runtime and kernels. It owns its dims (inline, up to `ViewDims::max_rank`),
/// so a view made from a temporary vector of dims stays valid, and it may know how many
/// bytes its memory holds, so that the runtime can refuse a buffer too small for the dims.
/// Nothing here allocates.
///
/// ```
/// std::vector<float> buf(2 * 3);
/// ge::TensorView t(std::span(buf), {2, 3});           // f32 from the element type, 24 bytes known
/// t.elements();   // 6
/// t.as<float>();  // float*
/// ge::TensorView raw{buf.data(), ge::DataType::f32, std::vector<std::int64_t>{2, 3}};  // capacity unknown
/// ```

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <type_traits>

#include "ge/core/api.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"

namespace ge {

/// The dims of a view, stored in it. Converts from anything that converts to
/// `std::span<const std::int64_t>` (vectors, arrays, spans) and from a braced list, and
/// to `std::span<const std::int64_t>` (valid while the view lives).
class ViewDims {
 public:
  /// The highest rank a view holds.
  static constexpr std::size_t max_rank = 12;

  constexpr ViewDims() noexcept = default;
  /// A copy of `d`. Throws `Errc::invalid_argument` above `max_rank` dims.
  ViewDims(std::span<const std::int64_t> d) { assign(d); }  // NOLINT(google-explicit-constructor)
  /// A copy of `d`.
  ViewDims(std::initializer_list<std::int64_t> d) { assign(std::span<const std::int64_t>(d.begin(), d.size())); }
  /// A copy of a contiguous range of int64 (a vector, an array).
  template <class R>
    requires(std::is_convertible_v<const R&, std::span<const std::int64_t>> &&
             !std::is_same_v<std::remove_cvref_t<R>, ViewDims> &&
             !std::is_same_v<std::remove_cvref_t<R>, std::span<const std::int64_t>>)
  ViewDims(const R& r) {  // NOLINT(google-explicit-constructor)
    assign(std::span<const std::int64_t>(r));
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const std::int64_t* data() const noexcept { return d_; }
  [[nodiscard]] const std::int64_t* begin() const noexcept { return d_; }
  [[nodiscard]] const std::int64_t* end() const noexcept { return d_ + size_; }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept { return d_[i]; }
  [[nodiscard]] std::int64_t front() const noexcept { return d_[0]; }
  [[nodiscard]] std::int64_t back() const noexcept { return d_[size_ - 1]; }
  /// As a span over this object's storage.
  [[nodiscard]] std::span<const std::int64_t> span() const noexcept { return {d_, size_}; }
  operator std::span<const std::int64_t>() const noexcept { return span(); }  // NOLINT(google-explicit-constructor)
  /// `span().first(n)`, `span().subspan(...)`.
  [[nodiscard]] std::span<const std::int64_t> first(std::size_t n) const noexcept { return span().first(n); }
  [[nodiscard]] std::span<const std::int64_t> subspan(std::size_t offset,
                                                      std::size_t count = std::dynamic_extent) const noexcept {
    return span().subspan(offset, count);
  }
  [[nodiscard]] friend bool operator==(const ViewDims& a, const ViewDims& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void assign(std::span<const std::int64_t> d) {
    if (d.size() > max_rank)
      raise(Errc::invalid_argument, "[ge.core] a tensor view holds at most " + std::to_string(max_rank) +
                                        " dims; got " + std::to_string(d.size()));
    std::copy(d.begin(), d.end(), d_);
    size_ = d.size();
  }
  std::int64_t d_[max_rank] = {};
  std::size_t size_ = 0;
};

/// A dense row-major tensor: data, element type, dims (owned), and optionally how many
/// bytes the memory at `data` holds (`capacity`, -1: not known).
struct GE_API TensorView {
  void* data = nullptr;
  DataType dtype = DataType::undefined;
  ViewDims dims;
  std::int64_t capacity = -1;  ///< bytes at `data`; -1: unknown (not checked)

  TensorView() = default;
  /// Raw memory of `dtype` with `dims`; `capacity_bytes` (when >= 0) is how much it holds.
  TensorView(void* p, DataType t, ViewDims d, std::int64_t capacity_bytes = -1) noexcept
      : data(p), dtype(t), dims(d), capacity(capacity_bytes) {}
  /// The elements of `s` with `dims`: the type from `T` (f32 for float, i64 for
  /// std::int64_t, ...), the capacity from the span. `T` must be an element type of
  /// ge (see `data_type.hpp`).
  template <class T>
    requires(data_type_of<std::remove_const_t<T>>() != DataType::undefined)
  TensorView(std::span<T> s, ViewDims d) noexcept
      : data(const_cast<std::remove_const_t<T>*>(s.data())),
        dtype(data_type_of<std::remove_const_t<T>>()),
        dims(d),
        capacity(static_cast<std::int64_t>(s.size_bytes())) {}

  /// The number of dims.
  [[nodiscard]] std::size_t rank() const noexcept { return dims.size(); }
  /// The product of the dims (1 for a scalar; 0 when a dim is 0), saturating at the
  /// int64 maximum instead of overflowing: see `checked_elements` for a checked count.
  [[nodiscard]] std::int64_t elements() const noexcept {
    for (const std::int64_t d : dims)
      if (d == 0) return 0;
    std::int64_t n = 1;
    for (const std::int64_t d : dims)
      if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::int64_t>::max();
    return n;
  }
  /// The size in bytes, saturating as `elements()`: see `checked_bytes`.
  [[nodiscard]] std::int64_t bytes() const noexcept {
    std::int64_t b = 0;
    return __builtin_mul_overflow(elements(), size_of(dtype), &b) ? std::numeric_limits<std::int64_t>::max() : b;
  }
  /// The data as `T*` (the caller knows `dtype`).
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(data);
  }
};

/// The product of `dims`, each >= 0; throws `Errc::int_overflow` (quoting the dims) when
/// it does not fit in int64, `Errc::invalid_argument` for a negative dim.
[[nodiscard]] GE_API std::int64_t checked_elements(std::span<const std::int64_t> dims);
/// `checked_elements(dims) * size_of(dtype)`, with the same checks.
[[nodiscard]] GE_API std::int64_t checked_bytes(std::span<const std::int64_t> dims, DataType dtype);

}  // namespace ge
