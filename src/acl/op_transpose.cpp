// The permutations and regroupings of single-op buffers that op_map.cpp's layout rules
// describe (an NHWC image or an HWCN filter read as ge's NCHW / OIHW): the dims, and the
// dense transpose `run` (op.cpp) applies to a buffer.
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "acl/op_map.hpp"

namespace acl {

std::vector<std::int64_t> regrouped(std::span<const std::int64_t> dims, std::span<const std::uint64_t> masks) {
  std::vector<std::int64_t> out;
  for (const std::uint64_t m : masks) {
    std::int64_t d = 1;
    for (std::size_t k = 0; k < dims.size(); ++k)
      if ((m >> k) & 1u) d *= dims[k];
    out.push_back(d);
  }
  return out;
}

std::vector<std::int64_t> permuted(std::span<const std::int64_t> dims, std::span<const std::int64_t> perm) {
  std::vector<std::int64_t> out;
  out.reserve(perm.size());
  for (const std::int64_t p : perm) out.push_back(dims[static_cast<std::size_t>(p)]);
  return out;
}

namespace {

// transpose for elements of type T: the destination's last dim in a tight loop (a
// strided read), the outer dims as an odometer.
template <class T>
void transpose_as(const T* src, T* dst, std::span<const std::int64_t> to_dims, std::span<const std::int64_t> stride,
                  std::int64_t count) {
  const std::size_t rank = to_dims.size();
  const std::int64_t inner = to_dims[rank - 1], step = stride[rank - 1];
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t at = 0;  // the source element of the destination's `index`
  for (std::int64_t done = 0; done < count; done += inner) {
    for (std::int64_t k = 0; k < inner; ++k) *dst++ = src[at + k * step];
    for (std::size_t i = rank - 1; i-- > 0;) {
      at += stride[i];
      if (++index[i] < to_dims[i]) break;
      at -= stride[i] * to_dims[i];
      index[i] = 0;
    }
  }
}

}  // namespace

void transpose(const void* from, void* to, std::span<const std::int64_t> dims, std::span<const std::int64_t> perm,
               std::size_t element_size) {
  const std::size_t rank = dims.size();
  std::int64_t count = 1;
  for (const std::int64_t d : dims) count *= d;
  if (count == 0) return;
  if (rank == 0) {
    std::memcpy(to, from, element_size);
    return;
  }
  // The source strides (in elements) of the destination's dims.
  std::vector<std::int64_t> src_stride(rank, 1), stride(rank);
  for (std::size_t i = rank; i-- > 1;) src_stride[i - 1] = src_stride[i] * dims[i];
  for (std::size_t i = 0; i < rank; ++i) stride[i] = src_stride[static_cast<std::size_t>(perm[i])];
  const std::vector<std::int64_t> to_dims = permuted(dims, perm);
  const auto as = [&]<class T>(T) {
    transpose_as(static_cast<const T*>(from), static_cast<T*>(to), to_dims, stride, count);
  };
  switch (element_size) {
    case 1: return as(std::uint8_t{});
    case 2: return as(std::uint16_t{});
    case 4: return as(std::uint32_t{});
    case 8: return as(std::uint64_t{});
    default: break;
  }
  // Other sizes: byte copies per element.
  std::vector<std::int64_t> index(rank, 0);
  const auto* src = static_cast<const std::byte*>(from);
  auto* dst = static_cast<std::byte*>(to);
  std::int64_t at = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    std::memcpy(dst + static_cast<std::size_t>(k) * element_size, src + static_cast<std::size_t>(at) * element_size,
                element_size);
    for (std::size_t i = rank; i-- > 0;) {
      at += stride[i];
      if (++index[i] < to_dims[i]) break;
      at -= stride[i] * to_dims[i];
      index[i] = 0;
    }
  }
}

}  // namespace acl
