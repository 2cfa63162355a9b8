// Copy, ConstantOfShape, Transpose, Concat, Split, Slice, Gather, Expand and Cast (Pad
// and Resize are pad_resize.cpp's).
#include "kernels/cpu/movement/data_movement.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/dispatch.hpp"

#if GE_X86_KERNELS
#include <immintrin.h>
#endif

#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace ge::cpu {

std::string type_text(DataType t) { return "'" + std::string(to_string(t)) + "'"; }

void same_type(std::string_view op, const char* a, const TensorView& x, const char* b, const TensorView& y) {
  if (x.dtype != y.dtype) {
    fail(Errc::type_mismatch, op,
         std::string(a) + " is " + type_text(x.dtype) + " but " + b + " is " + type_text(y.dtype));
  }
}

#if GE_X86_KERNELS
// dst[b][i][j] = src[b * sb + i + j * ld] for images b in [b0, b1), rows i in [r0, r1) of
// M, N = 2 to 4 columns (an image's few channels interleaved: NCHW -> NHWC of a 3-channel
// input; ShuffleNet's channel shuffle on NHWC, per pixel an [2, C/2] -> [C/2, 2]) on
// AVX-512: per 16 rows, the N column runs are loaded whole and output vector o takes lane
// l from column (16 o + l) % N, row (16 o + l) / N, by N masked permutes; rows past the
// last 16 one at a time. The permutes are set up once for all the images.
GE_TARGET_AVX512 void interleave_avx512(std::int64_t n, const std::uint32_t* src, std::int64_t sb, std::int64_t ld,
                                        std::int64_t m, std::int64_t b0, std::int64_t b1, std::int64_t r0,
                                        std::int64_t r1, std::uint32_t* dst) {
  __m512i idx[4];
  __mmask16 mask[4][4];
  for (std::int64_t o = 0; o < n; ++o) {
    alignas(64) std::int32_t lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = static_cast<std::int32_t>((16 * o + l) / n);
    idx[o] = _mm512_load_si512(lanes);
    for (std::int64_t j = 0; j < n; ++j) {
      unsigned bits = 0;
      for (int l = 0; l < 16; ++l)
        if ((16 * o + l) % n == j) bits |= 1u << l;
      mask[o][j] = static_cast<__mmask16>(bits);
    }
  }
  for (std::int64_t b = b0; b < b1; ++b) {
    const std::uint32_t* s = src + b * sb;
    std::uint32_t* d = dst + b * m * n;
    std::int64_t i = r0;
    for (; i + 16 <= r1; i += 16) {
      __m512i v[4];
      for (std::int64_t j = 0; j < n; ++j) v[j] = _mm512_loadu_si512(s + j * ld + i);
      for (std::int64_t o = 0; o < n; ++o) {
        __m512i out = _mm512_setzero_si512();
        for (std::int64_t j = 0; j < n; ++j) out = _mm512_mask_permutexvar_epi32(out, mask[o][j], idx[o], v[j]);
        _mm512_storeu_si512(d + i * n + 16 * o, out);
      }
    }
    for (; i < r1; ++i)
      for (std::int64_t j = 0; j < n; ++j) d[i * n + j] = s[j * ld + i];
  }
}

// The same on AVX2: per 8 rows, output vector o takes lane l from column (8 o + l) % N,
// row (8 o + l) / N: N permutes of the column runs, blended by lane masks.
GE_TARGET_AVX2 void interleave_avx2(std::int64_t n, const std::uint32_t* src, std::int64_t sb, std::int64_t ld,
                                    std::int64_t m, std::int64_t b0, std::int64_t b1, std::int64_t r0, std::int64_t r1,
                                    std::uint32_t* dst) {
  __m256i idx[4], mask[4][4];
  for (std::int64_t o = 0; o < n; ++o) {
    alignas(32) std::int32_t lanes[8], bits[8];
    for (int l = 0; l < 8; ++l) lanes[l] = static_cast<std::int32_t>((8 * o + l) / n);
    idx[o] = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
    for (std::int64_t j = 0; j < n; ++j) {
      for (int l = 0; l < 8; ++l) bits[l] = (8 * o + l) % n == j ? -1 : 0;
      mask[o][j] = _mm256_load_si256(reinterpret_cast<const __m256i*>(bits));
    }
  }
  for (std::int64_t b = b0; b < b1; ++b) {
    const std::uint32_t* s = src + b * sb;
    std::uint32_t* d = dst + b * m * n;
    std::int64_t i = r0;
    for (; i + 8 <= r1; i += 8) {
      __m256i v[4];
      for (std::int64_t j = 0; j < n; ++j) v[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + j * ld + i));
      for (std::int64_t o = 0; o < n; ++o) {
        __m256i out = _mm256_setzero_si256();
        for (std::int64_t j = 0; j < n; ++j)
          out = _mm256_blendv_epi8(out, _mm256_permutevar8x32_epi32(v[j], idx[o]), mask[o][j]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i * n + 8 * o), out);
      }
    }
    for (; i < r1; ++i)
      for (std::int64_t j = 0; j < n; ++j) d[i * n + j] = s[j * ld + i];
  }
}
#endif

namespace {

// dst[b][i][j] = src[b * sb + i + j * ld] (dst dense [B, M, N]) in 16 x 16 tiles, in
// parallel over images and row blocks: a transpose (NCHW <-> NHWC) whose reads and
// writes both stay within a few cache lines per tile, where the element-wise strided
// copy read a new cache line for every element.
template <class T>
void tiled_transpose(std::int64_t batch, std::int64_t m, std::int64_t n, const T* src, std::int64_t sb,
                     std::int64_t ld, T* dst) {
  constexpr std::int64_t kT = 16, kRows = 64;
  InterleaveFn* const interleave = kernels().interleave;
  if (sizeof(T) == 4 && n >= 2 && n <= 4 && interleave != nullptr) {
    const auto* s = reinterpret_cast<const std::uint32_t*>(src);
    auto* d = reinterpret_cast<std::uint32_t*>(dst);
    constexpr std::int64_t kSpan = 4096;  // rows per task
    if (m > kSpan) {
      const std::int64_t spans = (m + kSpan - 1) / kSpan;
      parallel_for(batch * spans, 1, [&](std::int64_t tb, std::int64_t te) {
        for (std::int64_t t = tb; t < te; ++t) {
          const std::int64_t b = t / spans, r0 = t % spans * kSpan;
          interleave(n, s, sb, ld, m, b, b + 1, r0, std::min(m, r0 + kSpan), d);
        }
      });
      return;
    }
    // Short images (a pixel's channels): whole images per task, enough of them to pay
    // for the task.
    parallel_for(batch, grain_for(m * n, 16384),
                 [&](std::int64_t bb, std::int64_t be) { interleave(n, s, sb, ld, m, bb, be, 0, m, d); });
    return;
  }
  const std::int64_t blocks = (m + kRows - 1) / kRows;
  parallel_for(batch * blocks, grain_for(kRows * n, 65536), [&](std::int64_t tb, std::int64_t te) {
    for (std::int64_t t = tb; t < te; ++t) {
      const std::int64_t b = t / blocks, r0 = t % blocks * kRows, r1 = std::min(m, r0 + kRows);
      const T* s = src + b * sb;
      T* d = dst + b * m * n;
      for (std::int64_t i0 = r0; i0 < r1; i0 += kT)
        for (std::int64_t j0 = 0; j0 < n; j0 += kT) {
          const std::int64_t im = std::min(kT, r1 - i0), jn = std::min(kT, n - j0);
          for (std::int64_t j = 0; j < jn; ++j) {
            const T* col = s + (j0 + j) * ld + i0;
            T* out = d + i0 * n + j0 + j;
            for (std::int64_t i = 0; i < im; ++i) out[i * n] = col[i];
          }
        }
    }
  });
}

// Copies a strided view of `src` (element strides `in`, which may be 0 or negative) into
// dense `dst` of `dims`.
void strided_copy(std::int64_t esize, Dims dims, Dims in, const void* src, void* dst) {
  const std::int64_t total = product(dims, 0, dims.size());
  if (total == 0) return;
  const Collapsed c = collapse(dims, {strides_of(dims), in});
  // A batch of 2-D transposes: the last two dims read as columns of a contiguous run.
  const std::size_t r = c.dims.size();
  if (esize == 4 && (r == 2 || r == 3) && c.strides[1][r - 2] == 1 && c.strides[1][r - 1] > 1 &&
      c.dims[r - 1] >= 2 && c.dims[r - 2] >= 2) {
    const std::int64_t batch = r == 3 ? c.dims[0] : 1, sb = r == 3 ? c.strides[1][0] : 0;
    tiled_transpose(batch, c.dims[r - 2], c.dims[r - 1], static_cast<const std::uint32_t*>(src), sb,
                    c.strides[1][r - 1], static_cast<std::uint32_t*>(dst));
    return;
  }
  const std::int64_t inner = c.dims.back();
  const std::int64_t si = c.strides[1].back();
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  const auto copy_row = [&](const std::int64_t* off, std::int64_t n) {
    std::byte* out = d + off[0] * esize;
    const std::byte* from = s + off[1] * esize;
    if (si == 1) {
      std::memcpy(out, from, static_cast<std::size_t>(n * esize));
      return;
    }
    const auto run = [&](auto tag) {
      using T = decltype(tag);
      T* o = reinterpret_cast<T*>(out);
      for (std::int64_t i = 0; i < n; ++i) std::memcpy(o + i, from + i * si * esize, sizeof(T));
    };
    switch (esize) {
      case 1: run(std::uint8_t{}); break;
      case 2: run(std::uint16_t{}); break;
      case 4: run(std::uint32_t{}); break;
      case 8: run(std::uint64_t{}); break;
      default:
        for (std::int64_t i = 0; i < n; ++i) std::memcpy(out + i * esize, from + i * si * esize, static_cast<std::size_t>(esize));
    }
  };
  parallel_for(row_count(c), grain_for(inner * esize / 4 + 8), [&](std::int64_t b, std::int64_t e) {
    for_rows(c, b, e, copy_row);
  });
}

}  // namespace

void copy(const TensorView& x, const TensorView& y) {
  same_type("Identity", "X", x, "Y", y);
  check_data("Identity", "X", x);
  check_data("Identity", "Y", y);
  if (x.elements() != y.elements()) {
    fail(Errc::bad_op_inputs, "Identity",
         "X " + bracketed(x.dims) + " and Y " + bracketed(y.dims) + " hold different element counts");
  }
  if (x.data == y.data || x.bytes() == 0) return;
  std::memmove(y.data, x.data, static_cast<std::size_t>(x.bytes()));
}

void fill(const TensorView& value, const TensorView& y) {
  same_type("ConstantOfShape", "value", value, "Y", y);
  check_data("ConstantOfShape", "value", value);
  check_data("ConstantOfShape", "Y", y);
  if (value.elements() != 1) {
    fail(Errc::bad_op_inputs, "ConstantOfShape", "value " + bracketed(value.dims) + " must hold one element");
  }
  const std::int64_t n = y.elements();
  const std::int64_t es = size_of(y.dtype);
  auto* d = static_cast<std::byte*>(y.data);
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, value.data, sizeof(T));
    T* o = reinterpret_cast<T*>(d);
    std::fill(o, o + n, v);
  };
  switch (es) {
    case 1: run(std::uint8_t{}); break;
    case 2: run(std::uint16_t{}); break;
    case 4: run(std::uint32_t{}); break;
    case 8: run(std::uint64_t{}); break;
    default: fail(Errc::unsupported, "ConstantOfShape", "type " + type_text(y.dtype) + " is not supported");
  }
}

void transpose(std::span<const std::int64_t> perm, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Transpose";
  same_type(op, "X", x, "Y", y);
  check_data(op, "X", x);
  bool seen[SmallDims::kMax] = {};
  bool ok = perm.size() == x.rank();
  for (std::size_t i = 0; ok && i < perm.size(); ++i) {
    const std::int64_t a = perm[i];
    ok = a >= 0 && a < static_cast<std::int64_t>(x.rank()) && !seen[static_cast<std::size_t>(a)];
    if (ok) seen[static_cast<std::size_t>(a)] = true;
  }
  if (!ok) fail(Errc::bad_attribute, op, "perm " + bracketed(perm) + " is not a permutation of X " + bracketed(x.dims));
  SmallDims out(x.rank(), 0), in(x.rank(), 0);
  const SmallDims xs = strides_of(x.dims);
  for (std::size_t i = 0; i < x.rank(); ++i) {
    out[i] = x.dims[static_cast<std::size_t>(perm[i])];
    in[i] = xs[static_cast<std::size_t>(perm[i])];
  }
  check_dims(op, "Y", y, out);
  strided_copy(size_of(x.dtype), out, in, x.data, y.data);
}

namespace {

// Checks Concat's operands against the big tensor `whole`; returns each part's size along axis.
void check_parts(std::string_view op, std::int64_t axis, std::span<const TensorView> parts, const TensorView& whole) {
  if (axis < 0 || axis >= static_cast<std::int64_t>(whole.rank())) {
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside " + bracketed(whole.dims));
  }
  if (parts.empty()) fail(Errc::bad_op_inputs, op, "needs at least one part");
  check_data(op, "the whole", whole);
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const TensorView& t = parts[i];
    same_type(op, "a part", t, "the whole", whole);
    check_data(op, "a part", t);
    bool ok = t.rank() == whole.rank();
    for (std::size_t d = 0; ok && d < t.rank(); ++d) {
      ok = static_cast<std::int64_t>(d) == axis || t.dims[d] == whole.dims[d];
    }
    if (!ok) {
      fail(Errc::bad_op_inputs, op,
           "part " + std::to_string(i) + " " + bracketed(t.dims) + " does not fit " + bracketed(whole.dims) +
               " along axis " + std::to_string(axis));
    }
    sum += t.dims[static_cast<std::size_t>(axis)];
  }
  if (sum != whole.dims[static_cast<std::size_t>(axis)]) {
    fail(Errc::bad_op_inputs, op,
         "the parts add up to " + std::to_string(sum) + " along axis " + std::to_string(axis) + ", not " +
             std::to_string(whole.dims[static_cast<std::size_t>(axis)]) + " of " + bracketed(whole.dims));
  }
}

// Moves bytes between the parts and the whole: to_whole copies parts in (Concat).
void move_parts(std::int64_t axis, std::span<const TensorView> parts, const TensorView& whole, bool to_whole) {
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t outer = product(whole.dims, 0, ax);
  const std::int64_t es = size_of(whole.dtype);
  const std::int64_t inner_bytes = product(whole.dims, ax + 1, whole.rank()) * es;
  const std::int64_t row_bytes = whole.dims[ax] * inner_bytes;
  std::vector<std::int64_t> offsets(parts.size());
  std::int64_t off = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    offsets[i] = off;
    off += parts[i].dims[ax] * inner_bytes;
  }
  auto* w = static_cast<std::byte*>(whole.data);
  parallel_for(outer, grain_for(row_bytes / 4 + 8), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) {
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::int64_t n = parts[i].dims[ax] * inner_bytes;
        if (n == 0) continue;
        std::byte* pw = w + o * row_bytes + offsets[i];
        std::byte* pp = static_cast<std::byte*>(parts[i].data) + o * n;
        if (to_whole) {
          std::memcpy(pw, pp, static_cast<std::size_t>(n));
        } else {
          std::memcpy(pp, pw, static_cast<std::size_t>(n));
        }
      }
    }
  });
}

}  // namespace

void concat(std::int64_t axis, std::span<const TensorView> inputs, const TensorView& y) {
  check_parts("Concat", axis, inputs, y);
  if (y.elements() == 0) return;
  move_parts(axis, inputs, y, true);
}

void split(std::int64_t axis, const TensorView& x, std::span<const TensorView> outputs) {
  check_parts("Split", axis, outputs, x);
  if (x.elements() == 0) return;
  move_parts(axis, outputs, x, false);
}

void slice(const SliceParams& p, const TensorView& x, const TensorView& y) {
  constexpr std::string_view op = "Slice";
  same_type(op, "X", x, "Y", y);
  check_data(op, "X", x);
  check_rank(op, "Y", y, x.rank());
  if (p.starts.size() != x.rank() || p.steps.size() != x.rank()) {
    fail(Errc::bad_attribute, op,
         "starts and steps need one entry per axis of X " + bracketed(x.dims) + "; got " +
             std::to_string(p.starts.size()) + " and " + std::to_string(p.steps.size()));
  }
  if (y.elements() == 0) return;
  const SmallDims xs = strides_of(x.dims);
  SmallDims in(x.rank(), 0);
  std::int64_t base = 0;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    const std::int64_t st = p.starts[i], step = p.steps[i], n = y.dims[i];
    if (step == 0) fail(Errc::bad_attribute, op, "step of axis " + std::to_string(i) + " is 0");
    const std::int64_t last = st + (n - 1) * step;
    if (st < 0 || st >= x.dims[i] || last < 0 || last >= x.dims[i]) {
      fail(Errc::index_out_of_range, op,
           "axis " + std::to_string(i) + ": " + std::to_string(n) + " elements from " + std::to_string(st) +
               " by step " + std::to_string(step) + " leave [0, " + std::to_string(x.dims[i]) + ")");
    }
    base += st * xs[i];
    in[i] = step * xs[i];
  }
  const std::int64_t es = size_of(x.dtype);
  strided_copy(es, y.dims, in, static_cast<const std::byte*>(x.data) + base * es, y.data);
}

namespace {

template <class I>
void gather_typed(std::int64_t axis, const TensorView& data, const TensorView& indices, const TensorView& y) {
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t dim = data.dims[ax];
  const std::int64_t outer = product(data.dims, 0, ax);
  const std::int64_t es = size_of(data.dtype);
  const std::int64_t inner_bytes = product(data.dims, ax + 1, data.rank()) * es;
  const std::int64_t n = indices.elements();
  const I* pi = indices.as<const I>();
  for (std::int64_t j = 0; j < n; ++j) {  // every index checked before any is used
    const auto v = static_cast<std::int64_t>(pi[j]);
    if (v < -dim || v >= dim) {
      fail(Errc::index_out_of_range, "Gather",
           "index " + std::to_string(v) + " is outside [-" + std::to_string(dim) + ", " + std::to_string(dim) +
               ") for axis " + std::to_string(axis) + " of " + bracketed(data.dims));
    }
  }
  const auto index = [&](std::int64_t j) {
    const auto v = static_cast<std::int64_t>(pi[j]);
    return v < 0 ? v + dim : v;
  };
  const auto* src = static_cast<const std::byte*>(data.data);
  auto* dst = static_cast<std::byte*>(y.data);
  if (inner_bytes == 0 || outer * n == 0) return;  // nothing to copy (and no null pointers into memcpy)
  parallel_for(outer * n, grain_for(inner_bytes / 4 + 8), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t t = b; t < e; ++t) {
      const std::int64_t o = t / n, j = t % n;
      std::memcpy(dst + t * inner_bytes, src + (o * dim + index(j)) * inner_bytes,
                  static_cast<std::size_t>(inner_bytes));
    }
  });
}

}  // namespace

void gather(std::int64_t axis, const TensorView& data, const TensorView& indices, const TensorView& y) {
  constexpr std::string_view op = "Gather";
  same_type(op, "data", data, "output", y);
  check_data(op, "data", data);
  check_data(op, "indices", indices);
  if (axis < 0 || axis >= static_cast<std::int64_t>(data.rank())) {
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside data " + bracketed(data.dims));
  }
  const auto ax = static_cast<std::size_t>(axis);
  if (data.rank() - 1 + indices.rank() != y.rank())
    fail(Errc::bad_op_inputs, op, "output has rank " + std::to_string(y.rank()) + "; data " + bracketed(data.dims) +
                                      " and indices " + bracketed(indices.dims) + " give rank " +
                                      std::to_string(data.rank() - 1 + indices.rank()));
  SmallDims out(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(ax));
  for (const std::int64_t d : indices.dims) out.push_back(d);
  for (std::size_t i = ax + 1; i < data.rank(); ++i) out.push_back(data.dims[i]);
  check_dims(op, "output", y, out);
  if (indices.dtype == DataType::i64) return gather_typed<std::int64_t>(axis, data, indices, y);
  if (indices.dtype == DataType::i32) return gather_typed<std::int32_t>(axis, data, indices, y);
  fail(Errc::type_mismatch, op, "indices are " + type_text(indices.dtype) + "; expected 'i32' or 'i64'");
}

void expand(const TensorView& x, const TensorView& y) {
  same_type("Expand", "input", x, "output", y);
  check_data("Expand", "input", x);
  check_data("Expand", "output", y);
  const SmallDims s = broadcast_strides("Expand", "input", x.dims, y.dims);
  strided_copy(size_of(x.dtype), y.dims, s, x.data, y.data);
}

void cast(const TensorView& x, const TensorView& y) {
  check_data("Cast", "input", x);
  check_dims("Cast", "output", y, x.dims);
  const std::int64_t n = x.elements();
  with_type(x.dtype, [&](auto from_tag) {
    using From = decltype(from_tag);
    with_type(y.dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      static_assert(sizeof(From) == 1 || sizeof(From) == 2 || sizeof(From) == 4 || sizeof(From) == 8);
      if (n == 0) return;
      const From* src = static_cast<const From*>(x.data);
      To* dst = static_cast<To*>(y.data);
      if constexpr (std::is_same_v<From, To>) {
        if (x.data != y.data) std::memmove(dst, src, static_cast<std::size_t>(n) * sizeof(From));
      } else {
        parallel_for(n, 1 << 14, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) dst[i] = convert<To>(native(src[i]));
        });
      }
    });
  });
}

}  // namespace ge::cpu
