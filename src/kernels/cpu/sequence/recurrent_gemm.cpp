// RNN, GRU and LSTM on f32 as GEMMs (recurrent.hpp). X times W^T of every step and
// direction is one product ([S*N, I] by the packed [I, D*G*H], the biases in its
// epilogue); then per direction and step the states of the batch [N, H] times the packed
// R^T give every gate's recurrent part at once (GRU without linear_before_reset: the
// update and reset gates first, then the reset states times R_h^T), and each entry's gate
// math runs as vector passes over its rows. Directions run side by side where the arena
// has threads for them, each with its own products.
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/sequence/recurrent_internal.hpp"
#include "kernels/cpu/elementwise/vmath.hpp"

namespace ge::cpu {
namespace {

// x = a(x) over n floats, in place.
void activate(const RnnActivation& a, float* x, std::int64_t n) {
  const float al = static_cast<float>(a.alpha), be = static_cast<float>(a.beta);
  switch (a.fn) {
    case RnnFn::sigmoid: vm::map(vm::Map::sigmoid, x, x, n); return;
    case RnnFn::tanh: vm::map(vm::Map::tanh, x, x, n); return;
    case RnnFn::relu: for_lanes(n, [&](std::int64_t i) { x[i] = x[i] < 0.0f ? 0.0f : x[i]; }); return;
    case RnnFn::affine: for_lanes(n, [&](std::int64_t i) { x[i] = al * x[i] + be; }); return;
    case RnnFn::leaky_relu: for_lanes(n, [&](std::int64_t i) { x[i] = x[i] < 0.0f ? al * x[i] : x[i]; }); return;
    case RnnFn::thresholded_relu: for_lanes(n, [&](std::int64_t i) { x[i] = x[i] > al ? x[i] : 0.0f; }); return;
    case RnnFn::scaled_tanh:
      for_lanes(n, [&](std::int64_t i) { x[i] *= be; });
      vm::map(vm::Map::tanh, x, x, n);
      for_lanes(n, [&](std::int64_t i) { x[i] *= al; });
      return;
    case RnnFn::hard_sigmoid:
      for_lanes(n, [&](std::int64_t i) {
        const float v = al * x[i] + be;
        x[i] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
      });
      return;
    case RnnFn::softsign: for_lanes(n, [&](std::int64_t i) { x[i] = x[i] / (1.0f + std::fabs(x[i])); }); return;
    case RnnFn::elu:
    case RnnFn::softplus:  // rare: the reference's double formula per value
      for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(rnn_apply(a, static_cast<double>(x[i])));
      return;
  }
}

void add(float* __restrict a, const float* __restrict b, std::int64_t n) {
  for_lanes(n, [&](std::int64_t i) { a[i] += b[i]; });
}

void clip(float* a, std::int64_t n, const std::optional<float>& c) {
  if (!c) return;
  const float lo = -*c, hi = *c;
  for_lanes(n, [&](std::int64_t i) { a[i] = a[i] < lo ? lo : a[i] > hi ? hi : a[i]; });
}

// One direction of one run: its products' operands, its states and its outputs.
struct Direction {
  const RnnParams* p;
  const RnnSizes* s;
  std::int64_t d;
  const float* xw;         // X W^T + biases: row (t, n) at xw + xw_row(t, n) * ldxw + d * G*H
  std::int64_t ldxw;
  const float* r0;         // packed R^T: every gate (GRU without linear_before_reset: z and r)
  const float* r1;         // GRU without linear_before_reset: R_h^T
  const float* step_bias;  // GRU with linear_before_reset: [G*H], R's bias of the hidden gate; or null
  const float* peep;       // LSTM: [3H] or null
  const RnnActivation* act;
  std::optional<float> clip;
  const std::vector<std::int64_t>* lens;
  float* h;  // [N, H]
  float* c;  // [N, H]
  float* y;  // Y or null
  bool parallel;

  [[nodiscard]] std::int64_t xw_row(std::int64_t t, std::int64_t n) const {
    return s->batch_first ? n * s->S + t : t * s->N + n;
  }
};

// LSTM's gates i, o, f, c of one entry in `g` (the products and biases summed), its
// state `h`, `c` updated.
void lstm_cell(const Direction& dr, float* g, float* h, float* c, float* tmp) {
  const std::int64_t H = dr.s->H;
  float* gi = g;
  float* go = g + H;
  float* gf = g + 2 * H;
  float* gc = g + 3 * H;
  if (dr.peep != nullptr) {
    const float* pi = dr.peep;
    const float* pf = dr.peep + 2 * H;
    for_lanes(H, [&](std::int64_t j) {
      gi[j] += pi[j] * c[j];
      gf[j] += pf[j] * c[j];
    });
    clip(gi, H, dr.clip);
    clip(gf, 2 * H, dr.clip);  // f and c
    activate(dr.act[0], gi, H);
    activate(dr.act[0], gf, H);
  } else {
    clip(g, 4 * H, dr.clip);
    activate(dr.act[0], g, 3 * H);  // i, o, f
  }
  activate(dr.act[1], gc, H);
  if (dr.p->input_forget) {
    for_lanes(H, [&](std::int64_t j) { c[j] = (1.0f - gi[j]) * c[j] + gi[j] * gc[j]; });
  } else {
    for_lanes(H, [&](std::int64_t j) { c[j] = gf[j] * c[j] + gi[j] * gc[j]; });
  }
  if (dr.peep != nullptr) {
    const float* po = dr.peep + H;
    for_lanes(H, [&](std::int64_t j) { go[j] += po[j] * c[j]; });
    clip(go, H, dr.clip);
    activate(dr.act[0], go, H);
  }
  std::memcpy(tmp, c, static_cast<std::size_t>(H) * sizeof(float));
  activate(dr.act[2], tmp, H);
  for_lanes(H, [&](std::int64_t j) { h[j] = go[j] * tmp[j]; });
}

// Columns [0, cols) of the step's product: C (row stride G*H) = the batch's rows of `a`
// (H floats each, row stride H) times the packed `pb`, plus `bias` per column.
void step_product(const Direction& dr, std::int64_t cols, const float* a, const float* pb, float* c, const float* bias) {
  const std::int64_t N = dr.s->N, H = dr.s->H, GH = dr.s->G * H;
  if (!gemm_small_m_fits(N)) {
    GemmEpilogue ep;
    ep.bias_n = bias;
    gemm_rowmajor_a(N, cols, H, a, H, pb, c, GH, ep, dr.parallel);
    return;
  }
  constexpr std::int64_t kBlock = 4 * kGemmNR;  // columns per task
  const std::int64_t blocks = (cols + kBlock - 1) / kBlock;
  if (!dr.parallel || blocks < 2 || N * cols * H < (std::int64_t{1} << 17)) {
    gemm_small_m(N, 0, cols, H, a, H, pb, c, GH, bias);
    return;
  }
  // The same columns to the same thread every step: its share of R stays in its cache.
  parallel_for_static(blocks, [&](std::int64_t b, std::int64_t e) {
    gemm_small_m(N, b * kBlock, std::min(cols, e * kBlock), H, a, H, pb, c, GH, bias);
  });
}

void run_direction(const Direction& dr) {
  const RnnSizes& s = *dr.s;
  const std::int64_t N = s.N, H = s.H, GH = s.G * H;
  const RnnCell cell = dr.p->cell;
  const bool gru_split = cell == RnnCell::gru && !dr.p->linear_before_reset;
  std::int64_t steps = s.S;
  if (!dr.lens->empty()) steps = *std::max_element(dr.lens->begin(), dr.lens->end());
  PooledBuffer pre(N * GH), aux(2 * N * H);
  float* rh = aux.data();  // GRU: the reset gate times the state, per entry
  float* tmp = aux.data() + N * H;  // LSTM: h's activation of c, per entry
  std::fill(rh, rh + N * H, 0.0f);
  const bool reverse = dr.d == 1 || dr.p->reverse;
  const auto len = [&](std::int64_t n) { return dr.lens->empty() ? s.S : (*dr.lens)[static_cast<std::size_t>(n)]; };
  for (std::int64_t k = 0; k < steps; ++k) {
    step_product(dr, gru_split ? 2 * H : GH, dr.h, dr.r0, pre.data(), dr.step_bias);
    // Per entry: the step it takes (or none), its gates' rows; the entries split over
    // the threads when this direction has them and the gates are many.
    const auto each = [&](auto&& f) {
      const auto entries = [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t n = lo; n < hi; ++n) {
          const std::int64_t l = len(n);
          if (k >= l) continue;
          const std::int64_t t = reverse ? l - 1 - k : k;
          f(n, t, pre.data() + n * GH, dr.xw + dr.xw_row(t, n) * dr.ldxw + dr.d * GH, dr.h + n * H);
        }
      };
      if (dr.parallel && N > 1 && N * GH >= 8192) parallel_for(N, 1, entries);
      else entries(0, N);
    };
    switch (cell) {
      case RnnCell::rnn:
        each([&](std::int64_t, std::int64_t, float* g, const float* xg, float* h) {
          add(g, xg, H);
          clip(g, H, dr.clip);
          activate(dr.act[0], g, H);
          std::memcpy(h, g, static_cast<std::size_t>(H) * sizeof(float));
        });
        break;
      case RnnCell::lstm:
        each([&](std::int64_t n, std::int64_t, float* g, const float* xg, float* h) {
          add(g, xg, GH);
          lstm_cell(dr, g, h, dr.c + n * H, tmp + n * H);
        });
        break;
      case RnnCell::gru:
        // z and r: f(x W^T + h R^T + biases).
        each([&](std::int64_t n, std::int64_t, float* g, const float* xg, float* h) {
          add(g, xg, 2 * H);
          clip(g, 2 * H, dr.clip);
          activate(dr.act[0], g, 2 * H);
          if (gru_split) {
            float* __restrict q = rh + n * H;
            const float* __restrict r = g + H;
            for_lanes(H, [&](std::int64_t j) { q[j] = r[j] * h[j]; });
          }
        });
        if (gru_split) step_product(dr, H, rh, dr.r1, pre.data() + 2 * H, nullptr);
        each([&](std::int64_t, std::int64_t, float* g, const float* xg, float* h) {
          float* __restrict hh = g + 2 * H;
          const float* __restrict xh = xg + 2 * H;
          if (gru_split) {
            add(hh, xh, H);
          } else {
            const float* __restrict r = g + H;
            for_lanes(H, [&](std::int64_t j) { hh[j] = xh[j] + r[j] * hh[j]; });
          }
          clip(hh, H, dr.clip);
          activate(dr.act[1], hh, H);
          const float* __restrict z = g;
          for_lanes(H, [&](std::int64_t j) { h[j] = (1.0f - z[j]) * hh[j] + z[j] * h[j]; });
        });
        break;
    }
    if (dr.y != nullptr)
      each([&](std::int64_t n, std::int64_t t, float*, const float*, float* h) {
        std::memcpy(dr.y + s.y_at(t, dr.d, n), h, static_cast<std::size_t>(H) * sizeof(float));
      });
  }
}

const TensorView* given(std::span<const TensorView> in, std::size_t i) {
  return i < in.size() && in[i].dtype != DataType::undefined ? &in[i] : nullptr;
}

// A state input ([D, N, H] or [N, D, H]) into `dst` as [D][N][H]; zeros when omitted.
void load_state(const RnnSizes& s, const TensorView* t, float* dst) {
  const std::int64_t H = s.H;
  for (std::int64_t d = 0; d < s.D; ++d)
    for (std::int64_t n = 0; n < s.N; ++n) {
      float* o = dst + (d * s.N + n) * H;
      if (t == nullptr) std::fill(o, o + H, 0.0f);
      else std::memcpy(o, t->as<const float>() + s.state_at(d, n), static_cast<std::size_t>(H) * sizeof(float));
    }
}

void store_state(const RnnSizes& s, const float* src, const TensorView& t) {
  const std::int64_t H = s.H;
  for (std::int64_t d = 0; d < s.D; ++d)
    for (std::int64_t n = 0; n < s.N; ++n)
      std::memcpy(t.as<float>() + s.state_at(d, n), src + (d * s.N + n) * H, static_cast<std::size_t>(H) * sizeof(float));
}

}  // namespace

void recurrent_f32(const RnnParams& p, const RnnSizes& s, std::span<const TensorView> in,
                   std::span<const TensorView> out, const PackedMatMulB& w, const PackedMatMulB& r) {
  const std::int64_t S = s.S, N = s.N, I = s.I, H = s.H, D = s.D, GH = s.G * H;
  const std::string_view op = p.cell == RnnCell::rnn ? "RNN" : p.cell == RnnCell::gru ? "GRU" : "LSTM";
  const std::vector<std::int64_t> lens = rnn_lengths(op, given(in, 4), S);
  const TensorView* b = given(in, 3);
  // The biases: W's and R's summed into the input products, except the hidden gate's R
  // bias of a GRU with linear_before_reset, which the reset gate scales (a step bias).
  std::vector<float> in_bias(static_cast<std::size_t>(D * GH), 0.0f), step_bias;
  if (p.cell == RnnCell::gru && p.linear_before_reset && b != nullptr)
    step_bias.assign(static_cast<std::size_t>(D * GH), 0.0f);
  if (b != nullptr) {
    const float* bv = b->as<const float>();
    for (std::int64_t d = 0; d < D; ++d)
      for (std::int64_t j = 0; j < GH; ++j) {
        const float wb = bv[d * 2 * GH + j], rb = bv[d * 2 * GH + GH + j];
        const auto at = static_cast<std::size_t>(d * GH + j);
        if (!step_bias.empty() && j >= 2 * H) {
          in_bias[at] = wb;
          step_bias[at] = rb;
        } else {
          in_bias[at] = wb + rb;
        }
      }
  }
  const std::int64_t rows = S * N;
  PooledBuffer xw(std::max<std::int64_t>(1, rows * D * GH));
  if (I > 0) {
    GemmEpilogue ep;
    ep.bias_n = in_bias.data();
    gemm_rowmajor_a(rows, D * GH, I, in[0].as<const float>(), I, w.panels.data(), xw.data(), D * GH, ep);
  } else {
    for (std::int64_t i = 0; i < rows; ++i) std::copy(in_bias.begin(), in_bias.end(), xw.data() + i * D * GH);
  }
  std::vector<float> h(static_cast<std::size_t>(D * N * H)), c(h.size());
  load_state(s, given(in, 5), h.data());
  load_state(s, p.cell == RnnCell::lstm ? given(in, 6) : nullptr, c.data());
  float* y = !out.empty() && out[0].dtype != DataType::undefined ? out[0].as<float>() : nullptr;
  if (y != nullptr && !lens.empty()) std::fill(y, y + S * D * N * H, 0.0f);  // past each entry's length
  const TensorView* peep = p.cell == RnnCell::lstm ? given(in, 7) : nullptr;
  const RnnRBlocks blocks = rnn_r_blocks(p);
  const std::int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  // Directions side by side, each on its own threads, unless a direction's R is too big for
  // one core's L2 but its share over the threads is not, while the batch is small (a
  // product of few rows streams R once per step): then one direction after another, each
  // step's columns split over every thread, so that each thread's share of R stays in its
  // L2 from step to step (GRU 512 on 2 cores with 2 MiB each: 3 MiB per direction).
  const std::int64_t r_bytes = H * GH * std::int64_t{sizeof(float)}, fits = l2_bytes() * 3 / 4;
  const bool r_shared = gemm_small_m_fits(N) && r_bytes > fits && r_bytes / threads <= fits;
  const bool side_by_side = D > 1 && threads > 1 && !r_shared;
  const auto direction = [&](std::int64_t d) {
    Direction dr{};
    dr.p = &p;
    dr.s = &s;
    dr.d = d;
    dr.xw = xw.data();
    dr.ldxw = D * GH;
    dr.r0 = r.panels.data() + d * H * blocks.direction_columns();
    dr.r1 = dr.r0 + H * RnnRBlocks::padded(blocks.rows[0]);
    dr.step_bias = step_bias.empty() ? nullptr : step_bias.data() + d * GH;
    dr.peep = peep != nullptr ? peep->as<const float>() + d * 3 * H : nullptr;
    dr.act = p.activations.data() + static_cast<std::size_t>(d) * rnn_activation_count(p.cell);
    if (p.clip) dr.clip = static_cast<float>(*p.clip);
    dr.lens = &lens;
    dr.h = h.data() + d * N * H;
    dr.c = c.data() + d * N * H;
    dr.y = y;
    dr.parallel = !side_by_side || threads > D;
    return dr;
  };
  if (N > 0 && H > 0) {
    if (side_by_side) {
      parallel_for(D, 1, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t d = lo; d < hi; ++d) run_direction(direction(d));
      });
    } else {
      for (std::int64_t d = 0; d < D; ++d) run_direction(direction(d));
    }
  }
  if (out.size() > 1 && out[1].dtype != DataType::undefined) store_state(s, h.data(), out[1]);
  if (out.size() > 2 && out[2].dtype != DataType::undefined) store_state(s, c.data(), out[2]);
}

}  // namespace ge::cpu
