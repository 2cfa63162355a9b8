// The packing of GEMM operands, and the ops on the GEMM: sgemm, MatMul, Gemm (the block
// kernels are gemm_block.cpp's, their register tiles gemm_tile.hpp's).
#include "kernels/cpu/gemm/gemm.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/gemm/amx.hpp"

namespace ge::cpu {

void pack_a(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, bool trans, float alpha, float* dst) {
  const std::int64_t panels = (m + kGemmMR - 1) / kGemmMR;
  parallel_for(panels, grain_for(k * kGemmMR), [&](std::int64_t pb, std::int64_t pe) {
    for (std::int64_t p = pb; p < pe; ++p) {
      float* d = dst + p * k * kGemmMR;
      const std::int64_t i0 = p * kGemmMR;
      const std::int64_t rows = std::min(kGemmMR, m - i0);
      if (!trans && rows == kGemmMR) {
        // Whole panels column by column: six reads, six adjacent writes (row by row, each
        // write was 24 bytes past the last: 2.5x slower).
        const float* src = a + i0 * lda;
        for (std::int64_t q = 0; q < k; ++q)
#pragma GCC unroll 6
          for (std::int64_t r = 0; r < kGemmMR; ++r) d[q * kGemmMR + r] = alpha * src[r * lda + q];
      } else if (!trans) {
        for (std::int64_t r = 0; r < kGemmMR; ++r) {
          if (r < rows) {
            const float* src = a + (i0 + r) * lda;
            for (std::int64_t q = 0; q < k; ++q) d[q * kGemmMR + r] = alpha * src[q];
          } else {
            for (std::int64_t q = 0; q < k; ++q) d[q * kGemmMR + r] = 0.0f;
          }
        }
      } else {
        for (std::int64_t q = 0; q < k; ++q) {
          const float* src = a + q * lda + i0;
          for (std::int64_t r = 0; r < kGemmMR; ++r) d[q * kGemmMR + r] = r < rows ? alpha * src[r] : 0.0f;
        }
      }
    }
  });
}

void pack_b(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool trans, float* dst) {
  const std::int64_t panels = (n + kGemmNR - 1) / kGemmNR;
  // Tasks take groups of panels; without transposition each row of B is read as one
  // contiguous run across the group (a panel-at-a-time walk would stride by ldb).
  constexpr std::int64_t kGroup = 8;
  const std::int64_t groups = (panels + kGroup - 1) / kGroup;
  parallel_for(groups, grain_for(k * kGemmNR * kGroup), [&](std::int64_t gb, std::int64_t ge) {
    for (std::int64_t g = gb; g < ge; ++g) {
      const std::int64_t p0 = g * kGroup;
      const std::int64_t p1 = std::min(panels, p0 + kGroup);
      if (!trans) {
        for (std::int64_t q = 0; q < k; ++q) {
          const float* src = b + q * ldb;
          for (std::int64_t p = p0; p < p1; ++p) {
            float* dq = dst + (p * k + q) * kGemmNR;
            const std::int64_t j0 = p * kGemmNR;
            const std::int64_t cols = std::min(kGemmNR, n - j0);
            if (cols == kGemmNR) {
              std::memcpy(dq, src + j0, sizeof(float) * kGemmNR);
            } else {
              for (std::int64_t l = 0; l < kGemmNR; ++l) dq[l] = l < cols ? src[j0 + l] : 0.0f;
            }
          }
        }
        continue;
      }
      // Transposed: 16 x 16 blocks through a small tile, so that each write fills one
      // panel row (a cache line) instead of one float of 16 of them.
      for (std::int64_t p = p0; p < p1; ++p) {
        float* d = dst + p * k * kGemmNR;
        const std::int64_t j0 = p * kGemmNR;
        const std::int64_t cols = std::min(kGemmNR, n - j0);
        float tile[16][kGemmNR];
        for (std::int64_t q0 = 0; q0 < k; q0 += 16) {
          const std::int64_t qn = std::min<std::int64_t>(16, k - q0);
          for (std::int64_t l = 0; l < kGemmNR; ++l) {
            if (l >= cols) {
              for (std::int64_t q = 0; q < qn; ++q) tile[q][l] = 0.0f;
              continue;
            }
            const float* src = b + (j0 + l) * ldb + q0;
            for (std::int64_t q = 0; q < qn; ++q) tile[q][l] = src[q];
          }
          std::memcpy(d + q0 * kGemmNR, tile, sizeof(float) * static_cast<std::size_t>(qn * kGemmNR));
        }
      }
    }
  });
}

void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda, bool trans_a,
           const float* b, std::int64_t ldb, bool trans_b, float* c, std::int64_t ldc, const GemmEpilogue& ep,
           bool parallel) {
  if (m <= 0 || n <= 0) return;
  const PooledBuffer pa(packed_a_size(m, k));  // pooled: a run allocates nothing
  const PooledBuffer pb(packed_b_size(k, n));
  pack_a(m, k, a, lda, trans_a, alpha, pa.data());
  pack_b(k, n, b, ldb, trans_b, pb.data());
  gemm_packed(m, n, k, pa.data(), pb.data(), c, ldc, ep, parallel);
}

PackedMatMulB pack_matmul_b(const TensorView& b, bool bf16, bool trans) {
  check_dtype("MatMul", "B", b, DataType::f32);
  check_rank("MatMul", "B", b, 2);
  const std::int64_t k = trans ? b.dims[1] : b.dims[0], n = trans ? b.dims[0] : b.dims[1];
  if (bf16 && bf16_usable()) {
    PackedMatMulB out{k, n, true, Scratch((bf16_packed_b_size(k, n) + 1) / 2)};
    pack_b_bf16(k, n, b.as<const float>(), b.dims[1], trans, reinterpret_cast<std::uint16_t*>(out.panels.data()));
    return out;
  }
  PackedMatMulB out{k, n, false, Scratch(packed_b_size(k, n))};
  pack_b(out.k, out.n, b.as<const float>(), b.dims[1], trans, out.panels.data());
  return out;
}

namespace {

void check_f32(std::string_view op, const TensorView& a, const TensorView& b, const TensorView& y) {
  check_dtype(op, "A", a, DataType::f32);
  check_dtype(op, "B", b, DataType::f32);
  check_dtype(op, "Y", y, DataType::f32);
  check_data(op, "A", a);
  check_data(op, "B", b);
}

}  // namespace

void matmul(const TensorView& a, const TensorView& b, const TensorView& y) {
  check_f32("MatMul", a, b, y);
  if (a.rank() == 0 || b.rank() == 0) {
    fail(Errc::bad_op_inputs, "MatMul", "A " + bracketed(a.dims) + " and B " + bracketed(b.dims) +
                                            " must both have rank >= 1");
  }
  const bool a_vec = a.rank() == 1;
  const bool b_vec = b.rank() == 1;
  const std::int64_t m = a_vec ? 1 : a.dims[a.rank() - 2];
  const std::int64_t k = a.dims[a.rank() - 1];
  const std::int64_t kb = b_vec ? b.dims[0] : b.dims[b.rank() - 2];
  const std::int64_t n = b_vec ? 1 : b.dims[b.rank() - 1];
  if (k != kb) {
    fail(Errc::bad_op_inputs, "MatMul", "inner dims differ: A " + bracketed(a.dims) + " and B " + bracketed(b.dims));
  }
  const Dims a_batch = a_vec ? Dims{} : a.dims.first(a.rank() - 2);
  const Dims b_batch = b_vec ? Dims{} : b.dims.first(b.rank() - 2);
  const std::size_t batch_rank = std::max(a_batch.size(), b_batch.size());
  SmallDims batch(batch_rank, 1);
  for (std::size_t i = 0; i < batch_rank; ++i) {
    const std::int64_t da = i + a_batch.size() >= batch_rank ? a_batch[i + a_batch.size() - batch_rank] : 1;
    const std::int64_t db = i + b_batch.size() >= batch_rank ? b_batch[i + b_batch.size() - batch_rank] : 1;
    if (da != db && da != 1 && db != 1) {
      fail(Errc::incompatible_shapes, "MatMul",
           "batch dims of A " + bracketed(a.dims) + " and B " + bracketed(b.dims) + " do not broadcast");
    }
    batch[i] = da == 1 ? db : da;
  }
  SmallDims expect = batch;
  if (!a_vec) expect.push_back(m);
  if (!b_vec) expect.push_back(n);
  check_dims("MatMul", "Y", y, expect);

  const float* pa = a.as<const float>();
  const float* pb = b.as<const float>();
  float* py = y.as<float>();
  const std::int64_t nbatch = product(batch, 0, batch.size());
  if (nbatch == 0 || m == 0 || n == 0) return;
  const GemmEpilogue ep{};
  if (product(b_batch, 0, b_batch.size()) == 1 && !a_vec) {
    // B is one matrix: fold A's batch into its rows.
    sgemm(product(a_batch, 0, a_batch.size()) * m, n, k, 1.0f, pa, k, false, pb, n, false, py, n, ep);
    return;
  }
  const SmallDims sa = broadcast_strides("MatMul", "A", a_batch, batch);
  const SmallDims sb = broadcast_strides("MatMul", "B", b_batch, batch);
  const auto run_one = [&](std::int64_t t, bool parallel) {
    std::int64_t oa = 0, ob = 0, r = t;
    for (std::size_t d = batch_rank; d-- > 0;) {
      const std::int64_t i = r % batch[d];
      r /= batch[d];
      oa += i * sa[d];
      ob += i * sb[d];
    }
    sgemm(m, n, k, 1.0f, pa + oa * m * k, k, false, pb + ob * k * n, n, false, py + t * m * n, n, ep, parallel);
  };
  if (2 * m * n * k < (std::int64_t{1} << 22)) {
    parallel_for(nbatch, grain_for(m * n * k, 1 << 18), [&](std::int64_t tb, std::int64_t te) {
      for (std::int64_t t = tb; t < te; ++t) run_one(t, false);
    });
  } else {
    for (std::int64_t t = 0; t < nbatch; ++t) run_one(t, true);
  }
}

void matmul(const TensorView& a, const PackedMatMulB& b, const TensorView& y, const GemmEpilogue& ep) {
  check_dtype("MatMul", "A", a, DataType::f32);
  check_dtype("MatMul", "Y", y, DataType::f32);
  check_data("MatMul", "A", a);
  if (a.rank() == 0 || a.dims[a.rank() - 1] != b.k) {
    fail(Errc::bad_op_inputs, "MatMul",
         "A " + bracketed(a.dims) + " does not end in K = " + std::to_string(b.k) + " of the packed B");
  }
  SmallDims expect(a.dims.begin(), a.dims.end() - 1);
  expect.push_back(b.n);
  check_dims("MatMul", "Y", y, expect);
  const std::int64_t m = product(a.dims, 0, a.rank() - 1);
  if (m == 0 || b.n == 0) return;
  if (b.bf16) {
    matmul_bf16(m, b.n, b.k, a.as<const float>(), b.k, reinterpret_cast<const std::uint16_t*>(b.panels.data()),
                y.as<float>(), b.n, ep);
    return;
  }
  if (gemm_small_m_fits(m) && ep.residual == nullptr && ep.bias_m == nullptr && !ep.accumulate) {
    // Few rows (a classifier at batch 1): B streams past once, the rows' accumulators
    // side by side (the 12-row tiles would multiply 11 rows of padding), the columns
    // split over the threads; the activation after, over the finished rows.
    float* py = y.as<float>();
    constexpr std::int64_t kBlock = 4 * kGemmNR;
    const std::int64_t blocks = (b.n + kBlock - 1) / kBlock;
    const auto run = [&](std::int64_t lo, std::int64_t hi) {
      gemm_small_m(m, lo * kBlock, std::min(b.n, hi * kBlock), b.k, a.as<const float>(), b.k, b.panels.data(), py, b.n,
                   ep.bias_n);
    };
    if (blocks < 2 || m * b.n * b.k < (std::int64_t{1} << 17)) run(0, blocks);
    else parallel_for_static(blocks, run);
    if (is_map(ep.post.kind)) {
      map_rows(ep.post, py, b.n, m, b.n);
    } else if (ep.post.kind != Activation::none) {
      for (std::int64_t i = 0; i < m * b.n; ++i) py[i] = apply_post(py[i], ep.post);
    }
    return;
  }
  gemm_rowmajor_a(m, b.n, b.k, a.as<const float>(), b.k, b.panels.data(), y.as<float>(), b.n, ep);
}

void matmul_scaled_k(const TensorView& a, const float* s, std::int64_t groups, const PackedMatMulB& b,
                     const TensorView& y, const GemmEpilogue& ep) {
  check_dtype("MatMul", "A", a, DataType::f32);
  check_rank("MatMul", "A", a, 2);
  const std::int64_t m = a.dims[0], k = b.k, n = b.n;
  if (groups < 1 || m % groups != 0)
    fail(Errc::bad_op_inputs, "MatMul", "A's " + std::to_string(m) + " rows do not split into " +
                                            std::to_string(groups) + " runs of equal length");
  if (a.dims[1] != k) return matmul(a, b, y, ep);  // (its errors)
  const std::int64_t want[2] = {m, n};
  check_dims("MatMul", "Y", y, want);
  check_data("MatMul", "A", a);
  const std::int64_t rows = m / groups;
  if (m == 0 || n == 0) return;
  if (!b.bf16 && rows > n) {
    // Per run: B's row q scaled by s[q] (row q of panel p is at (p*k + q) * NR).
    const std::int64_t size = packed_b_size(k, n);
    const PooledBuffer scaled(size);
    const float* src = b.panels.data();
    float* dst = scaled.data();
    for (std::int64_t g = 0; g < groups; ++g) {
      const float* sg = s + g * k;
      parallel_for(size / kGemmNR, grain_for(kGemmNR), [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t r = lo; r < hi; ++r) {
          const float f = sg[r % k];
          for (std::int64_t l = 0; l < kGemmNR; ++l) dst[r * kGemmNR + l] = f * src[r * kGemmNR + l];
        }
      });
      const PackedMatMulB view{k, n, false, Scratch(dst, size, nullptr)};
      GemmEpilogue e = ep;
      if (e.residual != nullptr) e.residual += g * rows * e.ld_residual;
      const std::int64_t ad[2] = {rows, k}, yd[2] = {rows, n};
      matmul(TensorView{a.as<float>() + g * rows * k, DataType::f32, ad}, view,
             TensorView{y.as<float>() + g * rows * n, y.dtype, yd}, e);
    }
    return;
  }
  const PooledBuffer scaled(m * k);
  const float* pa = a.as<const float>();
  float* d = scaled.data();
  parallel_for(m, grain_for(k), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const float* sg = s + (i / rows) * k;
      for (std::int64_t q = 0; q < k; ++q) d[i * k + q] = pa[i * k + q] * sg[q];
    }
  });
  matmul(TensorView{d, DataType::f32, a.dims}, b, y, ep);
}

void gemm(const GemmParams& p, const TensorView& a, const TensorView& b, const TensorView* c, const TensorView& y) {
  check_f32("Gemm", a, b, y);
  check_rank("Gemm", "A", a, 2);
  check_rank("Gemm", "B", b, 2);
  const std::int64_t m = p.trans_a ? a.dims[1] : a.dims[0];
  const std::int64_t k = p.trans_a ? a.dims[0] : a.dims[1];
  const std::int64_t kb = p.trans_b ? b.dims[1] : b.dims[0];
  const std::int64_t n = p.trans_b ? b.dims[0] : b.dims[1];
  if (k != kb) {
    fail(Errc::bad_op_inputs, "Gemm",
         "inner dims differ: A " + bracketed(a.dims) + (p.trans_a ? " (transposed)" : "") + " and B " +
             bracketed(b.dims) + (p.trans_b ? " (transposed)" : ""));
  }
  const std::int64_t out[2] = {m, n};
  check_dims("Gemm", "Y", y, out);
  float* py = y.as<float>();
  GemmEpilogue ep{};
  if (c != nullptr && c->dtype != DataType::undefined && p.beta != 0.0f) {
    check_dtype("Gemm", "C", *c, DataType::f32);
    check_data("Gemm", "C", *c);
    const SmallDims sc = broadcast_strides("Gemm", "C", c->dims, out);
    const float* pc = c->as<const float>();
    if (p.beta == 1.0f && sc[0] == 0 && sc[1] == 1) {
      ep.bias_n = pc;  // C is [N] or [1, N]: a column bias
    } else if (p.beta == 1.0f && sc[0] == 1 && sc[1] == 0) {
      ep.bias_m = pc;  // C is [M, 1]: a row bias
    }
    if (ep.bias_n == nullptr && ep.bias_m == nullptr) {
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) py[i * n + j] = p.beta * pc[i * sc[0] + j * sc[1]];
      }
      ep.accumulate = true;
    }
  }
  if (m == 0 || n == 0) return;
  sgemm(m, n, k, p.alpha, a.as<const float>(), a.dims[1], p.trans_a, b.as<const float>(), b.dims[1], p.trans_b, py, n,
        ep);
}

}  // namespace ge::cpu
