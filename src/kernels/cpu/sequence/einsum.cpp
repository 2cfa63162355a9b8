#include "kernels/cpu/sequence/einsum.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <string>

#include "kernels/cpu/movement/data_movement.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

namespace ge::cpu {
namespace {

constexpr std::string_view kOp = "Einsum";

bool has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::size_t pos(const std::vector<int>& v, int x) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), x) - v.begin());
}

std::vector<int> concat(std::initializer_list<const std::vector<int>*> parts) {
  std::vector<int> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// An uninitialised buffer of n elements (scratch that is written before it is read).
template <class T>
using Buffer = std::unique_ptr<T[]>;
template <class T>
Buffer<T> buffer(std::int64_t n) {
  return std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
}

// An operand as the contraction sees it: distinct labels, each of extent >= 2 (dims of
// 1 say nothing and are dropped), with element strides into `data` (a label repeated in
// the term gets the sum of its strides: the diagonal).
template <class T>
struct Operand {
  const T* data = nullptr;
  std::vector<int> labels;
  std::vector<std::int64_t> dims, strides;
  Buffer<T> owned;  // the data, when it is an intermediate result

  [[nodiscard]] bool dense() const {
    std::int64_t s = 1;
    for (std::size_t i = labels.size(); i-- > 0;) {
      if (strides[i] != s) return false;
      s *= dims[i];
    }
    return true;
  }
  [[nodiscard]] bool laid_out(const std::vector<int>& order) const { return labels == order && dense(); }
};

// The extent of every label: the dims it has where it occurs, which must agree (a 1
// broadcasts). -1 for labels no operand uses.
std::vector<std::int64_t> label_sizes(const EinsumParams& p, std::span<const TensorView> in) {
  int top = 0;
  for (const auto& labels : p.inputs)
    for (const int l : labels) top = std::max(top, l);
  for (const int l : p.output) top = std::max(top, l);
  std::vector<std::int64_t> size(static_cast<std::size_t>(top) + 1, -1);
  for (std::size_t i = 0; i < in.size(); ++i) {
    for (std::size_t d = 0; d < in[i].rank(); ++d) {
      const int l = p.inputs[i][d];
      if (l < 0) fail(Errc::bad_attribute, kOp, "label " + std::to_string(l) + " is negative");
      std::int64_t& s = size[static_cast<std::size_t>(l)];
      const std::int64_t v = in[i].dims[d];
      if (s == -1 || s == 1) s = v;
      else if (v != 1 && v != s)
        fail(Errc::bad_op_inputs, kOp, "label " + std::to_string(l) + " is " + std::to_string(s) + " in one place but " +
                                           std::to_string(v) + " in input " + std::to_string(i) + " " +
                                           bracketed(in[i].dims) + "; expected equal dims (or 1)");
    }
  }
  return size;
}

template <class T>
Operand<T> make_operand(const TensorView& t, const std::vector<int>& labels) {
  Operand<T> o;
  o.data = t.as<const T>();
  const SmallDims strides = strides_of(t.dims);
  for (std::size_t d = 0; d < t.rank(); ++d) {
    if (t.dims[d] == 1) continue;
    const int l = labels[d];
    if (const std::size_t at = pos(o.labels, l); at < o.labels.size()) {
      o.strides[at] += strides[d];
      continue;
    }
    o.labels.push_back(l);
    o.dims.push_back(t.dims[d]);
    o.strides.push_back(strides[d]);
  }
  return o;
}

// Walks a box of dims in row-major order, keeping the element offset of the index.
struct Odometer {
  std::vector<std::int64_t> dims, strides, idx;
  std::int64_t offset = 0;
  Odometer(std::vector<std::int64_t> d, std::vector<std::int64_t> s, std::int64_t start)
      : dims(std::move(d)), strides(std::move(s)), idx(dims.size(), 0) {
    for (std::size_t i = dims.size(); i-- > 0;) {
      idx[i] = start % dims[i];
      start /= dims[i];
      offset += idx[i] * strides[i];
    }
  }
  void next() {
    for (std::size_t i = dims.size(); i-- > 0;) {
      ++idx[i];
      offset += strides[i];
      if (idx[i] < dims[i]) return;
      offset -= strides[i] * dims[i];
      idx[i] = 0;
    }
  }
};

template <class T>
std::int64_t extent(const Operand<T>& o, const std::vector<int>& labels) {
  std::int64_t n = 1;
  for (const int l : labels) n *= o.dims[pos(o.labels, l)];
  return n;
}

// dst (dense, dims in the order `keep`, each a label of src) = the sum of src over its
// other labels. A dense source with nothing to sum is a transpose.
template <class T>
void gather(const Operand<T>& src, const std::vector<int>& keep, T* dst) {
  std::vector<std::int64_t> od, os, rd, rs;
  for (const int l : keep) {
    od.push_back(src.dims[pos(src.labels, l)]);
    os.push_back(src.strides[pos(src.labels, l)]);
  }
  for (std::size_t i = 0; i < src.labels.size(); ++i)
    if (!has(keep, src.labels[i])) rd.push_back(src.dims[i]), rs.push_back(src.strides[i]);
  const std::int64_t total = product(od, 0, od.size()), reduce = product(rd, 0, rd.size());
  if (rd.empty() && src.dense()) {
    std::vector<std::int64_t> perm;
    for (const int l : keep) perm.push_back(static_cast<std::int64_t>(pos(src.labels, l)));
    const DataType t = std::is_same_v<T, float> ? DataType::f32 : DataType::f64;
    const TensorView x{const_cast<T*>(src.data), t, src.dims};
    cpu::transpose(perm, x, TensorView{dst, t, od});
    return;
  }
  parallel_for(total, grain_for(reduce + 4), [&](std::int64_t b, std::int64_t e) {
    Odometer out(od, os, b);
    for (std::int64_t o = b; o < e; ++o, out.next()) {
      // Sums in double: a reduction may be long.
      double acc = 0;
      Odometer r(rd, rs, 0);
      for (std::int64_t j = 0; j < reduce; ++j, r.next()) acc += src.data[out.offset + r.offset];
      dst[o] = static_cast<T>(acc);
    }
  });
}

// The operand's data as [first, second, third] (trans false) or [first, third, second]
// (trans true), read in place when it is laid out so, else gathered into `buf`.
template <class T>
const T* arrange(const Operand<T>& o, const std::vector<int>& first, const std::vector<int>& second,
                 const std::vector<int>& third, Buffer<T>& buf, bool& trans) {
  const std::vector<int> straight = concat({&first, &second, &third});
  trans = false;
  if (o.laid_out(straight)) return o.data;
  if (o.laid_out(concat({&first, &third, &second}))) {
    trans = true;
    return o.data;
  }
  buf = buffer<T>(extent(o, straight));
  gather(o, straight, buf.get());
  return buf.get();
}

// C[m x n] = op(A) op(B): the packed GEMM for f32; a plain loop (row of B at a time)
// for f64, which the GEMM does not cover.
void product(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, bool ta, const float* b,
             std::int64_t ldb, bool tb, float* c, bool parallel) {
  sgemm(m, n, k, 1.0f, a, lda, ta, b, ldb, tb, c, n, GemmEpilogue{}, parallel);
}
void product(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, bool ta, const double* b,
             std::int64_t ldb, bool tb, double* c, bool) {
  for (std::int64_t i = 0; i < m; ++i) {
    double* row = c + i * n;
    std::fill(row, row + n, 0.0);
    for (std::int64_t p = 0; p < k; ++p) {
      const double av = ta ? a[p * lda + i] : a[i * lda + p];
      for (std::int64_t j = 0; j < n; ++j) row[j] += av * (tb ? b[j * ldb + p] : b[p * ldb + j]);
    }
  }
}

// a x b as a batched GEMM; labels still `needed` stay, the others shared by both are
// contracted (those in one only were summed by `arrange`). The result is dense
// [batch, m, n], written to `direct` when given.
template <class T>
Operand<T> contract(const Operand<T>& a, const Operand<T>& b, const std::vector<bool>& needed, T* direct,
                    const std::vector<int>& direct_order) {
  std::vector<int> batch, m, k, n;
  const auto need = [&](int l) { return needed[static_cast<std::size_t>(l)]; };
  for (const int l : a.labels) {
    if (has(b.labels, l)) (need(l) ? batch : k).push_back(l);
    else if (need(l)) m.push_back(l);
  }
  for (const int l : b.labels)
    if (!has(a.labels, l) && need(l)) n.push_back(l);
  Buffer<T> abuf, bbuf;
  bool ta = false, tb = false;
  const T* pa = arrange(a, batch, m, k, abuf, ta);
  const T* pb = arrange(b, batch, k, n, bbuf, tb);
  const std::int64_t nb = extent(a, batch), mm = extent(a, m), kk = extent(a, k), nn = extent(b, n);

  Operand<T> r;
  r.labels = concat({&batch, &m, &n});
  for (const int l : r.labels) r.dims.push_back(has(a.labels, l) ? a.dims[pos(a.labels, l)] : b.dims[pos(b.labels, l)]);
  r.strides.assign(r.dims.size(), 1);  // dense (an intermediate may have more labels than SmallDims holds)
  for (std::size_t i = r.dims.size(); i-- > 1;) r.strides[i - 1] = r.strides[i] * r.dims[i];
  T* c = direct;
  if (c == nullptr || r.labels != direct_order) {
    r.owned = buffer<T>(nb * mm * nn);
    c = r.owned.get();
  }
  r.data = c;
  const auto one = [&](std::int64_t t, bool parallel) {
    product(mm, nn, kk, pa + t * mm * kk, ta ? mm : kk, ta, pb + t * kk * nn, tb ? kk : nn, tb, c + t * mm * nn, parallel);
  };
  // Small products run one per task; large ones one after another, each in parallel.
  if (nb > 1 && 2 * mm * nn * kk < (std::int64_t{1} << 22)) {
    parallel_for(nb, grain_for(mm * nn * kk, 1 << 18), [&](std::int64_t tb0, std::int64_t te) {
      for (std::int64_t t = tb0; t < te; ++t) one(t, false);
    });
  } else {
    for (std::int64_t t = 0; t < nb; ++t) one(t, true);
  }
  return r;
}

void check_args(const EinsumParams& p, std::span<const TensorView> in, const TensorView& y) {
  if (in.empty() || p.inputs.size() != in.size())
    fail(Errc::bad_op_inputs, kOp, std::to_string(in.size()) + " input(s) for " + std::to_string(p.inputs.size()) +
                                       " label list(s); expected one list per input, at least one input");
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string which = "input " + std::to_string(i);
    check_dtype(kOp, which, in[i], in[0].dtype == DataType::f64 ? DataType::f64 : DataType::f32);
    check_data(kOp, which, in[i]);
    if (p.inputs[i].size() != in[i].rank())
      fail(Errc::bad_op_inputs, kOp, which + " " + bracketed(in[i].dims) + " has rank " + std::to_string(in[i].rank()) +
                                         " but " + std::to_string(p.inputs[i].size()) + " label(s)");
  }
  check_dtype(kOp, "output", y, in[0].dtype);
  for (std::size_t i = 0; i < p.output.size(); ++i) {
    const int l = p.output[i];
    bool found = false;
    for (const auto& labels : p.inputs) found = found || has(labels, l);
    if (!found || std::find(p.output.begin(), p.output.begin() + static_cast<std::ptrdiff_t>(i), l) !=
                      p.output.begin() + static_cast<std::ptrdiff_t>(i))
      fail(Errc::bad_attribute, kOp, "output label " + std::to_string(l) + " is repeated or in no input");
  }
}

template <class T>
void einsum_typed(const EinsumParams& p, std::span<const TensorView> inputs, const TensorView& y) {
  const std::vector<std::int64_t> size = label_sizes(p, inputs);
  std::vector<std::int64_t> out_dims;
  for (const int l : p.output) out_dims.push_back(size[static_cast<std::size_t>(l)]);
  check_dims(kOp, "output", y, out_dims);
  check_data(kOp, "output", y);
  if (y.elements() == 0) return;
  T* py = y.as<T>();
  // A label of extent 0 makes every sum empty.
  if (std::find(size.begin(), size.end(), 0) != size.end()) {
    std::fill(py, py + y.elements(), T{0});
    return;
  }
  // The output's labels that operands carry (those of extent 1 are dropped there too).
  std::vector<int> out_labels;
  for (const int l : p.output)
    if (size[static_cast<std::size_t>(l)] > 1) out_labels.push_back(l);

  std::vector<Operand<T>> ops;
  for (std::size_t i = 0; i < inputs.size(); ++i) ops.push_back(make_operand<T>(inputs[i], p.inputs[i]));
  Operand<T> cur = std::move(ops[0]);
  for (std::size_t i = 1; i < ops.size(); ++i) {
    // Labels needed after this step: the output's and those of later operands.
    std::vector<bool> needed(size.size(), false);
    for (const int l : p.output) needed[static_cast<std::size_t>(l)] = true;
    for (std::size_t j = i + 1; j < ops.size(); ++j)
      for (const int l : ops[j].labels) needed[static_cast<std::size_t>(l)] = true;
    const bool last = i + 1 == ops.size();
    cur = contract(cur, ops[i], needed, last ? py : nullptr, out_labels);
    if (last && cur.data == py) return;
  }
  gather(cur, out_labels, py);
}

}  // namespace

void einsum(const EinsumParams& p, std::span<const TensorView> inputs, const TensorView& y) {
  check_args(p, inputs, y);
  if (y.dtype == DataType::f64) return einsum_typed<double>(p, inputs, y);
  einsum_typed<float>(p, inputs, y);
}

}  // namespace ge::cpu
