// Scaled dot-product attention over strided views (see attention.hpp).
#include "kernels/cpu/sequence/attention.hpp"

#include <array>
#include <string>
#include <vector>

#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

namespace ge::cpu {

namespace {

constexpr std::string_view op = "FusedAttention";

// One operand's geometry: batches, heads, rows, cols, and where matrix (b, h) row r starts.
struct Strided {
  std::int64_t batch = 0, heads = 1, rows = 0, cols = 0;
  std::int64_t batch_stride = 0, head_stride = 0, row_stride = 0;

  [[nodiscard]] std::int64_t at(std::int64_t b, std::int64_t h) const { return b * batch_stride + h * head_stride; }
};

constexpr bool rank4(Layout l) { return l == Layout::bhsd || l == Layout::bshd; }

Strided geometry(const char* name, const TensorView& t, Layout l) {
  check_dtype(op, name, t, DataType::f32);
  check_rank(op, name, t, rank4(l) ? 4 : 3);
  const auto& d = t.dims;
  switch (l) {
    case Layout::bsd: return {d[0], 1, d[1], d[2], d[1] * d[2], 0, d[2]};
    case Layout::sbd: return {d[1], 1, d[0], d[2], d[2], 0, d[1] * d[2]};
    case Layout::bhsd: return {d[0], d[1], d[2], d[3], d[1] * d[2] * d[3], d[2] * d[3], d[3]};
    case Layout::bshd: return {d[0], d[2], d[1], d[3], d[1] * d[2] * d[3], d[3], d[2] * d[3]};
  }
  return {};
}

// Where the mask's element for scores (b, h, r, c) lies: batch b mod `batches`, and a
// stride per axis (0 where the mask broadcasts).
struct MaskGeometry {
  std::int64_t batches = 1;
  std::array<std::int64_t, 4> stride{};  // batch, head, row, col

  [[nodiscard]] std::int64_t at(std::int64_t b, std::int64_t h) const {
    return (b % batches) * stride[0] + h * stride[1];
  }
};

// The mask's geometry against scores [B, H, Sq, Sk] (H absent for rank-3 layouts).
MaskGeometry mask_geometry(const TensorView& mask, const std::array<std::int64_t, 4>& scores, bool heads) {
  check_dtype(op, "Mask", mask, DataType::f32);
  const std::size_t rank = heads ? 4 : 3;
  const auto bad = [&] {
    fail(Errc::bad_op_inputs, op,
         "Mask " + bracketed(mask.dims) + " does not broadcast to the scores [" + std::to_string(scores[0]) +
             (heads ? ", " + std::to_string(scores[1]) : std::string()) + ", " + std::to_string(scores[2]) + ", " +
             std::to_string(scores[3]) + "]");
  };
  if (mask.rank() > rank) bad();
  // The mask's dims right-aligned to the scores' axes, 1 where it has none; without heads
  // the scores' axes are slots 0, 2 and 3.
  std::array<std::int64_t, 4> md{1, 1, 1, 1};
  const std::size_t skip = rank - mask.rank();
  for (std::size_t i = 0; i < mask.rank(); ++i) {
    const std::size_t axis = skip + i;
    md[heads || axis == 0 ? axis : axis + 1] = mask.dims[i];
  }
  MaskGeometry g;
  std::int64_t stride = 1;
  for (std::size_t a = 4; a-- > 0;) {
    const bool periodic = a == 0 && md[0] > 0 && scores[0] % md[0] == 0;
    if (md[a] != scores[a] && md[a] != 1 && !periodic) bad();
    g.stride[a] = md[a] == 1 ? 0 : stride;
    stride *= md[a];
  }
  g.batches = md[0] > 0 ? md[0] : 1;
  return g;
}

}  // namespace

void attention(const AttentionParams& p, const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView* mask, const TensorView& y) {
  const Strided sq = geometry("Q", q, p.q), sk = geometry("K", k, p.k), sv = geometry("V", v, p.v);
  const Strided sy = geometry("Y", y, p.out);
  const auto text = [&] { return "Q " + bracketed(q.dims) + ", K " + bracketed(k.dims) + ", V " + bracketed(v.dims); };
  if (rank4(p.q) != rank4(p.k) || rank4(p.q) != rank4(p.v) || rank4(p.q) != rank4(p.out))
    fail(Errc::bad_op_inputs, op, "Q, K, V and Y must all have heads or none: " + text());
  if (sk.batch != sq.batch || sv.batch != sq.batch || sk.heads != sq.heads || sv.heads != sq.heads ||
      sk.cols != sq.cols || sv.rows != sk.rows)
    fail(Errc::bad_op_inputs, op, "the batches, heads, key rows or feature dims do not fit: " + text());
  if (sy.batch != sq.batch || sy.heads != sq.heads || sy.rows != sq.rows || sy.cols != sv.cols)
    fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " does not fit " + text());
  check_data(op, "Q", q);
  check_data(op, "K", k);
  check_data(op, "V", v);
  const std::int64_t heads = sq.heads, m = sq.rows, n = sk.rows, d = sq.cols, dv = sv.cols;
  MaskGeometry mg;
  const float* pm = nullptr;
  if (mask != nullptr) {
    mg = mask_geometry(*mask, {sq.batch, heads, m, n}, rank4(p.q));
    check_data(op, "Mask", *mask);
    pm = mask->as<const float>();
  }
  if (sq.batch * heads == 0 || m == 0 || dv == 0) return;
  const float* pq = q.as<const float>();
  const float* pk = k.as<const float>();
  const float* pv = v.as<const float>();
  float* py = y.as<float>();
  parallel_for(sq.batch * heads, grain_for(m * n * (d + dv), 1 << 18), [&](std::int64_t i0, std::int64_t i1) {
    thread_local std::vector<float> scores;
    scores.resize(static_cast<std::size_t>(m * n));
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int64_t b = i / heads, h = i % heads;
      // scale * Q K^T: K's rows are the product's columns (B transposed).
      sgemm(m, n, d, p.scale, pq + sq.at(b, h), sq.row_stride, false, pk + sk.at(b, h), sk.row_stride, true,
            scores.data(), n, {}, false);
      for (std::int64_t r = 0; r < m; ++r) {
        float* row = scores.data() + r * n;
        if (pm != nullptr) {
          const float* mr = pm + mg.at(b, h) + r * mg.stride[2];
          if (mg.stride[3] == 0) {
            for (std::int64_t c = 0; c < n; ++c) row[c] += mr[0];
          } else {
            for (std::int64_t c = 0; c < n; ++c) row[c] += mr[c];
          }
        }
        const float mx = n > 0 ? vm::max(row, n) : 0.0f;
        const float sum = vm::exp_shift_sum(row, row, n, mx);
        vm::scale(row, n, 1.0f / sum);
      }
      sgemm(m, dv, n, 1.0f, scores.data(), n, false, pv + sv.at(b, h), sv.row_stride, false, py + sy.at(b, h),
            sy.row_stride, {}, false);
    }
  });
}

}  // namespace ge::cpu
