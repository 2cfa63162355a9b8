// Scaled dot-product attention over strided views (see attention.hpp).
#include "kernels/cpu/attention.hpp"

#include <string>
#include <vector>

#include "kernels/cpu/gemm.hpp"
#include "kernels/cpu/vmath.hpp"

namespace ge::cpu {

namespace {

constexpr std::string_view op = "FusedAttention";

// One operand's geometry: batches, rows, cols, and where matrix b row r starts.
struct Strided {
  std::int64_t batch = 0, rows = 0, cols = 0;
  std::int64_t batch_stride = 0, row_stride = 0;
};

Strided geometry(const char* name, const TensorView& t, Layout l) {
  check_dtype(op, name, t, DataType::f32);
  check_rank(op, name, t, 3);
  Strided s;
  s.cols = t.dims[2];
  if (l == Layout::bsd) {
    s.batch = t.dims[0];
    s.rows = t.dims[1];
    s.batch_stride = t.dims[1] * t.dims[2];
    s.row_stride = t.dims[2];
  } else {
    s.batch = t.dims[1];
    s.rows = t.dims[0];
    s.batch_stride = t.dims[2];
    s.row_stride = t.dims[1] * t.dims[2];
  }
  return s;
}

}  // namespace

void attention(const AttentionParams& p, const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView& y) {
  const Strided sq = geometry("Q", q, p.q), sk = geometry("K", k, p.k), sv = geometry("V", v, p.v);
  const Strided sy = geometry("Y", y, p.out);
  const auto text = [&] { return "Q " + bracketed(q.dims) + ", K " + bracketed(k.dims) + ", V " + bracketed(v.dims); };
  if (sk.batch != sq.batch || sv.batch != sq.batch || sk.cols != sq.cols || sv.rows != sk.rows)
    fail(Errc::bad_op_inputs, op, "the batches, key rows or feature dims do not fit: " + text());
  if (sy.batch != sq.batch || sy.rows != sq.rows || sy.cols != sv.cols)
    fail(Errc::bad_op_inputs, op, "Y " + bracketed(y.dims) + " does not fit " + text());
  check_data(op, "Q", q);
  check_data(op, "K", k);
  check_data(op, "V", v);
  const std::int64_t batches = sq.batch, m = sq.rows, n = sk.rows, d = sq.cols, dv = sv.cols;
  if (batches == 0 || m == 0 || dv == 0) return;
  const float* pq = q.as<const float>();
  const float* pk = k.as<const float>();
  const float* pv = v.as<const float>();
  float* py = y.as<float>();
  parallel_for(batches, grain_for(m * n * (d + dv), 1 << 18), [&](std::int64_t b0, std::int64_t b1) {
    thread_local std::vector<float> scores;
    scores.resize(static_cast<std::size_t>(m * n));
    for (std::int64_t b = b0; b < b1; ++b) {
      // scale * Q K^T: K's rows are the product's columns (B transposed).
      sgemm(m, n, d, p.scale, pq + b * sq.batch_stride, sq.row_stride, false, pk + b * sk.batch_stride, sk.row_stride,
            true, scores.data(), n, {}, false);
      for (std::int64_t r = 0; r < m; ++r) {
        float* row = scores.data() + r * n;
        const float mx = n > 0 ? vm::max(row, n) : 0.0f;
        const float sum = vm::exp_shift_sum(row, row, n, mx);
        vm::scale(row, n, 1.0f / sum);
      }
      sgemm(m, dv, n, 1.0f, scores.data(), n, false, pv + b * sv.batch_stride, sv.row_stride, false,
            py + b * sy.batch_stride, sy.row_stride, {}, false);
    }
  });
}

}  // namespace ge::cpu
