#include "kernels/cpu/common.hpp"

#include "ge/core/log.hpp"
#include "ge/core/text.hpp"

#include "core/tsan.hpp"

#include <atomic>
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <mutex>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace ge::cpu {

void Scratch::advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}


namespace {

Isa detect_isa() noexcept {
  Isa best = Isa::baseline;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Isa::avx2;
  if (best == Isa::avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    best = Isa::avx512;
#endif
  if (const char* cap = std::getenv("GE_CPU_ISA"); cap != nullptr && *cap != '\0') {
    const std::string_view c(cap);
    if (c != "baseline" && c != "avx2" && c != "avx512") {
      // A typo must not pass for a cap: say so (the log is safe this early: its state is
      // a function-local static) and use what the CPU has.
      try {
        log_message(LogLevel::warn, "[ge.kernels] GE_CPU_ISA='" + std::string(c) +
                                        "' is not an instruction set; expected baseline, avx2 or avx512; the kernels "
                                        "use what the CPU has");
      } catch (...) {  // isa() is noexcept: a failed log is no reason to stop
      }
      return best;
    }
    const Isa limit = c == "baseline" ? Isa::baseline : c == "avx2" ? Isa::avx2 : Isa::avx512;
    if (limit < best) best = limit;
  }
  return best;
}

}  // namespace

Isa isa() noexcept {
  static const Isa chosen = detect_isa();
  return chosen;
}


namespace {

// The free buffers of `PooledBuffer`: a take picks the smallest free one that fits, else
// the largest free one regrown, so the pool settles at one buffer per concurrent task.
class BufferPool {
 public:
  // Room for the buffers of many concurrent tasks: giving one back never allocates.
  BufferPool() { free_.reserve(256); }
  Scratch take(std::int64_t n) {
    Scratch s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::size_t pick = free_.size();
      for (std::size_t i = 0; i < free_.size(); ++i) {
        const bool fits = free_[i].size() >= n;
        if (pick == free_.size()) {
          pick = i;
        } else if (fits ? free_[pick].size() < n || free_[i].size() < free_[pick].size()
                        : free_[pick].size() < n && free_[i].size() > free_[pick].size()) {
          pick = i;
        }
      }
      if (pick < free_.size()) {
        s = std::move(free_[pick]);
        free_[pick] = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (s.size() < n) {
      allocations_.fetch_add(1, std::memory_order_relaxed);
      // From 64 KiB on, whole 2 MiB pages (see Scratch): the first run of a process faults
      // a large buffer in once per 2 MiB instead of once per 4 KiB.
      constexpr std::int64_t huge = std::int64_t{1} << 19, page = 1024;
      s = Scratch(n >= 16 * page ? (n + huge - 1) / huge * huge : (n + page - 1) / page * page);
    }
    return s;
  }
  void give(Scratch s) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(s));
  }
  [[nodiscard]] std::uint64_t allocations() const noexcept { return allocations_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> allocations_{0};
  std::mutex mu_;
  std::vector<Scratch> free_;
};

BufferPool& buffer_pool() {
  static BufferPool pool;
  return pool;
}

}  // namespace

std::uint64_t scratch_pool_allocations() noexcept { return buffer_pool().allocations(); }

PooledBuffer::PooledBuffer(std::int64_t n) : s_(buffer_pool().take(n)) {}
PooledBuffer::~PooledBuffer() { buffer_pool().give(std::move(s_)); }


void fail(Errc code, std::string_view op, const std::string& what) {
  std::string msg = "[ge.kernels] [";
  msg += op;
  msg += "] ";
  msg += what;
  raise(code, msg);
}

std::string bracketed(Dims dims) { return "[" + ge::dims_text(dims) + "]"; }

void check_dtype(std::string_view op, std::string_view name, const TensorView& t, DataType expected) {
  if (t.dtype != expected) {
    fail(Errc::type_mismatch, op,
         std::string(name) + " has type '" + std::string(to_string(t.dtype)) + "'; expected '" +
             std::string(to_string(expected)) + "'");
  }
}

void check_data(std::string_view op, std::string_view name, const TensorView& t) {
  for (const std::int64_t d : t.dims) {
    if (d < 0) fail(Errc::bad_tensor, op, std::string(name) + " has a negative dim: " + bracketed(t.dims));
  }
  if (t.data == nullptr && t.elements() != 0) {
    fail(Errc::bad_tensor, op, std::string(name) + " has " + std::to_string(t.elements()) + " elements but no data");
  }
}

void check_dims(std::string_view op, std::string_view name, const TensorView& t, Dims expected) {
  const bool same = t.dims.size() == expected.size() && std::equal(expected.begin(), expected.end(), t.dims.begin());
  if (!same) {
    fail(Errc::bad_op_inputs, op,
         std::string(name) + " has dims " + bracketed(t.dims) + "; expected " + bracketed(expected));
  }
  check_data(op, name, t);
}

void check_rank(std::string_view op, std::string_view name, const TensorView& t, std::size_t rank) {
  if (t.rank() != rank) {
    fail(Errc::rank_mismatch, op,
         std::string(name) + " has rank " + std::to_string(t.rank()) + " (dims " + bracketed(t.dims) +
             "); expected rank " + std::to_string(rank));
  }
  check_data(op, name, t);
}

std::int64_t product(Dims dims, std::size_t begin, std::size_t end) noexcept {
  std::int64_t n = 1;
  for (std::size_t i = begin; i < end && i < dims.size(); ++i) n *= dims[i];
  return n;
}

void SmallDims::too_many() {
  fail(Errc::unsupported, "kernels", "more than " + std::to_string(kMax) + " dims or strides in one list");
}

SmallDims strides_of(Dims dims) {
  SmallDims s(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

SmallDims broadcast_strides(std::string_view op, std::string_view name, Dims in, Dims out) {
  if (in.size() > out.size()) {
    fail(Errc::incompatible_shapes, op,
         std::string(name) + " dims " + bracketed(in) + " do not broadcast to " + bracketed(out));
  }
  const SmallDims dense = strides_of(in);
  SmallDims s(out.size(), 0);
  const std::size_t lead = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t d = in[i];
    const std::int64_t o = out[lead + i];
    if (d == o) {
      s[lead + i] = d == 1 ? 0 : dense[i];
    } else if (d == 1) {
      s[lead + i] = 0;
    } else {
      fail(Errc::incompatible_shapes, op,
           std::string(name) + " dims " + bracketed(in) + " do not broadcast to " + bracketed(out));
    }
  }
  return s;
}

Collapsed collapse(Dims dims, std::initializer_list<Dims> strides_list) {
  if (strides_list.size() > Collapsed::kMaxOperands)
    fail(Errc::internal, "kernels", "more than " + std::to_string(Collapsed::kMaxOperands) + " operands to collapse");
  const Dims* strides = strides_list.begin();
  const std::size_t ops = strides_list.size();
  Collapsed c;
  c.operands = ops;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    bool merge = !c.dims.empty();
    if (merge) {
      for (std::size_t k = 0; k < ops; ++k) {
        if (c.strides[k].back() != strides[k][i] * dims[i]) {
          merge = false;
          break;
        }
      }
    }
    if (merge) {
      c.dims.back() *= dims[i];
      for (std::size_t k = 0; k < ops; ++k) c.strides[k].back() = strides[k][i];
    } else {
      c.dims.push_back(dims[i]);
      for (std::size_t k = 0; k < ops; ++k) c.strides[k].push_back(strides[k][i]);
    }
  }
  if (c.dims.empty()) {
    c.dims.push_back(1);
    for (std::size_t k = 0; k < ops; ++k) c.strides[k].push_back(0);
  }
  return c;
}

void parallel_for_raw(std::int64_t n, std::int64_t grain, void (*fn)(void*, std::int64_t, std::int64_t), void* ctx) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
#ifdef GE_TSAN
  // Under ThreadSanitizer a kernel's own loop runs on the calling thread: oneTBB's
  // parallel_for inlines its task tree into our code and synchronises it inside the
  // uninstrumented libtbb, which TSan reports as races in oneTBB's headers. The runs,
  // the host scheduler and the sessions (what TSan is here for) stay concurrent.
  fn(ctx, 0, n);
  (void)grain;
#else
  if (n <= grain) {
    fn(ctx, 0, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, static_cast<std::size_t>(grain)),
                    [&](const tbb::blocked_range<std::int64_t>& r) { fn(ctx, r.begin(), r.end()); });
#endif
}

std::int64_t l2_bytes() noexcept {
  static const std::int64_t bytes = [] {
    const long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? static_cast<std::int64_t>(v) : std::int64_t{1} << 20;
  }();
  return bytes;
}

void parallel_for_static_raw(std::int64_t n, void (*fn)(void*, std::int64_t, std::int64_t), void* ctx) {
  if (n <= 0) return;
#ifdef GE_TSAN
  fn(ctx, 0, n);  // as parallel_for_raw
#else
  if (n == 1) {
    fn(ctx, 0, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, 1),
                    [&](const tbb::blocked_range<std::int64_t>& r) { fn(ctx, r.begin(), r.end()); },
                    tbb::static_partitioner());
#endif
}

}  // namespace ge::cpu
