#pragma once
/// \file
/// Shared plumbing of the CPU kernels: argument checks that raise `ge::Error`, dims
/// arithmetic, broadcasting strides, fixed-width loops the compiler vectorises, and
/// `parallel_for` over the caller's oneTBB task arena (oneTBB stays in the .cpp).
///
/// ```
/// ge::cpu::check_dtype("Relu", "X", x, ge::DataType::f32);
/// ge::cpu::parallel_for(n, 4096, [&](std::int64_t b, std::int64_t e) { ... });
/// ```

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/tensor_view.hpp"

namespace ge::cpu {

/// A list of dims or strides, owned elsewhere.
using Dims = std::span<const std::int64_t>;

/// Dims or strides held in place, never on the heap (a kernel's run allocates nothing):
/// at most `kMax` of them, more than a view's rank (`ViewDims::max_rank`). Going past it
/// raises `Errc::unsupported`.
class SmallDims {
 public:
  static constexpr std::size_t kMax = 16;

  SmallDims() = default;
  /// `n` copies of `v`.
  SmallDims(std::size_t n, std::int64_t v) { resize(n, v); }
  /// A copy of `d`.
  SmallDims(Dims d) { assign(d.begin(), d.end()); }  // NOLINT(google-explicit-constructor)
  SmallDims(std::initializer_list<std::int64_t> d) { assign(d.begin(), d.end()); }
  /// A copy of a contiguous range of int64 (a vector, an array).
  template <class R>
    requires(std::is_convertible_v<const R&, Dims> && !std::is_same_v<std::remove_cvref_t<R>, SmallDims> &&
             !std::is_same_v<std::remove_cvref_t<R>, Dims>)
  SmallDims(const R& r) {  // NOLINT(google-explicit-constructor)
    const Dims d(r);
    assign(d.begin(), d.end());
  }
  /// A copy of `[first, last)`.
  template <std::input_iterator It>
  SmallDims(It first, It last) {
    assign(first, last);
  }

  template <std::input_iterator It>
  void assign(It first, It last) {
    size_ = 0;
    for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
  }
  void push_back(std::int64_t v) {
    if (size_ == kMax) too_many();
    d_[size_++] = v;
  }
  void resize(std::size_t n, std::int64_t v = 0) {
    if (n > kMax) too_many();
    for (std::size_t i = size_; i < n; ++i) d_[i] = v;
    size_ = n;
  }
  void clear() noexcept { size_ = 0; }
  void pop_back() noexcept { --size_; }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::int64_t* data() noexcept { return d_; }
  [[nodiscard]] const std::int64_t* data() const noexcept { return d_; }
  [[nodiscard]] std::int64_t* begin() noexcept { return d_; }
  [[nodiscard]] std::int64_t* end() noexcept { return d_ + size_; }
  [[nodiscard]] const std::int64_t* begin() const noexcept { return d_; }
  [[nodiscard]] const std::int64_t* end() const noexcept { return d_ + size_; }
  [[nodiscard]] std::int64_t& operator[](std::size_t i) noexcept { return d_[i]; }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept { return d_[i]; }
  [[nodiscard]] std::int64_t& front() noexcept { return d_[0]; }
  [[nodiscard]] std::int64_t front() const noexcept { return d_[0]; }
  [[nodiscard]] std::int64_t& back() noexcept { return d_[size_ - 1]; }
  [[nodiscard]] std::int64_t back() const noexcept { return d_[size_ - 1]; }
  operator Dims() const noexcept { return {d_, size_}; }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] friend bool operator==(const SmallDims& a, const SmallDims& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  [[noreturn]] static void too_many();
  std::int64_t d_[kMax] = {};
  std::size_t size_ = 0;
};

/// Raises `Error(code, "[ge.kernels] [<op>] <what>")`.
[[noreturn]] void fail(Errc code, std::string_view op, const std::string& what);

/// Dims as text in brackets, e.g. `[2,3,4]`.
[[nodiscard]] std::string bracketed(Dims dims);

/// Raises `Errc::type_mismatch` unless `t.dtype == expected`.
void check_dtype(std::string_view op, std::string_view name, const TensorView& t, DataType expected);

/// Raises `Errc::bad_op_inputs` unless `t.dims` equals `expected`, and `Errc::bad_tensor`
/// when `t` has elements but no data.
void check_dims(std::string_view op, std::string_view name, const TensorView& t, Dims expected);

/// Raises `Errc::bad_tensor` when `t` has elements but a null data pointer.
void check_data(std::string_view op, std::string_view name, const TensorView& t);

/// Raises `Errc::rank_mismatch` unless `t.rank() == rank`.
void check_rank(std::string_view op, std::string_view name, const TensorView& t, std::size_t rank);

/// The product of `dims[begin, end)`.
[[nodiscard]] std::int64_t product(Dims dims, std::size_t begin, std::size_t end) noexcept;

/// Dense row-major strides (in elements) of `dims`.
[[nodiscard]] SmallDims strides_of(Dims dims);

/// The strides (in elements) that read a tensor of dims `in` as if broadcast to `out`
/// (numpy rules, right-aligned; 0 along broadcast dims). Raises `Errc::incompatible_shapes`
/// naming `op` and `name` when `in` does not broadcast to `out`.
[[nodiscard]] SmallDims broadcast_strides(std::string_view op, std::string_view name, Dims in, Dims out);

/// The instruction sets the kernels are built for, narrowest first.
enum class Isa : std::uint8_t {
  baseline,  ///< x86-64 (SSE2)
  avx2,      ///< AVX2 + FMA
  avx512,    ///< AVX-512 F + DQ + BW + VL (and AMX-BF16 where present, amx.hpp)
};

/// The widest ISA the kernels use in this process: what the CPU has, capped by the
/// environment variable `GE_CPU_ISA` (`baseline`, `avx2` or `avx512`; read once, at the
/// first call), so that tests can run every path a machine has. Every kernel's run-time
/// dispatch goes through it.
[[nodiscard]] Isa isa() noexcept;

/// The lane count of the fixed-width loops below: 16 floats, one AVX-512 register.
inline constexpr std::int64_t kLanes = 16;

/// Calls `f(i)` for every `i` in `[0, n)`, in blocks of `kLanes` with a fixed trip count so
/// that `-O2` vectorises the block, then the tail. The block is marked free of loop-carried
/// dependences: `f(i)` may read and write index `i` of its arrays (in place is fine) but
/// must not read what another index writes.
template <class F>
inline void for_lanes(std::int64_t n, F&& f) {
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma GCC ivdep
    for (std::int64_t j = 0; j < kLanes; ++j) f(i + j);
  }
  for (; i + 4 <= n; i += 4) {
#pragma GCC ivdep
    for (std::int64_t j = 0; j < 4; ++j) f(i + j);
  }
  for (; i < n; ++i) f(i);
}

/// The non-template core of `parallel_for`: runs `fn(ctx, begin, end)` over chunks of
/// `[0, n)` of at least `grain` items on the current oneTBB task arena (serially when one
/// chunk covers all).
void parallel_for_raw(std::int64_t n, std::int64_t grain, void (*fn)(void*, std::int64_t, std::int64_t),
                      void* ctx);

/// Runs `f(begin, end)` over chunks of `[0, n)` of at least `grain` items, in parallel on
/// the caller's task arena. `f` must be safe to call concurrently on disjoint ranges.
template <class F>
inline void parallel_for(std::int64_t n, std::int64_t grain, F&& f) {
  using Fn = std::remove_reference_t<F>;
  parallel_for_raw(
      n, grain, [](void* ctx, std::int64_t b, std::int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

/// One core's L2 cache in bytes (the OS's figure; 1 MiB when it gives none).
[[nodiscard]] std::int64_t l2_bytes() noexcept;

/// `parallel_for` split evenly over the arena's threads, each thread's share the same on
/// every call with the same `n` (oneTBB's static partitioner, with its affinity): a loop
/// run many times over the same data (a recurrent layer's steps over its weights) finds
/// its share still in that thread's cache.
void parallel_for_static_raw(std::int64_t n, void (*fn)(void*, std::int64_t, std::int64_t), void* ctx);
template <class F>
inline void parallel_for_static(std::int64_t n, F&& f) {
  using Fn = std::remove_reference_t<F>;
  parallel_for_static_raw(
      n, [](void* ctx, std::int64_t b, std::int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

/// A grain (items per task) that gives each task about `work_per_task` units of work when
/// one item costs `work_per_item`.
[[nodiscard]] inline std::int64_t grain_for(std::int64_t work_per_item, std::int64_t work_per_task = 32768) noexcept {
  const std::int64_t w = work_per_item < 1 ? 1 : work_per_item;
  const std::int64_t g = work_per_task / w;
  return g < 1 ? 1 : g;
}

/// An uninitialised float buffer for scratch (packed panels, im2col): no zero-fill cost;
/// 64-byte (cache line) aligned.
class Scratch {
 public:
  Scratch() = default;
  /// A buffer of `n` floats, contents undefined; from 2 MiB on in 2 MiB pages where the
  /// system gives them on request (packed weights, large work buffers: fewer page faults
  /// and TLB misses).
  explicit Scratch(std::int64_t n)
      : data_(n > 0 ? new (std::align_val_t{alignment_for(n)}) float[static_cast<std::size_t>(n)] : nullptr),
        size_(n) {
    if (alignment_for(n) > 64) advise_huge_pages(data_, static_cast<std::size_t>(n) * sizeof(float));
  }
  /// `n` floats at `data`, which `owner` keeps alive (a mapped model file's packed
  /// weights): read-only, never freed here.
  Scratch(const float* data, std::int64_t n, std::shared_ptr<const void> owner)
      : data_(const_cast<float*>(data)), size_(n), owner_(std::move(owner)), external_(true) {}
  Scratch(Scratch&& o) noexcept { take(o); }
  Scratch& operator=(Scratch&& o) noexcept {
    if (this != &o) { release(); take(o); }
    return *this;
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { release(); }
  /// The first float.
  [[nodiscard]] float* data() const noexcept { return data_; }
  /// The number of floats.
  [[nodiscard]] std::int64_t size() const noexcept { return size_; }

 private:
  void take(Scratch& o) noexcept {
    data_ = o.data_;
    size_ = o.size_;
    owner_ = std::move(o.owner_);
    external_ = o.external_;
    o.data_ = nullptr;
    o.size_ = 0;
    o.external_ = false;
  }
  void release() noexcept {
    if (data_ != nullptr && !external_) ::operator delete[](data_, std::align_val_t{alignment_for(size_)});
    owner_.reset();
  }
  static constexpr std::size_t alignment_for(std::int64_t n) noexcept {
    return n >= (std::int64_t{1} << 19) ? std::size_t{2} << 20 : 64;  // 2 MiB of floats and more: 2 MiB
  }
  static void advise_huge_pages(void* p, std::size_t bytes) noexcept;
  float* data_ = nullptr;
  std::int64_t size_ = 0;
  std::shared_ptr<const void> owner_{};
  bool external_ = false;
};

/// How many times the pool of `PooledBuffer` allocated (a new buffer, or a free one
/// regrown): it settles at one buffer per task that held one at once, so after the first
/// runs this grows only when more such tasks run at once than ever before (the host
/// scheduler's streams and threads bound them). For tests that count allocations.
[[nodiscard]] std::uint64_t scratch_pool_allocations() noexcept;

/// A scratch buffer of at least `n` floats from a process-wide pool, given back when it
/// goes out of scope: after the first runs the kernels that take one (conv's B blocks,
/// the bf16 operands) allocate nothing. Thread-safe; not thread_local, because a thread
/// waiting in a nested `parallel_for` may run another kernel's task meanwhile.
class PooledBuffer {
 public:
  explicit PooledBuffer(std::int64_t n);
  ~PooledBuffer();
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;
  /// The first float.
  [[nodiscard]] float* data() const noexcept { return s_.data(); }

 private:
  Scratch s_;
};

/// Dims with size-1 axes dropped and neighbours merged where every operand reads them as
/// one run: `dims[i]` with one stride per operand in `strides[k][i]`. Used by the
/// broadcasting and copying loops to make the innermost run as long as possible.
struct Collapsed {
  /// The most operands `collapse` takes.
  static constexpr std::size_t kMaxOperands = 8;
  SmallDims dims;                          ///< merged dims (at least one, maybe 1)
  SmallDims strides[kMaxOperands];         ///< per operand, one stride per merged dim
  std::size_t operands = 0;                ///< how many of `strides` are used
};

/// Collapses `dims` with per-operand `strides` (each the same length as `dims`; at most
/// `Collapsed::kMaxOperands`).
[[nodiscard]] Collapsed collapse(Dims dims, std::initializer_list<Dims> strides);

/// Walks every index of `c.dims` except the last, calling `f(offsets, inner)` where
/// `offsets[k]` is operand k's element offset of the row start, for the rows
/// `[row_begin, row_end)` in row-major order; `inner` is `c.dims.back()`.
template <class F>
inline void for_rows(const Collapsed& c, std::int64_t row_begin, std::int64_t row_end, F&& f) {
  const std::size_t rank = c.dims.size();
  const std::size_t ops = c.operands;
  std::int64_t idx[16] = {};
  std::int64_t off[8] = {};
  // Decompose row_begin into an index over dims[0, rank-1).
  std::int64_t r = row_begin;
  for (std::size_t d = rank - 1; d-- > 0;) {
    idx[d] = r % c.dims[d];
    r /= c.dims[d];
  }
  for (std::size_t k = 0; k < ops; ++k) {
    off[k] = 0;
    for (std::size_t d = 0; d + 1 < rank; ++d) off[k] += idx[d] * c.strides[k][d];
  }
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    f(static_cast<const std::int64_t*>(off), c.dims[rank - 1]);
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++idx[d];
      for (std::size_t k = 0; k < ops; ++k) off[k] += c.strides[k][d];
      if (idx[d] < c.dims[d]) break;
      for (std::size_t k = 0; k < ops; ++k) off[k] -= c.strides[k][d] * c.dims[d];
      idx[d] = 0;
    }
  }
}

/// The number of rows `for_rows` walks: the product of all dims but the last.
[[nodiscard]] inline std::int64_t row_count(const Collapsed& c) noexcept {
  std::int64_t n = 1;
  for (std::size_t d = 0; d + 1 < c.dims.size(); ++d) n *= c.dims[d];
  return n;
}

}  // namespace ge::cpu
